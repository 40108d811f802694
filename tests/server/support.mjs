// Helpers for the transport tests: start the test server (a real `tandem serve` around a
// scripted stand-in room) on a free loopback port, talk raw HTTP and raw WebSocket frames,
// and read the server's own /metrics. Nothing here decides a verdict; the tests do.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, mkdirSync, writeFileSync, symlinkSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const serverBinary = process.env.TANDEM_TEST_SERVER;
// The real `tandem` (realRoom below): a suite that needs it fails without it, never skips.
export const tandemBinary = process.env.TANDEM_BINARY;

// A module large enough to be worth compressing (about 40 KB of varied lines).
export const bigScript = Array.from({ length: 1500 }, (_, i) => `export const v${i} = ${(i * 2654435761) % 1000003};\n`).join('');

// A web root and a package root with one file of each type, a subdirectory without an
// index, a hidden file, and links pointing in and out; plus a secret file beside them that
// no URL may reach.
export function makeSite() {
  const base = mkdtempSync(join(tmpdir(), 'tandem-server-test-'));
  const web = join(base, 'web');
  const pkg = join(base, 'pkg');
  mkdirSync(web);
  mkdirSync(pkg);
  mkdirSync(join(web, 'sub'));
  mkdirSync(join(web, 'node_modules', 'three', 'build'), { recursive: true });
  writeFileSync(join(base, 'secret.txt'), 'SECRET-OUTSIDE-THE-ROOT\n');
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>tandem</title>\n');
  writeFileSync(join(web, 'main.js'), 'export const x = 1;\n');
  writeFileSync(join(web, 'style.css'), 'body { margin: 0 }\n');
  writeFileSync(join(web, 'data.json'), '{"a":1}\n');
  writeFileSync(join(web, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
  writeFileSync(join(web, 'pixel.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
  writeFileSync(join(web, 'sub', 'page.txt'), 'in sub\n');
  writeFileSync(join(web, '.env'), 'HIDDEN=1\n');
  writeFileSync(join(web, 'node_modules', 'three', 'build', 'three.module.js'), 'export const REVISION = "x";\n');
  writeFileSync(join(web, 'big.js'), bigScript);
  writeFileSync(join(web, 'ünï.txt'), 'utf8 name\n');
  symlinkSync(join(base, 'secret.txt'), join(web, 'link-out.txt'));
  symlinkSync(base, join(web, 'dir-out'));
  symlinkSync(join(web, 'main.js'), join(web, 'link-in.js'));
  writeFileSync(join(pkg, 'tandem.mjs'), 'export default 1;\n');
  // The smallest valid module: magic and version.
  writeFileSync(join(pkg, 'tandem.wasm'), Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
  return { base, web, pkg };
}

// Starts the server; resolves once it printed its URL. `fixture` are the stand-in's own
// flags (--frame-bytes, --queue-cap, ...), `serve` the `tandem serve` flags.
// realRoom: `tandem serve` itself (the room of src/net) instead of the stand-in.
// `program`: a game's own server program (its main calls serve_main), run with the flags alone.
// `port`: 0 for one the kernel picks, or a port chosen beforehand (freePort) when the server
// must be told its own address (--advertise).
export async function startServer({ fixture = [], serve = [], site = makeSite(), env = {}, realRoom = false, program = null, port: listen = 0 } = {}) {
  if (!realRoom && program === null && (!serverBinary || !existsSync(serverBinary))) {
    throw new Error(`TANDEM_TEST_SERVER must name the built tandem_test_server executable (got '${serverBinary ?? ''}')`);
  }
  if (realRoom && (!tandemBinary || !existsSync(tandemBinary))) {
    throw new Error(`TANDEM_BINARY must name the built tandem executable (got '${tandemBinary ?? ''}')`);
  }
  const common = ['--port', String(listen), '--web', site.web, '--pkg', site.pkg, ...serve];
  const [binary, args] = program !== null ? [program, common]
    : realRoom ? [tandemBinary, ['serve', ...common]] : [serverBinary, [...fixture, '--', ...common]];
  const child = spawn(binary, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout);
      if (m) resolve(Number(m[1]));
    });
    exited.then(({ code }) => reject(new Error(`server exited ${code} before listening: ${stderr}`)));
  });
  return {
    child, port, site, exited,
    origin: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/ws`,
    output: () => ({ stdout, stderr }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

// A loopback port free now (the kernel's pick, released at once): for a server that must know
// its port before it starts. Another process could take it meanwhile; on loopback in a test
// run that is rare, and the server then fails to bind loudly (exit 1), not quietly.
export async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

// One raw HTTP/1.1 request with exactly the target given (fetch would normalise '..').
export function rawHttp(port, target, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      const head = raw.subarray(0, split).toString('latin1');
      const [statusLine, ...lines] = head.split('\r\n');
      const fields = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        fields[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers: fields, body: raw.subarray(split + 4) });
    });
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(Buffer.concat([
      Buffer.from(`${method} `, 'latin1'),
      Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'),
      Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n${extra}\r\n`, 'latin1'),
    ]));
  });
}

