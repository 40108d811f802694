// What a wasm target computes for the determinism check, as plain functions of a loaded
// tandem module: one file, imported unchanged by the Node target (node-target.mjs) and by the
// browser page (page/index.html), so the three wasm rows run exactly the same code.
//
// Tasks (the check sends them one at a time; each resolves to a JSON-able result):
//   {kind:'hello'}                       -> {fingerprint, version, engine}
//   {kind:'stream', scenario, ticks}     -> {digests: [d0, d1, ... dN]}   (index = tick)
//   {kind:'dump', scenario, tick}        -> {dump, sections, digest}
//   {kind:'twin', scenario, ticks}       -> {digests: [...]}  (the float twin, a separate .wasm)
// progress(done, total) is called every chunk; the runner yields to the event loop between
// chunks so a page can report progress while it computes.

const CHUNK = 64;
const yieldNow = () => new Promise((resolve) => setTimeout(resolve, 0));

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
  async function stream({ scenario, ticks }, progress) {
    const s = tandem.Scenario.open(scenario);
    const digests = new Array(ticks + 1);
    try {
      digests[0] = s.digest();
      for (let t = 1; t <= ticks; ) {
        const end = Math.min(ticks, t + CHUNK - 1);
        for (; t <= end; ++t) {
          s.step(1);
          digests[t] = s.digest();
        }
        progress(end, ticks);
        await yieldNow();
      }
    } finally {
      s.delete();
    }
    // The documented one-call API must give the same stream as stepping: checked on a prefix
    // (cheap) so a difference between the two paths cannot hide behind the per-tick loop.
    const prefix = Math.min(ticks, 32);
    const direct = tandem.runScenario(scenario, prefix, 1);
    const byTick = new Map(direct.map((e) => [e.tick, e.digest]));
    for (let t = 1; t <= prefix; ++t) {
      if (byTick.get(t) !== digests[t]) {
        throw new Error(`runScenario('${scenario}', ${prefix}, 1) disagrees with Scenario.step at tick ${t}: ${byTick.get(t)} vs ${digests[t]}`);
      }
    }
    return { digests };
  }

  async function dump({ scenario, tick }, progress) {
    const s = tandem.Scenario.open(scenario);
    try {
      for (let t = 0; t < tick; t += CHUNK) {
        s.step(Math.min(CHUNK, tick - t));
        progress(Math.min(tick, t + CHUNK), tick);
        await yieldNow();
      }
      const world = s.world;
      return { dump: world.dump(), sections: world.sectionDigests(), digest: s.digest() };
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
    for (let t = 1; t <= ticks; ) {
      const end = Math.min(ticks, t + CHUNK - 1);
      for (; t <= end; ++t) {
        twin.twin_step();
        digests[t] = digest();
      }
      progress(end, ticks);
      await yieldNow();
    }
    return { digests };
  }

  return async function run(task, progress = () => {}) {
    switch (task.kind) {
      case 'hello':
        return { fingerprint: tandem.fingerprint, version: tandem.version, engine, twin: twin !== null };
      case 'stream': return stream(task, progress);
      case 'dump': return dump(task, progress);
      case 'twin': return twinStream(task, progress);
      default: throw new Error(`unknown task kind '${task.kind}'`);
    }
  };
}
