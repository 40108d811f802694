// The dedicated module worker that hosts the server session: the WebSocket (transport.mjs),
// the module's ClientSession (C++ in wasm) with its predicted client, the timestep and the
// resume decisions, through the same SessionAdapter the page uses on its main thread with
// ?session=main. The main thread only draws, reads input and shows the HUD
// (adapters/worker-session.mjs is its side). It names no game: the package served at pkg/ is
// the server's game, and that game's plugin manifest says what to draw.
// A hidden tab's workers are not throttled like its frames, so this session goes on receiving,
// stepping, verifying and acking while the tab is away; on return there is nothing to catch up.
//
// It decides nothing itself: every decision is the session's. It calls advance() on its own
// clock (a timer at a display's frame rate, and each time the page asks for a frame), forwards the
// page's inputs and lifecycle, and keeps the facts of the latest absence for the HUD.
//
// The page starts this worker from pkg/session-worker.mjs, which the wasm build makes: this file
// and its whole static graph, the package's own modules included, bundled into one (a module
// worker fetches its imports level by level; build-scripts/cmake/TandemPageBundles.cmake).
// Built without esbuild, that file only imports this one, which then loads as written: so
// every module of this graph is imported here directly, all fetched at once instead of level by
// level (a worker has no modulepreload; tests/e2e/web-units checks the list against the graph).
// Import maps do not reach workers: the package by its path beside the page (index.html's import
// map names the same file for the main thread). URLs of the page's own (the game's plugin) are
// resolved against the page's, which it sends, since this file's URL depends on how it loaded.
import createTandem from './pkg/tandem.mjs';
import { gameName } from './pkg/game.mjs';
import './pkg/tandem-wasm.mjs';
import './pkg/net.mjs';
import './pkg/checks.mjs';
import { SessionAdapter } from './adapters/session.mjs';
import './adapters/driver.mjs';
import { parseOptions } from './options.mjs';
import { Transport } from './transport.mjs';

// The worker's own clock: 60 times a second, a display's frame rate, whatever the game's tick
// rate (an advance applies whatever is due). Its own advance runs when the page has not asked
// for a frame for this long (a hidden tab draws none, a busy main thread few): the session
// keeps the tick rate regardless.
const OWN_MS = 1000 / 60;
const OWN_ADVANCE_AFTER_MS = OWN_MS / 2;
// While the page is drawing (it asked for a frame this recently), each advance of the worker's
// own is posted to it as well: a main thread busy between its frames (software WebGL: 50 ms)
// then draws a view made just before it was free, not the one it asked for a frame earlier.
const DRAWING_MS = 250;
// Until the first tick verifies, the worker also advances this often: the first verified tick
// then waits for its frame from the server, not for the worker's next display frame.
const STARTUP_MS = 4;

// What to draw and how the person's input becomes the game's command: the game's plugin manifest
// (data and pure functions; its view loads on the main thread). The package names its game, so
// the manifest loads while the .wasm is handed over and instantiated, not after (from start(),
// the page's first message, which says where the page is).
let pluginLoading = null;

// When each step of the start-up happened (this worker's clock; posted on the page's): page-figures
// reads them to say what the first verified tick waited for.
const startup = { scriptMs: performance.now(), startMs: null, wasmMs: null, instantiatedMs: null, pluginMs: null, readyMs: null };

let options = null;
let transport = null;
let adapter = null;
let drawable = false;   // the plugin's view is set: the worker renders views and takes input
let tandem = null;
let mainTimeOrigin = performance.timeOrigin;
let lastAdvanceMs = null;
let advanceCalls = 0;
let advanceWorkMs = 0;
let firstVerifiedAtMs = null;
let lastFramePostMs = null;
let lastFrameAskedMs = -Infinity;
// The worker's own clock as it ran: its longest wait between two timer callbacks, and how many
// waits were over STALL_MS, since the start and during the latest absence (a machine that
// starves the worker shows here, beside the session's resumes).
const STALL_MS = 250;
let lastTimerMs = null;
const timer = { longestWaitMs: 0, stalls: 0 };
let stopped = false;
// The page's lifecycle as the main thread last reported it, and the latest absence's facts.
let away = { hidden: false, frozen: false, unloaded: false };
let suspended = false;
let absence = null;

