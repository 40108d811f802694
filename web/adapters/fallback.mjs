// The server session until it proves there is no server: when the WebSocket fails before it
// ever opened (nothing listens at the address), the page switches once to the offline mode
// (a Room in the tab) and says so. A socket that opened and then closed or was refused is the
// session's business (reconnect, back off, show the refusal), never a reason to switch.
// The offline adapter may arrive later than the decision (its module is imported then): until
// it does, the session stays in place, failed, and is disposed at the swap.

export class FallbackAdapter {
  #inner;
  #makeFallback;
  #everOpen = false;
  #fellBack = false;
  #suspendedAtMs = null;

  /**
   * @param {object} first the server session's adapter
   * @param {() => object | Promise<object>} makeFallback builds the offline adapter, once, when needed
   * @param {{server: object, offline: object}} checks the check-against-native action for each
   */
  constructor(first, makeFallback, checks) {
    this.#inner = first;
    this.#makeFallback = makeFallback;
    this.actions = {
      checkAgainstNative: () => (this.#fellBack ? checks.offline() : checks.server()),
      downloadReplay: () => this.#inner.actions.downloadReplay(),
      corrupt: first.actions.corrupt === undefined ? undefined : () => this.#inner.actions.corrupt(),
    };
  }

  get mode() { return this.#inner.mode; }
  get modeLabel() { return this.#inner.modeLabel; }
  get inner() { return this.#inner; }
  get firstVerifiedAtMs() { return this.#inner.firstVerifiedAtMs ?? null; }

  frameBudgetMs(gapMs) { return this.#inner.frameBudgetMs(gapMs); }

  advance(nowMs, budgetMs) {
    // Watched only until the socket first opens (or the switch is made): one look a frame.
    if (!this.#fellBack && !this.#everOpen) this.#watch(nowMs);
    this.#inner.advance(nowMs, budgetMs);
  }

  #watch(nowMs) {
    // everOpened as well as the state now: a hello refused between two frames (open, then the
    // server's error and close) must not read as a socket that never opened.
    // failedBeforeOpen too: a session in its worker is sampled when its answers arrive, which
    // may always fall in a retry's "connecting" (Chromium delays retries to a failing host).
    const { state, everOpened, failedBeforeOpen = false } = this.#inner.figures().connection;
    if (state === 'open' || everOpened) this.#everOpen = true;
    if (this.#everOpen || !(failedBeforeOpen || ['waiting', 'failed', 'closed'].includes(state))) return;
    this.#fellBack = true;
    Promise.resolve(this.#makeFallback()).then((fallback) => {
      this.#inner.dispose();
      this.#inner = fallback;
      // Away since the switch, or since the page went away after it.
      if (this.#suspendedAtMs !== null) fallback.onSuspend(Math.max(nowMs, this.#suspendedAtMs));
    }, (error) => {
      // The offline mode's files did not load (the host went away with the server): the session
      // stays, and reconnects with backoff should the server come back.
      console.error('tandem: the offline mode did not load', error);
    });
  }

  // The page's lifecycle whole: a session in a worker stays live while only hidden; an adapter
  // on this thread is suspended by any absence.
  onLifecycle(nowMs, away) {
    if (typeof this.#inner.onLifecycle === 'function') {
      this.#suspendedAtMs = away.hidden || away.frozen || away.unloaded ? (this.#suspendedAtMs ?? nowMs) : null;
      this.#inner.onLifecycle(nowMs, away);
    } else if (away.hidden || away.frozen || away.unloaded) {
      if (this.#suspendedAtMs === null) this.onSuspend(nowMs);
    } else if (this.#suspendedAtMs !== null) {
      this.onResume(nowMs);
    }
  }

  onSuspend(nowMs) { this.#suspendedAtMs = nowMs; this.#inner.onSuspend(nowMs); }
  onResume(nowMs) { this.#suspendedAtMs = null; this.#inner.onResume(nowMs); }
  sendInput(input) { this.#inner.sendInput(input); }
  renderView() { return this.#inner.renderView(); }
  figures() { return this.#inner.figures(); }
  dispose() { this.#inner.dispose(); }
}
