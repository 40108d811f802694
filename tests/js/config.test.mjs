// Every knob of the world's config from JS: each of the 16 settable by its camelCase name,
// refused outside its documented range with a RangeError naming the knob and the range (the
// C++ validate()'s code attached), read back by world.config(), and landing in the C++ field
// of that name (read from the world's canonical dump, which names fields the C++ way).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cli, loadTandem } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

const U = 65536;   // one unit, raw
const I32_MAX = 2 ** 31 - 1;
// The knobs in the C++ order with their documented ranges (tandem.d.ts), written out here as
// the reference: [JS name, C++ name, lowest accepted, highest accepted, a non-default value].
// null: no bound on that side within the type.
const KNOBS = [
  ['seed', 'seed', null, null, 0xfedcba9876543210n],
  ['tickHz', 'tick_hz', 1, 1000, 30],
  ['arenaSize', 'arena_size', 16 * U, 4096 * U, 700 * U],
  ['pelletCount', 'pellet_count', 0, 131072, 77],
  ['maxPlayers', 'max_players', 0, 64, 5],
  ['wellStrength', 'well_strength', 0, null, 5000 * U],
  ['pelletStrength', 'pellet_strength', 0, null, 3 * 4096],
  ['softening', 'softening', 1 * U, 64 * U, 9 * U],
  ['captureRadius', 'capture_radius', 0, 256 * U, 10 * U],
  ['steerGain', 'steer_gain', 0, null, 5 * U],
  ['steerDamping', 'steer_damping', 0, null, 2 * U],
  ['maxWellAccel', 'max_well_accel', 0, null, 333 * U],
  ['maxPelletSpeed', 'max_pellet_speed', 0, null, 222 * U],
  ['wallRestitution', 'wall_restitution', 0, U, U / 2],
  ['theta', 'theta', 0, 4 * U, U],
  ['treeMaxDepth', 'tree_max_depth', 1, 24, 10],
];

// "config.steer_gain 327680" lines of a canonical dump -> { steer_gain: '327680', ... }
function dumpedConfig(dump) {
  const out = {};
  for (const line of dump.split('\n')) {
    const m = /^config\.(\w+) (\d+|-\d+)$/.exec(line);
    if (m) out[m[1]] = m[2];
  }
  return out;
}

describe('the world config from JS', () => {
  test('the module lists the 16 knobs in the C++ order, with their types', () => {
    assert.deepEqual(tandem.configKnobs.map((k) => k.name), KNOBS.map(([name]) => name));
    assert.deepEqual(tandem.configKnobs.map((k) => k.type),
      ['u64', 'u32', 'fx', 'u32', 'u32', 'fx', 'fx', 'fx', 'fx', 'fx', 'fx', 'fx', 'fx', 'fx', 'fx', 'u32']);
  });

  test('every knob set from JS lands in the C++ field of that name and reads back from config()', () => {
    const config = Object.fromEntries(KNOBS.map(([name, , , , value]) => [name, value]));
    const world = new tandem.World(config);
    const dumped = dumpedConfig(world.dump());
    for (const [name, cppName, , , value] of KNOBS) assert.equal(dumped[cppName], String(value), name);
    assert.deepEqual(world.config(), config);
    assert.deepEqual(Object.keys(world.config()), KNOBS.map(([name]) => name), 'config() lists the knobs in order');
    const again = new tandem.World(world.config());
    assert.ok(again.equals(world), 'config() round-trips into new World');
    again.delete();
    world.delete();
  });

  test('defaultConfig() is the config of new World() and the one the CLI\'s default-knob scenarios use', () => {
    const world = new tandem.World();
    assert.deepEqual(world.config(), tandem.defaultConfig());
    world.delete();
    const native = dumpedConfig(cli('dump', '--scenario', 'orbits', '--tick', '0'));
    for (const [name, cppName] of KNOBS) {
      if (!['seed', 'pelletCount', 'maxPlayers'].includes(name)) assert.equal(String(tandem.defaultConfig()[name]), native[cppName], name);
    }
  });

  for (const [name, cppName, low, high] of KNOBS) {
    test(`${name}: accepted at its documented bounds, refused just outside them naming the knob and range`, () => {
      const accept = (value) => new tandem.World({ pelletCount: 0, [name]: value }).delete();
      const refuse = (value) => assert.throws(() => new tandem.World({ pelletCount: 0, [name]: value }), (e) => e instanceof RangeError
        && e.field === name && e.code === `${cppName}_out_of_range` && e.message.startsWith(`new World: config.${name} is out of range: ${cppName} must`),
      `${name} = ${value}`);
      if (name === 'seed') {
        accept(0);
        accept(2n ** 64n - 1n);
        return;
      }
      const max = tandem.configKnobs.find((k) => k.name === name).type === 'fx' ? I32_MAX : 2 ** 32 - 1;
      accept(low);
      accept(high ?? max);
      if (low !== null && low > (max === I32_MAX ? -(2 ** 31) : 0)) refuse(low - 1);
      if (high !== null) refuse(high + 1);
      if (max === I32_MAX && low === 0) refuse(-1);
    });
  }

  test('the first knob out of range in the C++ order is the one named', () => {
    assert.throws(() => new tandem.World({ theta: -1, tickHz: 0 }), { field: 'tickHz' });
  });

  test('wrong types and unknown knobs are refused before the C++ sees them', () => {
    assert.throws(() => new tandem.World({ seed: -1 }), { name: 'RangeError', message: /config\.seed/ });
    assert.throws(() => new tandem.World({ seed: 2n ** 64n }), { name: 'RangeError', message: /config\.seed/ });
    assert.throws(() => new tandem.World({ seed: 'x' }), { name: 'TypeError', message: /config\.seed/ });
    assert.throws(() => new tandem.World({ softening: 1.5 }), { name: 'RangeError', message: /config\.softening must be an integer/ });
    assert.throws(() => new tandem.World({ theta: 2 ** 31 }), { name: 'RangeError', message: /config\.theta/ });
    assert.throws(() => new tandem.World({ tickHz: 2 ** 32 }), { name: 'RangeError', message: /config\.tickHz/ });
    assert.throws(() => new tandem.World({ pelletcount: 5 }), { name: 'TypeError', message: /config\.pelletcount is not a config knob/ });
    assert.throws(() => new tandem.World(null), TypeError);
    assert.throws(() => new tandem.World([]), TypeError);
  });
});
