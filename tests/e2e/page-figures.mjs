// Measures the demo page's figures for docs/performance.md ("The demo page") and prints each:
// navigation to first verified tick, the wasm step in Chromium and Firefox beside the native
// CLI's (the same scenarios, one run, interleaved), frame times while catching up after a
// hidden tab, (hidden) the time from a hidden tab being shown to a frame showing a verified
// tick and the main thread's frame callbacks while playing, the session in its worker and on
// the main thread side by side, bytes on the wire per client, the page's weight, and (predict, only when asked)
// the predicting page's re-simulation per frame in Chromium at a 100 ms round trip while a
// second player, a Node client, steers every tick. Run by hand, not a test:
//   node tests/e2e/page-figures.mjs [--repeat N] [--ticks N] [--warmup N] [--only first,step,catchup,hidden,bytes,weight,predict,table,...]
//        [--baseline TANDEM_BINARY:WEB_DIR[:PACKAGE_DIR]]... [--predict-packages DIR,DIR... --rounds N]
//        [--predict-variants default,window=4,pellets=256,window=4+pellets=256...] [--floor]
//        [--hidden-ms N] [--hidden-how tab|minimise] [--hidden-threads worker,main] [--hidden-browsers chromium,firefox]
//        [--long-repeat N] [--clicks N] [--game arena|ships] [--step-scenarios A,B]
// (after build-scripts/build native and wasm). `--only table` measures every figure of the
// backgrounded-tab table in docs/performance.md, each --repeat times in Chromium and Firefox,
// and closes with the table (median and best): `first` (navigation to first verified tick),
// `hidden5` (5 s behind another tab, with the frame callbacks while playing before it),
// `minimised` (5 s, Chromium), `hidden60`, `frozen` (10 s, Chromium), `latency` (input to screen
// at a 100 ms round trip, --clicks per mode, the session in its worker, on the main thread, and
// in its worker with the 3D view at full resolution; the first two in Firefox too)
// and `hidden600` (10 minutes, both browsers at once, --long-repeat times); each may be named
// alone (`latency` is the arena's: a click that steers). --baseline (repeatable) measures the first verified tick (and
// input to screen, the session in its worker) of
// another build and page (and wasm package, when named) too, alternating with this one's in the same sitting (a loaded
// machine's wall times are only comparable side by side). --predict-packages measures the
// predict figure with each wasm package named (e.g. a copy of build/wasm/package from before a
// change), one server each, alternating, --rounds times. --floor measures the first verified
// tick of tests/e2e/floor/ too, alternating the same way: a page that only compiles the .wasm,
// connects and verifies (no stylesheet, HUD or view), the least the demo could take here, and
// the same with the session in a worker (floor/worker.html; its worker in one file, as the
// page's); with a hidden case (hidden5, minimised, hidden60, hidden600) it measures the return
// floor before each run of the page:
// floor/return.html, a session in a worker and one full-window canvas (WebGL where the browser
// has it), hidden and shown the same way, which is what any page returning from hidden takes here. --predict-variants measures it with
// each setting named, alternating the same way: `window=N` is the page's ?predict-window=N (the
// prediction window in ticks), `pellets=N` the server's --pellets N (the world's size), joined
// with `+`; `default` is neither. --game measures another game's page (its server, package and
// plugin; default arena): for ships, `--game ships --only first,step,catchup,predict` gives its
// first verified tick, wasm step against native (duel and chaos unless --step-scenarios), frames
// while catching up, and the re-simulation while another player (Node) presses new buttons every
// tick; input-to-screen with and without prediction at a 100 ms round trip is
// `(cd tests/e2e && TANDEM_E2E_LATENCY_SAMPLES=20 node --test games/ships/latency.test.mjs)`.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { hideAndFreeze, hideBehindAnotherTab, launchChromium, minimise } from './lib/chromium.mjs';
import { activate, evaluate, launchFirefox, navigate, newTab, waitFor } from './lib/firefox.mjs';
import { startDelayProxy } from './lib/delay-proxy.mjs';
import { startNodePlayer } from './lib/node-player.mjs';
import { openDemo, repoRoot, sleep, startTandemServe, tandemBinary } from './lib/harness.mjs';
import { measureClicks, measureClicksFirefox } from './games/arena/click-latency.mjs';

const { values } = parseArgs({ options: {
  repeat: { type: 'string', default: '5' },
  // 1,000 ticks: the CPU times are read at 10 ms resolution, and 200 ticks of the small world
  // (about 100 ms natively, two runs subtracted) moved its ratio by up to 20% on that alone.
  ticks: { type: 'string', default: '1000' },
  warmup: { type: 'string', default: '100' },
  only: { type: 'string', default: 'first,step,hidden,bytes,weight' },
  baseline: { type: 'string', multiple: true },
  'predict-packages': { type: 'string' },
  'predict-variants': { type: 'string', default: 'default' },
  floor: { type: 'boolean', default: false },
  rounds: { type: 'string', default: '1' },
  // hidden: how long, how (tab: behind another tab; minimise: Chromium's window minimised,
  // Firefox still behind a tab), and which of the session's threads (worker, main).
  'hidden-ms': { type: 'string', default: '5000' },
  'hidden-how': { type: 'string', default: 'tab' },
  'hidden-threads': { type: 'string', default: 'worker,main' },
  'hidden-browsers': { type: 'string', default: 'chromium,firefox' },
  // table: the runs of the 10-minute hidden case (default --repeat), and the clicks per mode of
  // the input-to-screen figure.
  'long-repeat': { type: 'string' },
  clicks: { type: 'string', default: '12' },
  game: { type: 'string', default: 'arena' },
  'step-scenarios': { type: 'string' },
} });
const GAME = values.game;

