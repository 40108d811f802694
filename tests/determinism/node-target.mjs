// The Node target of the determinism check: a child process (so its computing never stalls
// the check's HTTP server or progress bar) that loads the wasm package exactly as a user
// does, `await createTandem()` with no options, and answers tasks read as JSON lines on
// stdin with JSON lines on stdout: {id, progress: [done, total]}, {id, result} or {id, error}.
// usage: node node-target.mjs PACKAGE_DIR [FLOAT_TWIN_WASM]
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { loadTwin, makeRunner } from './lib/wasm-tasks.mjs';

const [packageDir, twinPath] = process.argv.slice(2);
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');

let run;
try {
  const { default: createTandem } = await import(pathToFileURL(join(packageDir, 'tandem.node.mjs')).href);
  const tandem = await createTandem();
  const twin = twinPath ? await loadTwin(await readFile(twinPath)) : null;
  run = makeRunner({ tandem, twin, engine: `node ${process.version}` });
  send({ ready: true });
} catch (error) {
  send({ ready: false, error: String(error?.stack ?? error) });
  process.exit(1);
}

// One task at a time, in arrival order.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const task = JSON.parse(line);
  queue = queue.then(async () => {
    try {
      const result = await run(task, (done, total) => send({ id: task.id, progress: [done, total] }));
      send({ id: task.id, result });
    } catch (error) {
      send({ id: task.id, error: String(error?.stack ?? error) });
    }
  });
}).on('close', () => queue.then(() => process.exit(0)));
