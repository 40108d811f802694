// Inputs cross into the arena's world as its canonical 13-byte records: encodeInputs writes
// exactly the bytes of the format (checked against hand-written ones), decodeInputs reads
// them back, World.step takes either form to the same world, and a refused record is an
// InputError that names it and leaves the world untouched.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadTandem } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

// u32 player | u8 kind | i32 x | i32 y, little-endian, written out by hand.
const STEER_BYTES = [
  0x01, 0x02, 0x03, 0x04,   // player 0x04030201, lowest byte first
  0x02,                     // command (the arena's: a steer target)
  0x0a, 0x0b, 0x0c, 0x0d,   // x raw 0x0D0C0B0A
  0xfe, 0xff, 0xff, 0xff,   // y raw -2, two's complement
];
const JOIN_BYTES = [
  0xff, 0xff, 0xff, 0xff,   // player 2^32 - 1
  0x00,                     // join
  0x00, 0x00, 0x00, 0x80,   // x raw INT32_MIN
  0x00, 0x00, 0x01, 0x00,   // y raw 0x10000 = 1.0
];
const STEER = { player: 0x04030201, kind: 'command', command: { target: { x: 0x0d0c0b0a, y: -2 } } };
const JOIN = { player: 2 ** 32 - 1, kind: 'join', command: { target: { x: -(2 ** 31), y: 0x10000 } } };

describe('the canonical input encoding', () => {
  test('encodeInputs writes the format byte for byte, 13 bytes per input in the given order', () => {
    assert.equal(tandem.INPUT_BYTES, 13);
    assert.deepEqual(tandem.inputKinds, ['join', 'leave', 'command']);
    assert.deepEqual(tandem.encodeInputs([STEER, JOIN]), new Uint8Array([...STEER_BYTES, ...JOIN_BYTES]));
    assert.deepEqual(tandem.encodeInputs([]), new Uint8Array(0));
  });

  test('a leave without a command is written with the game\'s default command (a zero target)', () => {
    assert.deepEqual(tandem.encodeInputs([{ player: 7, kind: 'leave' }]), new Uint8Array([7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]));
  });

  test('decodeInputs reads the hand-written bytes back to the objects', () => {
    assert.deepEqual(tandem.decodeInputs(new Uint8Array([...JOIN_BYTES, ...STEER_BYTES])), [JOIN, STEER]);
  });

  test('bad bytes are refused with the decoder\'s code and the record\'s index', () => {
    const badKind = new Uint8Array([...STEER_BYTES, ...STEER_BYTES]);
    badKind[13 + 4] = 3;
    assert.throws(() => tandem.decodeInputs(badKind),
      (e) => e instanceof tandem.InputError && e.code === 'bad_kind' && e.index === 1 && /input 1 \(bytes 13\.\.25\)/.test(e.message));
    assert.throws(() => tandem.decodeInputs(new Uint8Array([...STEER_BYTES, 1, 2])),
      (e) => e.name === 'InputError' && e.code === 'truncated' && e.index === 1);
    assert.throws(() => tandem.decodeInputs([1, 2, 3]), TypeError);
  });
});

describe('World.step with records', () => {
  const at = (x, y) => ({ x: tandem.fx.fromInt(x), y: tandem.fx.fromInt(y) });
  const tick1 = () => [
    { player: 4, kind: 'join', command: { target: at(100, 700) } },
    { player: 9, kind: 'join', command: { target: at(800, 200) } },
  ];
  const tick2 = () => [{ player: 4, kind: 'command', command: { target: at(512, 512) } }, { player: 9, kind: 'leave' }];

  test('objects and their records step to the same world, tick after tick', () => {
    const a = new tandem.World({ seed: 21, pelletCount: 200 });
    const b = new tandem.World({ seed: 21, pelletCount: 200 });
    a.step(tick1()).step(tick2()).step();
    b.step(tandem.encodeInputs(tick1())).step(tandem.encodeInputs(tick2())).step(new Uint8Array(0));
    assert.equal(b.tick, 3);
    assert.ok(a.equals(b));
    assert.deepEqual(b.state().wells.map((w) => w.player), [4]);
    a.delete();
    b.delete();
  });

  test('a refused record throws an InputError and leaves the world as it was', () => {
    const world = new tandem.World({ seed: 21, pelletCount: 50 });
    const before = world.digest();
    const bytes = tandem.encodeInputs(tick1());
    bytes[13 + 4] = 0xff;
    assert.throws(() => world.step(bytes), (e) => e.name === 'InputError' && e.code === 'bad_kind' && e.index === 1
      && e.message.startsWith('World.step: input 1'));
    assert.throws(() => world.step(bytes.subarray(0, 20)), (e) => e.code === 'truncated' && e.index === 1);
    assert.equal(world.tick, 0);
    assert.equal(world.digest(), before, 'the good first record was not applied either');
    world.step(tandem.encodeInputs(tick1()));
    assert.equal(world.state().wells.length, 2);
    world.delete();
  });

  test('other typed arrays are not taken as records', () => {
    const world = new tandem.World({ pelletCount: 8 });
    assert.throws(() => world.step(new Int32Array(4)), { name: 'TypeError', message: /inputs must be an array or a Uint8Array/ });
    world.delete();
  });
});
