// The page's DOM-free parts, in Node: the HUD's resume line (against the wording the demo
// promises), the reconnect schedule, the transport's early socket (events kept until the
// session attaches, against a stand-in WebSocket), URL options, the lifecycle feeder folding overlapping
// browser events into one absence, the digest strip's bookkeeping, and the page's two bundles
// (its code, its session worker) against their modules' static graphs. Fast: no browser.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { repoRoot } from './lib/harness.mjs';
import { absenceLine, groupDigits, resumeLine, verificationSummary } from '../../web/hud.mjs';
import { DynamicResolution, resolutionNotice } from '../../web/dynamic-resolution.mjs';
import { feedLifecycle } from '../../web/lifecycle.mjs';
import { parseOptions } from '../../web/options.mjs';
import { EARLY_MAX_EVENTS, Transport, reconnectDelayMs } from '../../web/transport.mjs';
import { SessionAdapter } from '../../web/adapters/session.mjs';
import { knobsFromUrl } from '../../web/adapters/index.mjs';
import { WorkerSessionAdapter, alphaAt } from '../../web/adapters/worker-session.mjs';

describe('the HUD resume line', () => {
  test('says the catch-up path in the words of the demo', () => {
    assert.equal(resumeLine({ awayMs: 4900, path: 'catch_up', ticks: 294, frames: 6, verifiedAfterMs: 80 }),
      'away 4.9 s: caught up 294 ticks in 6 frames, verified again in 80 ms');
  });
  test('says the baseline path with its size and the time to verified', () => {
    assert.equal(resumeLine({ awayMs: 73_200, path: 'baseline', baselineBytes: 34_000, verifiedAfterMs: 112 }),
      'away 73.2 s: baseline 34 KB, verified again in 112 ms');
  });
  test('says when it is still waiting, and nothing when there was no absence', () => {
    assert.equal(resumeLine({ awayMs: 61_000, path: 'baseline', baselineBytes: 0, verifiedAfterMs: null }), 'away 61.0 s: waiting for a baseline…');
    assert.equal(resumeLine(null), 'no absence yet');
  });
});

describe('the HUD absence line of a session in its worker', () => {
  const hidden = { kind: 'hidden', ongoing: false, awayMs: 8000, verifiedWhileAway: 480, resumesDuring: 0, reconnected: false, resyncedSince: false, verifiedAfterMs: null };
  test('a hidden tab whose worker verified all along says it stayed live, and how many ticks it verified', () => {
    assert.equal(absenceLine({ absence: hidden, lastResume: null }), 'hidden 8.0 s: stayed live in the background, 480 ticks verified meanwhile');
  });
  test('a hidden tab whose session still had to resume says it fell behind, then how it came back', () => {
    assert.equal(absenceLine({ absence: { ...hidden, resumesDuring: 1 }, lastResume: { awayMs: 1200, path: 'catch_up', ticks: 72, frames: 3, verifiedAfterMs: 40 } }),
      'hidden 8.0 s: fell behind in the background once, caught up 72 ticks, verified in 40 ms');
    assert.equal(absenceLine({ absence: { ...hidden, resumesDuring: 2 }, lastResume: { awayMs: 900, path: 'baseline', baselineBytes: 25_219, verifiedAfterMs: 63 } }),
      'hidden 8.0 s: fell behind in the background 2 times, resynced from a 25 KB snapshot, verified in 63 ms');
  });
  test('a frozen tab says it reconnected and resynced from a snapshot of the size taken, and when it verified', () => {
    const frozen = { ...hidden, kind: 'frozen', awayMs: 10_000, reconnected: true, resyncedSince: true, verifiedAfterMs: 180.4 };
    assert.equal(absenceLine({ absence: frozen, lastResume: { awayMs: 10_000, path: 'baseline', baselineBytes: 25_219, verifiedAfterMs: 170 } }),
      'frozen 10.0 s: reconnected, resynced from a 25 KB snapshot, verified in 180 ms');
    // The socket's close reached the session before the resume (nothing to weigh): still a resync, of a size the resume does not know.
    assert.equal(absenceLine({ absence: frozen, lastResume: { awayMs: 10_000, path: 'idle', frames: 600, verifiedAfterMs: null } }),
      'frozen 10.0 s: reconnected, resynced from a snapshot, verified in 180 ms');
    assert.equal(absenceLine({ absence: { ...frozen, verifiedAfterMs: null }, lastResume: null }), 'frozen 10.0 s: reconnected, resynced from a snapshot, verifying…');
    assert.equal(absenceLine({ absence: frozen, reconnectedAs: 3, lastResume: null }), 'frozen 10.0 s: reconnected as player 3, resynced from a snapshot, verified in 180 ms');
  });
  test('no absence record (an adapter on the main thread): the session\'s resume line', () => {
    assert.equal(absenceLine({ absence: null, lastResume: null }), 'no absence yet');
  });
});

