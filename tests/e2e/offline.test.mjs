// The offline mode in Chromium, served by the tests' static server (no room anywhere): a Room
// runs in the page with scripted bots, and the page's own client session verifies its ticks,
// survives a hidden tab, checks a scenario against the native stream shipped with the page,
// and saves a replay that the native `tandem replay` accepts. Without ?offline the page falls
// back to the same mode by itself and tells the person there is no server.
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { clickAndRead, downloadReplay, nativeReplay } from './lib/actions.mjs';
import { hideBehindAnotherTab, launchChromium } from './lib/chromium.mjs';
import { assertSaysAway, openDemo, serverAndBrowser, sleep, tandemBinary } from './lib/harness.mjs';

const env = serverAndBrowser(launchChromium);
const figures = (page) => page.evaluate(() => window.__tandem.figures());

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

describe('the offline mode: a Room in the page', () => {
  test('?offline: the page plays beside 3 scripted bots and its session verifies 300 ticks of the in-page room', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline&pellets=256');
    const v = await verifiesTicks(page, 300);
    const f = await figures(page);
    assert.equal(f.mode, 'offline');
    assert.equal(f.me, 1, 'the person has the first seat');
    assert.deepEqual(f.players.map((p) => p.player), [1, 2, 3, 4], 'me and three bots in the world');
    const room = await page.evaluate(() => window.__tandem.parts.adapter.roomFigures());
    assert.equal(room.stats.players, 4);
    assert.equal(room.bots.length, 3);
    for (const bot of room.bots) assert.ok(bot.steersSent >= 1 && bot.acksSent > 10 && !bot.refused, JSON.stringify(bot));
    assert.equal(room.stats.ackMismatches, 0, 'every ack the room received agreed with its digest');
    // The bots move: their wells are not where they joined (the arena's centre).
    const view = await page.evaluate(() => window.__tandem.view());
    const bots = view.wells.filter((w) => w.player !== view.me);
    assert.ok(bots.some((w) => Math.abs(w.x - 512) + Math.abs(w.y - 512) > 20), JSON.stringify(bots));
    console.log(`# offline: ${v.verifiedTicks} ticks verified, room tick ${room.stats.tick}, HUD: ${f.modeLabel}`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('no server at the page\'s address: the page falls back to the offline mode by itself and the HUD says "offline: no server at ..."', async () => {
    // The static server answers no WebSocket: the socket never opens.
    const page = await openDemo(env.browser.context, env.server.origin, '?pellets=256');
    await page.waitForFunction(() => window.__tandem.mode === 'offline', null, { timeout: 15_000 });
    await verifiesTicks(page, 60);
    const wsUrl = `ws://${new URL(env.server.origin).host}/ws`;
    await page.waitForFunction((url) => document.getElementById('mode').textContent.startsWith(`offline: no server at ${url}`), wsUrl, { timeout: 5000 });
    console.log(`# HUD: ${await page.textContent('#mode')}`);
    await page.close();
  });

  test('hidden behind another tab for 5 s in the offline mode: the session catches up or takes a baseline, verifies again and goes on', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline&pellets=256');
    await verifiesTicks(page, 60);
    // Every resume the session reports and the HUD line beside it, sampled in the page: on a
    // slow machine a later backlog (frames arriving faster than a slow page applies them) is a
    // resume of its own and replaces this one in the figures.
    await page.evaluate(() => {
      window.resumesSeen = [];
      setInterval(() => {
        const r = window.__tandem.figures().lastResume;
        if (r !== null) window.resumesSeen.push({ ...r, text: window.__tandem.resumeText() });
      }, 20);
    });
    const startedAt = Date.now();
    const restore = await hideBehindAnotherTab(page);
    await sleep(5000);
    await restore();
    const spanMs = Date.now() - startedAt;
    await page.waitForFunction(() => window.resumesSeen.some((r) => r.awayMs >= 4000 && r.verifiedAfterMs != null && r.text.includes('verified again')),
      null, { timeout: 60_000, polling: 100 });
    const resume = await page.evaluate(() => window.resumesSeen.find((r) => r.awayMs >= 4000 && r.verifiedAfterMs != null && r.text.includes('verified again')));
    console.log(`# offline, hidden 5 s: path ${resume.path}, verified again in ${resume.verifiedAfterMs.toFixed(0)} ms; HUD: ${resume.text}`);
    assert.match(resume.path, /^(catch_up|baseline)$/);
    assertSaysAway(resume.text, 5000, spanMs);
    // The room ran while the tab was hidden (its timers slowed, not stopped): there was something to catch up.
    assert.ok(resume.path === 'baseline' || resume.ticks > 60, JSON.stringify(resume));
    await verifiesTicks(page, 120);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('"Check against native" offline: trig\'s 2001 digests in this tab equal the native stream shipped with the page', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline&pellets=256&check=trig');
    const text = await clickAndRead(page, 'check-native', 240_000);
    console.log(`# ${text}`);
    assert.equal(text, 'trig: 2,001 ticks, all identical to the native stream shipped with the page');
    const fetched = env.server.requests.filter((r) => r.url.startsWith('/native/'));
    assert.deepEqual(fetched.map((r) => [r.url, r.status]), [['/native/trig.txt', 200]]);
    await page.close();
  });

  test('"Check against native" names the first differing tick when the native stream disagrees', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline&pellets=256&check=trig');
    // The shipped stream with tick 7's digest altered, served in its place.
    await page.route('**/native/trig.txt', async (route) => {
      const body = await (await route.fetch()).text();
      const altered = body.replace(/^7 ([0-9a-f]{16})$/m, (_, d) => `7 ${d.slice(0, 15)}${d[15] === '0' ? '1' : '0'}`);
      assert.notEqual(altered, body);
      await route.fulfill({ body: altered, contentType: 'text/plain' });
    });
    const text = await clickAndRead(page, 'check-native', 240_000);
    assert.match(text, /^trig: first difference at tick 7 \(native [0-9a-f]{16}, this tab [0-9a-f]{16}\); 7 ticks identical before it/);
    await page.close();
  });

  test('"Download replay" offline: the file the browser saves passes the native `tandem replay`', { skip: existsSync(tandemBinary) ? false : `no ${tandemBinary}` }, async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline&pellets=256');
    await verifiesTicks(page, 120);
    const { file, dir, said } = await downloadReplay(page);
    const result = await nativeReplay(file);
    console.log(`# ${said}\n# tandem replay: exit ${result.code}: ${result.stdout.trim().split('\n').pop()}`);
    assert.equal(result.code, 0, `tandem replay ${file}: ${result.stdout}${result.stderr}`);
    rmSync(dir, { recursive: true, force: true });
    await page.close();
  });
});
