// Every shipped game through the package's one game-agnostic surface (tandem.game(name)):
// the list, fingerprints and scenarios are the native CLI's for that game, every scenario's
// digest stream equals `tandem run --game G` line for line, a stepped scenario's digests,
// section digests and dump are `tandem dump --game G`'s, and bad names are refused.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cli, loadTandem, parseStream } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

const nativeGames = () => cli('games').trim().split('\n').map((line) => line.split(/\s+/)[0]);
const nativeScenarios = (game) => cli('scenarios', '--game', game).trim().split('\n').map((line) => {
  const [, name, description] = /^(\S+)\s+(.*)$/.exec(line);
  return { name, description };
});

describe('games', () => {
  test('the package ships the games the native CLI ships, in its order', () => {
    assert.deepEqual([...tandem.games], nativeGames());
    assert.ok(tandem.games.includes('arena') && tandem.games.includes('ships'));
  });

  for (const game of ['arena', 'ships']) {
    test(`${game}: fingerprint, version and scenarios are the native CLI's`, () => {
      const g = tandem.game(game);
      const version = cli('version', '--game', game);
      assert.equal(g.fingerprint, version.split('\n').find((l) => l.startsWith('fingerprint ')).slice('fingerprint '.length));
      assert.deepEqual(g.scenarios(), nativeScenarios(game));
      assert.ok(g.sections.length >= 1);
    });

    test(`${game}: every scenario's stream equals \`tandem run --game ${game}\` line for line`, () => {
      const g = tandem.game(game);
      for (const { name } of g.scenarios()) {
        const native = parseStream(cli('run', '--game', game, '--scenario', name, '--ticks', '47', '--every', '10'));
        assert.ok(native.length > 2, `the CLI printed a stream for ${name}`);
        assert.deepEqual(g.runScenario(name, 47, 10), native, name);
      }
    });

    test(`${game}: a stepped scenario dumps what \`tandem dump --game ${game}\` prints`, () => {
      const g = tandem.game(game);
      const name = g.scenarios()[0].name;
      const s = g.openScenario(name);
      try {
        s.step(20).step(13);
        assert.equal(s.tick, 33);
        const native = cli('dump', '--game', game, '--scenario', name, '--tick', '33');
        assert.equal(`scenario ${name}\n${s.dump()}`, native);
        const sections = s.sectionDigests();
        assert.deepEqual(Object.keys(sections), [...g.sections]);
        for (const [section, digest] of Object.entries(sections)) assert.ok(native.includes(`section.${section} ${digest}\n`), section);
        assert.ok(native.endsWith(`digest ${s.digest()}\n`));
      } finally {
        s.delete();
      }
      assert.throws(() => s.digest(), /deleted/);
    });
  }

  test('unknown games and scenarios are refused with what is accepted', () => {
    assert.throws(() => tandem.game('pong'), (e) => e instanceof RangeError && /unknown game "pong".*arena, ships/.test(e.message));
    assert.throws(() => tandem.game(7), TypeError);
    assert.throws(() => tandem.game('ships').openScenario('nosuch'), RangeError);
    assert.throws(() => tandem.game('ships').runScenario('nosuch', 3), RangeError);
    assert.throws(() => tandem.game('arena').runScenario('trig', -1), RangeError);
  });
});
