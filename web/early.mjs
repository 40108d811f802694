// The page's first work, run as soon as it and its three imports arrive (index.html loads it
// async, ahead of the rest of the module graph): reads the URL's options and takes over the
// session worker index.html's first script started (its socket was opening while the graph
// loaded and the .wasm compiled). main.mjs imports this same instance; it never runs twice.
import { EarlySessionWorker } from './adapters/worker-session.mjs';
import { parseOptions } from './options.mjs';
import { Transport } from './transport.mjs';

/**
 * The server's socket, opened before the module is ready when the URL leaves the server session
 * a possible choice (no ?scenario, no ?offline): the handshake then overlaps the module's
 * download and compilation instead of following it. Null when no socket will be wanted.
 * By default the socket is the session worker's (index.html started it, or for a URL its script
 * left undecided it is started here through the same function); with ?session=main it is this
 * thread's, and a worker index.html started is stopped.
 * @param {ReturnType<typeof parseOptions>} options
 */
export function openEarlySocket(options) {
  const started = window.tandemSessionWorker ?? null;
  const wantsServer = options.scenario === null && !options.offline;
  if (wantsServer && options.sessionThread === 'worker' && typeof Worker === 'function') {
    return new EarlySessionWorker(started ?? window.tandemStartSessionWorker());
  }
  started?.worker.terminate();
  if (!wantsServer) return null;
  const transport = new Transport(options.serverUrl);
  transport.start();
  return transport;
}

performance.mark('tandem:early-ran');
export const options = parseOptions(location.search, location);
export const early = openEarlySocket(options);
