// The games the determinism check knows (check.mjs and its tests share this list).
// The games the check runs, as `tandem games` lists them (quick-test.mjs checks the lists
// against `tandem scenarios --game G`): their scenarios, the quick mode's pick, the default
// field the perturbed build flips (a path of `tandem dump`, without a Vec2's .x), and what
// only the arena has: the float twin, and a shrinker that knows its random worlds' knobs
// (other games' divergences are cut to their first divergent tick only).
export const GAMES = {
  arena: { scenarios: ['orbits', 'crowd', 'chaos', 'trig'], quick: ['trig', 'chaos'], perturbField: 'pellets[0].pos',
    twin: true, shrinkKnobs: true },
  ships: { scenarios: ['duel', 'melee', 'rockfield', 'chaos'], quick: ['melee', 'chaos'], perturbField: 'rng',
    twin: false, shrinkKnobs: false },
};
