// Snapshots across builds and bad bytes: a snapshot written natively loads in wasm and the
// reverse, and both continue to the same digests; refused bytes throw a SnapshotError whose
// .code is the decoder's typed reason, and the module keeps working after every refusal.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, cliPath, loadTandem, parseStream } from './support.mjs';

let tandem;
let work;
before(async () => {
  tandem = await loadTandem();
  work = mkdtempSync(join(tmpdir(), 'tandem-snapshot-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

const CODES = ['truncated', 'bad_magic', 'unsupported_version', 'fingerprint_mismatch', 'count_out_of_range',
  'value_out_of_range', 'digest_mismatch', 'trailing_bytes'];

function refusal(bytes) {
  try {
    tandem.World.fromSnapshot(bytes).delete();
  } catch (error) {
    assert.ok(error instanceof tandem.SnapshotError, `a SnapshotError, got ${error}`);
    assert.ok(error instanceof Error);
    return error.code;
  }
  return null;
}

// The native side is the CLI: `tandem snapshot` writes a scenario's snapshot at a tick and
// prints 'TICK DIGEST'; `tandem run --from FILE` resumes the scenario from one and prints its
// stream (every tick with --every 1) in the same format.
describe('snapshots across builds', () => {
  for (const name of ['chaos', 'orbits']) {
    test(`${name}: a native snapshot loads in wasm and both continue to the same digests`, () => {
      const file = join(work, `${name}-native.snap`);
      const [saved] = parseStream(cli('snapshot', '--scenario', name, '--tick', '40', '--out', file));
      assert.equal(saved.tick, 40);
      const bytes = new Uint8Array(readFileSync(file));
      const nativeStream = parseStream(cli('run', '--scenario', name, '--from', file, '--ticks', '30', '--every', '1'));

      const world = tandem.World.fromSnapshot(bytes);
      assert.equal(world.tick, 40);
      assert.equal(world.digest(), saved.digest);
      const scenario = tandem.Scenario.open(name, world);
      world.delete();
      const wasmStream = [{ tick: scenario.tick, digest: scenario.digest() }];
      for (let i = 0; i < 30; ++i) wasmStream.push({ tick: scenario.step().tick, digest: scenario.digest() });
      scenario.delete();
      assert.deepEqual(wasmStream, nativeStream);
    });

    test(`${name}: a wasm snapshot loads natively and both continue to the same digests`, () => {
      const scenario = tandem.Scenario.open(name).step(33);
      const file = join(work, `${name}-wasm.snap`);
      writeFileSync(file, scenario.world.snapshot());
      const wasmStream = [{ tick: scenario.tick, digest: scenario.digest() }];
      for (let i = 0; i < 30; ++i) wasmStream.push({ tick: scenario.step().tick, digest: scenario.digest() });
      scenario.delete();
      const nativeStream = parseStream(cli('run', '--scenario', name, '--from', file, '--ticks', '30', '--every', '1'));
      assert.deepEqual(nativeStream, wasmStream);
    });
  }

  test('the same state snapshots to the same bytes in both builds', () => {
    const file = join(work, 'trig-native.snap');
    cli('snapshot', '--scenario', 'trig', '--tick', '25', '--out', file);
    const scenario = tandem.Scenario.open('trig').step(25);
    assert.deepEqual(scenario.world.snapshot(), new Uint8Array(readFileSync(file)));
    scenario.delete();
  });
});

describe('bad snapshots', () => {
  let good;
  before(() => {
    const world = new tandem.World({ seed: 5, pelletCount: 64 });
    world.step([{ player: 3, kind: 'join', command: { target: { x: 1 << 24, y: 1 << 24 } } }]).step();
    good = world.snapshot();
    world.delete();
  });

  test('truncated bytes are refused as truncated at every length', () => {
    for (let length = 0; length < good.length; ++length) {
      assert.equal(refusal(good.subarray(0, length)), 'truncated', `length ${length}`);
    }
  });

  test('the header fields are checked: magic, version, fingerprint', () => {
    const flip = (offset, mask = 0x01) => { const b = good.slice(); b[offset] ^= mask; return b; };
    assert.equal(refusal(flip(0)), 'bad_magic');
    // The format after this build's (whatever it is): a version it cannot know.
    const version = good.slice();
    const view = new DataView(version.buffer);
    view.setUint16(4, view.getUint16(4, true) + 1, true);
    assert.equal(refusal(version), 'unsupported_version');
    assert.equal(refusal(flip(8)), 'fingerprint_mismatch');
  });

  test('a flipped byte anywhere is refused with a typed reason, never loaded', () => {
    const seen = new Set();
    for (let offset = 0; offset < good.length; ++offset) {
      for (const mask of [0x01, 0x80]) {
        const bytes = good.slice();
        bytes[offset] ^= mask;
        const code = refusal(bytes);
        assert.ok(CODES.includes(code), `offset ${offset} mask ${mask}: ${code}`);
        seen.add(code);
      }
    }
    assert.ok(seen.has('digest_mismatch'));
    const last = good.slice();
    last[last.length - 1] ^= 0x01;
    assert.equal(refusal(last), 'digest_mismatch');
  });

  test('trailing bytes are refused', () => {
    const longer = new Uint8Array(good.length + 1);
    longer.set(good);
    assert.equal(refusal(longer), 'trailing_bytes');
  });

  test('the CLI refuses the same bytes with the same code, exit status 1', () => {
    const file = join(work, 'refused.snap');
    const tail = good.slice();
    tail[tail.length - 1] ^= 0x01;
    for (const [bytes, code] of [[good.subarray(0, 9), 'truncated'], [tail, 'digest_mismatch']]) {
      assert.equal(refusal(bytes), code);
      writeFileSync(file, bytes);
      assert.throws(() => execFileSync(cliPath, ['run', '--scenario', 'chaos', '--from', file], { stdio: 'pipe' }),
        (e) => e.status === 1 && e.stderr.toString().includes(`refused: ${code}`));
    }
  });

  test('a refusal is an Error with a message and the module keeps working', () => {
    assert.throws(() => tandem.World.fromSnapshot(new Uint8Array(3)),
      (e) => e.name === 'SnapshotError' && e.code === 'truncated' && /truncated/.test(e.message));
    assert.throws(() => tandem.World.fromSnapshot('bytes'), TypeError);
    assert.throws(() => tandem.World.fromSnapshot([1, 2, 3]), TypeError);
    const world = tandem.World.fromSnapshot(good);
    assert.equal(world.tick, 2);
    world.step();
    assert.equal(world.tick, 3);
    world.delete();
    assert.equal(tandem.runScenario('orbits', 3, 1).length, 4);
  });
});
