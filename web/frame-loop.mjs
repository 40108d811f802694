// The page's one requestAnimationFrame loop: each frame hands the adapter the time and the
// budget it may spend on simulation (adapter.advance decides how many ticks fit), then draws
// what the adapter shows and updates the HUD. It measures its own frames (gaps between
// callbacks, time spent inside them) for the HUD and the tests; it never steps anything.

// What a frame may spend on simulation (catch-up included) is the adapter's to say: on this
// thread the client session's own rule, from the module (tandem.frameBudgetMs: 8 ms, or half
// the gap since the previous frame when frames come slower, at most 32 ms, one constant in C++),
// so a page drawing few frames still steps the tick rate and no frame grows past what a person
// notices; the session in its worker budgets its own advances (tandem.workerBudgetMs).

const HISTORY = 600;   // frames of history kept for plots and tests (10 s at 60 fps)

/** Gaps and work times of recent frames; max values since the last reset(). */
export class FrameStats {
  frames = 0;
  maxGapMs = 0;
  maxWorkMs = 0;        // the whole callback: simulation, drawing, HUD
  maxAdvanceMs = 0;     // the simulation's share (adapter.advance)
  lastGapMs = 0;
  gaps = [];
  works = [];
  // Each frame's callback split: [advance, draw (renderer.draw), HUD] in ms (page-figures says
  // which part a slow frame spent its time in).
  parts = [];
  #last = null;

  record(timestampMs, workMs, advanceMs, drawMs = 0, hudMs = 0) {
    if (this.#last !== null) {
      this.lastGapMs = timestampMs - this.#last;
      this.maxGapMs = Math.max(this.maxGapMs, this.lastGapMs);
      this.gaps.push(this.lastGapMs);
      if (this.gaps.length > HISTORY) this.gaps.shift();
    }
    this.#last = timestampMs;
    this.frames += 1;
    this.maxWorkMs = Math.max(this.maxWorkMs, workMs);
    this.maxAdvanceMs = Math.max(this.maxAdvanceMs, advanceMs);
    this.works.push(workMs);
    if (this.works.length > HISTORY) this.works.shift();
    this.parts.push([advanceMs, drawMs, hudMs]);
    if (this.parts.length > HISTORY) this.parts.shift();
  }

  /** Starts a new measurement window (the next gap is measured from the next frame). */
  reset() {
    this.frames = 0;
    this.maxGapMs = 0;
    this.maxWorkMs = 0;
    this.maxAdvanceMs = 0;
    this.gaps = [];
    this.works = [];
    this.parts = [];
  }

  summary() {
    const quantile = (xs) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : 0);
    };
    const at = quantile(this.works);
    const [advance, draw, hud] = [0, 1, 2].map((i) => quantile(this.parts.map((p) => p[i])));
    return { frames: this.frames, maxGapMs: this.maxGapMs, maxWorkMs: this.maxWorkMs, maxAdvanceMs: this.maxAdvanceMs,
      p50WorkMs: at(0.5), p90WorkMs: at(0.9), p99WorkMs: at(0.99), lastGapMs: this.lastGapMs,
      p99AdvanceMs: advance(0.99), p50DrawMs: draw(0.5), p99DrawMs: draw(0.99), p50HudMs: hud(0.5), p99HudMs: hud(0.99) };
  }
}

/**
 * @param {{
 *   adapter: {advance(nowMs: number, budgetMs: number): void, frameBudgetMs(gapMs: number): number, renderView(): object, figures(): object},
 *   renderer: {draw(view: object, nowMs: number): void},
 *   hud: {update(figures: object, view: object, frames: FrameStats, nowMs: number): void},
 * }} parts the adapter's frameBudgetMs(gapMs) is what a frame may spend
 */
export function startFrameLoop({ adapter, renderer, hud }) {
  const stats = new FrameStats();
  // 'tandem:first-verified' marks the frame whose advance verified the page's first tick: the
  // moment itself, which a poll from outside would see only when the main thread is next
  // free (the view's modules are parsed right after it).
  let firstVerifiedMarked = false;
  let handle = 0;
  let running = true;
  let failure = null;
  let lastTimestampMs = null;

  const frame = (timestampMs) => {
    if (!running) return;
    handle = requestAnimationFrame(frame);
    const start = performance.now();
    let advanced = start;
    let drawn = start;
    try {
      adapter.advance(start, adapter.frameBudgetMs(lastTimestampMs === null ? 0 : timestampMs - lastTimestampMs));
      advanced = performance.now();
      if (!firstVerifiedMarked) {
        // A world that verifies nothing (?scenario: verification null) stops looking at once.
        const { verification } = adapter.figures();
        if (verification === null || verification.verifiedTicks > 0) {
          firstVerifiedMarked = true;
          // A session in a worker says when it verified (on this thread's clock): the figures
          // reach this frame up to a frame later.
          // 'tandem:first-verified-drawn': this frame, the first to draw a verified world.
          if (verification !== null) {
            performance.mark('tandem:first-verified', { startTime: Math.min(advanced, adapter.firstVerifiedAtMs ?? advanced) });
            performance.mark('tandem:first-verified-drawn', { startTime: advanced });
          }
        }
      }
      const view = adapter.renderView();
      renderer.draw(view, start);
      drawn = performance.now();
      hud.update(adapter.figures(), view, stats, start);
    } catch (error) {
      // One broken frame must not leave a frozen page that looks alive: stop and say why.
      running = false;
      cancelAnimationFrame(handle);
      failure = error;
      hud.fail?.(error);
      throw error;
    }
    const end = performance.now();
    stats.record(timestampMs, end - start, advanced - start, drawn - advanced, end - drawn);
    lastTimestampMs = timestampMs;
  };
  handle = requestAnimationFrame(frame);

  return {
    stats,
    failure: () => failure,
    stop() {
      running = false;
      cancelAnimationFrame(handle);
    },
  };
}
