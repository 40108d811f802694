// The page's entry: loads the module, picks the adapter, and connects the parts (renderer,
// HUD, steering, lifecycle feeder, frame loop, buttons). Wiring only: each part's job is in
// its own file, and every simulation decision is the adapter's (the session's, in C++).
// Its static imports are what the first verified tick needs, and no more (index.html preloads
// them all at once). The view (three.js, the flat fallback, the terrain, steering) is imported
// once the first tick verified, so the socket and that tick never wait for the 2.2 MB that
// only drawing needs, nor for its parsing. The socket is opened before the rest of the graph has even
// loaded (early.mjs), and the .wasm was already compiling (index.html's inline script).
import createTandem from 'tandem';
import { chooseAdapter } from './adapters/index.mjs';
import { DeferredRenderer } from './deferred-renderer.mjs';
import { early, options } from './early.mjs';
import { startFrameLoop } from './frame-loop.mjs';
import { Hud } from './hud.mjs';
import { feedLifecycle } from './lifecycle.mjs';
import { installTestHook } from './test-hook.mjs';

const $ = (id) => document.getElementById(id);

async function boot() {
  performance.mark('tandem:graph-ran');
  // The socket is open already (early.mjs): what the server sends meanwhile waits (bounded)
  // in the transport for the session, which decides everything once it exists.
  const hook = installTestHook(options);
  const hud = new Hud();
  try {
    const tandem = await loadTandem();
    performance.mark('tandem:module-ready');
    const adapter = await chooseAdapter(tandem, options, early);
    const renderer = new DeferredRenderer();
    const lifecycle = feedLifecycle(adapter);
    wireActions(adapter, options);
    const loop = startFrameLoop({ adapter, renderer, hud });
    hook.attach({ tandem, adapter, renderer, hud, lifecycle, loop });
    // The view's modules once the first tick verified (at once for a world that verifies
    // nothing, at most a second later for a slow server): nothing but drawing waits for them,
    // their parsing would hold up the session's start on the main thread, and a page whose
    // three.js does not load runs in the flat view.
    await firstVerified(adapter, VIEW_WAIT_MS);
    const view = await loadView();
    const arena = { arenaSize: adapter.arenaSize ?? 1024, relief: view.reliefFunction(tandem, options.seed) };
    const drawn = makeRenderer($('arena'), view, arena, hud);
    view.listenForSteering(drawn.canvas, (x, y) => drawn.arenaPointAt(x, y), (point) => adapter.steer(point));
    renderer.attach(drawn);
    performance.mark('tandem:renderer-ready');
  } catch (error) {
    if (!early?.attached) early?.stop(1000, 'page failed');
    hud.fail(error);
    hook.fail(error);
    throw error;
  }
}

// The module with the .wasm index.html's inline script compiled meanwhile; where that did not
// work (no compileStreaming, or a host serving .wasm with another type), the module fetches
// and compiles it itself.
async function loadTandem() {
  const compiled = await window.tandemWasm;
  return createTandem(compiled ? { wasmModule: compiled } : {});
}

// The longest the view waits for the first verified tick: a page whose server is slow should
// still draw.
const VIEW_WAIT_MS = 1000;

function firstVerified(adapter, ms) {
  return new Promise((resolve) => {
    let done = false;
    const finish = () => { if (!done) { done = true; resolve(); } };
    setTimeout(finish, ms);
    const look = () => {
      if (done) return;
      const { verification } = adapter.figures();
      if (verification === null || verification.verifiedTicks > 0) finish();
      else requestAnimationFrame(look);
    };
    look();
  });
}

// The view's parts: the flat renderer, the terrain and steering always (small), the 3D view
// when three.js loads (its failure is not the page's).
async function loadView() {
  const [arena, flat, terrain, steer] = await Promise.all([
    import('./renderer.mjs').catch((error) => ({ loadError: error })),
    import('./flat-renderer.mjs'), import('./terrain.mjs'), import('./steer-input.mjs'),
  ]);
  return { ...arena, ...flat, ...terrain, ...steer };
}

// The 3D view where three.js loaded and WebGL works; otherwise the flat view, and the person
// is told why.
function makeRenderer(container, { ArenaRenderer, FlatRenderer, loadError }, arena, hud) {
  if (loadError) {
    hud.notice(`The 3D view did not load (${loadError.message}): showing the flat view.`);
    return new FlatRenderer(container, arena);
  }
  try {
    return new ArenaRenderer(container, arena);
  } catch (error) {
    container.replaceChildren();
    hud.notice(`No WebGL here (${error.message}): showing the flat view.`);
    return new FlatRenderer(container, arena);
  }
}

// The buttons run what the adapter offers; one it does not offer stays visible, disabled,
// with the reason as its tooltip.
function wireActions(adapter, options) {
  const result = $('action-result');
  const wire = (id, action, run) => {
    const button = $(id);
    if (typeof action !== 'function') {
      button.disabled = true;
      button.title = 'Needs the client session and a server (or a Room in the page): not in this build yet';
      return;
    }
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        result.textContent = await run(action);
      } catch (error) {
        result.textContent = `${button.textContent} failed: ${error.message}`;
      } finally {
        button.disabled = false;
      }
    });
  };
  wire('check-native', adapter.actions.checkAgainstNative, async (check) => String(await check()));
  wire('download-replay', adapter.actions.downloadReplay, async (exportReplay) => {
    const { name, bytes } = await exportReplay();
    const link = Object.assign(document.createElement('a'), { href: URL.createObjectURL(new Blob([bytes])), download: name });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    return `saved ${name} (${bytes.length.toLocaleString('en')} bytes): check it with tandem replay ${name}`;
  });
  $('corrupt').hidden = !options.debug;
  if (options.debug) wire('corrupt', adapter.actions.corrupt, async (corrupt) => {
    const done = await corrupt();
    return `corrupted the local world once${done?.tick == null ? '' : ` at tick ${done.tick}`}: watch the strip`;
  });
}

boot();
