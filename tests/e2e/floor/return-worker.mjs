// The worker of the return floor (return.html): the package, the socket and a session advanced
// at a display's rate, each advance's ticks posted to the page (nothing else: no render view).
// Times go to the page on its clock (each side has its own time origin).
import { openSession } from './session.mjs';

let toPage = 0;
self.onmessage = async ({ data }) => {
  toPage = performance.timeOrigin - data.timeOrigin;
  const { session, flush } = await openSession(data.module);
  setInterval(() => {
    session.advance(performance.now(), 8);
    flush();
    const f = session.figures();
    self.postMessage({ tick: f.tick, serverTick: f.serverTick, verifiedTick: f.verification?.verifiedTick ?? null,
      verifiedTicks: f.verification?.verifiedTicks ?? 0, sentAtMs: performance.now() + toPage });
  }, 1000 / 60);
};