// Times crossing threads are the sender's performance.now(); each side has its own origin.
const fromMain = (ms) => ms + mainTimeOrigin - performance.timeOrigin;
const toMain = (ms) => (ms === null ? null : ms + performance.timeOrigin - mainTimeOrigin);

self.onmessage = (event) => {
  const m = event.data;
  try {
    switch (m.t) {
      case 'start': start(m); break;
      case 'wasm': load(m.module).catch(fail); break;
      case 'frame': frame(m); break;
      case 'probe': probe(m); break;
      case 'input': input(m.input); break;
      case 'lifecycle': lifecycle(fromMain(m.atMs), m.away); break;
      case 'action': action(m); break;
      case 'stop': stop(m); break;
      default: break;
    }
  } catch (error) {
    fail(error);
  }
};

// The page's URL (its query, protocol and host): the options are parsed here as on the page.
function start(m) {
  startup.startMs = performance.now();
  options = parseOptions(m.search, m.page);
  mainTimeOrigin = m.timeOrigin;
  pluginLoading = import(new URL(`games/${gameName}/plugin.mjs`, m.page.base).href);
  // The socket first: its handshake overlaps the module's loading (what arrives meanwhile
  // waits, bounded, in the transport and reaches the session in order).
  transport = new Transport(options.serverUrl);
  transport.start();
}

async function load(compiled) {
  startup.wasmMs = performance.now();
  tandem = await createTandem(compiled ? { wasmModule: compiled } : {});
  startup.instantiatedMs = performance.now();
  if (stopped) return;
  // The session starts now, before the game's plugin has arrived: its hello goes out (at once,
  // or when the socket opens) and it joins and verifies meanwhile; only drawing and input wait
  // for the plugin.
  adapter = new SessionAdapter(tandem, options, null, transport);
  startup.readyMs = performance.now();
  lastAdvanceMs = performance.now();
  // The session's own clock, which does not stop with the page's frames.
  setInterval(ownAdvance, OWN_MS);
  const startupClock = setInterval(() => {
    if (firstVerifiedAtMs !== null || stopped) {
      clearInterval(startupClock);
      return;
    }
    const nowMs = performance.now();
    if (nowMs - lastAdvanceMs >= STARTUP_MS) advance(nowMs, tandem.workerBudgetMs(nowMs - lastAdvanceMs));
  }, STARTUP_MS);
  const plugin = await pluginLoading;
  startup.pluginMs = performance.now();
  if (stopped) return;
  adapter.usePlugin(plugin);
  drawable = true;
  post({ t: 'ready', mode: adapter.mode, modeLabel: adapter.modeLabel, game: tandem.game.name });
}

function advance(nowMs, budgetMs) {
  const start = performance.now();
  adapter.advance(nowMs, budgetMs);
  advanceWorkMs = performance.now() - start;
  advanceCalls += 1;
  lastAdvanceMs = nowMs;
  const f = adapter.figures();
  if (firstVerifiedAtMs === null && f.verification?.verifiedTicks > 0) firstVerifiedAtMs = performance.now();
  observe(f, nowMs);
  return f;
}

function ownAdvance() {
  if (adapter === null || stopped) return;
  const nowMs = performance.now();
  if (lastTimerMs !== null && !suspended) noteTimerWait(nowMs - lastTimerMs);
  lastTimerMs = nowMs;
  const gap = nowMs - lastAdvanceMs;
  if (gap < OWN_ADVANCE_AFTER_MS) return;
  const figures = advance(nowMs, tandem.workerBudgetMs(gap));
  // Hidden, the page asks for nothing, but it keeps the newest view: its first frame when shown
  // again then draws the world as it is, instead of the one from before it was hidden (in
  // Chromium the next frame can come a few hundred ms after that first one).
  // A page that asked within the last display frame draws at the display's rate and asks again
  // soon: a view of its own would only be one more message to decode on its main thread.
  const sinceAskedMs = nowMs - lastFrameAskedMs;
  if (drawable && ((sinceAskedMs > OWN_MS && sinceAskedMs <= DRAWING_MS) || (away.hidden && !suspended))) postFrame(figures, false);
}

