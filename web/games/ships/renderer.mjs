// ships from above on a 2D canvas, from a render view (web/README.md: the columns the plugin
// selected): the wrap-around field, the rocks, the bullets, each ship as a triangle along its
// heading in its owner's colour (yours outlined in white, a flame while it thrusts), and a burst
// for each hit, shot and crash the step reported (its events). Positions are blended between
// the tick before and the tick drawn the short way round the torus. It reads the view and draws;
// it never changes the simulation and never keeps the view's arrays (they may be views into
// wasm memory, valid only until the next call into it).
import { SquareCanvas } from '../../square-canvas.mjs';
import { BUTTONS, playerColourCss } from './palette.mjs';

const BURST_MS = 500;
const BURSTS = 32;

export class ShipsRenderer {
  kind = '2d';
  #stage;           // the field, 1,024 units a side until the view says otherwise
  #bursts = [];
  #burstedThrough = -1;   // the newest tick whose events have burst
  #drawn = { ships: 0, bullets: 0, rocks: 0 };

  constructor(container) {
    // The field as a square centred in the stage, with a margin.
    this.#stage = new SquareCanvas(container, 1024, 0.94);
  }

  get canvas() { return this.#stage.canvas; }

  /** What was drawn last frame, for the HUD and the tests. */
  stats() { return { kind: this.kind, ...this.#drawn }; }

  draw(view, nowMs) {
    const stage = this.#stage;
    const { ctx } = stage;
    ctx.fillStyle = '#070a0f';
    ctx.fillRect(0, 0, stage.canvas.width, stage.canvas.height);
    const now = view.current;
    if (!now) return;   // before the welcome: no field yet
    const scalars = now.scalars;
    stage.size = scalars['config.arena_size'];
    const { scale: s, size } = stage;
    const { x: ox, y: oy } = stage.origin;
    ctx.fillStyle = '#0e1622';
    ctx.fillRect(ox, oy, size * s, size * s);
    ctx.strokeStyle = '#1f3550';
    ctx.lineWidth = 1;
    ctx.strokeRect(ox, oy, size * s, size * s);
    ctx.save();
    ctx.beginPath();
    ctx.rect(ox, oy, size * s, size * s);
    ctx.clip();
    const t = Math.min(Math.max(view.alpha, 0), 1);
    const before = view.previous;
    const radius = [0, scalars['config.rock_radius_small'], scalars['config.rock_radius_medium'], scalars['config.rock_radius_big']];
    const rocks = this.#keyed(now.lists.rocks, before?.lists.rocks, t);
    ctx.strokeStyle = '#9aa7b8';
    ctx.fillStyle = '#2a3340';
    ctx.lineWidth = Math.max(1, 1.5 * s);
    for (const r of rocks) this.#wrapped(r.x, r.y, radius[r.row.size] ?? 12, (x, y) => this.#rock(x, y, radius[r.row.size] ?? 12, r.row['key.index']));
    const bullets = this.#keyed(now.lists.bullets, before?.lists.bullets, t);
    for (const b of bullets) {
      ctx.fillStyle = playerColourCss(b.row.owner);
      this.#wrapped(b.x, b.y, 3, (x, y) => { ctx.beginPath(); ctx.arc(x, y, Math.max(1.5, 2.5 * s), 0, 2 * Math.PI); ctx.fill(); });
    }
    const ships = this.#ships(now.lists.ships, before?.lists.ships, t);
    const shipRadius = scalars['config.ship_radius'];
    for (const ship of ships) this.#wrapped(ship.x, ship.y, shipRadius, (x, y) => this.#ship(x, y, ship, shipRadius, ship.row.player === view.me));
    this.#startBursts(view, nowMs);
    this.#drawBursts(nowMs);
    ctx.restore();
    this.#drawn = { ships: ships.length, bullets: bullets.length, rocks: rocks.length };
  }

  // A field point to the canvas: y up, as the heading's angle counts (counter-clockwise from +x).
  #px(x) { return this.#stage.origin.x + x * this.#stage.scale; }
  #py(y) { return this.#stage.origin.y + (this.#stage.size - y) * this.#stage.scale; }

  // The short way from a to b on the torus.
  #delta(a, b) {
    const d = b - a;
    const size = this.#stage.size;
    return d > size / 2 ? d - size : d < -size / 2 ? d + size : d;
  }
  #blend(a, b, t) {
    const v = a + this.#delta(a, b) * t;
    const size = this.#stage.size;
    return ((v % size) + size) % size;
  }

  // Draws at (x, y) and, near an edge, again where the torus shows it on the other side.
  #wrapped(x, y, r, draw) {
    const size = this.#stage.size;
    const xs = [x, ...(x < r ? [x + size] : x > size - r ? [x - size] : [])];
    const ys = [y, ...(y < r ? [y + size] : y > size - r ? [y - size] : [])];
    for (const px of xs) for (const py of ys) draw(this.#px(px), this.#py(py));
  }

  // The elements of a keyed list (index, generation), each at its blended position where the
  // same element (same key) was there before the last step.
  #keyed(list, before, t) {
    if (!list) return [];
    const c = list.columns;
    const prev = new Map();
    if (before) {
      for (let j = 0; j < before.count; ++j) prev.set(`${before.columns['key.index'][j]}:${before.columns['key.generation'][j]}`, j);
    }
    const out = [];
    for (let i = 0; i < list.count; ++i) {
      const row = Object.fromEntries(Object.entries(c).map(([k, a]) => [k, a[i]]));
      const j = prev.get(`${row['key.index']}:${row['key.generation']}`);
      const x = j === undefined ? row['pos.x'] : this.#blend(before.columns['pos.x'][j], row['pos.x'], t);
      const y = j === undefined ? row['pos.y'] : this.#blend(before.columns['pos.y'][j], row['pos.y'], t);
      out.push({ x, y, row });
    }
    return out;
  }

