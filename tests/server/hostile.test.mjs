// Hostile clients from outside, over real loopback sockets, against the arena's real room
// behind the real transport (tandem_test_server --game arena, with some limits shortened), under
// whatever build TANDEM_TEST_SERVER names (the ASan one in the default run). Each case is a way
// a stranger took the server down or locked others out (issue 23). Beside every attack a
// bystander player on another source address (127.0.0.2: loopback counts like any address),
// the kit's own ClientSession in tests/server/bystander.cpp, plays and verifies every tick's
// digest: it must stay connected, verify at the room's pace with no disagreement, and never
// wait 250 ms between two frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import {
  startArena, startBystander, assertBystanderFine, rawWebSocket, metrics, waitForMetrics, residentBytes, sleep,
  makeSite, tandemBinary,
} from './support.mjs';
import { hello, input, parseWelcome, parseError, code, type, TOKEN_BYTES } from './wire.mjs';

// A connection that said hello and got its welcome (or its refusal): the first message.
async function greeted(port, { from = '127.0.0.1', role = 1, token = null, ticket = null } = {}) {
  const c = await rawWebSocket(port, { localAddress: from });
  assert.equal(c.status, 101);
  c.send(2, hello({ role, token, ticket }));
  const first = await c.messages(1);
  assert.ok(first, 'no answer to the hello');
  c.first = first[0].payload;
  c.welcome = c.first[0] === type.welcome ? parseWelcome(c.first) : null;
  c.error = parseError(c.first);
  return c;
}

async function refusal(c) {
  return { code: c.error?.name, close: (await c.closeFrame())?.code };
}

// Every way a close can begin, crossed with every frame that can follow it. Before the fix
// the server's own read and Beast's close waited on each other for frames Beast rejects
// itself (the session never ended: its seat, socket and gauge were held) and the FIN=0 row
// aborted the ASan build (read_size_hint_pmd).
const beginnings = [
  ['a text frame (the server closes 1007)', (c) => c.send(1, 'hi')],
  ['the room closes it (a malformed message: 1002)', (c) => c.send(2, Buffer.from([0xc1]))],
  ['the peer closes first', (c) => c.send(8, Buffer.from([0x03, 0xe8]))],
];
const follows = [
  ['nothing', () => {}],
  ['an unmasked frame', (c) => c.send(2, Buffer.from([1, 2, 3]), { mask: false })],
  ['a message over the read limit', (c) => c.send(2, Buffer.alloc(2000))],
  ['a FIN=0 frame then a frame', (c) => { c.send(2, Buffer.from([1]), { fin: false }); c.send(2, Buffer.from([2])); }],
  ['a FIN=0 frame then a continuation', (c) => { c.send(2, Buffer.from([1]), { fin: false }); c.send(0, Buffer.from([2])); }],
  ['a ping', (c) => c.send(9, Buffer.from('p'))],
  ['a binary message', (c) => c.send(2, input(1))],
  ['a text frame', (c) => c.send(1, 'again')],
  ['its close frame', (c) => c.send(8, Buffer.from([0x03, 0xe8]))],
  ['a close frame with code 5000', (c) => c.send(8, Buffer.from([0x13, 0x88]))],
  ['garbage bytes', (c) => c.socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]))],
];

