// A plugin's 2D canvas: it fills the plugin's stage and maps a square world of `size` units,
// centred with a margin, to canvas pixels (up to twice the CSS pixels), kept on a window resize.
// For any game drawn from above on a canvas (the shell names none); the drawing is the plugin's.
export class SquareCanvas {
  scale = 1;                  // canvas pixels per world unit
  origin = { x: 0, y: 0 };    // the world's corner (0, 0) in canvas pixels
  #container;
  #size;
  #fill;

  /** `fill`: the share of the stage's shorter side the world takes (the rest is the margin). */
  constructor(container, size, fill) {
    this.#container = container;
    this.#size = size;
    this.#fill = fill;
    this.canvas = document.createElement('canvas');
    container.appendChild(this.canvas);
    this.ctx = this.canvas.getContext('2d');
    this.resize();
    window.addEventListener('resize', () => this.resize());
  }

  get size() { return this.#size; }

  /** The world's side changed (a view with another config): re-centred at once. */
  set size(size) {
    if (size === this.#size) return;
    this.#size = size;
    this.resize();
  }

  resize() {
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, this.#container.clientWidth);
    const h = Math.max(1, this.#container.clientHeight);
    this.canvas.width = Math.round(w * ratio);
    this.canvas.height = Math.round(h * ratio);
    this.scale = (Math.min(w, h) * this.#fill * ratio) / this.#size;
    const side = this.#size * this.scale;
    this.origin = { x: (this.canvas.width - side) / 2, y: (this.canvas.height - side) / 2 };
  }

  /** A point on the page (a pointer event's clientX/Y) in world units, y down, clamped to the world. */
  worldPointAt(clientX, clientY) {
    const rect = this.canvas.getBoundingClientRect();
    const px = ((clientX - rect.left) / rect.width) * this.canvas.width;
    const py = ((clientY - rect.top) / rect.height) * this.canvas.height;
    const clamp = (v) => Math.min(Math.max(v, 0), this.#size);
    return { x: clamp((px - this.origin.x) / this.scale), y: clamp((py - this.origin.y) / this.scale) };
  }
}
