// Failover from outside, with the directory store and with Redis: two `tandem serve` processes
// share a store, each told its own address (--advertise). A serves room r1 (its default room,
// recorded with --record) to a player over a raw socket; a join for r1 at B is answered
// room_moved naming A's WebSocket URL, then closed 1012. A is killed with SIGKILL. B adopts r1
// from its checkpoint within the lease's TTL and a scan, and now answers the join itself: the
// player's resume token takes its own seat back there, and the room ticks on. No tick A sent
// is lost (B restored at least the newest tick the player saw), and B's replay of r1
// (--record-dir, starting at the tick it restored) holds exactly the world A's --record holds
// at that tick, field by field (`tandem replay --dump-at` of both). And a rolling restart: A
// stopped with SIGTERM hands its room over, its client is sent to B (room_moved) and A exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, makeSite, rawWebSocket, sleep, startServer } from '../support.mjs';
import { code, parseError } from '../wire.mjs';
import { dumpAt, hello, parseWelcome, play, stores, type } from './store_support.mjs';

const serve = ['--pellets', '64', '--max-players', '2', '--resume-grace', '30'];

// Runs body with the store `kind` (skipped without a redis-server, failed under CI=true) and a
// site; body's `member(room, extra)` starts a server of the pair on a port of its own, told to
// it, with `room` its default room. Every server and store is stopped after.
async function withStore(kind, t, body) {
  const all = await stores();
  const store = all.find((s) => s.name === kind);
  const running = [];
  try {
    if (!store) { t.skip('no redis-server'); return; }
    const site = makeSite();
    await body({ site, member: async (room, extra = []) => {
      const port = await freePort();
      const server = await startServer({ realRoom: true, site, port,
        serve: [...serve, '--store', store.address, '--room', room, '--advertise', `http://127.0.0.1:${port}`, ...extra] });
      running.push(server);
      return server;
    } });
  } finally {
    for (const server of running) await server.stop();
    for (const s of all) await s.stop();
  }
}

// GET /rooms at `port`: { id: row }.
async function listed(port) {
  const body = await (await fetch(`http://127.0.0.1:${port}/rooms`)).json();
  return Object.fromEntries(body.rooms.map((r) => [r.id, r]));
}

// What a join for /ws/ROOM at `port` is answered: the first message's error (code and text),
// the close frame, or the upgrade's HTTP status when it was refused before.
async function join_(port, room) {
  const ws = await rawWebSocket(port, { path: `/ws/${room}` });
  if (ws.status !== 101) {
    ws.destroy();
    return { status: ws.status };
  }
  ws.send(2, hello());
  const [first] = (await ws.messages(1)) ?? [];
  const close = await ws.closeFrame();
  ws.destroy();
  return { status: 101, first: first?.payload, close };
}

