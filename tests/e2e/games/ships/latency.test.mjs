// Input latency in ships as a person sees it: a key press (turn left) to the first animation
// frame in which the own ship is drawn turned, predicted (the default for a player) against
// ?lockstep, in Chromium against the real `tandem serve --game ships` with a 100 ms round trip
// put between them by a delaying WebSocket proxy (lib/delay-proxy.mjs). The turn is the input
// whose effect shows on the first step: a ship turns by its turn rate per tick from rest, with
// no momentum to wait out (thrust would take ticks to move it a visible distance). The key is
// released after each sample, and the next one starts once the heading is still again.
// A drifting rock can destroy the ship while a sample runs: the ship is then drawn dead for
// respawn_delay ticks (2 s) and placed again with another heading, which is no turn at all.
// Such a sample is void and taken again (the ship drawn dead before it was drawn turned: it
// stays dead for 2 s, so no frame misses it); so is one whose ship was not alive at the press.
// TANDEM_E2E_LATENCY_SAMPLES=N takes N presses per mode instead of 4 (a longer measurement).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadavg } from 'node:os';
import { launchChromium } from '../../lib/chromium.mjs';
import { startDelayProxy } from '../../lib/delay-proxy.mjs';
import { openDemo, tandemServeAndBrowser } from '../../lib/harness.mjs';

const ONE_WAY_MS = 50;
const SAMPLES = Number(process.env.TANDEM_E2E_LATENCY_SAMPLES ?? 4);
// "Visibly turned": the drawn heading (as the renderer blends it) this many radians from where
// it rested at the press; a turn is about 0.1 rad a tick at ships' defaults.
const TURNED_RAD = 0.05;
// Still: the drawn heading unchanged (within 1e-4 rad) for this long and 5 ticks of the state drawn.
const STILL_MS = 150;
// Predicted must beat lockstep by this much at the median: a round trip and the room's input
// delay stand between a press and the confirmed state.
const MARGIN_MS = 50;

const env = tandemServeAndBrowser(launchChromium, { game: 'ships' });
const { skip } = env;
let proxy = null;
after(async () => { await proxy?.close(); });

// Installed in the page: stamps the first input after arm() (ships' input is its command, the
// buttons held), reads the own ship's heading as drawn, waits for it to be still, and watches it turn.
function installProbe() {
  const adapter = window.__tandem.parts.adapter;
  const send = adapter.sendInput.bind(adapter);
  const probe = { armed: false, sentAt: null, result: null };
  adapter.sendInput = (input) => {
    if (probe.armed && probe.sentAt === null && input.buttons !== 0) probe.sentAt = performance.now();
    return send(input);
  };
  const frame = () => new Promise((ok) => requestAnimationFrame(ok));
  probe.drawn = () => {
    const v = adapter.renderView();
    const now = v.current?.lists.ships;
    if (!now) return null;
    const i = Array.from(now.columns.player).indexOf(v.me);
    if (i < 0 || !now.columns.alive[i]) return null;
    const before = v.previous?.lists.ships;
    const j = before ? Array.from(before.columns.player).indexOf(v.me) : -1;
    const h = now.columns.heading[i];
    const p = j >= 0 ? before.columns.heading[j] : h;
    const turn = Math.atan2(Math.sin(h - p), Math.cos(h - p));
    return { heading: p + turn * (v.alpha ?? 1), tick: v.tick };
  };
  probe.still = async (timeoutMs) => {
    const start = performance.now();
    let last = null;
    let since = null;
    let sinceTick = null;
    while (performance.now() - start < timeoutMs) {
      await frame();
      const d = probe.drawn();
      if (d && last && Math.abs(Math.atan2(Math.sin(d.heading - last.heading), Math.cos(d.heading - last.heading))) < 1e-4) {
        since ??= performance.now();
        sinceTick ??= d.tick;
        if (performance.now() - since >= probe.stillMs && d.tick - sinceTick >= 5) return { heading: d.heading, waitedMs: performance.now() - start };
      } else {
        since = null;
        sinceTick = null;
      }
      last = d;
    }
    return { failed: last };
  };
  // False when the own ship is not drawn alive now: nothing to press for.
  probe.arm = (turned, timeoutMs) => {
    const rest = probe.drawn();
    probe.sentAt = null;
    probe.result = null;
    if (rest === null) return false;
    probe.armed = true;
    let frames = 0;
    const watch = () => {
      const now = performance.now();
      if (probe.sentAt !== null) {
        ++frames;
        const d = probe.drawn();
        if (d === null) {
          probe.armed = false;
          probe.result = { void: 'the ship was destroyed during the sample', frames };
          return;
        }
        const moved = Math.abs(Math.atan2(Math.sin(d.heading - rest.heading), Math.cos(d.heading - rest.heading)));
        if (moved >= turned) {
          probe.armed = false;
          probe.result = { ms: now - probe.sentAt, frames };
          return;
        }
        if (now - probe.sentAt > timeoutMs) {
          probe.armed = false;
          probe.result = { ms: null, frames };
          return;
        }
      }
      requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
    return true;
  };
  window.__probe = probe;
}

const quantile = (values, q) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
};