describe('the HUD\'s verification line', () => {
  test('names the last mismatch\'s section and, once the session knows it, its first field with both values', () => {
    const m = { tick: 31, section: 'scores', fields: null, fieldsDiffering: null, healed: false };
    assert.equal(verificationSummary({ verifiedTicks: 30, mismatches: [m] }), '30 ticks verified · 1 mismatch, last at tick 31 (scores)');
    const known = { ...m, healed: true, fieldsDiffering: 3, fields: [{ path: 'captures', section: 'scores', room: '1400', thisBuild: '1401' }] };
    assert.equal(verificationSummary({ verifiedTicks: 1234, mismatches: [known] }),
      '1,234 ticks verified · 1 mismatch, last at tick 31 (scores): captures server 1400, this tab 1401 (+2 more), healed');
    assert.equal(verificationSummary(null), 'nothing to verify: this world runs only in this tab');
  });
});

describe('the HUD\'s digit grouping', () => {
  test('groups like toLocaleString(\'en\') without loading the locale\'s number formats', () => {
    for (const n of [0, 7, 42, 999, 1000, 12_345, 999_999, 1_000_000, 1_234_567_890, 2 ** 53 - 1]) {
      assert.equal(groupDigits(n), n.toLocaleString('en'), String(n));
    }
  });
});

describe('the transport reconnect schedule', () => {
  test('retries at once, then doubles from 250 ms and stays at 8 s', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7, 20].map(reconnectDelayMs), [0, 250, 500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });
});

// A WebSocket stand-in the test drives by hand: open(), message(bytes), drop(code).
class FakeSocket {
  static all = [];
  static OPEN = 1;
  readyState = 0;
  sent = [];
  closedWith = null;
  constructor(url) { this.url = url; FakeSocket.all.push(this); }
  send(bytes) { this.sent.push(bytes); }
  close(code) {
    // As a browser does: a page may close with 1000 or 3000-4999 only (1001 is the peer's).
    if (code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)) throw new DOMException(`close code ${code}`, 'InvalidAccessError');
    this.closedWith = code;
    this.readyState = 3;
  }
  open() { this.readyState = 1; this.onopen?.(); }
  message(bytes) { this.onmessage?.({ data: new Uint8Array(bytes).buffer }); }
  drop(code) { this.readyState = 3; this.onclose?.({ code, reason: '' }); }
}

// Every handler call as [name, ...arguments without times]; onOpen answers with a send, as the
// session's hello does, and records whether the transport let it out.
function recorder(transport) {
  const calls = [];
  return { calls, handlers: {
    onOpen: () => calls.push(['open', transport.send(new Uint8Array([9]))]),
    onMessage: (bytes) => calls.push(['message', [...bytes]]),
    onClose: (code) => calls.push(['close', code]),
    onState: (s) => calls.push(['state', s.state]),
  } };
}

// Runs body with the page's WebSocket replaced by FakeSocket (and no sockets made yet).
const withFakeSocket = async (body) => {
  const saved = globalThis.WebSocket;
  globalThis.WebSocket = FakeSocket;
  FakeSocket.all = [];
  try { await body(); } finally { globalThis.WebSocket = saved; }
};