// The floor pages (tests/e2e/floor/) as served: their workers, like the page's, each one file
// with the package (esbuild, as the wasm build bundles the page's worker), in a copy made once.
let floorCopy = null;
function floorDir() {
  if (floorCopy) return floorCopy;
  const source = new URL('./floor', import.meta.url).pathname;
  const staging = mkdtempSync(join(tmpdir(), 'tandem-floor-'));
  cpSync(source, staging, { recursive: true });
  symlinkSync(process.env.TANDEM_PACKAGE_DIR ?? join(repoRoot, 'build/wasm/packages', GAME), join(staging, 'pkg'));
  floorCopy = mkdtempSync(join(tmpdir(), 'tandem-floor-web-'));
  process.on('exit', () => [staging, floorCopy].forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  cpSync(source, floorCopy, { recursive: true });
  const esbuild = join(repoRoot, 'build-scripts/web-tools/node_modules/.bin/esbuild');
  for (const worker of ['worker.mjs', 'return-worker.mjs']) {
    execFileSync(esbuild, [worker, '--bundle', '--format=esm', '--log-level=warning', `--outfile=${join(floorCopy, worker)}`], { cwd: staging, stdio: 'inherit' });
  }
  return floorCopy;
}
const STEP_SCENARIOS = (values['step-scenarios'] ?? { arena: 'trig,orbits', ships: 'duel,chaos' }[GAME] ?? '').split(',').filter(Boolean);
// The figures of the issue's table, each also by name; `table` is all of them and `first`.
const TABLE = ['first', 'hidden5', 'minimised', 'hidden60', 'frozen', 'latency', 'hidden600'];
const SECTIONS = new Set(['first', 'step', 'catchup', 'hidden', 'bytes', 'weight', 'predict', 'table', ...TABLE]);
const HIDDEN_MS = Number(values['hidden-ms']);
const HIDDEN_HOW = values['hidden-how'];
const HIDDEN_THREADS = values['hidden-threads'].split(',');
const HIDDEN_BROWSERS = values['hidden-browsers'].split(',');
const ONLY = new Set(values.only.split(',').flatMap((name) => (name === 'table' ? TABLE : [name])));
for (const name of values.only.split(',')) {
  if (!SECTIONS.has(name)) {
    console.error(`page-figures: --only takes a comma-separated list of ${[...SECTIONS].join(', ')}; got ${name}`);
    process.exit(2);
  }
}
if (!['tab', 'minimise'].includes(HIDDEN_HOW)) {
  console.error(`page-figures: --hidden-how takes tab or minimise, got ${HIDDEN_HOW}`);
  process.exit(2);
}
const REPEAT = Number(values.repeat);
const LONG_REPEAT = Number(values['long-repeat'] ?? values.repeat);
const CLICKS = Number(values.clicks);
const TICKS = Number(values.ticks);
const WARMUP = Number(values.warmup);
const ROUNDS = Number(values.rounds);
if (![REPEAT, TICKS, WARMUP, ROUNDS, LONG_REPEAT, CLICKS, HIDDEN_MS].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('page-figures: --repeat, --ticks, --warmup, --rounds, --long-repeat, --clicks and --hidden-ms take positive integers');
  process.exit(2);
}

const PREDICT_VARIANTS = values['predict-variants'].split(',').map(predictVariant);

const best = (xs) => Math.min(...xs);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const f1 = (x) => (x == null ? '-' : x.toFixed(1));
const f3 = (x) => (x == null ? '-' : x.toFixed(3));
const spread = (xs, fmt = f1) => `best ${fmt(best(xs))}, median ${fmt(median(xs))} (n=${xs.length}: ${xs.map(fmt).join(' ')})`;

function machine() {
  const lscpu = execFileSync('lscpu', { encoding: 'utf8' });
  const field = (name) => new RegExp(`^${name}:\\s*(.+)$`, 'm').exec(lscpu)?.[1] ?? '?';
  return `${field('Model name')} (family ${field('CPU family')} model ${field('Model')} stepping ${field('Stepping')}), ` +
    `${field('CPU\\(s\\)')} CPUs, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
}

// ---- Navigation to first verified tick -------------------------------------------------------

// In the page from its first script on: the time (performance.now(), from navigation start) of
// the module being ready and of the first verified tick, polled every 2 ms. The session's
// figures are read at most every 16 ms: read every 2 ms, that call into the module alone took
// enough of Chromium's main thread to delay the tick it was waiting for (the page's own mark,
// set in the frame that verified, is the figure; this poll is the check from outside).
const PRELOAD = `() => {
  const marks = { readyMs: null, verifiedMs: null };
  window.__pageFigures = marks;
  let lastRead = -Infinity;
  const poll = () => {
    const t = window.__tandem;
    const now = performance.now();
    if (marks.readyMs === null && t?.ready) marks.readyMs = now;
    const marked = performance.getEntriesByName('tandem:first-verified', 'mark').length > 0;
    if (t?.ready && (marked || now - lastRead >= 16)) {
      lastRead = now;
      const v = t.figures()?.verification;
      if (v && v.verifiedTicks > 0) { marks.verifiedMs = performance.now(); return; }
    }
    setTimeout(poll, 2);
  };
  poll();
}`;

// Read once the tick verified: the marks, DOMContentLoaded, the page's own performance marks,
// when the big files had arrived, and the bytes the page's loads took on the wire (Resource
// Timing's transferSize: headers and the body as sent, compressed or not).
const MARKS = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  const end = (part) => resources.find((r) => r.name.includes(part))?.responseEnd ?? null;
  const own = Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('tandem:')).map((m) => [m.name.slice(7), m.startTime]));
  // The session worker's own start-up steps, on this page's clock (session-worker.mjs).
  const worker = window.__tandem?.figures()?.worker?.startup ?? null;
  return { ...window.__pageFigures, domMs: nav.domContentLoadedEventEnd, marks: own, worker, htmlMs: nav.responseEnd,
    threeMs: end('three.core.js'), wasmMs: end('.wasm'),
    transferBytes: [nav, ...resources].reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
    bodyBytes: [nav, ...resources].reduce((sum, r) => sum + (r.encodedBodySize ?? 0), 0) };
})()`;

async function firstVerifiedChromium(chromium, origin, path = '/') {
  // A fresh context each time: nothing cached, as a first visit.
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(`(${PRELOAD})()`);
  await page.goto(`${origin}${path}`);
  await page.waitForFunction(() => window.__pageFigures?.verifiedMs != null, null, { timeout: 30_000 });
  const marks = await page.evaluate(MARKS);
  await context.close();
  return marks;
}

async function firstVerifiedFirefox(firefox, origin, path = '/') {
  const { bidi, tab } = firefox;
  const { script } = await bidi.send('script.addPreloadScript', { functionDeclaration: PRELOAD });
  await navigate(bidi, tab, `${origin}${path}`);
  await waitFor(bidi, tab, 'window.__pageFigures?.verifiedMs != null', 30_000);
  const marks = await evaluate(bidi, tab, MARKS);
  await bidi.send('script.removePreloadScript', { script });
  await navigate(bidi, tab, 'about:blank');
  return marks;
}

// ---- Step cost: the same scenario in the page's wasm and in the native CLI --------------------

// CPU seconds of every process in a process group (a browser and all it started), from
// /proc: user + system time at 100 ticks a second. A machine shared with other jobs inflates
// wall times by whatever else runs; CPU time is what the loop itself cost. It errs against the
// browser (its other processes and threads count too, idle as they are here).
function groupCpuSeconds(pgid) {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try { stat = readFileSync(`/proc/${entry}/stat`, 'utf8'); } catch { continue; }
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(rest[2]) !== pgid) continue;
    ticks += Number(rest[11]) + Number(rest[12]);
  }
  return ticks / 100;
}

/** The loop in a browser page: wall ms per tick (in the page) and CPU ms per tick (the browser's processes), after the warm-up. */
async function pageStep(run, pgid, name, ticks) {
  await run(stepPrepare(name, WARMUP));
  const cpu0 = groupCpuSeconds(pgid);
  const r = await run(stepLoop(ticks));
  const cpu1 = groupCpuSeconds(pgid);
  return { wallMs: r.ms, cpuMs: ((cpu1 - cpu0) * 1000) / ticks, digest: r.digest };
}

// In a page of the server's origin with nothing else running (not the demo): the scenario
// stepped `ticks` times after `warmup`, wall time per tick (performance.now() around a loop of
// 100 ms or more, so its coarse resolution does not matter).
const stepPrepare = (name, warmup) => `(async () => {
  const { default: createTandem } = await import('/pkg/tandem.mjs');
  const tandem = window.__stepTandem ??= await createTandem();
  window.__stepScenario = tandem.Scenario.open(${JSON.stringify(name)}).step(${warmup});
  return true;
})()`;
const stepLoop = (ticks) => `(() => {
  const s = window.__stepScenario;
  const t0 = performance.now();
  for (let i = 0; i < ${ticks}; ++i) s.step();
  const ms = (performance.now() - t0) / ${ticks};
  const digest = s.digest();
  s.delete();
  return { ms, digest };
})()`;

// Wall and CPU time per tick of the native CLI on the same ticks: two runs (warmup + ticks,
// and warmup alone) subtracted, which removes process start and world creation.
function nativeSeconds(name, n) {
  const r = execFileSync('bash', ['-c', 'TIMEFORMAT="%R %U %S"; { time "$0" run --game "$3" --scenario "$1" --ticks "$2" --every "$2" >/dev/null; } 2>&1',
    tandemBinary, name, String(n), GAME], { encoding: 'utf8' }).trim().split('\n').at(-1).split(' ').map(Number);
  return { wall: r[0], cpu: r[1] + r[2] };
}
function nativePerTick(name) {
  const whole = nativeSeconds(name, WARMUP + TICKS);
  const head = nativeSeconds(name, WARMUP);
  return { wallMs: ((whole.wall - head.wall) / TICKS) * 1000, cpuMs: ((whole.cpu - head.cpu) / TICKS) * 1000 };
}
function nativeDigest(name) {
  const out = execFileSync(tandemBinary, ['run', '--game', GAME, '--scenario', name, '--ticks', String(WARMUP + TICKS), '--every', String(WARMUP + TICKS)], { encoding: 'utf8' });
  return /digest=([0-9a-f]{16})/.exec(out)[1];
}