// Together: the beginning and what follows arrive in one segment (the case that deadlocked
// and aborted); apart: 5 ms between them.
for (const [hangUp, together] of [[true, true], [false, true], [true, false]]) {
  test(`close-path matrix (${together ? 'in one segment' : 'apart'}, ${hangUp ? 'the peer then hangs up' : 'the peer then stays silent'}): every session ends within the close deadline, its place freed`, async () => {
    const server = await startArena({ fixture: ['--close-ms', '300'] });
    const player = await startBystander(server.port);
    try {
      for (const [begin, start] of beginnings) {
        for (const [follow, then] of follows) {
          const what = `${begin}, then ${follow}`;
          const c = await greeted(server.port, { role: 1 });
          assert.ok(c.welcome, `${what}: no welcome`);
          if (together) c.socket.cork();
          start(c);
          if (!together) await sleep(5);
          then(c);
          if (together) c.socket.uncork();
          if (hangUp) {
            await sleep(20);
            c.destroy();
          }
          // The close deadline (300 ms) plus slack for a loaded machine. The watcher's place is
          // the room's proof that the session ended completely.
          const values = await waitForMetrics(server.port, (v) => v.tandem_ws_connections === 1 && v.tandem_room_watchers === 0, 3000);
          assert.equal(values.tandem_ws_connections, 1, `${what}: the session did not end (connections ${values.tandem_ws_connections})`);
          assert.equal(values.tandem_room_watchers, 0, `${what}: its watcher place was kept`);
          assert.equal(server.child.exitCode, null, `${what}: the server died`);
          c.destroy();
        }
      }
      assertBystanderFine(await player.finish(), assert);
    } finally {
      await player.finish().catch(() => {});
      assert.equal((await server.stop()).code, 0, server.output().stderr);
    }
  });
}

