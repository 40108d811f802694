// "Check against native": runs one of the game's scenarios in this tab's wasm from tick 0 and
// compares its digest at every tick with the native build's stream, served by `tandem serve`
// (/native/stream) or, with no server, shipped beside the game's plugin
// (games/<game>/native/NAME.txt, the native run its golden files record). The digests are the
// C++'s on both sides; this file fetches, calls step() and digest() in slices (the page keeps
// drawing) and lines the two lists up.

// The length of the shipped streams and of the golden files: 2000 steps, 2001 digests.
export const CHECK_TICKS = 2000;

/**
 * A stream's text ('#' comments, "simulation_version V", "TICK DIGEST" lines and `tandem run`'s
 * summary line, the layout of tests/games/<game>/golden) as {version, points: [{tick, digest}]}.
 */
export function parseStream(text) {
  let version = null;
  const points = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('summary ')) continue;
    const v = /^simulation_version (\d+)$/.exec(line);
    if (v) {
      version = Number(v[1]);
      continue;
    }
    const p = /^(\d+) ([0-9a-f]{16})$/.exec(line);
    if (!p) throw new Error(`native stream line ${i + 1} is not "TICK DIGEST": ${JSON.stringify(line.slice(0, 60))}`);
    points.push({ tick: Number(p[1]), digest: p[2] });
  }
  return { version, points };
}

/**
 * Where the native stream comes from: the server that served the page, or the file shipped
 * with the game's plugin. The scenario: ?check, else ?scenario, else the plugin's (its first
 * listed one without a choice).
 */
export function nativeSource(tandem, plugin, options, { server }) {
  const scenario = options.check ?? options.scenario ?? plugin.checkScenario ?? tandem.scenarios()[0].name;
  if (server) {
    const http = new URL(options.serverUrl);
    http.protocol = http.protocol === 'wss:' ? 'https:' : 'http:';
    http.pathname = '/native/stream';
    http.search = `?scenario=${encodeURIComponent(scenario)}&ticks=${CHECK_TICKS}`;
    return { scenario, url: http.href, label: 'the server\'s native build' };
  }
  const file = new URL(`./games/${encodeURIComponent(tandem.game.name)}/native/${encodeURIComponent(scenario)}.txt`, document.baseURI);
  return { scenario, url: file.href, label: 'the native stream shipped with the page' };
}

async function fetchStream(url) {
  const response = await fetch(url, { cache: 'no-store' });
  const body = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${body.trim().slice(0, 200)}`);
  return parseStream(body);
}

const yieldToPage = () => new Promise((ok) => setTimeout(ok, 0));

/**
 * The page's own stream: digest at tick 0 and after every step to `ticks`, computed in slices
 * of about `sliceMs` so frames keep coming; `stop(tick, digest)` returning true ends it early
 * (the first difference is all the check needs).
 */
export async function wasmStream(tandem, scenario, ticks, { sliceMs = 8, stop = () => false } = {}) {
  const run = tandem.Scenario.open(scenario);
  try {
    const digests = [run.digest()];
    if (stop(0, digests[0])) return digests;
    while (digests.length <= ticks) {
      const start = performance.now();
      do {
        const digest = run.step(1).digest();
        digests.push(digest);
        if (stop(digests.length - 1, digest)) return digests;
      } while (digests.length <= ticks && performance.now() - start < sliceMs);
      await yieldToPage();
    }
    return digests;
  } finally {
    run.delete();
  }
}

/**
 * Lines the native points up with the page's digests (index = tick): how many were compared
 * and the first tick where they differ, or null.
 */
export function compareStreams(nativePoints, pageDigests) {
  let compared = 0;
  for (const { tick, digest } of nativePoints) {
    if (tick >= pageDigests.length) return { compared, firstDifference: { tick, native: digest, page: null } };
    if (pageDigests[tick] !== digest) return { compared, firstDifference: { tick, native: digest, page: pageDigests[tick] } };
    compared += 1;
  }
  return { compared, firstDifference: null };
}

/** The line the page shows, e.g. "orbits: 2,001 ticks, all identical to the server's native build". */
export function describeCheck({ scenario, compared, firstDifference, label }) {
  if (firstDifference === null) return `${scenario}: ${compared.toLocaleString('en')} ticks, all identical to ${label}`;
  const d = firstDifference;
  return `${scenario}: first difference at tick ${d.tick} (native ${d.native}, this tab ${d.page ?? 'none'}); ` +
    `${compared.toLocaleString('en')} ticks identical before it (${label})`;
}

/** Fetches the native stream, runs the page's, compares: {scenario, compared, firstDifference, label, text}. */
export async function checkAgainstNative(tandem, source) {
  const native = await fetchStream(source.url);
  if (native.points.length === 0) throw new Error(`${source.url}: no digests in the native stream`);
  const last = native.points[native.points.length - 1].tick;
  const expected = new Map(native.points.map((p) => [p.tick, p.digest]));
  const page = await wasmStream(tandem, source.scenario, last, { stop: (tick, digest) => expected.has(tick) && expected.get(tick) !== digest });
  const result = { scenario: source.scenario, label: source.label, ...compareStreams(native.points, page) };
  return { ...result, text: describeCheck(result) };
}
