// Hostile clients from outside, over real loopback sockets, against the test server (the
// real transport around the stand-in room), under whatever build TANDEM_TEST_SERVER names
// (the ASan one in the default run). Each case is a way issue 23 took the server down or
// locked others out; a bystander watcher on another source address (127.0.0.2: loopback
// counts like any address) must keep its frames on time throughout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startServer, rawWebSocket, metrics, residentBytes, sleep } from './support.mjs';

// A watcher that reads every frame, from 127.0.0.2, and records when tick frames arrive.
async function bystander(port) {
  const client = await rawWebSocket(port, { localAddress: '127.0.0.2' });
  assert.equal(client.status, 101);
  const arrivals = [];
  let seen = 0;
  const timer = setInterval(() => {
    const frames = client.frames();
    for (; seen < frames.length; ++seen) if (frames[seen].opcode === 2 && frames[seen].payload.length >= 64) arrivals.push(performance.now());
  }, 2);
  return {
    client, arrivals,
    largestGap() {
      let gap = 0;
      for (let i = 1; i < arrivals.length; ++i) gap = Math.max(gap, arrivals[i] - arrivals[i - 1]);
      return gap;
    },
    stop() { clearInterval(timer); client.destroy(); },
  };
}

async function waitForMetric(port, predicate, ms) {
  const deadline = Date.now() + ms;
  let values = {};
  for (;;) {
    ({ values } = await metrics(port));
    if (predicate(values) || Date.now() > deadline) return values;
    await sleep(50);
  }
}

// Every way a close can begin, crossed with every frame that can follow it. Before the fix
// the server's own read and Beast's close waited on each other for frames Beast rejects
// itself (the session never ended: its seat, socket and gauge were held) and the FIN=0 row
// aborted the ASan build (read_size_hint_pmd).
const beginnings = [
  ['a text frame (the server closes 1007)', (c) => c.send(1, 'hi')],
  ['the room closes it (1008)', (c) => c.send(2, Buffer.from([0xc1]))],
  ['the peer closes first', (c) => c.send(8, Buffer.from([0x03, 0xe8]))],
];
const follows = [
  ['nothing', () => {}],
  ['an unmasked frame', (c) => c.send(2, Buffer.from([1, 2, 3]), { mask: false })],
  ['a message over the read limit', (c) => c.send(2, Buffer.alloc(2000))],
  ['a FIN=0 frame then a frame', (c) => { c.send(2, Buffer.from([1]), { fin: false }); c.send(2, Buffer.from([2])); }],
  ['a FIN=0 frame then a continuation', (c) => { c.send(2, Buffer.from([1]), { fin: false }); c.send(0, Buffer.from([2])); }],
  ['a ping', (c) => c.send(9, Buffer.from('p'))],
  ['a binary message', (c) => c.send(2, Buffer.from([7]))],
  ['a text frame', (c) => c.send(1, 'again')],
  ['its close frame', (c) => c.send(8, Buffer.from([0x03, 0xe8]))],
  ['a close frame with code 5000', (c) => c.send(8, Buffer.from([0x13, 0x88]))],
  ['garbage bytes', (c) => c.socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]))],
];