test('a close code of 5000 or more is refused with 1002, not echoed', async () => {
  const server = await startArena();
  const player = await startBystander(server.port);
  try {
    const c = await greeted(server.port);
    c.send(8, Buffer.from([0x13, 0x88]));  // 5000
    const frame = await c.closeFrame();
    assert.equal(frame?.code, 1002);
    c.destroy();
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

const emptyPing = Buffer.from([0x89, 0x80, 0, 0, 0, 0]);  // masked, empty, zero key

test('a watcher that floods pings and never reads costs bounded memory, counted in /metrics', async () => {
  // Pings allowed without limit here, so only the write cap bounds the pongs.
  const cap = 64 * 1024;
  const server = await startArena({ fixture: ['--queue-cap', String(cap), '--pings-per-second', '0'] });
  const player = await startBystander(server.port);
  try {
    const before = residentBytes(server.child.pid);
    const c = await greeted(server.port, { role: 1 });
    c.socket.pause();  // nothing is read from it again
    const burst = Buffer.concat(Array.from({ length: 10000 }, () => emptyPing));
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
    // pings, which a loaded machine slows. Memory is judged once the queue has begun to fill:
    // later, an ASan build's RSS grows with the time the test takes (freed memory is held in
    // its quarantine), whatever the pings do.
    for (let w = 0; w < 200 && peakQueued === 0; ++w) {
      await sleep(50);
      peakQueued = Math.max(peakQueued, (await metrics(server.port)).values.tandem_ws_write_queue_bytes);
    }
    await sleep(500);
    const grew = residentBytes(server.child.pid) - before;
    // The queue is watched until it has stood still for a second: until the server has read
    // every ping it will read. Unbounded, the pongs of 600,000 pings would queue 1.2 MB;
    // bounded, the reads stop at the cap (and the room's next frame closes the watcher).
    let last = -1;
    let stillSince = performance.now();
    for (let w = 0; w < 400; ++w) {
      await sleep(50);
      const queued = (await metrics(server.port)).values.tandem_ws_write_queue_bytes;
      peakQueued = Math.max(peakQueued, queued);
      if (queued !== last) {
        last = queued;
        stillSince = performance.now();
      } else if (peakQueued > 0 && performance.now() - stillSince >= 1000) {
        break;
      }
    }
    assert.ok(peakQueued > 0, 'the pongs queued were not counted');
    assert.ok(peakQueued <= cap + 4096, `queued ${peakQueued} over the cap`);
    assert.ok(grew < 16 * 1024 * 1024, `RSS grew by ${(grew / 1048576).toFixed(1)} MB`);
    c.destroy();
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

// The same flood from a peer the room sends nothing (it never said hello): no frame of the
// room's overflows the cap and closes it, so what bounds the pongs is that the server stops
// reading from it. Held at the cap, not closed, and served again once it reads.
test('a ping flood from a peer the room sends nothing is held at the write cap: reading stops, pongs never pass it, and it resumes once the peer reads', async () => {
  const cap = 64 * 1024;
  const server = await startArena({ fixture: ['--queue-cap', String(cap), '--pings-per-second', '0'] });
  const player = await startBystander(server.port);
  try {
    const c = await rawWebSocket(server.port);
    c.socket.pause();
    const burst = Buffer.concat(Array.from({ length: 10000 }, () => emptyPing));
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
    assert.ok(values.tandem_ws_reads_held_total >= 1, 'no read was held back');
    // Reading again drains the queue and lets the server read the rest of the pings.
    // Counted as bytes (an empty pong is 2), not parsed: parsing 600,000 frames would load
    // this process.
    let answered = 0;
    c.socket.on('data', (d) => { answered += d.length; });
    c.socket.resume();
    for (let w = 0; w < 200 && answered < 2 * 600000; ++w) await sleep(50);
    assert.ok(answered >= 2 * 600000, `${answered / 2} pongs of 600,000 once the peer read`);
    c.destroy();
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

test('pings beyond the per-connection rate close the pinger with 1008 ping_rate', async () => {
  const server = await startArena();
  const player = await startBystander(server.port);
  try {
    const c = await greeted(server.port);
    for (let i = 0; i < 200; ++i) c.send(9, Buffer.from('x'));
    const frame = await c.closeFrame();
    assert.deepEqual(frame, { code: 1008, reason: 'ping_rate' });
    c.destroy();
    const values = await waitForMetrics(server.port, (v) => v['tandem_ws_closed_total{code="1008",reason="ping_rate"}'] === 1, 2000);
    assert.equal(values['tandem_ws_closed_total{code="1008",reason="ping_rate"}'], 1);
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
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
  const server = await startArena({ fixture: ['--handshakes-per-address', '8', '--connections-per-address', '32'] });
  const player = await startBystander(server.port);
  try {
    const started = performance.now();
    const slow = [];
    for (let i = 0; i < 24; ++i) slow.push(await openRaw(server.port, '127.0.0.3', 'GET /ws HTTP/1.1\r\nHost: x\r\n'));
    await sleep(300);
    const refused = slow.filter((s) => s.closed);
    assert.equal(refused.length, 16, `${refused.length} refused of 24 (budget 8)`);
    // Another address is served meanwhile.
    const other = await openRaw(server.port, '127.0.0.4', 'GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    for (let w = 0; w < 40 && !other.closed; ++w) await sleep(50);
    assert.match(other.data, /^HTTP\/1.1 200/);
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_connections_refused_total{reason="handshakes_per_address"}'], 16);
    for (let w = 0; w < 140 && slow.some((s) => !s.closed); ++w) await sleep(50);
    const kept = slow.filter((s) => !refused.includes(s));
    assert.ok(kept.every((s) => s.closed), 'an unfinished request outlived the header deadline');
    for (const s of kept) {
      const waited = s.closedAt - started;
      assert.ok(waited > 4500 && waited < 7000, `dropped after ${waited.toFixed(0)} ms`);
    }
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

test('connections per address are capped with a stated reason; other addresses still connect', async () => {
  const server = await startArena({ fixture: ['--connections-per-address', '10'] });
  const player = await startBystander(server.port);
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
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

test('past the open-socket cap a connection is closed at once and counted as max_open_sockets, and the room plays on', async () => {
  // The bystander's socket and 9 more fill the cap; one is given back for the /metrics scrape.
  const server = await startArena({ fixture: ['--max-open-sockets', '10'] });
  const player = await startBystander(server.port);
  try {
    const held = [];
    for (let i = 0; i < 9; ++i) held.push(await rawWebSocket(server.port, { localAddress: `127.0.3.${i + 1}` }));
    const over = [];
    for (let i = 0; i < 5; ++i) over.push(await openRaw(server.port, `127.0.4.${i + 1}`, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    for (let w = 0; w < 40 && over.some((s) => !s.closed); ++w) await sleep(50);
    assert.ok(over.every((s) => s.closed && s.data === ''), 'a connection past the cap was answered');
    held.pop().destroy();
    await sleep(200);
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_connections_refused_total{reason="max_open_sockets"}'], 5);
    for (const c of held) c.destroy();
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

test('bytes sent in the same packet as the upgrade request reach the WebSocket', async () => {
  const server = await startArena();
  const player = await startBystander(server.port);
  try {
    // A hello, masked with a zero key, in the upgrade's own write: its welcome proves it arrived.
    const h = hello({ role: 1 });
    const frame = Buffer.concat([Buffer.from([0x82, 0x80 | h.length, 0, 0, 0, 0]), h]);
    const c = await rawWebSocket(server.port, { pipelined: frame });
    assert.equal(c.status, 101);
    const messages = await c.messages(1);   // null when none came before its wait ended
    assert.ok(messages, 'no welcome for the pipelined hello: nothing came back');
    assert.equal(messages[0].payload[0], type.welcome, 'no welcome for the pipelined hello');
    c.destroy();
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

test('a malformed Sec-WebSocket-Key is refused with 400', async () => {
  const server = await startArena();
  const player = await startBystander(server.port);
  try {
    for (const key of ['short', 'AAAAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAA*==', 'AAAAAAAAAAAAAAAAAAAAAAAAAA==']) {
      const c = await rawWebSocket(server.port, { key });
      assert.equal(c.status, 400, key);
      c.destroy();
    }
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

test('Transfer-Encoding that does not end in chunked is refused with 400 and the connection closed', async () => {
  const server = await startArena();
  const player = await startBystander(server.port);
  try {
    const s = await openRaw(server.port, '127.0.0.1',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let w = 0; w < 40 && !s.closed; ++w) await sleep(50);
    assert.match(s.data, /^HTTP\/1.1 400/);
    assert.ok(!s.data.includes('tandem_'), 'the smuggled request was answered');
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

test('a drain ends as soon as the last socket closes, even with a session that was closing; the bystander is told 1001', async () => {
  const server = await startArena({ fixture: ['--close-ms', '5000'] });
  const player = await startBystander(server.port);
  const c = await greeted(server.port);
  c.send(1, 'text');  // the server starts closing; the client answers nothing
  c.send(2, Buffer.from([1]), { mask: false });
  await sleep(100);
  c.destroy();
  await sleep(300);
  const before = player.status();
  const started = performance.now();
  const { code: exit } = await server.stop();
  const took = performance.now() - started;
  assert.equal(exit, 0);
  assert.ok(took < 1000, `the drain took ${took.toFixed(0)} ms`);
  const figures = await player.finish();
  assert.equal(figures.close_code, 1001);
  assert.equal(figures.mismatches, 0);
  assert.ok(figures.verified_ticks >= before.verified_ticks);
});

// Seat squatting: one address asks for every seat and every watcher place, and drops its
// players to turn their seats into kept ones and ask again. It gets its share (4 seats, kept
// ones included, and 32 places), the rest are refused with address_limit, and a newcomer from
// another address still finds a seat. Before the per-address shares it took all 15 seats the
// bystander left and a newcomer got room_full.
test('seat squatting: one address gets its share of seats and watcher places, kept seats included, and a newcomer from another still plays', async () => {
  const server = await startArena({ serve: ['--max-players', '16', '--resume-grace', '2'] });
  const player = await startBystander(server.port);
  try {
    const squat = '127.0.0.3';
    const seats = [];
    for (let i = 0; i < 20; ++i) seats.push(await greeted(server.port, { from: squat, role: 0 }));
    const won = seats.filter((c) => c.welcome);
    assert.equal(won.length, 4, `${won.length} seats taken by one address`);
    for (const c of seats.filter((x) => !x.welcome)) assert.deepEqual(await refusal(c), { code: 'address_limit', close: 1008 });
    // Dropping them keeps the seats (for their tokens), and the address still holds them.
    for (const c of won) c.destroy();
    await waitForMetrics(server.port, (v) => v.tandem_room_held_seats === 4, 3000);
    for (let i = 0; i < 4; ++i) {
      const c = await greeted(server.port, { from: squat, role: 0 });
      assert.equal(c.error?.name, 'address_limit', 'a kept seat was not counted against its address');
      c.destroy();
    }
    const places = [];
    for (let i = 0; i < 40; ++i) places.push(await greeted(server.port, { from: squat, role: 1 }));
    assert.equal(places.filter((c) => c.welcome).length, 32);
    assert.ok(places.filter((c) => !c.welcome).every((c) => c.error?.name === 'address_limit'));
    const newcomer = await greeted(server.port, { from: '127.0.0.4', role: 0 });
    assert.ok(newcomer.welcome, `a newcomer was refused: ${newcomer.error?.name}`);
    let { values } = await metrics(server.port);
    assert.equal(values['tandem_room_address_limit_refusals_total{place="seat"}'], 20);
    assert.equal(values['tandem_room_address_limit_refusals_total{place="watcher"}'], 8);
    assert.equal(values['tandem_room_refusals_total{code="address_limit"}'], 28);
    // All of it given back once the squatter leaves and the kept seats' grace ends.
    for (const c of [...seats, ...places, newcomer]) c.destroy();
    values = await waitForMetrics(server.port, (v) => v.tandem_room_players === 1 && v.tandem_room_watchers === 0 &&
      v.tandem_room_held_seats === 0 && v.tandem_ws_connections === 1, 6000);
    assert.deepEqual([values.tandem_room_players, values.tandem_room_watchers, values.tandem_room_held_seats, values.tandem_ws_connections],
      [1, 0, 0, 1]);
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

// Tickets: with --ticket-key the room admits a hello only with a ticket signed by its key, for
// it, current and unused. Each forgery and replay is refused with its own code, and the
// bystander (a ticketed player) plays on.
function mintTicket(keyFile, args) {
  return execFileSync(tandemBinary, ['ticket', '--ticket-key', keyFile, ...args], { encoding: 'utf8' }).trim();
}
const ticketBytes = (text) => Buffer.from(text, 'base64url');

test('tickets: missing, forged, tampered, expired, foreign and replayed tickets are each refused with their own code; good ones admit once', async () => {
  const site = makeSite();
  const key = join(site.base, 'ticket.key');
  const otherKey = join(site.base, 'other.key');
  writeFileSync(key, randomBytes(32).toString('hex') + '\n');
  writeFileSync(otherKey, randomBytes(32).toString('hex') + '\n');
  // Minted first, as a lobby would: the lobby's work is not the server's.
  const play = (args = []) => ticketBytes(mintTicket(key, ['--room', 'arena-1', '--role', 'play', ...args]));
  const tooLong = Math.floor(Date.now() / 1000) + 2 * 86400;
  const t = {
    bystander: mintTicket(key, ['--room', 'arena-1', '--role', 'play']),
    otherKey: ticketBytes(mintTicket(otherKey, ['--room', 'arena-1', '--role', 'play'])),
    tampered: play(['--name', 'ann']),
    upgraded: play(['--player', '0']),
    expired: play(['--expires-at', '1']),
    otherRoom: ticketBytes(mintTicket(key, ['--room', 'arena-2', '--role', 'play'])),
    playerAsWatcher: play(),
    tooLong: play(['--expires-at', String(tooLong)]),
    once: play(),
    watch: ticketBytes(mintTicket(key, ['--room', 'arena-1', '--role', 'watch'])),
  };
  t.tampered[t.tampered.length - 32 - 1] ^= 1;   // the name's last byte: the signature no longer holds
  t.upgraded[25] = 1;                            // a player's ticket turned into a watcher's by hand
  const server = await startArena({ site, serve: ['--ticket-key', key, '--room', 'arena-1', '--resume-grace', '5'] });
  const player = await startBystander(server.port, { ticket: t.bystander });
  try {
    const from = '127.0.0.3';
    const refusedWith = async (role, ticket) => {
      const c = await greeted(server.port, { from, role, ticket });
      const r = await refusal(c);
      c.destroy();
      return r;
    };
    assert.deepEqual(await refusedWith(0, null), { code: 'ticket_missing', close: 1008 });
    assert.deepEqual(await refusedWith(0, t.otherKey), { code: 'ticket_forged', close: 1008 });
    assert.deepEqual(await refusedWith(0, t.tampered), { code: 'ticket_forged', close: 1008 });
    assert.deepEqual(await refusedWith(1, t.upgraded), { code: 'ticket_forged', close: 1008 });
    assert.deepEqual(await refusedWith(0, t.expired), { code: 'ticket_expired', close: 1008 });
    assert.deepEqual(await refusedWith(0, t.otherRoom), { code: 'ticket_invalid', close: 1008 });
    assert.deepEqual(await refusedWith(1, t.playerAsWatcher), { code: 'ticket_invalid', close: 1008 });
    assert.deepEqual(await refusedWith(0, t.tooLong), { code: 'ticket_invalid', close: 1008 });
    // A good player's ticket admits once: replayed while its player plays, and after it left.
    const first = await greeted(server.port, { from, role: 0, ticket: t.once });
    assert.ok(first.welcome, `a good ticket was refused: ${first.error?.name}`);
    assert.deepEqual(await refusedWith(0, t.once), { code: 'ticket_replayed', close: 1008 });
    const token = first.welcome.token;
    first.destroy();
    await sleep(200);
    assert.deepEqual(await refusedWith(0, t.once), { code: 'ticket_replayed', close: 1008 });
    // Its resume token takes the seat back without a ticket.
    const back = await greeted(server.port, { from, role: 0, token });
    assert.equal(back.welcome?.player, first.welcome.player, `the resume was refused: ${back.error?.name}`);
    back.destroy();
    // A watcher's ticket admits one connection at a time, again once that one is gone.
    const w1 = await greeted(server.port, { from, role: 1, ticket: t.watch });
    assert.ok(w1.welcome);
    assert.deepEqual(await refusedWith(1, t.watch), { code: 'ticket_replayed', close: 1008 });
    w1.destroy();
    await waitForMetrics(server.port, (v) => v.tandem_room_watchers === 0, 3000);
    const w2 = await greeted(server.port, { from, role: 1, ticket: t.watch });
    assert.ok(w2.welcome, `a released watcher's ticket was refused: ${w2.error?.name}`);
    w2.destroy();
    const { values } = await metrics(server.port);
    for (const [name, n] of [['ticket_missing', 1], ['ticket_forged', 3], ['ticket_expired', 1], ['ticket_invalid', 3], ['ticket_replayed', 3]]) {
      assert.equal(values[`tandem_room_refusals_total{code="${name}"}`], n, name);
    }
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

// Token theft and reuse: guessed tokens, a token presented as a watcher, a used one replayed
// after its player took the seat back; and the token never travels anywhere but to its player
// (a watcher's whole stream holds neither the old nor the new one).
test('resume tokens: guesses, a watcher carrying one and a used one replayed are refused; no token reaches another client', async () => {
  const server = await startArena({ serve: ['--resume-grace', '5'] });
  const player = await startBystander(server.port);
  const spy = await greeted(server.port, { from: '127.0.0.7', role: 1 });
  try {
    const victim = await greeted(server.port, { from: '127.0.0.5', role: 0 });
    const t1 = victim.welcome.token;
    assert.equal(t1.length, TOKEN_BYTES);
    const thief = '127.0.0.6';
    const guesses = [];
    for (let i = 0; i < 100; ++i) {
      const c = await greeted(server.port, { from: thief, role: 0, token: randomBytes(TOKEN_BYTES) });
      guesses.push(c.error?.name);
      c.destroy();
    }
    assert.ok(guesses.every((g) => g === 'resume_unknown'), `guesses answered ${[...new Set(guesses)]}`);
    const asWatcher = await greeted(server.port, { from: thief, role: 1, token: t1 });
    assert.deepEqual(await refusal(asWatcher), { code: 'unexpected', close: 1002 });
    asWatcher.destroy();
    // The victim's network blips; it takes its seat back with t1 and gets t2.
    victim.destroy();
    await waitForMetrics(server.port, (v) => v.tandem_room_held_seats === 1, 3000);
    const back = await greeted(server.port, { from: '127.0.0.5', role: 0, token: t1 });
    assert.equal(back.welcome?.player, victim.welcome.player);
    const t2 = back.welcome.token;
    assert.ok(t2 && !t2.equals(t1));
    const replay = await greeted(server.port, { from: thief, role: 0, token: t1 });
    assert.deepEqual(await refusal(replay), { code: 'resume_used', close: 1008 });
    replay.destroy();
    await sleep(300);
    // Still the victim's: its stream goes on.
    const before = back.frames().length;
    await sleep(300);
    assert.ok(back.frames().length > before, 'the victim lost its stream');
    const seen = Buffer.concat(spy.frames().map((f) => f.payload));
    assert.ok(seen.length > 1000, 'the spy saw nothing');
    assert.equal(seen.indexOf(t1), -1, 'a watcher received the first token');
    assert.equal(seen.indexOf(t2), -1, 'a watcher received the second token');
    const { values } = await metrics(server.port);
    assert.equal(values.tandem_room_resumes_total, 1);
    assert.equal(values.tandem_room_resumes_refused_total, 101);
    assert.equal(values['tandem_room_refusals_total{code="resume_unknown"}'], 100);
    assert.equal(values['tandem_room_refusals_total{code="resume_used"}'], 1);
    back.destroy();
    assertBystanderFine(await player.finish(), assert);
  } finally {
    spy.destroy();
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

// /native/stream from strangers: the most expensive scenario at the most ticks from three
// addresses at once, repeated, and some requests abandoned mid-way. Each is bounded by its
// CPU budget and its address's; the worker is one thread, so the room's thread keeps its ticks.
test('/native/stream abuse: expensive, repeated and abandoned requests from several addresses cost bounded CPU and no bystander ticks', async () => {
  const server = await startArena({ serve: ['--stream-cpu-ms', '300', '--stream-address-cpu-ms', '600'] });
  const player = await startBystander(server.port);
  try {
    const statuses = [];
    const ask = (from, abort) => new Promise((resolve) => {
      const s = net.connect({ port: server.port, host: '127.0.0.1', localAddress: from });
      let data = '';
      s.on('data', (d) => { data += d.toString('latin1'); });
      s.on('error', () => {});
      let timedOut = false;
      s.on('close', () => { statuses.push(abort ? 'abandoned' : timedOut ? 'no answer in 20 s' : data.slice(9, 12)); resolve(); });
      s.write('GET /native/stream?scenario=crowd&ticks=3600 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      if (abort) setTimeout(() => s.destroy(), 100);
      // Bounded: a request the budgets did not stop would run for minutes.
      else setTimeout(() => { timedOut = true; s.destroy(); }, 20000);
    });
    const started = performance.now();
    const rounds = [];
    for (let round = 0; round < 4; ++round) {
      rounds.push(Promise.all(['127.0.0.3', '127.0.0.4', '127.0.0.5'].map((from, i) => ask(from, (round + i) % 3 === 0))));
      await sleep(250);
    }
    await Promise.all(rounds);
    const took = performance.now() - started;
    assert.ok(statuses.length === 12);
    assert.ok(statuses.every((s) => ['abandoned', '400', '429', '503'].includes(s)), `answers ${statuses}`);
    assert.ok(took < 15000, `the requests took ${took.toFixed(0)} ms`);
    assertBystanderFine(await player.finish(), assert);
  } finally {
    await player.finish().catch(() => {});
    assert.equal((await server.stop()).code, 0);
  }
});

// --record killed: the file ends at a whole tick no earlier than the last one the bystander
// verified, and `tandem replay` calls it truncated (exit 1) there.
test('SIGKILL during --record while a bystander plays: the file covers every tick it verified and replays as truncated', async () => {
  const site = makeSite();
  const record = join(site.base, 'match.replay');
  const server = await startArena({ site, serve: ['--record', record] });
  const player = await startBystander(server.port);
  await sleep(1500);
  const seen = player.status().verified_tick;
  server.child.kill('SIGKILL');
  await server.exited;
  const figures = await player.finish();
  assert.equal(figures.mismatches, 0);
  assert.equal(figures.open, false, 'the bystander did not see the server go');
  const r = spawnSync(tandemBinary, ['replay', record], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  const m = /truncated: no end marker .*the last tick it covers is (\d+)/.exec(r.stderr);
  assert.ok(m, `no truncation reported: ${r.stdout}${r.stderr}`);
  assert.ok(Number(m[1]) >= seen, `the file ends at tick ${m[1]}, the bystander had verified ${seen}`);
});
