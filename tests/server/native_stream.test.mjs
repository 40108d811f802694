// GET /native/stream over loopback, against the real `tandem serve` (the ASan build in the
// default run): a listed scenario's native digest stream, the golden one; a bad query a 400
// naming the parameter; the bounds on what a stranger's request may cost: the page's own
// streams served from its shipped files without computing, a request past its CPU budget
// refused 400 over_budget (and at once once the cost is known), an address past its minute's
// budget refused 429 while another is served, a client that goes away freeing the worker for
// the next request, a second stream while one is computed a 503 with Retry-After, not a
// stalled tick loop; the worker stopped when the server stops.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeSite, startServer, metrics, sleep } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const golden = (name) => readFileSync(join(here, '../games/arena/golden', `${name}.txt`), 'utf8');
const shippedDir = join(here, '../../web/games/arena/native');
const points = (text) => text.split('\n').filter((l) => /^\d+ [0-9a-f]{16}$/.test(l));
const outcome = async (server, name) => (await metrics(server.port)).values[`tandem_native_stream_requests_total{outcome="${name}"}`];

// One GET from a chosen source address (any 127.x.y.z on Linux reaches the server's 127.0.0.1),
// each on a connection of its own. `abortAfterMs`: the client closes its socket then, without
// waiting for the answer (resolves null).
function get(server, query, { from = '127.0.0.1', timeoutMs = 120_000, abortAfterMs } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get({ host: '127.0.0.1', port: server.port, path: `/native/stream${query}`, localAddress: from, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (d) => { body += d; });
        response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body, ms: performance.now() - started }));
      });
    request.setTimeout(timeoutMs, () => { request.destroy(); reject(new Error(`no answer to ${query} in ${timeoutMs} ms`)); });
    request.on('error', (e) => (abortAfterMs !== undefined ? resolve(null) : reject(e)));
    if (abortAfterMs !== undefined) setTimeout(() => { request.destroy(); resolve(null); }, abortAfterMs);
  });
}

// 64 pellets so the sanitizer build keeps 60 Hz.
const pellets = ['--pellets', '64'];

