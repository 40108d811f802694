// ships' plugin for the page's shell: what it draws (the fields of its state the renderer
// reads), where the HUD finds its players and scores, the HUD's words, and its view: a top-down
// canvas of the wrap-around field, steered with the keyboard or on-screen touch buttons. Data
// at the top: the session worker imports this file too, for `view`, so nothing here touches
// the DOM until loadView is called.

/** The fields the renderer draws, read into columns every frame (the module's setView). */
export const view = {
  lists: {
    ships: ['player', 'alive', 'pos', 'heading', 'score', 'buttons'],
    bullets: ['key', 'owner', 'pos'],
    rocks: ['key', 'size', 'pos'],
  },
  scalars: ['config.arena_size', 'config.ship_radius', 'config.rock_radius_big', 'config.rock_radius_medium',
    'config.rock_radius_small', 'rocks_destroyed'],
};

/** Where the HUD's player list comes from in the drawn view. */
export const scoreboard = { list: 'ships', player: 'player', score: 'score' };

/** The scenario "Check against native" runs unless the URL names one. */
export const checkScenario = 'melee';

export const labels = {
  title: 'tandem: ships, verified in your browser',
  players: 'Ships',
  stage: 'The field from above: arrow keys or W, A, D to fly, space to fire; on a touch screen, the buttons',
  help: [
    'ships: up to eight ships among drifting rocks on a field that wraps around. Your ship is outlined in white. Arrow keys or W, A, D: thrust and turn; space: fire (on a touch screen, the buttons at the bottom). A rock you hit splits; shooting a ship scores more.',
  ],
};

export { playerColourCss } from './palette.mjs';

/** The offline room's knobs the URL may set (?seed=N), whole numbers >= 0. */
export const urlKnobs = { seed: 'seed' };

/**
 * The view: the canvas renderer and the input (keyboard and touch buttons), whose held buttons
 * become ships' command, one byte of them, sent on every change.
 */
export async function loadView({ container, send }) {
  const [{ ShipsRenderer }, { listenForButtons }] = await Promise.all([import('./renderer.mjs'), import('./input.mjs')]);
  const renderer = new ShipsRenderer(container);
  listenForButtons(container, (buttons) => send({ buttons }));
  return renderer;
}