// A WebSocket client speaking raw frames, so tests can send what no library would.
// localAddress: the source address (any 127.x.y.z on Linux), so tests can act as several
// addresses; key: a Sec-WebSocket-Key of the test's own; pipelined: bytes sent in the same
// write as the upgrade request; path: the room's ('/ws' the default room, '/ws/ID' room ID).
export async function rawWebSocket(port, { origin, localAddress, key = randomBytes(16).toString('base64'), pipelined, path = '/ws' } = {}) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
               `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n` +
               (origin ? `Origin: ${origin}\r\n` : '') + '\r\n', 'latin1');
  socket.write(pipelined ? Buffer.concat([request, pipelined]) : request);
  let buffer = Buffer.alloc(0);
  const frames = [];
  let closed = false;
  let notify = () => {};
  socket.on('data', (d) => { buffer = Buffer.concat([buffer, d]); notify(); });
  socket.on('close', () => { closed = true; notify(); });
  socket.on('error', () => {});
  const waitFor = async (predicate, ms = 5000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = predicate();
      if (value !== undefined) return value;
      if (closed || Date.now() > deadline) return predicate() ?? null;
      await new Promise((r) => { notify = r; setTimeout(r, 20); });
    }
  };
  const headEnd = await waitFor(() => { const i = buffer.indexOf('\r\n\r\n'); return i >= 0 ? i : undefined; });
  const head = buffer.subarray(0, headEnd).toString('latin1');
  buffer = buffer.subarray(headEnd + 4);
  const accept = createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  const status = Number(head.split(' ')[1]);
  if (status === 101 && !head.includes(accept)) throw new Error('bad Sec-WebSocket-Accept');

  const parse = () => {
    while (buffer.length >= 2) {
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) { if (buffer.length < 4) return; length = buffer.readUInt16BE(2); offset = 4; }
      else if (length === 127) { if (buffer.length < 10) return; length = Number(buffer.readBigUInt64BE(2)); offset = 10; }
      if (buffer.length < offset + length) return;
      frames.push({ fin: (buffer[0] & 0x80) !== 0, opcode: buffer[0] & 0x0f, payload: buffer.subarray(offset, offset + length) });
      buffer = buffer.subarray(offset + length);
    }
  };
  return {
    status, head, socket,
    frames() { parse(); return frames; },
    // Sends one frame: masked unless told otherwise, as a client must.
    send(opcode, payload, { fin = true, mask = true, rsv = 0, lengthOverride } = {}) {
      const body = Buffer.from(payload);
      const len = lengthOverride ?? body.length;
      const header = [((fin ? 0x80 : 0) | (rsv << 4) | opcode)];
      const maskBit = mask ? 0x80 : 0;
      if (len < 126) header.push(maskBit | len);
      else if (len < 65536) header.push(maskBit | 126, len >> 8, len & 0xff);
      else { header.push(maskBit | 127); const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(len)); header.push(...b); }
      let out = Buffer.from(header);
      if (mask) {
        const key4 = randomBytes(4);
        const masked = Buffer.from(body.map((byte, i) => byte ^ key4[i % 4]));
        out = Buffer.concat([out, key4, masked]);
      } else {
        out = Buffer.concat([out, body]);
      }
      socket.write(out);
    },
    // The close frame the server sent (code and reason), or null if the socket ended without.
    async closeFrame(ms = 5000) {
      return waitFor(() => {
        parse();
        const f = frames.find((x) => x.opcode === 8);
        if (!f) return undefined;
        return { code: f.payload.length >= 2 ? f.payload.readUInt16BE(0) : 1005, reason: f.payload.subarray(2).toString() };
      }, ms);
    },
    async messages(count, ms = 5000) {
      return waitFor(() => { parse(); const d = frames.filter((x) => x.opcode === 2); return d.length >= count ? d : undefined; }, ms);
    },
    async ended(ms = 5000) { return waitFor(() => (closed ? true : undefined), ms); },
    destroy() { socket.destroy(); },
  };
}

// The exposition as { 'name{labels}': value }.
export async function metrics(port) {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  const text = await response.text();
  const values = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    values[line.slice(0, space)] = Number(line.slice(space + 1));
  }
  return { text, values, contentType: response.headers.get('content-type') };
}

