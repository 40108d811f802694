// The lockstep protocol written and read byte by byte from its documented layout
// (include/tandem/net/protocol.hpp), little-endian, so the tests of the ES module's Room and
// Replay check them against bytes the code under test did not produce. Protocol version 5:
// the game's name in the hello and the welcome, its config, commands and section digests as
// opaque payloads (the arena's command is 8 bytes, its target); the hello's length-prefixed
// resume token and ticket (none here), and a token that may end a player's welcome, which the
// ES module's rooms (no token source) never send. Also the arena's fingerprint
// hash, taken from a snapshot the native CLI writes (bytes 6..13 after "TNDM" and the u16
// format version).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './support.mjs';

export const type = {
  hello: 0x01, input: 0x02, ack: 0x03, ping: 0x04, desync: 0x05,
  welcome: 0x81, frame: 0x82, baseline: 0x83, pong: 0x84, sections: 0x85, error: 0x86,
};

export function nativeFingerprintHash() {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-fp-'));
  try {
    cli('snapshot', '--scenario', 'orbits', '--tick', '0', '--out', join(dir, 's'));
    return Buffer.from(readFileSync(join(dir, 's')).subarray(6, 14));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The protocol version these layouts are (protocol_version), and the game every room of the
// ES module plays. The arena's command is its steer target, i32 x raw | i32 y raw.
export const PROTOCOL_VERSION = 5;
export const ARENA_COMMAND_BYTES = 8;

// u8 type | u16 version | u64 fingerprint hash | u8 role (0 play, 1 watch) | u8 n | n bytes of
// the game's name | u8 token length (0) | u16 ticket length (0)
export function hello(fingerprint, { version = PROTOCOL_VERSION, role = 0, game = 'arena' } = {}) {
  const name = Buffer.from(game, 'latin1');
  const b = Buffer.alloc(16 + name.length);
  b[0] = type.hello;
  b.writeUInt16LE(version, 1);
  Buffer.from(fingerprint).copy(b, 3);
  b[11] = role;
  b[12] = name.length;
  name.copy(b, 13);
  return new Uint8Array(b);
}

// u8 type | u32 sequence | u8 n | n bytes of the game's command
export function inputBytes(sequence, command) {
  const b = Buffer.alloc(6 + command.length);
  b[0] = type.input;
  b.writeUInt32LE(sequence, 1);
  b[5] = command.length;
  Buffer.from(command).copy(b, 6);
  return new Uint8Array(b);
}

// An input carrying the arena's command: its steer target as raw Q16.16.
export function input(sequence, x, y) {
  const command = Buffer.alloc(ARENA_COMMAND_BYTES);
  command.writeInt32LE(x, 0);
  command.writeInt32LE(y, 4);
  return inputBytes(sequence, command);
}

// u8 type | u8 holds | u64 tick | u64 digest (hex)
export function ack(tick, digestHex) {
  const b = Buffer.alloc(18);
  b[0] = type.ack;
  if (tick !== null) {
    b[1] = 1;
    b.writeBigUInt64LE(BigInt(tick), 2);
    b.writeBigUInt64LE(BigInt(`0x${digestHex}`), 10);
  }
  return new Uint8Array(b);
}

// u8 type | u64 tick | u8 n | n x u64 section digests (hex)
export function desync(tick, sectionsHex) {
  const b = Buffer.alloc(10 + 8 * sectionsHex.length);
  b[0] = type.desync;
  b.writeBigUInt64LE(BigInt(tick), 1);
  b[9] = sectionsHex.length;
  sectionsHex.forEach((h, i) => b.writeBigUInt64LE(BigInt(`0x${h}`), 10 + 8 * i));
  return new Uint8Array(b);
}

const hex = (v) => v.toString(16).padStart(16, '0');
const KINDS = ['join', 'leave', 'command'];

// A server message as an object with its kind; frames with their applied inputs (u32 player |
// u8 kind | u32 sequence | the command's bytes), an arena command read as its target x, y.
export function decodeServer(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (b[0]) {
    case type.welcome: {
      // u8 role | u32 player | u32 input delay | u64 server tick | u32 max players | u8 n | name
      // | u16 m | config
      const n = b[22];
      const game = b.subarray(23, 23 + n).toString('latin1');
      const m = b.readUInt16LE(23 + n);
      const config = new Uint8Array(b.subarray(25 + n, 25 + n + m));
      if (b.length !== 25 + n + m) throw new Error(`welcome of ${b.length} bytes for a name of ${n} and a config of ${m}`);
      return { kind: 'welcome', role: b[1], player: b.readUInt32LE(2), inputDelay: b.readUInt32LE(6),
        serverTick: Number(b.readBigUInt64LE(10)), maxPlayers: b.readUInt32LE(18), game, config, length: b.length };
    }
    case type.frame: {
      // u64 tick | u64 digest | u16 count | u8 command bytes (c) | count x (9 + c)
      const count = b.readUInt16LE(17);
      const c = b[19];
      const inputs = [];
      for (let i = 0, at = 20; i < count; ++i, at += 9 + c) {
        const applied = { player: b.readUInt32LE(at), kind: KINDS[b[at + 4]], sequence: b.readUInt32LE(at + 5),
          command: new Uint8Array(b.subarray(at + 9, at + 9 + c)) };
        if (c === ARENA_COMMAND_BYTES) Object.assign(applied, { x: b.readInt32LE(at + 9), y: b.readInt32LE(at + 13) });
        inputs.push(applied);
      }
      if (b.length !== 20 + (9 + c) * count) throw new Error(`frame of ${b.length} bytes for ${count} inputs of ${c}`);
      return { kind: 'frame', tick: Number(b.readBigUInt64LE(1)), digest: hex(b.readBigUInt64LE(9)), commandBytes: c, inputs };
    }
    case type.baseline:
      return { kind: 'baseline', tick: Number(b.readBigUInt64LE(1)), snapshot: new Uint8Array(b.subarray(9)) };
    case type.pong:
      return { kind: 'pong', clientTime: b.readBigInt64LE(1), serverTime: b.readBigInt64LE(9), serverTick: Number(b.readBigUInt64LE(17)) };
    case type.sections: {
      // u64 tick | u8 held | u8 n | n x u64
      const n = b[10];
      const sections = Array.from({ length: n }, (_, i) => hex(b.readBigUInt64LE(11 + 8 * i)));
      return { kind: 'sections', tick: Number(b.readBigUInt64LE(1)), held: b[9], sections };
    }
    case type.error:
      return { kind: 'error', code: b[1], text: b.subarray(4, 4 + b.readUInt16LE(2)).toString('utf8') };
    default:
      throw new Error(`unknown server message type ${b[0]}`);
  }
}

// The offsets within a frame message: the header, and within an applied input its command.
export const FRAME_INPUTS_AT = 20;
export const APPLIED_COMMAND_AT = 9;

// u8 type | u64 tick | snapshot
export function baseline(tick, snapshot) {
  const b = Buffer.alloc(9 + snapshot.length);
  b[0] = type.baseline;
  b.writeBigUInt64LE(BigInt(tick), 1);
  Buffer.from(snapshot).copy(b, 9);
  return new Uint8Array(b);
}

// A replay's records: "TNDR" | u16 format | u16 protocol | u64 fingerprint | (u32 length | message)*
// | u32 0, the end marker a finished file ends with (`ended`: it is there).
export function replayRecords(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.subarray(0, 4).toString('latin1') !== 'TNDR') throw new Error('not a replay');
  const records = [];
  let ended = false;
  for (let at = 16; at + 4 <= b.length;) {
    const length = b.readUInt32LE(at);
    if (length === 0) {
      ended = true;
      break;
    }
    records.push({ offset: at, message: new Uint8Array(b.subarray(at + 4, at + 4 + length)) });
    at += 4 + length;
  }
  return { fingerprint: Buffer.from(b.subarray(8, 16)), records, ended };
}

// The end marker: a replay's writer that finished appends it after its last record.
export const REPLAY_END = Uint8Array.of(0, 0, 0, 0);

// A finished replay of `bytes`'s header and the given messages as its records, in order.
export function replayOf(bytes, messages) {
  const parts = [Buffer.from(bytes.buffer, bytes.byteOffset, 16)];
  for (const m of messages) {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(m.length, 0);
    parts.push(length, Buffer.from(m));
  }
  parts.push(Buffer.from(REPLAY_END));
  return Buffer.concat(parts);
}