function noteTimerWait(waitMs) {
  for (const t of absence?.ongoing ? [timer, absence.timer] : [timer]) {
    t.longestWaitMs = Math.max(t.longestWaitMs, waitMs);
    if (waitMs > STALL_MS) t.stalls += 1;
  }
}

// The person's input (the plugin's, from the page). While the page draws, the session advances at
// once and the view that shows the input (the predicted world re-simulated with it) is posted:
// waiting for the next frame request or tick would add up to a frame to every click's way to the
// screen.
function input(value) {
  if (!drawable) return;
  adapter.sendInput(value);
  const nowMs = performance.now();
  if (nowMs - lastFrameAskedMs <= DRAWING_MS && !(away.hidden || suspended)) postFrame(advance(nowMs, tandem.workerBudgetMs(nowMs - lastAdvanceMs)), false);
}

// The page asks for what to draw: advance to now, then the render view and the figures.
function frame(m) {
  if (!drawable) {
    post({ t: 'frame', asked: true, view: null, figures: null });
    return;
  }
  const nowMs = performance.now();
  lastFrameAskedMs = nowMs;
  postFrame(advance(nowMs, tandem.workerBudgetMs(nowMs - lastAdvanceMs)), true);
}

// The render view and the figures to the page. The columns are copied out of wasm memory and
// their buffers transferred (not copied again). `asked`: the answer to a frame request.
function postFrame(figures, asked) {
  const viewStart = performance.now();
  const v = adapter.renderView(viewStart);
  const transfer = [];
  // madeAtMs: the page draws the view at its alpha of the draw time (adapters/worker-session.mjs).
  const view = { ...v, madeAtMs: toMain(viewStart), current: copyColumns(v.current, transfer), previous: copyColumns(v.previous, transfer) };
  figures.absence = absence;
  // The last frame's cost of rendering the view, copying it out and posting it, for page-figures.
  figures.worker = { advanceCalls, advanceWorkMs, firstVerifiedAtMs: toMain(firstVerifiedAtMs), suspended, lastFramePostMs, startup: startupOnMain(), timer };
  post({ t: 'frame', asked, view, figures, sentAtMs: toMain(performance.now()) }, transfer);
  lastFramePostMs = performance.now() - viewStart;
}

// A state's columns (views into wasm memory, valid until the next call into the module) as
// fresh arrays whose buffers go to `transfer`.
function copyColumns(columns, transfer) {
  if (columns === null) return null;
  const lists = {};
  for (const [name, { count, columns: cols }] of Object.entries(columns.lists)) {
    const copied = {};
    for (const [field, array] of Object.entries(cols)) {
      copied[field] = array.slice();
      transfer.push(copied[field].buffer);
    }
    lists[name] = { count, columns: copied };
  }
  return { lists, scalars: columns.scalars };
}

// The start-up's steps on the page's clock, with the socket's first open and first message.
function startupOnMain() {
  const steps = { ...startup, socketOpenMs: transport?.firstOpenAtMs ?? null, firstMessageMs: transport?.firstMessageAtMs ?? null };
  return Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, toMain(v)]));
}

// The figures as they are now, without advancing (the tests read a hidden page's session:
// its frames, and so its frame requests, have stopped).
function probe(m) {
  const figures = adapter === null ? null : adapter.figures();
  if (figures !== null) {
    figures.absence = absence;
    figures.worker = { advanceCalls, advanceWorkMs, firstVerifiedAtMs: toMain(firstVerifiedAtMs), suspended, startup: startupOnMain(), timer };
  }
  post({ t: 'result', id: m.id, value: figures });
}

