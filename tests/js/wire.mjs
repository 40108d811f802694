// The lockstep protocol written and read byte by byte from its documented layout
// (include/tandem/net/protocol.hpp), little-endian, so the tests of the ES module's Room and
// Replay check them against bytes the code under test did not produce. Also the simulation's
// fingerprint hash, taken from a snapshot the native CLI writes (bytes 6..13 after "TNDM" and
// the u16 format version).
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

// u8 type | u16 version | u64 fingerprint | u8 role (0 play, 1 watch)
export function hello(fingerprint, { version = 1, role = 0 } = {}) {
  const b = Buffer.alloc(12);
  b[0] = type.hello;
  b.writeUInt16LE(version, 1);
  Buffer.from(fingerprint).copy(b, 3);
  b[11] = role;
  return new Uint8Array(b);
}

// u8 type | u32 sequence | i32 x raw | i32 y raw
export function input(sequence, x, y) {
  const b = Buffer.alloc(13);
  b[0] = type.input;
  b.writeUInt32LE(sequence, 1);
  b.writeInt32LE(x, 5);
  b.writeInt32LE(y, 9);
  return new Uint8Array(b);
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

const hex = (v) => v.toString(16).padStart(16, '0');

// A server message as an object with its kind; frames with their applied inputs.
export function decodeServer(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (b[0]) {
    case type.welcome:
      return { kind: 'welcome', role: b[1], player: b.readUInt32LE(2), inputDelay: b.readUInt32LE(6),
        serverTick: Number(b.readBigUInt64LE(10)), maxPlayers: b.readUInt32LE(18), length: b.length };
    case type.frame: {
      const count = b.readUInt16LE(17);
      const inputs = [];
      for (let i = 0, at = 19; i < count; ++i, at += 17) {
        inputs.push({ player: b.readUInt32LE(at), kind: ['join', 'leave', 'steer'][b[at + 4]],
          x: b.readInt32LE(at + 5), y: b.readInt32LE(at + 9), sequence: b.readUInt32LE(at + 13) });
      }
      if (b.length !== 19 + 17 * count) throw new Error(`frame of ${b.length} bytes for ${count} inputs`);
      return { kind: 'frame', tick: Number(b.readBigUInt64LE(1)), digest: hex(b.readBigUInt64LE(9)), inputs };
    }
    case type.baseline:
      return { kind: 'baseline', tick: Number(b.readBigUInt64LE(1)), snapshot: new Uint8Array(b.subarray(9)) };
    case type.pong:
      return { kind: 'pong', clientTime: b.readBigInt64LE(1), serverTime: b.readBigInt64LE(9), serverTick: Number(b.readBigUInt64LE(17)) };
    case type.sections:
      return { kind: 'sections', tick: Number(b.readBigUInt64LE(1)), held: b[9] };
    case type.error:
      return { kind: 'error', code: b[1], text: b.subarray(4, 4 + b.readUInt16LE(2)).toString('utf8') };
    default:
      throw new Error(`unknown server message type ${b[0]}`);
  }
}

// A replay's records: "TNDR" | u16 format | u16 protocol | u64 fingerprint | (u32 length | message)*
export function replayRecords(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.subarray(0, 4).toString('latin1') !== 'TNDR') throw new Error('not a replay');
  const records = [];
  for (let at = 16; at < b.length;) {
    const length = b.readUInt32LE(at);
    records.push({ offset: at, message: new Uint8Array(b.subarray(at + 4, at + 4 + length)) });
    at += 4 + length;
  }
  return { fingerprint: Buffer.from(b.subarray(8, 16)), records };
}
