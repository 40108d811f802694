// Nothing a JS caller passes may abort the wasm instance. Every entry point of the module is
// fed, argument by argument, a pool of hostile values (wrong types, NaN and infinities,
// out-of-range and huge numbers, lying typed arrays, throwing getters and proxies), plus
// invalid configs, truncated and garbage snapshots and input bytes, negative and huge counts.
// Each call must either succeed or throw an ordinary Error from the JS layer (never a
// WebAssembly.RuntimeError, an Embind BindingError, or an "Aborted" message); afterwards the
// same instance must still compute what the native build computes.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cli, loadTandem, parseStream } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

class Trap extends Error {}
const trap = () => { throw new Trap('a getter of the caller threw'); };

// A Uint8Array whose own getters lie about its size: the module must read the real one.
class LyingBytes extends Uint8Array {
  get length() { return 2 ** 31; }
  get byteLength() { return 2 ** 31; }
}
class LyingLength extends Uint8Array {
  get length() { return 2 ** 31; }
}
function detached() {
  const bytes = new Uint8Array(26);
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  return bytes;
}

// Values no argument of the API accepts, or accepts only as a boundary. A legal huge count
// (2^31 ticks) would run for days rather than fail: count arguments skip those (below).
const HOSTILE = () => [
  undefined, null, true, NaN, -0, Infinity, -Infinity, -1, 0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53, 1e308,
  '', '7', 'orbits\0', 'x'.repeat(1 << 16), Symbol('s'), 10n, -1n, 2n ** 64n, {}, [], [1, 2, 3], () => 0,
  new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap }),
  Object.defineProperty({}, 'x', { get: trap, enumerable: true }),
  Object.create(Uint8Array.prototype), new LyingBytes(13), new LyingLength(13), detached(), new Uint8Array(13 * 70000),
  new Int32Array(4), new DataView(new ArrayBuffer(8)), new ArrayBuffer(3), new Float64Array([NaN]),
];

// Every error must come from the JS layer's checks (or be the caller's own getter throwing),
// and none may leave the instance aborted.
function call(what, fn) {
  try {
    const result = fn();
    if (result && typeof result.delete === 'function' && result !== tandem) result.delete();
  } catch (error) {
    if (error instanceof Trap) return;
    assert.ok(!(error instanceof WebAssembly.RuntimeError), `${what}: the instance trapped: ${error.message}`);
    assert.ok(error instanceof Error, `${what}: threw a non-Error ${String(error)}`);
    assert.ok(['TypeError', 'RangeError', 'SnapshotError', 'InputError', 'ReplayError', 'Error'].includes(error.name),
      `${what}: threw ${error.name}: ${error.message}`);
    assert.doesNotMatch(error.message, /Aborted|BindingError|InternalError/, what);
  }
}

// The instance computes what the native build computes: a chaos run to tick 60, a fresh world
// stepped with inputs, and a snapshot round trip.
function stillWorks() {
  const native = parseStream(cli('run', '--scenario', 'chaos', '--ticks', '60', '--every', '30'));
  assert.deepEqual(tandem.runScenario('chaos', 60, 30), native);
  const scenario = tandem.Scenario.open('chaos').step(60);
  assert.equal(scenario.digest(), native[2].digest);
  const restored = tandem.World.fromSnapshot(scenario.world.snapshot());
  assert.ok(restored.equals(scenario.world));
  restored.delete();
  scenario.delete();
}

// A count the API accepts but would take days to run is replaced by a small one; every
// other value goes through untouched.
const legalCountsSmall = (n) => (Number.isInteger(n) && n > 1000 && n < 2 ** 32 ? 3 : n);

