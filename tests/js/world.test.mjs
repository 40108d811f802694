// tandem.World through the arena's module: stepping with plain-object inputs, refusing
// malformed ones without touching the world, digests, snapshots in one build, the state read
// back through the game's visitor, and handle lifetimes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, loadTandem, repoRoot } from './support.mjs';

let tandem;
let fx;
before(async () => { tandem = await loadTandem(); ({ fx } = tandem); });

const at = (x, y) => ({ x: fx.fromInt(x), y: fx.fromInt(y) });
const joinAt = (player, target) => ({ player, kind: 'join', command: { target } });
const steer = (player, target) => ({ player, kind: 'command', command: { target } });
const scores = (world) => world.state().wells.map(({ player, score }) => ({ player, score }));

describe('World', () => {
  let world;
  before(() => { world = new tandem.World({ seed: 7, pelletCount: 256 }); });
  after(() => world.delete());

  test('a new world is at tick 0 with the pellets it was asked for', () => {
    assert.equal(world.tick, 0);
    assert.equal(world.state().pellets.length, 256);
    assert.deepEqual(Object.keys(world.sectionDigests()), ['config', 'wells', 'pellets', 'scores', 'rng']);
  });

  for (const name of ['orbits', 'crowd', 'chaos', 'trig']) {
    test(`${name}: a world made from its config is, field by field and digest by digest, the native tick 0`, () => {
      const native = cli('dump', '--scenario', name, '--tick', '0').split('\n');
      assert.equal(native[0], `scenario ${name}`);
      const config = {};
      for (const line of native) {
        const m = /^config\.(\w+) (\d+)$/.exec(line);
        if (m) config[m[1].replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = m[1] === 'seed' ? BigInt(m[2]) : Number(m[2]);
      }
      const made = new tandem.World(config);
      const golden = readFileSync(join(repoRoot, 'tests/games/arena/golden', `${name}.txt`), 'utf8');
      assert.equal(made.digest(), /^0 ([0-9a-f]{16})$/m.exec(golden)[1], 'the golden stream\'s tick 0');
      const sections = made.sectionDigests();
      for (const key of Object.keys(sections)) assert.ok(native.includes(`section.${key} ${sections[key]}`), key);
      assert.equal(made.dump(), native.slice(1).join('\n'), 'the whole canonical state');
      made.delete();
    });
  }

  test('equal configs give equal worlds and a different seed a different one', () => {
    const twin = new tandem.World({ seed: 7, pelletCount: 256 });
    const other = new tandem.World({ seed: 8n, pelletCount: 256 });
    assert.equal(twin.digest(), world.digest());
    assert.ok(twin.equals(world));
    assert.notEqual(other.digest(), world.digest());
    twin.delete();
    other.delete();
  });

  test('step applies joins and steers, in any order, and advances one tick', () => {
    const a = new tandem.World({ seed: 3, pelletCount: 128 });
    const b = new tandem.World({ seed: 3, pelletCount: 128 });
    const inputs = [joinAt(2, at(100, 100)), joinAt(5, at(900, 300)), steer(2, at(500, 500))];
    a.step(inputs);
    b.step([...inputs].reverse());
    assert.equal(a.tick, 1);
    assert.equal(a.digest(), b.digest(), 'step imposes its own order on the inputs');
    assert.deepEqual(a.state().wells.map((w) => w.player), [2, 5]);
    assert.deepEqual(a.state().wells[0].target, at(500, 500));
    assert.deepEqual(scores(a), [{ player: 2, score: 0 }, { player: 5, score: 0 }]);
    a.step([{ player: 5, kind: 'leave' }]).step();
    assert.equal(a.tick, 3);
    assert.deepEqual(scores(a).map((s) => s.player), [2]);
    a.delete();
    b.delete();
  });

  test('a malformed input throws an error naming the field and leaves the world untouched', () => {
    const before = { tick: world.tick, digest: world.digest() };
    const good = joinAt(1, at(10, 10));
    const cases = [
      [[good, { ...steer(-1, at(0, 0)) }], RangeError, /inputs\[1\]\.player/],
      [[good, { ...steer(1.5, at(0, 0)) }], RangeError, /inputs\[1\]\.player/],
      [[{ ...steer('1', at(0, 0)) }], TypeError, /inputs\[0\]\.player/],
      [[{ ...steer(1, at(0, 0)), kind: 'jump' }], RangeError, /inputs\[0\]\.kind/],
      [[{ player: 1, command: { target: at(0, 0) } }], TypeError, /inputs\[0\]\.kind/],
      [[{ player: 1, kind: 'command' }], TypeError, /inputs\[0\]\.command/],
      [[{ player: 1, kind: 'command', command: {} }], TypeError, /inputs\[0\]\.command\.target is missing/],
      [[{ player: 1, kind: 'command', command: { target: at(0, 0), aim: 1 } }], TypeError, /inputs\[0\]\.command\.aim is not a command field/],
      [[steer(1, { x: 0.5, y: 0 })], RangeError, /inputs\[0\]\.command\.target\.x/],
      [[steer(1, { x: 0, y: 2 ** 31 })], RangeError, /inputs\[0\]\.command\.target\.y/],
      [[good, null], TypeError, /inputs\[1\]/],
      ['not an array', TypeError, /inputs must be an array/],
    ];
    for (const [inputs, type, message] of cases) {
      assert.throws(() => world.step(inputs), (e) => e instanceof type && message.test(e.message), String(message));
      assert.equal(world.tick, before.tick);
      assert.equal(world.digest(), before.digest);
    }
    world.step([good]);
    assert.equal(world.tick, before.tick + 1, 'the world still steps after refused inputs');
  });


  test('a snapshot restores the same world, which then steps to the same digests', () => {
    const a = new tandem.World({ seed: 11, pelletCount: 300 });
    a.step([joinAt(1, at(200, 800))]);
    for (let i = 0; i < 5; ++i) a.step([steer(1, at(300 + i, 700))]);
    const bytes = a.snapshot();
    assert.ok(bytes instanceof Uint8Array);
    const b = tandem.World.fromSnapshot(bytes);
    assert.ok(b.equals(a));
    assert.equal(b.tick, a.tick);
    for (let i = 0; i < 10; ++i) {
      a.step();
      b.step();
      assert.equal(b.digest(), a.digest());
    }
    const c = tandem.World.fromSnapshot(bytes.buffer);
    assert.equal(c.tick, 6);
    [a, b, c].forEach((w) => w.delete());
  });

  test('the view\'s pellet columns are Float32Arrays of the positions in units, as the state holds them raw, before and after a step', () => {
    world.setView({ lists: { pellets: ['pos', 'generation'] }, scalars: ['config.arena_size', 'tick'] });
    world.step();
    const view = world.view();
    const state = world.state();
    const { count, columns } = view.current.lists.pellets;
    assert.equal(count, state.pellets.length);
    assert.ok(columns['pos.x'] instanceof Float32Array && columns['pos.y'] instanceof Float32Array);
    assert.ok(columns.generation instanceof Float64Array);
    for (let i = 0; i < count; ++i) {
      assert.equal(columns['pos.x'][i], Math.fround(state.pellets[i].pos.x / fx.ONE), `pellet ${i} x`);
      assert.equal(columns['pos.y'][i], Math.fround(state.pellets[i].pos.y / fx.ONE), `pellet ${i} y`);
      assert.equal(columns.generation[i], state.pellets[i].generation);
    }
    assert.equal(view.current.scalars['config.arena_size'], 1024);
    assert.equal(view.current.scalars.tick, world.tick);
    const copy = columns['pos.x'].slice();
    world.step();
    const next = world.view();
    assert.deepEqual(next.previous.lists.pellets.columns['pos.x'].slice(), copy, 'previous is the state before the last step');
    assert.notDeepEqual(next.current.lists.pellets.columns['pos.x'].slice(), copy, 'pellets move');
    assert.throws(() => world.setView({ lists: { pebbles: ['pos'] } }), { name: 'RangeError', message: /no list 'pebbles'/ });
    assert.throws(() => world.setView({ lists: { pellets: ['pos.x'] } }), { name: 'RangeError', message: /is not a field of its elements/ });
    assert.throws(() => world.setView({ scalars: ['wells'] }), { name: 'RangeError', message: /not a field outside the lists/ });
  });

  test('state() and fields() read the state through the game\'s visitor: the dump\'s paths and values', () => {
    const fields = world.fields();
    const dump = world.dump().split('\n').filter((l) => !l.startsWith('section.') && !l.startsWith('digest ') && l !== '');
    assert.deepEqual(fields.map((f) => `${f.path} ${f.value}`), dump);
    const state = world.state();
    assert.equal(state.tick, BigInt(world.tick));
    assert.equal(String(state.captures), fields.find((f) => f.path === 'captures').value);
    assert.equal(String(state.pellets[3].pos.y), fields.find((f) => f.path === 'pellets[3].pos.y').value);
    const other = world.clone().step();
    const diff = world.diff(other, 4);
    assert.equal(diff.fields.length, 4);
    assert.deepEqual(diff.fields[0], { path: 'tick', section: '', self: String(world.tick), other: String(world.tick + 1) });
    assert.ok(diff.total > 4);
    other.delete();
  });

  test('clone is independent of its original', () => {
    const copy = world.clone();
    assert.ok(copy.equals(world));
    copy.step();
    assert.ok(!copy.equals(world));
    copy.delete();
  });

  test('a deleted world throws a clear error, and the module keeps working', () => {
    const w = new tandem.World({ pelletCount: 8 });
    const digest = w.digest();
    w.delete();
    w.delete();
    assert.throws(() => w.digest(), /World has been deleted/);
    assert.throws(() => world.equals(w), /deleted/);
    assert.equal(new tandem.World({ pelletCount: 8 }).digest(), digest, 'the module still computes the same world');
  });
});
