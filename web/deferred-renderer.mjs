// The arena's renderer while the real one loads: three.js is 2.2 MB of the page's 2.6, and
// nothing but drawing needs it, so the session, the frame loop and the HUD start without it and
// this stands in (drawing nothing) until the 3D view, or the flat one, is handed over.
// Same interface as ArenaRenderer (draw, arenaPointAt, stats, canvas).

export class DeferredRenderer {
  #inner = null;

  /** The renderer that draws from now on. */
  attach(renderer) { this.#inner = renderer; }

  /** The real renderer, or null while it loads. */
  get inner() { return this.#inner; }
  get kind() { return this.#inner?.kind ?? 'loading'; }
  get canvas() { return this.#inner?.canvas ?? null; }
  arenaPointAt(clientX, clientY) { return this.#inner ? this.#inner.arenaPointAt(clientX, clientY) : null; }
  stats() { return this.#inner ? this.#inner.stats() : { kind: 'loading', pellets: 0, wells: 0, drawCalls: null, triangles: null }; }
  draw(view, nowMs) { this.#inner?.draw(view, nowMs); }
}
