// What every e2e test shares: where the page and the package are, the server that serves them,
// opening the demo in a browser page and waiting until it runs, reading its state through
// window.__tandem, and saving screenshots as artifacts (build/test-artifacts/e2e/).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { killTracked, spawnTracked, waitForLine } from './processes.mjs';
import { defaultRoots, startStaticServer } from './static-server.mjs';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const artifactsDir = resolve(process.env.TANDEM_E2E_ARTIFACTS ?? join(repoRoot, 'build/test-artifacts/e2e'));
export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
// The page's directory; TANDEM_WEB_DIR serves another copy (e.g. one whose node_modules is a
// real directory: both servers refuse a symbolic link that leads out of the root).
export const webDir = process.env.TANDEM_WEB_DIR ?? join(repoRoot, 'web');

/**
 * Starts the server the page is loaded from. Today: the tests' static server (web/ at the
 * root, the package under /pkg/). When `tandem serve --web DIR` exists this is the one place
 * to start it instead (the page's own URL layout lives in web/index.html's import map).
 */
export async function startServer({ port = 0, game = 'arena' } = {}) {
  const roots = defaultRoots(repoRoot, game);
  if (process.env.TANDEM_PACKAGE_DIR) roots.packageDir = process.env.TANDEM_PACKAGE_DIR;
  roots.webDir = webDir;
  return startStaticServer({ ...roots, port });
}

/**
 * Registers the file's before/after hooks: the server and one browser (`launch()`, e.g.
 * launchChromium), both closed after the file's tests whatever happened. The returned object
 * holds {server, browser} once the hooks ran.
 */
