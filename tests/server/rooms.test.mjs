// Many rooms in one `tandem serve`, over real sockets: POST /rooms makes a room of any game the
// binary has and GET /rooms lists it; /ws/ROOM joins that room while plain /ws stays the default
// room's; an unknown room is refused; every bad request gets a 4xx (or 503) with a JSON error;
// the bounds per process and per address hold from several source addresses; with tickets on a
// room is made only for a ticket the key signed; a room with no connection for
// --room-idle-close closes and the default room never does; rooms tick on a pool of threads, so
// one room's slow step delays neither another room's ticks nor the server's HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { startServer, rawWebSocket, metrics, makeSite, sleep } from './support.mjs';

// One HTTP/1.1 request from `from` (any 127.x.y.z), its answer with the body parsed as JSON.
function request(port, method, path, { body, from = '127.0.0.1' } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
    const chunks = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const head = raw.slice(0, split);
      const text = raw.slice(split + 4);
      let json = null;
      try { json = JSON.parse(text); } catch { /* left null: the test says what it expected */ }
      resolve({ status: Number(head.split(' ')[1]), head, text, json });
    });
    const payload = body === undefined ? '' : (typeof body === 'string' ? body : JSON.stringify(body));
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
  });
}

const tickOf = (frame) => Number(frame.payload.readBigUInt64LE(0));

// Twice: on the tick pool, and with --tick-threads 0, where every room's strand runs on the I/O
// thread; the rooms behave the same either way, and the process drains and exits 0.
for (const onIoThread of [false, true]) {
  test(`POST /rooms makes a room that GET /rooms lists and /ws/ROOM joins, while plain /ws stays the default room${onIoThread ? ' (--tick-threads 0: the rooms on the I/O thread)' : ''}`, async () => {
    const server = await startServer(onIoThread ? { serve: ['--tick-threads', '0'] } : {});
    try {
      const made = await request(server.port, 'POST', '/rooms', { body: { max_players: 6 } });
      assert.equal(made.status, 201, made.text);
      assert.match(made.head, /content-type: application\/json/i);
      assert.match(made.json.id, /^[0-9a-f]{16}$/);
      assert.equal(made.json.game, 'stand-in');
      assert.equal(made.json.ws, `/ws/${made.json.id}`);
      const arena = await request(server.port, 'POST', '/rooms', { body: { game: 'arena', max_players: 3 } });
      assert.equal(arena.status, 201, arena.text);
      assert.equal(arena.json.game, 'arena');

      // Each room counts its own ticks from its own start: a client of the new room sees its frames.
      const inRoom = await rawWebSocket(server.port, { path: made.json.ws });
      assert.equal(inRoom.status, 101);
      const inDefault = await rawWebSocket(server.port);
      assert.equal(inDefault.status, 101);
      const roomFrames = await inRoom.messages(4);
      const defaultFrames = await inDefault.messages(4);
      assert.equal(roomFrames[0].payload[0], 'H'.charCodeAt(0));
      assert.equal(defaultFrames[0].payload[0], 'H'.charCodeAt(0));

      const listed = await request(server.port, 'GET', '/rooms');
      assert.equal(listed.status, 200);
      const byId = Object.fromEntries(listed.json.rooms.map((r) => [r.id, r]));
      assert.deepEqual(Object.keys(byId).sort(), ['default', made.json.id, arena.json.id].sort());
      assert.equal(byId.default.game, 'stand-in');
      assert.equal(byId.default.watchers, 1);
      assert.equal(byId[made.json.id].watchers, 1);
      assert.equal(byId[made.json.id].seats, 6);
      assert.equal(byId[arena.json.id].game, 'arena');
      assert.equal(byId[arena.json.id].seats, 3);
      assert.equal(byId[arena.json.id].players, 0);
      for (const r of listed.json.rooms) assert.ok(Number.isInteger(r.tick) && r.tick > 0, JSON.stringify(r));
      // Each client gets its own room's stream: tick frames counting up, one per tick.
      for (const frames of [await inRoom.messages(6), await inDefault.messages(6)]) {
        const ticks = frames.slice(1).map(tickOf);
        for (let i = 1; i < ticks.length; ++i) assert.ok(ticks[i] > ticks[i - 1], `ticks ${ticks}`);
      }

      const values = (await metrics(server.port)).values;
      assert.equal(values.tandem_rooms, 3);
      assert.equal(values.tandem_rooms_created_total, 2);
      // Each room's own series, labelled with its id; the unlabelled ones stay the default room's.
      assert.equal(values[`tandem_rooms_watchers{room="${made.json.id}"}`], 1);
      assert.equal(values['tandem_rooms_watchers{room="default"}'], 1);
      assert.equal(values[`tandem_rooms_watchers{room="${arena.json.id}"}`], 0);
      assert.ok(values[`tandem_rooms_ticks_total{room="${made.json.id}"}`] > 0);
      assert.ok(values[`tandem_rooms_tick{room="${arena.json.id}"}`] > 0);
      assert.equal(values.tandem_room_watchers, 1);
      inRoom.destroy();
      inDefault.destroy();
      // stop() again in finally returns the same exit: the process is signalled once.
      assert.equal((await server.stop()).code, 0, 'a drain with rooms made exits 0');
    } finally {
      await server.stop();
    }
  });
}

