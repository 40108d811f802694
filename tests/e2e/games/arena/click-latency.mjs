// A click's way to the screen, as a person sees it: from a mouse click on the demo page (which
// steers) to the first animation frame in which the own well has visibly moved toward the new
// target: the arena's input latency. Shared by latency.test.mjs here (predicted against
// ?lockstep) and tests/e2e/page-figures.mjs (the figure, with more clicks, in Chromium and Firefox).
import assert from 'node:assert/strict';
import { evaluate, navigate, waitFor } from '../../lib/firefox.mjs';
import { openDemo } from '../../lib/harness.mjs';

// "Visibly moved": the drawn well (as the renderer places it: prev + (x - prev) * alpha) is
// this many arena units further toward the clicked point than where it rested at the click.
// A well from rest reaches it about 4 ticks after the steer is applied (400 units/s^2).
export const MOVED_UNITS = 1;
// "Started moving": the first frame drawing the well this far toward the point (a well from
// rest covers about 0.1 unit in the first tick after the steer; a resting well drifts under
// 0.02 a frame). Reported beside the 1-unit figure, not asserted: it is the frame count a
// person would call "at once".
export const STARTED_UNITS = 0.05;
// Resting: drawn speed under this (units/s) for REST_MS, so drift stays far below MOVED_UNITS
// while a sample lasts.
const REST_SPEED = 1;
const REST_MS = 150;
// Installed in the page: records the first steer (the arena plugin's input: a point in arena
// units) after arm(), reads the own well as drawn, waits for it to rest, and watches it move.
function installProbe() {
  const adapter = window.__tandem.parts.adapter;
  const steer = adapter.sendInput.bind(adapter);
  const probe = { armed: false, steerAt: null, point: null, rest: null, result: null };
  adapter.sendInput = (point) => {
    if (probe.armed && probe.steerAt === null) {
      probe.steerAt = performance.now();
      probe.point = { x: point.x, y: point.y };
    }
    return steer(point);
  };
  const frame = () => new Promise((ok) => requestAnimationFrame(ok));
  // The own well as the renderer places it: prev + (x - prev) * alpha, from the drawn columns.
  probe.drawn = () => {
    const v = adapter.renderView();
    const now = v.current?.lists.wells;
    if (!now) return null;
    const i = Array.from(now.columns.player).indexOf(v.me);
    if (i < 0) return null;
    const c = now.columns;
    const before = v.previous?.lists.wells;
    const j = before ? Array.from(before.columns.player).indexOf(v.me) : -1;
    const x = c['pos.x'][i];
    const y = c['pos.y'][i];
    const px = j >= 0 ? before.columns['pos.x'][j] : x;
    const py = j >= 0 ? before.columns['pos.y'][j] : y;
    const a = v.alpha ?? 1;
    return { x: px + (x - px) * a, y: py + (y - py) * a, targetX: c['target.x'][i], targetY: c['target.y'][i], tick: v.tick };
  };
  // Rest: the world drawn has the last steer (its target is the one sent back to; in lockstep
  // that takes a round trip), the well sits on its target and has moved slower than restSpeed
  // for restMs and for 10 ticks of the world drawn (a loaded page may draw frames in which the
  // world did not move on: those prove nothing).
  probe.settle = async (restSpeed, restMs, timeoutMs) => {
    const start = performance.now();
    let last = probe.drawn();
    let lastAt = performance.now();
    let stillSince = null;
    let stillTick = null;
    let seen = null;
    while (performance.now() - start < timeoutMs) {
      await frame();
      const now = performance.now();
      const d = probe.drawn();
      const landed = probe.rest === null || (d && Math.abs(d.targetX - probe.rest.x) < 0.01 && Math.abs(d.targetY - probe.rest.y) < 0.01);
      const onTarget = d && Math.hypot(d.x - d.targetX, d.y - d.targetY) < 0.3;
      seen = { drawn: d, landed, onTarget, rest: probe.rest };
      if (d && last && landed && onTarget) {
        const speed = Math.hypot(d.x - last.x, d.y - last.y) / Math.max(1e-3, (now - lastAt) / 1000);
        seen.speed = speed;
        if (speed < restSpeed) {
          stillSince ??= now;
          stillTick ??= d.tick;
          if (now - stillSince >= restMs && d.tick - stillTick >= 10) return { x: d.x, y: d.y, waitedMs: now - start };
        } else {
          stillSince = null;
          stillTick = null;
        }
      } else {
        stillSince = null;
        stillTick = null;
      }
      last = d;
      lastAt = now;
    }
    return { failed: seen };
  };
  probe.arm = (movedUnits, startedUnits, timeoutMs) => {
    probe.rest = probe.drawn();
    probe.steerAt = null;
    probe.result = null;
    probe.armed = true;
    let frames = 0;
    let started = null;
    const watch = () => {
      const now = performance.now();
      if (probe.steerAt !== null) {
        ++frames;
        const d = probe.drawn();
        const dx = probe.point.x - probe.rest.x;
        const dy = probe.point.y - probe.rest.y;
        const len = Math.hypot(dx, dy);
        const along = len > 0 ? ((d.x - probe.rest.x) * dx + (d.y - probe.rest.y) * dy) / len : 0;
        if (started === null && along >= startedUnits) started = { ms: now - probe.steerAt, frames };
        if (along >= movedUnits) {
          probe.armed = false;
          probe.result = { ms: now - probe.steerAt, frames, distance: len, started };
          return;
        }
        if (now - probe.steerAt > timeoutMs) {
          probe.armed = false;
          probe.result = { ms: null, frames, distance: len };
          return;
        }
      }
      requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  };
  // Back to where it rested (the steer is the exact point, so the target is found again),
  // so the next sample starts from rest soon.
  probe.back = () => steer({ x: probe.rest.x, y: probe.rest.y });
  window.__probe = probe;
}

/**
 * Opens the demo at `query` in `context` (Playwright's, Chromium) and clicks `samples` times,
 * each time once the own well rests; resolves with the click -> first moved frame times (ms),
 * the first frames drawing it started, the page's figures and what its renderer drew after the
 * last, the rest waits and the time the page took to open.
 */
export async function measureClicks(context, origin, query, samples) {
  const opening = performance.now();
  const page = await openDemo(context, origin, query);
  return clickSamples({
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    waitFor: async (fn, arg, timeoutMs) => (await page.waitForFunction(fn, arg, { timeout: timeoutMs })).jsonValue(),
    click: (x, y) => page.mouse.click(x, y),
    close: () => page.close(),
  }, samples, opening);
}

/**
 * The same in Firefox, over WebDriver BiDi (lib/firefox.mjs: `firefox` is launchFirefox()'s):
 * the demo opened in its tab, the clicks made with input.performActions.
 */
export async function measureClicksFirefox(firefox, origin, query, samples) {
  const { bidi, tab } = firefox;
  const run = (fn, arg) => `(${fn})(${JSON.stringify(arg ?? null)})`;
  const opening = performance.now();
  await navigate(bidi, tab, `${origin}/${query}`);
  // As openDemo: the page's parts run, and its view (which steers) has loaded and drawn.
  await waitFor(bidi, tab, 'window.__tandem?.ready || window.__tandem?.error', 30_000);
  const error = await evaluate(bidi, tab, 'window.__tandem.error');
  if (error !== null) throw new Error(`the page failed to start: ${error}`);
  await waitFor(bidi, tab, 'window.__tandem.drawn().kind !== "loading" && window.__tandem.frames().frames >= 3', 30_000);
  return clickSamples({
    evaluate: (fn, arg) => evaluate(bidi, tab, run(fn, arg)),
    waitFor: (fn, arg, timeoutMs) => waitFor(bidi, tab, run(fn, arg), timeoutMs),
    click: (x, y) => bidi.send('input.performActions', {
      context: tab,
      actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' },
        actions: [{ type: 'pointerMove', x: Math.round(x), y: Math.round(y) }, { type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }] }],
    }),
    close: () => navigate(bidi, tab, 'about:blank'),
  }, samples, opening);
}

