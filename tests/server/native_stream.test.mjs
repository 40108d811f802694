// GET /native/stream over loopback: a listed scenario's native digest stream, the golden one;
// a bad query a 400 naming the parameter; a second stream asked for while one is computed a
// 503 with Retry-After, not a stalled tick loop; the worker stopped when the server stops.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, metrics, sleep } from './support.mjs';

const golden = (name) => readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../games/arena/golden', `${name}.txt`), 'utf8');
const points = (text) => text.split('\n').filter((l) => /^\d+ [0-9a-f]{16}$/.test(l));

let server;
// The arena's route (its serve hooks install it): the real `tandem serve`, 64 pellets so the
// sanitizer build keeps 60 Hz.
before(async () => { server = await startServer({ realRoom: true, serve: ['--pellets', '64'] }); });
after(async () => { await server?.stop(); });

// A bounded wait for every answer: a server whose own thread computed streams would not answer.
const get = (query, timeoutMs = 120_000) => fetch(`${server.origin}/native/stream${query}`, { signal: AbortSignal.timeout(timeoutMs) });

test('trig every 100 ticks to 2000 is the golden stream, and asking again is answered from what was computed', async () => {
  const first = await get('?scenario=trig&ticks=2000&every=100');
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('content-type'), 'text/plain; charset=utf-8');
  const text = await first.text();
  assert.deepEqual(points(text), points(golden('trig')));
  assert.match(text, /^simulation_version 2$/m);
  // Every tick: 2001 points whose multiples of 100 are the golden ones.
  const started = performance.now();
  const all = points(await (await get('?scenario=trig&ticks=2000')).text());
  const ms = performance.now() - started;
  assert.equal(all.length, 2001);
  assert.deepEqual(all.filter((l) => Number(l.split(' ')[0]) % 100 === 0), points(golden('trig')));
  console.log(`# the known stream answered in ${ms.toFixed(1)} ms`);
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
    const response = await get(query);
    assert.equal(response.status, 400, query);
    assert.match(await response.text(), message, query);
  }
});

test('while a long stream is computed, another is refused with 503 and Retry-After, and the room keeps ticking', async () => {
  const before = (await metrics(server.port)).values.tandem_ticks_total;
  // crowd: 32768 pellets, tens of ms a tick: minutes for 3600 ticks, off the server's thread.
  const long = get('?scenario=crowd&ticks=3600', 600_000).catch(() => null);
  await sleep(200);
  const busy = await get('?scenario=chaos&ticks=10', 20_000);
  assert.equal(busy.status, 503);
  assert.equal(busy.headers.get('retry-after'), '2');
  await sleep(1000);
  const after = (await metrics(server.port)).values.tandem_ticks_total;
  assert.ok(after - before >= 30, `ticks went ${before} -> ${after} in about 1.2 s while a stream was computed`);
  // Stopping the server stops the computation (the test's after() would hang otherwise).
  await server.stop();
  server = null;
  await long;
});
