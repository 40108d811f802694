// `tandem serve --game ships` as a process: it listens, answers /healthz, welcomes a ships
// hello naming ships and streaming one-byte commands, refuses the arena's hello (game_mismatch)
// and a ships hello with the arena's fingerprint (fingerprint_mismatch), and serves ships'
// scenario stream, checked against the committed golden stream. Messages are written byte by
// byte from the protocol's layout (protocol 2), not by the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer, rawWebSocket, rawHttp, metrics, sleep } from '../support.mjs';
import { hello as wireHello } from '../wire.mjs';

const hashOf = (tool) => Buffer.from(execFileSync(tool, { encoding: 'utf8' }).trim(), 'hex').reverse();
const shipsFingerprint = hashOf(process.env.TANDEM_SHIPS_FINGERPRINT);
const arenaFingerprint = hashOf(process.env.TANDEM_ARENA_FINGERPRINT);
const type = { hello: 0x01, input: 0x02, welcome: 0x81, frame: 0x82, baseline: 0x83, error: 0x86 };
const code = { fingerprint_mismatch: 2, game_mismatch: 10 };

// The hello as tests/server/wire.mjs writes it from the layout, for ships unless told.
const hello = ({ fp = shipsFingerprint, role = 0, game = 'ships' } = {}) => wireHello({ fp, role, game });
// u8 type | u32 sequence | u8 n = 1 | ships' held buttons (thrust 1, left 2, right 4, fire 8)
function input(sequence, buttons) {
  return Buffer.from([type.input, sequence & 0xff, (sequence >> 8) & 0xff, 0, 0, 1, buttons]);
}
// The welcome: u8 type | u8 role | u32 player | u32 delay | u64 tick | u32 max players | u8 n | name
const welcomeGame = (payload) => payload.subarray(23, 23 + payload[22]).toString('latin1');
const welcomeMaxPlayers = (payload) => payload.readUInt32LE(18);

async function healthy(port, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await rawHttp(port, '/healthz');
    if (r.status === 200 || Date.now() > deadline) return r;
    await sleep(100);   // 503 before the first tick
  }
}

test('tandem serve --game ships answers /healthz and welcomes a ships player with its name, seats and one-byte commands', async () => {
  const server = await startServer({ realRoom: true, serve: ['--game', 'ships', '--max-players', '3'] });
  try {
    const health = await healthy(server.port);
    assert.equal(health.status, 200);
    assert.equal(health.body.toString(), 'on_time\n');
    const player = await rawWebSocket(server.port);
    player.send(2, hello());
    for (let i = 1; i <= 10; ++i) player.send(2, input(i, 1 | 8));
    const messages = await player.messages(30);
    assert.equal(messages[0].payload[0], type.welcome);
    assert.equal(welcomeGame(messages[0].payload), 'ships');
    assert.equal(welcomeMaxPlayers(messages[0].payload), 3);
    assert.equal(messages[1].payload[0], type.baseline);
    const frames = messages.filter((m) => m.payload[0] === type.frame);
    assert.ok(frames.length > 0);
    // A frame's header: u8 type | u64 tick | u64 digest | u16 count | u8 command bytes.
    for (const f of frames) assert.equal(f.payload[19], 1, 'a ships command is one byte');
    const ticks = frames.map((m) => Number(m.payload.readBigUInt64LE(1)));
    for (let i = 1; i < ticks.length; ++i) assert.equal(ticks[i], ticks[i - 1] + 1, `tick ${ticks[i - 1]} then ${ticks[i]}`);
    assert.equal((await metrics(server.port)).values.tandem_room_players, 1);
    player.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test("the arena's hello gets game_mismatch and a ships hello with the arena's fingerprint fingerprint_mismatch, then 1002", async () => {
  const server = await startServer({ realRoom: true, serve: ['--game', 'ships'] });
  try {
    for (const [what, message, expected] of [
      ["the arena's hello", hello({ fp: arenaFingerprint, game: 'arena' }), code.game_mismatch],
      ["ships with the arena's fingerprint", hello({ fp: arenaFingerprint }), code.fingerprint_mismatch],
    ]) {
      const client = await rawWebSocket(server.port);
      client.send(2, message);
      const [error] = await client.messages(1);
      assert.equal(error.payload[0], type.error, what);
      assert.equal(error.payload[1], expected, what);
      const text = error.payload.subarray(4, 4 + error.payload.readUInt16LE(2)).toString();
      if (expected === code.game_mismatch) assert.match(text, /ships/, what);
      assert.deepEqual(await client.closeFrame(), { code: 1002, reason: 'protocol_error' }, what);
      client.destroy();
    }
    assert.equal((await metrics(server.port)).values.tandem_room_players, 0);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test("/native/stream serves ships' duel stream equal to the committed golden stream", async () => {
  const server = await startServer({ realRoom: true, serve: ['--game', 'ships'] });
  try {
    const golden = readFileSync(fileURLToPath(new URL('../../games/ships/golden/duel.txt', import.meta.url)), 'utf8')
      .split('\n').filter((l) => /^(0|100|200) /.test(l));
    let r;
    for (let i = 0; i < 100; ++i) {
      r = await rawHttp(server.port, '/native/stream?scenario=duel&ticks=200&every=100');
      if (r.status !== 503) break;
      await sleep(200);   // computed off the tick loop: come back
    }
    assert.equal(r.status, 200);
    const lines = r.body.toString().split('\n');
    assert.ok(lines.includes('simulation_version 1'));
    assert.deepEqual(lines.filter((l) => /^\d+ [0-9a-f]{16}$/.test(l)), golden);
    assert.equal((await rawHttp(server.port, '/native/stream?scenario=trig&ticks=10')).status, 400);  // an arena scenario
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('ships-serve, a main of its own over the kit\'s server library, serves the same room: /healthz, a welcome naming ships, its flags refused like tandem serve\'s', async () => {
  const program = process.env.TANDEM_SHIPS_SERVE;
  assert.ok(program, 'TANDEM_SHIPS_SERVE names the ships-serve program');
  const help = execFileSync(program, ['--help'], { encoding: 'utf8' });
  assert.match(help, /^usage: ships-serve/);
  assert.match(help, /--tick-hz HZ/);
  let refused;
  try { execFileSync(program, ['--tick-hz', '0'], { encoding: 'utf8', stdio: 'pipe' }); } catch (e) { refused = e; }
  assert.equal(refused?.status, 2);
  assert.equal(refused.stderr, "ships-serve: --tick-hz expects a whole number in 1..1000 (got '0')\n");
  const server = await startServer({ program, serve: ['--max-players', '2'] });
  try {
    assert.equal((await healthy(server.port)).status, 200);
    const player = await rawWebSocket(server.port);
    player.send(2, hello());
    const [welcome, baseline] = await player.messages(2);
    assert.equal(welcome.payload[0], type.welcome);
    assert.equal(welcomeGame(welcome.payload), 'ships');
    assert.equal(welcomeMaxPlayers(welcome.payload), 2);
    assert.equal(baseline.payload[0], type.baseline);
    player.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});
