// A player without a browser: the ES module's ClientSession (build/wasm/package) over npm `ws`,
// as tests/server/session.test.mjs drives it, run from a timer in this Node process. It steers
// to a new target around its own well on every tick, so another page's prediction is
// contradicted as often as the room allows while the browser under test keeps the CPU.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import { repoRoot } from './harness.mjs';

const TICK_MS = 1000 / 60;

/**
 * Joins the room at `url` (a ws:// URL, e.g. a delay proxy's) as a player and steers every
 * tick. `figures()` returns the session's figures plus the steers made; `close()` leaves.
 * @param {{url: string, packageDir?: string}} options
 */
export async function startNodePlayer({ url, packageDir = process.env.TANDEM_PACKAGE_DIR ?? join(repoRoot, 'build/wasm/package') }) {
  const { default: createTandem } = await import(pathToFileURL(join(packageDir, 'tandem.node.mjs')).href);
  const tandem = await createTandem();
  const session = new tandem.ClientSession({ watch: false, nowMs: performance.now() });
  const socket = new WebSocket(url);
  socket.binaryType = 'nodebuffer';
  const flush = () => { if (socket.readyState === WebSocket.OPEN) for (const bytes of session.takeOutgoing()) socket.send(bytes); };
  socket.on('open', () => { session.onConnected(performance.now()); flush(); });
  socket.on('message', (data) => { session.receive(data, performance.now()); flush(); });
  socket.on('close', (code) => session.onDisconnected(code, performance.now()));
  socket.on('error', () => {});
  let steers = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    session.advance(now, 8);
    const v = session.renderView(now);
    const w = v.wells.find((x) => x.player === v.me);
    if (w) {
      // 150 units away in a new direction every tick, inside the arena.
      steers += 1;
      const clamp = (x) => Math.min(Math.max(x, 1), (v.arenaSize ?? 1024) - 1);
      session.steer(Math.round(clamp(w.x + 150 * Math.cos(steers / 3)) * 65536), Math.round(clamp(w.y + 150 * Math.sin(steers / 3)) * 65536), now);
    }
    flush();
  }, TICK_MS);
  return {
    figures: () => ({ ...session.figures(), steers }),
    async close() {
      clearInterval(timer);
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
        await new Promise((ok) => { socket.once('close', ok); socket.close(1000, 'done'); });
      }
      session.delete();
    },
  };
}
