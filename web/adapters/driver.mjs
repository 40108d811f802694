// What every adapter that runs a client session does the same way, whoever carries its bytes:
// the module's ClientSession against a server (session.mjs) or its OfflineMatch, a room in the
// tab (offline.mjs). One frame's advance and its budget, the absence pair, the person's input
// as the game's command, the view, the figures in the page's shape and the buttons' actions,
// written once. It forwards and counts; every decision is the session's (C++).

/**
 * @param {object} session the module's ClientSession or OfflineMatch (the same surface:
 *   advance, onSuspend, onResume, sendCommand, setView, renderView, figures, exportReplay,
 *   corruptOnce, checkAgainstNative)
 * @param {object} tandem the loaded ES module (the game's package): its frameBudgetMs
 * @param {{view: object, command?: (input: any, tandem: object) => object} | null} plugin the
 *   game's plugin: what it draws, and how its input becomes the game's command (without
 *   command(), the input is the command); null: given later (usePlugin), and until then the
 *   session runs (joins, steps, verifies) but renders nothing and takes no input
 * @param {{debug: boolean, replayName: string, flush?: () => void, resume?: (nowMs: number) => void}} options
 *   flush: moves what the session queued (after each call that may queue a message); resume:
 *   what to do before the session is told of a resume
 */
export class SessionDriver {
  session;
  #tandem;
  #command = null;
  #flush;
  #resume;
  // Frames spent from a resume until the session verified again (the HUD's "in N frames"):
  // counted here because only the page knows what a frame is.
  #resumeFrames = null;
  #countingResume = false;

  constructor(session, tandem, plugin, { debug, replayName, flush = () => {}, resume = () => {} }) {
    this.session = session;
    // What a page frame may spend: the client session's own rule (the module's).
    this.frameBudgetMs = tandem.frameBudgetMs;
    this.#tandem = tandem;
    this.#flush = flush;
    this.#resume = resume;
    if (plugin !== null) this.usePlugin(plugin);
    this.actions = {
      checkAgainstNative: () => session.checkAgainstNative(),
      downloadReplay: () => ({ name: `${replayName}-${Date.now()}.replay`, bytes: session.exportReplay() }),
      // The tick of the state corrupted (the mismatch is due at the next one or two).
      corrupt: debug ? () => { const { tick } = session.figures(); session.corruptOnce(); return { tick }; } : undefined,
    };
  }

  advance(nowMs, budgetMs) {
    this.session.advance(nowMs, budgetMs);
    this.#flush();   // acks and desync reports the advance produced
    if (this.#countingResume) {
      this.#resumeFrames += 1;
      if (this.session.figures().lastResume?.verifiedAfterMs != null) this.#countingResume = false;
    }
  }

  onSuspend(nowMs) { this.session.onSuspend(nowMs); }
  onResume(nowMs) {
    this.#resume(nowMs);
    this.session.onResume(nowMs);
    this.#flush();
    this.#resumeFrames = 0;
    this.#countingResume = true;
  }

  /** The game's plugin, when it was not there at the start: what renderView() selects, and the command of an input. */
  usePlugin(plugin) {
    this.#command = plugin.command ? (input) => plugin.command(input, this.#tandem) : (input) => input;
    this.session.setView(plugin.view);
  }

  /** The person's input, as the plugin's view reads it: the game's command (the session sequences and rate-limits it). */
  sendInput(input) {
    if (this.#command === null) throw new Error('an input before the game\'s plugin was given (usePlugin)');
    this.session.sendCommand(this.#command(input));
    this.#flush();
  }

  renderView(nowMs = performance.now()) { return this.session.renderView(nowMs); }

  /** The page's figures (web/README.md): the session's, with the mode and the connection the adapter knows. */
  figures(extra) {
    const f = this.session.figures();
    const lastResume = f.lastResume === null || this.#resumeFrames === null ? f.lastResume : { ...f.lastResume, frames: this.#resumeFrames };
    return { ...f, lastResume, ...extra };
  }
}
