// The app a user writes: the package imported by its name, no options, bundled by Vite or
// esbuild. It runs the module and posts what it computed to the test's server (/result).
import createTandem, { InputError } from 'tandem-arena';

// Scenarios and ticks the test compares with the golden streams (every 100th tick).
const RUNS = { orbits: 200, chaos: 200, trig: 200 };

async function main() {
  const tandem = await createTandem();
  const streams = {};
  for (const [name, ticks] of Object.entries(RUNS)) streams[name] = tandem.runScenario(name, ticks, 100);

  // A world stepped with input bytes, snapshotted and restored; a refused record.
  const world = new tandem.World({ seed: 3, pelletCount: 64 });
  const join = tandem.encodeInputs([{ player: 1, kind: 'join', command: { target: { x: 1 << 24, y: 1 << 24 } } }]);
  world.step(join).step();
  const restored = tandem.World.fromSnapshot(world.snapshot());
  let refusal = null;
  try {
    world.step(join.subarray(0, 5));
  } catch (error) {
    refusal = { isInputError: error instanceof InputError, code: error.code };
  }
  // The same package in a module worker: its URL must survive bundling, and so must the
  // .wasm the worker's copy of the package fetches.
  const inWorker = await new Promise((resolve) => {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => resolve({ error: `the worker did not run: ${event.message ?? 'no message'}` });
  });
  return {
    version: tandem.version,
    worker: inWorker,
    fingerprint: tandem.fingerprint,
    streams,
    restored: restored.digest() === world.digest() && restored.tick === 2,
    refusal,
    wasm: performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname).filter((p) => p.endsWith('.wasm')),
  };
}

const report = (body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) });
main().then(report, (error) => report({ error: String(error?.stack ?? error) }));
