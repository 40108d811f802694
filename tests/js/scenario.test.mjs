// Scenarios: the wasm digest stream of every scenario equals the native CLI's for the same
// arguments, line for line; Scenario.open steps the same world the stream describes.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cli, loadTandem, parseStream } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

// Modest runs: enough ticks for captures, respawns and (chaos) joins and leaves to happen,
// with a tick count that is not a multiple of the period so the last-tick line is covered.
const RUNS = { orbits: [150, 20], crowd: [25, 10], chaos: [240, 25], trig: [130, 16] };

describe('scenarios', () => {
  test('the list is the native CLI\'s, names and descriptions', () => {
    const native = cli('scenarios').trim().split('\n').map((line) => {
      const [, name, description] = /^(\S+)\s+(.*)$/.exec(line);
      return { name, description };
    });
    assert.deepEqual(tandem.scenarios(), native);
    for (const name of Object.keys(RUNS)) assert.ok(native.some((s) => s.name === name), name);
  });

  test('the fingerprint is the one the native build reports', () => {
    const line = cli('version').split('\n').find((l) => l.startsWith('fingerprint '));
    assert.equal(tandem.fingerprint, line.slice('fingerprint '.length));
    assert.equal(cli('version').split('\n')[0], `tandem ${tandem.version}`);
  });

  for (const name of Object.keys(RUNS)) {
    const [ticks, every] = RUNS[name];
    test(`${name}: runScenario(${ticks}, ${every}) equals \`tandem run\` line for line`, () => {
      const native = parseStream(cli('run', '--scenario', name, '--ticks', String(ticks), '--every', String(every)));
      const wasm = tandem.runScenario(name, ticks, every);
      assert.ok(native.length > 2, 'the CLI printed a stream');
      assert.deepEqual(wasm, native);
    });
  }

  test('Scenario.open steps to the digests of the stream and exposes its world', () => {
    const stream = tandem.runScenario('trig', 30, 10);
    const scenario = tandem.Scenario.open('trig');
    assert.equal(scenario.name, 'trig');
    assert.equal(scenario.tick, 0);
    assert.equal(scenario.digest(), stream[0].digest);
    scenario.step();
    scenario.step(9);
    assert.equal(scenario.tick, 10);
    assert.equal(scenario.digest(), stream[1].digest);
    const { world } = scenario;
    assert.equal(world.digest(), stream[1].digest);
    scenario.step(10);
    assert.equal(world.tick, 20, 'the world is the scenario\'s own, not a copy');
    world.delete();
    assert.equal(world.digest(), stream[2].digest, 'delete() of a scenario\'s world is a no-op');
    scenario.delete();
    assert.throws(() => world.digest(), /deleted/, 'the world goes with its scenario');
    assert.throws(() => scenario.step(), /deleted/);
  });

  test('a scenario resumed from a snapshot continues exactly as the uninterrupted run', () => {
    const stream = tandem.runScenario('chaos', 60, 1);
    const first = tandem.Scenario.open('chaos').step(35);
    const bytes = first.world.snapshot();
    first.delete();
    const restored = tandem.World.fromSnapshot(bytes);
    const resumed = tandem.Scenario.open('chaos', restored);
    restored.delete();
    for (let tick = 36; tick <= 60; ++tick) {
      resumed.step();
      assert.equal(resumed.digest(), stream[tick].digest, `tick ${tick}`);
    }
    resumed.delete();
  });

  test('bad arguments throw and name what was wrong', () => {
    assert.throws(() => tandem.runScenario('nope', 10, 1), { name: 'RangeError', message: /unknown scenario "nope" \(known: orbits/ });
    assert.throws(() => tandem.runScenario('orbits', -1, 1), { name: 'RangeError', message: /ticks/ });
    assert.throws(() => tandem.runScenario('orbits', 10, 0), { name: 'RangeError', message: /every/ });
    assert.throws(() => tandem.Scenario.open(3), TypeError);
    assert.throws(() => tandem.Scenario.open('orbits', {}), TypeError);
    assert.throws(() => new tandem.Scenario(), TypeError);
    assert.equal(tandem.runScenario('orbits', 2, 1).length, 3);
  });
});
