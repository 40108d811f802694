// Pages in real headless browsers, started directly (no driver): a local HTTP server serves
// the files and takes what the page POSTs to /result; the browser is killed once it has.
// Shared by tests/js/browser.test.mjs (the package as it is) and tests/bundlers (the package
// through Vite and esbuild). Dependency-free on purpose: both projects import it by path.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';

export const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(existsSync);
export const FIREFOX = ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find(existsSync);

// Quiet and local: nothing reaches the network (no component updates, no sync).
export const chromiumArgs = (profile) => ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
  `--user-data-dir=${profile}`];
export const firefoxArgs = (profile) => ['--headless', '--no-remote', '--profile', profile];

// application/wasm lets the browser compile while streaming; modules need a JS type.
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css',
};

// The file under `root` a URL path names, or null when it would leave root or is not a file.
export function fileUnder(root, path) {
  const base = realpathSync(root);
  const file = resolve(base, `.${decodeURIComponent(path)}`);
  if (!file.startsWith(base + sep) || !existsSync(file)) return null;
  const real = realpathSync(file);
  return real.startsWith(base + sep) && statSync(real).isFile() ? real : null;
}

export function sendFile(res, file) {
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
}

/**
 * A server on 127.0.0.1 at a free port. `serve(req, res, url)` answers GETs and returns false
 * for a 404. `requests` records every request as {path, status}.
 */
export async function reportServer(serve) {
  let waiters = [];
  const requests = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    res.on('finish', () => requests.push({ path: url.pathname, status: res.statusCode }));
    if (req.method === 'POST' && url.pathname === '/result') {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        res.end('ok');
        const waiting = waiters;
        waiters = [];
        for (const resolveReport of waiting) resolveReport(JSON.parse(body));
      });
      return;
    }
    if (!serve(req, res, url)) res.writeHead(404).end();
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    nextReport: () => new Promise((done) => waiters.push(done)),
    close: () => new Promise((done) => server.close(done)),
  };
}

/**
 * Opens `url` in the browser and resolves with what the page posted to `server`. A browser
 * that dies before the page reports (it happens to Chromium on an overloaded machine) is
 * started once more; a page that reports wrong values is never retried.
 */
export async function reportOf(command, args, url, server) {
  try {
    return await runOnce(command, args, url, server);
  } catch (error) {
    if (!error.exitedEarly) throw error;
    console.log(`# ${command} exited before the page reported; starting it once more\n# ${error.message}`);
    return runOnce(command, args, url, server);
  }
}

async function runOnce(command, args, url, server, timeoutMs = 120_000) {
  const profile = mkdtempSync(join(tmpdir(), 'tandem-browser-'));
  const result = server.nextReport();
  // Its own process group, so the browser's helper processes (renderers, crash handler) are
  // ended with it and stop writing into the profile before it is removed.
  const child = spawn(command, [...args(profile), url], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
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
    const exit = new Promise((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once('exit', done)));
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
