// The WebSocket, and nothing more: opens it, hands every binary message in as bytes, sends
// bytes out, and reopens a closed socket after a growing delay. It never reads a message,
// never decides what to send or whether a session is healthy: its owner (the session
// adapter) does that, and stop() is how the owner says "do not reconnect".

// Reconnect delays: the first retry at once (a frozen tab comes back to a dead socket and
// should be live again within a second), then doubling from 250 ms up to 8 s, so a server
// that is down is not hammered.
export const RECONNECT_FIRST_BACKOFF_MS = 250;
export const RECONNECT_MAX_MS = 8000;

export function reconnectDelayMs(attempt) {
  return attempt === 0 ? 0 : Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_BACKOFF_MS * 2 ** (attempt - 1));
}

export class Transport {
  #url;
  #handlers;
  #socket = null;
  #attempt = 0;
  #retryTimer = null;
  #stopped = false;

  /**
   * @param {string} url ws:// or wss:// URL
   * @param {{
   *   onOpen?: (nowMs: number) => void,
   *   onMessage: (bytes: Uint8Array, nowMs: number) => void,
   *   onClose?: (code: number, reason: string, nowMs: number) => void,
   *   retryDelayMs?: () => number,
   *   onState?: (state: {state: string, attempt: number, retryInMs?: number, code?: number, reason?: string}) => void,
   * }} handlers
   */
  constructor(url, handlers) {
    this.#url = url;
    this.#handlers = handlers;
  }

  get open() { return this.#socket !== null && this.#socket.readyState === WebSocket.OPEN; }

  start() {
    this.#stopped = false;
    this.#connect();
  }

  /** Sends one whole message; false when the socket is not open (the bytes are not queued). */
  send(bytes) {
    if (!this.open) return false;
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
    this.#handlers.onState?.({ state: 'connecting', attempt: this.#attempt });
    let socket;
    try {
      socket = new WebSocket(this.#url);
    } catch (error) {
      this.#handlers.onState?.({ state: 'failed', attempt: this.#attempt, reason: String(error.message ?? error) });
      return;
    }
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      this.#attempt = 0;
      this.#handlers.onState?.({ state: 'open', attempt: 0 });
      this.#handlers.onOpen?.(performance.now());
    };
    socket.onmessage = (event) => {
      if (event.data instanceof ArrayBuffer) this.#handlers.onMessage(new Uint8Array(event.data), performance.now());
    };
    socket.onclose = (event) => {
      this.#detach(socket);
      if (this.#socket === socket) this.#socket = null;
      this.#handlers.onClose?.(event.code, event.reason, performance.now());
      if (this.#stopped) {
        this.#handlers.onState?.({ state: 'closed', attempt: this.#attempt, code: event.code, reason: event.reason });
        return;
      }
      // The owner's schedule when it has one (the client session's, which restarts only once a
      // tick verifies, so a socket that opens and is refused at once still backs off).
      const retryInMs = this.#handlers.retryDelayMs?.() ?? reconnectDelayMs(this.#attempt);
      this.#attempt += 1;
      this.#handlers.onState?.({ state: 'waiting', attempt: this.#attempt, retryInMs, code: event.code, reason: event.reason });
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = null;
        this.#connect();
      }, retryInMs);
    };
    this.#socket = socket;
  }

  #detach(socket) {
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
  }
}