export function residentBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) * 1024;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The test server around the arena's real room (`tandem_test_server --game arena`): `fixture`
// are the transport's shortened limits (--close-ms 300, --queue-cap N, --seats-per-address N,
// ...), `serve` the flags of `tandem serve` for the arena. 64 pellets: the sanitizer build steps
// the default 1,024 too slowly for 60 Hz.
export function startArena({ fixture = [], serve = [], site, env } = {}) {
  return startServer({ fixture: ['--game', 'arena', ...fixture], serve: ['--pellets', '64', ...serve], site, env });
}

// A bystander: tests/server/bystander.cpp, the kit's own ClientSession playing (or watching)
// the arena over a raw socket from `from` and verifying every tick's digest, reporting JSON
// lines. Resolves once it has verified a tick (or rejects with what it saw). finish() ends it
// and resolves its final figures.
export const bystanderBinary = process.env.TANDEM_TEST_BYSTANDER;
export async function startBystander(port, { from = '127.0.0.2', role = 'play', ticket = null, readyMs = 20000 } = {}) {
  if (!bystanderBinary || !existsSync(bystanderBinary)) {
    throw new Error(`TANDEM_TEST_BYSTANDER must name the built tandem_test_bystander executable (got '${bystanderBinary ?? ''}')`);
  }
  const args = ['--port', String(port), '--from', from, '--role', role];
  if (ticket) args.push('--ticket', ticket);
  const child = spawn(bystanderBinary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let last = null;
  let final = null;
  let error = null;
  let pending = '';
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.on('data', (d) => {
    pending += d;
    for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
      const line = JSON.parse(pending.slice(0, i));
      pending = pending.slice(i + 1);
      if (line.event === 'status') last = line;
      else if (line.event === 'final') final = line;
      else if (line.event === 'error') error = line.what;
    }
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const started = performance.now();
  while (!(last && last.verified_ticks > 0)) {
    if (error || final || child.exitCode !== null) throw new Error(`the bystander stopped before verifying: ${error ?? JSON.stringify(final)} ${stderr}`);
    if (performance.now() - started > readyMs) throw new Error(`the bystander verified nothing in ${readyMs} ms: ${JSON.stringify(last)}`);
    await sleep(20);
  }
  const joinedAt = performance.now();
  const joinedTicks = last.verified_ticks;
  return {
    child,
    status: () => last,
    // Ends it, but not before it has watched `atLeastMs` since it joined: its pace is measured
    // over that span at least.
    async finish({ atLeastMs = 2000 } = {}) {
      const watched = performance.now() - joinedAt;
      if (watched < atLeastMs && child.exitCode === null) await sleep(atLeastMs - watched);
      child.stdin.end();
      await exited;
      if (!final) throw new Error(`the bystander ended without its figures: ${error ?? ''} ${stderr}`);
      final.secondsWatched = (performance.now() - joinedAt) / 1000;
      final.ticksSinceJoined = final.verified_ticks - joinedTicks;
      return final;
    },
  };
}

// What every hostile test asks of its bystander: still connected (the attack closed nobody
// else), no digest disagreed, it kept verifying at the room's pace (60 ticks a second: at least
// 70% of it, for a loaded machine), and no gap between two frames reached `maxGapMs`. Half a
// second is a stall an attack caused, not a busy machine's scheduling: on this 2-core machine
// under a load of 12-17 (other builds) the largest gaps seen were 120-350 ms with the
// server's own tick loop on time, and a quiet one shows ~20 ms. The figures are printed.
export function assertBystanderFine(figures, assert, { maxGapMs = 500, what = 'the bystander' } = {}) {
  console.log(`# ${what}: ${figures.ticksSinceJoined} ticks verified in ${figures.secondsWatched.toFixed(1)} s, ` +
    `frame gap p99 ${figures.gap_p99_ms} ms, max ${figures.gap_max_ms} ms, mismatches ${figures.mismatches}`);
  assert.equal(figures.open, true, `${what} was closed (code ${figures.close_code}, refused '${figures.refused}')`);
  assert.equal(figures.mismatches, 0, `${what} saw ${figures.mismatches} digests disagree`);
  assert.equal(figures.refused, '', `${what} was refused: ${figures.refused}`);
  const expected = 60 * figures.secondsWatched;
  assert.ok(figures.ticksSinceJoined >= 0.7 * expected,
    `${what} verified ${figures.ticksSinceJoined} ticks in ${figures.secondsWatched.toFixed(1)} s (expected about ${expected.toFixed(0)})`);
  assert.ok(figures.gap_max_ms < maxGapMs, `${what}'s largest frame gap was ${figures.gap_max_ms} ms (p99 ${figures.gap_p99_ms} ms)`);
}

// Polls /metrics until `predicate` holds or `ms` pass; the last values either way.
export async function waitForMetrics(port, predicate, ms) {
  const deadline = Date.now() + ms;
  let values = {};
  for (;;) {
    ({ values } = await metrics(port));
    if (predicate(values) || Date.now() > deadline) return values;
    await sleep(50);
  }
}