describe('the transport\'s early socket', () => {
  const nextTask = () => new Promise((resolve) => setTimeout(resolve, 5));

  test('what happened before attach is handed over in order, then events go straight through', () => withFakeSocket(() => {
    const transport = new Transport('ws://x/ws');
    transport.start();
    const [socket] = FakeSocket.all;
    socket.open();
    socket.message([1, 2]);
    socket.message([3]);
    const { calls, handlers } = recorder(transport);
    assert.equal(transport.attached, false);
    transport.attach(handlers);
    assert.equal(transport.attached, true);
    socket.message([4]);
    assert.deepEqual(calls, [['state', 'connecting'], ['state', 'open'], ['open', true], ['message', [1, 2]], ['message', [3]], ['message', [4]]]);
    assert.deepEqual(socket.sent.map((b) => [...b]), [[9]]);
  }));

  test('a reply to an earlier socket\'s events never goes out on a newer socket', () => withFakeSocket(async () => {
    const transport = new Transport('ws://x/ws');
    transport.start();
    FakeSocket.all[0].open();
    FakeSocket.all[0].drop(1006);
    await nextTask();   // the first retry is immediate
    const second = FakeSocket.all[1];
    second.open();
    const { calls, handlers } = recorder(transport);
    transport.attach(handlers);
    assert.deepEqual(calls, [['state', 'connecting'], ['state', 'open'], ['open', false], ['close', 1006], ['state', 'waiting'],
      ['state', 'connecting'], ['state', 'open'], ['open', true]]);
    assert.equal(second.sent.length, 1);
  }));

  test('past its bound the early socket is closed and attach opens a fresh one', () => withFakeSocket(() => {
    const transport = new Transport('ws://x/ws');
    transport.start();
    const [first] = FakeSocket.all;
    first.open();
    for (let i = 0; i <= EARLY_MAX_EVENTS; i += 1) first.message([i & 255]);
    assert.notEqual(first.closedWith, null);
    const { calls, handlers } = recorder(transport);
    transport.attach(handlers);
    assert.equal(FakeSocket.all.length, 2);
    FakeSocket.all[1].open();
    assert.deepEqual(calls, [['state', 'connecting'], ['state', 'open'], ['open', true]]);
  }));
});

