// The browser's own logic against the real server: a client made of the ES module's
// ClientSession (src/net's session compiled to wasm, the arena's package build/wasm/packages/arena) over npm `ws` joins a
// real `tandem serve`, plays, verifies 600 consecutive ticks against the server's digests, and
// its figures agree with the server's /metrics. The replays both ends wrote check clean in
// the other build: the session's export in the native `tandem replay`, the server's
// --record file in the wasm Replay. Registered by tests/CMakeLists.txt's glob over
// tests/server/*.test.mjs with the label wasm, which build-scripts/test.d/20-wasm-js runs once
// the package is built; skipped without it, except under CI=true, where that fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { makeSite, startServer, metrics, waitForMetrics } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = resolve(process.env.TANDEM_PACKAGE_DIR ?? join(here, '../../build/wasm/packages/arena'));
const entry = join(packageDir, 'tandem.node.mjs');
const skip = existsSync(entry) || process.env.CI === 'true' ? false : `no ES module at ${packageDir} (build-scripts/build wasm)`;

const TICKS = 600;

test('a ClientSession over ws verifies 600 consecutive ticks of a real server and agrees with its /metrics', { skip, timeout: 120_000 }, async () => {
  assert.ok(existsSync(entry), `no ES module at ${packageDir} (build-scripts/build wasm)`);
  const tandem = await (await import(pathToFileURL(entry).href)).default();
  const site = makeSite();
  const record = join(site.base, 'match.replay');
  const server = await startServer({ realRoom: true, site, serve: ['--pellets', '64', '--record', record] });
  let session;
  let socket;
  let timer;
  try {
    session = new tandem.ClientSession({ watch: false, nowMs: performance.now() });
    socket = new WebSocket(server.ws);
    socket.binaryType = 'nodebuffer';
    const flush = () => { for (const bytes of session.takeOutgoing()) socket.send(bytes); };
    socket.on('open', () => { session.onConnected(performance.now()); flush(); });
    socket.on('message', (data) => { session.receive(data, performance.now()); flush(); });
    const closed = new Promise((r) => socket.on('close', (code) => { session.onDisconnected(code, performance.now()); r(code); }));

    // The page's frame loop: advance within a budget, steer, send what the session queued.
    let frame = 0;
    await new Promise((done, fail) => {
      const deadline = Date.now() + 60_000;
      timer = setInterval(() => {
        const now = performance.now();
        session.advance(now, 8);
        ++frame;
        session.sendCommand({ target: { x: ((frame * 5) % 400 - 200) << 16, y: ((frame * 3) % 300 - 150) << 16 } }, now);
        flush();
        const f = session.figures().session;
        if (f.verifiedTicks >= TICKS) done();
        else if (Date.now() > deadline) fail(new Error(`only ${f.verifiedTicks} ticks verified in 60 s: ${JSON.stringify(f)}`));
      }, 16);
    });
    clearInterval(timer);

    const page = session.figures();
    const f = page.session;
    assert.equal(f.mismatches, 0, 'every digest agreed');
    assert.equal(f.resyncs, 0);
    assert.equal(f.baselines, 1, 'one baseline, at the join');
    assert.notEqual(f.player, null, 'seated as a player');
    assert.equal(page.error, null);
    // Consecutive: everything received re-runs from the one baseline, frame after frame.
    const check = tandem.Replay.check(session.exportReplay());
    assert.equal(check.divergence, null);
    assert.equal(check.framesChecked, check.lastTick - check.firstTick);
    assert.ok(check.framesChecked >= TICKS, `${check.framesChecked} frames`);
    assert.ok(f.inputsApplied > 0 && f.inputsApplied <= f.inputsSent, `${f.inputsApplied} of ${f.inputsSent} steers applied`);

    // The server's figures while the client is connected.
    const live = (await metrics(server.port)).values;
    assert.equal(live.tandem_room_players, 1);
    assert.equal(live.tandem_room_watchers, 0);
    assert.equal(live.tandem_ws_connections, 1);
    assert.equal(live.tandem_room_baselines_sent_total, f.baselines);
    assert.equal(live.tandem_room_desync_reports_total, 0);
    assert.ok(live.tandem_room_tick >= f.verifiedTick);

    // After a clean close: every byte each side sent, the other side counted.
    socket.close(1000, 'done');
    await closed;
    // The transport counts the socket closed at once; the room's player count follows when
    // the room's own thread has taken the disconnect, so wait for both.
    const after = await waitForMetrics(server.port, (v) => v.tandem_ws_connections === 0 && v.tandem_room_players === 0, 2500);
    assert.equal(after.tandem_ws_connections, 0);
    const final = session.figures().session;
    assert.equal(after.tandem_room_players, 0);
    assert.equal(after.tandem_ws_bytes_received_total, final.bytesOut, 'client bytes out = server bytes received');
    assert.equal(after.tandem_ws_bytes_sent_total, final.bytesIn, 'server bytes sent = client bytes in');

    // The session's export checks clean in the native build.
    const exported = join(server.site.base, 'session.replay');
    writeFileSync(exported, session.exportReplay());
    const native = spawnSync(process.env.TANDEM_BINARY, ['replay', exported], { encoding: 'utf8' });
    assert.equal(native.status, 0, native.stdout + native.stderr);
    assert.match(native.stdout, /every digest agrees|0 mismatch|agree/);
  } finally {
    clearInterval(timer);
    socket?.terminate();
    assert.equal((await server.stop()).code, 0);
    session?.delete();
  }
  // The server's own recording (native) checks clean in wasm.
  const recorded = tandem.Replay.check(readFileSync(record));
  assert.equal(recorded.divergence, null);
  assert.ok(recorded.framesChecked >= TICKS, `${recorded.framesChecked} frames in the server's recording`);
});
