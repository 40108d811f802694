// `tandem serve --store` from outside: a player plays over a real socket, the server is killed
// with SIGKILL (or stopped with SIGTERM), and a server started again with the same store and
// room goes on from the tick the store holds, which is at least the newest tick the player was
// sent; the player's resume token takes its own seat back; the restored world at that tick is
// the killed server's (`tandem replay --dump-at` of both servers' --record files, compared
// here). Run with the directory store and with Redis (a redis-server this test starts on a
// unix socket; without one the Redis cases fail under CI=true and are skipped otherwise). A
// second server asked for a room another one serves waits for its lease, then exits 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSite, startServer, rawWebSocket, sleep } from '../support.mjs';
import { hello as wireHello } from '../wire.mjs';

const type = { hello: 0x01, input: 0x02, ack: 0x03, welcome: 0x81, frame: 0x82, baseline: 0x83, error: 0x86 };
const TOKEN_BYTES = 16;

// The arena's hello as tests/server/wire.mjs writes it from the layout, with a token when given.
const hello = (token = null) => wireHello({ token });
// u8 type | u32 sequence | u8 n = 8 | i32 x raw | i32 y raw
function input(sequence, x, y) {
  const b = Buffer.alloc(14);
  b[0] = type.input;
  b.writeUInt32LE(sequence, 1);
  b[5] = 8;
  b.writeInt32LE(x, 6);
  b.writeInt32LE(y, 10);
  return b;
}
// u8 type | u8 holds (1) | u64 tick | u64 digest, copied from the frame
function ack(frame) {
  const b = Buffer.alloc(18);
  b[0] = type.ack;
  b[1] = 1;
  frame.payload.copy(b, 2, 1, 17);
  return b;
}
// u8 type | u8 role | u32 player | u32 delay | u64 tick | u32 max players | u8 n | name | u16 m
// | config | [16-byte token]
function parseWelcome(payload) {
  assert.equal(payload[0], type.welcome, `a welcome (got type ${payload[0]})`);
  const n = payload[22];
  const m = payload.readUInt16LE(23 + n);
  const end = 25 + n + m;
  return {
    player: payload.readUInt32LE(2),
    tick: Number(payload.readBigUInt64LE(10)),
    token: payload.length - end === TOKEN_BYTES ? Buffer.from(payload.subarray(end)) : null,
  };
}

// A player that joins (or resumes with `token`), steers and acks for `ms`.
async function play(server, ms, token = null) {
  const ws = await rawWebSocket(server.port);
  ws.send(2, hello(token));
  const [first] = await ws.messages(1);
  const welcome = parseWelcome(first.payload);
  const until = Date.now() + ms;
  for (let sequence = 1; Date.now() < until; ++sequence) {
    ws.send(2, input(sequence, ((sequence * 7) % 200 - 100) << 16, ((sequence * 3) % 150 - 75) << 16));
    const newest = ws.frames().filter((f) => f.opcode === 2 && f.payload[0] === type.frame).at(-1);
    if (newest && sequence % 4 === 0) ws.send(2, ack(newest));
    await sleep(16);
  }
  const frames = ws.frames().filter((f) => f.opcode === 2 && f.payload[0] === type.frame);
  return { ws, welcome, newest: frames.length ? Number(frames.at(-1).payload.readBigUInt64LE(1)) : welcome.tick };
}

const tandem = (...args) => spawnSync(process.env.TANDEM_BINARY, args, { encoding: 'utf8' });