// Each entry point with good arguments; the pool replaces one at a time.
function entryPoints() {
  const { fx } = tandem;
  const world = new tandem.World({ pelletCount: 32 });
  const scenario = tandem.Scenario.open('trig');
  const clock = tandem.FixedTimestep.fromHz(60);
  const periodic = new tandem.Periodic(100);
  const noise = new tandem.ValueNoise(1);
  const join = [{ player: 1, kind: 'join', command: { target: { x: 0, y: 0 } } }];
  const other = new tandem.World({ pelletCount: 8 });
  const points = {
    'new World': [(c) => new tandem.World(c), { pelletCount: 8 }],
    'World.fromSnapshot': [(b) => tandem.World.fromSnapshot(b), world.snapshot()],
    'World.step': [(i) => world.step(i), join],
    'World.equals': [(o) => world.equals(o), world],
    'World.diff': [(o, l) => world.diff(o, l), other, 3],
    'World.setView': [(s) => world.setView(s), { lists: { wells: ['pos'] }, scalars: ['tick'] }],
    'resolveConfig': [(c) => tandem.resolveConfig(c), { pelletCount: 8 }],
    'checkCommand': [(c) => tandem.checkCommand(c), { target: { x: 1, y: 2 } }],
    'frameBudgetMs': [(g) => tandem.frameBudgetMs(g), 16],
    'workerBudgetMs': [(g) => tandem.workerBudgetMs(g), 16],
    'fx.fromUnits': [(u) => fx.fromUnits(u), 1.5],
    'encodeInputs': [(i) => tandem.encodeInputs(i), join],
    'decodeInputs': [(b) => tandem.decodeInputs(b), new Uint8Array(13)],
    'Scenario.open': [(n, f) => tandem.Scenario.open(n, f), 'trig', world],
    'Scenario.step': [(n) => scenario.step(legalCountsSmall(n)), 1],
    'runScenario': [(n, t, e) => tandem.runScenario(n, legalCountsSmall(t), e), 'trig', 3, 1],
    'new FixedTimestep': [(ms) => new tandem.FixedTimestep(ms), 16],
    'FixedTimestep.fromHz': [(hz) => tandem.FixedTimestep.fromHz(hz), 60],
    'FixedTimestep.withMaxFrameMs': [(ms) => clock.withMaxFrameMs(ms), 100],
    'FixedTimestep.withMaxSteps': [(n) => clock.withMaxSteps(n), 4],
    'FixedTimestep.advance': [(ms) => clock.advance(ms), 16],
    'FixedTimestep.setStepMs': [(ms) => clock.setStepMs(ms), 16],
    'new Periodic': [(ms) => new tandem.Periodic(ms), 100],
    'Periodic.fromHz': [(hz) => tandem.Periodic.fromHz(hz), 10],
    'Periodic.due': [(ms) => periodic.due(ms), 10],
    'Periodic.advance': [(ms) => periodic.advance(ms), 10],
    'Periodic.setIntervalMs': [(ms) => periodic.setIntervalMs(ms), 100],
    'new ValueNoise': [(s) => new tandem.ValueNoise(s), 5],
    'ValueNoise.corner': [(x, z, o) => noise.corner(x, z, o), 1, 2, 0],
    'ValueNoise.cornerFx': [(x, z, o) => noise.cornerFx(x, z, o), 1, 2, 0],
    'ValueNoise.octave': [(x, z, l, o) => noise.octave(x, z, l, o), 1.5, 2.5, 8, 0],
    'ValueNoise.octaveFx': [(x, z, l, o) => noise.octaveFx(x, z, l, o), 1, 2, 65536, 0],
    'fx.fromString': [(t) => fx.fromString(t), '1.5'],
    'fx.fromInt': [(i) => fx.fromInt(i), 3],
    'fx.atan2': [(y, x) => fx.atan2(y, x), 1, 2],
  };
  const room = new tandem.Room({ pelletCount: 16 });
  const id = room.connect(0);
  const session = new tandem.ClientSession({ nowMs: 0, measureStepCost: false });
  const bot = new tandem.ScriptedBot({ seed: 1 });
  const offline = new tandem.OfflineMatch({ nowMs: 0, bots: 2, config: { pelletCount: 16 } });
  room.startRecording();
  room.tick(16);
  const recording = room.takeRecording();
  Object.assign(points, {
    'new Room': [(c) => new tandem.Room(c), { pelletCount: 8, inputDelayTicks: 2 }],
    'Room.connect': [(t) => room.connect(t), 1],
    'Room.receive': [(i, b, t) => room.receive(i, b, t), id, new Uint8Array([9, 9]), 2],
    'Room.disconnect': [(i, t) => room.disconnect(i, t), 999, 3],
    'Room.tick': [(t) => room.tick(t), 32],
    'Room.client': [(i) => room.client(i), id],
    'Replay.check': [(b) => tandem.Replay.check(b), recording],
    'Replay.worldAt': [(b, t) => tandem.Replay.worldAt(b, t), recording, 1],
    'new ClientSession': [(o) => new tandem.ClientSession(o), { nowMs: 0 }],
    'ClientSession.onConnected': [(t) => session.onConnected(t), 1],
    'ClientSession.receive': [(b, t) => session.receive(b, t), new Uint8Array([200, 1]), 2],
    'ClientSession.onDisconnected': [(c, t) => session.onDisconnected(c, t), 1006, 3],
    'ClientSession.advance': [(t, b) => session.advance(t, b), 4, 8],
    'ClientSession.onSuspend': [(t) => session.onSuspend(t), 5],
    'ClientSession.onResume': [(t) => session.onResume(t), 6],
    'ClientSession.sendCommand': [(c, t) => session.sendCommand(c, t), { target: { x: 1, y: 2 } }, 7],
    'ClientSession.setView': [(s) => session.setView(s), { lists: { pellets: ['pos'] } }],
    'ClientSession.renderView': [(t) => session.renderView(t), 8],
    'ClientSession.corruptOnce': [(p) => session.corruptOnce(p), 'captures'],
    'new OfflineMatch': [(o) => new tandem.OfflineMatch(o).delete(), { nowMs: 0, bots: 1, config: { pelletCount: 8 } }],
    'OfflineMatch.advance': [(t, b) => offline.advance(t, b), 20, 8],
    'OfflineMatch.pump': [(t) => offline.pump(t), 40],
    'OfflineMatch.sendCommand': [(c, t) => offline.sendCommand(c, t), { target: { x: 3, y: 4 } }, 41],
    'OfflineMatch.setView': [(s) => offline.setView(s), { lists: { wells: ['player'] } }],
    'OfflineMatch.corruptOnce': [(p) => offline.corruptOnce(p), ''],
    'new ScriptedBot': [(o) => new tandem.ScriptedBot(o), { seed: 3 }],
    'ScriptedBot.receive': [(b) => bot.receive(b), new Uint8Array([200, 1])],
  });
  for (const name of ['toString', 'toNumber', 'sqrt', 'sin', 'cos', 'atan', 'asin', 'acos', 'exp', 'log']) {
    points[`fx.${name}`] = [(a) => fx[name](a), 65536];
  }
  for (const name of ['add', 'sub', 'mul', 'div']) points[`fx.${name}`] = [(a, b) => fx[name](a, b), 65536, 3];
  const done = () => [world, other, scenario, clock, periodic, room, session, bot, offline].forEach((o) => o.delete());
  return { points, done };
}