// Together: the beginning and what follows arrive in one segment (the case that deadlocked
// and aborted); apart: 5 ms between them.
for (const [hangUp, together] of [[true, true], [false, true], [true, false]]) {
  test(`close-path matrix (${together ? 'in one segment' : 'apart'}, ${hangUp ? 'the peer then hangs up' : 'the peer then stays silent'}): every session ends within the close deadline`, async () => {
    const server = await startServer({ fixture: ['--max-message', '1024', '--close-ms', '300'] });
    const watcher = await bystander(server.port);
    try {
      for (const [begin, start] of beginnings) {
        for (const [follow, then] of follows) {
          const what = `${begin}, then ${follow}`;
          const c = await rawWebSocket(server.port);
          assert.equal(c.status, 101, what);
          assert.ok(await c.messages(1), `${what}: no greeting`);
          if (together) c.socket.cork();
          start(c);
          if (!together) await sleep(5);
          then(c);
          if (together) c.socket.uncork();
          if (hangUp) {
            await sleep(20);
            c.destroy();
          }
          // The close deadline (300 ms) plus slack for a loaded machine.
          const values = await waitForMetric(server.port, (v) => v.tandem_ws_connections === 1, 3000);
          assert.equal(values.tandem_ws_connections, 1, `${what}: the session did not end (connections ${values.tandem_ws_connections})`);
          assert.equal(server.child.exitCode, null, `${what}: the server died`);
          c.destroy();
        }
      }
      assert.ok(watcher.arrivals.length > 20);
      assert.ok(watcher.largestGap() < 250, `bystander gap ${watcher.largestGap().toFixed(0)} ms`);
    } finally {
      watcher.stop();
      assert.equal((await server.stop()).code, 0, server.output().stderr);
    }
  });
}

