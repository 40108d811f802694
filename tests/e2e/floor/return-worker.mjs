// The worker of the return floor (return.html): the package, the socket and a session advanced
// at a display's rate, each advance's ticks posted to the page (nothing else: no render view).
// Times go to the page on its clock (each side has its own time origin).
import createTandem from './pkg/tandem.mjs';

let toPage = 0;
self.onmessage = async ({ data }) => {
  toPage = performance.timeOrigin - data.timeOrigin;
  const socket = new WebSocket(new URL('./ws', location.href.replace(/^http/, 'ws')));
  socket.binaryType = 'arraybuffer';
  const early = [];
  socket.onopen = () => early.push(['open', performance.now()]);
  socket.onmessage = (event) => early.push(['message', performance.now(), new Uint8Array(event.data)]);
  const tandem = await createTandem(data.module ? { wasmModule: data.module } : {});
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
  setInterval(() => {
    session.advance(performance.now(), 8);
    flush();
    const f = session.figures();
    self.postMessage({ tick: f.tick, serverTick: f.serverTick, verifiedTick: f.verification?.verifiedTick ?? null,
      verifiedTicks: f.verification?.verifiedTicks ?? 0, sentAtMs: performance.now() + toPage });
  }, 1000 / 60);
};
