// The offline mode in Chromium, for each game, served by the tests' static server (no room
// anywhere): the game's Room runs in the page with scripted bots (the module's OfflineMatch),
// and the page's own client session verifies its ticks, survives a hidden tab, checks a
// scenario against the native stream shipped with the game's plugin, and saves a replay that
// the native `tandem replay` accepts. Without ?offline the page falls back to the same mode by
// itself and tells the person there is no server. What is the same for every game (the
// fall-back, the hidden tab, a difference named) runs with the arena only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDownloadedReplayPasses, clickAndRead } from './lib/actions.mjs';
import { hideBehindAnotherTab, launchChromium } from './lib/chromium.mjs';
import { assertSaysAway, GAMES, openDemo, serverAndBrowser, sleep, startServer, unlessNoTandem } from './lib/harness.mjs';

const figures = (page) => page.evaluate(() => window.__tandem.figures());
// Per game: its URL knobs for a light room, the scenario "Check against native" runs, and the
// list whose bots' elements move.
const GAME = {
  arena: { knobs: '&pellets=256', check: 'trig', moving: 'wells' },
  ships: { knobs: '', check: 'duel', moving: 'ships' },
};

/** Waits until the page has verified `count` more ticks than now; fails on a mismatch. */
async function verifiesTicks(page, count, timeoutMs = 60_000) {
  const from = (await figures(page)).verification.verifiedTicks;
  await page.waitForFunction(([start, n]) => {
    const v = window.__tandem.figures().verification;
    return v.mismatches.length > 0 || v.verifiedTicks - start >= n;
  }, [from, count], { timeout: timeoutMs, polling: 100 });
  const v = (await figures(page)).verification;
  assert.deepEqual(v.mismatches, [], 'no digest mismatch');
  return v;
}

