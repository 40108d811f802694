// The page in Firefox ESR (headless, WebDriver BiDi) against the real server, `tandem serve`:
// it joins, verifies consecutive ticks against the server's digests, and after being hidden
// behind another tab (Firefox slows a hidden tab's frames to about one a second rather than
// stopping them) it is verified again and keeps pace. Everything asserted is read from the
// page's client session (window.__tandem) and the server's /metrics.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { activate, evaluate, launchFirefox, navigate, newTab, waitFor } from './lib/firefox.mjs';
import { assertSaysAway, sleep, tandemServeAndBrowser } from './lib/harness.mjs';

const TICK_HZ = 60;

const env = tandemServeAndBrowser(launchFirefox);
const { skip } = env;

const FIGURES = `(() => { const f = window.__tandem.figures(); return { verification: f.verification, session: f.session,
  lastResume: f.lastResume, error: f.error, visibility: document.visibilityState, resumeText: window.__tandem.resumeText(),
  loopFailure: window.__tandem.loopFailure(), suspended: window.__tandem.suspended() }; })()`;
const figures = () => evaluate(env.browser.bidi, env.browser.tab, FIGURES);

describe('the page in Firefox ESR against `tandem serve`', { skip }, () => {
  test('joins and verifies 300 consecutive ticks against the server\'s digests (no mismatch, no baseline between)', async () => {
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

  test('hidden behind another tab for 5 s: verified again after it is shown, with no mismatch, and live', async () => {
    const { bidi, tab } = env.browser;
    const startedAt = Date.now();
    const other = await newTab(bidi);
    await activate(bidi, other);
    await waitFor(bidi, tab, 'document.visibilityState === "hidden"', 5000);
    await sleep(5000);
    const away = await figures();
    assert.equal(away.suspended, true, 'the page knew it was hidden');
    await activate(bidi, tab);
    await bidi.send('browsingContext.close', { context: other });
    await waitFor(bidi, tab, 'document.visibilityState === "visible"', 5000);
    const spanMs = Date.now() - startedAt;
    // This absence's resume, verified again (the session chose catch-up or baseline), and the
    // HUD's line for it: the HUD rewrites its text at most 10 times a second, so the line can
    // trail the session's figures by a frame or two.
    await waitFor(bidi, tab, `(() => { const r = window.__tandem.figures().lastResume;
      return r !== null && r.awayMs >= 4000 && r.verifiedAfterMs != null
        && window.__tandem.resumeText().startsWith('away '); })()`, 30_000);
    const back = await figures();
    console.log(`# Firefox hidden 5 s: path ${back.lastResume.path}, verified again in ${back.lastResume.verifiedAfterMs.toFixed(1)} ms; HUD: ${back.resumeText}`);
    assert.deepEqual(back.verification.mismatches, []);
    assertSaysAway(back.resumeText, 5000, spanMs);
    // Live: the verified tick advances at about the tick rate (a page that stopped fails).
    const a = (await figures()).verification.verifiedTick;
    await sleep(2000);
    const b = (await figures()).verification.verifiedTick;
    assert.ok(b - a >= TICK_HZ * 2 * 0.2, `verified tick went ${a} -> ${b} in 2 s`);
    assert.equal((await figures()).loopFailure, null);
  });
});
