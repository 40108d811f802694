// The arena's plugin in headless Chromium (attached over CDP), over the page's offline room and
// its ?scenario mode: every pellet of the world drawn as one instanced mesh, and a click on the
// ground steering the person's well toward the point under the pointer (its command's target),
// and the 3D view's resolution following its frame rate.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { launchChromium } from '../../lib/chromium.mjs';
import { openDemo, pageState, serverAndBrowser, sleep } from '../../lib/harness.mjs';

const env = serverAndBrowser(launchChromium);

describe('the arena\'s view in Chromium', () => {
  for (const [query, pellets] of [['?offline', 1024], ['?offline&pellets=4096', 4096], ['?scenario=orbits', 4096]]) {
    test(`draws every pellet of the world as one instanced mesh (${query || 'default'}: ${pellets})`, async () => {
      const page = await openDemo(env.browser.context, env.server.origin, query);
      const state = await pageState(page);
      assert.equal(state.view.counts.pellets, pellets, 'pellets in the render view');
      assert.equal(state.drawn.kind, 'webgl', 'the 3D view (Chromium has WebGL through SwiftShader)');
      assert.equal(state.drawn.pellets, pellets, 'instances drawn');
      // three.js's own count of what reached WebGL: one octahedron (8 triangles) per pellet at least.
      assert.ok(state.drawn.triangles >= pellets * 8, `triangles drawn: ${state.drawn.triangles}`);
      assert.equal(state.loopFailure, null);
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  }

  // The offline mode's room and session both step the world in the tab: on a loaded machine a
  // steer takes seconds to come back confirmed, hence the 30 s.
  test('a click on the arena steers my well toward the point under the pointer', async () => {
    const page = await openDemo(env.browser.context, env.server.origin, '?offline');
    const box = await page.locator('#stage canvas').boundingBox();
    // The camera looks at the arena's centre (512, 512) from the +z side, so the middle of the
    // canvas is the centre give or take the ground plane's height (a few units toward +z).
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.mouse.click(centre.x, centre.y);
    await page.waitForFunction(() => {
      const v = window.__tandem.view();
      const me = v.lists.wells?.find((w) => w.player === v.me);
      return me && Math.abs(me['target.x'] - 512) < 30 && Math.abs(me['target.y'] - 512) < 40;
    }, null, { timeout: 30_000 });
    // A point a third of the way to the right edge must steer to the right of the centre.
    await page.mouse.click(centre.x + box.width / 6, centre.y);
    await page.waitForFunction(() => {
      const v = window.__tandem.view();
      return v.lists.wells.find((w) => w.player === v.me)['target.x'] > 600;
    }, null, { timeout: 30_000 });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  // Chromium here draws WebGL in software (SwiftShader: about 15 frames a second at full
  // resolution), so the view lowers its resolution; with a GPU it would stay full. Either way the
  // canvas holds the pixels its scale says, the HUD's note matches the scale, and frames that
  // came slowly at full resolution were answered with a lower one.
  for (const query of ['?offline', '?offline&full-resolution']) {
    test(`the 3D view draws fewer pixels while its frames come slowly and says so; ?full-resolution keeps it full (${query})`, async () => {
      const page = await openDemo(env.browser.context, env.server.origin, query);
      await page.waitForFunction(() => window.__tandem.drawn()?.kind === 'webgl', null, { timeout: 30_000 });
      await page.evaluate(() => window.__tandem.resetFrames());
      // Three windows of 24 frames at 15 a second, and then some.
      await sleep(7000);
      const s = await page.evaluate(() => {
        const canvas = window.__tandem.parts.renderer.canvas;
        const note = document.getElementById('notice');
        return { scale: window.__tandem.drawn().resolution, width: canvas.width, cssWidth: canvas.clientWidth, dpr: Math.min(window.devicePixelRatio, 2),
          gaps: window.__tandem.frameGaps(), notice: note.hidden ? null : note.textContent };
      });
      assert.equal(s.width, Math.floor(s.cssWidth * s.dpr * s.scale), `the canvas's pixels at scale ${s.scale}`);
      if (s.scale < 1) assert.match(s.notice, new RegExp(`^Frames came \\d+ a second here: the 3D view draws at ${s.scale * 100}% resolution`));
      else assert.equal(s.notice, null);
      if (query.includes('full-resolution')) assert.equal(s.scale, 1);
      else {
        // The first window's frames: at full resolution, unless it had been lowered already.
        const first = s.gaps.slice(0, 24).sort((a, b) => a - b)[12];
        if (first > 40) assert.ok(s.scale < 1, `frames ${first} ms apart at the median, yet full resolution`);
      }
      assert.equal(await page.evaluate(() => window.__tandem.loopFailure()), null);
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  }
});
