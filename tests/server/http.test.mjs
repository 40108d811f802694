// HTTP of `tandem serve` over loopback: files with exact MIME types and revalidation
// headers, gzip to a client that asks for it, HEAD, no listings, no path out of the roots in
// any spelling, /metrics, /healthz, and a game's own routes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { startServer, rawHttp, metrics, rawWebSocket, sleep, bigScript } from './support.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

const get = (path, init) => fetch(`${server.origin}${path}`, init);

test('each file type is served with its exact MIME type', async () => {
  const expected = {
    '/': 'text/html; charset=utf-8',
    '/index.html': 'text/html; charset=utf-8',
    '/main.js': 'text/javascript; charset=utf-8',
    '/pkg/tandem.mjs': 'text/javascript; charset=utf-8',
    '/pkg/tandem.wasm': 'application/wasm',
    '/style.css': 'text/css; charset=utf-8',
    '/data.json': 'application/json',
    '/pixel.png': 'image/png',
    '/logo.svg': 'image/svg+xml',
    '/node_modules/three/build/three.module.js': 'text/javascript; charset=utf-8',
  };
  for (const [path, type] of Object.entries(expected)) {
    const response = await get(path);
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get('content-type'), type, path);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
  }
  // The .wasm bytes arrive intact, and WebAssembly accepts them as a module.
  const wasm = new Uint8Array(await (await get('/pkg/tandem.wasm')).arrayBuffer());
  assert.deepEqual([...wasm], [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  assert.ok(WebAssembly.validate(wasm));
});

test('files are revalidated on every load and answered 304 while unchanged', async () => {
  const first = await get('/main.js');
  assert.equal(first.headers.get('cache-control'), 'no-cache');
  const etag = first.headers.get('etag');
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
  const again = await get('/main.js', { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal((await again.arrayBuffer()).byteLength, 0);
  const weak = await get('/main.js', { headers: { 'If-None-Match': `"other", W/${etag}` } });
  assert.equal(weak.status, 304);
  const other = await get('/main.js', { headers: { 'If-None-Match': '"not-this-one"' } });
  assert.equal(other.status, 200);
});

// The first request for a file queues its compression and is answered as it is; a later one
// gets the gzip body. Asked until it comes, for at most 10 s.
async function gzipped(path) {
  for (const until = Date.now() + 10_000; ;) {
    const response = await rawHttp(server.port, path, { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
    if (response.headers['content-encoding'] === 'gzip' || Date.now() > until) return response;
    await sleep(50);
  }
}

test('a client that accepts gzip gets the file gzipped, decoding to exactly its bytes, with its own tag', async () => {
  const gz = await gzipped('/big.js');
  assert.equal(gz.status, 200);
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gz.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(gz.headers.vary, 'Accept-Encoding');
  assert.equal(Number(gz.headers['content-length']), gz.body.length);
  assert.ok(gz.body.length < bigScript.length / 2, `${gz.body.length} B gzipped of ${bigScript.length}`);
  assert.ok(gunzipSync(gz.body).equals(Buffer.from(bigScript)), 'decodes to the file');
  // Without Accept-Encoding, or with gzip refused, the same file comes as it is.
  for (const headers of [{}, { 'Accept-Encoding': 'gzip;q=0, br' }, { 'Accept-Encoding': 'identity' }]) {
    const plain = await rawHttp(server.port, '/big.js', { headers });
    assert.equal(plain.headers['content-encoding'], undefined, JSON.stringify(headers));
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    assert.ok(plain.body.equals(Buffer.from(bigScript)), JSON.stringify(headers));
    assert.notEqual(plain.headers.etag, gz.headers.etag, 'each representation has its own strong tag');
  }
  // Revalidation names the representation: the gzip tag is answered 304 for a gzip client.
  const again = await rawHttp(server.port, '/big.js', { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': gz.headers.etag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.etag, gz.headers.etag);
  // HEAD: the headers of the gzip GET, no body.
  const head = await rawHttp(server.port, '/big.js', { method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(head.headers['content-encoding'], 'gzip');
  assert.equal(head.headers['content-length'], gz.headers['content-length']);
  assert.equal(head.body.length, 0);
  // Node's fetch asks for gzip and decodes it: the bytes a browser's script sees.
  const fetched = await get('/big.js');
  assert.equal(fetched.headers.get('content-encoding'), 'gzip');
  assert.equal(await fetched.text(), bigScript);
});

test('files too small to gain, or compressed already, are sent as they are to a gzip client', async () => {
  for (const path of ['/pixel.png', '/main.js']) {
    await rawHttp(server.port, path, { headers: { 'Accept-Encoding': 'gzip' } });
    await sleep(200);
    const response = await rawHttp(server.port, path, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(response.status, 200, path);
    assert.equal(response.headers['content-encoding'], undefined, path);
  }
});

test('HEAD answers the headers of GET without a body', async () => {
  const got = await get('/pkg/tandem.wasm');
  const head = await rawHttp(server.port, '/pkg/tandem.wasm', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-type'], 'application/wasm');
  assert.equal(head.headers['content-length'], got.headers.get('content-length'));
  assert.equal(head.headers.etag, got.headers.get('etag'));
  assert.equal(head.body.length, 0);
  const metricsHead = await rawHttp(server.port, '/metrics', { method: 'HEAD' });
  assert.equal(metricsHead.status, 200);
  assert.ok(Number(metricsHead.headers['content-length']) > 0);
  assert.equal(metricsHead.body.length, 0);
});

test('other methods are refused with 405 naming GET and HEAD', async () => {
  const post = await rawHttp(server.port, '/index.html', { method: 'POST', headers: { 'Content-Length': '0' } });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
});

test('directories are never listed', async () => {
  assert.equal((await get('/sub/')).status, 404);
  assert.equal((await get('/sub')).status, 404);
  assert.equal((await get('/node_modules/')).status, 404);
  assert.equal((await get('/sub/page.txt')).status, 200);  // the files in it are served
});

test('no spelling of a path reaches a file outside the roots', async () => {
  const refusals = [
    // dot segments, raw and encoded in every case mix
    '/../secret.txt', '/sub/../../secret.txt', '/./index.html', '/%2e%2e/secret.txt', '/%2E%2E/secret.txt',
    '/.%2e/secret.txt', '/%2e./secret.txt', '/sub/%2e%2e/%2e%2e/secret.txt', '/pkg/../secret.txt',
    '/pkg/%2e%2e/secret.txt',
    // encoded separators and double encoding
    '/..%2fsecret.txt', '/%2e%2e%2fsecret.txt', '/sub%2f..%2f..%2fsecret.txt', '/%252e%252e/secret.txt',
    '/%252e%252e%252fsecret.txt', '/%25%32%65%25%32%65/secret.txt',
    // backslashes, raw and encoded
    '/..\\secret.txt', '/%5c..%5csecret.txt', '/sub\\..\\..\\secret.txt',
    // NUL and control bytes
    '/main.js%00.png', '/%00', '/secret%0a.txt',
    // overlong UTF-8 for '.' and '/', and other invalid UTF-8
    '/%c0%ae%c0%ae/secret.txt', '/%e0%80%ae%e0%80%ae/secret.txt', '/%c0%af..%c0%afsecret.txt', '/%ed%a0%80',
    '/%ff', '/%c3',
    // not a path at all, and empty segments
    `http://127.0.0.1:${0}/../secret.txt`, '*', '//etc/passwd', '/sub//page.txt',
    // malformed percent encoding
    '/%', '/%2', '/%zz',
  ];
  const notFound = [
    '/etc/passwd',          // an absolute path is a name under the root
    '/link-out.txt',        // a link inside pointing out
    '/dir-out/secret.txt',  // a directory link pointing out
    '/.env', '/sub/.hidden',
  ];
  for (const target of refusals) {
    const response = await rawHttp(server.port, target);
    assert.equal(response.status, 400, `${target} -> ${response.status}`);
    assert.ok(!response.body.toString().includes('SECRET'), target);
  }
  for (const target of notFound) {
    const response = await rawHttp(server.port, target);
    assert.equal(response.status, 404, `${target} -> ${response.status}`);
    assert.ok(!response.body.toString().includes('SECRET'), target);
  }
  // Raw bytes the request line must not carry: a NUL and a bare 0xC0 0xAE.
  for (const raw of [Buffer.from('/a\x00b', 'latin1'), Buffer.from([0x2f, 0xc0, 0xae, 0xc0, 0xae, 0x2f])]) {
    const response = await rawHttp(server.port, raw);
    assert.ok([400, 404].includes(response.status), `raw ${raw.toString('hex')} -> ${response.status}`);
    assert.ok(!response.body.toString().includes('SECRET'));
  }
  // The controls: a link that stays inside, and a valid UTF-8 name, are served.
  assert.equal((await rawHttp(server.port, '/link-in.js')).status, 200);
  assert.equal((await rawHttp(server.port, '/%C3%BCn%C3%AF.txt')).status, 200);
  // The server is still up and counted every refusal.
  const { values } = await metrics(server.port);
  assert.ok(values['tandem_http_responses_total{status="400"}'] >= refusals.length);
});

test("a game's route answers from another thread later, HEAD without its body, once; other methods 405", async () => {
  const later = await get('/stand-in/later?hello');
  assert.equal(later.status, 200);
  assert.equal(later.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(later.headers.get('cache-control'), 'no-store');
  assert.equal(later.headers.get('x-stand-in'), 'later');
  assert.equal(later.headers.get('server'), 'tandem');
  assert.equal(await later.text(), 'later: hello\n');  // the route's second answer was dropped
  const head = await rawHttp(server.port, '/stand-in/later?abc', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], String('later: abc\n'.length));
  assert.equal(head.body.length, 0);
  const now = await get('/stand-in/now');
  assert.equal(now.status, 202);
  assert.equal(await now.text(), 'now\n');
  assert.equal((await get('/stand-in/now', { method: 'POST' })).status, 405);
  assert.equal((await get('/stand-in/nowhere')).status, 404);
  // Two on one keep-alive connection, in order.
  const again = await get('/stand-in/later?two');
  assert.equal(await again.text(), 'later: two\n');
});

test('/ws without an upgrade is answered 426', async () => {
  const response = await get('/ws');
  assert.equal(response.status, 426);
});

test('/metrics is the Prometheus text format with the transport and tick figures', async () => {
  await sleep(100);
  const { values, contentType, text } = await metrics(server.port);
  assert.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8');
  for (const name of ['tandem_ticks_total', 'tandem_late_ticks_total', 'tandem_ws_frames_sent_total',
    'tandem_ws_bytes_sent_total', 'tandem_ws_frames_received_total', 'tandem_ws_bytes_received_total',
    'tandem_room_players', 'tandem_room_watchers', 'tandem_room_baselines_sent_total',
    'tandem_room_flow_control_pauses_total', 'tandem_room_inputs_rate_limited_total',
    'tandem_room_desync_reports_total', 'tandem_ws_write_queue_cap_bytes', 'process_resident_memory_bytes']) {
    assert.ok(name in values, `${name} missing`);
  }
  assert.match(text, /# TYPE tandem_tick_lateness_seconds histogram/);
  assert.ok(values.tandem_ticks_total > 0);
  assert.equal(values.tandem_ticks_total, values['tandem_tick_lateness_seconds_count']);
});

test('/healthz is 200 while ticking on time and 503 after the loop fell behind', async () => {
  const healthy = await get('/healthz');
  assert.equal(healthy.status, 200);
  assert.equal(await healthy.text(), 'on_time\n');
  assert.equal(healthy.headers.get('cache-control'), 'no-store');
  // Ask the stand-in room for one 200 ms tick: 12 steps at 60 Hz, past the 4-step bound.
  const client = await rawWebSocket(server.port);
  client.send(2, Buffer.from([0xc3, 20]));
  await sleep(400);
  const behind = await get('/healthz');
  assert.equal(behind.status, 503);
  assert.equal(await behind.text(), 'recently_behind\n');
  const { values } = await metrics(server.port);
  assert.ok(values.tandem_late_ticks_total >= 1);
  assert.ok(values.tandem_dropped_ticks_total >= 1);  // 12 due steps against a catch-up cap of 8
  client.destroy();
});
