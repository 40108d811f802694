// The native streams shipped with each game's plugin (web/games/<game>/native/NAME.txt, what
// "Check against native" compares with when there is no server) are the native build's: one per
// scenario the CLI lists for the game, at every 100th tick equal to tests/games/<game>/golden's
// streams under the same simulation_version, and one scenario's whole stream a game is what the
// native CLI prints now (all of them with TANDEM_NATIVE_STREAMS_ALL=1: the arena's crowd alone
// takes minutes). And the page's stream arithmetic, in Node: parsing, lining up, the line it shows.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { CHECK_TICKS, compareStreams, describeCheck, parseStream } from '../../web/native-check.mjs';
import { GAMES, repoRoot, tandemBinary, unlessNoTandem } from './lib/harness.mjs';

const shipped = (game, name) => parseStream(readFileSync(join(repoRoot, 'web/games', game, 'native', `${name}.txt`), 'utf8'));
const golden = (game, name) => parseStream(readFileSync(join(repoRoot, 'tests/games', game, 'golden', `${name}.txt`), 'utf8'));
// The streams each plugin ships, by name.
const shippedNames = (game) => readdirSync(join(repoRoot, 'web/games', game, 'native')).filter((f) => f.endsWith('.txt')).map((f) => f.slice(0, -4)).sort();

for (const game of GAMES) {
  describe(`the native streams shipped with ${game}'s plugin`, () => {
    test('one per scenario the native CLI lists for the game', { skip: unlessNoTandem() }, () => {
      const listed = execFileSync(tandemBinary, ['scenarios', '--game', game], { encoding: 'utf8' }).trim().split('\n').map((l) => l.split(/\s+/)[0]);
      assert.deepEqual(shippedNames(game), [...listed].sort());
    });

    for (const name of shippedNames(game)) {
      test(`${name}: one digest per tick 0..${CHECK_TICKS}, equal to the golden stream at every tick it records`, () => {
        assert.ok(existsSync(join(repoRoot, 'tests/games', game, 'golden', `${name}.txt`)), 'a golden stream');
        const s = shipped(game, name);
        const g = golden(game, name);
        assert.equal(s.version, g.version, 'simulation_version');
        assert.deepEqual(s.points.map((p) => p.tick), Array.from({ length: CHECK_TICKS + 1 }, (_, t) => t));
        assert.equal(g.points.length, 21);
        for (const p of g.points) assert.equal(s.points[p.tick].digest, p.digest, `tick ${p.tick}`);
      });
    }

    const all = process.env.TANDEM_NATIVE_STREAMS_ALL === '1';
    for (const name of all ? shippedNames(game) : shippedNames(game).slice(-1)) {
      test(`${name}: the whole shipped stream is what the native CLI prints now (tandem run --game ${game} --every 1)`,
        { skip: unlessNoTandem() }, async () => {
          const { stdout } = await promisify(execFile)(tandemBinary, ['run', '--game', game, '--scenario', name, '--ticks', String(CHECK_TICKS), '--every', '1'],
            { maxBuffer: 1 << 24, timeout: 600_000 });
          assert.deepEqual(shipped(game, name).points, parseStream(stdout).points, `regenerate with web/games/native-streams.sh ${game} after a deliberate simulation change`);
        });
    }
  });
}

describe('the check\'s arithmetic', () => {
  const text = '# comment\nsimulation_version 2\n0 00000000000000aa\n1 00000000000000bb\n2 00000000000000cc\nsummary scenario=x\n';
  test('parseStream reads the golden layout and refuses any other line', () => {
    assert.deepEqual(parseStream(text), { version: 2, points: [
      { tick: 0, digest: '00000000000000aa' }, { tick: 1, digest: '00000000000000bb' }, { tick: 2, digest: '00000000000000cc' }] });
    assert.throws(() => parseStream('0 00aa\n'), /line 1 is not "TICK DIGEST"/);
    assert.throws(() => parseStream('simulation_version 2\n<html>\n'), /line 2/);
  });
  test('compareStreams counts the agreeing ticks and names the first that differs', () => {
    const { points } = parseStream(text);
    assert.deepEqual(compareStreams(points, ['00000000000000aa', '00000000000000bb', '00000000000000cc']), { compared: 3, firstDifference: null });
    assert.deepEqual(compareStreams(points, ['00000000000000aa', '00000000000000bx', '00000000000000cc']),
      { compared: 1, firstDifference: { tick: 1, native: '00000000000000bb', page: '00000000000000bx' } });
    assert.deepEqual(compareStreams(points, ['00000000000000aa']),
      { compared: 1, firstDifference: { tick: 1, native: '00000000000000bb', page: null } });
  });
  test('describeCheck says all identical, or the first differing tick', () => {
    assert.equal(describeCheck({ scenario: 'orbits', compared: 2001, firstDifference: null, label: 'the server\'s native build' }),
      'orbits: 2,001 ticks, all identical to the server\'s native build');
    assert.equal(describeCheck({ scenario: 'orbits', compared: 7, firstDifference: { tick: 7, native: 'a', page: 'b' }, label: 'x' }),
      'orbits: first difference at tick 7 (native a, this tab b); 7 ticks identical before it (x)');
  });
});
