// The page's first work, run as the page's code starts (main.mjs imports it; the wasm build
// bundles both into pkg/page.mjs): reads the URL's options and takes over the session worker
// index.html's first script started (its socket was opening while the page's code loaded and
// the .wasm compiled), or opens the socket itself for a session on this thread.
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
