// The main thread's side of the server session that runs in a dedicated worker
// (session-worker.mjs: the socket, the ClientSession, its prediction, timestep and resume
// decisions). The page calls this adapter as it called the in-page one (adapters/README.md):
// advance() asks the worker for a frame without waiting, renderView() and figures() return the
// newest the worker sent (the answer, or a frame the worker's own clock made since; its column
// arrays transferred, not copied; the view at its alpha of now), sendInput() and the lifecycle
// are posted as they happen.
// Nothing here decides anything: it moves messages.

// Before the worker's first frame: what the HUD and the renderers show for a session that has
// no world yet (the shapes of web/README.md).
const EMPTY_VIEW = Object.freeze({
  hasWorld: false, tick: 0, alpha: 0, predicted: false, confirmedTick: null, me: null, current: null, previous: null, events: [],
});

/**
 * A view the worker made at `view.madeAtMs`, drawn at `nowMs` (both on this thread's clock): its
 * alpha then. Alpha grows with the time since the last step, tickHz / 1000 a millisecond, until 1
 * (the drawn tick itself), as the session's own does; so a view that waited for this thread's
 * next frame is drawn where that frame's time is, never past the tick it holds.
 */
export function alphaAt(view, nowMs) {
  if (view.madeAtMs == null || !(view.tickHz > 0)) return view.alpha;
  return Math.min(1, view.alpha + (Math.max(0, nowMs - view.madeAtMs) * view.tickHz) / 1000);
}

function startingFigures(connection) {
  return {
    me: null, tick: null, serverTick: null, lagTicks: null,
    verification: { verifiedTick: null, verifiedTicks: 0, mismatches: [] },
    rttMs: null, bytesInPerSec: null, bytesOutPerSec: null, droppedMs: 0, stepCostMs: null,
    lastResume: null, error: null, prediction: null, absence: null, connection,
  };
}

/**
 * The session worker, started by index.html's first script (window.tandemStartSessionWorker):
 * its socket is open already, and it is handed the .wasm the page compiles. This handle keeps
 * what the worker says until the adapter listens.
 */
export class EarlySessionWorker {
  kind = 'worker';
  worker;
  #listener = null;
  #early;

  /** @param {{worker: Worker, said: object[]}} started the worker and what it said so far */
  constructor({ worker, said }) {
    this.worker = worker;
    this.#early = said;
    worker.onmessage = (event) => this.#deliver(event.data);
    worker.onerror = (event) => this.#deliver({ t: 'failed', message: event.message || 'the session worker failed to load' });
  }

