// The arena seen from above on a 2D canvas: the page's fallback where WebGL is unavailable
// (software-only machines, some headless browsers), so the HUD, the session and steering still
// work. Same interface as ArenaRenderer (draw, arenaPointAt, stats, canvas); presentation only,
// and like it, never keeps the view's arrays.
import { SquareCanvas } from '../../square-canvas.mjs';
import { arenaSizeOf, pelletsOf, playerColourCss, wellsOf } from './palette.mjs';

export class FlatRenderer {
  kind = '2d';
  #stage;
  #drawn = { pellets: 0, wells: 0 };

  constructor(container, { arenaSize }) {
    // The arena as a square centred in the stage, with a margin.
    this.#stage = new SquareCanvas(container, arenaSize, 0.9);
  }

  get canvas() { return this.#stage.canvas; }

  arenaPointAt(clientX, clientY) { return this.#stage.worldPointAt(clientX, clientY); }

  stats() { return { kind: this.kind, pellets: this.#drawn.pellets, wells: this.#drawn.wells, drawCalls: null, triangles: null }; }

  draw(view) {
    const stage = this.#stage;
    stage.size = arenaSizeOf(view) ?? stage.size;
    const { ctx, scale: s, size: arenaSize } = stage;
    const { x: ox, y: oy } = stage.origin;
    const t = Math.min(Math.max(view.alpha, 0), 1);
    ctx.fillStyle = '#0b0f14';
    ctx.fillRect(0, 0, stage.canvas.width, stage.canvas.height);
    ctx.fillStyle = '#1d2b22';
    ctx.fillRect(ox, oy, arenaSize * s, arenaSize * s);

    const pellets = pelletsOf(view);
    const { previous } = pellets;
    const size = Math.max(1.5, 2.6 * s);
    ctx.fillStyle = '#ffd36e';
    for (let i = 0; i < pellets.count; ++i) {
      let x = pellets.x[i];
      let y = pellets.y[i];
      // A pellet the step respawned (its generation changed) is drawn where it is, not slid.
      if (previous !== null && previous.generation[i] === pellets.generation[i]) {
        x = previous.x[i] + (x - previous.x[i]) * t;
        y = previous.y[i] + (y - previous.y[i]) * t;
      }
      ctx.fillRect(ox + x * s - size / 2, oy + y * s - size / 2, size, size);
    }
    const wells = wellsOf(view);
    for (const w of wells) {
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
    this.#drawn = { pellets: pellets.count, wells: wells.length };
  }
}