test('an upgrade to a room that does not exist is refused with 404 room_unknown', async () => {
  const server = await startServer();
  try {
    for (const path of ['/ws/nope', '/ws/', '/ws/a%2Fb', `/ws/${'a'.repeat(65)}`, '/ws/default/x']) {
      const c = await rawWebSocket(server.port, { path });
      assert.equal(c.status, 404, path);
      c.destroy();
    }
    const byName = await rawWebSocket(server.port, { path: '/ws/default' });   // the default room by its name
    assert.equal(byName.status, 101);
    byName.destroy();
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_ws_handshakes_refused_total{reason="room_unknown"}'], 5);
  } finally {
    await server.stop();
  }
});

test('every bad request to /rooms gets a 4xx with a JSON error naming what was wrong', async () => {
  const server = await startServer();
  try {
    const cases = [
      ['POST', '{"game":', 400, 'bad_json'],
      ['POST', '[1]', 400, 'bad_json'],
      ['POST', { seed: 1 }, 400, 'unknown_field'],
      ['POST', { max_players: 0 }, 400, 'bad_value'],
      ['POST', { max_players: 65 }, 400, 'bad_value'],
      ['POST', { max_players: 9 }, 400, 'bad_value'],          // the stand-in game's own bound
      ['POST', { game: 'chess' }, 400, 'unknown_game'],
      ['POST', { ticket: 'AAAA' }, 400, 'bad_value'],          // tickets are off
      ['PUT', {}, 405, 'method_not_allowed'],
      ['DELETE', undefined, 405, 'method_not_allowed'],
    ];
    for (const [method, body, status, error] of cases) {
      const r = await request(server.port, method, '/rooms', { body });
      assert.equal(r.status, status, `${method} ${JSON.stringify(body)}: ${r.text}`);
      assert.ok(r.json, `${method} ${JSON.stringify(body)} answered no JSON: ${r.text}`);
      assert.equal(r.json.error, error, r.text);
      assert.equal(typeof r.json.message, 'string');
    }
    // A body over the transport's 4 KiB is refused before it is read.
    const big = await request(server.port, 'POST', '/rooms', { body: `{"game":"${'a'.repeat(5000)}"}` });
    assert.equal(big.status, 400);
    const listed = await request(server.port, 'GET', '/rooms');
    assert.equal(listed.json.rooms.length, 1, 'no refused request made a room');
  } finally {
    await server.stop();
  }
});

