// The offline mode: the server's own Room (C++ in wasm) runs in this tab with a few scripted
// bots, and the page's own ClientSession talks to it over an in-memory link. This file only
// moves bytes (room.takeOutbox() to session.receive() and the bots, their takeOutgoing() to
// room.receive()) and ticks the room from the page's clock; the room decides what is sent, the
// session everything it decides against a server (verification, catch-up or baseline after an
// absence, acks), and the bots their paths. So a static host serves the whole demo.

// Bots that play beside the person (seats after the person's), each on a path of its own seed.
export const OFFLINE_BOTS = 3;
// The most time one timer callback pays the room in ticks: a little over a hidden tab's one
// timer a second. A longer stall (a frozen tab) is dropped, as a stalled server drops ticks.
export const ROOM_MAX_CATCH_UP_MS = 1100;

export class OfflineAdapter {
  mode = 'offline';
  modeLabel;
  arenaSize;
  #tandem;
  #room;
  #clock;
  #session;
  #sessionId = null;
  #bots = new Map();   // room connection id -> ScriptedBot
  #lastPumpMs = null;
  #timer = null;
  #reconnectTimer = null;
  #connection = { state: 'local', label: 'offline' };
  #resumeFrames = null;
  #countingResume = false;

  /**
   * @param {object} tandem the loaded ES module (with Room, ClientSession, ScriptedBot)
   * @param {{watch: boolean, debug: boolean, lockstep?: boolean, predictWindow?: number | null, seed: number, pellets: number, reason: string,
   *   timers?: {setInterval: Function, clearInterval: Function, setTimeout: Function, clearTimeout: Function}}} options
   *   reason: one line on why this page runs without a server
   */
  constructor(tandem, { watch, debug, lockstep = false, predictWindow = null, seed, pellets, reason, timers = globalThis }) {
    this.#tandem = tandem;
    this.#timers = timers;
    const nowMs = performance.now();
    this.#room = new tandem.Room({ seed, pelletCount: pellets });
    const { world } = this.#room.limits();
    this.arenaSize = world.arenaSize / 65536;
    // The room's rate on the core's fixed-step clock. Its catch-up cap is raised from 250 ms
    // to ROOM_MAX_CATCH_UP_MS: a hidden tab runs timers about once a second, and a room that
    // dropped three quarters of that time would fall behind the clock the session estimates
    // its absence by (it would then wait seconds for ticks the room never ran).
    const base = tandem.FixedTimestep.fromHz(world.tickHz);
    this.#clock = base.withMaxFrameMs(ROOM_MAX_CATCH_UP_MS);
    base.delete();
    // As against a server: a player draws the predicted world unless ?lockstep (or the module
    // is a build without the predicted client: ClientSession.predicts).
    const predict = !watch && !lockstep && tandem.ClientSession.predicts !== false;
    this.#session = new tandem.ClientSession({ watch, nowMs, predict, predictWindowTicks: predictWindow ?? undefined });
    this.modeLabel = `offline: ${reason}. A room in this tab runs the match: ${watch ? 'watching' : 'you and'} ${OFFLINE_BOTS} scripted bots` +
      (watch ? '' : ` (${predict ? 'predicted' : 'lockstep'})`);
    // The person's hello first, so a player gets seat 1; the bots take the next seats.
    this.#connect(nowMs);
    this.#deliver(nowMs);
    for (let k = 0; k < OFFLINE_BOTS; ++k) {
      // Bot seeds from the page's seed: a reload with the same ?seed shows the same paths.
      const bot = new tandem.ScriptedBot({ seed: (seed % 2 ** 40) * 8 + k + 1 });
      this.#bots.set(this.#room.connect(nowMs), bot);
      bot.onConnected();
    }
    this.#deliver(nowMs);
    // The room runs on timers like a server, not on animation frames: while the tab is hidden
    // (timers slowed, frames stopped) it goes on ticking and the session falls behind, so a
    // return exercises the session's catch-up or baseline exactly as against a server.
    this.#timer = timers.setInterval(() => this.#pump(performance.now()), 1000 / world.tickHz);
    this.actions = {
      downloadReplay: () => ({ name: `tandem-offline-${Date.now()}.replay`, bytes: this.#session.exportReplay() }),
      corrupt: debug ? () => this.#session.corruptOnce() : undefined,
    };
  }

  #timers;

  #connect(nowMs) {
    this.#sessionId = this.#room.connect(nowMs);
    this.#session.onConnected(nowMs);
    this.#connection = { state: 'local', label: 'offline: room in this tab' };
  }

  // The ticks the page's clock owes the room, each followed by its messages.
  #pump(nowMs) {
    const elapsed = this.#lastPumpMs === null ? 0 : nowMs - this.#lastPumpMs;
    this.#lastPumpMs = nowMs;
    for (let n = this.#clock.advance(elapsed); n > 0; --n) {
      this.#room.tick(nowMs);
      this.#deliver(nowMs);
    }
  }

