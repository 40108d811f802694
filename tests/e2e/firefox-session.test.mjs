// The page in Firefox ESR (headless, WebDriver BiDi) against the real server, `tandem serve
// --game GAME`, for each game:
// it joins, verifies consecutive ticks against the server's digests, and while hidden behind
// another tab (Firefox slows a hidden tab's frames to about one a second rather than stopping
// them) the session in its worker goes on verifying and acking, so on return nothing needs
// catching up. Everything asserted is read from the page's client session (window.__tandem,
// the worker's figures through sessionNow()) and the server's /metrics.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { activate, evaluate, launchFirefox, navigate, newTab, waitFor } from './lib/firefox.mjs';
import { assertSaysAway, GAMES, sleep, tandemServeAndBrowser } from './lib/harness.mjs';

// Each game's tick rate at its defaults: the rates asserted are fractions of it.
const TICK_HZ_OF = { arena: 60, ships: 30 };
let TICK_HZ = 60;
// The running describe's server and browser (set by its hook).
let env = null;

const FIGURES = `(() => { const f = window.__tandem.figures(); return { verification: f.verification, session: f.session,
  lastResume: f.lastResume, absence: f.absence, error: f.error, visibility: document.visibilityState, resumeText: window.__tandem.resumeText(),
  loopFailure: window.__tandem.loopFailure(), suspended: window.__tandem.suspended() }; })()`;
const figures = () => evaluate(env.browser.bidi, env.browser.tab, FIGURES);
// The session's figures in its worker now (a hidden page's figures() moves at most once a frame).
const sessionNow = () => evaluate(env.browser.bidi, env.browser.tab, 'window.__tandem.sessionNow()');

for (const game of GAMES) describe(`the ${game} page in Firefox ESR against \`tandem serve --game ${game}\``, () => {
  const mine = tandemServeAndBrowser(launchFirefox, { game });
  const { skip } = mine;
  before(() => { env = mine; TICK_HZ = TICK_HZ_OF[game]; });
  // A hidden tab's worker is the shell's (the same for every game): in Firefox with the arena;
  // Chromium's suite (session.test.mjs) hides the page of every game.
  const shellOnly = skip || (game === 'arena' ? false : 'the shell\'s own (the same for every game): run with the arena');

  test('joins and verifies 300 consecutive ticks against the server\'s digests (no mismatch, no baseline between)', { skip }, async () => {
    const { bidi, tab } = env.browser;
    await navigate(bidi, tab, `${env.server.origin}/`);
    await waitFor(bidi, tab, '(window.__tandem?.figures()?.verification?.verifiedTicks ?? 0) > 0 || window.__tandem?.error', 30_000);
    const start = await figures();
    assert.equal(start.error, null);
    await waitFor(bidi, tab, `(() => { const v = window.__tandem.figures().verification;
      return v.mismatches.length > 0 || v.verifiedTicks - ${start.verification.verifiedTicks} >= 300; })()`, 60_000);
    const end = await figures();
    assert.deepEqual(end.verification.mismatches, [], 'no digest mismatch');
    // Consecutive: every tick between was stepped and checked here, none jumped by a baseline.
    assert.equal(end.session.baselines, start.session.baselines, 'no baseline between');
    assert.equal(end.session.mismatches, 0);
    const run = end.verification.verifiedTicks - start.verification.verifiedTicks;
    assert.ok(run >= 300, `${run} ticks verified`);
    assert.equal(end.verification.verifiedTick - start.verification.verifiedTick, run, 'the verified ticks are consecutive');
    const metrics = await env.server.metrics();
    assert.ok(metrics.tandem_room_players >= 1, `server players ${metrics.tandem_room_players}`);
    assert.ok(metrics.tandem_room_tick >= end.verification.verifiedTick, `room tick ${metrics.tandem_room_tick}`);
    assert.equal(end.loopFailure, null);
  });

  test('hidden behind another tab for 5 s: the session in its worker went on verifying and acking while hidden, needed no catch-up on return, and the HUD says it stayed live', { skip: shellOnly }, async () => {
    const { bidi, tab } = env.browser;
    assert.equal(await evaluate(bidi, tab, 'window.__tandem.sessionThread()'), 'worker');
    const before = await sessionNow();
    const startedAt = Date.now();
    const other = await newTab(bidi);
    await activate(bidi, other);
    await waitFor(bidi, tab, 'document.visibilityState === "hidden"', 5000);
    await evaluate(bidi, tab, 'window.__tandem.resetFrames()');
    const during = { session: await sessionNow(), metrics: await env.server.metrics() };
    await sleep(5000);
    const last = { session: await sessionNow(), metrics: await env.server.metrics(), away: await figures(),
      frames: await evaluate(bidi, tab, 'window.__tandem.frames().frames') };
    await activate(bidi, tab);
    await bidi.send('browsingContext.close', { context: other });
    await waitFor(bidi, tab, 'document.visibilityState === "visible"', 5000);
    const spanMs = Date.now() - startedAt;
    // The worker's absence record closed, and the HUD's line for it (the HUD rewrites its text
    // at most 10 times a second, so the line can trail the figures by a frame or two).
    await waitFor(bidi, tab, `(() => { const a = window.__tandem.figures().absence;
      return a !== null && !a.ongoing && a.awayMs >= 4000 && window.__tandem.resumeText().startsWith('hidden '); })()`, 30_000);
    const back = await figures();
    const after = await sessionNow();
    const verified = last.session.verification.verifiedTick - during.session.verification.verifiedTick;
    const acks = last.metrics.tandem_ws_frames_received_total - during.metrics.tandem_ws_frames_received_total;
    const pauses = last.metrics.tandem_room_flow_control_pauses_total - during.metrics.tandem_room_flow_control_pauses_total;
    console.log(`# Firefox hidden 5 s: ${last.frames} frame callbacks while hidden; the worker verified ${verified} ticks, the server received ` +
      `${acks} messages from the page and paused its stream ${pauses} times; HUD: ${back.resumeText}`);
    assert.equal(last.away.visibility, 'hidden', 'the page was hidden');
    // Firefox slows a hidden tab's frames to about one a second rather than stopping them.
    assert.ok(last.frames <= 10, `${last.frames} frame callbacks in 5 s hidden`);
    assert.ok(verified >= 5 * TICK_HZ * 0.3, `verified tick advanced ${verified} while hidden`);
    assert.ok(acks >= 5, `${acks} messages from the page while hidden`);
    assert.equal(pauses, 0, 'the room never had to pause the stream to the hidden page');
    assert.equal(back.absence.kind, 'hidden');
    assert.equal(back.absence.resumesDuring, 0);
    assert.equal(after.session.catchUps, before.session.catchUps, 'no catch-up');
    assert.equal(after.session.baselines, before.session.baselines, 'no baseline');
    assert.deepEqual(back.verification.mismatches, []);
    assertSaysAway(back.resumeText, 5000, spanMs);
    assert.match(back.resumeText, /^hidden \d+\.\d s: stayed live in the background, [\d,]+ ticks verified meanwhile$/);
    // Live: the verified tick advances at about the tick rate (a page that stopped fails).
    const a = (await figures()).verification.verifiedTick;
    await sleep(2000);
    const b = (await figures()).verification.verifiedTick;
    assert.ok(b - a >= TICK_HZ * 2 * 0.2, `verified tick went ${a} -> ${b} in 2 s`);
    assert.equal((await figures()).loopFailure, null);
  });
});
