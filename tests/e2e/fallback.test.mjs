// The page's switch to the offline mode, in Node with stand-in adapters: it happens once, only
// when the server's socket failed before it ever opened, never after a socket opened (a close
// or a refusal then is the session's business), and an absence in progress carries over.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FallbackAdapter } from '../../web/adapters/fallback.mjs';

function stand(mode, states) {
  const calls = [];
  let i = 0;
  return {
    mode, modeLabel: mode, arenaSize: 1024, calls,
    actions: { downloadReplay: () => mode, corrupt: undefined },
    // A state, or a whole connection ({state, everOpened}).
    figures() { const c = states[Math.min(i, states.length - 1)]; return { connection: typeof c === 'string' ? { state: c } : c }; },
    advance(now) { calls.push(['advance', now]); i += 1; },
    onSuspend(now) { calls.push(['suspend', now]); },
    onResume(now) { calls.push(['resume', now]); },
    steer() {}, renderView() { return null; },
    dispose() { calls.push(['dispose']); },
  };
}
const checks = { server: () => 'server', offline: () => 'offline' };
// The switch lands once the offline adapter's module has loaded (a promise): let it.
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the fallback to the offline mode', () => {
  test('a socket that fails before ever opening switches once, and the check follows', async () => {
    const session = stand('play', ['connecting', 'waiting', 'connecting', 'waiting']);
    const offline = stand('offline', ['local']);
    let made = 0;
    const a = new FallbackAdapter(session, () => { made += 1; return offline; }, checks);
    assert.equal(a.actions.checkAgainstNative(), 'server');
    for (let t = 1; t <= 5; ++t) a.advance(t, 8);
    assert.equal(made, 1);
    await settle();
    for (let t = 6; t <= 7; ++t) a.advance(t, 8);
    assert.equal(made, 1);
    assert.equal(a.mode, 'offline');
    assert.deepEqual(session.calls.at(-1), ['dispose']);
    assert.equal(a.actions.checkAgainstNative(), 'offline');
    assert.equal(a.actions.downloadReplay(), 'offline');
  });

  test('a socket that opened and then closed or was refused never switches', async () => {
    for (const states of [['connecting', 'open', 'waiting', 'connecting', 'waiting'], ['open', 'closed']]) {
      const session = stand('play', states);
      let made = 0;
      const a = new FallbackAdapter(session, () => { made += 1; return stand('offline', ['local']); }, checks);
      for (let t = 1; t <= 8; ++t) a.advance(t, 8);
      await settle();
      assert.equal(made, 0, states.join(' '));
      assert.equal(a.mode, 'play');
    }
  });

  test('a hello refused between two frames (open, then closed, never seen open) is the session\'s to show, not a switch', async () => {
    const session = stand('play', ['connecting', { state: 'closed', everOpened: true }]);
    let made = 0;
    const a = new FallbackAdapter(session, () => { made += 1; return stand('offline', ['local']); }, checks);
    for (let t = 1; t <= 4; ++t) a.advance(t, 8);
    await settle();
    assert.equal(made, 0);
    assert.equal(a.mode, 'play');
  });

  test('a socket seen only while connecting, that failed before it ever opened (failedBeforeOpen), switches too', async () => {
    const offline = stand('offline', ['local']);
    const a = new FallbackAdapter(stand('play', ['connecting', { state: 'connecting', failedBeforeOpen: true }]), () => offline, checks);
    a.advance(1, 8);
    await settle();
    assert.equal(a.mode, 'play');
    a.advance(2, 8);
    await settle();
    assert.equal(a.mode, 'offline');
  });

  test('a switch while the page is away tells the offline adapter it is away', async () => {
    const offline = stand('offline', ['local']);
    const a = new FallbackAdapter(stand('play', ['waiting']), () => offline, checks);
    a.onSuspend(100);
    a.advance(150, 8);
    await settle();
    assert.deepEqual(offline.calls[0], ['suspend', 150]);
    a.onResume(900);
    assert.deepEqual(offline.calls.at(-1), ['resume', 900]);
  });

  test('a session in a worker is given the lifecycle whole (it stays live while hidden); after a switch while hidden, the offline adapter is suspended', async () => {
    const session = { ...stand('play', ['waiting']), onLifecycle(now, away) { session.calls.push(['lifecycle', now, away.hidden, away.frozen]); } };
    const offline = stand('offline', ['local']);
    const a = new FallbackAdapter(session, () => offline, checks);
    a.onLifecycle(100, { hidden: true, frozen: false, unloaded: false });
    assert.deepEqual(session.calls, [['lifecycle', 100, true, false]]);
    a.advance(150, 8);
    await settle();
    assert.deepEqual(offline.calls[0], ['suspend', 150]);
    a.onLifecycle(900, { hidden: false, frozen: false, unloaded: false });
    assert.deepEqual(offline.calls.at(-1), ['resume', 900]);
  });

  test('until the offline adapter has loaded, the failed session stays in place; it is disposed at the swap', async () => {
    const session = stand('play', ['waiting']);
    const offline = stand('offline', ['local']);
    let arrive;
    const a = new FallbackAdapter(session, () => new Promise((resolve) => { arrive = resolve; }), checks);
    a.advance(1, 8);
    a.advance(2, 8);
    assert.equal(a.mode, 'play');
    assert.ok(!session.calls.some(([c]) => c === 'dispose'));
    a.onSuspend(3);  // away after the switch was decided, before it landed
    arrive(offline);
    await settle();
    assert.equal(a.mode, 'offline');
    assert.deepEqual(session.calls.at(-1), ['dispose']);
    assert.deepEqual(offline.calls[0], ['suspend', 3]);
    a.advance(4, 8);
    assert.deepEqual(offline.calls.at(-1), ['advance', 4]);
  });
});
