// The HUD fits: at every window size from a phone (360x640) to a large screen (2560x1440), no
// two visible panels overlap and none leaves the window, with the live page's own text and with
// the longest text each panel can hold (every optional line shown, the help opened). Measured
// from the panels' DOM rectangles in Chromium against `tandem serve`, for every game (each
// plugin puts its own words in the HUD); a screenshot of each size is saved
// (build/test-artifacts/e2e/layout-<game>-*.png).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { launchChromium } from './lib/chromium.mjs';
import { GAMES, openDemo, screenshot, tandemServeAndBrowser } from './lib/harness.mjs';

const SIZES = [[360, 640], [780, 437], [1280, 720], [1920, 1080], [2560, 1440]];
const PANELS = ['status', 'players', 'link', 'help'];

// Every panel's rectangle (the visible ones), and whether its content is cut (scrolls inside).
const RECTS = `(() => Object.fromEntries(${JSON.stringify(PANELS)}
  .map((id) => document.getElementById(id))
  .filter((e) => !e.hidden && getComputedStyle(e).display !== 'none')
  .map((e) => { const r = e.getBoundingClientRect();
    return [e.id, { left: r.left, top: r.top, right: r.right, bottom: r.bottom, scrolls: e.scrollHeight > e.clientHeight + 1 }]; })))()`;

// The longest text each panel holds in play: a frozen tab's absence line, the lowered resolution's note,
// sixteen players, the prediction figures, the debug button and a saved replay's result. The
// frame loop is stopped first, so the HUD does not write over it.
const LONGEST = `(() => {
  window.__tandem.parts.loop.stop();
  const $ = (id) => document.getElementById(id);
  $('connection').textContent = 'reconnecting (12), reconnected as player 16';
  $('mode').textContent = 'Playing in the room at ws://an-example-host.example.org:65535/ws (predicted)';
  $('tick').textContent = '12,345,678'; $('server-tick').textContent = '12,345,680'; $('lag').textContent = '2';
  $('resume').textContent = 'frozen 600.4 s: reconnected as player 16, resynced from a 25 KB snapshot, verified in 1234 ms';
  $('notice').hidden = false;
  $('notice').textContent = 'Frames came 20 a second here: the 3D view draws at 75% resolution to keep up (?full-resolution keeps it full).';
  $('score-list').replaceChildren(...Array.from({ length: 16 }, (_, i) => Object.assign(document.createElement('li'), { textContent: 'player ' + (i + 1) + ' (you) 12,345' })));
  $('prediction').hidden = false;
  $('corrupt').hidden = false;
  $('verify-summary').textContent = '1,234,567 ticks verified · 12 mismatches, last at tick 1,234,560 (scores), healed';
  $('action-result').textContent = 'saved tandem-1764900000000.replay (1,234,567 bytes): check it with tandem replay tandem-1764900000000.replay';
  return true;
})()`;

function assertFits(rects, [width, height], what) {
  const ids = Object.keys(rects);
  for (const id of PANELS) assert.ok(ids.includes(id), `${what}: panel ${id} is shown (${ids.join(', ')})`);
  for (const id of ids) {
    const r = rects[id];
    assert.ok(r.left >= 0 && r.top >= 0 && r.right <= width && r.bottom <= height,
      `${what}: ${id} leaves the ${width}x${height} window: ${JSON.stringify(r)}`);
  }
  for (const [i, a] of ids.entries()) {
    for (const b of ids.slice(i + 1)) {
      const p = rects[a];
      const q = rects[b];
      const apart = p.right <= q.left || q.right <= p.left || p.bottom <= q.top || q.bottom <= p.top;
      assert.ok(apart, `${what}: ${a} ${JSON.stringify(p)} overlaps ${b} ${JSON.stringify(q)}`);
    }
  }
  // The status panel (connection, ticks, the absence line) is never cut; on a window this size
  // or larger no panel is (a shorter window scrolls the bottom row inside itself).
  assert.equal(rects.status.scrolls, false, `${what}: the status panel is cut`);
}

for (const game of GAMES) {
  // One player page per size, one after another, all from loopback: the harness's server gives
  // the address room for every page's kept seat (startTandemServe).
  const env = tandemServeAndBrowser(launchChromium, { game });
  describe(`the HUD fits the window (${game})`, { skip: env.skip }, () => layoutTests(env, game));
}

function layoutTests(env, game) {
  for (const size of SIZES) {
    const [width, height] = size;
    test(`${width}x${height}: no two panels overlap and none leaves the window, live and with the longest text (help open too)`, async () => {
      const page = await openDemo(env.browser.context, env.server.origin);
      await page.setViewportSize({ width, height });
      await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 0, null, { timeout: 15_000 });
      await page.waitForTimeout(300);   // the HUD's text is redrawn ten times a second
      const live = await page.evaluate(RECTS);
      await screenshot(page, `layout-${game}-${width}x${height}`);
      assertFits(live, size, `${width}x${height}, live`);
      await page.evaluate(LONGEST);
      const longest = await page.evaluate(RECTS);
      await screenshot(page, `layout-${game}-${width}x${height}-longest`);
      assertFits(longest, size, `${width}x${height}, the longest text`);
      await page.evaluate(() => { document.getElementById('help').open = true; });
      const open = await page.evaluate(RECTS);
      await screenshot(page, `layout-${game}-${width}x${height}-help-open`);
      assertFits(open, size, `${width}x${height}, the help open`);
      console.log(`# ${game} ${width}x${height}: ${Object.entries(open).map(([id, r]) => `${id} ${Math.round(r.right - r.left)}x${Math.round(r.bottom - r.top)}${r.scrolls ? ' (scrolls)' : ''}`).join(', ')}`);
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  }
}
