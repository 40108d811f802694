// The worker of the start-up floor (worker.html): the package, the socket and the session, and
// nothing else. Times go to the page on its clock (each side has its own time origin).
import { openSession } from './session.mjs';

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
  const { session, flush, socket } = await openSession(compiled ?? new Promise((resolve) => { waiting = resolve; }));
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
