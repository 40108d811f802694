// The ES module's predicting ClientSession ({predict: true}) against the module's Room over a
// simulated 50 ms each way: the view draws a world ahead of the confirmed one, the own steer
// shows there before the confirmed world has it, the confirmed world still verifies every
// tick, and once inputs stop the predicted world equals the room's own world at its tick.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadTandem } from './support.mjs';

const TICK_MS = 1000 / 60;
const ONE_WAY_MS = 50;
let tandem;
// The arena's command: steer toward (x, y) units.
const steer = (session, x, y, now) => session.sendCommand({ target: { x: tandem.fx.fromUnits(x), y: tandem.fx.fromUnits(y) } }, now);

before(async () => {
  tandem = await loadTandem();
});

// A room and sessions whose bytes take ONE_WAY_MS each way (ordered, like a WebSocket).
function delayedMatch(config, sessions) {
  const room = new tandem.Room(config);
  const clients = sessions.map((options) => ({
    session: new tandem.ClientSession({ nowMs: 0, measureStepCost: false, ...options }),
    id: 0, down: [], up: [],
  }));
  const roomDigest = new Map();
  let now = 0;
  for (const c of clients) {
    c.id = room.connect(now);
    c.session.onConnected(now);
  }
  const ship = (c) => { for (const bytes of c.session.takeOutgoing()) c.up.push({ at: now + ONE_WAY_MS, bytes }); };
  clients.forEach(ship);
  return {
    room, clients, roomDigest,
    get now() { return now; },
    run(n, each = () => {}) {
      for (let i = 0; i < n; ++i) {
        now += TICK_MS;
        for (const c of clients) {
          while (c.up.length > 0 && c.up[0].at <= now) room.receive(c.id, c.up.shift().bytes, now);
        }
        room.tick(now);
        roomDigest.set(room.stats().tick, room.stateDigest());
        for (const { to, bytes } of room.takeOutbox().sends) clients.find((c) => c.id === to).down.push({ at: now + ONE_WAY_MS, bytes });
        for (const c of clients) {
          while (c.down.length > 0 && c.down[0].at <= now) c.session.receive(c.down.shift().bytes, now);
          each(c, now);
          c.session.advance(now, 16);
          ship(c);
        }
      }
    },
    delete() {
      for (const c of clients) c.session.delete();
      room.delete();
    },
  };
}