for (const game of GAMES) describe(`the offline mode of ${game}: a Room in the page`, () => {
  const env = serverAndBrowser(launchChromium, () => startServer({ game }));
  const { knobs, check, moving } = GAME[game];
  // What the shell and the module's OfflineMatch do the same way for every game (the fall-back,
  // a hidden tab's catch-up, the check's report of a difference) runs with the arena only.
  const shellOnly = game === 'arena' ? false : 'the shell\'s own (the same for every game): run with the arena';
  test('?offline: the page plays beside 3 scripted bots and its session verifies 300 ticks of the in-page room', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, `?offline${knobs}`);
    const bots = async () => {
      const view = await page.evaluate(() => window.__tandem.view());
      return view.lists[moving].filter((e) => e.player !== view.me).map((e) => [e.player, e['pos.x'], e['pos.y']]);
    };
    await verifiesTicks(page, 60);
    const early = await bots();
    const v = await verifiesTicks(page, 300);
    const f = await figures(page);
    assert.equal(f.mode, 'offline');
    assert.equal(f.me, 1, 'the person has the first seat');
    assert.deepEqual((await page.evaluate(() => window.__tandem.players())).map((p) => p.player), [1, 2, 3, 4], 'me and three bots in the world');
    const room = await page.evaluate(() => window.__tandem.parts.adapter.inner?.roomFigures?.() ?? window.__tandem.parts.adapter.roomFigures());
    assert.equal(room.stats.players, 4);
    assert.equal(room.bots.length, 3);
    for (const bot of room.bots) assert.ok(bot.commandsSent >= 1 && bot.acksSent > 10 && !bot.refused, JSON.stringify(bot));
    assert.equal(room.stats.ackMismatches, 0, 'every ack the room received agreed with its digest');
    // The bots play: their elements are not where they were 300 ticks earlier.
    const late = await bots();
    assert.ok(late.some(([player, x, y]) => early.some(([p, x0, y0]) => p === player && Math.abs(x - x0) + Math.abs(y - y0) > 20)),
      JSON.stringify({ early, late }));
    console.log(`# offline ${game}: ${v.verifiedTicks} ticks verified, room tick ${room.stats.tick}, HUD: ${f.modeLabel}`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('no server at the page\'s address: the page falls back to the offline mode by itself and the HUD says "offline: no server at ..."', { skip: shellOnly }, async () => {
    // The static server answers no WebSocket: the socket never opens.
    const page = await openDemo(env.browser.context, env.server.origin, `?${knobs.slice(1)}`);
    await page.waitForFunction(() => window.__tandem.mode === 'offline', null, { timeout: 15_000 });
    await verifiesTicks(page, 60);
    const wsUrl = `ws://${new URL(env.server.origin).host}/ws`;
    await page.waitForFunction((url) => document.getElementById('mode').textContent.startsWith(`offline: no server at ${url}`), wsUrl, { timeout: 5000 });
    console.log(`# HUD: ${await page.textContent('#mode')}`);
    await page.close();
  });

  test('hidden behind another tab for 5 s in the offline mode: the session catches up or takes a baseline, verifies again and goes on', { skip: shellOnly }, async () => {
    const page = await openDemo(env.browser.context, env.server.origin, `?offline${knobs}`);
    await verifiesTicks(page, 60);
    // Every resume the session reports and the HUD line beside it, sampled in the page once per
    // animation frame, right beside the page's own frame callback: on a slow machine a later
    // backlog (frames arriving faster than a slow page applies them) is a resume of its own and
    // replaces this one in the figures, and a timer sampling beside it can be starved by the
    // very frames that close and replace it. Only changes are kept.
    await page.evaluate(() => {
      window.resumesSeen = [];
      window.framesSampled = 0;
      const sample = () => {
        window.framesSampled += 1;
        const r = window.__tandem.figures().lastResume;
        if (r !== null) {
          const seen = { ...r, text: window.__tandem.resumeText() };
          if (JSON.stringify(seen) !== JSON.stringify(window.resumesSeen.at(-1))) window.resumesSeen.push(seen);
        }
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    const startedAt = Date.now();
    const restore = await hideBehindAnotherTab(page);
    await sleep(5000);
    await restore();
    const spanMs = Date.now() - startedAt;
    // The bound is in frames, the page's own unit, not in wall time (a loaded machine draws a
    // few frames a second): catch-up is chosen only when the resume rule prices it below a
    // baseline, which in the tab's own room (no network) costs a decode and a few steps, so at
    // most about a second of stepping; every advance call while catching up steps at least
    // catch_up_slice_ns (8 ms) of it, so 125 calls; a baseline is asked for and applied within a
    // few, and its backlog is a catch-up of the same resume. Twice that, plus margin, and the
    // page failed.
    const FRAME_BOUND = 2 * (1000 / 8) + 20;
    const shownAtFrame = await page.evaluate(() => window.framesSampled);
    const closed = (r) => r.awayMs >= 4000 && r.verifiedAfterMs != null && r.text.includes('verified again');
    await page.waitForFunction(([from, bound]) => window.resumesSeen.some((r) => r.awayMs >= 4000 && r.verifiedAfterMs != null && r.text.includes('verified again'))
      || window.framesSampled - from > bound, [shownAtFrame, FRAME_BOUND], { timeout: 300_000, polling: 100 });
    const { seen, frames } = await page.evaluate(() => ({ seen: window.resumesSeen, frames: window.framesSampled }));
    const resume = seen.find(closed);
    assert.ok(resume, `not verified again within ${FRAME_BOUND} frames of being shown (${frames - shownAtFrame} frames, ` +
      `${Date.now() - startedAt - spanMs} ms); resumes seen: ${JSON.stringify(seen.slice(-8))}`);
    console.log(`# offline, hidden 5 s: path ${resume.path}, verified again in ${resume.verifiedAfterMs.toFixed(0)} ms; HUD: ${resume.text}`);
    assert.match(resume.path, /^(catch_up|baseline)$/);
    assert.ok(resume.frames <= FRAME_BOUND, `the page's own count: verified again after ${resume.frames} frames`);
    assertSaysAway(resume.text, 5000, spanMs);
    // The room ran while the tab was hidden (its timers slowed, not stopped): there was something
    // to catch up (more than a second of the game's ticks).
    const tickHz = (await page.evaluate(() => (window.__tandem.parts.adapter.inner ?? window.__tandem.parts.adapter).roomFigures())).tickHz;
    assert.ok(resume.path === 'baseline' || resume.ticks > tickHz, JSON.stringify(resume));
    await verifiesTicks(page, 120);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test(`"Check against native" offline: ${check}'s 2001 digests in this tab equal the native stream shipped with the game's plugin`, async () => {
    const page = await openDemo(env.browser.context, env.server.origin, `?offline${knobs}&check=${check}`);
    const text = await clickAndRead(page, 'check-native', 240_000);
    console.log(`# ${text}`);
    assert.equal(text, `${check}: 2,001 ticks, all identical to the native stream shipped with the page`);
    const fetched = env.server.requests.filter((r) => r.url.includes('/native/'));
    assert.deepEqual(fetched.map((r) => [r.url, r.status]), [[`/games/${game}/native/${check}.txt`, 200]]);
    await page.close();
  });

  test('"Check against native" names the first differing tick when the native stream disagrees', { skip: shellOnly }, async () => {
    const page = await openDemo(env.browser.context, env.server.origin, `?offline${knobs}&check=${check}`);
    // The shipped stream with tick 7's digest altered, served in its place.
    await page.route(`**/native/${check}.txt`, async (route) => {
      const body = await (await route.fetch()).text();
      const altered = body.replace(/^7 ([0-9a-f]{16})$/m, (_, d) => `7 ${d.slice(0, 15)}${d[15] === '0' ? '1' : '0'}`);
      assert.notEqual(altered, body);
      await route.fulfill({ body: altered, contentType: 'text/plain' });
    });
    const text = await clickAndRead(page, 'check-native', 240_000);
    assert.match(text, new RegExp(`^${check}: first difference at tick 7 \\(native [0-9a-f]{16}, this tab [0-9a-f]{16}\\); 7 ticks identical before it`));
    await page.close();
  });

  test('"Download replay" offline: the file the browser saves passes the native `tandem replay`', { skip: unlessNoTandem() }, async () => {
    const page = await openDemo(env.browser.context, env.server.origin, `?offline${knobs}`);
    await verifiesTicks(page, 120);
    await assertDownloadedReplayPasses(page);
    await page.close();
  });
});
