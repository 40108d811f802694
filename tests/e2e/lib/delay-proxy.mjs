// A WebSocket proxy that delays every message by a fixed time each way, in order: puts a
// network's round trip between a page and the real server without giving the server a
// latency option (the server under test stays the one people run).
import { WebSocket, WebSocketServer } from 'ws';

/**
 * Listens on 127.0.0.1 (a free port) and forwards each WebSocket connection to `upstream`
 * (ws://host:port/path), every message `oneWayMs` later than it arrived, in arrival order, both
 * ways. A close on either side reaches the other after the same delay (after the messages sent
 * before it). `url` is the proxy's ws:// URL (the same path as upstream's).
 * @param {{upstream: string, oneWayMs: number}} options
 */
export async function startDelayProxy({ upstream, oneWayMs }) {
  if (!(Number.isFinite(oneWayMs) && oneWayMs >= 0)) throw new RangeError(`startDelayProxy: oneWayMs must be a non-negative number, got ${oneWayMs}`);
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((ok, fail) => { server.once('listening', ok); server.once('error', fail); });
  const sockets = new Set();
  server.on('connection', (down) => {
    const up = new WebSocket(upstream);
    sockets.add(down).add(up);
    // One queue per direction, drained by due time: equal delays keep the arrival order, and
    // messages for a socket not yet open wait until it is.
    const lane = (to) => {
      const queue = [];
      let timer = null;
      const drain = () => {
        timer = null;
        if (to.readyState === WebSocket.CONNECTING) return;   // 'open' drains
        while (queue.length > 0 && queue[0].at <= performance.now()) {
          const { data, binary, close } = queue.shift();
          if (to.readyState !== WebSocket.OPEN) continue;
          if (close) to.close();
          else to.send(data, { binary });
        }
        if (queue.length > 0) timer = setTimeout(drain, Math.max(0, queue[0].at - performance.now()));
      };
      to.on('open', () => { if (timer === null) drain(); });
      return (item) => {
        queue.push({ ...item, at: performance.now() + oneWayMs });
        if (timer === null && to.readyState !== WebSocket.CONNECTING) timer = setTimeout(drain, oneWayMs);
      };
    };
    const toUp = lane(up);
    const toDown = lane(down);
    down.on('message', (data, binary) => toUp({ data, binary }));
    up.on('message', (data, binary) => toDown({ data, binary }));
    down.on('close', () => { sockets.delete(down); toUp({ close: true }); });
    up.on('close', () => { sockets.delete(up); toDown({ close: true }); });
    down.on('error', () => {});
    up.on('error', () => {});
  });
  const { port } = server.address();
  const path = new URL(upstream).pathname;
  return {
    url: `ws://127.0.0.1:${port}${path}`,
    async close() {
      for (const s of sockets) s.terminate();
      await new Promise((ok) => server.close(() => ok()));
    },
  };
}
