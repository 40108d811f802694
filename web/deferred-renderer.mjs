// The game's renderer while the plugin's view loads: nothing but drawing needs it (a 3D view
// can be megabytes of a page), so the session, the frame loop and the HUD start without it
// and this stands in (drawing nothing) until the view is handed over.
// The interface every plugin's renderer has: draw(view, nowMs), stats(), canvas.

export class DeferredRenderer {
  #inner = null;

  /** The renderer that draws from now on. */
  attach(renderer) { this.#inner = renderer; }

  /** The real renderer, or null while it loads. */
  get inner() { return this.#inner; }
  get kind() { return this.#inner?.kind ?? 'loading'; }
  get canvas() { return this.#inner?.canvas ?? null; }
  stats() { return this.#inner ? this.#inner.stats() : { kind: 'loading' }; }
  draw(view, nowMs) { this.#inner?.draw(view, nowMs); }
}
