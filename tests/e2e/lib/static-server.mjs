// A small static server for the end-to-end tests until `tandem serve` exists: the page (web/)
// at the root and the ES module package under /pkg/, with the MIME types a browser needs
// (application/wasm for streaming compilation, text/javascript for modules). It records every
// request so a test can show the page fetched nothing else, and refuses any path that would
// leave its two roots. Test code: not a server for people.
import { createServer } from 'node:http';
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown; charset=utf-8',
};

// The file under `root` that `rest` (already percent-decoded, no leading slash) names, or null
// when it would leave root or is not a regular file.
function within(root, rest) {
  if (rest.includes('\0') || rest.includes('\\')) return null;
  const file = resolve(root, rest);
  if (file !== root && !file.startsWith(root + sep)) return null;
  try {
    const real = realpathSync(file);
    if (real !== root && !real.startsWith(root + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/**
 * @param {{webDir: string, packageDir: string, host?: string, port?: number}} roots
 * @returns {Promise<{origin: string, port: number, requests: Array<{method: string, url: string, status: number}>, close: () => Promise<void>}>}
 */
export async function startStaticServer({ webDir, packageDir, host = '127.0.0.1', port = 0 }) {
  const roots = [['/pkg/', realpathSync(packageDir)], ['/', realpathSync(webDir)]];
  const requests = [];
  const server = createServer((req, res) => {
    const done = (status, headers = {}) => {
      requests.push({ method: req.method, url: req.url, status });
      res.writeHead(status, headers);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      done(405, { allow: 'GET, HEAD' });
      res.end();
      return;
    }
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      done(400);
      res.end();
      return;
    }
    if (path === '/') path = '/index.html';
    const [prefix, root] = roots.find(([p]) => path.startsWith(p));
    const file = within(root, path.slice(prefix.length));
    if (file === null) {
      done(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    done(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, ok);
  });
  const actual = server.address().port;
  return {
    origin: `http://${host}:${actual}`,
    port: actual,
    requests,
    close: () => new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}

// web/ at the root and a game's package (build/wasm/packages/<game>) under /pkg/, as `tandem
// serve --game GAME` serves them.
export const defaultRoots = (repoRoot, game = 'arena') => ({ webDir: join(repoRoot, 'web'), packageDir: join(repoRoot, 'build/wasm/packages', game) });
