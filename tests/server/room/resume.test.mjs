// Reconnect without losing the seat, from outside over real sockets against `tandem serve`: a
// player's welcome ends with a 16-byte resume token; its socket drops, a stranger meanwhile
// gets another seat, and a hello carrying the token gets the same player id back (a welcome
// with a fresh token, a baseline, then frames). A wrong token, a used one and one past the
// grace are each refused with their own error code, then closed with 1008. Messages are written
// and read byte by byte from the protocol's layout (include/tandem/net/protocol.hpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startServer, rawWebSocket, sleep } from '../support.mjs';
import { hello as wireHello } from '../wire.mjs';

const fingerprint = Buffer.from(execFileSync(process.env.TANDEM_ARENA_FINGERPRINT, { encoding: 'utf8' }).trim(), 'hex').reverse();
const type = { hello: 0x01, welcome: 0x81, frame: 0x82, baseline: 0x83, error: 0x86 };
const code = { room_full: 3, resume_unknown: 11, resume_expired: 12, resume_used: 13 };
const TOKEN_BYTES = 16;

// The hello as tests/server/wire.mjs writes it from the layout, with a token when given.
const hello = ({ role = 0, token = null } = {}) => wireHello({ fp: fingerprint, role, token });

// u8 type | u8 role | u32 player | u32 delay | u64 tick | u32 max players | u8 n | name
// | u16 m | config | [16-byte token]
function parseWelcome(payload) {
  assert.equal(payload[0], type.welcome);
  const player = payload.readUInt32LE(2);
  const n = payload[22];
  const m = payload.readUInt16LE(23 + n);
  const end = 25 + n + m;
  const rest = payload.length - end;
  assert.ok(rest === 0 || rest === TOKEN_BYTES, `a welcome ends with nothing or a token (${rest} bytes)`);
  return { player, token: rest ? Buffer.from(payload.subarray(end)) : null };
}

async function join(server, token = null) {
  const ws = await rawWebSocket(server.port);
  ws.send(2, hello({ token }));
  return ws;
}

async function refusalOf(ws) {
  const [first] = await ws.messages(1);
  assert.equal(first.payload[0], type.error, 'an error message first');
  return { code: first.payload[1], close: (await ws.closeFrame())?.code };
}

const serve = ['--pellets', '64', '--max-players', '2'];

test('a dropped player reconnects with its token to the same player id, while a stranger gets another seat', async () => {
  const server = await startServer({ realRoom: true, serve });
  try {
    const first = await join(server);
    const welcomed = parseWelcome((await first.messages(1))[0].payload);
    assert.ok(welcomed.token, 'a player is given a token');
    first.destroy();   // the network drops the socket
    await sleep(300);

    const stranger = await join(server);
    const other = parseWelcome((await stranger.messages(1))[0].payload);
    assert.notEqual(other.player, welcomed.player, 'the kept seat is not handed to a stranger');
    const third = await join(server);
    assert.equal((await refusalOf(third)).code, code.room_full, 'two seats: one kept, one the stranger\'s');

    const back = await join(server, welcomed.token);
    const messages = await back.messages(5);
    const again = parseWelcome(messages[0].payload);
    assert.equal(again.player, welcomed.player, 'the same player id');
    assert.ok(again.token && !again.token.equals(welcomed.token), 'a fresh token: each is good once');
    assert.equal(messages[1].payload[0], type.baseline);
    for (const m of messages.slice(2)) assert.equal(m.payload[0], type.frame);

    const reused = await join(server, welcomed.token);
    assert.deepEqual(await refusalOf(reused), { code: code.resume_used, close: 1008 });
    const wrong = await join(server, randomBytes(TOKEN_BYTES));
    assert.deepEqual(await refusalOf(wrong), { code: code.resume_unknown, close: 1008 });
    for (const ws of [stranger, back]) ws.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a token past --resume-grace is refused as expired, and its seat is free again', async () => {
  const server = await startServer({ realRoom: true, serve: [...serve, '--resume-grace', '1'] });
  try {
    const first = await join(server);
    const welcomed = parseWelcome((await first.messages(1))[0].payload);
    first.destroy();
    await sleep(1800);   // the grace (60 ticks), the leave's delay, and the transport's notice
    const late = await join(server, welcomed.token);
    assert.deepEqual(await refusalOf(late), { code: code.resume_expired, close: 1008 });
    const fresh = await join(server);
    assert.equal(parseWelcome((await fresh.messages(1))[0].payload).player, welcomed.player, 'the seat is anyone\'s again');
    fresh.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});
