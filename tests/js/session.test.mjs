// The ES module's ClientSession against the ES module's Room, in process (the arena's package):
// the calls the page's shell makes and the shapes it reads (web/README.md). Verdicts
// come from bytes read by hand from the protocol's layout (wire.mjs), from the room's own
// world, and from the native `tandem replay` re-running what the session received.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliPath, loadTandem } from './support.mjs';
import { decodeServer, type } from './wire.mjs';

const TICK_MS = 1000 / 60;
let tandem;
let dir;

before(async () => {
  tandem = await loadTandem();
  dir = mkdtempSync(join(tmpdir(), 'tandem-session-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

// A room and sessions joined by direct byte passing: what a lossless, instant socket does.
// `downMs`: how long the room's messages take to reach a client (its baseline fetch, which the
// session's resume rule weighs); 0 delivers at once.
function match(config, roles, { downMs = 0 } = {}) {
  const room = new tandem.Room(config);
  const clients = roles.map((watch) => ({
    session: new tandem.ClientSession({ watch, nowMs: 0, measureStepCost: false }),
    id: 0,
    reading: true,
    received: [],
  }));
  let now = 0;
  const pump = () => {
    for (const c of clients) {
      for (const bytes of c.session.takeOutgoing()) room.receive(c.id, bytes, now);
    }
    for (const { to, bytes } of room.takeOutbox().sends) {
      const c = clients.find((x) => x.id === to);
      c.received.push({ bytes, at: now + downMs });
    }
    for (const c of clients) {
      if (!c.reading) continue;
      while (c.received.length > 0 && c.received[0].at <= now) c.session.receive(c.received.shift().bytes, now);
    }
  };
  for (const c of clients) {
    c.id = room.connect(now);
    c.session.onConnected(now);
  }
  pump();
  return {
    room, clients, pump,
    get now() { return now; },
    /** n ticks: the room steps, bytes move, each session advances (unless `skip` says not). */
    run(n, { each = () => {}, skip = () => false } = {}) {
      for (let i = 0; i < n; ++i) {
        now += TICK_MS;
        room.tick(now);
        pump();
        clients.forEach((c, k) => { if (!skip(c, k)) c.session.advance(now, 16); });
        each(i);
        pump();
      }
    },
    /** Lets what is in flight arrive (no room tick), and the sessions step it. */
    settle() {
      now += downMs;
      pump();
      clients.forEach((c) => c.session.advance(now, 16));
      pump();
    },
    delete() {
      for (const c of clients) c.session.delete();
      room.delete();
    },
  };
}

describe('ClientSession', () => {
  test('a player and a watcher verify every tick of the room; their figures and views are the page\'s shapes', () => {
    const m = match({ pelletCount: 64 }, [false, true]);
    const [player, watcher] = m.clients;
    const steers = [];
    m.run(120, {
      each: (i) => {
        player.session.sendCommand({ target: { x: (i - 60) << 16, y: (30 - i) << 16 } }, m.now);
        steers.push(...player.session.takeOutgoing());
      },
    });
    // The steers the session sent, read by hand: type, increasing sequences, the raw targets.
    for (const bytes of steers) m.room.receive(player.id, bytes, m.now);
    const inputs = steers.filter((b) => b[0] === type.input).map((b) => Buffer.from(b));
    assert.ok(inputs.length >= 100, `${inputs.length} steers sent`);
    // Protocol v2: u8 type | u32 sequence | u8 n = 8 | the arena's command (i32 x | i32 y).
    assert.ok(inputs.every((b) => b.length === 14 && b[5] === 8));
    const seqs = inputs.map((b) => b.readUInt32LE(1));
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1));
    assert.deepEqual([inputs[0].readInt32LE(6), inputs[0].readInt32LE(10)], [-60 << 16, 30 << 16]);
    m.run(10);

    const digest = m.room.stateDigest();
    for (const [c, watch] of [[player, false], [watcher, true]]) {
      const f = c.session.figures();
      assert.equal(f.session.mismatches, 0);
      assert.equal(f.tick, m.room.stats().tick, 'verified up to the room');
      assert.equal(f.session.digest, digest);
      assert.equal(f.verification.verifiedTick, f.tick);
      assert.equal(f.verification.verifiedTicks, f.tick, 'every tick since the baseline at 0');
      assert.deepEqual(f.verification.mismatches, []);
      assert.equal(f.me, watch ? null : 1);
      assert.equal(f.error, null);
    }
    // What the page draws is the room's world: the selected fields, in units, and the scores.
    const world = m.room.world();
    const state = world.state();
    player.session.setView({ lists: { wells: ['player', 'pos', 'score'], pellets: ['pos'] }, scalars: ['config.arena_size'] });
    const view = player.session.renderView(m.now);
    assert.equal(view.tick, world.tick);
    assert.equal(view.me, 1);
    assert.equal(view.current.scalars['config.arena_size'], tandem.fx.toNumber(world.config().arenaSize));
    assert.ok(view.alpha >= 0 && view.alpha <= 1);
    // The rate alpha grows at, for a view drawn later than it was made: the room world's.
    assert.equal(view.tickHz, world.tickHz);
    assert.equal(view.tickHz, 60);
    const pellets = view.current.lists.pellets;
    assert.equal(pellets.count, state.pellets.length);
    assert.deepEqual(Array.from(pellets.columns['pos.x']), state.pellets.map((p) => Math.fround(p.pos.x / tandem.fx.ONE)));
    assert.deepEqual(Array.from(pellets.columns['pos.y']), state.pellets.map((p) => Math.fround(p.pos.y / tandem.fx.ONE)));
    assert.equal(view.previous.lists.pellets.count, pellets.count);
    const wells = view.current.lists.wells.columns;
    assert.deepEqual(Array.from(wells.player), state.wells.map((w) => w.player));
    assert.deepEqual(Array.from(wells.score), state.wells.map((w) => w.score));
    assert.equal(wells['pos.x'][0], Math.fround(tandem.fx.toNumber(state.wells[0].pos.x)));
    // Zero-copy: a second view is over the same module memory, at the same place.
    const again = player.session.renderView(m.now);
    assert.equal(again.current.lists.pellets.columns['pos.x'].buffer, pellets.columns['pos.x'].buffer);
    assert.equal(again.current.lists.pellets.columns['pos.x'].byteOffset, pellets.columns['pos.x'].byteOffset);
    world.delete();

    // What the player received re-runs clean in the native build.
    const file = join(dir, 'player.replay');
    writeFileSync(file, player.session.exportReplay());
    assert.match(execFileSync(cliPath, ['replay', file], { encoding: 'utf8' }), /replay of arena, ticks 0 to 130: 130 frames/);
    assert.match(player.session.checkAgainstNative(), /130 frames re-run, every digest agrees/);
    m.delete();
  });

  test('a world corrupted on purpose mismatches at the next tick, names the section, and heals by baseline', () => {
    const m = match({ pelletCount: 32 }, [false]);
    const [c] = m.clients;
    m.run(30);
    const at = m.room.stats().tick;
    c.session.corruptOnce();
    m.run(90);
    const f = c.session.figures();
    assert.equal(f.session.mismatches, 1);
    const [mismatch] = f.verification.mismatches;
    assert.equal(mismatch.tick, at + 1, 'detected at the first tick applied after the corruption');
    assert.equal(mismatch.section, 'scores', 'the capture count is in the scores section');
    assert.equal(mismatch.healed, true);
    // The field diff at the healing baseline: the one field the corruption flipped (the capture
    // count's low bit; nothing in a step reads it), the room's value against this session's.
    assert.equal(mismatch.fieldsDiffering, 1);
    assert.deepEqual(mismatch.fields.map((d) => [d.path, d.section]), [['captures', 'scores']]);
    assert.equal(Number(mismatch.fields[0].room) ^ 1, Number(mismatch.fields[0].thisBuild));
    assert.ok(mismatch.fieldsTick >= mismatch.tick, 'compared at the healing baseline, at or after the mismatch');
    assert.equal(f.session.resyncs, 1);
    assert.equal(f.session.baselines, 2);
    assert.equal(f.session.digest, m.room.stateDigest(), 'verifying again, at the room\'s tick');
    m.delete();
  });

  test('back after 1 s away it catches up; after 60 s away it takes a baseline (the session\'s rule, both sides)', () => {
    // With the room's messages 100 ms away, a baseline costs about 109 ms (the fetch, a decode
    // and the ticks run meanwhile) and catching up 1.1 ms a tick at the assumed 1 ms step and
    // a 16 ms budget per 16.7 ms tick: the line is at about 97 ticks, 1.6 s away.
    for (const [seconds, path] of [[1, 'catch_up'], [60, 'baseline']]) {
      const m = match({ pelletCount: 16 }, [true], { downMs: 100 });
      const [c] = m.clients;
      m.run(30);
      c.session.onSuspend(m.now);
      c.reading = false;   // a frozen tab: nothing read, nothing advanced
      m.run(seconds * 60, { skip: () => true });
      c.reading = true;
      c.session.onResume(m.now);
      m.pump();
      m.run(240);
      m.settle();
      const f = c.session.figures();
      assert.equal(f.lastResume?.path, path, `${seconds} s away: ${JSON.stringify(f.lastResume)}`);
      const { catchUpEstimateMs: catchUp, baselineEstimateMs: baseline } = f.lastResume;
      // null: stepping can never get there (more missed than the room's ring holds).
      assert.ok(path === 'catch_up' ? catchUp !== null && catchUp <= baseline : catchUp === null || baseline < catchUp,
        JSON.stringify(f.lastResume));
      assert.ok(Math.abs(f.lastResume.awayMs - seconds * 1000) < 20, `${f.lastResume.awayMs} ms away`);
      assert.equal(f.session.mismatches, 0);
      assert.equal(f.session.digest, m.room.stateDigest(), `${seconds} s: verifying at the room's tick again`);
      m.delete();
    }
  });

  test('bad arguments are refused before anything reaches the session', () => {
    assert.throws(() => new tandem.ClientSession({ nowMs: -1 }), RangeError);
    assert.throws(() => new tandem.ClientSession({ watch: 'yes', nowMs: 0 }), TypeError);
    const s = new tandem.ClientSession({ nowMs: 0 });
    assert.throws(() => s.sendCommand({ target: { x: 0.5, y: 0 } }, 1), RangeError);
    assert.throws(() => s.sendCommand({ aim: { x: 0, y: 0 } }, 1), TypeError);
    assert.throws(() => s.setView({ lists: { wells: ['aim'] } }), RangeError);
    assert.throws(() => s.receive('bytes', 1), TypeError);
    assert.match(s.checkAgainstNative(), /nothing to check yet/);
    // A message that does not decode is counted and ignored.
    s.receive(new Uint8Array([0x82, 1]), 1);
    assert.equal(s.figures().session.malformedIn, 1);
    assert.equal(decodeServer(new Uint8Array([0x86, 3, 0, 0])).code, 3);
    s.delete();
    assert.throws(() => s.figures(), /deleted/);
  });

  test('the fleet: setFleet keeps the WebSocket URLs once each and says how many; a socket that never opened sends the next to the fleet\'s next URL, 250 ms later; bad arguments are refused', () => {
    const s = new tandem.ClientSession({ nowMs: 0 });
    assert.equal(s.nextUrl, '', 'before the fleet: the transport\'s own URL');
    assert.equal(s.setFleet('ws://a:1/ws/r', ['ws://b:1/ws/r', 'http://c/ws/r', 'ws://b:1/ws/r', 'wss://d:2/ws/r']), 2);
    assert.equal(s.nextUrl, 'ws://a:1/ws/r');
    const visited = [];
    for (let i = 0; i < 3; ++i) {
      s.onConnectFailed(i);
      visited.push([s.nextUrl, s.reconnectDelayMs]);
    }
    // The third failure ends a round: the backoff's next step (0, then 250 ms) applies.
    assert.deepEqual(visited, [['ws://b:1/ws/r', 250], ['wss://d:2/ws/r', 250], ['ws://a:1/ws/r', 0]]);
    assert.throws(() => s.setFleet(7, []), TypeError);
    assert.throws(() => s.setFleet('ws://a/ws', 'ws://b/ws'), TypeError);
    assert.throws(() => s.setFleet('ws://a/ws', [1]), /urls\[0\] must be a string/);
    assert.throws(() => s.setFleet('ws://a/ws', new Array(65).fill('ws://b/ws')), TypeError);
    assert.throws(() => s.onConnectFailed(-1), RangeError);
    s.delete();
  });
});
