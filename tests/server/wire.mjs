// The room's protocol (include/tandem/net/protocol.hpp, version 5) written and read byte by byte
// from its documented layout, little-endian, for the socket tests of tests/server: the bytes
// come from the layout, never from the code under test. Also the arena's fingerprint hash (the
// hello needs it), from the small program the build makes for the tests.
import { execFileSync } from 'node:child_process';

export const PROTOCOL_VERSION = 5;
export const TOKEN_BYTES = 16;
export const type = {
  hello: 0x01, input: 0x02, ack: 0x03, ping: 0x04, desync: 0x05,
  welcome: 0x81, frame: 0x82, baseline: 0x83, pong: 0x84, sections: 0x85, error: 0x86,
};
// ErrorCode (the u8 of an error message).
export const code = {
  version_mismatch: 1, fingerprint_mismatch: 2, room_full: 3, rate_limited: 4, malformed: 5, unexpected: 6,
  too_slow: 7, shutting_down: 8, idle: 9, game_mismatch: 10, resume_unknown: 11, resume_expired: 12,
  resume_used: 13, resumed_elsewhere: 14, ticket_missing: 15, ticket_forged: 16, ticket_expired: 17,
  ticket_replayed: 18, ticket_invalid: 19, address_limit: 20, room_moved: 21,
};
export const codeName = Object.fromEntries(Object.entries(code).map(([k, v]) => [v, k]));

// The hash as `tandem_test_arena_fingerprint` prints it (hex, most significant first), as the
// hello's u64 (little-endian bytes).
export function fingerprintOf(program) {
  return Buffer.from(execFileSync(program, { encoding: 'utf8' }).trim(), 'hex').reverse();
}
let arena = null;
export function arenaFingerprint() {
  if (arena === null) {
    const program = process.env.TANDEM_ARENA_FINGERPRINT;
    if (!program) throw new Error('TANDEM_ARENA_FINGERPRINT must name the built tandem_test_arena_fingerprint program');
    arena = fingerprintOf(program);
  }
  return arena;
}

// u8 type | u16 version | u64 fingerprint | u8 role (0 play, 1 watch) | u8 n | the game's name
// | u8 t (0 or 16) | t bytes of a resume token | u16 k | k bytes of a ticket
export function hello({ version = PROTOCOL_VERSION, fp = arenaFingerprint(), role = 0, game = 'arena', token = null, ticket = null } = {}) {
  const name = Buffer.from(game, 'latin1');
  const t = token ? Buffer.from(token) : Buffer.alloc(0);
  const k = ticket ? Buffer.from(ticket) : Buffer.alloc(0);
  const b = Buffer.alloc(16 + name.length + t.length + k.length);
  b[0] = type.hello;
  b.writeUInt16LE(version, 1);
  Buffer.from(fp).copy(b, 3);
  b[11] = role;
  b[12] = name.length;
  name.copy(b, 13);
  let at = 13 + name.length;
  b[at++] = t.length;
  t.copy(b, at);
  at += t.length;
  b.writeUInt16LE(k.length, at);
  k.copy(b, at + 2);
  return b;
}

// u8 type | u32 sequence | u8 n = 8 | the arena's steer: i32 x raw | i32 y raw
export function input(sequence, x = 0, y = 0) {
  const b = Buffer.alloc(14);
  b[0] = type.input;
  b.writeUInt32LE(sequence >>> 0, 1);
  b[5] = 8;
  b.writeInt32LE(x | 0, 6);
  b.writeInt32LE(y | 0, 10);
  return b;
}

// u8 type | u8 holds | u64 tick | u64 digest. Without a tick: "nothing held", which asks for a baseline.
export function ack(tick = null, digest = 0n) {
  const b = Buffer.alloc(18);
  b[0] = type.ack;
  if (tick !== null) {
    b[1] = 1;
    b.writeBigUInt64LE(BigInt(tick), 2);
    b.writeBigUInt64LE(BigInt(digest), 10);
  }
  return b;
}

// u8 type | i64 client time
export function ping(time = 0n) {
  const b = Buffer.alloc(9);
  b[0] = type.ping;
  b.writeBigInt64LE(BigInt(time), 1);
  return b;
}

// u8 type | u64 tick | u8 n | n x u64
export function desync(tick, sections = []) {
  const b = Buffer.alloc(10 + 8 * sections.length);
  b[0] = type.desync;
  b.writeBigUInt64LE(BigInt(tick), 1);
  b[9] = sections.length;
  sections.forEach((s, i) => b.writeBigUInt64LE(BigInt(s), 10 + 8 * i));
  return b;
}

// u8 type | u8 role | u32 player | u32 delay | u64 tick | u32 max players | u8 n | name
// | u16 m | config | [16-byte token]
export function parseWelcome(payload) {
  if (payload[0] !== type.welcome) throw new Error(`not a welcome: type ${payload[0]}`);
  const player = payload.readUInt32LE(2);
  const n = payload[22];
  const m = payload.readUInt16LE(23 + n);
  const end = 25 + n + m;
  const rest = payload.length - end;
  if (rest !== 0 && rest !== TOKEN_BYTES) throw new Error(`a welcome ends with nothing or a token (${rest} bytes)`);
  return { role: payload[1], player, token: rest ? Buffer.from(payload.subarray(end)) : null };
}

// u8 type | u8 code | u16 length | text
export function parseError(payload) {
  if (payload[0] !== type.error) return null;
  const length = payload.readUInt16LE(2);
  return { code: payload[1], name: codeName[payload[1]], text: payload.subarray(4, 4 + length).toString('utf8') };
}
