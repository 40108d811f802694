// The page's one requestAnimationFrame loop: each frame hands the adapter the time and the
// budget it may spend on simulation (adapter.advance decides how many ticks fit), then draws
// what the adapter shows and updates the HUD. It measures its own frames (gaps between
// callbacks, time spent inside them) for the HUD and the tests; it never steps anything.

// Of a 16.7 ms frame at 60 Hz, what simulation (catch-up included) may take: the rest is
// drawing, the HUD and the browser's own work. A frame over 50 ms is what a person notices.
export const SIMULATION_BUDGET_MS = 8;
// A page that draws fewer frames (a slow phone, software WebGL on a loaded machine) must
// still step 60 ticks a second or it falls behind for ever: the budget grows with the gap
// since the previous frame (half of it), never past this, so no frame grows past what a
// person notices.
export const SIMULATION_BUDGET_MAX_MS = 30;

/** This frame's simulation budget from the gap since the previous frame (0: unknown). */
export function frameBudgetMs(baseMs, gapMs) {
  return Math.min(SIMULATION_BUDGET_MAX_MS, Math.max(baseMs, gapMs > 0 && gapMs < 1000 ? gapMs / 2 : baseMs));
}

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
  #last = null;

  record(timestampMs, workMs, advanceMs) {
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
  }

  /** Starts a new measurement window (the next gap is measured from the next frame). */
  reset() {
    this.frames = 0;
    this.maxGapMs = 0;
    this.maxWorkMs = 0;
    this.maxAdvanceMs = 0;
    this.gaps = [];
    this.works = [];
  }

  summary() {
    const sorted = [...this.works].sort((a, b) => a - b);
    const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : 0);
    return { frames: this.frames, maxGapMs: this.maxGapMs, maxWorkMs: this.maxWorkMs, maxAdvanceMs: this.maxAdvanceMs,
      p50WorkMs: at(0.5), p90WorkMs: at(0.9), p99WorkMs: at(0.99), lastGapMs: this.lastGapMs };
  }
}

/**
 * @param {{
 *   adapter: {advance(nowMs: number, budgetMs: number): void, renderView(): object, figures(): object},
 *   renderer: {draw(view: object, nowMs: number): void},
 *   hud: {update(figures: object, frame: object, nowMs: number): void},
 *   budgetMs?: number,
 * }} parts
 */
export function startFrameLoop({ adapter, renderer, hud, budgetMs = SIMULATION_BUDGET_MS }) {
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
    try {
      adapter.advance(start, frameBudgetMs(budgetMs, lastTimestampMs === null ? 0 : timestampMs - lastTimestampMs));
      advanced = performance.now();
      if (!firstVerifiedMarked) {
        // A world that verifies nothing (?scenario: verification null) stops looking at once.
        const { verification } = adapter.figures();
        if (verification === null || verification.verifiedTicks > 0) {
          firstVerifiedMarked = true;
          // A session in a worker says when it verified (on this thread's clock): the figures
          // reach this frame up to a frame later.
          if (verification !== null) performance.mark('tandem:first-verified', { startTime: Math.min(advanced, adapter.firstVerifiedAtMs ?? advanced) });
        }
      }
      renderer.draw(adapter.renderView(), start);
      hud.update(adapter.figures(), stats.summary(), start);
    } catch (error) {
      // One broken frame must not leave a frozen page that looks alive: stop and say why.
      running = false;
      cancelAnimationFrame(handle);
      failure = error;
      hud.fail?.(error);
      throw error;
    }
    stats.record(timestampMs, performance.now() - start, advanced - start);
    lastTimestampMs = timestampMs;
  };
  handle = requestAnimationFrame(frame);

  return {
    stats,
    budgetMs,
    failure: () => failure,
    stop() {
      running = false;
      cancelAnimationFrame(handle);
    },
  };
}