test('a close code of 5000 or more is refused with 1002, not echoed', async () => {
  const server = await startServer();
  try {
    const c = await rawWebSocket(server.port);
    assert.ok(await c.messages(1));
    c.send(8, Buffer.from([0x13, 0x88]));  // 5000
    const frame = await c.closeFrame();
    assert.equal(frame?.code, 1002);
    c.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a ping flood from a peer that never reads costs bounded memory, counted in /metrics', async () => {
  // Pings allowed without limit here, so only the write cap bounds the pongs.
  const cap = 64 * 1024;
  const server = await startServer({ fixture: ['--queue-cap', String(cap), '--pings-per-second', '0'] });
  const watcher = await bystander(server.port);
  try {
    const before = residentBytes(server.child.pid);
    const c = await rawWebSocket(server.port);
    c.socket.pause();  // nothing is read from it again
    const ping = Buffer.from([0x89, 0x80, 0, 0, 0, 0]);  // masked, empty, zero key
    const burst = Buffer.concat(Array.from({ length: 10000 }, () => ping));
    let peakQueued = 0;
    for (let i = 0; i < 60; ++i) {  // 600,000 pings
      c.socket.write(burst);
      if (i % 10 === 9) {
        const { values } = await metrics(server.port);
        peakQueued = Math.max(peakQueued, values.tandem_ws_write_queue_bytes);
        await sleep(20);
      }
    }
    // The kernel's buffers take the first pongs (the server's send buffer, fixed at 64 KiB, and
    // this client's receive buffer); the queue fills after them, at the pace the server reads
    // pings, which a loaded machine slows: the figures are watched until it has.
    for (let w = 0; w < 200 && peakQueued === 0; ++w) {
      await sleep(50);
      peakQueued = Math.max(peakQueued, (await metrics(server.port)).values.tandem_ws_write_queue_bytes);
    }
    await sleep(500);
    const { values } = await metrics(server.port);
    peakQueued = Math.max(peakQueued, values.tandem_ws_write_queue_bytes);
    const grew = residentBytes(server.child.pid) - before;
    assert.ok(peakQueued > 0, 'the pongs queued were not counted');
    assert.ok(peakQueued <= cap + 4096, `queued ${peakQueued} over the cap`);
    assert.ok(grew < 16 * 1024 * 1024, `RSS grew by ${(grew / 1048576).toFixed(1)} MB`);
    assert.ok(watcher.largestGap() < 250, `bystander gap ${watcher.largestGap().toFixed(0)} ms`);
    c.destroy();
  } finally {
    watcher.stop();
    assert.equal((await server.stop()).code, 0);
  }
});

// The same flood from a peer the room has stopped streaming to (as the room's flow control
// does to a client that stopped reading): no frame of the room's overflows the cap and
// closes it, so what bounds the pongs is that the server stops reading from it. Held at the
// cap, not closed, and served again once it reads.
test('a ping flood from a peer the room has paused is held at the write cap: reading stops, pongs never pass it, and it resumes once the peer reads', async () => {
  const cap = 64 * 1024;
  const server = await startServer({ fixture: ['--queue-cap', String(cap), '--pings-per-second', '0'] });
  const watcher = await bystander(server.port);
  try {
    const c = await rawWebSocket(server.port);
    assert.ok(await c.messages(1));
    c.send(2, Buffer.from([0xc5]));  // the stand-in stops its frames to this client
    await sleep(100);
    c.socket.pause();
    const ping = Buffer.from([0x89, 0x80, 0, 0, 0, 0]);
    const burst = Buffer.concat(Array.from({ length: 10000 }, () => ping));
    for (let i = 0; i < 60; ++i) c.socket.write(burst);  // 600,000 pings
    let peak = 0;
    let values = {};
    for (let w = 0; w < 200 && peak <= cap / 2; ++w) {
      await sleep(50);
      ({ values } = await metrics(server.port));
      peak = Math.max(peak, values.tandem_ws_write_queue_bytes);
    }
    for (let w = 0; w < 10; ++w) {  // held there: it does not grow past the cap
      await sleep(50);
      ({ values } = await metrics(server.port));
      peak = Math.max(peak, values.tandem_ws_write_queue_bytes);
    }
    assert.ok(peak > cap / 2, `the queue never filled (peak ${peak})`);
    assert.ok(peak <= cap, `pongs took the queue to ${peak}, past its cap ${cap}`);
    assert.equal(values.tandem_ws_connections, 2, 'the pinger was closed instead of held');
    // Reading again drains the queue and lets the server read the rest of the pings.
    // Counted as bytes (an empty pong is 2), not parsed: parsing 600,000 frames would load
    // this process, which also times the bystander.
    let answered = 0;
    c.socket.on('data', (d) => { answered += d.length; });
    c.socket.resume();
    for (let w = 0; w < 200 && answered < 2 * 600000; ++w) await sleep(50);
    assert.ok(answered >= 2 * 600000, `${answered / 2} pongs of 600,000 once the peer read`);
    assert.ok(watcher.largestGap() < 250, `bystander gap ${watcher.largestGap().toFixed(0)} ms`);
    c.destroy();
  } finally {
    watcher.stop();
    assert.equal((await server.stop()).code, 0);
  }
});

test('pings beyond the per-connection rate close the pinger with 1008 ping_rate', async () => {
  const server = await startServer();
  try {
    const c = await rawWebSocket(server.port);
    assert.ok(await c.messages(1));
    for (let i = 0; i < 200; ++i) c.send(9, Buffer.from('x'));
    const frame = await c.closeFrame();
    assert.deepEqual(frame, { code: 1008, reason: 'ping_rate' });
    c.destroy();
    const values = await waitForMetric(server.port, (v) => v['tandem_ws_closed_total{code="1008",reason="ping_rate"}'] === 1, 2000);
    assert.equal(values['tandem_ws_closed_total{code="1008",reason="ping_rate"}'], 1);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

// Opens a socket from `localAddress` and sends `bytes` (may be partial headers).
function openRaw(port, localAddress, bytes) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress });
    s.on('error', () => {});
    const info = { socket: s, closed: false, data: '' };
    s.on('data', (d) => { info.data += d.toString('latin1'); });
    s.on('close', () => { info.closed = true; info.closedAt = performance.now(); });
    s.once('connect', () => { if (bytes) s.write(bytes); resolve(info); });
  });
}