  // Moves every queued message both ways until none is left (a reply can provoke another).
  #deliver(nowMs) {
    for (let round = 0; round < 16; ++round) {
      let moved = 0;
      for (const [id, bot] of this.#bots) {
        for (const bytes of bot.takeOutgoing()) { this.#room.receive(id, bytes, nowMs); moved += 1; }
      }
      if (this.#sessionId !== null) {
        for (const bytes of this.#session.takeOutgoing()) { this.#room.receive(this.#sessionId, bytes, nowMs); moved += 1; }
      }
      const { sends, closes } = this.#room.takeOutbox();
      for (const { to, bytes } of sends) {
        if (to === this.#sessionId) this.#session.receive(bytes, nowMs);
        else this.#bots.get(to)?.receive(bytes);
      }
      for (const { who, code } of closes) this.#closed(who, code, nowMs);
      if (moved === 0 && sends.length === 0 && closes.length === 0) return;
    }
  }

  // The room closed a connection (it has sent its ErrorMsg already): as a socket would close.
  #closed(who, code, nowMs) {
    this.#room.disconnect(who, nowMs);
    const bot = this.#bots.get(who);
    if (bot !== undefined) {
      this.#bots.delete(who);
      bot.delete();
      return;
    }
    if (who !== this.#sessionId) return;
    this.#sessionId = null;
    this.#session.onDisconnected(code, nowMs);
    if (!this.#session.shouldReconnect()) {
      this.#connection = { state: 'refused', label: `refused (${code})` };
      return;
    }
    const delayMs = this.#session.reconnectDelayMs;
    this.#connection = { state: 'waiting', label: `closed ${code}: retry in ${(delayMs / 1000).toFixed(1)} s` };
    this.#reconnectTimer = this.#timers.setTimeout(() => {
      this.#reconnectTimer = null;
      const now = performance.now();
      this.#connect(now);
      this.#deliver(now);
    }, delayMs);
  }

  advance(nowMs, budgetMs) {
    this.#pump(nowMs);
    this.#session.advance(nowMs, budgetMs);
    this.#deliver(nowMs);   // acks and desync reports the advance produced
    if (this.#countingResume) {
      this.#resumeFrames += 1;
      if (this.#session.figures().lastResume?.verifiedAfterMs != null) this.#countingResume = false;
    }
  }

  onSuspend(nowMs) { this.#session.onSuspend(nowMs); }
  onResume(nowMs) {
    this.#pump(nowMs);   // the room first: what it ran while the page was away is what the session weighs
    this.#session.onResume(nowMs);
    this.#deliver(nowMs);
    this.#resumeFrames = 0;
    this.#countingResume = true;
  }

  /** The person's steer target in arena units; the session owns sequence numbers and rate. */
  steer(point) {
    const nowMs = performance.now();
    this.#session.steer(Math.round(point.x * 65536), Math.round(point.y * 65536), nowMs);
    this.#deliver(nowMs);
  }

  renderView() { return this.#session.renderView(); }

  figures() {
    const f = this.#session.figures();
    const lastResume = f.lastResume === null || this.#resumeFrames === null ? f.lastResume : { ...f.lastResume, frames: this.#resumeFrames };
    return { ...f, lastResume, mode: this.mode, modeLabel: this.modeLabel, connection: this.#connection };
  }

  /** The room's and the bots' figures (tests and tools; the HUD does not show them). */
  roomFigures() {
    return { stats: this.#room.stats(), digest: this.#room.worldDigest(), bots: [...this.#bots.values()].map((b) => b.figures()) };
  }

  dispose() {
    this.#timers.clearInterval(this.#timer);
    this.#timers.clearTimeout(this.#reconnectTimer);
    for (const bot of this.#bots.values()) bot.delete();
    this.#bots.clear();
    this.#session.delete();
    this.#room.delete();
    this.#clock.delete();
  }
}
