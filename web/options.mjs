// The page's options from its URL (?watch, ?offline, ?lockstep, ?debug, ?scenario=NAME, ...),
// parsed once.
// It only reads what the person asked for; which mode actually runs is chosen in adapters/.

// Knobs of the local world (offline sandbox) that a URL may set, with the ranges the page
// accepts; the world's own validation refuses anything else with a message naming the field.
const LOCAL_DEFAULTS = Object.freeze({ seed: 1, pellets: 1024 });

/**
 * @param {string} search location.search
 * @param {{protocol: string, host: string}} location where the page was served from
 */
export function parseOptions(search, location) {
  const q = new URLSearchParams(search);
  const flag = (name) => q.has(name) && q.get(name) !== '0' && q.get(name) !== 'false';
  const integer = (name, fallback) => {
    if (!q.has(name)) return fallback;
    const value = Number(q.get(name));
    return Number.isSafeInteger(value) && value >= 0 ? value : fallback;
  };
  const wsScheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return Object.freeze({
    watch: flag('watch'),
    offline: flag('offline'),
    // A player sees the predicted world unless ?lockstep asks for the confirmed one only.
    lockstep: flag('lockstep'),
    // ?predict-window=N (1-64): the most ticks the predicted world runs ahead (default 12); a
    // smaller window re-simulates less per rollback and hides less of the round trip.
    predictWindow: ((n) => (n !== null && n >= 1 && n <= 64 ? n : null))(integer('predict-window', null)),
    debug: flag('debug'),
    // Where the server session runs: a dedicated worker (the default), or ?session=main on the
    // page's main thread as before (kept to measure the two side by side).
    sessionThread: q.get('session') === 'main' ? 'main' : 'worker',
    // A named scenario played in the page (watch only): its script drives every input.
    scenario: q.get('scenario') || null,
    // The scenario "Check against native" runs (default: ?scenario's, else orbits).
    check: q.get('check') || null,
    seed: integer('seed', LOCAL_DEFAULTS.seed),
    pellets: integer('pellets', LOCAL_DEFAULTS.pellets),
    // The server's WebSocket: the page's own host unless ?server= names another.
    serverUrl: q.get('server') || `${wsScheme}//${location.host}/ws`,
  });
}
