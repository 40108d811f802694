// The page's options from its URL (?watch, ?offline, ?lockstep, ?debug, ?scenario=NAME, ...),
// parsed once.
// It only reads what the person asked for; which mode actually runs is chosen in adapters/.
// A game's own URL knobs (the offline room's config) are its plugin's to name (urlKnobs, read
// from `search`); the game's validation refuses a knob out of range, naming it.

// The offline room's seed (it also seeds the bots' paths).
const DEFAULT_SEED = 1;

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
    // A player sees the predicted state unless ?lockstep asks for the confirmed one only.
    lockstep: flag('lockstep'),
    // ?predict-window=N (1-64): the most ticks the predicted state runs ahead (default 12); a
    // smaller window re-simulates less per rollback and hides less of the round trip.
    predictWindow: ((n) => (n !== null && n >= 1 && n <= 64 ? n : null))(integer('predict-window', null)),
    debug: flag('debug'),
    // ?full-resolution: a view draws at the display's resolution even while its frames come
    // slowly (by default a 3D view lowers it then: dynamic-resolution.mjs).
    fullResolution: flag('full-resolution'),
    // Where the server session runs: a dedicated worker (the default), or ?session=main on the
    // page's main thread as before (kept to measure the two side by side).
    sessionThread: q.get('session') === 'main' ? 'main' : 'worker',
    // A named scenario played in the page (watch only): its script drives every input.
    scenario: q.get('scenario') || null,
    // The scenario "Check against native" runs (default: ?scenario's, else the plugin's choice).
    check: q.get('check') || null,
    seed: integer('seed', DEFAULT_SEED),
    // ?ticket=TEXT: a join ticket from the room's lobby (what `tandem ticket` prints), for a
    // server that requires one (`tandem serve --ticket-key`); the session sends it in its hello.
    ticket: q.get('ticket') || null,
    // ?fleet=URL,URL: the WebSocket URLs of the other processes sharing the room's store (the
    // same room's path on each, e.g. ws://10.0.0.2:8080/ws/r1), where the session goes when the
    // room's process stops answering. A fleet behind one address needs none.
    fleet: (q.get('fleet') ?? '').split(',').filter((url) => url.length > 0),
    // The query as given, for the game's plugin (its own knobs: games/<game>/plugin.mjs).
    search: q.toString(),
    // The server's WebSocket: the page's own host unless ?server= names another.
    serverUrl: q.get('server') || `${wsScheme}//${location.host}/ws`,
  });
}
