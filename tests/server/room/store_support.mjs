// What the room suites share (checkpoint, failover and record .test.mjs): a player over a raw
// socket that joins or resumes, steers and acks; the stores to run against (a fresh folder,
// and a redis-server of the test's own on a unix socket); `tandem replay --dump-at`.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawWebSocket, sleep } from '../support.mjs';
import { hello as wireHello } from '../wire.mjs';

export const type = { hello: 0x01, input: 0x02, ack: 0x03, welcome: 0x81, frame: 0x82, baseline: 0x83, error: 0x86 };
const TOKEN_BYTES = 16;

// The arena's hello as tests/server/wire.mjs writes it from the layout, with a token when given.
export const hello = (token = null) => wireHello({ token });
// u8 type | u32 sequence | u8 n = 8 | the arena's steer: i32 x raw | i32 y raw
export function input(sequence, x = 0, y = 0) {
  const b = Buffer.alloc(14);
  b[0] = type.input;
  b.writeUInt32LE(sequence, 1);
  b[5] = 8;
  b.writeInt32LE(x, 6);
  b.writeInt32LE(y, 10);
  return b;
}
// u8 type | u8 holds (1) | u64 tick | u64 digest, copied from the frame
export function ack(frame) {
  const b = Buffer.alloc(18);
  b[0] = type.ack;
  b[1] = 1;
  frame.payload.copy(b, 2, 1, 17);
  return b;
}
// u8 type | u8 role | u32 player | u32 delay | u64 tick | u32 max players | u8 n | name | u16 m
// | config | [16-byte token]
export function parseWelcome(payload) {
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

// A player that joins (or resumes with `token`), steers and acks for `ms`; `at` is a server
// (its default room) or { port, path } (a room by its path, /ws/ROOM).
export async function play(at, ms, token = null) {
  const ws = await rawWebSocket(at.port, { path: at.path ?? '/ws' });
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
  return { ws, welcome, newest: frames.length ? Number(frames.at(-1).payload.readBigUInt64LE(1)) : welcome.tick, frames: frames.length };
}

export const tandem = (...args) => spawnSync(process.env.TANDEM_BINARY, args, { encoding: 'utf8' });

// The canonical state at `tick` as `tandem replay FILE --dump-at TICK` prints it.
export function dumpAt(file, tick) {
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
export async function startRedis() {
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

export async function stores() {
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

