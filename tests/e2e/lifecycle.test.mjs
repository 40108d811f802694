// Backgrounding for real in Chromium: behind another tab, minimised, frozen. Each test proves
// from inside the page that the browser actually stopped it (the gap between frame callbacks
// spans the absence; a frozen page's timers did not run), then that the page's lifecycle
// feeder told the adapter and the page drew again. With Playwright's own launch none of this
// would happen (every page stays visible), which is why lib/chromium.mjs attaches by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hideAndFreeze, hideBehindAnotherTab, launchChromium, minimise } from './lib/chromium.mjs';
import { assertSaysAway, openDemo, pageState, screenshot, serverAndBrowser, sleep } from './lib/harness.mjs';

const AWAY_MS = 3000;

const env = serverAndBrowser(launchChromium);

// Runs `hide` (which resolves with its undo), stays away AWAY_MS, comes back, and returns
// what the page measured while away and after.
async function awayAndBack(page, hide) {
  await sleep(500);
  // Every resume line the HUD shows, sampled in the page: on a loaded machine frames come so
  // slowly that a later backlog is a resume of its own (the session's gap rule) and replaces
  // the line of this absence before the test reads it.
  await page.evaluate(() => {
    window.resumeLines = [];
    setInterval(() => {
      const text = window.__tandem.resumeText();
      if (window.resumeLines.at(-1) !== text) window.resumeLines.push(text);
    }, 20);
  });
  const before = await pageState(page);
  const startedAt = Date.now();
  const restore = await hide(page);
  // The world's tick once hidden: a page that lags its room (the offline mode on a slow
  // machine) applies larger steps per frame, so "before" may be well behind it.
  const hidden = await Promise.race([pageState(page), sleep(2000).then(() => null)]);
  // Counted from the moment the page is hidden (a frozen page still answers the debugger);
  // the gap measured across the absence starts at the last frame drawn before it.
  await page.evaluate(() => window.__tandem.resetFrames());
  await sleep(AWAY_MS);
  const away = await pageState(page).catch(() => null);   // a frozen page cannot answer
  await restore();
  const spanMs = Date.now() - startedAt;   // the absence lies inside this span
  await page.waitForFunction(() => window.__tandem.frames().frames >= 8, null, { timeout: 15_000 });
  const back = await pageState(page);
  // The line of this absence: the longest away the HUD said since it began.
  const awaySaid = (text) => Number(/^away (\d+\.\d) s: /.exec(text)?.[1] ?? -1);
  back.resumeText = (await page.evaluate(() => window.resumeLines)).reduce((a, b) => (awaySaid(b) > awaySaid(a) ? b : a), back.resumeText);
  const log = await page.evaluate(() => window.__tandem.lifecycleLog());
  return { before, hidden, away, back, log, spanMs };
}

function assertStoppedAndResumed({ before, hidden, away, back, spanMs }) {
  if (away !== null) {
    const from = hidden ?? before;
    assert.equal(away.visibility, 'hidden');
    assert.equal(away.suspended, true, 'the lifecycle feeder reported the absence');
    assert.ok(away.frames.frames <= 2, `${away.frames.frames} frame callbacks while hidden`);
    // At most the two frames allowed above, each at most a catch-up call's 32 ms of steps: far
    // below the 180 ticks the absence spans at 60 Hz.
    assert.ok(away.figures.tick - from.figures.tick <= 60, `the world ran ${away.figures.tick - from.figures.tick} ticks while hidden`);
  }
  assert.equal(back.visibility, 'visible');
  assert.equal(back.suspended, false);
  // Measured inside the page: one gap between frame callbacks as long as the absence.
  assert.ok(back.frames.maxGapMs >= AWAY_MS * 0.8, `longest frame gap ${back.frames.maxGapMs.toFixed(0)} ms (away ${AWAY_MS} ms)`);
  assert.ok(back.figures.tick > before.figures.tick, 'the world runs again');
  assertSaysAway(back.resumeText, AWAY_MS, spanMs);
  assert.equal(back.loopFailure, null);
}

describe('a backgrounded page in Chromium', () => {
  test('behind another tab it stops drawing, and it draws again when shown', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline');
    const result = await awayAndBack(page, hideBehindAnotherTab);
    assertStoppedAndResumed(result);
    const events = result.log.map((e) => `${e.event}:${e.suspended}`);
    assert.ok(events.includes('visibilitychange:true') && events.includes('visibilitychange:false'), events.join(' '));
    await screenshot(page, 'after-hidden-tab');
    await page.close();
  });

  test('in a minimised window it stops drawing, and it draws again when restored', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline');
    assertStoppedAndResumed(await awayAndBack(page, minimise));
    await page.close();
  });

  test('frozen, it runs not even its timers, and the feeder sees freeze and resume', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline');
    // A 100 ms interval timer: a hidden page still runs it about once a second; a frozen one not at all.
    await page.evaluate(() => {
      window.timerTicks = [];
      setInterval(() => window.timerTicks.push(performance.now()), 100);
    });
    const result = await awayAndBack(page, hideAndFreeze);
    assertStoppedAndResumed(result);
    const freeze = result.log.find((e) => e.event === 'freeze');
    const resume = result.log.find((e) => e.event === 'resume');
    assert.ok(freeze && resume, `lifecycle log: ${result.log.map((e) => e.event).join(' ')}`);
    assert.ok(resume.atMs - freeze.atMs >= AWAY_MS * 0.8, `frozen for ${resume.atMs - freeze.atMs} ms`);
    const during = await page.evaluate(([from, to]) => window.timerTicks.filter((t) => t > from && t < to).length,
      [freeze.atMs + 50, resume.atMs - 50]);
    assert.equal(during, 0, 'timer callbacks while frozen');
    await page.close();
  });
});
