// The page's entry: loads the module, picks the adapter, and connects the parts (renderer,
// HUD, steering, lifecycle feeder, frame loop, buttons). Wiring only: each part's job is in
// its own file, and every simulation decision is the adapter's (the session's, in C++).
// three.js is not imported here: renderer.mjs is loaded beside the module (below), so the
// socket and the first verified tick never wait for the 2.2 MB that only drawing needs. The
// socket is opened before anything else, so its handshake overlaps the module's loading.
import createTandem from 'tandem';
import { chooseAdapter, openEarlySocket } from './adapters/index.mjs';
import { DeferredRenderer } from './deferred-renderer.mjs';
import { FlatRenderer } from './flat-renderer.mjs';
import { startFrameLoop } from './frame-loop.mjs';
import { Hud } from './hud.mjs';
import { feedLifecycle } from './lifecycle.mjs';
import { parseOptions } from './options.mjs';
import { listenForSteering } from './steer-input.mjs';
import { reliefFunction } from './terrain.mjs';
import { installTestHook } from './test-hook.mjs';

const $ = (id) => document.getElementById(id);

async function boot() {
  const options = parseOptions(location.search, location);
  // Before the module: what the server sends meanwhile waits (bounded) in the transport for
  // the session, which decides everything once it exists.
  const early = openEarlySocket(options);
  const hook = installTestHook(options);
  const hud = new Hud();
  try {
    // The wasm module's fetch and compilation first, then three.js beside it: nothing but the
    // 3D view waits for three.js, and a page whose three.js does not load runs in the flat view.
    const loading = createTandem();
    const arenaModule = import('./renderer.mjs').catch((error) => ({ loadError: error }));
    const tandem = await loading;
    performance.mark('tandem:module-ready');
    const adapter = chooseAdapter(tandem, options, early);
    const renderer = new DeferredRenderer();
    const lifecycle = feedLifecycle(adapter);
    wireActions(adapter, options);
    const loop = startFrameLoop({ adapter, renderer, hud });
    hook.attach({ tandem, adapter, renderer, hud, lifecycle, loop });
    const arena = { arenaSize: adapter.arenaSize ?? 1024, relief: reliefFunction(tandem, options.seed) };
    const drawn = makeRenderer($('arena'), await arenaModule, arena, hud);
    listenForSteering(drawn.canvas, (x, y) => drawn.arenaPointAt(x, y), (point) => adapter.steer(point));
    renderer.attach(drawn);
    performance.mark('tandem:renderer-ready');
  } catch (error) {
    if (!early?.attached) early?.stop(1000, 'page failed');
    hud.fail(error);
    hook.fail(error);
    throw error;
  }
}

// The 3D view where three.js loaded and WebGL works; otherwise the flat view, and the person
// is told why.
function makeRenderer(container, { ArenaRenderer, loadError }, arena, hud) {
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
  if (options.debug) wire('corrupt', adapter.actions.corrupt, async (corrupt) => { corrupt(); return 'corrupted the local world once: watch the strip'; });
}

boot();