export function serverAndBrowser(launch, start = startServer, skip = false) {
  const env = { server: null, browser: null, skip };
  before(async () => {
    if (skip) return;
    env.server = await start();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/**
 * A test's `skip` for a prerequisite: false when it is there, else why the test cannot run.
 * Under CI=true a missing prerequisite throws instead (the file fails): a CI run that skipped
 * the tests needing it would pass having tested nothing.
 */
export function unlessMissing(present, why) {
  if (present) return false;
  if (process.env.CI === 'true') throw new Error(`${why}: a prerequisite is missing, which under CI=true fails instead of skipping`);
  return why;
}

/** Skip (or, under CI=true, fail) unless the native `tandem` is built. */
export const unlessNoTandem = () => unlessMissing(existsSync(tandemBinary), `no ${tandemBinary} (build-scripts/build native)`);

/**
 * The same pair around the real server: `tandem serve --game GAME` (startTandemServe) and one
 * browser. `skip` says why the file's tests cannot run (no native build); then no hook starts anything.
 */
export function tandemServeAndBrowser(launch, { game = 'arena', args = [] } = {}) {
  const skip = unlessNoTandem();
  return serverAndBrowser(launch, () => startTandemServe({ game, args }), skip);
}

/** The games whose pages the shell's suites run against (every game with a plugin and a package). */
export const GAMES = ['arena', 'ships'];

/**
 * Opens the demo at `query` (e.g. '?pellets=4096') in a new page of `context` and waits until
 * the page's parts run (window.__tandem.ready), its renderer has loaded (the page starts
 * without three.js) and a few frames were drawn. Collects the
 * page's console errors and uncaught exceptions in page.problems.
 */
export async function openDemo(context, origin, query = '', { timeoutMs = 30_000 } = {}) {
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') page.problems.push(`console.error: ${message.text()}`);
  });
  await page.goto(`${origin}/${query}`);
  await page.waitForFunction(() => window.__tandem?.ready === true || window.__tandem?.error !== null, null, { timeout: timeoutMs });
  const error = await page.evaluate(() => window.__tandem.error);
  if (error !== null) throw new Error(`the page failed to start: ${error}`);
  await page.waitForFunction(() => window.__tandem.drawn().kind !== 'loading' && window.__tandem.frames().frames >= 3, null, { timeout: timeoutMs });
  return page;
}

/** A JSON snapshot of the page's state through its test hook. */
export function pageState(page) {
  return page.evaluate(() => {
    const t = window.__tandem;
    return {
      mode: t.mode,
      figures: t.figures(),
      frames: t.frames(),
      drawn: t.drawn(),
      view: t.view(),
      suspended: t.suspended(),
      visibility: document.visibilityState,
      resumeText: t.resumeText(),
      loopFailure: t.loopFailure(),
    };
  });
}

/** Saves a PNG of the page under the artifacts directory; returns its path. */
export async function screenshot(page, name) {
  mkdirSync(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/**
 * The HUD's resume line says how long the page was away: at least `awayMs` (the time the test
 * stayed away), at most `spanMs` (from starting to hide it to seeing it shown again), with the
 * line's 0.1 s rounding either way. The line starts with what the absence was: "hidden" or
 * "frozen" (the session in its worker knows), or "away" (an adapter on the main thread).
 */
export function assertSaysAway(text, awayMs, spanMs) {
  const match = ABSENCE_LINE.exec(text);
  assert.ok(match, `resume line: ${text}`);
  const said = Number(match[2]) * 1000;
  assert.ok(said >= awayMs - 100 && said <= spanMs + 100, `resume line says ${match[2]} s; away ${awayMs} ms within a span of ${spanMs} ms`);
}

/** The HUD's absence line: what the absence was (match[1]) and how long (match[2], in s). */
export const ABSENCE_LINE = /^(away|hidden|frozen|in the back-forward cache) (\d+\.\d) s: /;

/** The native binary the session tests run (`tandem serve`); TANDEM_BIN overrides it. */
export const tandemBinary = process.env.TANDEM_BIN ?? join(repoRoot, 'build/native/src/cli/tandem');

/**
 * Starts `tandem serve` on a free port (or `port`) with web/ and the wasm package: the real
 * server, its room, /ws and /metrics. Resolves once it prints its "listening on" line; the
 * returned object can kill it (a crash, not a clean stop) and start it again on the same port.
 * `binary`, `web` and `packageDir` name another build, page and package (tests/e2e/page-figures.mjs
 * --baseline, --predict-packages).
 * @param {{port?: number, host?: string, args?: string[], binary?: string, web?: string, packageDir?: string}} [options]
 */
export async function startTandemServe({ port = 0, host = '127.0.0.1', args = [], binary = tandemBinary, web = webDir, game = 'arena',
  packageDir = process.env.TANDEM_PACKAGE_DIR ?? join(repoRoot, 'build/wasm/packages', game) } = {}) {
  const launch = async (onPort) => {
    // `listening on` goes to stdout; the harness reads stderr, so the shell moves it there.
    // Every page of a suite comes from 127.0.0.1, where each real player has an address of
    // their own; and a closed page's seat is kept for the resume grace (30 s). With the default
    // per-address share (4 seats, kept ones included) a suite's fifth page within 30 s would be
    // refused with address_limit, by turns or not depending on how fast the machine runs the
    // suite. So these servers give one address 64 of each; the shares themselves are tested
    // from outside in tests/server/hostile.test.mjs. A later --per-address-limit in `args` wins.
    const child = spawnTracked('/bin/sh', ['-c', 'exec "$0" "$@" 1>&2', binary, 'serve', '--game', game,
      '--host', host, '--port', String(onPort), '--web', web, '--pkg', packageDir, '--per-address-limit', '64', ...args]);
    const match = await waitForLine(child, /listening on http:\/\/([^\s/]+):(\d+)\//, 15_000, 'tandem serve');
    return { child, port: Number(match[2]) };
  };
  let { child, port: actual } = await launch(port);
  const server = {
    get origin() { return `http://${host}:${actual}`; },
    get port() { return actual; },
    get child() { return child; },
    /** Kills the server outright (SIGKILL: no goodbye to the clients). */
    kill: () => killTracked(child),
    /** Starts it again on the same port. */
    async restart() { ({ child } = await launch(actual)); },
    /** /metrics as {name{labels}: value}. */
    async metrics() {
      const text = await (await fetch(`${server.origin}/metrics`)).text();
      const values = {};
      for (const line of text.split('\n')) {
        const m = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?)\s+(\S+)$/.exec(line);
        if (m) values[m[1]] = Number(m[2]);
      }
      return values;
    },
    close: () => killTracked(child),
  };
  return server;
}