describe('the session adapter', () => {
  // The module's ClientSession, reduced to the calls the adapter makes.
  const tandem = { game: { name: 'toy' }, ClientSession: class {
    onConnected() {} receive() {} onDisconnected() {} onConnectFailed() {} setFleet() { return 0; } get nextUrl() { return ''; }
    shouldReconnect() { return true; } setView() {}
    takeOutgoing() { return []; } get reconnectDelayMs() { return 250; } delete() {}
  } };
  test('dispose closes a live socket with a code a page may send, and never reopens it', () => withFakeSocket(async () => {
    const adapter = new SessionAdapter(tandem, { serverUrl: 'ws://x/ws', watch: false, debug: false }, { view: {} });
    const [socket] = FakeSocket.all;
    socket.open();
    adapter.dispose();
    assert.equal(socket.closedWith, 1000);
    socket.drop(1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(FakeSocket.all.length, 1);
  }));

  test('a room that moved to another process: the next socket goes at once to the URL the session was told, and stays there', () => withFakeSocket(async () => {
    let movedTo = '';
    const moving = { ...tandem, ClientSession: class extends tandem.ClientSession {
      get nextUrl() { return movedTo; }
      get reconnectDelayMs() { return movedTo ? 0 : 250; }
    } };
    const adapter = new SessionAdapter(moving, { serverUrl: 'ws://a/ws/r1', watch: false, debug: false }, { view: {} });
    FakeSocket.all[0].open();
    movedTo = 'ws://b:9/ws/r1';   // the session read a room_moved
    FakeSocket.all[0].drop(1012);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(FakeSocket.all.map((socket) => socket.url), ['ws://a/ws/r1', 'ws://b:9/ws/r1']);
    adapter.dispose();
  }));

  test('the session is told the fleet and its own URL, a socket that never opened is reported as a failed connection, and the next socket goes where the session then says (its own URL for \'\')', () => withFakeSocket(async () => {
    const calls = [];
    let next = 'ws://b/ws/r1';
    const fleet = { ...tandem, ClientSession: class extends tandem.ClientSession {
      setFleet(own, urls) { calls.push(['setFleet', own, urls]); return urls.length; }
      onConnectFailed() { calls.push(['failed']); }
      onDisconnected() { calls.push(['disconnected']); }
      get nextUrl() { return next; }
      get reconnectDelayMs() { return 0; }
    } };
    const adapter = new SessionAdapter(fleet, { serverUrl: 'ws://a/ws/r1', watch: false, debug: false, fleet: ['ws://b/ws/r1'] }, { view: {} });
    FakeSocket.all[0].drop(1006);   // refused: never opened
    await new Promise((resolve) => setTimeout(resolve, 20));
    next = '';                      // back to the own URL
    FakeSocket.all[1].open();
    FakeSocket.all[1].drop(1006);   // opened, then lost
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(calls, [['setFleet', 'ws://a/ws/r1', ['ws://b/ws/r1']], ['failed'], ['disconnected']]);
    assert.deepEqual(FakeSocket.all.map((socket) => socket.url), ['ws://a/ws/r1', 'ws://b/ws/r1', 'ws://a/ws/r1']);
    adapter.dispose();
  }));
});

describe('the session adapter over each game\'s package and plugin, in Node', () => {
  for (const game of ['arena', 'ships']) {
    const packageDir = join(repoRoot, 'build/wasm/packages', game);
    const skip = existsSync(join(packageDir, 'tandem.node.mjs')) ? false : `no ${packageDir} (build-scripts/build wasm)`;
    test(`${game}: no columns before the welcome, then the plugin's columns of the room's own state, predicting or not`, { skip }, async () => {
      const { default: createTandem } = await import(pathToFileURL(join(packageDir, 'tandem.node.mjs')).href);
      const tandem = await createTandem();
      const plugin = await import(`../../web/games/${game}/plugin.mjs`);
      for (const lockstep of [false, true]) {
        const room = new tandem.Room({});
        const id = room.connect(0);
        // A stand-in for the page's early socket: the adapter attaches its handlers to it and
        // sends through it; the bytes go to and from the room directly.
        const sent = [];
        const early = { startedAtMs: 0, attached: false, attach(h) { this.handlers = h; this.attached = true; }, send: (b) => sent.push(b), stop() {} };
        const adapter = new SessionAdapter(tandem, { serverUrl: 'ws://stand-in', watch: false, debug: false, lockstep }, plugin, early);
        assert.equal(adapter.renderView().current, null, 'nothing to draw before the welcome');
        early.handlers.onOpen(0);
        let now = 0;
        for (let i = 0; i < 10; ++i) {
          now += 1000 / 60;
          for (const bytes of sent.splice(0)) room.receive(id, bytes, now);
          room.tick(now);
          for (const { bytes } of room.takeOutbox().sends) early.handlers.onMessage(bytes, now);
          adapter.advance(now, 16);
        }
        const view = adapter.renderView();
        const world = room.world();
        const state = world.state();
        world.delete();
        for (const [name, fields] of Object.entries(plugin.view.lists)) {
          if (lockstep) assert.equal(view.current.lists[name].count, state[name].length, `${game} ${name}: the confirmed state's`);
          for (const field of fields) {
            const columns = Object.keys(view.current.lists[name].columns).filter((c) => c === field || c.startsWith(`${field}.`));
            assert.ok(columns.length > 0, `${game}: the column(s) of ${name}.${field}`);
          }
        }
        for (const path of plugin.view.scalars) assert.equal(typeof view.current.scalars[path], 'number', `${game}: ${path}`);
        assert.equal(view.predicted, !lockstep);
        assert.equal(adapter.figures().verification.mismatches.length, 0);
        adapter.dispose();
        room.delete();
      }
    });
    test(`${game}: made before its plugin, the session joins and verifies at once, and draws the plugin's columns once it is given`, { skip }, async () => {
      const { default: createTandem } = await import(pathToFileURL(join(packageDir, 'tandem.node.mjs')).href);
      const tandem = await createTandem();
      const plugin = await import(`../../web/games/${game}/plugin.mjs`);
      const room = new tandem.Room({});
      const id = room.connect(0);
      const sent = [];
      const early = { startedAtMs: 0, attach(h) { this.handlers = h; }, send: (b) => sent.push(b), stop() {} };
      const adapter = new SessionAdapter(tandem, { serverUrl: 'ws://stand-in', watch: false, debug: false }, null, early);
      early.handlers.onOpen(0);
      assert.equal(sent.length, 1, 'the hello went out without the plugin');
      assert.throws(() => adapter.sendInput({}), /before the game's plugin/);
      let now = 0;
      const run = (ticks) => {
        for (let i = 0; i < ticks; ++i) {
          now += 1000 / 60;
          for (const bytes of sent.splice(0)) room.receive(id, bytes, now);
          room.tick(now);
          for (const { bytes } of room.takeOutbox().sends) early.handlers.onMessage(bytes, now);
          adapter.advance(now, 16);
        }
      };
      run(5);
      const verified = adapter.figures().verification.verifiedTicks;
      assert.ok(verified > 0, `ticks verified without the plugin (${verified})`);
      adapter.usePlugin(plugin);
      run(2);
      const view = adapter.renderView();
      for (const [name, fields] of Object.entries(plugin.view.lists)) {
        for (const field of fields) {
          assert.ok(Object.keys(view.current.lists[name].columns).some((c) => c === field || c.startsWith(`${field}.`)), `${game}: ${name}.${field}`);
        }
      }
      assert.ok(adapter.figures().verification.verifiedTicks > verified);
      adapter.dispose();
      room.delete();
    });
  }
});

describe('the URL options', () => {
  const at = { protocol: 'http:', host: '127.0.0.1:8080' };
  test('default to play on the page\'s own host', () => {
    const o = parseOptions('', at);
    assert.deepEqual([o.watch, o.offline, o.debug, o.scenario, o.serverUrl], [false, false, false, null, 'ws://127.0.0.1:8080/ws']);
  });
  test('read flags, a scenario, knobs and a server; refuse nonsense knobs', () => {
    const o = parseOptions('?watch&debug=1&offline=0&scenario=orbits&pellets=4096&seed=x&server=ws://h/ws', { protocol: 'https:', host: 'e' });
    assert.deepEqual([o.watch, o.debug, o.offline, o.scenario, o.seed, o.serverUrl], [true, true, false, 'orbits', 1, 'ws://h/ws']);
    // A game's own knobs are its plugin's to name, read from the query as given: a whole number >= 0.
    assert.deepEqual(knobsFromUrl(new URLSearchParams(o.search), { pellets: 'pelletCount', seed: 'seed' }), { pelletCount: 4096 });
    assert.deepEqual(knobsFromUrl(new URLSearchParams('?pellets=-3&seed=7&other=1'), { pellets: 'pelletCount', seed: 'seed' }), { seed: 7 });
    assert.equal(parseOptions('', { protocol: 'https:', host: 'e' }).serverUrl, 'wss://e/ws');
  });
  test('predict by default; ?lockstep asks for the confirmed world only', () => {
    assert.equal(parseOptions('', at).lockstep, false);
    assert.equal(parseOptions('?lockstep', at).lockstep, true);
    assert.equal(parseOptions('?lockstep=0', at).lockstep, false);
  });
  test('?predict-window takes 1-64 ticks; anything else leaves the default (null)', () => {
    assert.equal(parseOptions('', at).predictWindow, null);
    assert.equal(parseOptions('?predict-window=4', at).predictWindow, 4);
    assert.equal(parseOptions('?predict-window=64', at).predictWindow, 64);
    for (const bad of ['0', '65', '2.5', 'x', '']) assert.equal(parseOptions(`?predict-window=${bad}`, at).predictWindow, null, bad);
  });
  test('?fleet= lists the other processes\' URLs in order, empty ones left out (the session checks each is a WebSocket URL)', () => {
    assert.deepEqual(parseOptions('', at).fleet, []);
    assert.deepEqual(parseOptions('?fleet=ws://10.0.0.2:8080/ws/r1,,ws://10.0.0.3:8080/ws/r1', at).fleet,
      ['ws://10.0.0.2:8080/ws/r1', 'ws://10.0.0.3:8080/ws/r1']);
  });
});

describe('a view from the session\'s worker, drawn later than it was made', () => {
  const view = { hasWorld: true, tick: 100, alpha: 0.25, tickHz: 60, madeAtMs: 1000, current: null, previous: null, events: [] };
  test('is drawn at the alpha of its draw time: a quarter tick, then 6 ms (0.36 of a 60 Hz tick) later', () => {
    assert.equal(alphaAt(view, 1000), 0.25);
    assert.ok(Math.abs(alphaAt(view, 1006) - 0.61) < 1e-9, String(alphaAt(view, 1006)));
  });
  test('never past the tick it holds, nor before the time it was made, nor moved without a rate or a time', () => {
    assert.equal(alphaAt(view, 1000 + 1000 / 60), 1);
    assert.equal(alphaAt(view, 5000), 1);
    assert.equal(alphaAt(view, 990), 0.25);
    assert.equal(alphaAt({ ...view, tickHz: 0 }, 1006), 0.25);
    assert.equal(alphaAt({ ...view, madeAtMs: undefined }, 1006), 0.25);
  });
  test('the page\'s adapter hands its renderer the view at the alpha of now', () => {
    let deliver = null;
    const adapter = new WorkerSessionAdapter({ listen: (f) => { deliver = f; }, post: () => {} }, { serverUrl: 'ws://h/ws', watch: false, debug: false });
    deliver({ t: 'frame', asked: true, view: { ...view, madeAtMs: performance.now() - 100 }, figures: null });
    const drawn = adapter.renderView();
    assert.equal(drawn.alpha, 1);
    assert.equal(drawn.tick, 100);
  });
});

// Frames `gapMs` apart from `startMs`, `count` of them, into `resolution`: the scale after each
// frame, and the time of the last one.
function drawFrames(resolution, startMs, gapMs, count) {
  const scales = [];
  let nowMs = startMs;
  for (let i = 0; i < count; ++i) {
    nowMs = startMs + i * gapMs;
    scales.push(resolution.frame(nowMs));
  }
  return { scales, endMs: nowMs };
}

describe('the dynamic resolution', () => {
  test('frames at 60 a second, or at a 30 Hz display\'s 30, keep full resolution', () => {
    for (const gapMs of [1000 / 60, 1000 / 30]) {
      const r = new DynamicResolution();
      const { scales } = drawFrames(r, 0, gapMs, 600);
      assert.ok(scales.every((s) => s === 1), `${gapMs} ms apart`);
      assert.equal(r.lastChange, null);
      assert.equal(resolutionNotice(r), null);
    }
  });
  test('frames 45 ms apart lower it a step per 24 gaps, to 75% then half, and no lower', () => {
    const r = new DynamicResolution();
    const { scales } = drawFrames(r, 0, 45, 200);
    // The first frame has no gap before it: the 25th frame closes the first window of 24 gaps.
    assert.deepEqual([scales[23], scales[24], scales[47], scales[48], scales[199]], [1, 0.75, 0.75, 0.5, 0.5]);
    assert.equal(resolutionNotice(r), 'Frames came 22 a second here: the 3D view draws at 50% resolution to keep up (?full-resolution keeps it full).');
  });
  test('frames 66 ms apart (15 a second) lower it to half at once: one change of the canvas, not two', () => {
    const r = new DynamicResolution();
    const { scales } = drawFrames(r, 0, 66, 100);
    assert.deepEqual([scales[23], scales[24], scales[99]], [1, 0.5, 0.5]);
    assert.equal(resolutionNotice(r), 'Frames came 15 a second here: the 3D view draws at 50% resolution to keep up (?full-resolution keeps it full).');
  });
  test('one slow frame in a window is not a slow machine, nor a hidden tab drawing a frame a second (Firefox)', () => {
    const r = new DynamicResolution();
    let t = 0;
    for (let w = 0; w < 20; ++w) t = drawFrames(r, t, 16, 24).endMs + 200;   // one 200 ms gap a window
    t = drawFrames(r, t, 1000, 120).endMs;   // two minutes hidden
    drawFrames(r, t + 16, 16, 100);
    assert.equal(r.scale, 1);
    assert.equal(r.lastChange, null);
  });
  test('quick again, it raises a step once 4 s have passed since it lowered; a raise slow at once doubles the next wait', () => {
    const r = new DynamicResolution();
    const lowered = drawFrames(r, 0, 45, 25);   // one window: 75%
    assert.equal(r.scale, 0.75);
    const loweredAt = lowered.endMs;
    // Quick frames: 24 gaps of 16 ms are 384 ms; the first window ending 4 s or more after the
    // lowering raises it.
    let t = loweredAt;
    while (r.scale === 0.75) {
      t += 16;
      r.frame(t);
      assert.ok(t - loweredAt < 4000 + 400, 'raised within a window of the wait');
    }
    assert.ok(t - loweredAt >= 4000, `raised ${t - loweredAt} ms after lowering`);
    // Slow again straight after the raise: lowered, and the next raise waits 8 s.
    const again = drawFrames(r, t + 45, 45, 24);
    assert.equal(r.scale, 0.75);
    t = again.endMs;
    const secondLowerAt = t;
    while (r.scale === 0.75) {
      t += 16;
      r.frame(t);
    }
    assert.ok(t - secondLowerAt >= 8000 && t - secondLowerAt < 8000 + 400, `raised ${t - secondLowerAt} ms after the second lowering`);
    assert.equal(resolutionNotice(r), null);   // full again: the HUD's note goes
  });
  test('?full-resolution pins it, however slow the frames', () => {
    const r = new DynamicResolution({ pinned: true });
    assert.ok(drawFrames(r, 0, 100, 300).scales.every((s) => s === 1));
    assert.equal(r.lastChange, null);
    assert.equal(parseOptions('?full-resolution', { protocol: 'http:', host: 'h' }).fullResolution, true);
    assert.equal(parseOptions('', { protocol: 'http:', host: 'h' }).fullResolution, false);
  });
});

// A document and window made of EventTargets: the feeder only listens and reads visibilityState.
function fakePage() {
  const doc = new EventTarget();
  doc.visibilityState = 'visible';
  const win = new EventTarget();
  let now = 0;
  const calls = [];
  const feeder = feedLifecycle({ onSuspend: (t) => calls.push(['suspend', t]), onResume: (t) => calls.push(['resume', t]) },
    { document: doc, window: win, now: () => now });
  const fire = (target, type, at, extra = {}) => {
    now = at;
    target.dispatchEvent(Object.assign(new Event(type), extra));
  };
  return { doc, win, calls, feeder, fire };
}

describe('the lifecycle feeder', () => {
  test('hidden, frozen, resumed while hidden, then visible: one suspend and one resume', () => {
    const { doc, calls, fire } = fakePage();
    doc.visibilityState = 'hidden';
    fire(doc, 'visibilitychange', 10);
    fire(doc, 'freeze', 20);
    fire(doc, 'resume', 5000);
    doc.visibilityState = 'visible';
    fire(doc, 'visibilitychange', 5010);
    assert.deepEqual(calls, [['suspend', 10], ['resume', 5010]]);
  });
  test('a back-forward cache round trip is an absence; a pagehide that is not kept is not', () => {
    const { win, calls, fire, feeder } = fakePage();
    fire(win, 'pagehide', 5, { persisted: false });
    assert.deepEqual(calls, []);
    fire(win, 'pagehide', 10, { persisted: true });
    fire(win, 'pageshow', 900, { persisted: true });
    assert.deepEqual(calls, [['suspend', 10], ['resume', 900]]);
    assert.deepEqual(feeder.log.map((e) => e.event), ['pagehide', 'pageshow']);
  });
  test('a target with onLifecycle (the session in its worker) is given every change of the reasons, hidden included', () => {
    const doc = new EventTarget();
    doc.visibilityState = 'visible';
    const win = new EventTarget();
    const calls = [];
    let now = 0;
    feedLifecycle({ onLifecycle: (t, away) => calls.push([t, away]), onSuspend: () => calls.push('suspend'), onResume: () => calls.push('resume') },
      { document: doc, window: win, now: () => now });
    const fire = (type, at) => { now = at; doc.dispatchEvent(new Event(type)); };
    doc.visibilityState = 'hidden';
    fire('visibilitychange', 10);
    fire('freeze', 20);
    fire('resume', 5000);
    doc.visibilityState = 'visible';
    fire('visibilitychange', 5010);
    const away = (hidden, frozen) => ({ hidden, frozen, unloaded: false });
    assert.deepEqual(calls, [[10, away(true, false)], [20, away(true, true)], [5000, away(true, false)], [5010, away(false, false)]]);
  });
  test('stop() removes its listeners', () => {
    const { doc, calls, fire, feeder } = fakePage();
    feeder.stop();
    doc.visibilityState = 'hidden';
    fire(doc, 'visibilitychange', 1);
    assert.deepEqual(calls, []);
  });
});

// A page path ('./x.mjs', './pkg/y.mjs') as a file: the shell's in web/, the package's from its build.
const fileOf = (packageDir, page) => (page.startsWith('./pkg/') ? join(packageDir, page.slice(6)) : join(repoRoot, 'web', page.slice(2)));

// The modules `entry` reaches through static imports, as page paths ('./x.mjs', './pkg/y.mjs'):
// read from the files, bare specifiers through index.html's import map (none for a worker: import
// maps do not reach workers), the package from its build. Dynamic import() is not followed: that
// is what loads later. With `direct`, the pages `entry` imports itself.
function staticGraph(html, packageDir, entry = './main.mjs', direct = null) {
  const imports = html === null ? {} : JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)[1]).imports;
  const seen = new Set();
  const visit = (page) => {
    if (seen.has(page)) return;
    seen.add(page);
    const source = readFileSync(fileOf(packageDir, page), 'utf8');
    for (const [, specifier] of source.matchAll(/^\s*(?:import|export)\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
      // A mapped specifier resolves against the page, a relative one against its importer.
      const mapped = imports[specifier];
      const target = mapped ?? specifier;
      assert.ok(target.startsWith('.'), `${page} imports ${specifier}, which the import map does not name`);
      const imported = `./${posix.join(mapped ? '.' : posix.dirname(page), target)}`;
      if (page === entry) direct?.add(imported);
      visit(imported);
    }
  };
  visit(entry);
  return seen;
}

// `bundle` holds every module of `graph` (page paths) and imports nothing statically, and no
// module of the graph changed after it was made.
function assertBundled(bundle, graph) {
  const packageDir = dirname(bundle);
  const text = readFileSync(bundle, 'utf8');
  // One file: nothing left to fetch but what loads later (import() of a URL).
  assert.deepEqual([...text.matchAll(/^\s*(?:import|export)\b[^(\n]*?['"]([^'"]+)['"]/gm)].map((m) => m[1]), [], 'a static import left in the bundle');
  // esbuild heads each module's code with its path, relative to where it ran: the shell's
  // modules by their page path, the package's by their path in the build.
  const heads = new Set([...text.matchAll(/^\/\/ (\S+\.mjs)$/gm)].map((m) => m[1]));
  for (const page of graph) {
    const head = page.startsWith('./pkg/') ? [...heads].find((h) => h.endsWith(`/${posix.basename(page)}`)) : page.slice(2);
    assert.ok(heads.has(head), `${bundle} has no ${page} (its modules: ${[...heads].join(' ')})`);
  }
  const made = statSync(bundle).mtimeMs;
  const newer = [...graph].filter((page) => statSync(fileOf(packageDir, page)).mtimeMs > made);
  assert.deepEqual(newer, [], 'changed since the bundle was made: build-scripts/build wasm makes it again');
}

describe('the page\'s first module graph', () => {
  const packageDir = process.env.TANDEM_PACKAGE_DIR ?? join(repoRoot, 'build/wasm/packages/arena');
  const skip = existsSync(join(packageDir, 'tandem.mjs')) ? false : `no ${packageDir} (build-scripts/build wasm)`;
  test('index.html loads the page\'s code from the package, where the wasm build bundled it, and nothing of its graph besides', () => {
    const html = readFileSync(join(repoRoot, 'web/index.html'), 'utf8');
    assert.deepEqual([...html.matchAll(/<script type="module"[^>]* src="([^"]+)">/g)].map((m) => m[1]), ['./pkg/page.mjs']);
    // Preloads of the graph's modules would take the connections the bundle frees.
    assert.deepEqual([...html.matchAll(/<link rel="modulepreload"/g)], []);
  });
  test('main.mjs\'s static graph holds neither three.js, a view, the native check nor the package', { skip }, () => {
    const html = readFileSync(join(repoRoot, 'web/index.html'), 'utf8');
    const graph = staticGraph(html, packageDir);
    assert.ok(graph.has('./early.mjs') && graph.has('./hud.mjs'), [...graph].join(' '));
    assert.ok(![...graph].some((page) => /three|\/renderer\.mjs|native-check|offline|scenario/.test(page)), [...graph].join(' '));
    // The session runs in its worker: the main thread loads the package only when it needs it.
    assert.ok(![...graph].some((page) => page.startsWith('./pkg/')), [...graph].join(' '));
  });
  test('the session worker imports every module of its static graph itself (a worker has no modulepreload: one level of fetches)', { skip }, () => {
    const direct = new Set();
    const graph = staticGraph(null, packageDir, './session-worker.mjs', direct);
    graph.delete('./session-worker.mjs');
    assert.ok(graph.has('./pkg/tandem-wasm.mjs') && graph.has('./adapters/session.mjs'), [...graph].join(' '));
    assert.deepEqual([...direct].sort(), [...graph].sort());
  });
  test('index.html starts the session worker from the package, where the wasm build made it', () => {
    const html = readFileSync(join(repoRoot, 'web/index.html'), 'utf8');
    assert.deepEqual([...html.matchAll(/new Worker\('([^']+)'/g)].map((m) => m[1]), ['./pkg/session-worker.mjs']);
  });
  test('the package\'s session worker is the whole worker graph in one file, made after every module of it last changed', { skip }, () => {
    assertBundled(join(packageDir, 'session-worker.mjs'), staticGraph(null, packageDir, './session-worker.mjs'));
  });
  test('the package\'s page.mjs is the whole of main.mjs\'s graph in one file, made after every module of it last changed', { skip }, () => {
    const html = readFileSync(join(repoRoot, 'web/index.html'), 'utf8');
    assertBundled(join(packageDir, 'page.mjs'), staticGraph(html, packageDir));
  });
});
