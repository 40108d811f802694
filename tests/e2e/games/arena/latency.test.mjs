// Input latency as a person sees it: a mouse click on the page (which steers) to the first
// animation frame in which the own well has visibly moved toward the new target, predicted (the
// default for a player) against ?lockstep, in Chromium against the real `tandem serve` with a
// 100 ms round trip put between them by a delaying WebSocket proxy (lib/delay-proxy.mjs).
// TANDEM_E2E_LATENCY_SAMPLES=N takes N clicks per mode instead of 4 (a longer measurement). The
// arena's own test: ships' is tests/e2e/games/ships/latency.test.mjs.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadavg } from 'node:os';
import { launchChromium } from '../../lib/chromium.mjs';
import { startDelayProxy } from '../../lib/delay-proxy.mjs';
import { tandemServeAndBrowser } from '../../lib/harness.mjs';
import { measureClicks, STARTED_UNITS } from './click-latency.mjs';

const ONE_WAY_MS = 50;
const SAMPLES = Number(process.env.TANDEM_E2E_LATENCY_SAMPLES ?? 4);
// Predicted must beat lockstep by this much at the median: a round trip and the room's input
// delay (2 ticks) stand between a steer and the confirmed world, so lockstep needs at least
// about 133 ms more than a prediction applying the steer on the next step.
const MARGIN_MS = 50;

// TANDEM_E2E_LATENCY_QUERY=&session=main measures the session on the page's main thread
// instead of in its worker (docs/performance.md compares the two).
const EXTRA_QUERY = process.env.TANDEM_E2E_LATENCY_QUERY ?? '';

const env = tandemServeAndBrowser(launchChromium, { game: 'arena' });
const { skip } = env;
let proxy = null;   // started by the test (the harness's hooks have started the server by then)
after(async () => { await proxy?.close(); });

const quantile = (values, q) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
};

/** Clicks SAMPLES times and returns the click -> first moved frame times (ms). */
function measure(lockstep) {
  const query = `?server=${encodeURIComponent(proxy.url)}${lockstep ? '&lockstep' : ''}${EXTRA_QUERY}`;
  return measureClicks(env.browser.context, env.server.origin, query, SAMPLES);
}

test('a click moves the own well on screen at least 50 ms sooner predicted than ?lockstep (100 ms round trip, Chromium, tandem serve)', { skip, timeout: 240_000 }, async () => {
  proxy = await startDelayProxy({ upstream: `ws://127.0.0.1:${env.server.port}/ws`, oneWayMs: ONE_WAY_MS });
  const predicted = await measure(false);
  const lockstep = await measure(true);
  const p = predicted.figures.prediction;
  assert.ok(p, 'the default page predicts');
  assert.equal(lockstep.figures.prediction, null, '?lockstep does not');
  const startedRow = (name, r) => `${name}: ${r.starts.map((x) => `${x.frames} frames ${x.ms.toFixed(0)} ms`).join(', ')}`;
  const row = (name, r) => `${name}: median ${quantile(r.times, 0.5).toFixed(0)} ms, p99 ${quantile(r.times, 0.99).toFixed(0)} ms (${r.times.map((t) => t.toFixed(0)).join(' ')}; page ready in ${r.openMs.toFixed(0)} ms, rest waits ${r.settled.map((t) => t.toFixed(0)).join(' ')} ms)`;
  console.log(`# click -> first moved frame, ${SAMPLES} clicks each, ${2 * ONE_WAY_MS} ms round trip, load average ${loadavg()[0].toFixed(1)}`);
  console.log(`# ${row('predicted', predicted)}; depth ${p.depthTicks} ticks (target ${p.targetDepthTicks}), rollbacks ${p.rollbacks}, budget cuts ${p.budgetCuts}`);
  console.log(`# ${row('lockstep', lockstep)}`);
  console.log(`# click -> first frame drawing the well started toward the point (${STARTED_UNITS} unit): ${startedRow('predicted', predicted)}; ${startedRow('lockstep', lockstep)}`);
  assert.ok(quantile(predicted.times, 0.5) < quantile(lockstep.times, 0.5) - MARGIN_MS,
    `predicted median ${quantile(predicted.times, 0.5)} ms is not ${MARGIN_MS} ms under lockstep's ${quantile(lockstep.times, 0.5)} ms`);
  for (const r of [predicted, lockstep]) assert.deepEqual(r.figures.verification.mismatches, [], 'no digest mismatch');
});
