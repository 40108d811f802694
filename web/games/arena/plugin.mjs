// The arena's plugin for the page's shell: what it draws (the fields of its state the renderer
// reads), where the HUD finds its players and scores, the HUD's words, and its view: the 3D
// renderer (the flat one where WebGL or three.js is missing) with pointer steering, loaded once
// the first tick verified. Data at the top: the session worker imports this file too, for
// `view` and `command`, so nothing here touches the DOM until loadView is called.

/** The fields the renderer draws, read into columns every frame (the module's setView). */
export const view = {
  lists: { wells: ['player', 'pos', 'target', 'score'], pellets: ['pos', 'generation'] },
  scalars: ['config.arena_size'],
};

/** Where the HUD's player list comes from in the drawn view. */
export const scoreboard = { list: 'wells', player: 'player', score: 'score' };

/** The scenario "Check against native" runs unless the URL names one. */
export const checkScenario = 'orbits';

export const labels = {
  title: 'tandem: the arena, verified in your browser',
  players: 'Players',
  stage: 'The arena in 3D: drag with the left button or one finger to steer your well',
  help: [
    'The arena: pellets pulled about by gravity wells. Your well is the sphere with the white target marker: drag with the left mouse button or one finger to steer it. Right button or two fingers turn the camera; the wheel or a pinch zooms. Pellets that fall into a well score for its owner.',
  ],
};

export { playerColourCss } from './palette.mjs';

/** The offline room's knobs the URL may set (?pellets=N, ?seed=N), whole numbers >= 0. */
export const urlKnobs = { pellets: 'pelletCount', seed: 'seed' };

/**
 * The arena's command from the view's input (a steer: the target point in arena units), made
 * where the module runs (the session's worker, or this thread): the point as raw Q16.16 values.
 */
export const command = (point, { fx }) => ({ target: { x: fx.fromUnits(point.x), y: fx.fromUnits(point.y) } });

/**
 * The view: the 3D renderer where three.js loads and WebGL works, else the flat one (the person
 * is told why), steered with the pointer; the 3D view lowers its resolution while frames come
 * slowly, and says so; each steer is sent as its point in arena units.
 * `tandem` is the module where this thread has loaded it, else null (the relief then is a
 * placeholder's).
 * @returns {Promise<{draw(view: object, nowMs: number): void, stats(): object, canvas: HTMLCanvasElement}>}
 */
export async function loadView({ container, tandem, options, hud, send }) {
  const [three, { FlatRenderer }, { reliefFunction }, { listenForSteering }] = await Promise.all([
    import('./renderer.mjs').catch((error) => ({ loadError: error })),
    import('./flat-renderer.mjs'), import('./terrain.mjs'), import('./steer-input.mjs'),
  ]);
  const arena = { arenaSize: 1024, relief: reliefFunction(tandem, options.seed) };
  let renderer;
  if (three.loadError) {
    hud.notice(`The 3D view did not load (${three.loadError.message}): showing the flat view.`);
    renderer = new FlatRenderer(container, arena);
  } else {
    try {
      renderer = new three.ArenaRenderer(container, arena, { fullResolution: options.fullResolution, onResolution: (text) => hud.notice(text) });
    } catch (error) {
      container.replaceChildren();
      hud.notice(`No WebGL here (${error.message}): showing the flat view.`);
      renderer = new FlatRenderer(container, arena);
    }
  }
  listenForSteering(renderer.canvas, (x, y) => renderer.arenaPointAt(x, y), send);
  return renderer;
}
