// The WebSocket at /ws over loopback: the origin check at the handshake, the close codes
// of every misuse, room-requested closes, and a client that stops reading, which costs
// bounded memory by the server's own figures, while a well-behaved client keeps receiving
// its frames on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startServer, rawWebSocket, metrics, sleep } from './support.mjs';

// A well-behaved watcher: records when each tick frame arrives.
function watch(url) {
  const ws = new WebSocket(url);
  const arrivals = [];
  ws.on('message', (data, isBinary) => { if (isBinary && data.length >= 64) arrivals.push(performance.now()); });
  const opened = new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return { ws, arrivals, opened, closed };
}

function largestGap(arrivals) {
  let gap = 0;
  for (let i = 1; i < arrivals.length; ++i) gap = Math.max(gap, arrivals[i] - arrivals[i - 1]);
  return gap;
}

test('origins: own and localhost accepted, --allow-origin added, a foreign page refused with 403', async () => {
  const server = await startServer({ serve: ['--allow-origin', 'https://Game.Example:8443/'] });
  try {
    for (const origin of [server.origin, `http://localhost:${server.port}`, 'https://game.example:8443', undefined]) {
      const client = await rawWebSocket(server.port, { origin });
      assert.equal(client.status, 101, `origin ${origin}`);
      client.destroy();
    }
    for (const origin of ['http://evil.example', `http://127.0.0.1:${server.port + 1}`, 'null',
      `https://127.0.0.1:${server.port}`, `http://localhost.evil.example:${server.port}`]) {
      const client = await rawWebSocket(server.port, { origin });
      assert.equal(client.status, 403, `origin ${origin}`);
      client.destroy();
    }
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_ws_handshakes_refused_total{reason="origin"}'], 5);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('misuse gets its close code while another client keeps its frames on time', async () => {
  const server = await startServer({ fixture: ['--max-message', '1024'] });
  const bystander = watch(server.ws);
  await bystander.opened;
  try {
    const cases = [
      // [what, how to misbehave, expected close code]
      ['a text message where binary is required', (c) => c.send(1, 'hello'), 1007],
      ['text that is not UTF-8', (c) => c.send(1, Buffer.from([0xc0, 0xae])), 1007],
      ['a message over the largest legal client message', (c) => c.send(2, Buffer.alloc(1025)), 1009],
      ['a fragmented message over the limit', (c) => { c.send(2, Buffer.alloc(600), { fin: false }); c.send(0, Buffer.alloc(600)); }, 1009],
      ['an unmasked client frame', (c) => c.send(2, Buffer.from([1, 2, 3]), { mask: false }), 1002],
      ['reserved bits set', (c) => c.send(2, Buffer.from([1]), { rsv: 4 }), 1002],
      ['an unknown opcode', (c) => c.send(3, Buffer.from([1])), 1002],
      ['a fragmented control frame', (c) => c.send(9, Buffer.from([1]), { fin: false }), 1002],
      ['a continuation with nothing to continue', (c) => c.send(0, Buffer.from([1])), 1002],
      ['a close frame with a reserved code', (c) => c.send(8, Buffer.from([0x03, 0xec])), 1002],
    ];
    for (const [what, misbehave, code] of cases) {
      const client = await rawWebSocket(server.port);
      assert.equal(client.status, 101);
      assert.ok(await client.messages(1), `${what}: no greeting`);
      misbehave(client);
      const frame = await client.closeFrame();
      assert.ok(frame, `${what}: no close frame`);
      assert.equal(frame.code, code, what);
      assert.ok(await client.ended(), `${what}: socket not closed`);
      client.destroy();
    }
    // The room asks for a close: its reason arrives after what it queued before.
    const ruled = await rawWebSocket(server.port);
    ruled.send(2, Buffer.from([0xc1]));
    const frame = await ruled.closeFrame();
    assert.deepEqual(frame, { code: 1008, reason: 'policy' });
    ruled.destroy();

    const { values } = await metrics(server.port);
    assert.equal(values['tandem_ws_closed_total{code="1007",reason="binary_only"}'], 1);
    assert.equal(values['tandem_ws_closed_total{code="1007",reason="invalid_payload"}'], 1);
    assert.equal(values['tandem_ws_closed_total{code="1009",reason="message_too_big"}'], 2);
    assert.equal(values['tandem_ws_closed_total{code="1002",reason="protocol_error"}'], 6);
    assert.equal(values['tandem_ws_closed_total{code="1008",reason="policy"}'], 1);
    // At 60 Hz a frame is due every 16.7 ms; under ASan on a shared machine a gap of a few
    // steps is noise, a stall of the loop would be hundreds of ms.
    assert.ok(bystander.arrivals.length > 20);
    assert.ok(largestGap(bystander.arrivals) < 150, `largest gap ${largestGap(bystander.arrivals).toFixed(1)} ms`);
  } finally {
    bystander.ws.close();
    assert.equal((await server.stop()).code, 0);
  }
});

test('a client that stops reading costs bounded memory and is closed at the cap', async () => {
  // 64 KiB frames at 60 Hz (3.9 MB/s) against a 256 KiB queue cap: once the kernel's socket
  // buffers are full, the queue reaches the cap within a second.
  const cap = 256 * 1024;
  const server = await startServer({ fixture: ['--frame-bytes', String(64 * 1024), '--queue-cap', String(cap)] });
  const bystander = watch(server.ws);
  await bystander.opened;
  try {
    const stalled = await rawWebSocket(server.port);
    stalled.socket.pause();  // the socket stays open; nothing is read from it again
    let peak = 0;
    let closedByCap = 0;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const { values } = await metrics(server.port);
      peak = Math.max(peak, values.tandem_ws_write_queue_peak_bytes);
      assert.ok(values.tandem_ws_write_queue_bytes <= 2 * cap, `queued ${values.tandem_ws_write_queue_bytes}`);
      closedByCap = values['tandem_ws_closed_total{code="1008",reason="write_queue_overflow"}'] ?? 0;
      if (closedByCap === 1) break;
      await sleep(100);
    }
    assert.equal(closedByCap, 1, 'the stalled client was not closed at the cap');
    assert.ok(peak <= cap, `peak ${peak} over the cap ${cap}`);
    assert.ok(peak > cap - 64 * 1024, `peak ${peak}: the queue never filled, so the cap was not what closed it`);
    const { values } = await metrics(server.port);
    assert.equal(values.tandem_ws_connections, 1);  // the bystander only
    // Frames kept arriving for the bystander throughout.
    assert.ok(largestGap(bystander.arrivals) < 150, `largest gap ${largestGap(bystander.arrivals).toFixed(1)} ms`);
    stalled.destroy();
  } finally {
    bystander.ws.close();
    assert.equal((await server.stop()).code, 0);
  }
});