// The page's lifecycle. Hidden is not an absence for this session (it keeps running); frozen
// or in the back-forward cache, the worker stops too, and the session is told so it weighs
// catch-up against a baseline on return (its resume rule, in C++).
function lifecycle(atMs, next) {
  const wasAway = away.hidden || away.frozen || away.unloaded;
  away = next;
  const isAway = away.hidden || away.frozen || away.unloaded;
  const stopsWorker = away.frozen || away.unloaded;
  if (adapter === null) return;
  const f = adapter.figures();
  if (!wasAway && isAway) {
    absence = {
      kind: 'hidden', awayMs: null, ongoing: true, startedAtMs: toMain(atMs),
      verifiedAtStart: f.verification.verifiedTicks, verifiedWhileAway: 0,
      resumesAtStart: f.session.catchUps + f.session.resyncs, resumesDuring: 0,
      opensAtStart: f.connection.opens ?? 0, reconnected: false,
      baselinesAtResume: null, resyncedSince: false, verifiedAfterMs: null, resumedAtMs: null,
      timer: { longestWaitMs: 0, stalls: 0 }, reopenedAfterMs: null,
    };
  }
  if (stopsWorker && !suspended) {
    suspended = true;
    adapter.onSuspend(atMs);
    if (absence !== null) absence.kind = away.frozen ? 'frozen' : 'suspended';
  } else if (!stopsWorker && suspended) {
    suspended = false;
    lastTimerMs = null;   // the freeze is not a wait of the worker's clock
    adapter.onResume(atMs);
    if (absence !== null) {
      absence.resumedAtMs = toMain(atMs);
      absence.baselinesAtResume = adapter.figures().session.baselines;
    }
  }
  if (wasAway && !isAway && absence !== null) {
    absence.ongoing = false;
    absence.awayMs = toMain(atMs) - absence.startedAtMs;
    absence.returnedAtMs = toMain(atMs);
    absence.lagOnReturn = f.lagTicks;
    if (absence.resumedAtMs === null) absence.resumedAtMs = absence.returnedAtMs;
  }
  observe(adapter.figures(), performance.now());
}

// Facts of the latest absence as they come: ticks verified while away (before any freeze),
// resumes the session decided, a reconnection, a resync, and when it verified again after a
// resume (a tick verified that was not before, while at most 2 ticks behind what arrived).
function observe(f, nowMs) {
  const a = absence;
  if (a === null) return;
  if (!suspended && a.resumedAtMs === null) {
    a.verifiedWhileAway = f.verification.verifiedTicks - a.verifiedAtStart;
    a.resumesDuring = f.session.catchUps + f.session.resyncs - a.resumesAtStart;
  }
  if ((f.connection.opens ?? 0) > a.opensAtStart && !a.reconnected) {
    a.reconnected = true;
    // When the new socket opened, after the resume (page-figures: the reconnection's share of a resume).
    if (a.resumedAtMs !== null && transport?.lastOpenAtMs != null) a.reopenedAfterMs = toMain(transport.lastOpenAtMs) - a.resumedAtMs;
  }
  if (a.baselinesAtResume !== null && f.session.baselines > a.baselinesAtResume) a.resyncedSince = true;
  if (a.resumedAtMs !== null && a.verifiedAfterMs === null && a.kind !== 'hidden' && !suspended) {
    const r = f.lastResume;
    const settled = r !== null && r.verifiedAfterMs !== null && r.path !== 'idle';
    const live = f.session.connected && f.verification.verifiedTicks > 0 && f.lagTicks !== null && f.lagTicks <= 2 &&
      (a.resyncedSince || f.verification.verifiedTicks > a.verifiedAtStart + a.verifiedWhileAway);
    if (settled || live) a.verifiedAfterMs = toMain(nowMs) - a.resumedAtMs;
  }
}

async function action(m) {
  try {
    if (adapter === null) throw new Error('the session has not started yet');
    const run = adapter.actions[m.name];
    if (typeof run !== 'function') throw new Error(`no action ${m.name}`);
    const value = await run();
    post({ t: 'result', id: m.id, value }, value?.bytes instanceof Uint8Array ? [value.bytes.buffer] : []);
  } catch (error) {
    post({ t: 'result', id: m.id, error: String(error?.message ?? error) });
  }
}

function stop(m) {
  stopped = true;
  if (adapter !== null) adapter.dispose();
  else transport?.stop(m.code ?? 1000, m.reason ?? '');
  self.close();
}

function fail(error) {
  post({ t: 'failed', message: String(error?.message ?? error), stack: String(error?.stack ?? '') });
}

function post(message, transfer = []) {
  self.postMessage(message, transfer);
}
