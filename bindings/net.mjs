// net.mjs: the lockstep protocol's two ends and its replays in the ES module: Room (the
// server's logic), ClientSession (the browser's) and Replay (re-run and check a recorded
// match). tandem.mjs builds them with makeNet; every decision is the C++'s (src/net). Times
// are performance.now()-style milliseconds here and int64 nanoseconds past the boundary.

// The replay reader's typed refusal: .code (truncated, bad_magic, fingerprint_mismatch,
// out_of_order, tick_not_covered, ...), the record (0-based) and byte offset where it stopped.
export class ReplayError extends Error {
  constructor(where, { code, record, offset, message }) {
    super(`${where}: ${message}`);
    this.name = 'ReplayError';
    this.code = code;
    this.record = record;
    this.offset = offset;
  }
}

const UINT32_MAX = 4294967295;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

// Bytes a caller hands in, at most `limit`: a Uint8Array (a Node Buffer is one), another
// ArrayBuffer view or an ArrayBuffer (as a WebSocket delivers them). The limits keep a
// caller's mistake from exhausting the instance's memory, far above any legal size.
const LIMITS = {
  // A client message is at most 138 bytes (protocol v2: a desync of 16 section digests); larger
  // ones still reach the room, which refuses them.
  clientMessage: { bytes: 1 << 16, what: 'larger than any client message the room would read (at most 65536 bytes)' },
  // A baseline of the largest world is about 3.2 MiB.
  serverMessage: { bytes: 1 << 24, what: 'larger than any server message (at most 16 MiB)' },
  replay: { bytes: 1 << 28, what: 'larger than any replay this module reads (at most 256 MiB)' },
};