test('created rooms are bounded per address and per process, and a closed room frees its share', async () => {
  const server = await startServer({ fixture: ['--max-rooms', '3', '--rooms-per-address', '2'], serve: ['--room-idle-close', '1'] });
  try {
    const make = (from) => request(server.port, 'POST', '/rooms', { from, body: {} });
    assert.equal((await make('127.0.0.2')).status, 201);
    assert.equal((await make('127.0.0.2')).status, 201);
    const third = await make('127.0.0.2');
    assert.equal(third.status, 429);
    assert.equal(third.json.error, 'rooms_per_address');
    assert.equal((await make('127.0.0.3')).status, 201);
    const full = await make('127.0.0.4');
    assert.equal(full.status, 503);
    assert.equal(full.json.error, 'too_many_rooms');
    // Nobody joined them: after the idle time they close, and the shares are free again.
    await sleep(2000);
    assert.equal((await make('127.0.0.4')).status, 201);
    const { values } = await metrics(server.port);
    assert.equal(values['tandem_room_requests_refused_total{error="rooms_per_address"}'], 1);
    assert.equal(values['tandem_room_requests_refused_total{error="too_many_rooms"}'], 1);
  } finally {
    await server.stop();
  }
});

test('a created room with no connection for --room-idle-close closes; one with a connection and the default room stay', async () => {
  const server = await startServer({ serve: ['--room-idle-close', '1'] });
  try {
    const kept = (await request(server.port, 'POST', '/rooms', { body: {} })).json.id;
    const left = (await request(server.port, 'POST', '/rooms', { body: {} })).json.id;
    const client = await rawWebSocket(server.port, { path: `/ws/${kept}` });
    assert.equal(client.status, 101);
    await sleep(2000);
    let ids = (await request(server.port, 'GET', '/rooms')).json.rooms.map((r) => r.id);
    assert.deepEqual(ids.sort(), ['default', kept].sort());
    assert.equal((await rawWebSocket(server.port, { path: `/ws/${left}` })).status, 404);
    // Its last connection gone, the kept room closes too; the default room (nobody in it) stays.
    client.destroy();
    await sleep(2000);
    ids = (await request(server.port, 'GET', '/rooms')).json.rooms.map((r) => r.id);
    assert.deepEqual(ids, ['default']);
    const { values } = await metrics(server.port);
    assert.equal(values.tandem_rooms_closed_total, 2);
    assert.equal(values.tandem_rooms, 1);
    // The closed rooms' series are gone with them.
    assert.equal(values[`tandem_rooms_ticks_total{room="${kept}"}`], undefined);
    assert.equal(values[`tandem_rooms_ticks_total{room="${left}"}`], undefined);
    assert.ok(values['tandem_rooms_ticks_total{room="default"}'] > 0);
  } finally {
    await server.stop();
  }
});

// A ticket as a lobby mints it (protocol.hpp's layout), signed with the key file's bytes.
function mint(key, room, expires = Math.floor(Date.now() / 1000) + 300) {
  const head = Buffer.alloc(1 + 8 + 16 + 1 + 4);
  head[0] = 1;
  head.writeBigUInt64LE(BigInt(expires), 1);
  randomBytes(16).copy(head, 9);
  const body = Buffer.concat([head, Buffer.from([room.length]), Buffer.from(room), Buffer.from([0])]);
  return Buffer.concat([body, createHmac('sha256', key).update(body).digest()]).toString('base64url');
}

test('with --ticket-key a room is made only for a ticket the key signed, and it is the room the ticket names', async () => {
  const site = makeSite();
  const keyFile = join(site.base, 'ticket.key');
  const key = randomBytes(32).toString('hex');
  writeFileSync(keyFile, key + '\n');
  const server = await startServer({ site, serve: ['--ticket-key', keyFile, '--room', 'main'] });
  try {
    const post = (body) => request(server.port, 'POST', '/rooms', { body });
    const missing = await post({});
    assert.equal(missing.status, 401);
    assert.equal(missing.json.error, 'ticket_missing');
    const forged = await post({ ticket: mint(Buffer.from('x'.repeat(64)), 'lobby-7') });
    assert.equal(forged.status, 403);
    assert.equal(forged.json.error, 'ticket_forged');
    const expired = await post({ ticket: mint(Buffer.from(key), 'lobby-7', 1) });
    assert.equal(expired.json.error, 'ticket_expired');
    const made = await post({ ticket: mint(Buffer.from(key), 'lobby-7') });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.id, 'lobby-7');
    const again = await post({ ticket: mint(Buffer.from(key), 'lobby-7') });
    assert.equal(again.status, 409);
    assert.equal(again.json.error, 'room_exists');
    const joined = await rawWebSocket(server.port, { path: '/ws/lobby-7' });
    assert.equal(joined.status, 101);
    joined.destroy();
  } finally {
    await server.stop();
  }
});