// ---- Frames while catching up after a hidden tab ---------------------------------------------

// The session on the main thread (?session=main): in its worker there is nothing to catch up.
async function catchUpFrames(chromium, origin) {
  const page = await openDemo(chromium.context, origin, '?session=main');
  await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 120, null, { timeout: 30_000 });
  const restore = await hideBehindAnotherTab(page);
  await sleep(5000);
  await restore();
  const shownAt = Date.now();
  await page.evaluate(() => window.__tandem.resetFrames());
  const decided = await page.evaluate(() => window.__tandem.figures().session.lastResume);   // the session's own: behindTicks
  // Caught up: the session verified again after the resume and is within a few ticks of the
  // server (a slow page may need further catch-ups on the way; they count too).
  await page.waitForFunction(() => {
    const f = window.__tandem.figures();
    return f.lastResume?.verifiedAfterMs != null && f.lagTicks != null && f.lagTicks <= 6;
  }, null, { timeout: 120_000, polling: 20 });
  const caughtUpMs = Date.now() - shownAt;
  const result = await page.evaluate(() => {
    const f = window.__tandem.figures();
    const gaps = window.__tandem.frameGaps().sort((a, b) => a - b);
    return { later: f.lastResume, catchUps: f.session.catchUps, resyncs: f.session.resyncs, frames: window.__tandem.frames(),
      p99GapMs: gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * 0.99))] ?? null };
  });
  await page.close();
  return { ...result, decided, caughtUpMs };
}

// ---- Hidden 5 s, then shown: to a frame showing a verified tick; frame callbacks while playing --

// The server's input delay (tandem/net/room.hpp, input_delay_ticks): a frame "shows a verified
// tick" when the verified world it draws is at most this far behind the server's newest tick.
const INPUT_DELAY_TICKS = 2;

// Installed in the page before it is hidden: from the visibilitychange to visible, every
// animation frame looks at what the page draws in it (the adapter's view and figures do not
// change within a frame) and records the first whose verified tick is within the input delay
// of the server's tick at that moment: the server's tick as the session knew it when it made
// the view, plus the ticks the room ran since (a worker session's view is as old as its
// message; one from before the tab was hidden is seconds old and fails). A session on the main
// thread is read as it is. Its time from the visibilitychange is the figure.
const RETURN_PROBE = `(() => {
  const adapter = window.__tandem.parts.adapter;
  const inner = adapter.inner ?? adapter;
  const probe = { shownAtMs: null, verifiedFrameMs: null, frames: 0, tick: null, serverTick: null, staleFrames: 0 };
  window.__returnProbe = probe;
  const look = () => {
    probe.frames += 1;
    const now = performance.now();
    const madeAtMs = inner.lastFrame?.sentAtMs ?? now;
    const f = adapter.figures();
    const v = adapter.renderView();
    const shown = v.confirmedTick ?? v.tick;
    const verified = f.verification?.verifiedTick ?? null;
    const server = f.serverTick === null ? null : f.serverTick + Math.floor((now - madeAtMs) * 60 / 1000);
    if (verified !== null && server !== null && Math.min(shown, verified) >= server - ${INPUT_DELAY_TICKS}) {
      probe.verifiedFrameMs = now - probe.shownAtMs;
      probe.tick = shown;
      probe.serverTick = server;
      return;
    }
    probe.staleFrames += 1;
    requestAnimationFrame(look);
  };
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible' || probe.shownAtMs !== null) return;
    probe.shownAtMs = performance.now();
    requestAnimationFrame(look);
  });
  return true;
})()`;
// What the return probe saw, where the session ran, the HUD's line, and (a worker session) the
// absence's facts: resumes decided while away, the session's last resume with the two sides the
// rule weighed, and the longest the worker's own timer waited meanwhile (a starved worker).
const PROBE_RESULT = `(() => {
  const f = window.__tandem.figures();
  return { ...window.__returnProbe, thread: window.__tandem.sessionThread(), line: window.__tandem.resumeText(),
    absence: f.absence ?? null, lastResume: f.lastResume && { ...f.lastResume, behindTicks: f.session?.lastResume?.behindTicks ?? null } };
})()`;
const PLAYING_MS = 5000;
// A worker session's frames: p50 and p99 of their transit (the worker's postMessage to the
// main thread's message event) and of the worker's cost of making one (render view, copy, post).
const TRANSIT = `(() => {
  const a = window.__tandem.parts.adapter;
  const t = (a.inner ?? a).transit;
  if (!t || t.length === 0) return null;
  const q = (xs, p) => { const s = xs.filter((x) => x != null).sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))] : null; };
  return { n: t.length, transitP50: q(t.map((x) => x.transitMs), 0.5), transitP99: q(t.map((x) => x.transitMs), 0.99),
    postP50: q(t.map((x) => x.postMs), 0.5), postP99: q(t.map((x) => x.postMs), 0.99) };
})()`;

async function hiddenReturnChromium(chromium, origin, query, { ms = HIDDEN_MS, how = HIDDEN_HOW } = {}) {
  const page = await openDemo(chromium.context, origin, query);
  await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 120, null, { timeout: 30_000 });
  await page.evaluate(() => window.__tandem.resetFrames());
  const cpu0 = groupCpuSeconds(chromium.pid);
  await sleep(PLAYING_MS);
  const cpu1 = groupCpuSeconds(chromium.pid);
  const playing = await page.evaluate(() => window.__tandem.frames());
  playing.transit = await page.evaluate(TRANSIT);
  playing.cpuShare = (cpu1 - cpu0) / (PLAYING_MS / 1000);
  await page.evaluate(RETURN_PROBE);
  const restore = await (how === 'minimise' ? minimise(page) : hideBehindAnotherTab(page));
  const cpuH0 = groupCpuSeconds(chromium.pid);
  await sleep(ms);
  playing.hiddenCpuShare = (groupCpuSeconds(chromium.pid) - cpuH0) / (ms / 1000);
  await restore();
  await page.waitForFunction(() => window.__returnProbe.verifiedFrameMs !== null, null, { timeout: 120_000, polling: 20 });
  const probe = await page.evaluate(PROBE_RESULT);
  await page.close();
  return { playing, probe };
}

async function hiddenReturnFirefox(firefox, origin, query, { ms = HIDDEN_MS } = {}) {
  const { bidi, tab } = firefox;
  await navigate(bidi, tab, `${origin}/${query}`);
  await waitFor(bidi, tab, '(window.__tandem?.figures()?.verification?.verifiedTicks ?? 0) > 120', 30_000);
  await evaluate(bidi, tab, 'window.__tandem.resetFrames()');
  const cpu0 = groupCpuSeconds(firefox.pid);
  await sleep(PLAYING_MS);
  const cpu1 = groupCpuSeconds(firefox.pid);
  const playing = await evaluate(bidi, tab, 'window.__tandem.frames()');
  playing.transit = await evaluate(bidi, tab, TRANSIT);
  playing.cpuShare = (cpu1 - cpu0) / (PLAYING_MS / 1000);
  await evaluate(bidi, tab, RETURN_PROBE);
  const other = await newTab(bidi);
  await activate(bidi, other);
  await waitFor(bidi, tab, 'document.visibilityState === "hidden"', 5000);
  const cpuH0 = groupCpuSeconds(firefox.pid);
  await sleep(ms);
  playing.hiddenCpuShare = (groupCpuSeconds(firefox.pid) - cpuH0) / (ms / 1000);
  await activate(bidi, tab);
  await bidi.send('browsingContext.close', { context: other });
  await waitFor(bidi, tab, 'window.__returnProbe.verifiedFrameMs !== null', 120_000);
  const probe = await evaluate(bidi, tab, PROBE_RESULT);
  await navigate(bidi, tab, 'about:blank');
  return { playing, probe };
}