export function makeNet(m, { World, knobs, show, number, integer, own, release, plainBytes }) {
  if (typeof m.room_create !== 'function') return {};

  // tandem.mjs's reader of a caller's bytes: measured with the engine's own accessors, handed
  // over as a fresh plain view, refused past the limit.
  const bytesOf = (where, value, limit) => plainBytes(where, value, limit, { views: true });

  // A performance.now()-style time: a finite number of milliseconds, not negative.
  function ms(where, value) {
    number(where, value);
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${where} must be a finite number of milliseconds >= 0, got ${show(value)}`);
    return value;
  }
  const u32 = (where, v) => integer(where, v, 0, UINT32_MAX);

  // ---- Room ------------------------------------------------------------------------------------

  // The room's own keys; every other key of a Room config is a world knob (tandem.d.ts
  // WorldConfig). maxPlayers is both: the world's wells and the room's seats.
  const ROOM_KEYS = ['inputDelayTicks', 'maxWatchers', 'idleTimeoutMs'];

  class Room {
    #h;

    /** @param {object} [config] world knobs plus inputDelayTicks, maxWatchers, idleTimeoutMs */
    constructor(config = {}) {
      const where = 'new Room: config';
      if (config === null || typeof config !== 'object' || Array.isArray(config)) {
        throw new TypeError(`${where} must be an object, got ${show(config)}`);
      }
      const world = {};
      const room = {};
      for (const [key, value] of Object.entries(config)) {
        if (ROOM_KEYS.includes(key)) room[key] = value;
        else world[key] = value;
      }
      const args = { world: knobs.overrides(where, world) };
      if (room.inputDelayTicks !== undefined) args.inputDelayTicks = u32(`${where}.inputDelayTicks`, room.inputDelayTicks);
      if (room.maxWatchers !== undefined) args.maxWatchers = u32(`${where}.maxWatchers`, room.maxWatchers);
      if (room.idleTimeoutMs !== undefined) args.idleTimeoutMs = ms(`${where}.idleTimeoutMs`, room.idleTimeoutMs);
      const result = m.room_create(args);
      if (result.field !== undefined) throw knobs.refused(where, result);
      this.#h = own(this, result);
    }

    #live() {
      if (this.#h === null) throw new Error('Room has been deleted');
      return this.#h;
    }

    /** A connection opened: its id (from 1). The client must then send a hello. */
    connect(nowMs) { return this.#live().connect(ms('Room.connect: nowMs', nowMs)); }
    /** One whole client message from connection `id`. */
    receive(id, bytes, nowMs) {
      this.#live().receive(u32('Room.receive: id', id), bytesOf('Room.receive', bytes, LIMITS.clientMessage),
        ms('Room.receive: nowMs', nowMs));
    }
    disconnect(id, nowMs) { this.#live().disconnect(u32('Room.disconnect: id', id), ms('Room.disconnect: nowMs', nowMs)); }
    /** One simulation tick: step with the inputs landing on it, then stream its frame. */
    tick(nowMs) { this.#live().tick(ms('Room.tick: nowMs', nowMs)); }
    shutDown(nowMs) { this.#live().shutDown(ms('Room.shutDown: nowMs', nowMs)); }
    /**
     * Everything queued since the last call, in order: {sends: [{to, bytes}], closes:
     * [{who, reason, code}]}. One frame sent to many is one Uint8Array shared by their entries.
     */
    takeOutbox() { return this.#live().takeOutbox(); }
    stats() { return this.#live().stats(); }
    /** What the room holds for connection `id`, or null. */
    client(id) { return this.#live().client(u32('Room.client: id', id)); }
    /** The limits in force: input delay, seats, watchers, ring and flow window in ticks, ... */
    limits() {
      const limits = this.#live().limits();
      return { ...limits, world: knobs.fromCpp(limits.world) };   // as World.config() gives it
    }
    worldDigest() { return this.#live().worldDigest(); }
    worldSections() { return this.#live().worldSections(); }
    /** A copy of the authoritative world (a World of this module; delete it when done). */
    world() { return World.fromSnapshot(this.#live().worldSnapshot()); }
    startRecording() { this.#live().startRecording(); }
    /** The replay bytes recorded since the last call (the first call's begin with the header). */
    takeRecording() { return this.#live().takeRecording(); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }

  // ---- Replay ----------------------------------------------------------------------------------

  const Replay = Object.freeze({
    /**
     * Re-runs a replay in this build: {firstTick, lastTick, framesChecked, baselinesChecked,
     * baselinesAdopted, divergence: null | {tick, expected, actual, sections}}. A file the
     * reader refuses throws a ReplayError.
     */
    check(bytes) {
      const result = m.replay_check(bytesOf('Replay.check', bytes, LIMITS.replay));
      if (result.code !== undefined) throw new ReplayError('Replay.check', result);
      return result;
    },
    /** This build's re-run world at `tick` (a World; delete it when done). */
    worldAt(bytes, tick) {
      const result = m.replay_world_at(bytesOf('Replay.worldAt', bytes, LIMITS.replay),
        integer('Replay.worldAt: tick', tick, 0, Number.MAX_SAFE_INTEGER));
      if (!(result instanceof Uint8Array)) throw new ReplayError('Replay.worldAt', result);
      return World.fromSnapshot(result);
    },
  });

  // ---- ClientSession ---------------------------------------------------------------------------

  const now = () => performance.now();
  // The prediction window's default and largest value (client::PredictConfig::window_ticks and
  // client::max_window_ticks, tandem/client/predicted.hpp).
  const PREDICT_WINDOW_DEFAULT = 12;
  const PREDICT_WINDOW_MAX = 64;
  const RESUME_PATHS = { catch_up: 'catch_up', resync: 'baseline', idle: 'idle' };

  // The page's figures (web/adapters/README.md) from the session's own, which are kept whole
  // under .session for tests and tools.
  function pageFigures(f) {
    const healed = f.verifiedTick > f.lastMismatchTick;
    return {
      me: f.player,
      // The seat this connection took back with its resume token (the token itself stays in
      // the session), null after a fresh join: the page says "reconnected as player N".
      reconnectedAs: f.resumed ? f.player : null,
      players: f.players,
      tick: f.tick,
      serverTick: f.serverTick,
      lagTicks: f.lagTicks,
      verification: {
        verifiedTick: f.verifiedTicks > 0 || f.hasWorld ? f.verifiedTick : null,
        verifiedTicks: f.verifiedTicks,
        // The session keeps its newest mismatch; .session.mismatches counts them all.
        mismatches: f.mismatches > 0 ? [{
          tick: f.lastMismatchTick,
          section: f.lastMismatchSections?.[0] ?? null,
          sections: f.lastMismatchSections,
          // The room's state against this session's own at the healing baseline's tick:
          // [{path, section, room, thisBuild}], null until the baseline came (or past the
          // session's diff window).
          fields: f.lastMismatchFields,
          fieldsTick: f.lastMismatchFieldsTick,
          fieldsDiffering: f.lastMismatchFieldsDiffering,
          healed,
        }] : [],
      },
      rttMs: f.rttMs,
      bytesInPerSec: f.bytesInPerSec,
      bytesOutPerSec: f.bytesOutPerSec,
      droppedMs: f.droppedMs,
      stepCostMs: f.stepCostMs,
      lastResume: f.lastResume === null ? null : {
        awayMs: f.lastResume.awayMs,
        path: RESUME_PATHS[f.lastResume.path] ?? f.lastResume.path,
        ticks: f.lastResume.ticks,
        frames: f.lastResume.behindTicks,
        baselineBytes: f.lastResume.baselineBytes,
        droppedMs: f.lastResume.droppedMs,
        verifiedAfterMs: f.lastResume.verifiedAfterMs,
        catchUpEstimateMs: f.lastResume.catchUpEstimateMs,
        baselineEstimateMs: f.lastResume.baselineEstimateMs,
      },
      error: f.error,
      // With `predict`: the predicted world's figures (depth, rollbacks, re-simulation cost,
      // corrections); null for a lockstep session.
      prediction: f.prediction,
      session: f,
    };
  }

  class ClientSession {
    #h;

    /**
     * @param {{watch?: boolean, nowMs: number, measureStepCost?: boolean, predict?: boolean,
     *   predictWindowTicks?: number}} options
     * measureStepCost (default true): time steps with performance.now() to fit advance()'s
     * budget; false assumes the session's fixed cost (reproducible decisions, e.g. in tests).
     * predict (default false): renderView() draws a predicted world running ahead of the
     * confirmed one (own steers at once, rolled back when others' inputs arrive); the
     * confirmed world is still the one verified and the only one the wire hears about.
     * predictWindowTicks (default 12, at most 64): the most ticks the prediction runs ahead,
     * which bounds a rollback's re-simulation (a smaller window hides less of the round trip).
     */
    constructor({ watch = false, nowMs, measureStepCost = true, predict = false, predictWindowTicks = PREDICT_WINDOW_DEFAULT } = {}) {
      if (typeof watch !== 'boolean') throw new TypeError(`new ClientSession: watch must be a boolean, got ${show(watch)}`);
      if (typeof measureStepCost !== 'boolean') {
        throw new TypeError(`new ClientSession: measureStepCost must be a boolean, got ${show(measureStepCost)}`);
      }
      if (typeof predict !== 'boolean') throw new TypeError(`new ClientSession: predict must be a boolean, got ${show(predict)}`);
      const windowTicks = integer('new ClientSession: predictWindowTicks', predictWindowTicks, 1, PREDICT_WINDOW_MAX);
      this.#h = own(this, m.session_create(watch, ms('new ClientSession: nowMs', nowMs), measureStepCost, predict, windowTicks));
    }

    #live() {
      if (this.#h === null) throw new Error('ClientSession has been deleted');
      return this.#h;
    }

    /** The socket opened: queues the hello. */
    onConnected(nowMs) { this.#live().onConnected(ms('ClientSession.onConnected: nowMs', nowMs)); }
    /** One whole server message. */
    receive(bytes, nowMs) {
      this.#live().receive(bytesOf('ClientSession.receive', bytes, LIMITS.serverMessage), ms('ClientSession.receive: nowMs', nowMs));
    }
    /** The socket closed (the close code is the transport's; the session decides from what it was told). */
    onDisconnected(code, nowMs) { this.#live().onDisconnected(ms('ClientSession.onDisconnected: nowMs', nowMs)); }
    shouldReconnect() { return this.#live().shouldReconnect(); }
    get reconnectDelayMs() { return this.#live().reconnectDelayMs(); }
    /** The messages to send, in order (fresh Uint8Arrays); empties the queue. */
    takeOutgoing() { return this.#live().takeOutgoing(); }
    /** Applies what is due within budgetMs of stepping; returns the ticks applied. */
    advance(nowMs, budgetMs) {
      return this.#live().advance(ms('ClientSession.advance: nowMs', nowMs), ms('ClientSession.advance: budgetMs', budgetMs));
    }
    onSuspend(nowMs) { this.#live().onSuspend(ms('ClientSession.onSuspend: nowMs', nowMs)); }
    onResume(nowMs) { this.#live().onResume(ms('ClientSession.onResume: nowMs', nowMs)); }
    /** The steer target as raw Q16.16 integers. */
    steer(xRaw, yRaw, nowMs = now()) {
      this.#live().steer(integer('ClientSession.steer: xRaw', xRaw, INT32_MIN, INT32_MAX),
        integer('ClientSession.steer: yRaw', yRaw, INT32_MIN, INT32_MAX), ms('ClientSession.steer: nowMs', nowMs));
    }
    /**
     * The render view: pellets.current/previous are Float32Array views into the module's
     * memory, valid until the next call into the module (read them during the draw only).
     */
    renderView(nowMs = now()) { return this.#live().renderView(ms('ClientSession.renderView: nowMs', nowMs)); }
    figures() { return pageFigures(this.#live().figures()); }
    /** What the session received, as a replay file (Replay.check and `tandem replay` read it). */
    exportReplay() { return this.#live().exportReplay(); }
    /** Debug: corrupts the confirmed world once; the next verified tick mismatches and heals. */
    corruptOnce() { this.#live().corruptOnce(); }
    /**
     * Re-runs what this session received from the (native) server in this build and says
     * whether every digest agrees: the text the page shows.
     */
    checkAgainstNative() {
      const bytes = this.exportReplay();
      try {
        const r = Replay.check(bytes);
        if (r.divergence === null) {
          return `ticks ${r.firstTick}..${r.lastTick}: ${r.framesChecked} frames re-run, every digest agrees with the server's`;
        }
        const d = r.divergence;
        const first = d.fields?.[0];
        return `diverges at tick ${d.tick}: server ${d.expected}, this build ${d.actual}` +
          (d.sections === null ? '' : ` (sections: ${d.sections.join(', ')})`) +
          (first === undefined ? '' : `; at tick ${d.fieldsTick} ${d.fieldsDiffering} fields differ, first ${first.path}: ` +
            `server ${first.replay ?? '-'}, this build ${first.thisBuild ?? '-'}`);
      } catch (e) {
        if (e instanceof ReplayError) return `nothing to check yet (${e.code})`;
        throw e;
      }
    }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }
  /**
   * Whether `predict: true` is available in this build of the module: every build binds the
   * predicted client (client::PredictedClient<G>); pages check it before asking for it.
   */
  ClientSession.predicts = true;

  // ---- ScriptedBot ------------------------------------------------------------------------------

  /**
   * A scripted player for a Room with no server around it (the demo page's offline mode): it
   * sends a hello, steers along waypoints drawn from its seed and acks the frames it is sent
   * (with the room's own digest: it holds no world). Connect it like a client: room.connect,
   * then move its takeOutgoing() to room.receive and the room's sends to it to receive().
   */
  class ScriptedBot {
    #h;

    /** @param {{seed: number}} options seed: a safe integer >= 0 that chooses the path */
    constructor({ seed } = {}) {
      this.#h = own(this, m.bot_create(integer('new ScriptedBot: seed', seed, 0, Number.MAX_SAFE_INTEGER)));
    }

    #live() {
      if (this.#h === null) throw new Error('ScriptedBot has been deleted');
      return this.#h;
    }

    /** The connection opened: queues the hello. */
    onConnected() { this.#live().onConnected(); }
    /** One whole server message. */
    receive(bytes) { this.#live().receive(bytesOf('ScriptedBot.receive', bytes, LIMITS.serverMessage)); }
    /** The messages to send, in order; empties the queue. */
    takeOutgoing() { return this.#live().takeOutgoing(); }
    /** {welcomed, player, tick, steersSent, acksSent, malformedIn, refused, target: {x, y} raw}. */
    figures() { return this.#live().figures(); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }

  if (Symbol.dispose) {
    ScriptedBot.prototype[Symbol.dispose] = ScriptedBot.prototype.delete;
    Room.prototype[Symbol.dispose] = Room.prototype.delete;
    ClientSession.prototype[Symbol.dispose] = ClientSession.prototype.delete;
  }
  return { Room, ClientSession, ScriptedBot, Replay, ReplayError };
}