// Void samples (the ship destroyed) allowed per mode before the measurement gives up: a rock
// hits a resting ship now and then, not on most presses.
const MAX_VOID = Math.max(4, SAMPLES);

/** Presses until SAMPLES samples count and returns the press -> first turned frame times (ms), and how many were void. */
async function measure(lockstep) {
  const query = `?server=${encodeURIComponent(proxy.url)}${lockstep ? '&lockstep' : ''}`;
  const page = await openDemo(env.browser.context, env.server.origin, query);
  try {
    await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 30, null, { timeout: 30_000 });
    await page.evaluate(installProbe);
    await page.evaluate((ms) => { window.__probe.stillMs = ms; }, STILL_MS);
    const times = [];
    const voided = [];
    while (times.length < SAMPLES) {
      const i = times.length;
      const rest = await page.evaluate(() => window.__probe.still(20_000));
      assert.ok(rest && !rest.failed, `the own ship is alive and still within 20 s (sample ${i}: ${JSON.stringify(rest)})`);
      if (!await page.evaluate(([turned]) => window.__probe.arm(turned, 5000), [TURNED_RAD])) {
        voided.push('the ship was not alive at the press');
      } else {
        await page.keyboard.down('KeyA');
        const result = await (await page.waitForFunction(() => window.__probe.result, null, { timeout: 15_000 })).jsonValue();
        await page.keyboard.up('KeyA');
        if (result.void) {
          voided.push(result.void);
        } else {
          assert.ok(result.ms !== null, `the ship turned within 5 s of the press (${JSON.stringify(result)})`);
          times.push(result.ms);
        }
      }
      assert.ok(voided.length <= MAX_VOID, `at most ${MAX_VOID} void samples (${voided.join('; ')})`);
    }
    return { times, voided, figures: await page.evaluate(() => window.__tandem.figures()) };
  } finally {
    await page.close();
  }
}

test('a key press turns the own ship on screen at least 50 ms sooner predicted than ?lockstep (100 ms round trip, Chromium, tandem serve --game ships)', { skip, timeout: 240_000 }, async () => {
  proxy = await startDelayProxy({ upstream: `ws://127.0.0.1:${env.server.port}/ws`, oneWayMs: ONE_WAY_MS });
  const predicted = await measure(false);
  const lockstep = await measure(true);
  assert.ok(predicted.figures.prediction, 'the default page predicts');
  assert.equal(lockstep.figures.prediction, null, '?lockstep does not');
  const row = (name, r) => `${name}: median ${quantile(r.times, 0.5).toFixed(0)} ms, p99 ${quantile(r.times, 0.99).toFixed(0)} ms (${r.times.map((t) => t.toFixed(0)).join(' ')}); ` +
    `${r.voided.length} void (the ship destroyed)`;
  console.log(`# ships: key -> first turned frame, ${SAMPLES} presses each, ${2 * ONE_WAY_MS} ms round trip, load average ${loadavg()[0].toFixed(1)}`);
  console.log(`# ${row('predicted', predicted)}; depth ${predicted.figures.prediction.depthTicks} ticks`);
  console.log(`# ${row('lockstep', lockstep)}`);
  assert.ok(quantile(predicted.times, 0.5) < quantile(lockstep.times, 0.5) - MARGIN_MS,
    `predicted median ${quantile(predicted.times, 0.5)} ms is not ${MARGIN_MS} ms under lockstep's ${quantile(lockstep.times, 0.5)} ms`);
  for (const r of [predicted, lockstep]) assert.deepEqual(r.figures.verification.mismatches, [], 'no digest mismatch');
});