  get attached() { return this.#listener !== null; }

  listen(fn) {
    this.#listener = fn;
    for (const m of this.#early.splice(0)) fn(m);
  }

  #deliver(m) {
    if (this.#listener === null) this.#early.push(m);
    else this.#listener(m);
  }

  post(message, transfer = []) { this.worker.postMessage(message, transfer); }

  /** The session is not wanted (?offline chosen later, the page failed): close its socket. */
  stop(code = 1000, reason = '') {
    this.worker.postMessage({ t: 'stop', code, reason });
    setTimeout(() => this.worker.terminate(), 2000);
  }
}

export class WorkerSessionAdapter {
  mode;
  modeLabel;
  actions;
  #early;
  #view = EMPTY_VIEW;
  #figures;
  #frameInFlight = false;
  #nextId = 1;
  #results = new Map();
  #failure = null;
  // The newest frame's arrival and what the worker measured (tests and page-figures read them).
  lastFrame = { receivedAtMs: null, sentAtMs: null, advanceWorkMs: null };
  // The last 600 frames' transit (worker's post to this thread's message event) and the
  // worker's cost of making and posting them, in ms (page-figures reads them).
  transit = [];

  /**
   * @param {EarlySessionWorker} early
   * @param {{serverUrl: string, watch: boolean, debug: boolean}} options
   */
  constructor(early, { serverUrl, watch, debug }) {
    this.#early = early;
    this.mode = watch ? 'watch' : 'play';
    this.modeLabel = watch ? `Watching the room at ${serverUrl}` : `Playing in the room at ${serverUrl}`;
    this.#figures = startingFigures({ state: 'connecting', label: 'connecting', everOpened: false, opens: 0 });
    const ask = (name) => () => this.#ask(name);
    this.actions = {
      checkAgainstNative: ask('checkAgainstNative'),
      downloadReplay: ask('downloadReplay'),
      corrupt: debug ? ask('corrupt') : undefined,
    };
    early.listen((m) => this.#receive(m));
  }

  #receive(m) {
    switch (m.t) {
      case 'ready':
        this.modeLabel = m.modeLabel;
        break;
      case 'frame':
        // One request at a time; the worker's own frames (while this page draws) come between.
        if (m.asked) this.#frameInFlight = false;
        if (m.view !== null) this.#view = m.view;
        if (m.figures !== null) this.#figures = m.figures;
        this.lastFrame = { receivedAtMs: performance.now(), sentAtMs: m.sentAtMs, advanceWorkMs: m.figures?.worker.advanceWorkMs ?? null };
        if (m.sentAtMs != null) {
          this.transit.push({ atMs: this.lastFrame.receivedAtMs, transitMs: this.lastFrame.receivedAtMs - m.sentAtMs, postMs: m.figures?.worker.lastFramePostMs ?? null });
          if (this.transit.length > 600) this.transit.shift();
        }
        break;
      case 'result': {
        const waiter = this.#results.get(m.id);
        this.#results.delete(m.id);
        if (waiter === undefined) break;
        if (m.error !== undefined) waiter.reject(new Error(m.error));
        else waiter.resolve(m.value);
        break;
      }
      case 'failed':
        // The worker could not run the session (its module did not load, a call threw): the
        // page says so, as for a main-thread failure.
        this.#failure = m;
        this.#figures = { ...this.#figures, connection: { ...this.#figures.connection, state: 'failed', label: 'session failed' },
          error: { code: 'session_failed', message: `The session stopped: ${m.message}` } };
        console.error('tandem: the session worker failed', m.message, m.stack);
        break;
      default:
        break;
    }
  }

  #ask(name, t = 'action') {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#results.set(id, { resolve, reject });
      this.#early.post({ t, id, name });
    });
  }

  /** The worker's figures now, without a frame (null before its module is ready): tests read a hidden page's session with it. */
  probe() { return this.#ask(null, 'probe'); }

  /**
   * Asks the worker for the next frame; the answer is drawn when it has arrived. The frame's
   * simulation budget is not the worker's: it steps on its own thread by its own rule.
   */
  advance() {
    if (this.#frameInFlight || this.#failure !== null) return;
    this.#frameInFlight = true;
    this.#early.post({ t: 'frame' });
  }

  /** Nothing of a page frame's time: the worker budgets its own advances (tandem.workerBudgetMs). */
  frameBudgetMs() { return 0; }

  /** The page's lifecycle as it is (hidden, frozen, in the back-forward cache): the worker keeps running while only hidden. */
  onLifecycle(nowMs, away) {
    this.#early.post({ t: 'lifecycle', atMs: nowMs, away });
    // Shown again: ask for a frame now, so the first one drawn is today's world and not the
    // one from before the absence (the next animation frame comes a few ms later).
    if (!away.hidden && !away.frozen && !away.unloaded) this.advance();
  }
  onSuspend(nowMs) { this.onLifecycle(nowMs, { hidden: false, frozen: true, unloaded: false }); }
  onResume(nowMs) { this.onLifecycle(nowMs, { hidden: false, frozen: false, unloaded: false }); }

  /** The person's input, as the plugin's view reads it (the worker makes the game's command of it). */
  sendInput(input) { this.#early.post({ t: 'input', input }); }

  renderView() {
    const alpha = alphaAt(this.#view, performance.now());
    return alpha === this.#view.alpha ? this.#view : { ...this.#view, alpha };
  }

  /** When the worker verified its first tick, on this thread's clock (null before). */
  get firstVerifiedAtMs() { return this.#figures.worker?.firstVerifiedAtMs ?? null; }

  figures() { return { ...this.#figures, mode: this.mode, modeLabel: this.modeLabel }; }

  dispose() { this.#early.stop(1000, 'page closed'); }
}
