// The ES module's ScriptedBot against its Room, under Node: admitted as players, acks agree with
// the room's digests, the same seeds give the same match, and a ClientSession beside the bots
// verifies every tick (the demo page's offline mode, without the page).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { loadTandem } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

function match(seeds, ticks, withSession = false) {
  const room = new tandem.Room({ seed: 5, pelletCount: 64 });
  const session = withSession ? new tandem.ClientSession({ nowMs: 0, measureStepCost: false }) : null;
  session?.setView({ lists: { wells: ['player'] } });
  const ids = new Map();
  let me = null;
  if (session) { me = room.connect(0); session.onConnected(0); }
  for (const seed of seeds) {
    const bot = new tandem.ScriptedBot({ seed });
    ids.set(room.connect(0), bot);
    bot.onConnected();
  }
  const deliver = (now) => {
    for (let moved = true; moved;) {
      moved = false;
      for (const [id, bot] of ids) for (const m of bot.takeOutgoing()) { room.receive(id, m, now); moved = true; }
      if (session) for (const m of session.takeOutgoing()) { room.receive(me, m, now); moved = true; }
      const { sends, closes } = room.takeOutbox();
      assert.deepEqual(closes, []);
      for (const { to, bytes } of sends) {
        if (to === me) session.receive(bytes, now);
        else ids.get(to).receive(bytes);
        moved = true;
      }
    }
  };
  deliver(0);
  for (let t = 1; t <= ticks; ++t) {
    const now = (t * 1000) / 60;
    room.tick(now);
    deliver(now);
    if (session) { session.advance(now, 8); deliver(now); }
  }
  const players = session ? Array.from(session.renderView(ticks * 1000 / 60).current.lists.wells.columns.player) : null;
  const result = { digest: room.stateDigest(), stats: room.stats(), bots: [...ids.values()].map((b) => b.figures()), session: session?.figures() ?? null, players };
  for (const b of ids.values()) b.delete();
  session?.delete();
  room.delete();
  return result;
}

test('three bots join as players 1..3, steer, and ack with digests the room agrees with', () => {
  const r = match([1, 2, 3], 600);
  assert.equal(r.stats.players, 3);
  assert.equal(r.stats.ackMismatches, 0);
  assert.equal(r.stats.flowPauses, 0);
  assert.deepEqual(r.bots.map((b) => b.player), [1, 2, 3]);
  for (const b of r.bots) assert.ok(b.welcomed && !b.refused && b.commandsSent >= 2 && b.acksSent >= 98, JSON.stringify(b));
});

test('the same seeds give the same match, another seed another one', () => {
  assert.equal(match([1, 2, 3], 300).digest, match([1, 2, 3], 300).digest);
  assert.notEqual(match([1, 2, 3], 300).digest, match([1, 2, 4], 300).digest);
});

test('a client session beside the bots verifies every tick of their match', () => {
  const r = match([7, 8, 9], 300, true);
  assert.equal(r.session.verification.verifiedTicks, 300);
  assert.deepEqual(r.session.verification.mismatches, []);
  assert.deepEqual(r.players, [1, 2, 3, 4], 'the wells the session\'s world holds');
});

test('a seed that is not a safe integer >= 0 is refused before the C++', () => {
  for (const seed of [-1, 1.5, 2 ** 53, '1', undefined]) assert.throws(() => new tandem.ScriptedBot({ seed }), /ScriptedBot: seed/);
});