test('an idle connection is pinged, and dropped when it never answers', async () => {
  const server = await startServer({ fixture: ['--idle-ms', '600'] });
  try {
    const silent = await rawWebSocket(server.port);  // answers nothing, not even pings
    const ws = watch(server.ws);                     // npm ws answers pings
    await ws.opened;
    assert.ok(await silent.ended(3000), 'the silent client was not dropped');
    await sleep(700);
    assert.equal(ws.ws.readyState, WebSocket.OPEN);
    ws.ws.close();
    // The silent client sees its socket end when the server closes it; the server counts the
    // close once its pending read has failed, a moment later (longer on a loaded machine).
    const series = 'tandem_ws_closed_total{code="1006",reason="timeout"}';
    let values = {};
    for (let waited = 0; waited < 3000 && values[series] === undefined; waited += 100) {
      ({ values } = await metrics(server.port));
      if (values[series] === undefined) await sleep(100);
    }
    assert.equal(values[series], 1);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

// The server writes its frames to the socket itself, not through Beast; Beast's pong must
// still go out between whole frames. Frames of 200 KB are written in pieces on loopback, so
// a pong slipped into the middle of one would corrupt the stream (ws fails it with 1002).
test('a client ping is answered with its pong between whole frames while large frames stream', async () => {
  // 100 pings a second is far past the default ping budget (hostile.test.mjs checks that);
  // here it is lifted, since what is checked is where the pongs land.
  const server = await startServer({ fixture: ['--frame-bytes', '200000', '--pings-per-second', '0'] });
  try {
    const w = watch(server.ws);
    const sizes = [];
    const pongs = [];
    let failure = null;
    w.ws.on('message', (data, isBinary) => { if (isBinary && data.length >= 64) sizes.push(data.length); });  // tick frames
    w.ws.on('pong', (data) => pongs.push(data.toString()));
    w.ws.on('error', (e) => { failure = e; });
    await w.opened;
    const sent = [];
    for (let i = 0; i < 100; ++i) {
      sent.push(`ping ${i}`);
      w.ws.ping(`ping ${i}`);
      await sleep(10);
    }
    for (let waited = 0; waited < 3000 && pongs.length < sent.length; waited += 50) await sleep(50);
    assert.equal(failure, null);
    assert.deepEqual(pongs, sent);
    assert.ok(sizes.length >= 20, `only ${sizes.length} frames arrived`);
    assert.ok(sizes.every((n) => n === 200000), `a frame of another size: ${sizes.find((n) => n !== 200000)}`);
    assert.equal(w.ws.readyState, WebSocket.OPEN);
    w.ws.close();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a request whose headers never end is dropped after the request timeout', async () => {
  const server = await startServer({ fixture: ['--request-ms', '500'] });
  try {
    const net = await import('node:net');
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const started = performance.now();
    socket.write('GET /ws HTTP/1.1\r\nHost: x\r\n');  // the blank line never comes
    await new Promise((r) => socket.once('close', r));
    const waited = performance.now() - started;
    assert.ok(waited >= 450 && waited < 3000, `dropped after ${waited.toFixed(0)} ms`);
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_http_closed_total{reason="request_timeout"}'], 1);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a keep-alive connection is closed after the idle timeout without a next request, and a begun request gets the request timeout from its first byte', async () => {
  const server = await startServer({ fixture: ['--http-idle-ms', '1500', '--request-ms', '500'] });
  try {
    const net = await import('node:net');
    const open = async () => {
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      const info = { socket, data: '', closedAt: null };
      socket.on('data', (d) => { info.data += d.toString('latin1'); });
      socket.on('close', () => { info.closedAt = performance.now(); });
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      for (let w = 0; w < 100 && !info.data.includes('\r\n\r\n'); ++w) await sleep(10);
      info.answeredAt = performance.now();
      return info;
    };
    const idle = await open();
    const slow = await open();
    await sleep(1000);  // within the idle timeout: the next request may begin
    assert.equal(slow.closedAt, null, 'closed while idle within the idle timeout');
    slow.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');  // never finished
    const begun = performance.now();
    for (let w = 0; w < 300 && (idle.closedAt === null || slow.closedAt === null); ++w) await sleep(10);
    assert.ok(slow.closedAt !== null && idle.closedAt !== null);
    const slowWaited = slow.closedAt - begun;
    assert.ok(slowWaited >= 450 && slowWaited < 1200, `an unfinished request dropped ${slowWaited.toFixed(0)} ms after its first byte`);
    const idleWaited = idle.closedAt - idle.answeredAt;
    assert.ok(idleWaited >= 1400 && idleWaited < 2500, `an idle keep-alive connection dropped after ${idleWaited.toFixed(0)} ms`);
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_http_closed_total{reason="request_timeout"}'], 1);
    assert.equal(values['tandem_http_closed_total{reason="idle_timeout"}'], 1);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});
