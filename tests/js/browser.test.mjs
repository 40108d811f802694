// The same package in real browsers: a page served over HTTP imports <package>/tandem.mjs
// with no options, runs the module, and posts what it computed back to this test, which
// compares it with what Node computes. Headless Chromium and Firefox ESR, each started
// directly (no driver): the page reports with fetch POST, then the browser is killed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CHROMIUM, FIREFOX, chromiumArgs, fileUnder, firefoxArgs, reportOf, reportServer, sendFile } from './lib/headless.mjs';
import { loadTandem, packageDir } from './support.mjs';

// What the page computes: enough to prove the module loaded, streamed its .wasm over HTTP,
// computes the same digests as Node, and survives a thrown error.
const PAGE = `<!doctype html><meta charset="utf-8"><title>tandem</title>
<script type="module">
  const report = (body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) });
  try {
    const { default: createTandem } = await import('/pkg/tandem.mjs');
    const tandem = await createTandem();
    const world = new tandem.World({ seed: 9, pelletCount: 512 });
    world.step([{ player: 1, kind: 'join', command: { target: { x: tandem.fx.fromInt(300), y: tandem.fx.fromInt(400) } } }]);
    for (let i = 0; i < 20; ++i) world.step();
    let code = null;
    try { tandem.World.fromSnapshot(world.snapshot().subarray(0, 9)); } catch (e) { code = e.code; }
    let typeError = null;
    try { world.step([{ player: 1, kind: 'command', command: { target: { x: 0.5, y: 0 } } }]); } catch (e) { typeError = e.name + ': ' + e.message; }
    const restored = tandem.World.fromSnapshot(world.snapshot());
    await report({
      version: tandem.version, fingerprint: tandem.fingerprint,
      stream: tandem.runScenario('trig', 40, 10),
      digest: world.digest(), restored: restored.digest(), code, typeError,
      sqrt2: tandem.fx.toString(tandem.fx.sqrt(tandem.fx.fromInt(2))),
      positions: (world.setView({ lists: { pellets: ['pos'] } }), world.step(), world.view().current.lists.pellets.columns['pos.x'].length),
      streamed: performance.getEntriesByType('resource').some((r) => r.name.endsWith('.wasm')),
    });
  } catch (error) {
    await report({ error: String(error && error.stack || error) });
  }
</script>`;

let server;

before(async () => {
  server = await reportServer((req, res, url) => {
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return true;
    }
    const file = url.pathname.startsWith('/pkg/') ? fileUnder(packageDir, url.pathname.slice('/pkg'.length)) : null;
    if (file === null) return false;
    sendFile(res, file);
    return true;
  });
});
after(() => server.close());

// What Node computes for the same page script.
async function expected() {
  const tandem = await loadTandem();
  const world = new tandem.World({ seed: 9, pelletCount: 512 });
  world.step([{ player: 1, kind: 'join', command: { target: { x: tandem.fx.fromInt(300), y: tandem.fx.fromInt(400) } } }]);
  for (let i = 0; i < 20; ++i) world.step();
  return { version: tandem.version, fingerprint: tandem.fingerprint, stream: tandem.runScenario('trig', 40, 10),
    digest: world.digest(), restored: world.digest(), code: 'truncated', sqrt2: '1.41422', positions: 512 };
}

function check(got, want) {
  assert.equal(got.error, undefined, got.error);
  const { typeError, streamed, ...rest } = got;
  assert.deepEqual(rest, want);
  assert.match(typeError, /^RangeError: World\.step: inputs\[0\]\.command\.target\.x/);
  assert.ok(streamed, 'the page fetched tandem-wasm.wasm over HTTP');
}

describe('in a page served over HTTP', () => {
  test('Chromium (headless) loads the module unchanged and computes the digests Node does', async () => {
    assert.ok(CHROMIUM, 'chromium is installed (build-scripts/install-deps)');
    const got = await reportOf(CHROMIUM, chromiumArgs, `${server.origin}/`, server);
    check(got, await expected());
  });

  test('Firefox ESR (headless) loads the module unchanged and computes the digests Node does', async () => {
    assert.ok(FIREFOX, 'firefox-esr is installed (build-scripts/install-deps)');
    const got = await reportOf(FIREFOX, firefoxArgs, `${server.origin}/`, server);
    check(got, await expected());
  });
});
