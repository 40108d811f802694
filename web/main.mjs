// The page's entry, the shell: picks the adapter, loads the game's plugin (games/<game>/plugin.mjs,
// the game of the package served at pkg/, which is the server's) and connects the parts (the
// plugin's view, the HUD, the lifecycle feeder, the frame loop, the buttons). Wiring only: each
// part's job is in its own file, every simulation decision is the adapter's (the session's, in
// C++), and it names no game. Its static imports are what the first verified tick needs, and no
// more (the wasm build bundles them with this file into pkg/page.mjs, which index.html loads). The plugin's view (its renderer and input) is
// loaded once the first tick verified, so the socket and that tick never wait for what only
// drawing needs, nor for its parsing. The session worker, with its socket, was started by
// index.html's first script, and the .wasm was already compiling there. The module itself is
// loaded on this thread only for what runs here (?offline, ?scenario, ?session=main, the
// offline fall-back, "Check against native"): the server session in its worker never waits for it.
import { chooseAdapter } from './adapters/index.mjs';
import { DeferredRenderer } from './deferred-renderer.mjs';
import { early, options } from './early.mjs';
import { startFrameLoop } from './frame-loop.mjs';
import { Hud } from './hud.mjs';
import { feedLifecycle } from './lifecycle.mjs';
import { importFromPage } from './page-modules.mjs';
import { installTestHook } from './test-hook.mjs';

const $ = (id) => document.getElementById(id);

async function boot() {
  performance.mark('tandem:graph-ran');
  // The socket is open already (early.mjs): what the server sends meanwhile waits (bounded)
  // in the transport for the session, which decides everything once it exists.
  const hook = installTestHook(options);
  const hud = new Hud();
  try {
    loadPlugin();   // its fetch overlaps the adapter's start
    const adapter = await chooseAdapter(loadTandem, loadPlugin, options, early);
    const renderer = new DeferredRenderer();
    const lifecycle = feedLifecycle(adapter);
    wireActions(adapter, options);
    const loop = startFrameLoop({ adapter, renderer, hud });
    hook.attach({ adapter, renderer, hud, lifecycle, loop });
    const plugin = await loadPlugin();
    hud.setGame(plugin);
    // The plugin's view once the first tick verified (at once for a world that verifies
    // nothing, at most a second later for a slow server): nothing but drawing waits for it.
    // It gets the module where this thread has loaded it (null for the session in its worker):
    // the person's input goes to the adapter as the plugin reads it, and becomes the game's
    // command where the module runs (the plugin's command()).
    await firstVerified(adapter, VIEW_WAIT_MS);
    renderer.attach(await plugin.loadView({ container: $('stage'), tandem: loadedTandem, options, hud, send: (input) => adapter.sendInput(input) }));
    performance.mark('tandem:renderer-ready');
  } catch (error) {
    if (!early?.attached) early?.stop(1000, 'page failed');
    hud.fail(error);
    hook.fail(error);
    throw error;
  }
}

// The module on this thread, loaded once when first asked for, with the .wasm index.html's
// inline script compiled; where that did not work (no compileStreaming, or a host serving .wasm
// with another type), the module fetches and compiles it itself.
let tandemLoading = null;
let loadedTandem = null;
function loadTandem() {
  tandemLoading ??= (async () => {
    const [{ default: createTandem }, compiled] = await Promise.all([import('tandem'), window.tandemWasm]);
    loadedTandem = await createTandem(compiled ? { wasmModule: compiled } : {});
    performance.mark('tandem:module-ready');
    return loadedTandem;
  })();
  return tandemLoading;
}

// The game's plugin, loaded once when first asked for: the package names its game (pkg/game.mjs,
// a line), so the plugin does not wait for the module.
let pluginLoading = null;
function loadPlugin() {
  pluginLoading ??= importFromPage('pkg/game.mjs').then(({ gameName }) => importFromPage(`games/${gameName}/plugin.mjs`));
  return pluginLoading;
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