// The clicks, through a driver of the open page: evaluate(fn, arg) and waitFor(fn, arg, timeoutMs)
// run `fn` in the page (waitFor until it returns a truthy value, which it resolves with),
// click(x, y) clicks at a viewport point, close() leaves the page.
async function clickSamples(driver, samples, opening) {
  try {
    await driver.waitFor(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 30, null, 30_000);
    const openMs = performance.now() - opening;
    await driver.evaluate(installProbe);
    const box = await driver.evaluate(() => {
      const r = window.__tandem.parts.renderer.canvas.getBoundingClientRect();
      return { left: r.left, top: r.top, width: r.width, height: r.height };
    });
    // Two points either side of the middle of the canvas: the one further from the well is clicked.
    const spots = [0.3, 0.7].map((fx) => ({ x: box.left + box.width * fx, y: box.top + box.height * 0.55 }));
    const times = [];
    const starts = [];   // the first frame drawing the well started toward the point: {ms, frames}
    const settled = [];
    for (let i = 0; i < samples; ++i) {
      const rest = await driver.evaluate(([speed, ms]) => window.__probe.settle(speed, ms, 20_000), [REST_SPEED, REST_MS]);
      assert.ok(rest && !rest.failed, `the own well comes to rest within 20 s (sample ${i}: ${JSON.stringify(rest)})`);
      settled.push(rest.waitedMs);
      const targets = await driver.evaluate((s) => s.map((p) => window.__tandem.parts.renderer.inner.arenaPointAt(p.x, p.y)), spots);
      const far = targets.map((t) => (t ? Math.hypot(t.x - rest.x, t.y - rest.y) : -1));
      const spot = spots[far[0] >= far[1] ? 0 : 1];
      assert.ok(Math.max(...far) >= 50, `a click lands at least 50 units from the well (${far})`);
      await driver.evaluate(([moved, started]) => window.__probe.arm(moved, started, 5000), [MOVED_UNITS, STARTED_UNITS]);
      await driver.click(spot.x, spot.y);
      const result = await driver.waitFor(() => window.__probe.result, null, 15_000);
      assert.ok(result.ms !== null, `the well moved within 5 s of the click (${JSON.stringify(result)})`);
      times.push(result.ms);
      starts.push(result.started);
      await driver.evaluate(() => window.__probe.back());
    }
    const [figures, drawn] = await driver.evaluate(() => [window.__tandem.figures(), window.__tandem.drawn()]);
    return { times, starts, figures, drawn, settled, openMs };
  } finally {
    await driver.close();
  }
}
