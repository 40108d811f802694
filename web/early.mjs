// The page's first work, run as soon as it and its three imports arrive (index.html loads it
// async, ahead of the rest of the module graph): reads the URL's options and starts the session
// worker, which opens the server's socket, so the handshake overlaps the graph's loading and the wasm's compilation. main.mjs
// imports this same instance; it never runs twice.
import { EarlySessionWorker } from './adapters/worker-session.mjs';
import { parseOptions } from './options.mjs';
import { Transport } from './transport.mjs';

/**
 * The server's socket, opened before the module is ready when the URL leaves the server session
 * a possible choice (no ?scenario, no ?offline): the handshake then overlaps the module's
 * download and compilation instead of following it. Null when no socket will be wanted.
 * By default the socket is the session worker's (started here: the worker opens it at once and
 * is handed the .wasm index.html is compiling); with ?session=main it is this thread's.
 * @param {ReturnType<typeof parseOptions>} options
 */
export function openEarlySocket(options) {
  if (options.scenario !== null || options.offline) return null;
  if (options.sessionThread === 'worker' && typeof Worker === 'function') return new EarlySessionWorker(options, window.tandemWasm);
  const transport = new Transport(options.serverUrl);
  transport.start();
  return transport;
}

export const options = parseOptions(location.search, location);
export const early = openEarlySocket(options);
