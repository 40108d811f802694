// The ES module's Room (src/net's room in wasm) driven with client messages written byte by
// byte from the protocol's layout and its frames read back the same way. The reference for
// its digests is the native build: the room's recording re-run by the native `tandem replay`,
// and the native re-run's canonical state compared with the wasm room's world.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliPath, loadTandem } from './support.mjs';
import { REPLAY_END, ack, decodeServer, hello, input, nativeFingerprintHash, replayRecords, type } from './wire.mjs';

const TICK_MS = 1000 / 60;
let tandem;
let fingerprint;
let dir;

before(async () => {
  tandem = await loadTandem();
  fingerprint = nativeFingerprintHash();
  dir = mkdtempSync(join(tmpdir(), 'tandem-room-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

// Everything the room queued since the last call, decoded, per connection.
function drain(room, inboxes) {
  const { sends, closes } = room.takeOutbox();
  for (const { to, bytes } of sends) (inboxes[to] ??= []).push({ bytes, message: decodeServer(bytes) });
  return { sends, closes };
}

describe('Room', () => {
  test('a config out of range throws a RangeError naming the knob, with the C++ code', () => {
    for (const [config, field, code] of [
      [{ inputDelayTicks: 601 }, 'inputDelayTicks', 'input_delay_out_of_range'],
      [{ maxWatchers: 70000 }, 'maxWatchers', 'max_watchers_out_of_range'],
      [{ tickHz: 0 }, 'tickHz', 'tick_hz_out_of_range'],
      [{ idleTimeoutMs: 10 }, 'idleTimeoutMs', 'idle_timeout_out_of_range'],
    ]) {
      assert.throws(() => new tandem.Room(config), (e) => e instanceof RangeError && e.code === code && e.field === field,
        JSON.stringify(config));
    }
    assert.throws(() => new tandem.Room({ notAKnob: 1 }), TypeError);
    assert.throws(() => new tandem.Room({ inputDelayTicks: -1 }), RangeError);
    const room = new tandem.Room({ pelletCount: 64, inputDelayTicks: 3, maxPlayers: 4, maxWatchers: 9 });
    const limits = room.limits();
    assert.deepEqual([limits.inputDelayTicks, limits.maxPlayers, limits.maxWatchers, limits.game.pelletCount], [3, 4, 9, 64]);
    assert.equal(limits.ringTicks, 600, 'ten seconds at 60 Hz');
    room.delete();
    assert.throws(() => room.tick(0), /deleted/);
  });

  test('a watcher and two players: welcome, baseline, consecutive frames; joins and steers land on the tick the rule names', () => {
    const delay = 2;
    const room = new tandem.Room({ pelletCount: 64, inputDelayTicks: delay });
    const inbox = {};
    let t = 0;
    const watcher = room.connect(t);
    room.receive(watcher, hello(fingerprint, { role: 1 }), t);
    room.tick((t += TICK_MS));
    const a = room.connect(t);
    const b = room.connect(t);
    room.receive(a, hello(fingerprint), t);   // received at world tick 1
    room.receive(b, hello(fingerprint), t);
    const sent = [];                           // [sequence, x, y, tick received at]
    for (let i = 0; i < 30; ++i) {
      const seq = i + 1;
      room.receive(a, input(seq, (10 + i) << 16, (-i) << 16), t);
      sent.push([seq, (10 + i) << 16, (-i) << 16, room.stats().tick]);
      room.tick((t += TICK_MS));
      drain(room, inbox);
    }
    const w = inbox[watcher].map((m) => m.message);
    assert.deepEqual(w.slice(0, 2).map((m) => m.kind), ['welcome', 'baseline']);
    assert.equal(w[0].player, 0xffffffff, 'a watcher is told the watcher id');
    assert.equal(w[0].inputDelay, delay);
    // The welcome names the game and carries its config: the arena's knobs in their order, a
    // u64 seed then fifteen 4-byte knobs (tick_hz, arena_size, pellet_count, max_players, ...).
    assert.equal(w[0].game, 'arena');
    assert.equal(w[0].config.length, 8 + 15 * 4);
    const config = Buffer.from(w[0].config);
    assert.deepEqual([config.readUInt32LE(8), config.readUInt32LE(16), config.readUInt32LE(20)],
      [60, 64, room.limits().game.maxPlayers], 'tick_hz, pellet_count, max_players');
    assert.equal(w[0].maxPlayers, room.limits().maxPlayers);
    const frames = w.filter((m) => m.kind === 'frame');
    assert.deepEqual(frames.map((f) => f.tick), Array.from({ length: 31 }, (_, i) => i + 1), 'one frame per tick, consecutive');
    // The joins were authored by the room at the hellos (sequence 0), received at world tick 1:
    // they land on tick 1 + 1 + delay.
    const joins = frames.flatMap((f) => f.inputs.filter((x) => x.kind === 'join').map((x) => ({ ...x, tick: f.tick })));
    assert.deepEqual(joins.map((j) => [j.player, j.sequence, j.tick]), [[1, 0, 2 + delay], [2, 0, 2 + delay]]);
    // Each steer received at world tick W lands on W + 1 + delay, with the client's sequence.
    const steers = frames.flatMap((f) => f.inputs.filter((x) => x.kind === 'command').map((x) => ({ ...x, tick: f.tick })));
    assert.ok(frames.every((f) => f.commandBytes === 8), 'the arena\'s command: its target, two i32');
    assert.deepEqual(steers.map((s) => [s.sequence, s.x, s.y, s.tick]),
      sent.map(([seq, x, y, at]) => [seq, x, y, at + 1 + delay]).filter(([, , , tick]) => tick <= 31));
    assert.ok(steers.every((s) => s.player === 1), 'a client steers only its own well');
    // The player's stream carries the same frames: one buffer per frame, shared.
    const framesOf = (id) => inbox[id].filter((m) => m.message.kind === 'frame');
    const last = framesOf(a).at(-1);
    assert.equal(framesOf(watcher).at(-1).bytes, last.bytes, 'the same Uint8Array for every recipient');
    assert.equal(last.message.digest, room.stateDigest());
    const stats = room.stats();
    assert.deepEqual([stats.tick, stats.players, stats.watchers, stats.framesEncoded, stats.baselinesSent], [31, 2, 1, 31, 3]);
    room.delete();
  });

  test('refusals: a wrong fingerprint, version or game, a bad game name, input before hello each get the error code, then a 1002 close', () => {
    const room = new tandem.Room({ pelletCount: 16 });
    const cases = [
      ['wrong fingerprint', hello(Buffer.alloc(8, 7)), 2],
      ['wrong version', hello(fingerprint, { version: 9 }), 1],
      ['another game', hello(fingerprint, { game: 'ships' }), 10],
      ['a game name with a capital', hello(fingerprint, { game: 'Arena' }), 5],
      ['an empty game name', hello(fingerprint, { game: '' }), 5],
      ['input before hello', input(1, 0, 0), 6],
      ['unknown type', new Uint8Array([0x7f, 1, 2]), 5],
    ];
    for (const [what, bytes, code] of cases) {
      const id = room.connect(0);
      room.receive(id, bytes, 0);
      const inbox = {};
      const { closes } = drain(room, inbox);
      assert.deepEqual(inbox[id].map((m) => [m.message.kind, m.message.code]), [['error', code]], what);
      assert.deepEqual(closes, [{ who: id, reason: 'protocol_error', code: 1002 }], what);
      room.disconnect(id, 0);
    }
    assert.equal(room.stats().closes.protocol_error, cases.length);
    room.shutDown(0);
    room.delete();
  });

  test('an ack of "nothing held" gets a baseline, deferred until a second after the last unanswered one', () => {
    const room = new tandem.Room({ pelletCount: 16 });
    const id = room.connect(0);
    room.receive(id, hello(fingerprint, { role: 1 }), 0);
    const repeat = room.limits().baselineRepeatTicks;
    assert.equal(repeat, 60, 'one second at 60 Hz');
    for (let i = 1; i <= 5; ++i) room.tick(i * TICK_MS);
    drain(room, {});
    // The welcome's baseline (tick 0) is younger than a second and still unacknowledged.
    room.receive(id, ack(null), 5 * TICK_MS);
    assert.deepEqual(drain(room, {}).sends, []);
    let baseline = null;
    let digestThen = null;
    for (let i = 6; i <= repeat + 5 && baseline === null; ++i) {
      room.tick(i * TICK_MS);
      const inbox = {};
      drain(room, inbox);
      baseline = (inbox[id] ?? []).map((m) => m.message).find((m) => m.kind === 'baseline') ?? null;
      digestThen = room.stateDigest();
    }
    assert.equal(baseline?.tick, repeat, 'sent at the tick a second after the one before');
    const world = tandem.World.fromSnapshot(baseline.snapshot);
    assert.equal(world.digest(), digestThen);
    world.delete();
    room.delete();
  });

  test("a wasm room's recording re-runs clean in the native `tandem replay`, whose state at the last tick is the room's world", () => {
    const room = new tandem.Room({ pelletCount: 128, inputDelayTicks: 1 });
    room.startRecording();
    let t = 0;
    const ids = [room.connect(t), room.connect(t), room.connect(t)];
    ids.forEach((id, i) => room.receive(id, hello(fingerprint, { role: i === 2 ? 1 : 0 }), t));
    const chunks = [];
    for (let tick = 0; tick < 240; ++tick) {
      // Two players steering in a circle-ish path, different every tick; the watcher acks.
      room.receive(ids[0], input(tick + 1, ((tick * 7) % 200 - 100) << 16, ((tick * 3) % 150 - 75) << 16), t);
      if (tick % 2 === 0) room.receive(ids[1], input(tick / 2 + 1, (50 - tick) << 16, (tick % 90) << 16), t);
      room.tick((t += TICK_MS));
      room.takeOutbox();
      if (tick === 120) room.disconnect(ids[1], t);   // a leave in the middle
      chunks.push(room.takeRecording());
    }
    const file = join(dir, 'wasm-room.replay');
    // The recording is still going (a room ends it when it shuts down): finished here by hand.
    const bytes = Buffer.concat([...chunks, REPLAY_END]);
    writeFileSync(file, bytes);
    const { records } = replayRecords(bytes);
    assert.deepEqual(records.slice(0, 3).map((r) => r.message[0]), [type.welcome, type.baseline, type.frame]);
    const out = execFileSync(cliPath, ['replay', file], { encoding: 'utf8' });
    assert.match(out, /replay of arena, ticks 0 to 240: 240 frames/, out);
    const dump = execFileSync(cliPath, ['replay', file, '--dump-at', '240'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const world = room.world();
    assert.equal(world.dump(), dump);
    world.delete();
    // The same file with one frame's digest damaged: native names that tick, exit 1.
    const frame100 = records.find((r) => r.message[0] === type.frame && Buffer.from(r.message).readBigUInt64LE(1) === 100n);
    const damaged = Buffer.from(bytes);
    damaged[frame100.offset + 4 + 9] ^= 1;
    writeFileSync(join(dir, 'damaged.replay'), damaged);
    const bad = spawnSync(cliPath, ['replay', join(dir, 'damaged.replay')], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /mismatch at tick 100:/);
    room.delete();
  });
});
