// starter from above on a 2D canvas: the field, the coins, each runner as a square in its
// player's colour (yours outlined in white), blended between the tick before and the tick drawn;
// and the input: the keys held (or a finger held on the field) folded into the held direction,
// sent on every change. It reads the view and draws; it never changes the simulation and never
// keeps the view's arrays (they may be views into wasm memory, valid only until the next call).
import { SquareCanvas } from '../../square-canvas.mjs';   // the shell's, beside index.html on the page

const PALETTE = ['#4cc9f0', '#f72585', '#b5e48c', '#ffb703', '#9d4edd', '#06d6a0', '#ff6b35', '#8ecae6'];
export const playerColourCss = (player) => PALETTE[player % PALETTE.length];

// The held direction, a bit each, as starter's Command spells it (include/starter/world.hpp).
const UP = 1, DOWN = 2, LEFT = 4, RIGHT = 8;
const KEYS = { ArrowUp: UP, KeyW: UP, ArrowDown: DOWN, KeyS: DOWN, ArrowLeft: LEFT, KeyA: LEFT, ArrowRight: RIGHT, KeyD: RIGHT };

export class StarterRenderer {
  kind = '2d';
  #container;
  #square;           // the canvas, the field as a square centred in it
  #mine = null;      // where your runner was drawn, in canvas pixels
  #drawn = { runners: 0, coins: 0 };

  constructor(container) {
    this.#container = container;
    this.#square = new SquareCanvas(container, 512, 0.94);   // 512: until the first view says the field's side
  }

  get canvas() { return this.#square.canvas; }
  /** Your runner on the canvas (client pixels), or null before it is drawn. */
  mine() { return this.#mine; }
  stats() { return { kind: this.kind, ...this.#drawn }; }

  draw(view) {
    const square = this.#square;
    const { ctx, canvas } = square;
    ctx.fillStyle = '#070a0f';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const now = view.current;
    if (!now) return;   // before the welcome: no field yet
    square.size = now.scalars['config.field_size'];
    const s = square.scale;
    const at = (x, y) => [square.origin.x + x * s, square.origin.y + y * s];
    ctx.fillStyle = '#0e1622';
    ctx.fillRect(...at(0, 0), square.size * s, square.size * s);
    const reach = now.scalars['config.reach'];
    const coins = now.lists.coins;
    ctx.fillStyle = '#ffd36e';
    for (let i = 0; i < (coins?.count ?? 0); ++i) {
      ctx.beginPath();
      ctx.arc(...at(coins.columns['pos.x'][i], coins.columns['pos.y'][i]), Math.max(3, reach * 0.6 * s), 0, 2 * Math.PI);
      ctx.fill();
    }
    const runners = now.lists.runners;
    const before = view.previous?.lists.runners;
    const t = Math.min(Math.max(view.alpha, 0), 1);
    this.#mine = null;
    for (let i = 0; i < (runners?.count ?? 0); ++i) {
      const player = runners.columns.player[i];
      let x = runners.columns['pos.x'][i];
      let y = runners.columns['pos.y'][i];
      for (let j = 0; j < (before?.count ?? 0); ++j) {
        if (before.columns.player[j] !== player) continue;
        x = before.columns['pos.x'][j] + (x - before.columns['pos.x'][j]) * t;
        y = before.columns['pos.y'][j] + (y - before.columns['pos.y'][j]) * t;
      }
      const [px, py] = at(x, y);
      const half = Math.max(4, reach * s);
      ctx.fillStyle = playerColourCss(player);
      ctx.fillRect(px - half, py - half, 2 * half, 2 * half);
      if (player === view.me) {
        ctx.strokeStyle = '#ffffff';
        ctx.lineWidth = 2;
        ctx.strokeRect(px - half, py - half, 2 * half, 2 * half);
        const ratio = canvas.width / Math.max(1, this.#container.clientWidth);
        this.#mine = { x: px / ratio, y: py / ratio };
      }
    }
    this.#drawn = { runners: runners?.count ?? 0, coins: coins?.count ?? 0 };
  }
}

/** Keys (arrows, W A S D) and a finger held on the field, folded into the held direction. */
export function listenForDirection(container, renderer, send) {
  const keys = new Set();
  let pointer = null;   // where a finger or the mouse is held, client pixels relative to the field
  let held = 0;
  const update = () => {
    let now = 0;
    for (const code of keys) now |= KEYS[code];
    const me = renderer.mine();
    if (pointer && me) {
      const dx = pointer.x - me.x, dy = pointer.y - me.y, dead = 12;
      now |= (dx > dead ? RIGHT : 0) | (dx < -dead ? LEFT : 0) | (dy > dead ? DOWN : 0) | (dy < -dead ? UP : 0);
    }
    if (now !== held) send(held = now);
  };
  window.addEventListener('keydown', (e) => {
    if (!(e.code in KEYS) || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();   // the arrows would scroll the page
    keys.add(e.code);
    update();
  });
  window.addEventListener('keyup', (e) => { if (keys.delete(e.code)) update(); });
  window.addEventListener('blur', () => { keys.clear(); pointer = null; update(); });
  const where = (e) => { const r = container.getBoundingClientRect(); pointer = { x: e.clientX - r.left, y: e.clientY - r.top }; update(); };
  container.addEventListener('pointerdown', (e) => { container.setPointerCapture?.(e.pointerId); where(e); });
  container.addEventListener('pointermove', (e) => { if (pointer) where(e); });
  const release = () => { pointer = null; update(); };
  container.addEventListener('pointerup', release);
  container.addEventListener('pointercancel', release);
  // The runner moves under a held finger: steer again every frame while it is held.
  const follow = () => { if (pointer) update(); requestAnimationFrame(follow); };
  requestAnimationFrame(follow);
}
