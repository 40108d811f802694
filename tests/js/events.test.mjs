// What a step did, from JS: world.events() is the Stepper's event list of the last step, as
// the arena's registration reads them: objects {kind, tick, player, pellet}. Joins, leaves and refused joins are reported per input in
// canonical order; captures per pellet, each naming a pellet whose slot respawned under its
// next generation (read from the canonical dump), and summed over a run they equal the native
// CLI's capture count.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cli, loadTandem } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

const at = (x, y) => ({ x: tandem.fx.fromInt(x), y: tandem.fx.fromInt(y) });
const join = (player, target) => ({ player, kind: 'join', command: { target } });
const steer = (player, target) => ({ player, kind: 'command', command: { target } });
const event = (kind, tick, player, pellet = 0) => ({ kind, tick, player, pellet });

// pellet index -> generation, from "pellets[i].generation N" lines of a canonical dump.
function generations(world) {
  const out = [];
  for (const m of world.dump().matchAll(/^pellets\[(\d+)\]\.generation (\d+)$/gm)) out[Number(m[1])] = Number(m[2]);
  return out;
}

describe('step events', () => {
  test('joins, refused joins and leaves are reported per input in canonical order; no-ops report nothing', () => {
    const world = new tandem.World({ maxPlayers: 1, pelletCount: 16 });
    assert.deepEqual(world.events(), [], 'nothing before the first step');
    world.step([join(7, at(10, 10)), join(3, at(20, 20))]);
    assert.deepEqual(world.events(), [event('joined', 1, 3), event('join_refused', 1, 7)]);
    world.step([join(3, at(5, 5)), steer(3, at(9, 9)), { player: 8, kind: 'leave' }]);
    assert.deepEqual(world.events(), [], 'a member\'s join, a steer and a non-member\'s leave change nothing');
    world.step([join(7, at(10, 10)), { player: 3, kind: 'leave' }]);
    assert.deepEqual(world.events(), [event('left', 3, 3), event('joined', 3, 7)]);
    world.step();
    assert.deepEqual(world.events(), [], 'the list is the last step\'s only');
    world.delete();
  });

  test('each capture names its player and a pellet that respawned; the run\'s total equals the native count', () => {
    const ticks = 300;
    const native = Number(/captures=(\d+)/.exec(cli('run', '--scenario', 'chaos', '--ticks', String(ticks), '--every', String(ticks)))[1]);
    const scenario = tandem.Scenario.open('chaos');
    const { world } = scenario;
    let captured = 0;
    let checked = 0;
    let before = generations(world);
    for (let tick = 1; tick <= ticks; ++tick) {
      scenario.step();
      const captures = world.events().filter((e) => e.kind === 'captured');
      captured += captures.length;
      if (captures.length > 0 && checked < 10) {
        const after = generations(world);
        const bumped = after.flatMap((g, i) => (g !== before[i] ? [i] : []));
        assert.deepEqual(captures.map((e) => e.pellet), bumped, `tick ${tick}: the captured pellets are the respawned ones`);
        const players = new Set(world.state().wells.map((w) => w.player));
        for (const e of captures) assert.equal(e.tick, tick, 'an event carries the tick its step produced');
        for (const e of captures) assert.ok(players.has(e.player), `tick ${tick}: captured by a present player`);
        checked += 1;
      }
      if (checked < 10) before = generations(world);
    }
    assert.equal(checked, 10, 'captures happened');
    assert.equal(captured, native);
    assert.equal(world.state().captures, BigInt(native));
    scenario.delete();
  });

  test('a scenario\'s step(n) leaves the events of its last tick; a clone or a restored world has none', () => {
    const scenario = tandem.Scenario.open('orbits').step(37);
    const clone = scenario.world.clone();
    assert.deepEqual(clone.events(), [], 'events are not state: a clone starts without');
    const single = tandem.Scenario.open('orbits', clone);
    clone.delete();
    scenario.step(3);
    const seen = [];
    for (let i = 0; i < 3; ++i) seen.push(single.step().world.events());
    assert.equal(single.digest(), scenario.digest());
    assert.ok(seen.some((events) => events.length > 0), 'orbits captures in ticks 38..40');
    assert.ok(seen[2].length > 0, 'tick 40 of orbits captures');
    assert.deepEqual(scenario.world.events(), seen[2], 'step(3) leaves the events of its third tick');
    const restored = tandem.World.fromSnapshot(scenario.world.snapshot());
    assert.deepEqual(restored.events(), [], 'events are not state: a snapshot does not carry them');
    assert.equal(restored.digest(), scenario.digest());
    [single, restored, scenario].forEach((o) => o.delete());
  });
});