// The largest gap between two arrivals on `socket` from now until stop() (ms).
function gapWatch(socket) {
  let last = performance.now();
  let largest = 0;
  const onData = () => { const t = performance.now(); largest = Math.max(largest, t - last); last = t; };
  socket.on('data', onData);
  return { stop() { socket.off('data', onData); return Math.max(largest, performance.now() - last); } };
}

test("one room's slow step delays neither another room's ticks nor the server's answers", async () => {
  const server = await startServer({ serve: ['--tick-threads', '2'] });
  try {
    const made = (await request(server.port, 'POST', '/rooms', { body: {} })).json;
    const slow = await rawWebSocket(server.port, { path: made.ws });
    const steady = await rawWebSocket(server.port);
    await slow.messages(3);
    await steady.messages(3);
    const steadyGaps = gapWatch(steady.socket);
    const slowGaps = gapWatch(slow.socket);
    slow.send(2, Buffer.from([0xc3, 150]));   // the made room's next step takes 1.5 s
    await sleep(400);
    const asked = performance.now();
    const listed = await request(server.port, 'GET', '/rooms');   // answered while that step runs
    const answeredMs = performance.now() - asked;
    // A peer sending to the room meanwhile: the server takes at most 16 of its messages (the
    // rest wait in TCP), and the room handles every one once its step is over.
    const readBefore = (await metrics(server.port)).values.tandem_ws_frames_received_total;
    for (let i = 0; i < 200; ++i) slow.send(2, Buffer.from([i & 0x7f]));
    await sleep(300);
    const takenDuringStep = (await metrics(server.port)).values.tandem_ws_frames_received_total - readBefore;
    await sleep(1500);
    const steadyMax = steadyGaps.stop();
    const slowMax = slowGaps.stop();
    console.log(`# default room's largest frame gap ${steadyMax.toFixed(0)} ms while the made room's was ${slowMax.toFixed(0)} ms; ` +
      `GET /rooms answered in ${answeredMs.toFixed(0)} ms and ${takenDuringStep} messages read during the slow step`);
    assert.ok(slowMax >= 1000, `the made room's step was not slow (largest gap ${slowMax.toFixed(0)} ms): the test provoked nothing`);
    // Half a second: a stall the slow room caused, not a loaded machine's scheduling (support.mjs).
    assert.ok(steadyMax < 500, `the default room's frames stopped for ${steadyMax.toFixed(0)} ms while another room was slow`);
    assert.equal(listed.status, 200);
    assert.ok(answeredMs < 500, `GET /rooms took ${answeredMs.toFixed(0)} ms while a room was slow`);
    assert.ok(takenDuringStep <= 16, `the server read ${takenDuringStep} messages for a room busy in its step`);
    const echoes = () => slow.frames().filter((f) => f.opcode === 2 && f.payload.length === 1).length;
    for (let waited = 0; waited < 3000 && echoes() < 200; waited += 50) await sleep(50);
    assert.equal(echoes(), 200, 'every message reached the room once its step was over');
    // Both rooms go on: the slow one caught up (or dropped steps) and streams again.
    const before = slow.frames().length;
    await sleep(300);
    assert.ok(slow.frames().length > before, 'the slow room stopped streaming');
    slow.destroy();
    steady.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});
