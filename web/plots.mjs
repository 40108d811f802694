// The HUD's two small canvases: a live line plot of recent values, and the digest agreement
// strip (one column per tick: verified, mismatched or not checked). Both only draw what they
// are given; neither judges a digest.

const dpr = () => Math.min(window.devicePixelRatio || 1, 2);

// Each canvas's size on the page, kept by a ResizeObserver: reading clientWidth in a frame
// whose HUD text just changed would make the browser lay the page out inside the frame callback.
const cssSizes = new WeakMap();
const resized = typeof ResizeObserver === 'function'
  ? new ResizeObserver((entries) => {
    for (const e of entries) cssSizes.set(e.target, { w: e.contentRect.width, h: e.contentRect.height });
  })
  : null;

function fitCanvas(canvas) {
  let css = cssSizes.get(canvas);
  if (css === undefined) {
    css = { w: canvas.clientWidth, h: canvas.clientHeight };   // once; the observer keeps it after
    cssSizes.set(canvas, css);
    resized?.observe(canvas);
    if (resized === null) cssSizes.delete(canvas);
  }
  const w = Math.max(1, Math.round(css.w * dpr()));
  const h = Math.max(1, Math.round(css.h * dpr()));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  return { w, h };
}

/** A scrolling line of the last `length` values, scaled to its largest recent value. */
export class LivePlot {
  #canvas;
  #values;
  #next = 0;
  #filled = 0;
  #colour;
  #floor;

  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{length?: number, colour?: string, floor?: number}} [options] floor: the smallest full scale
   */
  constructor(canvas, { length = 240, colour = '#4cc9f0', floor = 1 } = {}) {
    this.#canvas = canvas;
    this.#values = new Float32Array(length);
    this.#colour = colour;
    this.#floor = floor;
  }

  push(value) {
    this.#values[this.#next] = Number.isFinite(value) ? value : 0;
    this.#next = (this.#next + 1) % this.#values.length;
    this.#filled = Math.min(this.#filled + 1, this.#values.length);
  }

  draw() {
    const { w, h } = fitCanvas(this.#canvas);
    const ctx = this.#canvas.getContext('2d');
    ctx.clearRect(0, 0, w, h);
    const n = this.#values.length;
    let max = this.#floor;
    for (let i = 0; i < this.#filled; ++i) max = Math.max(max, this.#values[i]);
    ctx.strokeStyle = this.#colour;
    ctx.lineWidth = dpr();
    ctx.beginPath();
    for (let k = 0; k < this.#filled; ++k) {
      const v = this.#values[(this.#next - this.#filled + k + n) % n];
      const x = (k / (n - 1)) * w;
      const y = h - 2 - (v / max) * (h - 14 * dpr());
      if (k === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    ctx.stroke();
    const last = this.#filled ? this.#values[(this.#next - 1 + n) % n] : 0;
    ctx.fillStyle = '#dfe6ee';
    ctx.font = `${11 * dpr()}px system-ui, sans-serif`;
    ctx.textBaseline = 'top';
    ctx.fillText(`${formatValue(last)}  (max ${formatValue(max)})`, 4 * dpr(), 2 * dpr());
  }
}

const formatValue = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));

const UNKNOWN = 0;
const VERIFIED = 1;
const MISMATCH = 2;
const COLOURS = ['#2a333f', '#3ccf6e', '#ff4d5e'];

/**
 * The last `span` ticks, each drawn as verified (green), mismatched (red) or unchecked (grey:
 * skipped by a baseline, or not yet compared). Fed with the session's newest verified tick
 * and its mismatch list; marks stay where the mismatch happened and scroll away with time.
 */
export class DigestStrip {
  #canvas;
  #span;
  #state;
  #tickAt;
  #verifiedThrough = -1;

  constructor(canvas, span = 600) {
    this.#canvas = canvas;
    this.#span = span;
    this.#state = new Uint8Array(span);
    this.#tickAt = new Float64Array(span).fill(-1);
  }

  #mark(tick, state) {
    const slot = tick % this.#span;
    if (this.#tickAt[slot] === tick && this.#state[slot] === MISMATCH) return;  // a mismatch mark stays
    this.#tickAt[slot] = tick;
    this.#state[slot] = state;
  }

  /**
   * @param {number|null} verifiedTick the newest tick whose digest matched (null: none yet)
   * @param {Array<{tick: number}>} mismatches every mismatch so far
   */
  update(verifiedTick, mismatches) {
    if (verifiedTick !== null && verifiedTick > this.#verifiedThrough) {
      const from = Math.max(this.#verifiedThrough + 1, verifiedTick - this.#span + 1);
      for (let t = from; t <= verifiedTick; ++t) this.#mark(t, VERIFIED);
      this.#verifiedThrough = verifiedTick;
    }
    for (const m of mismatches) this.#mark(m.tick, MISMATCH);
  }

  /** Restarts (a new world: another room or a restarted server). */
  clear() {
    this.#state.fill(UNKNOWN);
    this.#tickAt.fill(-1);
    this.#verifiedThrough = -1;
  }

  draw(newestTick) {
    const { w, h } = fitCanvas(this.#canvas);
    const ctx = this.#canvas.getContext('2d');
    ctx.fillStyle = COLOURS[UNKNOWN];
    ctx.fillRect(0, 0, w, h);
    if (newestTick === null || newestTick < 0) return;
    const first = newestTick - this.#span + 1;
    const column = w / this.#span;
    // Mismatches last and wider than a column: one tick among 600 must still be seen. A run of
    // columns in one state is one rectangle (a verified strip is one or two, not 600 a draw:
    // the HUD draws it 30 times a second on the thread that draws the game).
    for (const pass of [VERIFIED, MISMATCH]) {
      ctx.fillStyle = COLOURS[pass];
      const extra = pass === MISMATCH ? 2 * dpr() : 0;
      let runStart = -1;
      for (let k = 0; k <= this.#span; ++k) {
        const tick = first + k;
        const slot = tick % this.#span;
        const inPass = k < this.#span && tick >= 0 && this.#tickAt[slot] === tick && this.#state[slot] === pass;
        if (inPass && runStart < 0) runStart = k;
        if (inPass || runStart < 0) continue;
        ctx.fillRect(runStart * column - extra, 0, (k - runStart) * column + 2 * extra + 0.5, h);
        runStart = -1;
      }
    }
  }
}