// The canonical state at `tick` as `tandem replay FILE --dump-at TICK` prints it.
function dumpAt(file, tick) {
  const r = tandem('replay', file, '--allow-truncated', '--dump-at', String(tick));
  assert.equal(r.status, 0, `replay ${file} --dump-at ${tick}: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => !l.startsWith('truncated')).join('\n');
}

function findRedis() {
  for (const dir of ['/usr/bin', '/usr/sbin', '/usr/local/bin']) {
    if (existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return null;
}

// A redis-server of this test's own on a unix socket in a fresh folder.
async function startRedis() {
  const binary = findRedis();
  if (!binary) return null;
  const dir = mkdtempSync(join(tmpdir(), 'tandem-redis-'));
  const socket = join(dir, 'redis.sock');
  const child = spawn(binary, ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--dir', dir, '--save', '',
    '--appendonly', 'yes', '--appendfsync', 'everysec', '--loglevel', 'warning'], { stdio: 'ignore' });
  for (let i = 0; i < 250 && !existsSync(socket); ++i) await sleep(20);
  assert.ok(existsSync(socket), 'redis-server made its socket');
  return {
    address: `unix:${socket}`,
    // redis-server writes its append-only file as it shuts down: the folder is removed only
    // once the process is gone (removing it sooner raced that write: ENOTEMPTY).
    async stop() {
      const gone = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stores() {
  const out = [];
  const folder = mkdtempSync(join(tmpdir(), 'tandem-store-'));
  out.push({ name: 'directory', address: `dir:${folder}`, async stop() { rmSync(folder, { recursive: true, force: true }); } });
  const redis = await startRedis();
  if (redis) {
    out.push({ name: 'redis', ...redis });
  } else if (process.env.CI === 'true') {
    assert.fail('redis-server is not installed (build-scripts/install-deps installs it)');
  } else {
    console.log('# redis-server is not installed: the Redis cases are skipped (under CI=true they fail)');
  }
  return out;
}

const serve = ['--pellets', '64', '--max-players', '2', '--resume-grace', '30'];

for (const kind of ['directory', 'redis']) {
  test(`${kind} store: after SIGKILL a server started again goes on from the store's tick, at least the newest the player saw; its token takes its seat back; the world there is the killed server's`, async (t) => {
    const all = await stores();
    const st = all.find((s) => s.name === kind);
    try {
      if (!st) { t.skip('no redis-server'); return; }
      const site = makeSite();
      const first = join(site.base, 'first.replay');
      const second = join(site.base, 'second.replay');
      const a = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r1', '--record', first] });
      const played = await play(a, 1500);
      assert.ok(played.welcome.token, 'a player is given a token');
      assert.ok(played.newest > 30, `the player was sent frames (to tick ${played.newest})`);
      a.child.kill('SIGKILL');
      assert.equal((await a.exited).signal, 'SIGKILL');
      played.ws.destroy();

      const started = Date.now();
      const b = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r1', '--record', second] });
      try {
        const restoredLine = /restored room 'r1' at tick (\d+) \(snapshot (\d+), (\d+) frames replayed, (\d+) seats kept/.exec(b.output().stderr);
        assert.ok(restoredLine, `the second server says what it restored: ${b.output().stderr}`);
        const tick = Number(restoredLine[1]);
        assert.ok(tick >= played.newest, `restored at tick ${tick}, the player had been sent ${played.newest}: no tick lost`);
        assert.equal(Number(restoredLine[4]), 1, 'the player\'s seat is kept');
        console.log(`# ${kind}: killed after tick ${played.newest} (player), restored at ${tick}, listening again after ${Date.now() - started} ms`);

        const back = await play(b, 500, played.welcome.token);
        assert.equal(back.welcome.player, played.welcome.player, 'the same player id');
        assert.ok(back.welcome.tick >= tick, 'the room goes on from there');
        assert.ok(back.newest > back.welcome.tick, 'and ticks on');
        const stranger = await rawWebSocket(b.port);
        stranger.send(2, hello());
        const other = parseWelcome((await stranger.messages(1))[0].payload);
        assert.notEqual(other.player, played.welcome.player, 'nobody else gets the seat');
        stranger.destroy();
        back.ws.destroy();
        // The killed server's record and the restored server's record hold the same world at
        // the restored tick, field by field.
        assert.equal(dumpAt(second, tick), dumpAt(first, tick));
      } finally {
        await b.stop();
      }
    } finally {
      for (const s of all) await s.stop();
    }
  });
}

test('directory store: SIGTERM keeps the seats and gives the lease back, so a server started next takes the room at once and the token still works', async () => {
  const [st] = await stores().then(async (all) => { for (const s of all.slice(1)) await s.stop(); return all; });
  try {
    const site = makeSite();
    const a = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r2'] });
    const played = await play(a, 800);
    const { code } = await a.stop();
    assert.equal(code, 0);
    assert.equal((await played.ws.closeFrame())?.code, 1001, 'the client is told the server goes away');
    played.ws.destroy();
    const started = Date.now();
    const b = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r2'] });
    try {
      assert.ok(Date.now() - started < 900, `no wait for a lease the stopped server gave back (${Date.now() - started} ms)`);
      assert.match(b.output().stderr, /restored room 'r2' at tick \d+ .* 1 seats kept/);
      const back = await play(b, 300, played.welcome.token);
      assert.equal(back.welcome.player, played.welcome.player);
      back.ws.destroy();
    } finally {
      await b.stop();
    }
  } finally {
    await st.stop();
  }
});

test('directory store: a second server for a room another one serves waits for the lease, then exits 1 naming the owner', async () => {
  const [st] = await stores().then(async (all) => { for (const s of all.slice(1)) await s.stop(); return all; });
  try {
    const site = makeSite();
    const a = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r3'] });
    try {
      const r = spawnSync(process.env.TANDEM_BINARY, ['serve', '--port', '0', '--web', site.web, '--pkg', site.pkg, ...serve,
        '--store', st.address, '--room', 'r3'], { encoding: 'utf8', timeout: 20000 });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /the room 'r3' in --store .* is served by tandem-serve\|/);
    } finally {
      await a.stop();
    }
  } finally {
    await st.stop();
  }
});

test('--store and --room refuse what they cannot use, exit 2', () => {
  for (const [args, message] of [[['--store', 'ftp://x'], /--store expects dir:PATH/], [['--store', 'dir:/tmp/x', '--room', 'a b'], /--room expects a name/]]) {
    const r = tandem('serve', ...args);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
  }
});
