// The worker of the start-up floor (worker.html): the package, the socket and the session, and
// nothing else. Times go to the page on its clock (each side has its own time origin).
import createTandem from './pkg/tandem.mjs';

const scriptMs = performance.now();
let toPage = 0;
let compiled = null;
let waiting = null;
self.onmessage = ({ data }) => {
  if (data.timeOrigin !== undefined) {
    toPage = performance.timeOrigin - data.timeOrigin;
    self.postMessage({ scriptMs: scriptMs + toPage });
    start();
  } else {
    compiled = data.module;
    waiting?.(compiled);
  }
};

async function start() {
  const socket = new WebSocket(new URL('./ws', location.href.replace(/^http/, 'ws')));
  socket.binaryType = 'arraybuffer';
  const early = [];
  socket.onopen = () => early.push(['open', performance.now()]);
  socket.onmessage = (event) => early.push(['message', performance.now(), new Uint8Array(event.data)]);
  const module = compiled ?? await new Promise((resolve) => { waiting = resolve; });
  const tandem = await createTandem({ wasmModule: module });
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
  const timer = setInterval(() => {
    session.advance(performance.now(), 8);
    flush();
    const { verification } = session.figures();
    if ((verification?.verifiedTicks ?? 0) === 0) return;
    clearInterval(timer);
    self.postMessage({ verifiedMs: performance.now() + toPage, verification });
    socket.close(1000);
  }, 4);
}
