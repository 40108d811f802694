// The WebSocket, and nothing more: opens it, hands every binary message in as bytes, sends
// bytes out, and reopens a closed socket after a growing delay. It never reads a message,
// never decides what to send or whether a session is healthy: its owner (the session
// adapter) does that, and stop() is how the owner says "do not reconnect".
// It may be started before its owner exists (the page opens the socket before the wasm module
// is ready): until attach(), what happens is kept in order, bounded, and handed over then.

// Reconnect delays: the first retry at once (a frozen tab comes back to a dead socket and
// should be live again within a second), then doubling from 250 ms up to 8 s, so a server
// that is down is not hammered.
export const RECONNECT_FIRST_BACKOFF_MS = 250;
export const RECONNECT_MAX_MS = 8000;

// What may wait for the owner: events (open, message, close, state) and message bytes. Past
// either, the early socket is closed and forgotten, and attach() opens a fresh one: the owner
// then sees a connection that started late, never one with a hole in it.
export const EARLY_MAX_EVENTS = 256;
export const EARLY_MAX_BYTES = 1 << 20;

export function reconnectDelayMs(attempt) {
  return attempt === 0 ? 0 : Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_BACKOFF_MS * 2 ** (attempt - 1));
}

export class Transport {
  #url;
  #firstUrl;
  #handlers;
  #socket = null;
  #attempt = 0;
  #retryTimer = null;
  #stopped = false;
  // Before attach(): the events so far, each with the socket it came from; null once attached.
  #early = [];
  #earlyBytes = 0;
  #overflowed = false;
  #generation = 0;
  // While attach() hands over an earlier socket's events, send() must not put their replies
  // on a newer socket.
  #replaying = null;
  /** performance.now() when start() was first called: no event is older. */
  startedAtMs = null;
  /** performance.now() when a socket first opened, and when its first message arrived (start-up figures); when one last opened. */
  firstOpenAtMs = null;
  firstMessageAtMs = null;
  lastOpenAtMs = null;

  /**
   * @param {string} url ws:// or wss:// URL
   * @param {{
   *   onOpen?: (nowMs: number) => void,
   *   onMessage: (bytes: Uint8Array, nowMs: number) => void,
   *   onClose?: (code: number, reason: string, nowMs: number, opened: boolean) => void,
   *   retryDelayMs?: () => number,
   *   retryUrl?: () => string,
   *   onState?: (state: {state: string, attempt: number, retryInMs?: number, code?: number, reason?: string}) => void,
   * }} [handlers] the owner's; without them, events wait for attach()
   */
  constructor(url, handlers = null) {
    this.#url = url;
    this.#firstUrl = url;
    this.#handlers = handlers;
    if (handlers !== null) this.#early = null;
  }

  /**
   * The owner arrives: the events kept so far are handed over in order, each with the time it
   * happened, then everything goes straight to it.
   */
  attach(handlers) {
    if (this.#early === null) throw new Error('Transport.attach: already has its owner');
    const early = this.#early;
    this.#early = null;
    this.#handlers = handlers;
    if (this.#overflowed) {
      this.#overflowed = false;
      this.start();
      return;
    }
    try {
      for (const { generation, kind, args } of early) {
        this.#replaying = generation;
        this.#emit(kind, ...args);
        if (this.#stopped) break;   // the owner said stop (a refusal): the rest is moot
      }
    } finally {
      this.#replaying = null;
    }
  }

  /** Whether its owner has its handlers (given to the constructor, or by attach()). */
  get attached() { return this.#early === null; }

  get open() { return this.#socket !== null && this.#socket.readyState === WebSocket.OPEN; }

  start() {
    this.#stopped = false;
    this.startedAtMs ??= performance.now();
    this.#connect();
  }

  /** Sends one whole message; false when the socket is not open (the bytes are not queued). */
  send(bytes) {
    if (!this.open) return false;
    if (this.#replaying !== null && this.#replaying !== this.#generation) return false;
    this.#socket.send(bytes);
    return true;
  }

  /** Closes the socket and stays closed until start() is called again. */
  stop(code = 1000, reason = '') {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    if (this.#socket !== null) this.#socket.close(code, reason);
  }

  #connect() {
    this.#generation += 1;
    this.#emit('onState', { state: 'connecting', attempt: this.#attempt });
    if (this.#overflowed) return;
    let socket;
    try {
      socket = new WebSocket(this.#url);
    } catch (error) {
      this.#emit('onState', { state: 'failed', attempt: this.#attempt, reason: String(error.message ?? error) });
      return;
    }
    socket.binaryType = 'arraybuffer';
    // Whether this socket ever opened: a close without it is a connection that failed (the
    // owner's session moves on to another of the fleet's URLs).
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.lastOpenAtMs = performance.now();
      this.firstOpenAtMs ??= this.lastOpenAtMs;
      this.#attempt = 0;
      this.#emit('onState', { state: 'open', attempt: 0 });
      this.#emit('onOpen', performance.now());
    };
    socket.onmessage = (event) => {
      if (!(event.data instanceof ArrayBuffer)) return;
      const nowMs = performance.now();
      this.firstMessageAtMs ??= nowMs;
      this.#emit('onMessage', new Uint8Array(event.data), nowMs);
    };
    socket.onclose = (event) => {
      this.#detach(socket);
      if (this.#socket === socket) this.#socket = null;
      this.#emit('onClose', event.code, event.reason, performance.now(), opened);
      if (this.#stopped) {
        this.#emit('onState', { state: 'closed', attempt: this.#attempt, code: event.code, reason: event.reason });
        return;
      }
      // The owner's schedule when it has one (the client session's, which restarts only once a
      // tick verifies, so a socket that opens and is refused at once still backs off).
      // Before the owner exists, the plain schedule.
      const retryInMs = this.#handlers?.retryDelayMs?.() ?? reconnectDelayMs(this.#attempt);
      // Where the owner's session says (a room that moved to another process, or the fleet's
      // next URL after one that did not open); '' or no owner yet: the URL it was given.
      this.#url = this.#handlers?.retryUrl?.() || this.#firstUrl;
      this.#attempt += 1;
      this.#emit('onState', { state: 'waiting', attempt: this.#attempt, retryInMs, code: event.code, reason: event.reason });
      if (this.#overflowed) return;
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = null;
        this.#connect();
      }, retryInMs);
    };
    this.#socket = socket;
  }

  // To the owner, or kept for it (bounded) until it attaches.
  #emit(kind, ...args) {
    if (this.#early === null) {
      this.#handlers[kind]?.(...args);
      return;
    }
    if (this.#overflowed) return;
    this.#early.push({ generation: this.#generation, kind, args });
    if (kind === 'onMessage') this.#earlyBytes += args[0].length;
    if (this.#early.length > EARLY_MAX_EVENTS || this.#earlyBytes > EARLY_MAX_BYTES) {
      this.#overflowed = true;
      this.#early = [];
      this.#earlyBytes = 0;
      clearTimeout(this.#retryTimer);
      this.#retryTimer = null;
      if (this.#socket !== null) {
        this.#detach(this.#socket);
        this.#socket.close(1000, 'page not ready');
        this.#socket = null;
      }
    }
  }

  #detach(socket) {
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
  }
}
