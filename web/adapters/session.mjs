// The page's side of a server match: the module's ClientSession (C++ in wasm) fed by the
// transport, behind the adapter interface (web/README.md). Every decision is the session's:
// what to send and when, which frames to apply this frame, whether a digest agrees, catch up
// or baseline after an absence, whether a closed socket should be reopened. This file only
// forwards bytes, times and the person's input as the game's command (SessionDriver, driver.mjs), and reads back
// figures and a render view. It runs in the session worker (../session-worker.mjs), or on the
// main thread with ?session=main; tests/server/session.test.mjs drives the same calls over ws.
import { Transport } from '../transport.mjs';
import { SessionDriver } from './driver.mjs';

export class SessionAdapter extends SessionDriver {
  mode;
  modeLabel;
  #transport;
  #connection = { state: 'connecting', label: 'connecting', everOpened: false, opens: 0, failedBeforeOpen: false };

  /**
   * @param {object} tandem the loaded ES module (a game's package)
   * @param {{serverUrl: string, watch: boolean, debug: boolean, lockstep?: boolean, predictWindow?: number | null,
   *   ticket?: string | null, fleet?: string[]}} options ticket: a join ticket for a server that requires one;
   *   fleet: the room's URLs at the fleet's other processes (?fleet=)
   * @param {{view: object, command?: Function} | null} plugin the game's plugin (what it draws, its command from
   *   its input); null: given later (usePlugin), the session meanwhile joining and verifying
   * @param {Transport | null} [early] a transport the page started before the module was ready
   *   (early.mjs): what it received meanwhile is handed to the session in order
   */
  constructor(tandem, { serverUrl, watch, debug, lockstep = false, predictWindow = null, ticket = null, fleet = [] }, plugin, early = null) {
    // A player draws the predicted state (own commands at once, corrected when others' inputs
    // arrive); a watcher has nothing to predict, and ?lockstep draws only what is verified.
    const predict = !watch && !lockstep;
    // An early socket's events carry the times they happened: the session's clock starts no
    // later than the first of them.
    const session = new tandem.ClientSession({ watch, nowMs: early?.startedAtMs ?? performance.now(), predict,
      predictWindowTicks: predictWindow ?? undefined });
    if (ticket) session.setTicket(ticket);
    // The fleet's other addresses (?fleet=): where the session goes when its process stops answering.
    session.setFleet(serverUrl, fleet);
    super(session, tandem, plugin, { debug, replayName: tandem.game.name, flush: () => this.#flush() });
    this.mode = watch ? 'watch' : 'play';
    this.modeLabel = watch ? `Watching the room at ${serverUrl}`
      : `Playing in the room at ${serverUrl} (${predict ? 'predicted' : 'lockstep'})`;
    const handlers = {
      onOpen: (nowMs) => { session.onConnected(nowMs); this.#flush(); },
      onMessage: (bytes, nowMs) => { session.receive(bytes, nowMs); this.#flush(); },
      onClose: (code, reason, nowMs, opened) => {
        if (opened) session.onDisconnected(code, nowMs);
        else session.onConnectFailed(nowMs);
        // A refusal (version, fingerprint, game, room full) must not be retried in a loop.
        if (!session.shouldReconnect()) this.#transport.stop();
      },
      retryDelayMs: () => session.reconnectDelayMs,
      retryUrl: () => session.nextUrl,
      // everOpened stays true once the socket has opened: a page that samples the state once
      // a frame could otherwise see only the refusal's close and take it for no server at all.
      // opens counts the times it opened (a reconnection after an absence is one more).
      // failedBeforeOpen stays true once the socket failed before it ever opened: a page that
      // samples the state (a frame, or the worker's answers) may see only the retries' "connecting".
      onState: (s) => {
        const opened = s.state === 'open';
        const everOpened = this.#connection.everOpened || opened;
        this.#connection = { ...connectionOf(s), everOpened, opens: this.#connection.opens + (opened ? 1 : 0),
          failedBeforeOpen: this.#connection.failedBeforeOpen || (!everOpened && ['waiting', 'closed', 'failed'].includes(s.state)) };
      },
    };
    if (early === null) {
      this.#transport = new Transport(serverUrl, handlers);
      this.#transport.start();
    } else {
      this.#transport = early;
      early.attach(handlers);
    }
  }

  #flush() {
    for (const bytes of this.session.takeOutgoing()) this.#transport?.send(bytes);
  }

  figures() { return super.figures({ mode: this.mode, modeLabel: this.modeLabel, connection: this.#connection }); }

  dispose() {
    this.#transport.stop(1000, 'page closed');  // a page may send 1000 or 3000-4999, not 1001
    this.session.delete();
  }
}

function connectionOf(s) {
  switch (s.state) {
    case 'open': return { state: 'open', label: 'connected' };
    case 'connecting': return { state: 'connecting', label: s.attempt === 0 ? 'connecting' : `reconnecting (${s.attempt})` };
    case 'waiting': return { state: 'waiting', label: `closed ${s.code}: retry in ${(s.retryInMs / 1000).toFixed(1)} s` };
    case 'closed': return { state: 'closed', label: `closed ${s.code ?? ''}`.trim() };
    default: return { state: 'failed', label: s.reason ?? s.state };
  }
}
