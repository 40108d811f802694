// net.mjs: the lockstep protocol's two ends and its replays in the ES module, for the package's
// game: Room (the server's logic), ClientSession (the browser's, with its predicted client),
// Replay (re-run and check a recorded match), ScriptedBot (a player with no server) and
// OfflineMatch (a room, the page's session and bots in one tab: net::Match<G>). tandem.mjs
// builds them with makeNet; every decision is the C++'s (src/net, src/client). Times are
// performance.now()-style milliseconds here and int64 nanoseconds past the boundary.
// Each class is made by its own function below, over the loaded module `m` and the game's
// schema; none of them names a game.
import {
  checkSelection, configRefused, disposable, InputError, integer, LIMITS, live, ms, own, plainBytes, plainObject, release,
  ReplayError, show, TicketError, UINT32_MAX,
} from './checks.mjs';

// The prediction window's default and largest value (client::PredictConfig::window_ticks and
// client::max_window_ticks, tandem/client/predicted.hpp).
const PREDICT_WINDOW_DEFAULT = 12;
const PREDICT_WINDOW_MAX = 64;
// ClientSession.setFleet's arguments, far above what it keeps (8 WebSocket URLs of at most 200
// bytes, include/tandem/net/client_session.hpp): a caller's mistake is refused before the C++.
const FLEET_URLS_MAX = 64;
const URL_CHARS_MAX = 2048;
const RESUME_PATHS = { catch_up: 'catch_up', resync: 'baseline', idle: 'idle' };
const now = () => performance.now();

// Bytes a caller hands in, at most `limit`: a Uint8Array (a Node Buffer is one), another
// ArrayBuffer view or an ArrayBuffer (as a WebSocket delivers them).
const bytesOf = (where, value, limit) => plainBytes(where, value, limit, { views: true });
const u32 = (where, v) => integer(where, v, 0, UINT32_MAX);

/** Room, ClientSession, Replay, ScriptedBot and OfflineMatch over the loaded module. */
export function makeNet(m, { World, schema }) {
  const Replay = makeReplay(m, { World });
  const net = {
    Room: makeRoom(m, { World, schema }),
    ClientSession: makeClientSession(m, { schema, Replay }),
    Replay,
  };
  if (typeof m.bot_create === 'function') {
    net.ScriptedBot = makeScriptedBot(m);
    net.OfflineMatch = makeOfflineMatch(m, { schema, Replay });
  }
  return net;
}

// ---- Room --------------------------------------------------------------------------------------

// The room's own keys; every other key of a Room config is a knob of the game's config.
const ROOM_KEYS = ['inputDelayTicks', 'maxWatchers', 'idleTimeoutMs'];

// {game: knobs, inputDelayTicks?, maxWatchers?, idleTimeoutMs?} from a flat config.
function roomConfig(where, schema, config) {
  plainObject(where, config);
  const game = {};
  const room = {};
  for (const [key, value] of Object.entries(config)) {
    if (ROOM_KEYS.includes(key)) room[key] = value;
    else game[key] = value;
  }
  const args = { game: schema.config(where, game) };
  if (room.inputDelayTicks !== undefined) args.inputDelayTicks = u32(`${where}.inputDelayTicks`, room.inputDelayTicks);
  if (room.maxWatchers !== undefined) args.maxWatchers = u32(`${where}.maxWatchers`, room.maxWatchers);
  if (room.idleTimeoutMs !== undefined) args.idleTimeoutMs = ms(`${where}.idleTimeoutMs`, room.idleTimeoutMs);
  return args;
}

