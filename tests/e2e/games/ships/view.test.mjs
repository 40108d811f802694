// ships' plugin in headless Chromium (attached over CDP), over the page's offline room (the
// tests' static server serves ships' package): the field drawn from the view (every live ship,
// bullet and rock of it), the keyboard's held buttons becoming the ship's command (the state's
// own `buttons` of my ship, as the predicted state holds it at once and the verified one a
// round trip later), released on key up, and the touch buttons doing the same.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { launchChromium } from '../../lib/chromium.mjs';
import { openDemo, pageState, serverAndBrowser, startServer } from '../../lib/harness.mjs';

const env = serverAndBrowser(launchChromium, () => startServer({ game: 'ships' }));

// ships' buttons (src/games/ships/include/ships/world.hpp, Button): the reference, written out.
const THRUST = 1;
const TURN_LEFT = 2;
const FIRE = 8;

/** My ship's held buttons in the drawn (predicted) state, or null before it exists. */
const myButtons = (page) => page.evaluate(() => {
  const v = window.__tandem.view();
  return v.lists.ships?.find((s) => s.player === v.me)?.buttons ?? null;
});

describe('ships\' view in Chromium', () => {
  test('draws the field: every live ship, bullet and rock of the drawn state', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline');
    await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 30, null, { timeout: 30_000 });
    const state = await pageState(page);
    assert.equal(state.drawn.kind, '2d');
    assert.equal(state.view.counts.ships, 4, 'me and three bots');
    assert.ok(state.view.counts.rocks > 0, 'the first wave of rocks');
    assert.equal(state.drawn.rocks, state.view.counts.rocks, 'every rock drawn');
    const alive = state.view.lists.ships.filter((s) => s.alive).length;
    assert.equal(state.drawn.ships, alive, 'every live ship drawn');
    assert.equal(state.drawn.bullets, state.view.counts.bullets, 'every bullet drawn');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('held keys are my ship\'s buttons, sent on every change and released on key up', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline');
    await page.waitForFunction(() => window.__tandem.view().lists.ships?.some((s) => s.player === window.__tandem.view().me), null, { timeout: 30_000 });
    assert.equal(await myButtons(page), 0, 'nothing held at first');
    await page.keyboard.down('ArrowUp');
    await page.keyboard.down('Space');
    await page.waitForFunction((want) => {
      const v = window.__tandem.view();
      return v.lists.ships.find((s) => s.player === v.me)?.buttons === want;
    }, THRUST | FIRE, { timeout: 30_000 });
    // The verified state has it too, once the room applied it: the same command, confirmed.
    await page.waitForFunction(() => (window.__tandem.figures().session.inputsApplied ?? 0) >= 1, null, { timeout: 30_000 });
    await page.keyboard.up('ArrowUp');
    await page.keyboard.up('Space');
    await page.keyboard.down('KeyA');
    await page.waitForFunction((want) => {
      const v = window.__tandem.view();
      return v.lists.ships.find((s) => s.player === v.me)?.buttons === want;
    }, TURN_LEFT, { timeout: 30_000 });
    await page.keyboard.up('KeyA');
    await page.waitForFunction(() => {
      const v = window.__tandem.view();
      return v.lists.ships.find((s) => s.player === v.me)?.buttons === 0;
    }, null, { timeout: 30_000 });
    const f = await page.evaluate(() => window.__tandem.figures());
    assert.deepEqual(f.verification.mismatches, []);
    assert.ok(f.session.inputsSent >= 4, `${f.session.inputsSent} commands sent`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('the touch buttons hold what they name while pressed', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline');
    await page.waitForFunction(() => window.__tandem.view().lists.ships?.some((s) => s.player === window.__tandem.view().me), null, { timeout: 30_000 });
    await page.evaluate(() => { document.querySelector('.touch-pad').hidden = false; });
    const fire = page.locator('.touch-pad button').nth(2);
    const box = await fire.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.waitForFunction((want) => {
      const v = window.__tandem.view();
      return v.lists.ships.find((s) => s.player === v.me)?.buttons === want;
    }, FIRE, { timeout: 30_000 });
    await page.mouse.up();
    await page.waitForFunction(() => {
      const v = window.__tandem.view();
      return v.lists.ships.find((s) => s.player === v.me)?.buttons === 0;
    }, null, { timeout: 30_000 });
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
