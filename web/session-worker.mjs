// The dedicated module worker that hosts the server session: the WebSocket (transport.mjs),
// the module's ClientSession (C++ in wasm) with its predicted client, the timestep and the
// resume decisions, through the same SessionAdapter the page used on its main thread. The main
// thread only draws, reads input and shows the HUD (adapters/worker-session.mjs is its side).
// A hidden tab's workers are not throttled like its frames, so this session goes on receiving,
// stepping, verifying and acking while the tab is away; on return there is nothing to catch up.
//
// It decides nothing itself: every decision is the session's. It calls advance() on its own
// clock (a timer at the tick rate, and each time the page asks for a frame), forwards the
// page's steers and lifecycle, and keeps the facts of the latest absence for the HUD.
import { SessionAdapter } from './adapters/session.mjs';
import { frameBudgetMs, SIMULATION_BUDGET_MS } from './frame-loop.mjs';
import { Transport } from './transport.mjs';

const TICK_MS = 1000 / 60;
// The worker's own advance runs when the page has not asked for a frame for this long (a
// hidden tab draws none, a busy main thread few): the session keeps the tick rate regardless.
const OWN_ADVANCE_AFTER_MS = TICK_MS / 2;
// While the page is drawing (it asked for a frame this recently), each advance of the worker's
// own is posted to it as well: a main thread busy between its frames (software WebGL: 50 ms)
// then draws a view made just before it was free, not the one it asked for a frame earlier.
const DRAWING_MS = 250;

let options = null;
let transport = null;
let adapter = null;
let mainTimeOrigin = performance.timeOrigin;
let lastAdvanceMs = null;
let advanceCalls = 0;
let advanceWorkMs = 0;
let firstVerifiedAtMs = null;
let lastFramePostMs = null;
let lastFrameAskedMs = -Infinity;
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
      case 'steer': adapter?.steer(m.point); break;
      case 'lifecycle': lifecycle(fromMain(m.atMs), m.away); break;
      case 'action': action(m); break;
      case 'stop': stop(m); break;
      default: break;
    }
  } catch (error) {
    fail(error);
  }
};

function start(m) {
  options = m.options;
  mainTimeOrigin = m.timeOrigin;
  // The socket first: its handshake overlaps the module's loading (what arrives meanwhile
  // waits, bounded, in the transport and reaches the session in order).
  transport = new Transport(options.serverUrl);
  transport.start();
}

async function load(compiled) {
  // Import maps do not reach workers: the package by its path beside the page (index.html's
  // import map names the same file for the main thread).
  const { default: createTandem } = await import('./pkg/tandem.mjs');
  const tandem = await createTandem(compiled ? { wasmModule: compiled } : {});
  if (stopped) return;
  if (typeof tandem.ClientSession !== 'function') throw new Error('this build of the module has no client session');
  adapter = new SessionAdapter(tandem, options, transport);
  lastAdvanceMs = performance.now();
  post({ t: 'ready', mode: adapter.mode, modeLabel: adapter.modeLabel, predicts: tandem.ClientSession.predicts !== false });
  // The session's own clock, which does not stop with the page's frames.
  setInterval(ownAdvance, TICK_MS);
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
  const gap = nowMs - lastAdvanceMs;
  if (gap < OWN_ADVANCE_AFTER_MS) return;
  const figures = advance(nowMs, frameBudgetMs(SIMULATION_BUDGET_MS, gap));
  // Hidden, the page asks for nothing, but it keeps the newest view: its first frame when shown
  // again then draws the world as it is, instead of the one from before it was hidden (in
  // Chromium the next frame can come a few hundred ms after that first one).
  if (nowMs - lastFrameAskedMs <= DRAWING_MS || (away.hidden && !suspended)) postFrame(figures, false);
}

// The page asks for what to draw: advance to now, then the render view and the figures.
function frame(m) {
  if (adapter === null) {
    post({ t: 'frame', asked: true, view: null, figures: null });
    return;
  }
  const nowMs = performance.now();
  lastFrameAskedMs = nowMs;
  postFrame(advance(nowMs, m.budgetMs), true);
}

// The render view and the figures to the page. The pellet arrays are copied out of wasm memory
// and their buffers transferred (not copied again). `asked`: the answer to a frame request.
function postFrame(figures, asked) {
  const viewStart = performance.now();
  const v = adapter.renderView();
  const current = v.pellets.current.slice();
  const previous = v.pellets.previous === null ? null : v.pellets.previous.slice();
  const view = { ...v, pellets: { current, previous } };
  figures.absence = absence;
  // The last frame's cost of rendering the view, copying it out and posting it, for page-figures.
  figures.worker = { advanceCalls, advanceWorkMs, firstVerifiedAtMs: toMain(firstVerifiedAtMs), suspended, lastFramePostMs };
  const transfer = [current.buffer];
  if (previous !== null) transfer.push(previous.buffer);
  post({ t: 'frame', asked, view, figures, sentAtMs: toMain(performance.now()) }, transfer);
  lastFramePostMs = performance.now() - viewStart;
}

// The figures as they are now, without advancing (the tests read a hidden page's session:
// its frames, and so its frame requests, have stopped).
function probe(m) {
  const figures = adapter === null ? null : adapter.figures();
  if (figures !== null) {
    figures.absence = absence;
    figures.worker = { advanceCalls, advanceWorkMs, firstVerifiedAtMs: toMain(firstVerifiedAtMs), suspended };
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
    };
  }
  if (stopsWorker && !suspended) {
    suspended = true;
    adapter.onSuspend(atMs);
    if (absence !== null) absence.kind = away.frozen ? 'frozen' : 'suspended';
  } else if (!stopsWorker && suspended) {
    suspended = false;
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
  if ((f.connection.opens ?? 0) > a.opensAtStart) a.reconnected = true;
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
