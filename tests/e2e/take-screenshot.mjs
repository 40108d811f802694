// Takes the README's picture of the live demo (docs/demo-page.png) with the e2e harness:
// `tandem serve` (build/native) with web/ and the package, Chromium at 1280x720, the page
// predicting beside a second player, left playing 20 s with its own well steered
// (lib/demo-picture.mjs). It writes the picture only when it shows the demo as it runs on a
// quiet machine (every digest agreed, at most 2 ticks of lag, 10 frames a second or more, a
// loopback round trip under 20 ms); otherwise it says why, keeps the picture aside in
// build/test-artifacts/e2e/demo-page-rejected.png and exits 1. Run it on a quiet machine:
//   node tests/e2e/take-screenshot.mjs [OUT.png]     (default docs/demo-page.png)
import { mkdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchChromium } from './lib/chromium.mjs';
import { notAsItRuns, takeDemoPicture } from './lib/demo-picture.mjs';
import { artifactsDir, repoRoot, startTandemServe } from './lib/harness.mjs';

const args = process.argv.slice(2);
if (args.length > 1 || (args.length === 1 && (args[0].startsWith('-') || !args[0].endsWith('.png')))) {
  console.error('usage: node tests/e2e/take-screenshot.mjs [OUT.png]   (one optional path ending in .png; default docs/demo-page.png)');
  process.exit(2);
}
const out = resolve(args[0] ?? join(repoRoot, 'docs/demo-page.png'));
mkdirSync(artifactsDir, { recursive: true });
const taken = join(artifactsDir, 'demo-page-taken.png');

const server = await startTandemServe();
const chromium = await launchChromium();
let why;
try {
  const { shown, load } = await takeDemoPicture(chromium.context, server, taken);
  console.log(`the page showed: ${JSON.stringify(shown)}; load average ${load.map((x) => x.toFixed(2)).join(' ')}`);
  why = notAsItRuns(shown);
} finally {
  await chromium.close();
  await server.close();
}
if (why.length > 0) {
  const rejected = join(artifactsDir, 'demo-page-rejected.png');
  renameSync(taken, rejected);
  console.error(`not written to ${out}: the picture does not show the demo as it runs (${why.join('; ')}). ` +
    `Take it on a quiet machine; this one is kept as ${rejected}.`);
  process.exit(1);
}
renameSync(taken, out);
console.log(`wrote ${out}`);
