// Every shipped game through its own package (build/wasm/packages/<game>), one surface for all:
// the packages are the games the native CLI ships; each package's fingerprint and scenarios are
// the CLI's for its game, every scenario's digest stream equals `tandem run --game G` line for
// line, a stepped scenario's digests, section digests and dump are `tandem dump --game G`'s, the
// schema its visitors give describes what its state holds, and bad names are refused.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, test } from 'node:test';
import { cli, GAMES, loadTandem, packageDirOf, parseStream } from './support.mjs';

const packages = {};
before(async () => {
  for (const game of GAMES) packages[game] = await loadTandem({}, packageDirOf(game));
});

const nativeGames = () => cli('games').trim().split('\n').map((line) => line.split(/\s+/)[0]);
const nativeScenarios = (game) => cli('scenarios', '--game', game).trim().split('\n').map((line) => {
  const [, name, description] = /^(\S+)\s+(.*)$/.exec(line);
  return { name, description };
});

describe('games', () => {
  test('there is one package per game the native CLI ships, each of its own game', () => {
    assert.deepEqual(GAMES, nativeGames());
    for (const game of GAMES) {
      assert.ok(existsSync(packageDirOf(game)), game);
      assert.equal(packages[game].game.name, game);
    }
  });

  test('each package names its game in game.mjs as its module does (a page loads the game\'s plugin from it before the module)', async () => {
    for (const game of GAMES) {
      const { gameName } = await import(pathToFileURL(join(packageDirOf(game), 'game.mjs')).href);
      assert.equal(gameName, packages[game].game.name);
    }
  });

  for (const game of GAMES) {
    test(`${game}: fingerprint, version and scenarios are the native CLI's`, () => {
      const t = packages[game];
      const version = cli('version', '--game', game);
      assert.equal(t.game.fingerprint, version.split('\n').find((l) => l.startsWith('fingerprint ')).slice('fingerprint '.length));
      assert.equal(t.fingerprint, t.game.fingerprint);
      assert.deepEqual(t.scenarios(), nativeScenarios(game));
      assert.deepEqual(t.game.scenarios(), t.scenarios());
      assert.ok(t.game.sections.length >= 1);
    });

    test(`${game}: every scenario's stream equals \`tandem run --game ${game}\` line for line`, () => {
      const t = packages[game];
      for (const { name } of t.scenarios()) {
        const native = parseStream(cli('run', '--game', game, '--scenario', name, '--ticks', '47', '--every', '10'));
        assert.ok(native.length > 2, `the CLI printed a stream for ${name}`);
        assert.deepEqual(t.runScenario(name, 47, 10), native, name);
        assert.deepEqual(t.game.runScenario(name, 47, 10), native, name);
      }
    });

    test(`${game}: a stepped scenario dumps what \`tandem dump --game ${game}\` prints, and its state has the schema's shape`, () => {
      const t = packages[game];
      const name = t.scenarios()[0].name;
      const s = t.game.openScenario(name);
      try {
        s.step(20).step(13);
        assert.equal(s.tick, 33);
        const native = cli('dump', '--game', game, '--scenario', name, '--tick', '33');
        assert.equal(`scenario ${name}\n${s.dump()}`, native);
        const sections = s.sectionDigests();
        assert.deepEqual(Object.keys(sections), [...t.game.sections]);
        for (const [section, digest] of Object.entries(sections)) assert.ok(native.includes(`section.${section} ${digest}\n`), section);
        assert.ok(native.endsWith(`digest ${s.digest()}\n`));
        // Every field of the dump is a field the schema names: outside the lists by path, inside
        // by the list's name and the element's field name.
        const state = s.world.state();
        for (const { path } of t.game.state.fields) {
          const value = path.split('.').reduce((o, k) => o?.[k], state);
          assert.notEqual(value, undefined, path);
        }
        for (const list of t.game.state.lists) {
          assert.ok(Array.isArray(state[list.name]), list.name);
          for (const element of state[list.name]) {
            for (const field of list.fields) assert.notEqual(field.name.split('.').reduce((o, k) => o?.[k], element), undefined, `${list.name}.${field.name}`);
          }
        }
        for (const f of s.world.fields()) assert.ok(native.includes(`\n${f.path} ${f.value}\n`), f.path);
      } finally {
        s.delete();
      }
      assert.throws(() => s.digest(), /deleted/);
    });
  }

  test('unknown scenarios and bad arguments are refused with what is accepted', () => {
    const ships = packages.ships;
    assert.throws(() => ships.game.openScenario('nosuch'), (e) => e instanceof RangeError && /unknown scenario "nosuch" \(known: duel/.test(e.message));
    assert.throws(() => ships.game.runScenario('nosuch', 3), RangeError);
    assert.throws(() => packages.arena.game.runScenario('trig', -1), RangeError);
  });

  test('ships\' command is its buttons byte, and a byte with its reserved bits set is refused by the game\'s own codec', () => {
    const ships = packages.ships;
    assert.deepEqual(ships.game.commandFields, [{ name: 'buttons', type: 'u8' }]);
    assert.equal(ships.INPUT_BYTES, 6);
    const bytes = ships.encodeInputs([{ player: 2, kind: 'command', command: { buttons: 0b1001 } }]);
    assert.deepEqual([...bytes], [2, 0, 0, 0, 2, 0b1001]);
    assert.throws(() => ships.encodeInputs([{ player: 2, kind: 'command', command: { buttons: 0x10 } }]),
      (e) => e.name === 'InputError' && e.code === 'value_out_of_range' && e.index === 0);
    assert.throws(() => ships.decodeInputs(new Uint8Array([2, 0, 0, 0, 2, 0x30])), (e) => e.code === 'value_out_of_range');
    assert.throws(() => ships.checkCommand({ buttons: 0x80 }), (e) => e.code === 'value_out_of_range');
    assert.deepEqual(ships.checkCommand({ buttons: 3 }), { buttons: 3 });
    assert.throws(() => ships.checkCommand({ buttons: 256 }), RangeError);
  });
});
