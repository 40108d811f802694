// The README's picture of the demo as it runs (docs/demo-page.png): the page against `tandem
// serve` in Chromium at 1280x720, predicting (a player's default), a second player (a Node
// client) steering once a second beside it, the own well steered by clicks, left playing long enough for the
// digest strip and the plots to fill. Returns what the page showed when the picture was taken,
// so the caller can refuse a picture from a machine too loaded to show the demo as it runs.
// Shared by tests/e2e/take-screenshot.mjs (writes the README's picture) and
// tests/e2e/readme-picture.test.mjs (the same picture, as a test artifact).
import { loadavg } from 'node:os';
import { openDemo, sleep } from './harness.mjs';
import { startNodePlayer } from './node-player.mjs';

export const PICTURE_SIZE = { width: 1280, height: 720 };

// What a picture of the demo as it runs must show, on a machine quiet enough to show it: every
// digest agreed, prediction on, two players, no more than two ticks behind the server, nothing
// jumped over, the loopback round trip of a quiet machine, and a page that is not a slideshow
// (headless Chromium draws with software WebGL here, 10-18 frames a second under load).
export const QUIET = { lagTicks: 2, fps: 10, rttMs: 20 };

/**
 * Takes the picture into `path`. `playMs`: how long the page plays first (the strip spans 10 s).
 * @returns {Promise<{shown: object, load: number[]}>} what the page showed when it was taken
 */
export async function takeDemoPicture(context, server, path, { playMs = 20_000 } = {}) {
  // The other player steers once a second, as a person might: the prediction row shows its
  // corrections without the storm of one steering every tick.
  const other = await startNodePlayer({ url: `ws://127.0.0.1:${server.port}/ws`, commandEveryTicks: 60 });
  // At full resolution, as a person's GPU draws it: the headless browser here draws WebGL in
  // software, slowly enough that the view would halve its resolution (and say so in the HUD).
  const page = await openDemo(context, server.origin, '?full-resolution');
  try {
    await page.setViewportSize(PICTURE_SIZE);
    await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 60, null, { timeout: 30_000 });
    const box = await page.locator('#stage canvas').boundingBox();
    // The own well steered to a few points around the middle of the arena while the page plays.
    const spots = [[0.62, 0.55], [0.45, 0.45], [0.55, 0.62], [0.5, 0.5]];
    for (const [fx, fy] of spots) {
      await page.mouse.click(box.x + box.width * fx, box.y + box.height * fy);
      await sleep(playMs / spots.length);
    }
    await page.evaluate(() => window.__tandem.resetFrames());
    await sleep(3000);
    // The HUD's text is redrawn ten times a second: the figures read and the picture are of
    // the same moment within that.
    const shown = await page.evaluate(() => {
      const f = window.__tandem.figures();
      const frames = window.__tandem.frames();
      return { verifiedTicks: f.verification.verifiedTicks, mismatches: f.verification.mismatches.length, lagTicks: f.lagTicks,
        droppedMs: f.droppedMs, rttMs: f.rttMs, predicting: f.prediction?.active === true, players: window.__tandem.players().length,
        connection: f.connection.state, fps: frames.frames / 3, drawn: window.__tandem.drawn().kind,
        hud: { lag: document.getElementById('lag').textContent, rtt: document.getElementById('rtt').textContent } };
    });
    await page.screenshot({ path });
    return { shown, load: loadavg() };
  } finally {
    await page.close();
    await other.close();
  }
}

/** Why a picture does not show the demo as it runs on a quiet machine ([] when it does). */
export function notAsItRuns(shown) {
  const why = [];
  if (shown.mismatches > 0) why.push(`${shown.mismatches} digest mismatches`);
  if (!shown.predicting) why.push('the page was not predicting');
  if (shown.players < 2) why.push(`${shown.players} player(s) in the room`);
  if (shown.connection !== 'open') why.push(`the connection was ${shown.connection}`);
  if (shown.drawn !== 'webgl') why.push(`the ${shown.drawn} view, not the 3D one`);
  if (shown.lagTicks === null || shown.lagTicks > QUIET.lagTicks) why.push(`lag ${shown.lagTicks} ticks (at most ${QUIET.lagTicks})`);
  if (shown.droppedMs > 0) why.push(`${shown.droppedMs} ms of world time jumped over`);
  if (shown.fps < QUIET.fps) why.push(`${shown.fps.toFixed(1)} frames a second (at least ${QUIET.fps})`);
  if (shown.rttMs === null || shown.rttMs > QUIET.rttMs) why.push(`a round trip of ${shown.rttMs} ms on loopback (at most ${QUIET.rttMs})`);
  return why;
}