function makeRoom(m, { World, schema }) {
  class Room {
    #h;

    /** @param {object} [config] the game's knobs plus inputDelayTicks, maxWatchers, idleTimeoutMs */
    constructor(config = {}) {
      const where = 'new Room: config';
      const result = m.room_create(roomConfig(where, schema, config));
      if (result.field !== undefined) throw configRefused(where, result);
      this.#h = own(this, result);
    }

    #live() { return live(this.#h, 'Room'); }

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
    /** The limits in force: input delay, seats, watchers, ring and flow window in ticks, the game's config. */
    limits() { return this.#live().limits(); }
    stateDigest() { return this.#live().stateDigest(); }
    stateSections() { return this.#live().stateSections(); }
    /** A copy of the authoritative state (a World of this module; delete it when done). */
    world() { return World.fromSnapshot(this.#live().stateSnapshot()); }
    startRecording() { this.#live().startRecording(); }
    /** The replay bytes recorded since the last call (the first call's begin with the header). */
    takeRecording() { return this.#live().takeRecording(); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }
  return disposable(Room);
}

// ---- Replay ------------------------------------------------------------------------------------

function makeReplay(m, { World }) {
  return Object.freeze({
    /**
     * Re-runs a replay in this build: {firstTick, lastTick, framesChecked, baselinesChecked,
     * baselinesAdopted, divergence: null | {tick, expected, actual, sections, fields, fieldsTick,
     * fieldsDiffering}}. A file the reader refuses throws a ReplayError.
     */
    check(bytes) {
      const result = m.replay_check(bytesOf('Replay.check', bytes, LIMITS.replay));
      if (result.code !== undefined) throw new ReplayError('Replay.check', result);
      return result;
    },
    /** This build's re-run world at `tick` (a World; delete it when done). */
    worldAt(bytes, tick) {
      const result = m.replay_state_at(bytesOf('Replay.worldAt', bytes, LIMITS.replay),
        integer('Replay.worldAt: tick', tick, 0, Number.MAX_SAFE_INTEGER));
      if (!(result instanceof Uint8Array)) throw new ReplayError('Replay.worldAt', result);
      return World.fromSnapshot(result);
    },
    /**
     * What a page shows for "Check against native": re-runs what a session received from the
     * (native) server in this build and says whether every digest agrees, and where not, the
     * first differing field.
     */
    describeCheck(bytes) {
      try {
        const r = this.check(bytes);
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
    },
  });
}

// ---- What a session shows: the page's figures --------------------------------------------------

// The page's figures (the shell's HUD) from the session's own, which are kept whole under
// .session for tests and tools.
function pageFigures(f) {
  const healed = f.verifiedTick > f.lastMismatchTick;
  return {
    me: f.player,
    // The seat this connection took back with its resume token (the token itself stays in the
    // session), null after a fresh join: the page says "reconnected as player N".
    reconnectedAs: f.resumed ? f.player : null,
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
    // With `predict`: the predicted state's figures (depth, rollbacks, re-simulation cost,
    // corrections); null for a lockstep session.
    prediction: f.prediction,
    session: f,
  };
}

// The options a session (or the offline match's) takes: {watch, nowMs, measureStepCost,
// predict, predictWindowTicks}, checked.
function sessionOptions(where, { watch = false, nowMs, measureStepCost = true, predict = false, predictWindowTicks = PREDICT_WINDOW_DEFAULT }) {
  if (typeof watch !== 'boolean') throw new TypeError(`${where}: watch must be a boolean, got ${show(watch)}`);
  if (typeof measureStepCost !== 'boolean') throw new TypeError(`${where}: measureStepCost must be a boolean, got ${show(measureStepCost)}`);
  if (typeof predict !== 'boolean') throw new TypeError(`${where}: predict must be a boolean, got ${show(predict)}`);
  return {
    watch, measureStepCost, predict,
    nowMs: ms(`${where}: nowMs`, nowMs),
    predictWindowTicks: integer(`${where}: predictWindowTicks`, predictWindowTicks, 1, PREDICT_WINDOW_MAX),
  };
}

// What a ClientSession and an OfflineMatch both offer the page over the C++ session they hold:
// the command, the view and the figures, the replay, the debug corruption. `handle(self)` is
// the C++ object a wrapper holds.
function sessionSurface(where, { schema, Replay }, handle) {
  return {
    /** The person's command (the game's fields, checked; its own rules are the game's codec's). */
    sendCommand(command, nowMs = now()) {
      const refusal = handle(this).sendCommand(schema.command(`${where}.sendCommand: command`, command), ms(`${where}.sendCommand: nowMs`, nowMs));
      if (refusal !== null) throw new InputError(`${where}.sendCommand`, refusal, schema.inputBytes);
    },
    /** What renderView() draws from now on: {lists: {name: [field, ...]}, scalars: [path, ...]}. */
    setView(selection) { handle(this).setView(checkSelection(`${where}.setView: selection`, schema.info.state, selection)); },
    /**
     * {hasWorld, tick, alpha, predicted, confirmedTick, me, current, previous, events}: the
     * selected columns of the state drawn and of the one before it. Typed arrays are views into
     * the module's memory, valid until the next call into the module (read them during the draw only).
     */
    renderView(nowMs = now()) { return handle(this).renderView(ms(`${where}.renderView: nowMs`, nowMs)); },
    figures() { return pageFigures(handle(this).figures()); },
    /** What the session received, as a replay file (Replay.check and `tandem replay` read it). */
    exportReplay() { return handle(this).exportReplay(); },
    /**
     * Debug: flips one field of the confirmed state (`path`, a field of the dump, else the
     * game's choice), so the next verified tick mismatches and heals. Whether a field was flipped.
     */
    corruptOnce(path = '') {
      if (typeof path !== 'string') throw new TypeError(`${where}.corruptOnce: path must be a string, got ${show(path)}`);
      return handle(this).corruptOnce(path);
    },
    /** Re-runs what this session received in this build and says whether every digest agrees. */
    checkAgainstNative() { return Replay.describeCheck(this.exportReplay()); },
  };
}

// ---- ClientSession -------------------------------------------------------------------------------

function makeClientSession(m, deps) {
  let handleOf;
  class ClientSession {
    #h;

    static {
      handleOf = (session) => session.#live();
    }

    /**
     * @param {{watch?: boolean, nowMs: number, measureStepCost?: boolean, predict?: boolean,
     *   predictWindowTicks?: number}} options
     * measureStepCost (default true): time steps with performance.now() to fit advance()'s
     * budget; false assumes the session's fixed cost (reproducible decisions, e.g. in tests).
     * predict (default false): renderView() draws a predicted state running ahead of the
     * confirmed one (own commands at once, rolled back when others' inputs arrive); the
     * confirmed state is still the one verified and the only one the wire hears about.
     * predictWindowTicks (default 12, at most 64): the most ticks the prediction runs ahead.
     */
    constructor(options = {}) {
      const o = sessionOptions('new ClientSession', options);
      this.#h = own(this, m.session_create(o.watch, o.nowMs, o.measureStepCost, o.predict, o.predictWindowTicks));
    }

    #live() { return live(this.#h, 'ClientSession'); }

    /** The socket opened: queues the hello. */
    onConnected(nowMs) { this.#live().onConnected(ms('ClientSession.onConnected: nowMs', nowMs)); }
    /**
     * A join ticket from the room's lobby, for a server that requires them (`tandem serve
     * --ticket-key`): the text `tandem ticket` prints (base64url) or its bytes. Sent with every
     * hello that asks for a new seat or place, never beside a resume token. One that does not
     * decode throws a TicketError; whether the server accepts it, its refusal says.
     */
    setTicket(ticket) {
      let bytes;
      if (typeof ticket === 'string') {
        if (!/^[A-Za-z0-9_-]*$/.test(ticket) || ticket.length % 4 === 1) {
          throw new TicketError('ClientSession.setTicket', { code: 'not_base64url', message: 'a ticket is base64url text (A-Z a-z 0-9 - _), as `tandem ticket` prints it' });
        }
        const text = atob(ticket.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (ticket.length % 4)) % 4));
        bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
      } else {
        bytes = bytesOf('ClientSession.setTicket', ticket, LIMITS.ticket);
      }
      const refusal = this.#live().setTicket(bytes);
      if (refusal !== undefined) throw new TicketError('ClientSession.setTicket', refusal);
    }
    /** One whole server message. */
    receive(bytes, nowMs) {
      this.#live().receive(bytesOf('ClientSession.receive', bytes, LIMITS.serverMessage), ms('ClientSession.receive: nowMs', nowMs));
    }
    /** The socket closed (the close code is the transport's; the session decides from what it was told). */
    onDisconnected(code, nowMs) { this.#live().onDisconnected(ms('ClientSession.onDisconnected: nowMs', nowMs)); }
    /** The socket closed without ever opening (refused, unreachable): the next attempt backs off and goes elsewhere. */
    onConnectFailed(nowMs) { this.#live().onConnectFailed(ms('ClientSession.onConnectFailed: nowMs', nowMs)); }
    /**
     * The URL the transport opens first, and the fleet's other WebSocket URLs for this room, tried
     * in turn when a connection does not open. Returns how many of the others were kept (ws:// or
     * wss:// URLs only, no repeats, at most 8).
     */
    setFleet(ownUrl, urls) {
      if (typeof ownUrl !== 'string' || ownUrl.length > URL_CHARS_MAX) {
        throw new TypeError(`ClientSession.setFleet: ownUrl must be a string of at most ${URL_CHARS_MAX} characters, got ${show(ownUrl)}`);
      }
      if (!Array.isArray(urls) || urls.length > FLEET_URLS_MAX) {
        throw new TypeError(`ClientSession.setFleet: urls must be an array of at most ${FLEET_URLS_MAX} strings, got ${show(urls)}`);
      }
      const copied = [];
      for (let i = 0; i < urls.length; ++i) {
        const url = urls[i];
        if (typeof url !== 'string' || url.length > URL_CHARS_MAX) {
          throw new TypeError(`ClientSession.setFleet: urls[${i}] must be a string of at most ${URL_CHARS_MAX} characters, got ${show(url)}`);
        }
        copied.push(url);
      }
      return this.#live().setFleet(ownUrl, copied);
    }
    shouldReconnect() { return this.#live().shouldReconnect(); }
    get reconnectDelayMs() { return this.#live().reconnectDelayMs(); }
    /** Where the next socket goes: a room_moved's URL, or the fleet's entry it is at; '' = the transport's own URL. */
    get nextUrl() { return this.#live().nextUrl(); }
    /** The messages to send, in order (fresh Uint8Arrays); empties the queue. */
    takeOutgoing() { return this.#live().takeOutgoing(); }
    /** Applies what is due within budgetMs of stepping; returns the ticks applied. */
    advance(nowMs, budgetMs) {
      return this.#live().advance(ms('ClientSession.advance: nowMs', nowMs), ms('ClientSession.advance: budgetMs', budgetMs));
    }
    onSuspend(nowMs) { this.#live().onSuspend(ms('ClientSession.onSuspend: nowMs', nowMs)); }
    onResume(nowMs) { this.#live().onResume(ms('ClientSession.onResume: nowMs', nowMs)); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }
  Object.assign(ClientSession.prototype, sessionSurface('ClientSession', deps, handleOf));
  /**
   * Whether `predict: true` is available in this build of the module: every build binds the
   * predicted client (client::PredictedClient<G>); pages check it before asking for it.
   */
  ClientSession.predicts = true;
  return disposable(ClientSession);
}

// ---- ScriptedBot ---------------------------------------------------------------------------------

function makeScriptedBot(m) {
  /**
   * A scripted player for a Room with no server around it: it sends a hello, commands as the
   * game's bot policy says from its seed, and acks the frames it is sent (with the room's own
   * digest: it holds no state). Connect it like a client: room.connect, then move its
   * takeOutgoing() to room.receive and the room's sends to it to receive().
   */
  class ScriptedBot {
    #h;

    /** @param {{seed: number}} options seed: a safe integer >= 0 that chooses the path */
    constructor({ seed } = {}) {
      this.#h = own(this, m.bot_create(integer('new ScriptedBot: seed', seed, 0, Number.MAX_SAFE_INTEGER)));
    }

    #live() { return live(this.#h, 'ScriptedBot'); }

    /** The connection opened: queues the hello. */
    onConnected() { this.#live().onConnected(); }
    /** One whole server message. */
    receive(bytes) { this.#live().receive(bytesOf('ScriptedBot.receive', bytes, LIMITS.serverMessage)); }
    /** The messages to send, in order; empties the queue. */
    takeOutgoing() { return this.#live().takeOutgoing(); }
    /** {welcomed, player, tick, commandsSent, acksSent, malformedIn, refused, command}. */
    figures() { return this.#live().figures(); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }
  return disposable(ScriptedBot);
}

// ---- OfflineMatch ----------------------------------------------------------------------------------

function makeOfflineMatch(m, deps) {
  /**
   * A match with no server (a page's offline mode): the game's Room, this page's own session
   * (with its prediction) and `bots` ScriptedBots in one C++ net::Match, over links without
   * latency. The room ticks on its own fixed-step clock: call pump(nowMs) from a timer (it
   * pays the ticks owed, at most 1.1 s of them at once) and advance(nowMs, budgetMs) once per
   * page frame. Everything the session does against a server it does here: verification, acks,
   * resume after an absence, reconnecting after the room closed it.
   */
  let handleOf;
  class OfflineMatch {
    #h;

    static {
      handleOf = (match) => match.#live();
    }

    /**
     * @param {object} options the game's knobs (`config`), inputDelayTicks, bots (default 3),
     *   botSeed (default 1), and a session's options (watch, nowMs, predict, predictWindowTicks,
     *   measureStepCost)
     */
    constructor({ config = {}, inputDelayTicks, bots = 3, botSeed = 1, ...session } = {}) {
      const where = 'new OfflineMatch';
      const o = sessionOptions(where, session);
      const room = roomConfig(`${where}: config`, deps.schema, inputDelayTicks === undefined ? config : { ...config, inputDelayTicks });
      const result = m.offline_create({ ...room, ...o, bots: integer(`${where}: bots`, bots, 0, 64),
        botSeed: integer(`${where}: botSeed`, botSeed, 0, 2 ** 40) });
      if (typeof result === 'string') throw new Error(`${where}: ${result}`);
      if (result.field !== undefined) throw configRefused(`${where}: config`, result);
      this.#h = own(this, result);
    }

    #live() { return live(this.#h, 'OfflineMatch'); }

    /** The room's ticks owed by now (each followed by its messages); returns how many. */
    pump(nowMs) { return this.#live().pump(ms('OfflineMatch.pump: nowMs', nowMs)); }
    /** One page frame: pump, then the session's advance within budgetMs; returns the ticks it applied. */
    advance(nowMs, budgetMs) {
      return this.#live().advance(ms('OfflineMatch.advance: nowMs', nowMs), ms('OfflineMatch.advance: budgetMs', budgetMs));
    }
    onSuspend(nowMs) { this.#live().onSuspend(ms('OfflineMatch.onSuspend: nowMs', nowMs)); }
    onResume(nowMs) { this.#live().onResume(ms('OfflineMatch.onResume: nowMs', nowMs)); }
    /** The room's state digest, tick, tick rate and stats, and each bot's figures (tests and tools). */
    roomFigures() { return this.#live().roomFigures(); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }
  const surface = sessionSurface('OfflineMatch', deps, handleOf);
  // The link's figures too: whether the room's socket to this page is open, refused or waiting.
  const figures = surface.figures;
  surface.figures = function offlineFigures() {
    const f = figures.call(this);
    return { ...f, link: f.session.link };
  };
  Object.assign(OfflineMatch.prototype, surface);
  return disposable(OfflineMatch);
}