  // The live ships, blended where the same ship was alive before the last step (a ship just
  // placed is drawn where it is).
  #ships(list, before, t) {
    if (!list) return [];
    const c = list.columns;
    const out = [];
    for (let i = 0; i < list.count; ++i) {
      if (!c.alive[i]) continue;
      const row = { player: c.player[i], heading: c.heading[i], buttons: c.buttons[i] };
      let x = c['pos.x'][i];
      let y = c['pos.y'][i];
      let heading = row.heading;
      if (before) {
        for (let j = 0; j < before.count; ++j) {
          if (before.columns.player[j] !== row.player || !before.columns.alive[j]) continue;
          x = this.#blend(before.columns['pos.x'][j], x, t);
          y = this.#blend(before.columns['pos.y'][j], y, t);
          const turn = Math.atan2(Math.sin(heading - before.columns.heading[j]), Math.cos(heading - before.columns.heading[j]));
          heading = before.columns.heading[j] + turn * t;
        }
      }
      out.push({ x, y, heading, row });
    }
    return out;
  }

  #ship(x, y, ship, radius, mine) {
    const ctx = this.#stage.ctx;
    const r = Math.max(5, radius * this.#stage.scale);
    const h = ship.heading;
    // Canvas y grows downward: the angle is mirrored.
    const point = (angle, length) => [x + Math.cos(angle) * length, y - Math.sin(angle) * length];
    ctx.beginPath();
    ctx.moveTo(...point(h, r * 1.4));
    ctx.lineTo(...point(h + 2.5, r));
    ctx.lineTo(...point(h + Math.PI, r * 0.45));
    ctx.lineTo(...point(h - 2.5, r));
    ctx.closePath();
    ctx.fillStyle = playerColourCss(ship.row.player);
    ctx.fill();
    if (mine) {
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = Math.max(1.5, 2 * this.#stage.scale);
      ctx.stroke();
    }
    if (ship.row.buttons & BUTTONS.thrust) {
      ctx.beginPath();
      ctx.moveTo(...point(h + Math.PI - 0.35, r * 0.6));
      ctx.lineTo(...point(h + Math.PI, r * 1.5));
      ctx.lineTo(...point(h + Math.PI + 0.35, r * 0.6));
      ctx.fillStyle = '#ffb703';
      ctx.fill();
    }
  }

  // A rock: a lumpy circle, its lumps from its slot index, so it keeps its shape.
  #rock(x, y, radius, index) {
    const ctx = this.#stage.ctx;
    const r = radius * this.#stage.scale;
    ctx.beginPath();
    for (let k = 0; k < 11; ++k) {
      const angle = (k / 11) * 2 * Math.PI;
      const lump = 0.82 + 0.18 * Math.abs(Math.sin(index * 12.9898 + k * 78.233));
      const px = x + Math.cos(angle) * r * lump;
      const py = y + Math.sin(angle) * r * lump;
      if (k === 0) ctx.moveTo(px, py);
      else ctx.lineTo(px, py);
    }
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
  }

  // Each hit, shot or crash of a newly drawn tick bursts where it happened: the rock hit
  // (before the step, by its key), or the ship destroyed.
  #startBursts(view, nowMs) {
    if (view.tick < this.#burstedThrough) this.#burstedThrough = -1;   // a new world (a restarted server)
    let newest = this.#burstedThrough;
    const before = view.previous?.lists;
    for (const e of view.events) {
      if (e.tick <= this.#burstedThrough || !['hit', 'shot', 'crashed'].includes(e.kind)) continue;
      newest = Math.max(newest, e.tick);
      const at = e.kind === 'hit' ? this.#rockWas(before?.rocks, e.key) : this.#shipWas(before?.ships, e.player);
      if (at === null) continue;
      this.#bursts.push({ ...at, bornMs: nowMs, colour: e.kind === 'hit' ? '#ffd36e' : playerColourCss(e.player) });
      if (this.#bursts.length > BURSTS) this.#bursts.shift();
    }
    this.#burstedThrough = newest;
  }

  #rockWas(rocks, key) {
    if (!rocks || !key) return null;
    for (let j = 0; j < rocks.count; ++j) {
      if (rocks.columns['key.index'][j] === key.index && rocks.columns['key.generation'][j] === key.generation) {
        return { x: rocks.columns['pos.x'][j], y: rocks.columns['pos.y'][j] };
      }
    }
    return null;
  }

  #shipWas(ships, player) {
    if (!ships) return null;
    for (let j = 0; j < ships.count; ++j) {
      if (ships.columns.player[j] === player) return { x: ships.columns['pos.x'][j], y: ships.columns['pos.y'][j] };
    }
    return null;
  }

  #drawBursts(nowMs) {
    const ctx = this.#stage.ctx;
    this.#bursts = this.#bursts.filter((b) => nowMs - b.bornMs < BURST_MS && nowMs >= b.bornMs);
    for (const b of this.#bursts) {
      const age = (nowMs - b.bornMs) / BURST_MS;
      ctx.globalAlpha = 1 - age;
      ctx.strokeStyle = b.colour;
      ctx.lineWidth = Math.max(1.5, 3 * this.#stage.scale);
      ctx.beginPath();
      ctx.arc(this.#px(b.x), this.#py(b.y), (8 + 40 * age) * this.#stage.scale, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }
}
