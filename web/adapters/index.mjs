// Which adapter runs the page: the server session unless the person asked for ?offline or a
// ?scenario (falling back to the offline mode when no server answers at all); the offline mode
// (a room in the tab) for ?offline; a scenario played in the tab for ?scenario=NAME. It chooses
// from the URL; it never looks inside a message. The offline and scenario adapters are
// imported only when chosen: a page with a server never loads them, and its first verified
// tick does not wait for two more files.
import { importFromPage } from '../page-modules.mjs';
import { FallbackAdapter } from './fallback.mjs';
import { SessionAdapter } from './session.mjs';
import { WorkerSessionAdapter } from './worker-session.mjs';

/**
 * @param {() => Promise<object>} loadTandem the ES module on this thread, loaded when first asked for
 * @param {() => Promise<object>} loadPlugin the game's plugin (games/<game>/plugin.mjs), loaded when first asked for
 * @param {ReturnType<typeof import('../options.mjs').parseOptions>} options
 * @param {import('../transport.mjs').Transport | import('./worker-session.mjs').EarlySessionWorker | null} [early]
 *   early.mjs's socket or session worker; closed here when no session takes it
 * @returns {Promise<object>} the adapter; for the server session in its worker it resolves
 *   without loading the module or the plugin on this thread, or importing anything
 */
export async function chooseAdapter(loadTandem, loadPlugin, options, early = null) {
  const adapter = await choose(loadTandem, loadPlugin, options, early);
  if (early !== null && !(adapter instanceof FallbackAdapter)) early.stop(1000, 'not needed');
  return adapter;
}

async function choose(loadTandem, loadPlugin, options, early) {
  // The module and the plugin, for what runs on this thread.
  const load = () => Promise.all([loadTandem(), loadPlugin()]);
  // "Check against native": the server's native stream while there is a server, else the
  // stream shipped with the game's plugin. Its code is loaded when the button is first pressed.
  const check = (server) => async () => {
    const [{ checkAgainstNative, nativeSource }, [tandem, plugin]] = await Promise.all([importFromPage('native-check.mjs'), load()]);
    return (await checkAgainstNative(tandem, nativeSource(tandem, plugin, options, { server }))).text;
  };
  const withCheck = (adapter) => {
    adapter.actions = { ...adapter.actions, checkAgainstNative: check(false) };
    return adapter;
  };
  const offline = async (reason) => {
    const [{ OfflineAdapter }, [tandem, plugin]] = await Promise.all([importFromPage('adapters/offline.mjs'), load()]);
    const config = knobsFromUrl(new URLSearchParams(options.search ?? ''), plugin.urlKnobs ?? {});
    return withCheck(new OfflineAdapter(tandem, { watch: options.watch, debug: options.debug, lockstep: options.lockstep,
      predictWindow: options.predictWindow, seed: options.seed, config, reason }, plugin));
  };
  if (options.scenario !== null) {
    const [{ ScenarioAdapter }, [tandem, plugin]] = await Promise.all([importFromPage('adapters/scenario.mjs'), load()]);
    return withCheck(new ScenarioAdapter(tandem, { scenario: options.scenario, reason: '?scenario: no server involved' }, plugin));
  }
  if (options.offline) return offline('asked for with ?offline');
  // The session in its worker (index.html started it), or on this thread with ?session=main.
  let session;
  if (early?.kind === 'worker') {
    session = new WorkerSessionAdapter(early, options);
  } else {
    const [tandem, plugin] = await load();
    session = new SessionAdapter(tandem, options, plugin, early);
  }
  const sessionCheck = session.actions.checkAgainstNative;
  return new FallbackAdapter(session, () => offline(`no server at ${options.serverUrl}`), {
    // With a server, the scenario against its native stream and the session's own re-run of
    // what the server sent (a replay checked in this build).
    server: async () => `${await check(true)()} · received match: ${await sessionCheck()}`,
    offline: check(false),
  });
}

/**
 * The offline room's config from the URL: each parameter the plugin names (`urlKnobs`: {param:
 * knob}) that holds a whole number >= 0 sets that knob; the game's own validation refuses a
 * value out of its range, naming the knob.
 */
export function knobsFromUrl(params, urlKnobs) {
  const config = {};
  for (const [param, knob] of Object.entries(urlKnobs)) {
    const value = params.has(param) ? Number(params.get(param)) : NaN;
    if (Number.isSafeInteger(value) && value >= 0) config[knob] = value;
  }
  return config;
}
