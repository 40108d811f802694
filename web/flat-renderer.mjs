// The arena seen from above on a 2D canvas: the page's fallback where WebGL is unavailable
// (software-only machines, some headless browsers), so the HUD, the session and steering still
// work. Same interface as ArenaRenderer (draw, arenaPointAt, stats, canvas); presentation only,
// and like it, never keeps the view's arrays.
import { RESPAWN_JUMP, playerColourCss } from './palette.mjs';


export class FlatRenderer {
  kind = '2d';
  #container;
  #canvas;
  #ctx;
  #arenaSize;
  #scale = 1;
  #origin = { x: 0, y: 0 };
  #drawn = { pellets: 0, wells: 0 };

  constructor(container, { arenaSize }) {
    this.#container = container;
    this.#arenaSize = arenaSize;
    this.#canvas = document.createElement('canvas');
    container.appendChild(this.#canvas);
    this.#ctx = this.#canvas.getContext('2d');
    this.resize();
    window.addEventListener('resize', () => this.resize());
  }

  get canvas() { return this.#canvas; }

  resize() {
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, this.#container.clientWidth);
    const h = Math.max(1, this.#container.clientHeight);
    this.#canvas.width = Math.round(w * ratio);
    this.#canvas.height = Math.round(h * ratio);
    // The arena as a square centred in the window, with a margin.
    this.#scale = (Math.min(w, h) * 0.9 * ratio) / this.#arenaSize;
    this.#origin = { x: (this.#canvas.width - this.#arenaSize * this.#scale) / 2, y: (this.#canvas.height - this.#arenaSize * this.#scale) / 2 };
  }

  arenaPointAt(clientX, clientY) {
    const rect = this.#canvas.getBoundingClientRect();
    const px = ((clientX - rect.left) / rect.width) * this.#canvas.width;
    const py = ((clientY - rect.top) / rect.height) * this.#canvas.height;
    const clamp = (v) => Math.min(Math.max(v, 0), this.#arenaSize);
    return { x: clamp((px - this.#origin.x) / this.#scale), y: clamp((py - this.#origin.y) / this.#scale) };
  }

  stats() { return { kind: this.kind, pellets: this.#drawn.pellets, wells: this.#drawn.wells, drawCalls: null, triangles: null }; }

  draw(view) {
    if (view.arenaSize !== null && view.arenaSize !== this.#arenaSize) {
      this.#arenaSize = view.arenaSize;
      this.resize();
    }
    const ctx = this.#ctx;
    const s = this.#scale;
    const { x: ox, y: oy } = this.#origin;
    const t = Math.min(Math.max(view.alpha, 0), 1);
    ctx.fillStyle = '#0b0f14';
    ctx.fillRect(0, 0, this.#canvas.width, this.#canvas.height);
    ctx.fillStyle = '#1d2b22';
    ctx.fillRect(ox, oy, this.#arenaSize * s, this.#arenaSize * s);

    const current = view.pellets.current;
    const previous = view.pellets.previous;
    const blend = previous !== null && previous.length === current.length;
    const size = Math.max(1.5, 2.6 * s);
    ctx.fillStyle = '#ffd36e';
    for (let i = 0; i < current.length; i += 2) {
      let x = current[i];
      let y = current[i + 1];
      if (blend && Math.abs(x - previous[i]) + Math.abs(y - previous[i + 1]) < RESPAWN_JUMP) {
        x = previous[i] + (x - previous[i]) * t;
        y = previous[i + 1] + (y - previous[i + 1]) * t;
      }
      ctx.fillRect(ox + x * s - size / 2, oy + y * s - size / 2, size, size);
    }
    for (const w of view.wells) {
      const x = ox + (w.prevX + (w.x - w.prevX) * t) * s;
      const y = oy + (w.prevY + (w.y - w.prevY) * t) * s;
      ctx.fillStyle = playerColourCss(w.player);
      ctx.beginPath();
      ctx.arc(x, y, Math.max(4, 9 * s), 0, 2 * Math.PI);
      ctx.fill();
      ctx.strokeStyle = ctx.fillStyle;
      ctx.lineWidth = Math.max(1, 2 * s);
      ctx.beginPath();
      ctx.arc(x, y, Math.max(7, 17 * s), 0, 2 * Math.PI);
      ctx.stroke();
      if (w.player === view.me && w.targetX !== undefined) {
        ctx.strokeStyle = '#ffffff';
        ctx.beginPath();
        ctx.arc(ox + w.targetX * s, oy + w.targetY * s, Math.max(4, 6 * s), 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
    this.#drawn = { pellets: current.length >> 1, wells: view.wells.length };
  }
}
