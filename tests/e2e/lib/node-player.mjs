// A player without a browser: a game's ES module's ClientSession (build/wasm/packages/<game>) over npm `ws`,
// as tests/server/session.test.mjs drives it, run from a timer in this Node process. It steers
// to a new target around its own well on every tick, so another page's prediction is
// contradicted as often as the room allows while the browser under test keeps the CPU.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import { repoRoot } from './harness.mjs';

const TICK_MS = 1000 / 60;

// A command every tick, per game, new every time (so every verified tick contradicts another
// player's prediction): the arena's well steered 150 units away in a new direction, ships'
// buttons cycled through every combination of thrust, turns and fire.
const COMMANDS = {
  arena: (tandem, n) => {
    const at = (k) => Math.round(512 + 300 * k);
    return { target: { x: tandem.fx.fromInt(at(Math.cos(n / 3))), y: tandem.fx.fromInt(at(Math.sin(n / 3))) } };
  },
  ships: (tandem, n) => ({ buttons: (n % 15) + 1 }),
};

/**
 * Joins the room at `url` (a ws:// URL, e.g. a delay proxy's) as a player of `game` and sends a
 * new command every `commandEveryTicks` ticks (every tick by default). `figures()` returns the
 * session's figures plus the commands sent (`steers`); `close()` leaves.
 * @param {{url: string, game?: string, packageDir?: string, commandEveryTicks?: number}} options
 */
export async function startNodePlayer({ url, game = 'arena', packageDir = process.env.TANDEM_PACKAGE_DIR ?? join(repoRoot, 'build/wasm/packages', game), commandEveryTicks = 1 }) {
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
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    session.advance(now, 8);
    if (session.figures().me !== null && ticks++ % commandEveryTicks === 0) {
      steers += 1;
      session.sendCommand(COMMANDS[game](tandem, steers), now);
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
