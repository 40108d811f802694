// The same package in real browsers: a page served over HTTP imports <package>/tandem.mjs
// with no options, runs the module, and posts what it computed back to this test, which
// compares it with what Node computes. Headless Chromium and Firefox ESR, each started
// directly (no driver): the page reports with fetch POST, then the browser is killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadTandem, packageDir } from './support.mjs';

const TYPES = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

// What the page computes: enough to prove the module loaded, streamed its .wasm over HTTP,
// computes the same digests as Node, and survives a thrown error.
const PAGE = `<!doctype html><meta charset="utf-8"><title>tandem</title>
<script type="module">
  const report = (body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) });
  try {
    const { default: createTandem } = await import('/pkg/tandem.mjs');
    const tandem = await createTandem();
    const world = new tandem.World({ seed: 9, pelletCount: 512 });
    world.step([{ player: 1, kind: 'join', target: { x: tandem.fx.fromInt(300), y: tandem.fx.fromInt(400) } }]);
    for (let i = 0; i < 20; ++i) world.step();
    let code = null;
    try { tandem.World.fromSnapshot(world.snapshot().subarray(0, 9)); } catch (e) { code = e.code; }
    let typeError = null;
    try { world.step([{ player: 1, kind: 'steer', target: { x: 0.5, y: 0 } }]); } catch (e) { typeError = e.name + ': ' + e.message; }
    const restored = tandem.World.fromSnapshot(world.snapshot());
    await report({
      version: tandem.version, fingerprint: tandem.fingerprint,
      stream: tandem.runScenario('trig', 40, 10),
      digest: world.digest(), restored: restored.digest(), code, typeError,
      sqrt2: tandem.fx.toString(tandem.fx.sqrt(tandem.fx.fromInt(2))),
      positions: world.pelletPositions().length,
      streamed: performance.getEntriesByType('resource').some((r) => r.name.endsWith('.wasm')),
    });
  } catch (error) {
    await report({ error: String(error && error.stack || error) });
  }
</script>`;

let server;
let origin;
let waiters = [];

before(async () => {
  server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/result') {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        res.end('ok');
        const waiting = waiters;
        waiters = [];
        for (const resolve of waiting) resolve(JSON.parse(body));
      });
      return;
    }
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    if (url.pathname.startsWith('/pkg/')) {
      const file = normalize(join(packageDir, url.pathname.slice('/pkg/'.length)));
      if (file.startsWith(packageDir) && existsSync(file)) {
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
        return;
      }
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

// Starts a browser at the page and resolves with what the page posted. A browser that dies
// before the page reports (it happens to Chromium on an overloaded machine) is started once
// more; a page that reports wrong values is never retried.
async function runIn(command, args) {
  try {
    return await runOnce(command, args);
  } catch (error) {
    if (!error.exitedEarly) throw error;
    console.log(`# ${command} exited before the page reported; starting it once more\n# ${error.message}`);
    return runOnce(command, args);
  }
}

async function runOnce(command, args, timeoutMs = 90_000) {
  const profile = mkdtempSync(join(tmpdir(), 'tandem-browser-'));
  const result = new Promise((resolve) => waiters.push(resolve));
  // Its own process group, so the browser's helper processes (renderers, crash handler) are
  // ended with it and stop writing into the profile before it is removed.
  const child = spawn(command, [...args(profile), `${origin}/`], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000); });
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${command} posted nothing in ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
  });
  const exited = new Promise((_, reject) => child.on('exit', (code) => {
    reject(Object.assign(new Error(`${command} exited (${code}) before posting; stderr:\n${stderr}`), { exitedEarly: true }));
  }));
  try {
    return await Promise.race([result, timeout, exited]);
  } finally {
    clearTimeout(timer);
    const exit = new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
    await exit;
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (error) {
      console.log(`# could not remove ${profile}: ${error.message}`);
    }
  }
}

// What Node computes for the same page script.
async function expected() {
  const tandem = await loadTandem();
  const world = new tandem.World({ seed: 9, pelletCount: 512 });
  world.step([{ player: 1, kind: 'join', target: { x: tandem.fx.fromInt(300), y: tandem.fx.fromInt(400) } }]);
  for (let i = 0; i < 20; ++i) world.step();
  return { version: tandem.version, fingerprint: tandem.fingerprint, stream: tandem.runScenario('trig', 40, 10),
    digest: world.digest(), restored: world.digest(), code: 'truncated', sqrt2: '1.41422', positions: 1024 };
}

function check(got, want) {
  assert.equal(got.error, undefined, got.error);
  const { typeError, streamed, ...rest } = got;
  assert.deepEqual(rest, want);
  assert.match(typeError, /^RangeError: World\.step: inputs\[0\]\.target\.x/);
  assert.ok(streamed, 'the page fetched tandem-wasm.wasm over HTTP');
}

const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(existsSync);
const FIREFOX = ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find(existsSync);

describe('in a page served over HTTP', () => {
  test('Chromium (headless) loads the module unchanged and computes the digests Node does', async () => {
    assert.ok(CHROMIUM, 'chromium is installed (build-scripts/install-deps)');
    const got = await runIn(CHROMIUM, (profile) => ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
      `--user-data-dir=${profile}`]);
    check(got, await expected());
  });

  test('Firefox ESR (headless) loads the module unchanged and computes the digests Node does', async () => {
    assert.ok(FIREFOX, 'firefox-esr is installed (build-scripts/install-deps)');
    const got = await runIn(FIREFOX, (profile) => ['--headless', '--no-remote', '--profile', profile]);
    check(got, await expected());
  });
});
