// What a wasm target computes for the determinism check, as plain functions of a loaded
// tandem module: one file, imported unchanged by the Node target (node-target.mjs) and by the
// browser page (page/index.html), so the three wasm rows run exactly the same code.
//
// Tasks (the check sends them one at a time; each resolves to a JSON-able result):
//   {kind:'hello', game}                 -> {fingerprint, version, engine, visibility}
//   {kind:'stream', game, scenario, ticks} -> {digests: [d0, d1, ... dN]}   (index = tick)
//       (optional pace: 'slice' (default) or 'timeout', the old pacing, for browser-speed.mjs)
//   {kind:'dump', game, scenario, tick}  -> {dump, sections, digest}
// `game` is the package's game (each game is its own package; default 'arena'), reached through
// the one game-agnostic surface, tandem.game; a task for another game is refused.
//   {kind:'twin', scenario, ticks}       -> {digests: [...]}  (the float twin, a separate .wasm)
// progress(done, total) is called at every yield; the runner yields to the event loop after
// each SLICE_MS of computing, so a page can post progress while it computes.
//
// How it yields decides what a long run in a browser costs. A timer (setTimeout(0)) after each
// chunk of ticks, the old way, is throttled by the browsers: nested timers are clamped to 4 ms,
// and a timer whose callback ran for seconds of stepping spends the page's background timer
// budget, after which its next timer waits (Chromium, Firefox), so the page sat idle between
// chunks. A message on a MessageChannel (setImmediate in Node) is not a timer: no clamp, no
// budget. And yielding by time rather than by tick count keeps both the number of yields and
// the latency of progress independent of how heavy a tick is.

const SLICE_MS = 100;
const CHUNK = 64;   // the old pacing: ticks between yields
const clock = () => (globalThis.performance ? performance.now() : Date.now());
const yieldByTimer = () => new Promise((resolve) => setTimeout(resolve, 0));
const yieldByMessage = (() => {
  if (typeof setImmediate === 'function') return () => new Promise((resolve) => setImmediate(resolve));
  const channel = new MessageChannel();
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return () => new Promise((resolve) => { waiting.push(resolve); channel.port2.postMessage(0); });
})();

// Calls progress and yields every SLICE_MS (pace 'slice') or every CHUNK ticks by a timer
// (pace 'timeout'); returns tick(done) to call after each unit of work.
function pacer(total, progress, pace = 'slice') {
  let last = clock();
  let sinceYield = 0;
  return async (done) => {
    if (pace === 'timeout') {
      if (++sinceYield < CHUNK && done < total) return;
      sinceYield = 0;
      progress(done, total);
      await yieldByTimer();
      return;
    }
    if (clock() - last < SLICE_MS && done < total) return;
    progress(done, total);
    await yieldByMessage();
    last = clock();
  };
}

// The float twin: a standalone .wasm (float_twin.cpp built by em++ -sSTANDALONE_WASM) with
// no import but WASI proc_exit, which it never calls.
export async function loadTwin(bytes) {
  const imports = { wasi_snapshot_preview1: { proc_exit: (code) => { throw new Error(`float twin exited ${code}`); } } };
  const { instance } = await WebAssembly.instantiate(bytes, imports);
  const e = instance.exports;
  if (typeof e._initialize === 'function') e._initialize();
  return e;
}

const TWIN_SCENARIOS = ['orbits', 'crowd', 'chaos', 'trig'];
const hex8 = (v) => (v >>> 0).toString(16).padStart(8, '0');

export function makeRunner({ tandem, twin = null, engine = 'unknown' }) {
  const gameOf = (name) => {
    if ((name ?? 'arena') !== tandem.game.name) throw new Error(`this package is ${tandem.game.name}'s, not ${name}'s`);
    return tandem.game;
  };
  async function stream({ game, scenario, ticks, pace }, progress) {
    const g = gameOf(game);
    const s = g.openScenario(scenario);
    const digests = new Array(ticks + 1);
    const tick = pacer(ticks, progress, pace);
    try {
      digests[0] = s.digest();
      for (let t = 1; t <= ticks; ++t) {
        s.step(1);
        digests[t] = s.digest();
        await tick(t);
      }
    } finally {
      s.delete();
    }
    // The documented one-call API must give the same stream as stepping: checked on a prefix
    // (cheap) so a difference between the two paths cannot hide behind the per-tick loop.
    const prefix = Math.min(ticks, 32);
    const direct = g.runScenario(scenario, prefix, 1);
    const byTick = new Map(direct.map((e) => [e.tick, e.digest]));
    for (let t = 1; t <= prefix; ++t) {
      if (byTick.get(t) !== digests[t]) {
        throw new Error(`game('${g.name}').runScenario('${scenario}', ${prefix}, 1) disagrees with openScenario().step at tick ${t}: ${byTick.get(t)} vs ${digests[t]}`);
      }
    }
    return { digests };
  }

  async function dump({ game, scenario, tick }, progress) {
    const s = gameOf(game).openScenario(scenario);
    try {
      const next = pacer(tick, progress);
      for (let t = 1; t <= tick; ++t) {
        s.step(1);
        await next(t);
      }
      return { dump: s.dump(), sections: s.sectionDigests(), digest: s.digest() };
    } finally {
      s.delete();
    }
  }

  async function twinStream({ scenario, ticks }, progress) {
    if (!twin) throw new Error('no float twin loaded');
    const index = TWIN_SCENARIOS.indexOf(scenario);
    if (index < 0 || !twin.twin_start(index)) throw new Error(`float twin has no scenario '${scenario}'`);
    const digest = () => hex8(twin.twin_digest_hi()) + hex8(twin.twin_digest_lo());
    const digests = new Array(ticks + 1);
    digests[0] = digest();
    const tick = pacer(ticks, progress);
    for (let t = 1; t <= ticks; ++t) {
      twin.twin_step();
      digests[t] = digest();
      await tick(t);
    }
    return { digests };
  }

  return async function run(task, progress = () => {}) {
    switch (task.kind) {
      case 'hello':
        return { fingerprint: gameOf(task.game).fingerprint, version: tandem.version, engine, twin: twin !== null,
          visibility: globalThis.document?.visibilityState ?? 'no document' };
      case 'stream': return stream(task, progress);
      case 'dump': return dump(task, progress);
      case 'twin': return twinStream(task, progress);
      default: throw new Error(`unknown task kind '${task.kind}'`);
    }
  };
}