// The return floor (--floor with a hidden case): tests/e2e/floor/return.html, a session in a
// worker posting its ticks at a display's rate and a main thread drawing one full-window canvas
// (WebGL where the browser has it), hidden and shown the same way; the same figure, from its own
// probe (the page's), and its frame callback p99 over the play before.
async function hiddenReturnFloorChromium(chromium, origin, { ms, how }) {
  // The browser's own context, as the page's runs (a tab of its window can hide it).
  const page = await chromium.context.newPage();
  await page.goto(`${origin}/return.html`);
  await page.waitForFunction(() => window.__floor?.verifiedTicks() > 120, null, { timeout: 30_000 });
  await page.evaluate(() => window.__floor.resetCallbacks());
  await sleep(PLAYING_MS);
  const callbackP99 = await page.evaluate(() => { window.__floor.armed = true; return window.__floor.callbackP99(); });
  const restore = await (how === 'minimise' ? minimise(page) : hideBehindAnotherTab(page));
  await sleep(ms);
  await restore();
  await page.waitForFunction(() => window.__floor.probe.verifiedFrameMs !== null, null, { timeout: 120_000, polling: 20 });
  const probe = await page.evaluate(() => window.__floor.probe);
  await page.close();
  return { ...probe, callbackP99 };
}

async function hiddenReturnFloorFirefox(firefox, origin, { ms }) {
  const { bidi, tab } = firefox;
  await navigate(bidi, tab, `${origin}/return.html`);
  await waitFor(bidi, tab, 'window.__floor?.verifiedTicks() > 120', 30_000);
  await evaluate(bidi, tab, 'window.__floor.resetCallbacks()');
  await sleep(PLAYING_MS);
  const callbackP99 = await evaluate(bidi, tab, '(() => { window.__floor.armed = true; return window.__floor.callbackP99(); })()');
  const other = await newTab(bidi);
  await activate(bidi, other);
  await waitFor(bidi, tab, 'document.visibilityState === "hidden"', 5000);
  await sleep(ms);
  await activate(bidi, tab);
  await bidi.send('browsingContext.close', { context: other });
  await waitFor(bidi, tab, 'window.__floor.probe.verifiedFrameMs !== null', 120_000);
  const probe = await evaluate(bidi, tab, 'window.__floor.probe');
  await navigate(bidi, tab, 'about:blank');
  return { ...probe, callbackP99 };
}

// ---- Frozen 10 s (Chromium): from resume to verified again -------------------------------------

// Hidden behind another tab and frozen (Page Lifecycle: the worker stops too, the server closes
// the socket), then resumed and shown. The figure is the worker's own: from the page's `resume`
// event to the session live again (a tick verified that was not before, at most 2 ticks behind
// what arrived: session-worker.mjs, absence.verifiedAfterMs). Beside it the first frame after
// the resume drawing a verified tick within the server's input delay (the return probe), the
// session's path and the two sides its rule weighed, and the HUD's line.
async function frozenReturnChromium(chromium, origin, ms) {
  const page = await openDemo(chromium.context, origin);
  await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 120, null, { timeout: 30_000 });
  await page.evaluate(RETURN_PROBE);
  const restore = await hideAndFreeze(page);
  await sleep(ms);
  await restore();
  await page.waitForFunction(() => {
    const a = window.__tandem.figures().absence;
    return a !== null && !a.ongoing && a.verifiedAfterMs !== null && window.__returnProbe.verifiedFrameMs !== null;
  }, null, { timeout: 120_000, polling: 20 });
  const probe = await page.evaluate(PROBE_RESULT);
  await page.close();
  return probe;
}

// ---- Input to screen, 100 ms round trip, predicted (Chromium and Firefox) -----------------------

// Clicks on the demo behind a delaying proxy (50 ms each way), `clicks` each, on three pages in
// turn: the session in its worker, on the main thread (?session=main, the page before the worker),
// and in its worker with the 3D view pinned at full resolution (?full-resolution: where WebGL is
// drawn in software, the page by default lowers its resolution). Click to the first frame drawing
// the own well moved 1 unit toward the point (games/arena/click-latency.mjs).
// Firefox (`firefox` given) clicks the first two: headless, it has no WebGL here, so it draws the
// flat view, at the display's rate.
const LATENCY_PAGES = [['worker', ''], ['main', '&session=main'], ['full', '&full-resolution']];
async function inputToScreen(chromium, server, clicks, pages = LATENCY_PAGES, firefox = null) {
  const proxy = await startDelayProxy({ upstream: `ws://127.0.0.1:${server.port}/ws`, oneWayMs: 50 });
  try {
    const out = {};
    for (const [name, extra] of pages) {
      const query = `?server=${encodeURIComponent(proxy.url)}${extra}`;
      out[name] = await measureClicks(chromium.context, server.origin, query, clicks);
      if (firefox !== null && name !== 'full') out[`firefox ${name}`] = await measureClicksFirefox(firefox, server.origin, query, clicks);
    }
    return out;
  } finally {
    await proxy.close();
  }
}

// Each --baseline's server (TANDEM_BINARY:WEB_DIR[:PACKAGE_DIR]): [label, server], labelled
// "baseline", or "baseline N" when there are several.
async function startBaselines(args) {
  const out = [];
  for (const [i, baseline] of (values.baseline ?? []).entries()) {
    const [binary, web, packageDir] = baseline.split(':');
    const label = values.baseline.length === 1 ? 'baseline' : `baseline ${i + 1}`;
    out.push([label, await startTandemServe({ game: GAME, args, binary, web, ...(packageDir ? { packageDir } : {}) })]);
    console.log(`# ${label}: ${binary} serving ${web}${packageDir ? ` with ${packageDir}` : ''} at ${out.at(-1)[1].origin}`);
  }
  return out;
}

// ---- The issue's table (--only table): each figure, both browsers, median (best) of the runs ---

const table = [];
/** One row of the closing table: a figure per browser (ms values, one per run) and its goal. */
function tableRow(figure, goal, byBrowser) {
  table.push({ figure, goal, byBrowser });
}
function printTable() {
  if (table.length === 0) return;
  const cell = (xs) => (xs === undefined ? 'not measured' : xs.length === 0 ? 'no value' : `${f1(median(xs))} (${f1(best(xs))}), n=${xs.length}`);
  console.log('\n| figure | Chromium, median (best) ms | Firefox, median (best) ms | goal |');
  console.log('|---|---|---|---|');
  for (const { figure, goal, byBrowser } of table) console.log(`| ${figure} | ${cell(byBrowser.chromium)} | ${cell(byBrowser.firefox)} | ${goal} |`);
}
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

// The worker's facts of the absence, when there are some: resumes decided while away, the
// longest wait of its own timer and how many waits were over 250 ms, the last resume's path
// and the rule's two estimates.
function absenceFacts({ absence: a, lastResume: r }) {
  if (!a) return '';
  const timer = a.timer ? `the worker's timer waited at most ${f1(a.timer.longestWaitMs)} ms (${a.timer.stalls} waits over 250 ms)` : '';
  const resume = r ? `; last resume: ${r.path}, ${r.behindTicks ?? '-'} ticks behind, catch-up estimated ${f1(r.catchUpEstimateMs)} ms against a baseline's ${f1(r.baselineEstimateMs)} ms` : '';
  return `${a.kind}: ${a.resumesDuring} resumes while away; ${timer}${resume}; `;
}

// ---- Bytes on the wire per client ------------------------------------------------------------