describe('hostile calls leave the instance usable', () => {
  test('every entry point, every argument, every hostile value', (t) => {
    const { points, done } = entryPoints();
    let calls = 0;
    for (const [name, [fn, ...good]] of Object.entries(points)) {
      call(`${name}(good)`, () => fn(...good));
      for (let position = 0; position < Math.max(good.length, 1); ++position) {
        for (const bad of HOSTILE()) {
          const args = [...good];
          args[position] = bad;
          call(`${name} argument ${position}`, () => fn(...args));
          calls += 1;
        }
      }
    }
    done();
    assert.ok(calls > 1500, `${calls} calls`);
    t.diagnostic(`${Object.keys(points).length} entry points, ${calls} hostile calls`);
    stillWorks();
  });

  test('invalid configs: every knob below and above its type, and a malformed seed', () => {
    for (const { name } of tandem.configKnobs) {
      for (const value of [-1, 2 ** 32, 2 ** 31, -(2 ** 31), 1.5, NaN, '1', null, -1n]) call(`new World {${name}}`, () => new tandem.World({ [name]: value }));
    }
    stillWorks();
  });

  test('garbage and truncated bytes: input records and snapshots', () => {
    let seed = 0x2545f491;
    const random = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return seed >>> 0; };
    const world = new tandem.World({ pelletCount: 16 });
    const snapshot = world.snapshot();
    for (let i = 0; i < 1500; ++i) {
      const bytes = new Uint8Array(random() % 200);
      for (let j = 0; j < bytes.length; ++j) bytes[j] = random();
      call('World.step(garbage)', () => world.step(bytes));
      call('decodeInputs(garbage)', () => tandem.decodeInputs(bytes));
      call('World.fromSnapshot(garbage)', () => tandem.World.fromSnapshot(bytes));
      const cut = snapshot.slice(0, random() % snapshot.length);
      if (cut.length > 0) cut[random() % cut.length] ^= 1 << (random() % 8);
      call('World.fromSnapshot(cut)', () => tandem.World.fromSnapshot(cut));
    }
    world.delete();
    stillWorks();
  });

  test('negative and huge counts are refused, not attempted', () => {
    const scenario = tandem.Scenario.open('orbits');
    for (const n of [-1, 2 ** 32, 2 ** 53, Infinity]) {
      assert.throws(() => scenario.step(n), RangeError);
      assert.throws(() => tandem.runScenario('orbits', n, 1), RangeError);
      assert.throws(() => tandem.runScenario('orbits', 1, n), RangeError);
      assert.throws(() => tandem.FixedTimestep.fromHz(60).withMaxSteps(n), RangeError);
    }
    assert.throws(() => new tandem.World({ pelletCount: 2 ** 32 - 1 }), { name: 'RangeError', message: /pellet_count must be at most 131072/ });
    assert.throws(() => scenario.world.step(new Uint8Array(13 * 70000)), { name: 'RangeError', message: /at most 65536 inputs/ });
    assert.throws(() => tandem.decodeInputs(new Uint8Array(13 * 70000)), { name: 'RangeError', message: /at most 65536 inputs/ });
    assert.throws(() => tandem.World.fromSnapshot(new Uint8Array(1 << 27)), { name: 'RangeError', message: /larger than any snapshot/ });
    assert.equal(scenario.tick, 0);
    scenario.delete();
    const largest = new tandem.World({ pelletCount: 131072, maxPlayers: 64 });
    largest.step(Array.from({ length: 64 }, (_, player) => ({ player, kind: 'join', command: { target: { x: 0, y: 0 } } })));
    const bytes = largest.snapshot();
    assert.ok(bytes.length < 1 << 24 && bytes.length > 3e6, `the largest world's snapshot (${bytes.length} bytes) is under the limit`);
    assert.ok(tandem.World.fromSnapshot(bytes).equals(largest));
    largest.delete();
    stillWorks();
  });

  test('createTandem with bad options or a bad .wasm rejects, and other instances carry on', async () => {
    for (const options of [null, 5, 'x', { wasmBinary: 'x' }, { wasmBinary: new Uint8Array([0, 97, 115, 109, 9, 9]) },
      { wasmUrl: 5 }, { wasmUrl: 'no-such-file.wasm' }, { wasmModule: 'x' }, { wasmModule: { then: (_, reject) => reject(new Error('no')) } },
      // A module that compiles and cannot be instantiated: it imports m.f, which nothing gives.
      { wasmModule: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 2, 7, 1, 1, 109, 1, 102, 0, 0])) }]) {
      await assert.rejects(() => loadTandem(options), (e) => e instanceof Error, JSON.stringify(options));
    }
    stillWorks();
  });

  test('a caller\'s object is read once, in JS: a getter changing its answer cannot reach the C++', () => {
    const world = new tandem.World({ pelletCount: 16 });
    let reads = 0;
    const fickle = { player: 1, get kind() { reads += 1; return reads === 1 ? 'join' : 12345; }, command: { target: { x: 0, y: 0 } } };
    world.step([fickle]);
    assert.equal(reads, 1, 'kind was read once');
    assert.deepEqual(world.state().wells.map((w) => w.player), [1]);
    let targetReads = 0;
    const target = { get x() { targetReads += 1; return targetReads === 1 ? 5 : 'far'; }, y: 0 };
    world.step([{ player: 1, kind: 'command', command: { target } }]);
    assert.equal(targetReads, 1, 'a command field was read once');
    let configReads = 0;
    const config = { get pelletCount() { configReads += 1; return configReads === 1 ? 8 : 'lots'; } };
    const other = new tandem.World(config);
    assert.equal(other.state().pellets.length, 8);
    [world, other].forEach((w) => w.delete());
    stillWorks();
  });
});
