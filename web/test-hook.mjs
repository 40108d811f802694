// window.__tandem: what the end-to-end tests read from the page (state, figures, frame
// timings, the lifecycle log). Read-only views of the parts plus resetting the frame
// statistics; it never changes the simulation, so a page under test runs as a person's does.

export function installTestHook(options) {
  const hook = {
    ready: false,
    error: null,
    options,
    parts: null,
    /** The adapter's figures, as the HUD shows them. */
    figures() { return hook.parts?.adapter.figures() ?? null; },
    /**
     * The session's figures as they are in its worker now (a hidden page draws no frames, so
     * figures() stops moving): a promise; the same as figures() for a session on this thread.
     */
    async sessionNow() {
      const adapter = hook.parts?.adapter;
      const inner = adapter?.inner ?? adapter;
      return typeof inner?.probe === 'function' ? inner.probe() : adapter?.figures() ?? null;
    },
    /** Where the server session runs: 'worker', or 'main' (also every mode without a server). */
    sessionThread() {
      const adapter = hook.parts?.adapter;
      return typeof (adapter?.inner ?? adapter)?.probe === 'function' ? 'worker' : 'main';
    },
    /** Frame gaps and work times since the last resetFrames(). */
    frames() { return hook.parts?.loop.stats.summary() ?? null; },
    /** Recent gaps between frame callbacks, in ms (newest last). */
    frameGaps() { return hook.parts ? [...hook.parts.loop.stats.gaps] : []; },
    /** The simulation's share of a frame at 60 frames a second, in ms (the adapter's rule; 0: its worker decides). */
    get budgetMs() { return hook.parts?.adapter.frameBudgetMs(1000 / 60) ?? null; },
    resetFrames() { hook.parts?.loop.stats.reset(); },
    /**
     * The adapter's render view as plain data: tick, alpha, me, whether predicted, each list's
     * element count (`counts`) and its elements as objects of the columns drawn (`lists`, e.g.
     * lists.things[0]['pos.x']; lists of more than 64 elements are left out: count only), the
     * scalars drawn, and the events' kinds.
     */
    view() {
      const v = hook.parts?.adapter.renderView();
      if (!v) return null;
      const counts = {};
      const lists = {};
      for (const [name, { count, columns }] of Object.entries(v.current?.lists ?? {})) {
        counts[name] = count;
        if (count > 64) continue;
        lists[name] = Array.from({ length: count }, (_, i) => Object.fromEntries(Object.entries(columns).map(([k, a]) => [k, a[i]])));
      }
      return { tick: v.tick, alpha: v.alpha, me: v.me, predicted: v.predicted, hasWorld: v.hasWorld ?? v.current !== null,
        counts, lists, scalars: v.current?.scalars ?? {}, events: v.events.map((e) => e.kind) };
    },
    /** The players and scores the HUD lists (from the view, as the game's plugin names them). */
    players() { return hook.parts?.hud.lastPlayers ?? []; },
    /** What the renderer drew last frame. */
    drawn() { return hook.parts?.renderer.stats() ?? null; },
    lifecycleLog() { return hook.parts ? [...hook.parts.lifecycle.log] : []; },
    suspended() { return hook.parts?.lifecycle.suspended() ?? null; },
    resumeText() { return document.getElementById('resume').textContent; },
    loopFailure() { const f = hook.parts?.loop.failure(); return f ? String(f.stack ?? f) : null; },
    attach(parts) {
      hook.parts = parts;
      // Read live: the page may switch to the offline mode when no server answers.
      Object.defineProperty(hook, 'mode', { get: () => parts.adapter.mode, enumerable: true, configurable: true });
      hook.ready = true;
    },
    fail(error) { hook.error = String(error?.stack ?? error); },
  };
  window.__tandem = hook;
  return hook;
}
