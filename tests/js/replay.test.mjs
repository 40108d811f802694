// The ES module's Replay against the native build: a replay recorded natively (the native
// test helper make_replay records a room's view of a scenario's match) checks clean in wasm,
// and the wasm re-run's digests and states are the native CLI's (`tandem run`, `tandem dump`).
// The reverse direction, a wasm room's recording checked by the native `tandem replay`, is in
// room.test.mjs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, loadTandem, nativeBuildDir, parseStream } from './support.mjs';
import { replayRecords, type } from './wire.mjs';

const makeReplay = process.env.TANDEM_MAKE_REPLAY ?? join(nativeBuildDir, 'tests/tandem_test_make_replay');
let tandem;
let dir;
let native;   // orbits, 120 ticks, recorded by the native helper

before(async () => {
  tandem = await loadTandem();
  dir = mkdtempSync(join(tmpdir(), 'tandem-replay-'));
  if (!existsSync(makeReplay)) throw new Error(`no ${makeReplay}: build the native target tandem_test_make_replay`);
  execFileSync(makeReplay, ['orbits', '120', join(dir, 'orbits.replay')]);
  native = readFileSync(join(dir, 'orbits.replay'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('Replay', () => {
  test('a natively recorded replay checks clean in wasm: every frame re-run, no divergence', () => {
    const r = tandem.Replay.check(native);
    assert.deepEqual(r, { firstTick: 0, lastTick: 120, framesChecked: 120, baselinesChecked: 0, baselinesAdopted: 0, divergence: null });
  });

  test("Replay.worldAt is the native run's world at that tick: its dump and its digest", () => {
    const world = tandem.Replay.worldAt(native, 90);
    // `tandem dump` names the scenario on its first line; the rest is the canonical state.
    assert.equal(world.dump(), cli('dump', '--scenario', 'orbits', '--tick', '90').replace(/^scenario orbits\n/, ''));
    const stream = parseStream(cli('run', '--scenario', 'orbits', '--ticks', '90', '--every', '90'));
    assert.equal(world.digest(), stream.at(-1).digest);
    world.delete();
  });

  test('a damaged frame digest is named: its tick, the digest written, the native digest re-run', () => {
    const { records } = replayRecords(native);
    const frame = records.find((r) => r.message[0] === type.frame && Buffer.from(r.message).readBigUInt64LE(1) === 100n);
    const damaged = Buffer.from(native);
    damaged[frame.offset + 4 + 9] ^= 0x80;   // the digest's low byte
    const { divergence } = tandem.Replay.check(damaged);
    const nativeDigest = parseStream(cli('run', '--scenario', 'orbits', '--ticks', '100', '--every', '100')).at(-1).digest;
    assert.equal(divergence.tick, 100);
    assert.equal(divergence.actual, nativeDigest);
    assert.equal(BigInt(`0x${divergence.expected}`) ^ BigInt(`0x${nativeDigest}`), 0x80n);
    // The sections at tick 100 are the room's own, and this build agrees with every one.
    assert.deepEqual(divergence.sections, []);
  });

  test('a damaged input is named with the section it changes', () => {
    const { records } = replayRecords(native);
    // The first frame carrying an input: make its first steer's target x differ.
    const frame = records.find((r) => r.message[0] === type.frame && Buffer.from(r.message).readUInt16LE(17) > 0
      && r.message[19 + 4] === 2);
    assert.ok(frame, 'orbits steers');
    const tick = Number(Buffer.from(frame.message).readBigUInt64LE(1));
    const damaged = Buffer.from(native);
    damaged[frame.offset + 4 + 19 + 5 + 2] ^= 0x01;   // target.x, bit 16: one whole unit
    const { divergence } = tandem.Replay.check(damaged);
    assert.equal(divergence.tick, tick);
    // The steer moves that well, whose pull moves the pellets in the same step; nothing else.
    assert.deepEqual(divergence.sections, ['wells', 'pellets']);
  });

  test('a file the reader refuses throws a ReplayError with the reader code, and a tick it does not cover too', () => {
    const bad = Buffer.from(native);
    bad[3] = 0x58;   // "TNDX"
    assert.throws(() => tandem.Replay.check(bad), (e) => e instanceof tandem.ReplayError && e.code === 'bad_magic');
    assert.throws(() => tandem.Replay.check(native.subarray(0, native.length - 3)),
      (e) => e instanceof tandem.ReplayError && e.code === 'truncated' && e.record > 0);
    assert.throws(() => tandem.Replay.worldAt(native, 121), (e) => e instanceof tandem.ReplayError && e.code === 'tick_not_covered');
    assert.throws(() => tandem.Replay.check('not bytes'), TypeError);
    assert.throws(() => tandem.Replay.worldAt(native, -1), RangeError);
  });
});
