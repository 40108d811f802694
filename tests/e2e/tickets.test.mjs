// A room that requires tickets, in the browser: `tandem serve --ticket-key FILE --room e2e`
// (build/native) with the demo page and the wasm package, in headless Chromium. A page opened
// with ?ticket= (what `tandem ticket` printed, as a lobby would hand it over) plays and verifies;
// a page without one is refused with ticket_missing, shows it, and does not ask again (a ticket
// cannot be cured by retrying). What is asserted comes from the page's own session figures and
// from the server's /metrics.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { launchChromium } from './lib/chromium.mjs';
import { openDemo, serverAndBrowser, sleep, startTandemServe, tandemBinary, unlessNoTandem } from './lib/harness.mjs';

const key = join(mkdtempSync(join(tmpdir(), 'tandem-e2e-tickets-')), 'ticket.key');
writeFileSync(key, randomBytes(32).toString('hex') + '\n');
const skip = unlessNoTandem();
const env = serverAndBrowser(launchChromium,
  () => startTandemServe({ args: ['--ticket-key', key, '--room', 'e2e', '--pellets', '256'] }), skip);
const sessionFigures = (page) => page.evaluate(() => window.__tandem.figures().session);

test('a page opened with ?ticket= plays and verifies in a room that requires tickets', { skip }, async () => {
  const ticket = execFileSync(tandemBinary, ['ticket', '--ticket-key', key, '--room', 'e2e', '--role', 'play'], { encoding: 'utf8' }).trim();
  const page = await openDemo(env.browser.context, env.server.origin, `?ticket=${ticket}`);
  try {
    await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) >= 60, null, { timeout: 30_000 });
    const figures = await page.evaluate(() => window.__tandem.figures());
    assert.deepEqual(figures.verification.mismatches, []);
    assert.equal(figures.session.error, null);
    assert.ok(figures.session.player >= 1, `playing as ${figures.session.player}`);
    assert.deepEqual(page.problems, []);
  } finally {
    await page.close();
  }
});

test('a page without a ticket is refused with ticket_missing, says so, and does not retry', { skip }, async () => {
  const page = await openDemo(env.browser.context, env.server.origin, '');
  try {
    await page.waitForFunction(() => window.__tandem.figures().session?.error?.code === 'ticket_missing', null, { timeout: 30_000 });
    const refusals = async () => (await env.server.metrics())['tandem_room_refusals_total{code="ticket_missing"}'];
    const first = await refusals();
    await sleep(3000);
    assert.equal(await refusals(), first, 'the page asked again after a refusal retrying cannot cure');
    assert.equal((await sessionFigures(page)).verifiedTicks ?? 0, 0);
  } finally {
    await page.close();
  }
});
