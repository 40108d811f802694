// The ES module's Replay against the native build: a replay recorded natively (the native
// test helper make_replay records a room's view of a scenario's match) checks clean in wasm,
// and the wasm re-run's digests and states are the native CLI's (`tandem run`, `tandem dump`).
// A divergence names the sections and, when the replay holds a state after it, the fields that
// differ there, checked against the native dumps. The reverse direction, a wasm room's
// recording checked by the native `tandem replay`, is in room.test.mjs.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, cliPath, loadTandem, nativeBuildDir, parseStream } from './support.mjs';
import { APPLIED_COMMAND_AT, FRAME_INPUTS_AT, baseline, decodeServer, replayOf, replayRecords, type } from './wire.mjs';

const makeReplay = process.env.TANDEM_MAKE_REPLAY ?? join(nativeBuildDir, 'tests/tandem_test_make_replay');
let tandem;
let dir;
let native;   // orbits, 120 ticks, recorded by the native helper

before(async () => {
  tandem = await loadTandem();
  dir = mkdtempSync(join(tmpdir(), 'tandem-replay-'));
  if (!existsSync(makeReplay)) throw new Error(`no ${makeReplay}: build the native target tandem_test_make_replay`);
  execFileSync(makeReplay, ['orbits', '120', join(dir, 'orbits.replay')]);
  native = readFileSync(join(dir, 'orbits.replay'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

// The replay with the first command of the first frame at or after `fromTick` damaged: its
// target x one whole unit off (bit 16 of the raw i32). Returns the bytes and that frame's tick.
function withDamagedCommand(bytes, fromTick) {
  const { records } = replayRecords(bytes);
  for (const r of records) {
    if (r.message[0] !== type.frame) continue;
    const frame = decodeServer(r.message);
    const i = frame.inputs.findIndex((input) => input.kind === 'command');
    if (frame.tick < fromTick || i < 0) continue;
    const damaged = Buffer.from(bytes);
    damaged[r.offset + 4 + FRAME_INPUTS_AT + i * (APPLIED_COMMAND_AT + frame.commandBytes) + APPLIED_COMMAND_AT + 2] ^= 0x01;
    return { damaged, tick: frame.tick };
  }
  throw new Error(`no command at or after tick ${fromTick}`);
}

describe('Replay', () => {
  test('a natively recorded replay checks clean in wasm: every frame re-run, no divergence', () => {
    const r = tandem.Replay.check(native);
    assert.deepEqual(r, { firstTick: 0, lastTick: 120, framesChecked: 120, baselinesChecked: 0, baselinesAdopted: 0, divergence: null });
    const { records } = replayRecords(native);
    const welcome = decodeServer(records[0].message);
    assert.deepEqual([welcome.kind, welcome.game], ['welcome', 'arena'], 'format 2: the welcome names the game');
  });

  test("Replay.worldAt is the native run's world at that tick: its dump and its digest", () => {
    const world = tandem.Replay.worldAt(native, 90);
    // `tandem dump` names the scenario on its first line; the rest is the canonical state.
    assert.equal(world.dump(), cli('dump', '--scenario', 'orbits', '--tick', '90').replace(/^scenario orbits\n/, ''));
    const stream = parseStream(cli('run', '--scenario', 'orbits', '--ticks', '90', '--every', '90'));
    assert.equal(world.digest(), stream.at(-1).digest);
    world.delete();
  });

  test('a damaged frame digest is named: its tick, the digest written, the native digest re-run', () => {
    const { records } = replayRecords(native);
    const frame = records.find((r) => r.message[0] === type.frame && Buffer.from(r.message).readBigUInt64LE(1) === 100n);
    const damaged = Buffer.from(native);
    damaged[frame.offset + 4 + 9] ^= 0x80;   // the digest's low byte
    const { divergence } = tandem.Replay.check(damaged);
    const nativeDigest = parseStream(cli('run', '--scenario', 'orbits', '--ticks', '100', '--every', '100')).at(-1).digest;
    assert.equal(divergence.tick, 100);
    assert.equal(divergence.actual, nativeDigest);
    assert.equal(BigInt(`0x${divergence.expected}`) ^ BigInt(`0x${nativeDigest}`), 0x80n);
    // The sections at tick 100 are the room's own, and this build agrees with every one.
    assert.deepEqual(divergence.sections, []);
    assert.equal(divergence.fields, null, 'no state after tick 100 to diff');
  });

  test('a damaged input is named with the section it changes', () => {
    const { damaged, tick } = withDamagedCommand(native, 1);
    const { divergence } = tandem.Replay.check(damaged);
    assert.equal(divergence.tick, tick);
    // The steer moves that well, whose pull moves the pellets in the same step; nothing else.
    assert.deepEqual(divergence.sections, ['wells', 'pellets']);
    // The recording holds no state after the first baseline: no field diff, said as nulls.
    assert.deepEqual([divergence.fields, divergence.fieldsTick, divergence.fieldsDiffering], [null, null, null]);
  });

  test("the field diff of a divergence: the replay's baseline after it against this build's re-run, as the two native dumps differ", () => {
    // The native recording with the native state at tick 110 as a baseline after frame 110,
    // and the command of tick 100 damaged: this build diverges at 100 and steps on to 110.
    const { records } = replayRecords(native);
    const snapshot = join(dir, 'orbits-110.snapshot');
    cli('snapshot', '--scenario', 'orbits', '--tick', '110', '--out', snapshot);
    const at110 = records.findIndex((r) => r.message[0] === type.frame && decodeServer(r.message).tick === 110);
    const messages = records.map((r) => r.message);
    messages.splice(at110 + 1, 0, baseline(110, readFileSync(snapshot)));
    const { damaged } = withDamagedCommand(replayOf(native, messages), 100);
    const file = join(dir, 'damaged-110.replay');
    writeFileSync(file, damaged);
    const { divergence } = tandem.Replay.check(damaged);
    assert.equal(divergence.tick, 100);
    assert.equal(divergence.fieldsTick, 110);
    // The reference: the native dump of the undamaged run at 110 (the replay's side) and the
    // native re-run of the damaged file there (this build's side), line by line.
    const lines = (text) => new Map(text.split('\n').filter((l) => / /.test(l) && !/^(scenario |digest |section\.)/.test(l))
      .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));
    const replaySide = lines(cli('dump', '--scenario', 'orbits', '--tick', '110'));
    const rerun = lines(execFileSync(cliPath, ['replay', file, '--dump-at', '110'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    const differing = [...replaySide].filter(([path, value]) => rerun.get(path) !== value)
      .map(([path, value]) => ({ path, replay: value, thisBuild: rerun.get(path) }));
    assert.ok(differing.length > 32, `${differing.length} fields differ`);
    assert.equal(divergence.fieldsDiffering, differing.length);
    assert.equal(divergence.fields.length, 32, 'the first 32, in the state\'s field order');
    assert.deepEqual(divergence.fields.map(({ path, replay, thisBuild }) => ({ path, replay, thisBuild })), differing.slice(0, 32));
    // The damaged well comes first and is named with its section, as the native `tandem replay` names it.
    assert.match(divergence.fields[0].path, /^wells\[1\]\./);
    const out = spawnSync(cliPath, ['replay', file], { encoding: 'utf8' }).stdout;
    assert.match(out, /fields at tick 110 \(the replay's state there against this build's; (\d+) differ\)/);
    const nativeLines = out.split('\n').filter((l) => l.startsWith('  ') && !l.startsWith('  ...')).map((l) => l.trim());
    assert.deepEqual(divergence.fields.map((f) => `${f.path} ${f.replay} ${f.thisBuild} (${f.section})`), nativeLines);
  });

  test('a file the reader refuses throws a ReplayError with the reader code, and a tick it does not cover too', () => {
    const bad = Buffer.from(native);
    bad[3] = 0x58;   // "TNDX"
    assert.throws(() => tandem.Replay.check(bad), (e) => e instanceof tandem.ReplayError && e.code === 'bad_magic');
    assert.throws(() => tandem.Replay.check(native.subarray(0, native.length - 3)),
      (e) => e instanceof tandem.ReplayError && e.code === 'truncated' && e.record > 0);
    assert.throws(() => tandem.Replay.worldAt(native, 121), (e) => e instanceof tandem.ReplayError && e.code === 'tick_not_covered');
    assert.throws(() => tandem.Replay.check('not bytes'), TypeError);
    assert.throws(() => tandem.Replay.worldAt(native, -1), RangeError);
  });
});
