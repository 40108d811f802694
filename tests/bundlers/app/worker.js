// The package in a dedicated module worker, as the demo page runs its session: the worker is
// bundled from `new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })` in
// main.js, imports the package by its name and posts the digests of one scenario.
import createTandem from 'tandem-arena';

createTandem().then(
  (tandem) => self.postMessage({ stream: tandem.runScenario('trig', 200, 100) }),
  (error) => self.postMessage({ error: String(error?.stack ?? error) }),
);