describe('computed streams (budgets large enough for them)', () => {
  let server;
  before(async () => { server = await startServer({ realRoom: true, serve: [...pellets, '--stream-cpu-ms', '120000', '--stream-address-cpu-ms', '600000'] }); });
  after(async () => { await server?.stop(); });

  test('trig every 100 ticks to 2000 is the golden stream, and asking again is answered from what was computed', async () => {
    const first = await get(server, '?scenario=trig&ticks=2000&every=100');
    assert.equal(first.status, 200, first.body);
    assert.equal(first.headers['content-type'], 'text/plain; charset=utf-8');
    assert.deepEqual(points(first.body), points(golden('trig')));
    assert.match(first.body, /^simulation_version 2$/m);
    assert.match(first.body, /\(this server's native build\)/);
    // Every tick: 2001 points whose multiples of 100 are the golden ones.
    const again = await get(server, '?scenario=trig&ticks=2000');
    const all = points(again.body);
    assert.equal(all.length, 2001);
    assert.deepEqual(all.filter((l) => Number(l.split(' ')[0]) % 100 === 0), points(golden('trig')));
    console.log(`# the known stream answered in ${again.ms.toFixed(1)} ms`);
  });

  test('a bad query is a 400 that names the parameter', async () => {
    const cases = {
      '': /missing parameter 'scenario'/,
      '?scenario=trig': /missing parameter 'ticks'/,
      '?scenario=nope&ticks=10': /scenario 'nope' is not one of orbits, crowd, chaos, trig/,
      '?scenario=trig&ticks=0': /ticks must be a whole number in 1\.\.3600 \(got '0'\)/,
      '?scenario=trig&ticks=3601': /ticks must be a whole number in 1\.\.3600/,
      '?scenario=trig&ticks=10&every=11': /every must be a whole number in 1\.\.10/,
      '?scenario=trig&ticks=10&x=1': /unknown parameter 'x'/,
    };
    for (const [query, message] of Object.entries(cases)) {
      const response = await get(server, query);
      assert.equal(response.status, 400, query);
      assert.match(response.body, message, query);
    }
  });

  test('a client that goes away stops its computation: the next request is computed, not refused 503', async () => {
    // orbits to 3600: tens of seconds of CPU in the sanitizer build, within this server's budget.
    await get(server, '?scenario=orbits&ticks=3600', { from: '127.0.0.4', abortAfterMs: 500 });
    const gone = performance.now();
    let answer;
    for (;;) {
      answer = await get(server, '?scenario=chaos&ticks=10', { from: '127.0.0.5' });
      if (answer.status !== 503 || performance.now() - gone > 5000) break;
      await sleep(50);
    }
    assert.equal(answer.status, 200, `5 s after its client went away the worker still computes: ${answer.body}`);
    assert.equal(await outcome(server, 'client_gone'), 1, '/metrics counts the request whose client went away');
    console.log(`# the worker was free ${(performance.now() - gone).toFixed(0)} ms after the client went away`);
  });

  test('while a long stream is computed, another is refused with 503 and Retry-After, and the room keeps ticking', async () => {
    const before = (await metrics(server.port)).values.tandem_ticks_total;
    const long = get(server, '?scenario=orbits&ticks=3600', { timeoutMs: 600_000 }).catch(() => null);
    await sleep(300);
    const busy = await get(server, '?scenario=chaos&ticks=20', { timeoutMs: 20_000 });
    assert.equal(busy.status, 503, `${busy.body} (the long one: ${JSON.stringify(await Promise.race([long, sleep(10).then(() => 'pending')]))})`);
    assert.equal(busy.headers['retry-after'], '2');
    await sleep(1000);
    const after = (await metrics(server.port)).values.tandem_ticks_total;
    assert.ok(after - before >= 30, `ticks went ${before} -> ${after} in about 1.3 s while a stream was computed`);
    // Stopping the server stops the computation (the test's after() would hang otherwise).
    await server.stop();
    server = null;
    await long;
  });
});

describe('the default budgets, with the page beside it', () => {
  let server;
  before(async () => {
    const site = makeSite();
    cpSync(shippedDir, join(site.web, 'native'), { recursive: true });
    server = await startServer({ realRoom: true, site, serve: pellets });
  });
  after(async () => { await server?.stop(); });

  test("the page's own streams (ticks=2000, every listed scenario) are its shipped files, answered without computing", async () => {
    for (const name of ['orbits', 'crowd', 'chaos', 'trig']) {
      // What web/native-check.mjs asks for.
      const r = await get(server, `?scenario=${name}&ticks=2000`, { timeoutMs: 20_000 });
      assert.equal(r.status, 200, `${name}: ${r.body}`);
      assert.deepEqual(points(r.body), points(readFileSync(join(shippedDir, `${name}.txt`), 'utf8')), name);
      assert.match(r.body, /\(precomputed: the page's native\/\w+\.txt, which this server loaded and did not compute\)/);
      // crowd's 2,000 steps would take minutes of CPU here.
      assert.ok(r.ms < 2000, `${name} answered in ${r.ms.toFixed(0)} ms`);
    }
    assert.equal(await outcome(server, 'precomputed'), 4);
    assert.equal((await metrics(server.port)).values.tandem_native_stream_cpu_seconds_total, 0, 'the worker computed nothing');
  });

  test('a stream past the 2 s budget is refused 400 over_budget after at most its budget, then at once, and the room keeps ticking', async () => {
    const before = (await metrics(server.port)).values.tandem_ticks_total;
    // crowd to 3600: minutes of CPU; nothing precomputed covers it.
    const first = await get(server, '?scenario=crowd&ticks=3600', { timeoutMs: 30_000 });
    assert.equal(first.status, 400);
    assert.match(first.body, /^over_budget: 3600 ticks of crowd cost about .* of CPU here \(.* a tick\), over the 2 s this request may cost/);
    assert.match(first.body, /at most \d+ ticks fit/);
    const ticked = (await metrics(server.port)).values.tandem_ticks_total - before;
    // Its budget is CPU time; on a loaded machine the wall time is longer, the ticks go on.
    assert.ok(ticked >= 60 * (first.ms / 1000) * 0.5, `${ticked} ticks in the ${first.ms.toFixed(0)} ms it computed`);
    const again = await get(server, '?scenario=crowd&ticks=3000', { timeoutMs: 20_000 });
    assert.equal(again.status, 400);
    assert.match(again.body, /^over_budget: /);
    assert.ok(again.ms < 1000, `refused without work, in ${again.ms.toFixed(0)} ms`);
    assert.equal(await outcome(server, 'over_budget'), 2);
    console.log(`# over budget: refused after ${first.ms.toFixed(0)} ms of computing, then in ${again.ms.toFixed(1)} ms`);
  });
});

describe('the budget per address', () => {
  let server;
  before(async () => { server = await startServer({ realRoom: true, serve: [...pellets, '--stream-address-cpu-ms', '300'] }); });
  after(async () => { await server?.stop(); });

  test('an address that spent its minute is refused 429 with Retry-After, while another address is served', async () => {
    const spent = await get(server, '?scenario=crowd&ticks=3600', { from: '127.0.0.2', timeoutMs: 30_000 });
    assert.equal(spent.status, 400);
    assert.match(spent.body, /over the 300 ms this request may cost/);
    const refused = await get(server, '?scenario=chaos&ticks=10', { from: '127.0.0.2' });
    assert.equal(refused.status, 429);
    assert.match(refused.body, /^address_budget: this address has spent the 300 ms of CPU per minute/);
    assert.ok(Number(refused.headers['retry-after']) >= 1, `Retry-After: ${refused.headers['retry-after']}`);
    assert.equal(await outcome(server, 'address_budget'), 1);
    const other = await get(server, '?scenario=chaos&ticks=10', { from: '127.0.0.3' });
    assert.equal(other.status, 200, other.body);
    // Known now, so free: the spent address gets it too.
    const known = await get(server, '?scenario=chaos&ticks=10', { from: '127.0.0.2' });
    assert.equal(known.status, 200);
  });
});
