// The games the determinism check knows (check.mjs and its tests share this file).
//
// GAMES: the games of this tree that the quick mode of build-scripts/test checks, as `tandem
// games` and tandem_add_game list them (quick-test.mjs checks the lists against each game's own
// `scenarios`): their scenarios, the quick mode's pick, the default field the perturbed build
// flips (a path of `tandem dump`, without a Vec2's .x), where their golden streams live, and what
// only the arena has: the float twin, and a shrinker that knows its random worlds' knobs (other
// games' divergences are cut to their first divergent tick only). `registered`: the game is
// built by tandem_add_game (its own command and package, found through its registration) rather
// than shipped in the `tandem` command and the tandem package.
//
// Registrations: tandem_add_game writes <build>/tandem-games/<game>.json in every build of a
// game, in this tree or in a project of its own; `--game-build DIR` hands the check such a build
// of a game made outside this tree.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const GAMES = {
  arena: { scenarios: ['orbits', 'crowd', 'chaos', 'trig'], quick: ['trig', 'chaos'], perturbField: 'pellets[0].pos',
    twin: true, shrinkKnobs: true, golden: 'tests/games/arena/golden' },
  ships: { scenarios: ['duel', 'melee', 'rockfield', 'chaos'], quick: ['melee', 'chaos'], perturbField: 'rng',
    twin: false, shrinkKnobs: false, golden: 'tests/games/ships/golden' },
  starter: { scenarios: ['pair', 'crowd'], quick: ['pair', 'crowd'], perturbField: 'rng',
    twin: false, shrinkKnobs: false, golden: 'src/games/starter/tests/golden', registered: true },
};

// Which rows of the check a registration's build fills ("build" as tandem_add_game names it).
export const TARGETS_OF_BUILD = {
  native: ['native'], clang: ['clang'], i686: ['i686'], aarch64: ['aarch64'], s390x: ['s390x'],
  wasm: ['node', 'chromium', 'firefox'],
};

// The registration of `game` in one build directory, or null when that build has none.
export function registrationIn(buildDir, game) {
  const file = join(buildDir, 'tandem-games', `${game}.json`);
  if (!existsSync(file)) return null;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  if (r.registration !== 1 || r.game !== game || !TARGETS_OF_BUILD[r.build]) {
    throw new Error(`${file}: not a registration this check reads (registration 1 of game '${game}' with a known build)`);
  }
  return { ...r, file };
}

// Every registration in the build directories given with --game-build: [{game, build, ...}].
// A directory without registrations is a mistake worth naming.
export function registrationsOf(dirs) {
  const out = [];
  for (const dir of dirs) {
    const folder = join(dir, 'tandem-games');
    const names = existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')).sort() : [];
    if (!names.length) {
      throw new Error(`--game-build ${dir}: no game registered there (tandem_add_game writes ${folder}/<game>.json when the build is configured)`);
    }
    for (const name of names) out.push(registrationIn(dir, name.replace(/\.json$/, '')));
  }
  return out;
}
