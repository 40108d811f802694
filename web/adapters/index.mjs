// Which adapter runs the page: the server session when the module has one and the person did
// not ask for ?offline or a ?scenario (falling back to the offline mode when no server answers
// at all); the offline mode (a Room in the tab) for ?offline; the local stand-in for
// ?scenario=NAME and for a module without a Room. It chooses from the URL and what the module
// offers; it never looks inside a message. The offline and local adapters are imported only when
// chosen: a page with a server never loads them, and its first verified tick does not wait for
// two more files.
import { FallbackAdapter } from './fallback.mjs';
import { SessionAdapter } from './session.mjs';
import { WorkerSessionAdapter } from './worker-session.mjs';

/**
 * @param {object} tandem the loaded ES module
 * @param {ReturnType<typeof import('../options.mjs').parseOptions>} options
 * @param {import('../transport.mjs').Transport | null} [early] early.mjs's socket; closed here when no session takes it
 * @returns {Promise<object>} the adapter; for the server session it resolves without importing anything
 */
export async function chooseAdapter(tandem, options, early = null) {
  const adapter = await choose(tandem, options, early);
  if (early !== null && !(adapter instanceof FallbackAdapter)) early.stop(1000, 'not needed');
  return adapter;
}

function choose(tandem, options, early) {
  // "Check against native": the server's native stream while there is a server, else the
  // stream shipped with the page. Its code is loaded when the button is first pressed.
  const check = (server) => async () => {
    const { checkAgainstNative, nativeSource } = await import('../native-check.mjs');
    return (await checkAgainstNative(tandem, nativeSource(options, { server }))).text;
  };
  const withCheck = (adapter) => {
    adapter.actions = { ...adapter.actions, checkAgainstNative: check(false) };
    return adapter;
  };
  const local = async (reason) => {
    const { LocalAdapter } = await import('./local.mjs');
    return withCheck(new LocalAdapter(tandem, { scenario: options.scenario, watch: options.watch, seed: options.seed, pellets: options.pellets, reason }));
  };
  const offline = async (reason) => {
    if (typeof tandem.ScriptedBot !== 'function') return local(`${reason}; this build of the module has no Room`);
    const { OfflineAdapter } = await import('./offline.mjs');
    return withCheck(new OfflineAdapter(tandem, { watch: options.watch, debug: options.debug, lockstep: options.lockstep, predictWindow: options.predictWindow, seed: options.seed, pellets: options.pellets, reason }));
  };
  if (options.scenario !== null) return local('?scenario: no server involved');
  if (options.offline) return offline('asked for with ?offline');
  if (typeof tandem.ClientSession !== 'function') return local('this build of the module has no client session yet');
  // The session in its worker (early.mjs started it), or on this thread with ?session=main.
  const session = early?.kind === 'worker' ? new WorkerSessionAdapter(early, options) : new SessionAdapter(tandem, options, early);
  const sessionCheck = session.actions.checkAgainstNative;
  return new FallbackAdapter(session, () => offline(`no server at ${options.serverUrl}`), {
    // With a server, the scenario against its native stream and the session's own re-run of
    // what the server sent (a replay checked in this build).
    server: async () => `${await check(true)()} · received match: ${await sessionCheck()}`,
    offline: check(false),
  });
}
