// The check's own HTTP server, on 127.0.0.1 and an ephemeral port: serves the page, the
// shared runner, the wasm package (with .wasm as application/wasm, so browsers compile it
// streaming) and the float twin, and receives what the pages post back. Each browser is one
// "session": the check queues tasks for it; the page long-polls GET /task, posts /progress
// while computing and /result when done.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.ts': 'text/plain',
};

const IDLE_MS = Number(process.env.TANDEM_DETERMINISM_IDLE_MS ?? 600_000);

class PageSession {
  constructor(name) {
    this.name = name;
    this.nextId = 1;
    this.pendingTasks = [];       // tasks not yet fetched by the page
    this.pollers = [];            // GET /task responses waiting for a task
    this.running = new Map();     // id -> {resolve, reject, onProgress}
    this.ready = new Promise((resolve, reject) => { this.readyResolve = resolve; this.readyReject = reject; });
    this.closed = false;
  }

  // Queues a task; resolves with the page's result (rejects with its error).
  run(task, onProgress = () => {}) {
    if (this.closed) return Promise.reject(new Error(`${this.name}: session closed`));
    const id = this.nextId++;
    const full = { ...task, id };
    // A page that crashed or hung never answers: fail the task after IDLE_MS without a word.
    let timer;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const entry = this.running.get(id);
        if (!entry) return;
        this.running.delete(id);
        entry.reject(new Error(`${this.name}: no progress from the page for ${IDLE_MS / 1000} s (crashed or hung?)`));
      }, IDLE_MS);
    };
    const promise = new Promise((resolve, reject) => this.running.set(id, {
      resolve: (v) => { clearTimeout(timer); resolve(v); },
      reject: (e) => { clearTimeout(timer); reject(e); },
      onProgress: (...a) => { arm(); onProgress(...a); },
    }));
    arm();
    this.#dispatch(full);
    return promise;
  }

  // Tells the page it is done and fails whatever is still waiting.
  close(reason = 'session closed') {
    this.closed = true;
    this.#dispatch({ kind: 'done' });
    for (const { reject } of this.running.values()) reject(new Error(`${this.name}: ${reason}`));
    this.running.clear();
    this.readyReject(new Error(`${this.name}: ${reason}`));
  }

  #dispatch(task) {
    const poller = this.pollers.shift();
    if (poller) poller.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(task));
    else this.pendingTasks.push(task);
  }

  poll(res) {
    const task = this.pendingTasks.shift();
    if (task) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(task));
    else this.pollers.push(res);
  }

  post(path, body) {
    if (path === '/ready') {
      if (body.ready) this.readyResolve(body);
      else this.readyReject(new Error(`${this.name}: page failed to load: ${body.error}`));
      return;
    }
    const entry = this.running.get(body.id);
    if (!entry) return;
    if (path === '/progress') {
      entry.onProgress(...body.progress);
    } else if (path === '/result') {
      this.running.delete(body.id);
      if ('error' in body) entry.reject(new Error(body.error));
      else entry.resolve(body.result);
    }
  }
}

export async function startServer({ pageDir, libDir, packageDir, twinPath }) {
  const sessions = new Map();
  const session = (name) => {
    if (!sessions.has(name)) sessions.set(name, new PageSession(name));
    return sessions.get(name);
  };
  const serveFile = (res, root, rel) => {
    const file = normalize(join(root, rel));
    if ((file === root || file.startsWith(root + sep)) && existsSync(file)) {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
        .end(readFileSync(file));
    } else {
      res.writeHead(404).end();
    }
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const name = url.searchParams.get('session') ?? 'browser';
    if (req.method === 'POST') {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(204).end();
        let body;
        try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { return; }
        session(name).post(url.pathname, body);
      });
      return;
    }
    if (url.pathname === '/task') return session(name).poll(res);
    if (url.pathname === '/' || url.pathname === '/index.html') return serveFile(res, pageDir, 'index.html');
    if (url.pathname === '/twin.wasm') {
      if (twinPath && existsSync(twinPath)) return serveFile(res, twinPath.slice(0, twinPath.lastIndexOf(sep)), twinPath.slice(twinPath.lastIndexOf(sep) + 1));
      return res.writeHead(404).end();
    }
    if (url.pathname.startsWith('/lib/')) return serveFile(res, libDir, url.pathname.slice('/lib/'.length));
    if (url.pathname.startsWith('/pkg/')) return serveFile(res, packageDir, url.pathname.slice('/pkg/'.length));
    if (url.pathname === '/favicon.ico') return res.writeHead(204).end();
    res.writeHead(404).end();
  });
  // Long-polls must not time out while a browser computes a long stream.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve); });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    session,
    close: () => new Promise((resolve) => {
      for (const s of sessions.values()) if (!s.closed) s.close();
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
