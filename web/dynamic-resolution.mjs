// A view's drawing resolution, lowered while its frames come slowly and raised again once they
// are quick. A browser drawing WebGL in software (no GPU: a VM, a headless browser, a blocked
// driver) draws a 3D view of a few thousand objects 15 times a second at full resolution on two
// cores, and every input waits for those frames on its way to the screen. Pure: fed the time of
// each frame, it says the scale to draw at; the renderer applies it (any game's view may use it).

/** The scales tried, full resolution first: below half, the view is too coarse to read. */
export const RESOLUTION_STEPS = Object.freeze([1, 0.75, 0.5]);
// A verdict per this many frames: long enough that one slow frame (a collection, a layout)
// decides nothing, short enough that a slow machine is seen within a few seconds.
export const WINDOW_FRAMES = 24;
// Slow: a median frame gap over this (fewer than 25 frames a second). Quick: under this (more
// than 50 frames a second), so a display at 30 Hz is neither, and keeps its resolution.
export const SLOW_GAP_MS = 40;
export const QUICK_GAP_MS = 20;
// Very slow (fewer than 20 frames a second): two steps down at once. Each change reallocates
// the canvas (3-6 ms of a frame in Chromium with software WebGL), and the slow frames end sooner.
export const VERY_SLOW_GAP_MS = 50;
// A gap this long is an absence (a hidden tab draws no frames), not a slow frame.
export const ABSENCE_GAP_MS = 250;
// After lowering, the wait before trying the next scale up; doubled each time a try proves
// slow again straight away (so a machine on the edge does not flicker between two scales).
export const FIRST_RAISE_WAIT_MS = 4000;
export const LONGEST_RAISE_WAIT_MS = 120_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export class DynamicResolution {
  #steps;
  #index = 0;
  #pinned;
  #gaps = [];
  #lastFrameMs = null;
  #raiseWaitMs = FIRST_RAISE_WAIT_MS;
  #raiseAfterMs = 0;
  #justRaised = false;
  /** The latest change: {scale, medianGapMs}, or null while at full resolution from the start. */
  lastChange = null;

  /**
   * @param {{pinned?: boolean, steps?: readonly number[]}} options pinned: always full
   *   resolution (the page's ?full-resolution)
   */
  constructor({ pinned = false, steps = RESOLUTION_STEPS } = {}) {
    this.#pinned = pinned;
    this.#steps = steps;
  }

  get scale() { return this.#steps[this.#index]; }

  /**
   * A frame drawn at `nowMs` (performance.now()). Returns the scale to draw at from this frame
   * on; it changes at most once per WINDOW_FRAMES frames.
   */
  frame(nowMs) {
    if (this.#pinned) return this.scale;
    if (this.#lastFrameMs !== null) {
      const gap = nowMs - this.#lastFrameMs;
      if (gap <= ABSENCE_GAP_MS) this.#gaps.push(gap);
    }
    this.#lastFrameMs = nowMs;
    if (this.#gaps.length < WINDOW_FRAMES) return this.scale;
    const gapMs = median(this.#gaps);
    this.#gaps = [];
    const raisedLast = this.#justRaised;
    this.#justRaised = false;
    if (gapMs > SLOW_GAP_MS && this.#index < this.#steps.length - 1) {
      // Slow straight after a raise: that scale is too much for this machine for a while longer.
      if (raisedLast) this.#raiseWaitMs = Math.min(this.#raiseWaitMs * 2, LONGEST_RAISE_WAIT_MS);
      const down = gapMs > VERY_SLOW_GAP_MS ? 2 : 1;
      this.#change(Math.min(this.#index + down, this.#steps.length - 1), gapMs);
      this.#raiseAfterMs = nowMs + this.#raiseWaitMs;
    } else if (gapMs < QUICK_GAP_MS && this.#index > 0 && nowMs >= this.#raiseAfterMs) {
      this.#change(this.#index - 1, gapMs);
      this.#justRaised = true;
    }
    return this.scale;
  }

  #change(index, medianGapMs) {
    this.#index = index;
    this.lastChange = { scale: this.scale, medianGapMs };
  }
}

/** The HUD's words for the latest change, or null at full resolution. */
export function resolutionNotice(resolution) {
  const change = resolution.lastChange;
  if (change === null || change.scale === 1) return null;
  const perSecond = Math.round(1000 / change.medianGapMs);
  return `Frames came ${perSecond} a second here: the 3D view draws at ${Math.round(change.scale * 100)}% resolution to keep up (?full-resolution keeps it full).`;
}