async function bytesPerClient(chromium, origin, server) {
  const page = await openDemo(chromium.context, origin);
  await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 60, null, { timeout: 30_000 });
  await sleep(2000);
  const a = await server.metrics();
  const t0 = Date.now();
  await sleep(10_000);
  const b = await server.metrics();
  const seconds = (Date.now() - t0) / 1000;
  const page8s = await page.evaluate(() => { const f = window.__tandem.figures(); return { inPerSec: f.bytesInPerSec, outPerSec: f.bytesOutPerSec }; });
  await page.close();
  const d = (k) => (b[k] - a[k]) / seconds;
  return { clients: b.tandem_ws_connections, sentPerSec: d('tandem_ws_bytes_sent_total'), framesSentPerSec: d('tandem_ws_frames_sent_total'),
    receivedPerSec: d('tandem_ws_bytes_received_total'), framesReceivedPerSec: d('tandem_ws_frames_received_total'), page8s };
}

// ---- Page weight -----------------------------------------------------------------------------

async function pageWeight(chromium, origin) {
  const page = await openDemo(chromium.context, origin);
  // The session worker's own loads are in its timeline, not the page's: its one file (its
  // graph and the package, bundled by the wasm build) is named here.
  const urls = await page.evaluate(() => [location.href, new URL('./pkg/session-worker.mjs', location.href).href,
    ...performance.getEntriesByType('resource').map((r) => r.name)]);
  await page.close();
  const groups = {};
  for (const url of new Set(urls)) {
    const path = new URL(url).pathname;
    if (path === '/ws' || path === '/metrics') continue;
    const res = await fetch(url);
    const body = Buffer.from(await res.arrayBuffer());
    const encoding = res.headers.get('content-encoding');
    const group = path.endsWith('.wasm') ? 'wasm' : path.includes('/three/') ? 'three.js' : path === '/' || path.endsWith('.html') ? 'HTML'
      : path.endsWith('.css') ? 'CSS' : path === '/pkg/session-worker.mjs' ? 'JS: the session worker (its graph and the ES module, one file)'
      : path.startsWith('/pkg/') && path !== '/pkg/page.mjs' ? 'JS: the ES module (glue and JS layer)' : path.endsWith('.mjs') || path.endsWith('.js') ? 'JS: the page' : 'other';
    const g = groups[group] ??= { files: 0, raw: 0, gzip: 0, served: 0, encodings: new Set() };
    g.files += 1;
    g.raw += body.length;   // fetch decodes a content-encoding: this is the decoded size
    g.gzip += gzipSync(body, { level: 9 }).length;
    g.served += Number(res.headers.get('content-length') ?? body.length);
    g.encodings.add(encoding ?? 'identity');
  }
  return groups;
}

// ---- Prediction's cost in the page --------------------------------------------------------------

// The predicting page (Chromium, the only browser running) and a second player (a Node client:
// the ES module's ClientSession over ws, tests/e2e/lib/node-player.mjs) both reach the server
// through a proxy delaying every message 50 ms each way. The second player steers every tick,
// so nearly every verified tick contradicts the page's prediction and it rolls back as often as
// it can. The page's own figures are sampled every 4 s after a 10 s settling time:
// re-simulation per frame (p99 over its last 256 frames, and the largest), depth, rollbacks per
// second, budget cuts, resets and why, with the page's frame intervals over the same 4 s.
async function predictionCost(chromium, server, window = null) {
  const proxy = await startDelayProxy({ upstream: `ws://127.0.0.1:${server.port}/ws`, oneWayMs: 50 });
  const query = `?server=${encodeURIComponent(proxy.url)}${window === null ? '' : `&predict-window=${window}`}`;
  let page = null;
  let other = null;
  try {
    other = await startNodePlayer({ url: proxy.url, game: GAME });
    page = await openDemo(chromium.context, server.origin, query);
    await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 30, null, { timeout: 30_000 });
    // The page's frame intervals (requestAnimationFrame to requestAnimationFrame).
    await page.evaluate(() => {
      window.__frameGaps = [];
      let last = performance.now();
      const loop = (t) => { window.__frameGaps.push(t - last); last = t; requestAnimationFrame(loop); };
      requestAnimationFrame(loop);
    });
    await sleep(10_000);
    const samples = [];
    for (let i = 0; i < 5; ++i) {
      await page.evaluate(() => { window.__frameGaps.length = 0; });
      await sleep(4000);
      samples.push(await page.evaluate(() => {
        const f = window.__tandem.figures();
        const gaps = [...window.__frameGaps].sort((a, b) => a - b);
        const q = (x) => gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * x))];
        return { p: f.prediction, mismatches: f.verification.mismatches.length, frames: gaps.length, gapP50: q(0.5), gapP99: q(0.99) };
      }));
    }
    const of = other.figures();
    const mine = await page.evaluate(() => { const a = window.__tandem.parts.adapter; const v = window.__tandem.view(); return { mode: a.mode, label: a.modeLabel, me: v.me, counts: v.counts }; });
    console.log(`# the steering player (Node): ${JSON.stringify({ steers: of.steers, me: of.me, verifiedTicks: of.verification?.verifiedTicks, mismatches: of.session?.mismatches })}; the measured page: ${JSON.stringify(mine)}`);
    return samples;
  } finally {
    await page?.close();
    await other?.close();
    await proxy.close();
  }
}

// `default`, or `window=N` and/or `pellets=N` joined by `+` (--predict-variants).
function predictVariant(name) {
  const variant = { name, window: null, pellets: null };
  if (name === 'default') return variant;
  for (const part of name.split('+')) {
    const match = /^(window|pellets)=(\d+)$/.exec(part);
    if (!match) {
      console.error(`page-figures: --predict-variants takes default, window=N, pellets=N or both joined by +, got ${name}`);
      process.exit(2);
    }
    variant[match[1]] = Number(match[2]);
  }
  return variant;
}

function printPrediction(samples) {
  for (const { p, mismatches, frames, gapP50, gapP99 } of samples) {
    console.log(`  re-sim p99 ${f1(p.resimMsP99)} ms (ticks p99 ${p.resimTicksP99}), max ${f1(p.resimMsMax)} ms; all predicted steps p99 ${f1(p.stepsMsP99)} max ${f1(p.stepsMsMax)} ms; depth ${p.depthTicks} of ${p.targetDepthTicks}; ` +
      `resets ${p.resets} (behind ${p.resetsBehind ?? '-'}, by at most ${p.behindTicksMax ?? '-'} ticks), rollbacks ${p.rollbacks} in all, ${p.rollbacksPerSec}/s, dropped ${p.rollbacksDropped ?? '-'}, ` +
      `re-simulated ticks ${p.resimulatedTicks} in all, catch-up updates max ${p.rollbackUpdatesMax}, budget cuts ${p.budgetCuts}, alarms ${p.monitorAlarms}; digest mismatches ${mismatches}; ` +
      `frames ${frames} in 4 s, interval p50 ${f1(gapP50)} p99 ${f1(gapP99)} ms`);
  }
}

// ---- The run ---------------------------------------------------------------------------------

