// starter's plugin for the page's shell (web/README.md in tandem: "A game's plugin"): the fields
// of its state the renderer reads, where the HUD finds its players and scores, the HUD's words,
// and its view (view.mjs). The session worker imports this file too, for `view`, so nothing here
// touches the DOM until loadView is called.

/** The fields the renderer draws, read into columns every frame. */
export const view = {
  lists: { runners: ['player', 'pos', 'score'], coins: ['index', 'pos'] },
  scalars: ['config.field_size', 'config.reach'],
};

/** Where the HUD's player list comes from in the drawn view. */
export const scoreboard = { list: 'runners', player: 'player', score: 'score' };

export const labels = {
  title: 'tandem: starter, verified in your browser',
  players: 'Runners',
  stage: 'The field from above: arrow keys or W, A, S, D to run; on a touch screen, hold a finger where to go',
  help: ['starter: collect the coins. Your runner is outlined in white. Arrow keys or W, A, S, D move it; on a touch screen, hold a finger on the field.'],
};

export { playerColourCss } from './view.mjs';

/** The view: the canvas renderer, and the input that sends the held direction on every change. */
export async function loadView({ container, send }) {
  const { StarterRenderer, listenForDirection } = await import('./view.mjs');
  const renderer = new StarterRenderer(container);
  listenForDirection(container, renderer, (held) => send({ held }));
  return renderer;
}
