// The delaying WebSocket proxy the latency test puts between the page and `tandem serve`
// (lib/delay-proxy.mjs): every message arrives a fixed time later each way, in the order sent,
// binary stays binary, and a close reaches the other side.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { startDelayProxy } from './lib/delay-proxy.mjs';

test('the delay proxy adds its delay each way, keeps the order and the binary type, and passes a close on', async () => {
  const echo = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((ok) => echo.once('listening', ok));
  echo.on('connection', (s) => s.on('message', (data, binary) => s.send(data, { binary })));
  const proxy = await startDelayProxy({ upstream: `ws://127.0.0.1:${echo.address().port}/ws`, oneWayMs: 40 });
  try {
    const client = new WebSocket(proxy.url);
    await new Promise((ok, fail) => { client.once('open', ok); client.once('error', fail); });
    const got = [];
    const done = new Promise((ok) => client.on('message', (data, binary) => {
      got.push({ at: performance.now(), n: data[0], binary });
      if (got.length === 20) ok();
    }));
    const sentAt = [];
    for (let n = 0; n < 20; ++n) {
      sentAt.push(performance.now());
      client.send(Uint8Array.of(n));
      await new Promise((ok) => setTimeout(ok, n % 3));   // some back to back, some spaced
    }
    await done;
    assert.deepEqual(got.map((g) => g.n), [...Array(20).keys()], 'in the order sent');
    for (const g of got) {
      assert.equal(g.binary, true);
      // 40 ms up and 40 ms down; a timer may fire a little late, never early.
      assert.ok(g.at - sentAt[g.n] >= 80 - 1, `message ${g.n} came back after ${(g.at - sentAt[g.n]).toFixed(1)} ms`);
    }
    const closed = new Promise((ok) => client.once('close', ok));
    for (const s of echo.clients) s.close();
    await closed;
  } finally {
    await proxy.close();
    await new Promise((ok) => echo.close(ok));
  }
});