console.log(`# ${new Date().toISOString()}: ${machine()}`);
console.log(`# CPU model from os.cpus(): ${cpus()[0]?.model}`);
const server = await startTandemServe({ game: GAME });
const chromium = await launchChromium();
// Firefox only for the figures that compare it (the predict figure wants Chromium alone).
const firefox = ['first', 'step', 'hidden', 'hidden5', 'hidden60', 'hidden600'].some((x) => ONLY.has(x)) || (ONLY.has('latency') && GAME === 'arena') ? await launchFirefox() : null;
const chromiumVersion = chromium.browser.version();
console.log(`# Chromium ${chromiumVersion}, Firefox ${firefox?.version ?? '(not started)'}, tandem serve at ${server.origin}`);
try {
  if (ONLY.has('first')) {
    // 1. Navigation to first verified tick, cold (a fresh context or a first load each time),
    // after one untimed load per server: a server's first request for a file is answered as
    // it is while the file is compressed, and a person is rarely a server's first visitor.
    // Each load is a first visit to a room with a free seat: these servers free a closed page's
    // seat at once. With the default resume grace (30 s) every load keeps its seat for a token
    // nobody will use, and a room of 8 seats (ships) is full from the 9th load in 30 s on: that
    // load waited 16 s for a seat, a figure of the harness, not of the page.
    const args = ['--resume-grace', '0'];
    // [label, server, path]
    const servers = [['', await startTandemServe({ game: GAME, args }), '/']];
    for (const [label, baseline] of await startBaselines(args)) servers.push([` (${label})`, baseline, '/']);
    if (values.floor) {
      const floor = await startTandemServe({ game: GAME, args, web: floorDir() });
      servers.push([' (floor: compile, connect, verify; nothing drawn)', floor, '/']);
      servers.push([' (floor with the session in a worker)', floor, '/worker.html']);
    }
    const runs = new Map(servers.map(([label]) => [label, { Chromium: [], Firefox: [] }]));
    for (const [, s, path] of servers) {
      await firstVerifiedChromium(chromium, s.origin, path);
      await firstVerifiedFirefox(firefox, s.origin, path);
    }
    // A second's pause before each load: the previous load's aftermath in the other browser
    // (its socket closing, collection, compiler threads) would otherwise share the two cores
    // with this one.
    for (let r = 0; r < REPEAT; ++r) {
      for (const [label, s, path] of servers) {
        await sleep(1000);
        runs.get(label).Chromium.push(await firstVerifiedChromium(chromium, s.origin, path));
        await sleep(1000);
        runs.get(label).Firefox.push(await firstVerifiedFirefox(firefox, s.origin, path));
      }
    }
    console.log(`# load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    for (const [label, byBrowser] of runs) {
      for (const [name, ms] of Object.entries(byBrowser)) {
        const at = (key) => ms.map((m) => m.marks?.[key] ?? m[key]).filter((x) => x != null);
        // The page's own mark, set in the frame that verified; the poll's time (seen when the
        // main thread was next free) beside it.
        console.log(`navigation -> first verified tick, ${name}${label}: ms ${spread(ms.map((m) => m.marks['first-verified'] ?? m.verifiedMs))}`);
        console.log(`  seen by the test's poll (the figures read every 16 ms): ${spread(ms.map((m) => m.verifiedMs))}`);
        console.log(`  of which DOMContentLoaded ${spread(ms.map((m) => m.domMs))}; module ready ${spread(ms.map((m) => m.readyMs))}`);
        if (at('wasmMs').length) console.log(`  wasm arrived ${spread(at('wasmMs'))}; three.core.js arrived ${at('threeMs').length ? spread(at('threeMs')) : '-'}`);
        // The page's own marks (index.html, and early.mjs and main.mjs in pkg/page.mjs) and the session worker's steps,
        // each on the page's clock, in the order they came.
        const marks = [...new Set(ms.flatMap((m) => Object.keys(m.marks ?? {})))].filter((k) => k !== 'first-verified');
        const steps = [...new Set(ms.flatMap((m) => Object.keys(m.worker ?? {})))];
        const rows = [...marks.map((k) => [`mark ${k}`, at(k)]), ...steps.map((k) => [`worker ${k}`, ms.map((m) => m.worker?.[k]).filter((x) => x != null)])]
          .filter(([, xs]) => xs.length > 0).sort((a, b) => median(a[1]) - median(b[1]));
        for (const [name, xs] of rows) console.log(`  ${name} ${spread(xs)}`);
        console.log(`  bytes on the wire (transferSize) ${spread(ms.map((m) => m.transferBytes), (x) => x.toFixed(0))}; bodies ${ms[0].bodyBytes} B`);
      }
    }
    for (const s of new Set(servers.map(([, x]) => x))) await s.close();
    const demo = runs.get('');
    tableRow('navigation to first verified tick (the worker verified it)', '≤ 250 ms Chromium, ≤ 150 ms Firefox',
      { chromium: demo.Chromium.map((m) => m.marks['first-verified']), firefox: demo.Firefox.map((m) => m.marks['first-verified']) });
    tableRow('navigation to the first frame drawing a verified tick', '',
      { chromium: demo.Chromium.map((m) => m.marks['first-verified-drawn']), firefox: demo.Firefox.map((m) => m.marks['first-verified-drawn']) });
  }

  if (ONLY.has('step')) {
    // 2. Step cost: native, Chromium page, Firefox page and native again, in each repeat.
    const cpage = await chromium.context.newPage();
    await cpage.goto(`${server.origin}/healthz`);
    await navigate(firefox.bidi, firefox.tab, `${server.origin}/healthz`);
    const inChromium = (expression) => cpage.evaluate(expression);
    const inFirefox = (expression) => evaluate(firefox.bidi, firefox.tab, expression);
    for (const name of STEP_SCENARIOS) {
      const runs = { native: { wall: [], cpu: [] }, chromium: { wall: [], cpu: [] }, firefox: { wall: [], cpu: [] } };
      // Each repeat's browser CPU over the mean of the native runs just before and after it:
      // the host's speed drifts by more than the goal's margin from one minute to the next, and
      // a ratio within one repeat cancels what the drift does to both sides.
      const paired = { chromium: { wall: [], cpu: [] }, firefox: { wall: [], cpu: [] } };
      const digests = new Set([nativeDigest(name)]);
      for (let r = 0; r < REPEAT; ++r) {
        const before = nativePerTick(name);
        const c = await pageStep(inChromium, chromium.pid, name, TICKS);
        const x = await pageStep(inFirefox, firefox.pid, name, TICKS);
        const after = nativePerTick(name);
        for (const [who, m] of [['chromium', c], ['firefox', x], ['native', before], ['native', after]]) {
          runs[who].wall.push(m.wallMs);
          runs[who].cpu.push(m.cpuMs);
        }
        for (const [who, m] of [['chromium', c], ['firefox', x]]) {
          paired[who].cpu.push(m.cpuMs / ((before.cpuMs + after.cpuMs) / 2));
          paired[who].wall.push(m.wallMs / ((before.wallMs + after.wallMs) / 2));
        }
        digests.add(c.digest).add(x.digest);
      }
      console.log(`step ${name} (ticks ${WARMUP + 1}..${WARMUP + TICKS}), ms per tick:`);
      for (const who of ['native', 'chromium', 'firefox']) {
        console.log(`  ${who.padEnd(9)} CPU ${spread(runs[who].cpu, f3)}; wall ${spread(runs[who].wall, f3)}`);
        if (who === 'native') continue;
        console.log(`            CPU ratio to native: best ${(best(runs[who].cpu) / best(runs.native.cpu)).toFixed(2)}x, ` +
          `median ${(median(runs[who].cpu) / median(runs.native.cpu)).toFixed(2)}x; wall ratio: best ${(best(runs[who].wall) / best(runs.native.wall)).toFixed(2)}x`);
        const times = (v) => `${v.toFixed(2)}x`;
        console.log(`            CPU ratio within each repeat (native just before and after): ${spread(paired[who].cpu, times)}`);
        console.log(`            wall ratio within each repeat: ${spread(paired[who].wall, times)}`);
      }
      console.log(`  same final digest everywhere: ${digests.size === 1 ? 'yes' : `NO (${[...digests].join(' ')})`}`);
    }
    await cpage.close();
    await navigate(firefox.bidi, firefox.tab, 'about:blank');
  }

  if (ONLY.has('catchup')) {
    // 3. Frames while catching up after 5 s behind another tab (Chromium: a hidden tab draws nothing).
    for (let r = 0; r < Math.min(REPEAT, 3); ++r) {
      const c = await catchUpFrames(chromium, server.origin);
      const later = Math.abs(c.later.awayMs - (c.decided?.awayMs ?? NaN)) < 1e-6 ? '' : `; the last resume by then: ${c.later.path} after ${f1(c.later.awayMs)} ms`;
      console.log(`catch-up after 5 s hidden: decided ${c.decided?.path} (${c.decided?.behindTicks} ticks behind), within 6 ticks of the server ${c.caughtUpMs} ms after shown${later}; ` +
        `frames ${c.frames.frames}, work p50 ${f1(c.frames.p50WorkMs)} p99 ${f1(c.frames.p99WorkMs)} max ${f1(c.frames.maxWorkMs)} ms, simulation max ${f1(c.frames.maxAdvanceMs)} ms, gap p99 ${f1(c.p99GapMs)} ms`);
    }
  }

  if (ONLY.has('hidden')) {
    // 3b. Hidden 5 s behind another tab, then shown: the session in its worker (the default)
    // and on the main thread (?session=main) alternately, in both browsers; and the main
    // thread's frame callbacks over the 5 s of play before it.
    const variants = [['worker', ''], ['main', '?session=main']].filter(([name]) => HIDDEN_THREADS.includes(name));
    const results = {};
    for (let r = 0; r < REPEAT; ++r) {
      for (const [name, query] of variants) {
        for (const browser of HIDDEN_BROWSERS) {
          const m = browser === 'chromium' ? await hiddenReturnChromium(chromium, server.origin, query) : await hiddenReturnFirefox(firefox, server.origin, query);
          (results[`${browser} ${name}`] ??= []).push(m);
          console.log(`hidden ${HIDDEN_MS / 1000} s (${HIDDEN_HOW}), ${browser}, session on the ${m.probe.thread} thread: a verified frame ${f1(m.probe.verifiedFrameMs)} ms after shown ` +
            `(${m.probe.frames} frames, ${m.probe.staleFrames} of them drawing an older view; tick ${m.probe.tick}, server's ${m.probe.serverTick}); HUD: ${m.probe.line}; ` +
            `${absenceFacts(m.probe)}playing: ${m.playing.frames} frames, callback p50 ${f1(m.playing.p50WorkMs)} p99 ${f1(m.playing.p99WorkMs)} max ${f1(m.playing.maxWorkMs)} ms` +
            (m.playing.transit ? `; worker frames: transit p50 ${f3(m.playing.transit.transitP50)} p99 ${f3(m.playing.transit.transitP99)} ms, ` +
              `made and posted in p50 ${f3(m.playing.transit.postP50)} p99 ${f3(m.playing.transit.postP99)} ms` : '') +
            `; the browser's CPU: ${f1(m.playing.cpuShare * 100)}% of a core playing, ${f1(m.playing.hiddenCpuShare * 100)}% hidden` +
            `; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
        }
      }
    }
    for (const [key, ms] of Object.entries(results)) {
      console.log(`summary ${key}: shown to a verified frame ${spread(ms.map((m) => m.probe.verifiedFrameMs))} ms; ` +
        `frame callback p99 while playing ${spread(ms.map((m) => m.playing.p99WorkMs))} ms; ` +
        `browser CPU (% of a core) playing ${spread(ms.map((m) => m.playing.cpuShare * 100))}, hidden ${spread(ms.map((m) => m.playing.hiddenCpuShare * 100))}`);
    }
  }

  // The issue's table, beyond navigation (which `first` measured): each case run REPEAT times
  // (the 10-minute one LONG_REPEAT times), the session in its worker, the load printed with each.
  const hiddenCases = [['hidden5', 'hidden 5 s behind another tab', 5000, 'tab', ['chromium', 'firefox']],
    ['minimised', 'minimised 5 s', 5000, 'minimise', ['chromium']],
    ['hidden60', 'hidden 60 s behind another tab', 60_000, 'tab', ['chromium', 'firefox']]];
  // --floor: the return floor (return.html) before each run of the page, the same case in the same browser.
  let floorServer = null;
  const returnFloor = async () => (floorServer ??= await startTandemServe({ game: GAME, web: floorDir() }));
  const floorRun = async (browser, ms, how) => {
    const origin = (await returnFloor()).origin;
    return browser === 'chromium' ? hiddenReturnFloorChromium(chromium, origin, { ms, how }) : hiddenReturnFloorFirefox(firefox, origin, { ms });
  };
  const floorLine = (what, browser, p) => console.log(`${what}, ${browser}, the return floor (drawing with ${p.drawing}): a verified frame ${f1(p.verifiedFrameMs)} ms after shown ` +
    `(${p.frames} frames, ${p.staleFrames} drawing an older tick); frame callback p99 while playing ${f1(p.callbackP99)} ms; load ${load()}`);
  for (const [name, what, ms, how, browsers] of hiddenCases) {
    if (!ONLY.has(name)) continue;
    const byBrowser = { chromium: [], firefox: [] };
    const floorByBrowser = { chromium: [], firefox: [] };
    const floorPlaying = { chromium: [], firefox: [] };
    const playing = { chromium: [], firefox: [] };
    for (let r = 0; r < REPEAT; ++r) {
      for (const browser of browsers) {
        if (values.floor) {
          const p = await floorRun(browser, ms, how);
          floorByBrowser[browser].push(p.verifiedFrameMs);
          floorPlaying[browser].push(p.callbackP99);
          floorLine(what, browser, p);
        }
        const m = browser === 'chromium' ? await hiddenReturnChromium(chromium, server.origin, '', { ms, how }) : await hiddenReturnFirefox(firefox, server.origin, '', { ms });
        byBrowser[browser].push(m.probe.verifiedFrameMs);
        playing[browser].push(m.playing.p99WorkMs);
        console.log(`${what}, ${browser}: a verified frame ${f1(m.probe.verifiedFrameMs)} ms after shown (${m.probe.frames} frames, ${m.probe.staleFrames} drawing an older view); ` +
          `HUD: ${m.probe.line}; ${absenceFacts(m.probe)}playing before: callback p50 ${f1(m.playing.p50WorkMs)} p99 ${f1(m.playing.p99WorkMs)} ms ` +
          `(p99 of its parts: advance ${f1(m.playing.p99AdvanceMs)}, draw ${f1(m.playing.p99DrawMs)}, HUD ${f1(m.playing.p99HudMs)}; ${m.playing.frames} frames in 5 s); load ${load()}`);
      }
    }
    if (how === 'minimise') { delete byBrowser.firefox; delete floorByBrowser.firefox; }
    tableRow(`${what}: from shown to a frame showing a verified tick`, '≤ 50 ms', byBrowser);
    if (values.floor) tableRow(`the same, the return floor (a worker's session and one canvas)`, '', floorByBrowser);
    if (name === 'hidden5') tableRow('main-thread frame callback p99 while playing (5 s before each hidden 5 s)', '≤ 8 ms', playing);
    if (name === 'hidden5' && values.floor) tableRow('the same, the return floor (its callback: a clear and a triangle)', '', floorPlaying);
  }

  if (ONLY.has('frozen')) {
    const runs = [];
    const frames = [];
    for (let r = 0; r < REPEAT; ++r) {
      const m = await frozenReturnChromium(chromium, server.origin, 10_000);
      runs.push(m.absence.verifiedAfterMs);
      frames.push(m.verifiedFrameMs);
      console.log(`frozen 10 s, chromium: verified again ${f1(m.absence.verifiedAfterMs)} ms after the resume (reconnected: ${m.absence.reconnected}, the new socket open ${f1(m.absence.reopenedAfterMs)} ms after the resume); ` +
        `a frame showing a verified tick ${f1(m.verifiedFrameMs)} ms after shown; HUD: ${m.line}; ${absenceFacts(m)}load ${load()}`);
    }
    tableRow('frozen 10 s (Chromium only: no freeze in Firefox): from resume to verified again', '≤ 250 ms', { chromium: runs });
    tableRow('frozen 10 s: from shown to a frame showing a verified tick', '', { chromium: frames });
  }

  if (ONLY.has('latency') && GAME !== 'arena') {
    // A click that steers is the arena's input; another game's is its own latency test.
    console.log(`# input to screen: the arena's figure (a click); ${GAME}'s is (cd tests/e2e && TANDEM_E2E_LATENCY_SAMPLES=20 node --test games/${GAME}/latency.test.mjs)`);
  } else if (ONLY.has('latency')) {
    const times = Object.fromEntries([...LATENCY_PAGES.map(([name]) => [name, []]), ['firefox worker', []], ['firefox main', []]]);
    // Each --baseline's page, the session in its worker (Chromium and Firefox), after this build's pages in each round.
    const baselines = (await startBaselines([])).map(([label, baseline]) => ({ label, server: baseline, times: [], firefoxTimes: [] }));
    // A build before dynamic-resolution.mjs reports no resolution.
    const drawnAs = (d) => (d.kind !== 'webgl' ? `the ${d.kind} view` : d.resolution === undefined ? 'the 3D view' : `the 3D view at ${d.resolution * 100}% resolution`);
    const page = { worker: 'session on the worker thread', main: 'session on the main thread', full: 'session on the worker thread, ?full-resolution',
      'firefox worker': 'Firefox, session on the worker thread', 'firefox main': 'Firefox, session on the main thread' };
    for (let r = 0; r < Math.ceil(REPEAT / 9); ++r) {
      const m = await inputToScreen(chromium, server, CLICKS, LATENCY_PAGES, firefox);
      for (const name of Object.keys(m)) {
        times[name].push(...m[name].times);
        console.log(`input to screen, 100 ms round trip, predicted, ${page[name]}: click to the first frame drawing the own well moved ` +
          `median ${f1(median(m[name].times))} ms (${m[name].times.map(f1).join(' ')}); ${drawnAs(m[name].drawn)}; load ${load()}`);
      }
      for (const b of baselines) {
        const m = await inputToScreen(chromium, b.server, CLICKS, [LATENCY_PAGES[0]], firefox);
        b.times.push(...m.worker.times);
        if (m['firefox worker']) b.firefoxTimes.push(...m['firefox worker'].times);
        for (const [name, browser] of [['worker', ''], ['firefox worker', 'Firefox, ']]) {
          if (!m[name]) continue;
          console.log(`input to screen, ${b.label}, ${browser}session on the worker thread: median ${f1(median(m[name].times))} ms (${m[name].times.map(f1).join(' ')}); ${drawnAs(m[name].drawn)}; load ${load()}`);
        }
      }
    }
    for (const b of baselines) await b.server.close();
    tableRow('input to screen, own well, 100 ms RTT, predicted: session in its worker (per click)', 'no worse than 98 ms (the main thread\'s, before the worker)', { chromium: times.worker, firefox: times['firefox worker'] });
    tableRow('the same, session on the main thread (?session=main), same sitting', '', { chromium: times.main, firefox: times['firefox main'] });
    tableRow('the same, session in its worker, the 3D view at full resolution (?full-resolution), same sitting', '', { chromium: times.full });
    for (const b of baselines) tableRow(`the same, ${b.label}, session in its worker, same sitting`, '', { chromium: b.times, firefox: b.firefoxTimes });
  }

  if (ONLY.has('hidden600')) {
    // Ten minutes behind another tab, Chromium and Firefox at once (a hidden tab costs a fifth
    // of a core), Firefox's 30 s later so the two returns do not meet.
    const byBrowser = { chromium: [], firefox: [] };
    for (let r = 0; r < LONG_REPEAT; ++r) {
      const [c, x] = await Promise.all([
        hiddenReturnChromium(chromium, server.origin, '', { ms: 600_000, how: 'tab' }),
        sleep(30_000).then(() => hiddenReturnFirefox(firefox, server.origin, '', { ms: 600_000 })),
      ]);
      for (const [browser, m] of [['chromium', c], ['firefox', x]]) {
        byBrowser[browser].push(m.probe.verifiedFrameMs);
        console.log(`hidden 10 min behind another tab, ${browser}: a verified frame ${f1(m.probe.verifiedFrameMs)} ms after shown (${m.probe.frames} frames, ${m.probe.staleFrames} drawing an older view); ` +
          `HUD: ${m.probe.line}; ${absenceFacts(m.probe)}the browser's CPU hidden ${f1(m.playing.hiddenCpuShare * 100)}% of a core; load ${load()}`);
      }
    }
    tableRow('hidden 10 min behind another tab: from shown to a frame showing a verified tick', '≤ 50 ms', byBrowser);
    if (values.floor) {
      const floorByBrowser = { chromium: [], firefox: [] };
      for (let r = 0; r < LONG_REPEAT; ++r) {
        const [c, x] = await Promise.all([floorRun('chromium', 600_000, 'tab'), sleep(30_000).then(() => floorRun('firefox', 600_000, 'tab'))]);
        for (const [browser, p] of [['chromium', c], ['firefox', x]]) {
          floorByBrowser[browser].push(p.verifiedFrameMs);
          floorLine('hidden 10 min behind another tab', browser, p);
        }
      }
      tableRow('the same, the return floor (a worker\'s session and one canvas)', '', floorByBrowser);
    }
  }

  await floorServer?.close();

  if (ONLY.has('bytes')) {
    // 4. Bytes on the wire for one client (the server's only one), over 10 s.
    const bytes = await bytesPerClient(chromium, server.origin, server);
    console.log(`bytes per client per second (server counters over 10 s, ${bytes.clients} client): sent ${f1(bytes.sentPerSec)} B/s in ${f1(bytes.framesSentPerSec)} messages/s, ` +
      `received ${f1(bytes.receivedPerSec)} B/s in ${f1(bytes.framesReceivedPerSec)} messages/s; the page's 8 s figures: in ${bytes.page8s.inPerSec} B/s, out ${bytes.page8s.outPerSec} B/s`);
  }

  if (ONLY.has('predict')) {
    // 6. Re-simulation per frame of a predicting page, another player steering every frame.
    const packages = values['predict-packages']?.split(',') ?? [null];
    for (let round = 0; round < ROUNDS; ++round) {
      for (const pkg of packages) {
        for (const variant of PREDICT_VARIANTS) {
          const own = pkg !== null || variant.pellets !== null;
          const s = own ? await startTandemServe({ game: GAME, ...(pkg === null ? {} : { packageDir: pkg }), args: variant.pellets === null ? [] : ['--pellets', String(variant.pellets)] }) : server;
          const samples = await predictionCost(chromium, s, variant.window);
          if (own) await s.close();
          const named = [pkg === null ? null : `package ${pkg}`, variant.name === 'default' ? null : variant.name, ROUNDS > 1 ? `round ${round + 1}` : null].filter((x) => x !== null);
          console.log(`prediction in Chromium${named.length ? ` (${named.join(', ')})` : ''}, 100 ms round trip, another player (Node) steering every tick; ` +
            `samples every 4 s after 10 s (load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}):`);
          printPrediction(samples);
        }
      }
    }
  }

  if (ONLY.has('weight')) {
    // 5. Page weight.
    const groups = await pageWeight(chromium, server.origin);
    let raw = 0;
    let gzip = 0;
    for (const [group, g] of Object.entries(groups)) {
      raw += g.raw;
      gzip += g.gzip;
      console.log(`weight ${group}: ${g.files} files, ${g.raw} B raw (served ${g.served} B, ${[...g.encodings].join('/')}), ${g.gzip} B gzip -9`);
    }
    console.log(`weight total: ${raw} B raw, ${gzip} B gzip -9`);
  }
} finally {
  await firefox?.close();
  await chromium.close();
  await server.close();
}
printTable();
console.log(`# load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
