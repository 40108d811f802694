// The floor workers' session (worker.mjs, return-worker.mjs): the server's socket opened at
// once, what it says kept until the module is ready, then one ClientSession fed in order.
// flush() sends what the session has to send.
import createTandem from './pkg/tandem.mjs';

/** @param {WebAssembly.Module | null | Promise<WebAssembly.Module | null>} module the compiled .wasm (null: fetch it) */
export async function openSession(module) {
  const socket = new WebSocket(new URL('./ws', location.href.replace(/^http/, 'ws')));
  socket.binaryType = 'arraybuffer';
  const early = [];
  socket.onopen = () => early.push(['open', performance.now()]);
  socket.onmessage = (event) => early.push(['message', performance.now(), new Uint8Array(event.data)]);
  const compiled = await module;
  const tandem = await createTandem(compiled ? { wasmModule: compiled } : {});
  const session = new tandem.ClientSession({ nowMs: performance.now() });
  const flush = () => { for (const bytes of session.takeOutgoing()) socket.send(bytes); };
  const on = ([kind, nowMs, bytes]) => {
    if (kind === 'open') session.onConnected(nowMs);
    else session.receive(bytes, nowMs);
    flush();
  };
  early.forEach(on);
  socket.onopen = () => on(['open', performance.now()]);
  socket.onmessage = (event) => on(['message', performance.now(), new Uint8Array(event.data)]);
  return { session, flush, socket };
}