describe('ClientSession {predict: true}', () => {
  test('the option is a boolean; a lockstep session has no prediction figures and an unpredicted view', () => {
    assert.throws(() => new tandem.ClientSession({ nowMs: 0, predict: 'yes' }), /predict must be a boolean/);
    const s = new tandem.ClientSession({ nowMs: 0 });
    assert.equal(s.figures().prediction, null);
    assert.equal(s.renderView(0).predicted, false);
    s.delete();
  });

  test('predictWindowTicks is an integer in [1, 64], 12 by default, and caps the depth a long round trip would ask for', () => {
    for (const bad of [0, 65, 2.5, '4', -1]) {
      assert.throws(() => new tandem.ClientSession({ nowMs: 0, predict: true, predictWindowTicks: bad }), /predictWindowTicks/, String(bad));
    }
    // 50 ms each way is a lead of 6 ticks and more: the default window lets the depth follow
    // it, a window of 4 holds it at 4; every confirmed tick verifies in both.
    const depths = {};
    for (const [name, options] of [['default', {}], ['four', { predictWindowTicks: 4 }]]) {
      const m = delayedMatch({ pelletCount: 64 }, [{ predict: true, ...options }, {}]);
      const [me] = m.clients;
      m.run(180, (c, now) => {
        if (c === me) steer(me.session, 500 + 100 * Math.sin(now / 300), 500, now);
      });
      const f = me.session.figures();
      depths[name] = { depth: f.prediction.depthTicks, window: f.prediction.windowTicks };
      assert.equal(f.session.mismatches, 0);
      assert.equal(f.session.digest, m.roomDigest.get(f.tick));
      m.delete();
    }
    assert.equal(depths.default.window, 12);
    assert.ok(depths.default.depth > 4, JSON.stringify(depths));
    assert.deepEqual(depths.four, { depth: 4, window: 4 });
  });

  test('the own steer is drawn at once, a round trip before the confirmed world has it; the confirmed world verifies every tick', () => {
    const m = delayedMatch({ pelletCount: 64 }, [{ predict: true }, {}]);
    const [me, other] = m.clients;
    me.session.setView({ lists: { wells: ['player', 'target'] } });
    m.run(120);
    const target = { x: 200, y: 800 };
    let sent = null;
    let drawnAt = null;
    let confirmedAt = null;
    m.run(120, (c, now) => {
      if (c !== me) return;
      if (sent === null) {
        steer(me.session, target.x, target.y, now);
        sent = now;
      }
      const view = me.session.renderView(now);
      const wells = view.current?.lists.wells.columns;
      const mine = wells ? Array.from(wells.player).indexOf(view.me) : -1;
      if (drawnAt === null && mine >= 0 && wells['target.x'][mine] === target.x) drawnAt = now;
      const confirmed = me.session.figures().session;
      if (confirmedAt === null && confirmed.inputsApplied >= 1 && confirmed.verifiedTick >= confirmed.serverTick - 1) confirmedAt = now;
    });
    assert.ok(drawnAt !== null && confirmedAt !== null, `drawn ${drawnAt}, confirmed ${confirmedAt}`);
    // Drawn within two ticks of the steer; confirmed no sooner than a round trip after it.
    assert.ok(drawnAt - sent <= 2 * TICK_MS + 1e-6, `drawn ${drawnAt - sent} ms after the steer`);
    assert.ok(confirmedAt - sent >= 2 * ONE_WAY_MS, `confirmed ${confirmedAt - sent} ms after the steer`);

    const f = me.session.figures();
    const view = me.session.renderView(m.now);
    assert.equal(view.predicted, true);
    assert.equal(view.tick, f.prediction.predictedTick);
    assert.equal(view.confirmedTick, f.tick);
    assert.ok(f.prediction.depthTicks >= 4 && f.prediction.depthTicks <= f.prediction.windowTicks, `depth ${f.prediction.depthTicks}`);
    assert.ok(f.prediction.leadSamples >= 1);
    for (const c of [me, other]) {
      const s = c.session.figures();
      assert.equal(s.session.mismatches, 0);
      // Every tick since the baseline, which the room sent once the hello had crossed the link.
      assert.equal(s.session.baselines, 1);
      assert.ok(s.verification.verifiedTicks >= s.tick - Math.ceil(2 * ONE_WAY_MS / TICK_MS) - 1, `${s.verification.verifiedTicks} of ${s.tick}`);
      assert.equal(s.session.digest, m.roomDigest.get(s.tick));
    }
    m.delete();
  });

  test('another player\'s steers roll the prediction back; when inputs stop, the predicted world is the room\'s at its tick', () => {
    const m = delayedMatch({ pelletCount: 128 }, [{ predict: true }, {}]);
    const [me, other] = m.clients;
    m.run(300, (c, now) => {
      const t = Math.round(now / TICK_MS);
      if (t > 60 && t % 5 === (c === me ? 0 : 2)) steer(c.session, (t * 13) % 900 + 50, (t * 7) % 800 + 80, now);
    });
    const during = me.session.figures().prediction;
    assert.ok(during.rollbacks > 10, `${during.rollbacks} rollbacks`);
    assert.ok(during.resimulatedTicks >= during.rollbacks);
    assert.ok(during.resimTicksP99 <= during.windowTicks);
    m.run(90);   // no input for 1.5 s
    const predicted = [];
    m.run(60, (c) => {
      if (c !== me) return;
      const p = me.session.figures().prediction;
      predicted.push([p.predictedTick, p.digest]);
    });
    m.run(30);   // let the room pass the last predicted tick
    for (const [tick, digest] of predicted) assert.equal(digest, m.roomDigest.get(tick), `predicted tick ${tick}`);
    assert.equal(me.session.figures().session.mismatches, 0);
    assert.equal(other.session.figures().session.mismatches, 0);
    m.delete();
  });
});
