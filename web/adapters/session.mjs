// The page's side of a server match: the client session (C++ in wasm, from the ES module)
// behind the adapter interface, fed by the transport. Every decision is the session's: what
// to send and when, which frames to apply this frame, whether a digest agrees, catch up or
// baseline after an absence, whether a closed socket should be reopened. This file only
// forwards bytes, times and the person's steer, and reads back figures and a render view.
//
// The calls below are the whole surface the page needs from the ES module's ClientSession
// (adapters/README.md lists them); tests/server/session.test.mjs drives the same calls over ws.
import { Transport } from '../transport.mjs';

export class SessionAdapter {
  mode;
  modeLabel;
  #session;
  #transport;
  #connection = { state: 'connecting', label: 'connecting', everOpened: false, opens: 0, failedBeforeOpen: false };
  // Frames spent from a resume until the session verified again (the HUD's "in N frames"):
  // counted here because only the page knows what a frame is.
  #resumeFrames = null;
  #countingResume = false;

  /**
   * @param {object} tandem the loaded ES module (with ClientSession)
   * @param {{serverUrl: string, watch: boolean, debug: boolean, lockstep?: boolean, predictWindow?: number | null}} options
   * @param {Transport | null} [early] a transport the page started before the module was
   *   ready (early.mjs): what it received meanwhile is handed to the session in order
   */
  constructor(tandem, { serverUrl, watch, debug, lockstep = false, predictWindow = null }, early = null) {
    this.mode = watch ? 'watch' : 'play';
    // A player draws the predicted world (own steers at once, corrected when others' inputs
    // arrive); a watcher has nothing to predict, and ?lockstep draws only what is verified (as
    // does a module built without the predicted client: ClientSession.predicts).
    const predict = !watch && !lockstep && tandem.ClientSession.predicts !== false;
    this.modeLabel = watch ? `Watching the room at ${serverUrl}`
      : `Playing in the room at ${serverUrl} (${predict ? 'predicted' : 'lockstep'})`;
    // An early socket's events carry the times they happened: the session's clock starts no
    // later than the first of them.
    this.#session = new tandem.ClientSession({ watch, nowMs: early?.startedAtMs ?? performance.now(), predict,
      predictWindowTicks: predictWindow ?? undefined });
    const handlers = {
      onOpen: (nowMs) => { this.#session.onConnected(nowMs); this.#flush(); },
      onMessage: (bytes, nowMs) => { this.#session.receive(bytes, nowMs); this.#flush(); },
      onClose: (code, reason, nowMs) => {
        this.#session.onDisconnected(code, nowMs);
        // A refusal (version, fingerprint, room full) must not be retried in a loop.
        if (!this.#session.shouldReconnect()) this.#transport.stop();
      },
      retryDelayMs: () => this.#session.reconnectDelayMs,
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
    this.actions = {
      checkAgainstNative: () => this.#session.checkAgainstNative(),
      downloadReplay: () => ({ name: `tandem-${Date.now()}.replay`, bytes: this.#session.exportReplay() }),
      // The tick of the world corrupted (the mismatch is due at the next one or two).
      corrupt: debug ? () => { const { tick } = this.#session.figures(); this.#session.corruptOnce(); return { tick }; } : undefined,
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
    for (const bytes of this.#session.takeOutgoing()) this.#transport.send(bytes);
  }

  advance(nowMs, budgetMs) {
    this.#session.advance(nowMs, budgetMs);
    this.#flush();   // acks and desync reports the advance produced
    if (this.#countingResume) {
      this.#resumeFrames += 1;
      if (this.#session.figures().lastResume?.verifiedAfterMs != null) this.#countingResume = false;
    }
  }

  onSuspend(nowMs) { this.#session.onSuspend(nowMs); }
  onResume(nowMs) {
    this.#session.onResume(nowMs);
    this.#flush();
    this.#resumeFrames = 0;
    this.#countingResume = true;
  }

  /** The person's steer target in arena units; the session owns sequence numbers and rate. */
  steer(point) {
    this.#session.steer(Math.round(point.x * 65536), Math.round(point.y * 65536));
    this.#flush();
  }

  renderView() { return this.#session.renderView(); }

  /** The arena's side in units, from the world the session holds (the welcome's); null before. */
  get arenaSize() { return this.#session.renderView().arenaSize; }

  figures() {
    const f = this.#session.figures();
    const lastResume = f.lastResume === null || this.#resumeFrames === null ? f.lastResume : { ...f.lastResume, frames: this.#resumeFrames };
    return { ...f, lastResume, mode: this.mode, modeLabel: this.modeLabel, connection: this.#connection };
  }

  dispose() {
    this.#transport.stop(1000, 'page closed');  // a page may send 1000 or 3000-4999, not 1001
    this.#session.delete();
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
