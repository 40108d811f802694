// `tandem serve --store` from outside: a player plays over a real socket, the server is killed
// with SIGKILL (or stopped with SIGTERM), and a server started again with the same store and
// room goes on from the tick the store holds, which is at least the newest tick the player was
// sent; the player's resume token takes its own seat back; the restored world at that tick is
// the killed server's (`tandem replay --dump-at` of both servers' --record files, compared
// here). Run with the directory store and with Redis (a redis-server this test starts on a
// unix socket; without one the Redis cases fail under CI=true and are skipped otherwise). A
// second server asked for a room another one serves waits for its lease, then exits 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { makeSite, startServer, rawWebSocket } from '../support.mjs';
import { dumpAt, hello, parseWelcome, play, stores, tandem } from './store_support.mjs';

const serve = ['--pellets', '64', '--max-players', '2', '--resume-grace', '30'];

for (const kind of ['directory', 'redis']) {
  test(`${kind} store: after SIGKILL a server started again goes on from the store's tick, at least the newest the player saw; its token takes its seat back; the world there is the killed server's`, async (t) => {
    const all = await stores();
    const st = all.find((s) => s.name === kind);
    try {
      if (!st) { t.skip('no redis-server'); return; }
      const site = makeSite();
      const first = join(site.base, 'first.replay');
      const second = join(site.base, 'second.replay');
      const a = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r1', '--record', first] });
      const played = await play(a, 1500);
      assert.ok(played.welcome.token, 'a player is given a token');
      assert.ok(played.newest > 30, `the player was sent frames (to tick ${played.newest})`);
      a.child.kill('SIGKILL');
      assert.equal((await a.exited).signal, 'SIGKILL');
      played.ws.destroy();

      const started = Date.now();
      const b = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r1', '--record', second] });
      try {
        const restoredLine = /restored room 'r1' at tick (\d+) \(snapshot (\d+), (\d+) frames replayed, (\d+) seats kept/.exec(b.output().stderr);
        assert.ok(restoredLine, `the second server says what it restored: ${b.output().stderr}`);
        const tick = Number(restoredLine[1]);
        assert.ok(tick >= played.newest, `restored at tick ${tick}, the player had been sent ${played.newest}: no tick lost`);
        assert.equal(Number(restoredLine[4]), 1, 'the player\'s seat is kept');
        console.log(`# ${kind}: killed after tick ${played.newest} (player), restored at ${tick}, listening again after ${Date.now() - started} ms`);

        const back = await play(b, 500, played.welcome.token);
        assert.equal(back.welcome.player, played.welcome.player, 'the same player id');
        assert.ok(back.welcome.tick >= tick, 'the room goes on from there');
        assert.ok(back.newest > back.welcome.tick, 'and ticks on');
        const stranger = await rawWebSocket(b.port);
        stranger.send(2, hello());
        const other = parseWelcome((await stranger.messages(1))[0].payload);
        assert.notEqual(other.player, played.welcome.player, 'nobody else gets the seat');
        stranger.destroy();
        back.ws.destroy();
        // The killed server's record and the restored server's record hold the same world at
        // the restored tick, field by field.
        assert.equal(dumpAt(second, tick), dumpAt(first, tick));
      } finally {
        await b.stop();
      }
    } finally {
      for (const s of all) await s.stop();
    }
  });
}

test('directory store: SIGTERM keeps the seats and gives the lease back, so a server started next takes the room at once and the token still works', async () => {
  const [st] = await stores().then(async (all) => { for (const s of all.slice(1)) await s.stop(); return all; });
  try {
    const site = makeSite();
    const a = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r2'] });
    const played = await play(a, 800);
    const { code } = await a.stop();
    assert.equal(code, 0);
    assert.equal((await played.ws.closeFrame())?.code, 1001, 'the client is told the server goes away');
    played.ws.destroy();
    const started = Date.now();
    const b = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r2'] });
    try {
      assert.ok(Date.now() - started < 900, `no wait for a lease the stopped server gave back (${Date.now() - started} ms)`);
      assert.match(b.output().stderr, /restored room 'r2' at tick \d+ .* 1 seats kept/);
      const back = await play(b, 300, played.welcome.token);
      assert.equal(back.welcome.player, played.welcome.player);
      back.ws.destroy();
    } finally {
      await b.stop();
    }
  } finally {
    await st.stop();
  }
});

test('directory store: a second server for a room another one serves waits for the lease, then exits 1 naming the owner', async () => {
  const [st] = await stores().then(async (all) => { for (const s of all.slice(1)) await s.stop(); return all; });
  try {
    const site = makeSite();
    const a = await startServer({ realRoom: true, site, serve: [...serve, '--store', st.address, '--room', 'r3'] });
    try {
      const r = spawnSync(process.env.TANDEM_BINARY, ['serve', '--port', '0', '--web', site.web, '--pkg', site.pkg, ...serve,
        '--store', st.address, '--room', 'r3'], { encoding: 'utf8', timeout: 20000 });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /the room 'r3' in --store .* is served by -\|/);
    } finally {
      await a.stop();
    }
  } finally {
    await st.stop();
  }
});

test('--store and --room refuse what they cannot use, exit 2', () => {
  for (const [args, message] of [[['--store', 'ftp://x'], /--store expects dir:PATH/], [['--store', 'dir:/tmp/x', '--room', 'a b'], /--room expects a name/]]) {
    const r = tandem('serve', ...args);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
  }
});