test('slowloris: unfinished requests beyond the per-address budget are refused at once, the rest dropped at the 5 s header deadline, others unaffected', async () => {
  const server = await startServer({ fixture: ['--handshakes-per-address', '8', '--connections-per-address', '32'] });
  const watcher = await bystander(server.port);
  try {
    const started = performance.now();
    const slow = [];
    for (let i = 0; i < 24; ++i) slow.push(await openRaw(server.port, '127.0.0.3', 'GET /ws HTTP/1.1\r\nHost: x\r\n'));
    await sleep(300);
    const refused = slow.filter((s) => s.closed);
    assert.equal(refused.length, 16, `${refused.length} refused of 24 (budget 8)`);
    // Another address is served meanwhile.
    const health = await openRaw(server.port, '127.0.0.4', 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    for (let w = 0; w < 40 && !health.closed; ++w) await sleep(50);
    assert.match(health.data, /^HTTP\/1.1 200/);
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_connections_refused_total{reason="handshakes_per_address"}'], 16);
    for (let w = 0; w < 140 && slow.some((s) => !s.closed); ++w) await sleep(50);
    const kept = slow.filter((s) => !refused.includes(s));
    assert.ok(kept.every((s) => s.closed), 'an unfinished request outlived the header deadline');
    for (const s of kept) {
      const waited = s.closedAt - started;
      assert.ok(waited > 4500 && waited < 7000, `dropped after ${waited.toFixed(0)} ms`);
    }
    assert.ok(watcher.largestGap() < 250, `bystander gap ${watcher.largestGap().toFixed(0)} ms`);
  } finally {
    watcher.stop();
    assert.equal((await server.stop()).code, 0);
  }
});

test('connections per address are capped with a stated reason; other addresses still connect', async () => {
  const server = await startServer({ fixture: ['--connections-per-address', '10'] });
  try {
    const held = [];
    for (let i = 0; i < 10; ++i) {
      const c = await rawWebSocket(server.port, { localAddress: '127.0.0.5' });
      assert.equal(c.status, 101);
      held.push(c);
    }
    const over = await openRaw(server.port, '127.0.0.5', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let w = 0; w < 40 && !over.closed; ++w) await sleep(50);
    assert.ok(over.closed);
    assert.match(over.data, /^HTTP\/1.1 503[^]*connections_per_address/);
    const other = await rawWebSocket(server.port, { localAddress: '127.0.0.6' });
    assert.equal(other.status, 101);
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_connections_refused_total{reason="connections_per_address"}'], 1);
    for (const c of held) c.destroy();
    other.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('bytes sent in the same packet as the upgrade request reach the WebSocket', async () => {
  const server = await startServer();
  try {
    const c = await rawWebSocket(server.port, { pipelined: Buffer.from([0x82, 0x83, 0, 0, 0, 0, 0x41, 0x42, 0x43]) });
    assert.equal(c.status, 101);
    // A tick frame may come between the greeting and the echo (a due tick runs before a read).
    const echo = await c.messages(2) && await (async () => {
      for (let w = 0; w < 100; ++w) {
        const found = c.frames().find((f) => f.opcode === 2 && f.payload.toString() === 'ABC');
        if (found) return found;
        await sleep(20);
      }
      return null;
    })();
    assert.ok(echo, 'no echo of the pipelined message');
    c.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a malformed Sec-WebSocket-Key is refused with 400', async () => {
  const server = await startServer();
  try {
    for (const key of ['short', 'AAAAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAA*==', 'AAAAAAAAAAAAAAAAAAAAAAAAAA==']) {
      const c = await rawWebSocket(server.port, { key });
      assert.equal(c.status, 400, key);
      c.destroy();
    }
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('Transfer-Encoding that does not end in chunked is refused with 400 and the connection closed', async () => {
  const server = await startServer();
  try {
    const s = await openRaw(server.port, '127.0.0.1',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let w = 0; w < 40 && !s.closed; ++w) await sleep(50);
    assert.match(s.data, /^HTTP\/1.1 400/);
    assert.ok(!s.data.includes('tandem_'), 'the smuggled request was answered');
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a drain ends as soon as the last socket closes, even with a session that was closing', async () => {
  const server = await startServer({ fixture: ['--close-ms', '5000'] });
  const c = await rawWebSocket(server.port);
  assert.ok(await c.messages(1));
  c.send(1, 'text');  // the server starts closing; the client answers nothing
  c.send(2, Buffer.from([1]), { mask: false });
  await sleep(100);
  c.destroy();
  await sleep(100);
  const started = performance.now();
  const { code } = await server.stop();
  const took = performance.now() - started;
  assert.equal(code, 0);
  assert.ok(took < 1000, `the drain took ${took.toFixed(0)} ms`);
});