for (const kind of ['directory', 'redis']) {
  test(`${kind} store: a process that does not serve a room answers room_moved naming its owner; after the owner's SIGKILL a peer adopts the room from the store, the player's token takes its seat back there, and the world at the restored tick is the dead owner's`, async (t) => {
    await withStore(kind, t, async ({ site, member }) => {
      const records = join(site.base, 'b-rooms');
      mkdirSync(records);
      const first = join(site.base, 'a.replay');
      const a = await member('r1', ['--record', first]);
      const b = await member('b0', ['--record-dir', records]);

      // B learns where r1 is within a scan (half a second); a join for it there is sent on.
      let moved = null;
      for (let i = 0; i < 40 && !moved; ++i) {
        const answer = await join_(b.port, 'r1');
        if (answer.first?.[0] === type.error) moved = answer;
        else await sleep(100);
      }
      assert.ok(moved, 'B answered a join for r1 with an error message within 4 s');
      const error = parseError(moved.first);
      assert.equal(error.code, code.room_moved, `room_moved (got ${error.code}: ${error.text})`);
      assert.equal(error.text, `ws://127.0.0.1:${a.port}/ws/r1`, 'naming A\'s WebSocket URL for the room');
      assert.equal(moved.close?.code, 1012, 'then closed with 1012 (service restart: reconnect)');

      const played = await play(a, 1500);
      assert.ok(played.welcome.token, 'a player is given a token');
      assert.ok(played.newest > 30, `the player was sent frames (to tick ${played.newest})`);
      a.child.kill('SIGKILL');
      const killed = Date.now();
      assert.equal((await a.exited).signal, 'SIGKILL');
      played.ws.destroy();

      let adopted = null;
      while (!adopted && Date.now() - killed < 10_000) {
        adopted = (await listed(b.port)).r1 ?? null;
        if (!adopted) await sleep(25);
      }
      const tookMs = Date.now() - killed;
      assert.ok(adopted, `B lists r1 within 10 s of A's death: ${b.output().stderr}`);
      const restoredLine = /adopted: restored room 'r1' at tick (\d+) \(snapshot (\d+), (\d+) frames replayed, (\d+) seats kept/.exec(b.output().stderr);
      assert.ok(restoredLine, `B says what it adopted: ${b.output().stderr}`);
      const tick = Number(restoredLine[1]);
      assert.ok(tick >= played.newest, `restored at tick ${tick}, the player had been sent ${played.newest}: no tick lost`);
      assert.equal(Number(restoredLine[4]), 1, 'the player\'s seat is kept');
      console.log(`# ${kind}: A killed after tick ${played.newest} (player); B serves r1 from tick ${tick}, listed ${tookMs} ms after the kill`);
      // The lease lapses 1 s after A's last renewal (at most 250 ms before the kill), and B
      // scans every 500 ms: adopted within about 1.5 s, plus the restore and this poll.
      assert.ok(tookMs < 3000, `adopted ${tookMs} ms after the kill (the TTL and a scan allow about 1.5 s)`);

      const back = await play({ port: b.port, path: '/ws/r1' }, 600, played.welcome.token);
      assert.equal(back.welcome.player, played.welcome.player, 'the same player id, at B');
      assert.ok(back.welcome.tick >= tick, 'the room goes on from there');
      assert.ok(back.newest > back.welcome.tick, 'and ticks on');
      const stranger = await rawWebSocket(b.port, { path: '/ws/r1' });
      stranger.send(2, hello());
      const other = parseWelcome((await stranger.messages(1))[0].payload);
      assert.notEqual(other.player, played.welcome.player, 'nobody else gets the seat');
      stranger.destroy();
      back.ws.destroy();
      assert.equal(dumpAt(join(records, 'r1.replay'), tick), dumpAt(first, tick),
        'B\'s r1 at the restored tick is A\'s, field by field');
    });
  });
}

for (const kind of ['directory', 'redis']) {
  test(`${kind} store: SIGTERM beside a peer hands the room over: its clients are sent to the peer (room_moved, then 1012), the process exits 0, and the player's token takes its seat back at the peer, which goes on from where the room was`, async (t) => {
    await withStore(kind, t, async ({ member }) => {
      const a = await member('r2');
      const b = await member('b1');
      const played = await play(a, 1000);
      assert.ok(played.newest > 20, `the player was sent frames (to tick ${played.newest})`);
      const errors = () => played.ws.frames().filter((f) => f.opcode === 2 && f.payload[0] === type.error);
      const stopped = Date.now();
      a.child.kill('SIGTERM');
      while (errors().length === 0 && Date.now() - stopped < 5000) await sleep(5);
      const sentOnMs = Date.now() - stopped;
      const close = await played.ws.closeFrame();
      // The raw client answers no close frame: the server waits its close timeout (1 s) for it.
      const { code: exitCode } = await a.exited;
      const exitMs = Date.now() - stopped;
      assert.equal(exitCode, 0, 'the process exits 0');
      assert.equal(errors().length, 1, 'the client was sent one error before the close');
      const error = parseError(errors()[0].payload);
      assert.equal(error.code, code.room_moved, `room_moved (got ${error.name}: ${error.text})`);
      assert.equal(error.text, `ws://127.0.0.1:${b.port}/ws/r2`, 'naming the peer that took the room');
      assert.equal(close?.code, 1012);
      console.log(`# ${kind}: SIGTERM to the client sent on: ${sentOnMs} ms; to exit 0: ${exitMs} ms`);
      // A peer's scan every 500 ms, the restore, this process's scan every 50 ms: about 0.6 s.
      assert.ok(sentOnMs < 1500, `the client was sent on ${sentOnMs} ms after SIGTERM, within the hand-over's wait`);
      played.ws.destroy();

      const back = await play({ port: b.port, path: '/ws/r2' }, 500, played.welcome.token);
      assert.equal(back.welcome.player, played.welcome.player, 'the same player id, at the peer');
      assert.ok(back.welcome.tick >= played.newest, `the room goes on from tick ${back.welcome.tick} (the player had seen ${played.newest})`);
      assert.match(b.output().stderr, /adopted: restored room 'r2' at tick \d+ .* 1 seats kept/);
      back.ws.destroy();
    });
  });
}
