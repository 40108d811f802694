// The package the way a web developer meets it: this directory is an app whose package.json
// depends on the arena's built package (file:../../build/wasm/packages/arena) and on pinned Vite and esbuild
// from npm. The app (app/) imports 'tandem-arena' with no options; each bundler builds it, the
// output is served over HTTP and loaded in headless Chromium, and the digests the page
// computes must be the golden streams' (tests/games/arena/golden), with no request failing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { CHROMIUM, chromiumArgs, fileUnder, reportOf, reportServer, sendFile } from '../js/lib/headless.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '../..');
const installed = join(here, 'node_modules/tandem-arena');
const bin = (name) => join(here, 'node_modules/.bin', name);

// The golden stream of a scenario up to `ticks`: [{tick, digest}] at every 100th tick.
function golden(name, ticks) {
  return readFileSync(join(repoRoot, 'tests/games/arena/golden', `${name}.txt`), 'utf8').split('\n')
    .map((line) => /^(\d+) ([0-9a-f]{16})$/.exec(line))
    .filter((m) => m && Number(m[1]) <= ticks)
    .map((m) => ({ tick: Number(m[1]), digest: m[2] }));
}

let out;
before(() => {
  assert.ok(existsSync(join(installed, 'package.json')),
    'node_modules/tandem is the built package (build-scripts/build wasm; build-scripts/install-deps runs npm install here)');
  out = mkdtempSync(join(tmpdir(), 'tandem-bundlers-'));
});
after(() => rmSync(out, { recursive: true, force: true }));

const files = (dir) => readdirSync(dir, { recursive: true }).map(String);

// Serves `dir` at the root, loads it in Chromium and returns what the page reported, with
// the requests the server saw.
async function loadInChromium(dir) {
  assert.ok(CHROMIUM, 'chromium is installed (build-scripts/install-deps)');
  const server = await reportServer((req, res, url) => {
    const file = fileUnder(dir, url.pathname === '/' ? '/index.html' : url.pathname);
    if (file === null) return false;
    sendFile(res, file);
    return true;
  });
  try {
    const report = await reportOf(CHROMIUM, chromiumArgs, `${server.origin}/`, server);
    return { report, requests: server.requests };
  } finally {
    await server.close();
  }
}

function checkReport({ report, requests }, wasmPath) {
  assert.equal(report.error, undefined, report.error);
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.equal(report.version, manifest.version);
  for (const [name, stream] of Object.entries(report.streams)) {
    assert.deepEqual(stream, golden(name, stream.at(-1).tick), `${name}: the golden digests`);
    assert.equal(stream.length, 3, `${name}: ticks 0, 100, 200`);
  }
  assert.equal(report.worker.error, undefined, report.worker.error);
  assert.deepEqual(report.worker.stream, golden('trig', 200), 'the package in a module worker: trig\'s golden digests');
  assert.equal(report.restored, true, 'a snapshot restored to the same world');
  assert.deepEqual(report.refusal, { isInputError: true, code: 'truncated' }, 'the module\'s error classes survive bundling');
  assert.deepEqual(report.wasm, [wasmPath], 'the page fetched the .wasm the bundle names');
  const failed = requests.filter((r) => r.status !== 200 && r.path !== '/favicon.ico');
  assert.deepEqual(failed, [], 'no request failed');
}

describe('the package through bundlers, in Chromium', () => {
  test('Vite (zero config): the .wasm is emitted as a hashed asset, and that asset is what the page loads', async () => {
    const dist = join(out, 'vite');
    execFileSync(bin('vite'), ['build', 'app', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], { cwd: here, stdio: 'pipe' });
    const emitted = files(dist).filter((f) => f.endsWith('.wasm'));
    assert.equal(emitted.length, 1, `one .wasm emitted: ${emitted}`);
    assert.match(emitted[0], /^assets\/tandem-wasm-[\w-]+\.wasm$/);
    for (const js of files(dist).filter((f) => f.endsWith('.js'))) {
      assert.doesNotMatch(readFileSync(join(dist, js), 'utf8'), /node:fs/, `${js} carries no Node module`);
    }
    checkReport(await loadInChromium(dist), `/${emitted[0]}`);
  });

  test('esbuild --bundle --platform=browser: no Node module is reached, and the .wasm copied beside the bundle loads', async () => {
    const dist = join(out, 'esbuild');
    const meta = join(out, 'esbuild-meta.json');
    // The worker is an entry point of its own (esbuild does not follow new Worker(new URL())):
    // main.js's URL './worker.js' then names the bundle beside it.
    execFileSync(bin('esbuild'), ['app/main.js', 'app/worker.js', '--bundle', '--platform=browser', '--format=esm', `--outdir=${dist}`,
      `--metafile=${meta}`, '--log-level=warning'], { cwd: here, stdio: 'pipe' });
    const inputs = Object.keys(JSON.parse(readFileSync(meta, 'utf8')).inputs);
    assert.ok(inputs.some((i) => i.endsWith('tandem.mjs')), `the browser entry is bundled: ${inputs}`);
    assert.ok(!inputs.some((i) => i.endsWith('tandem.node.mjs') || i.startsWith('node:')), `nothing for Node: ${inputs}`);
    // The two steps the package's README gives for esbuild: the page, and the .wasm beside the bundle.
    copyFileSync(join(here, 'app/index.html'), join(dist, 'index.html'));
    copyFileSync(join(installed, 'tandem-wasm.wasm'), join(dist, 'tandem-wasm.wasm'));
    checkReport(await loadInChromium(dist), '/tandem-wasm.wasm');
  });
});
