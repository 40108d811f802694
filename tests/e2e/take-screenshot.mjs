// Takes the README's picture of the live demo with the e2e harness: `tandem serve`
// (build/native) with web/ and the package, Chromium at 1280x800, the page left playing for a
// few seconds with the person's well steered, then one PNG.
// Usage: node tests/e2e/take-screenshot.mjs [OUT.png] [QUERY]   (default docs/demo-page.png)
import { join, resolve } from 'node:path';
import { launchChromium } from './lib/chromium.mjs';
import { openDemo, repoRoot, sleep, startTandemServe } from './lib/harness.mjs';

const out = resolve(process.argv[2] ?? join(repoRoot, 'docs/demo-page.png'));
const query = process.argv[3] ?? '';

const server = await startTandemServe();
const chromium = await launchChromium();
try {
  const page = await openDemo(chromium.context, server.origin, query);
  const box = await page.locator('#arena canvas').boundingBox();
  // Steer toward a point right of the centre so the well is seen moving among the pellets.
  await page.mouse.click(box.x + box.width * 0.62, box.y + box.height * 0.55);
  await sleep(10000);
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await chromium.close();
  await server.close();
}
