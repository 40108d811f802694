// What a long run costs in a browser against Node, side by side in one run: the same stream
// task (scenario, ticks) on the wasm package in Node, headless Chromium and headless Firefox,
// one target at a time, paced the old way (a setTimeout(0) every 64 ticks) and the new way
// (a message every 100 ms of computing; lib/wasm-tasks.mjs). Prints each time, the ratio
// browser / Node for each pacing, and whether every stream is the same.
// usage: node tests/determinism/browser-speed.mjs [SCENARIO] [TICKS]   (default crowd 300;
// needs build/wasm/package: build-scripts/build wasm)
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './lib/server.mjs';
import { makeTarget } from './lib/targets.mjs';
import { endChildrenOnExit } from './lib/util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const [scenario = 'crowd', ticksText = '300'] = process.argv.slice(2);
const ticks = Number(ticksText);
endChildrenOnExit();

let serverPromise = null;
const ctx = {
  root, logDir: join(root, 'build/determinism/logs'), noBuild: true,
  server: () => (serverPromise ??= startServer({
    pageDir: join(here, 'page'), libDir: join(here, 'lib'), packageDir: join(root, 'build/wasm/packages/arena'),
  })),
};
const results = [];
for (const name of ['node', 'chromium', 'firefox']) {
  const t = makeTarget(name, ctx);
  await t.start();
  const hello = await t.session.run({ kind: 'hello' });
  for (const pace of ['timeout', 'slice']) {
    const t0 = Date.now();
    const { digests } = await t.session.run({ kind: 'stream', scenario, ticks, pace });
    const seconds = (Date.now() - t0) / 1000;
    results.push({ name, pace, seconds, last: digests[ticks], visibility: hello.visibility });
    console.log(`${name.padEnd(9)} pace ${pace.padEnd(7)} ${seconds.toFixed(1).padStart(7)} s  (page ${hello.visibility})`);
  }
  await t.close();
}
if (serverPromise) await (await serverPromise).close();
const node = Object.fromEntries(results.filter((r) => r.name === 'node').map((r) => [r.pace, r.seconds]));
console.log(`\n${scenario}, ${ticks} ticks: time / Node's time with the same pacing`);
for (const r of results.filter((x) => x.name !== 'node')) {
  console.log(`  ${r.name.padEnd(9)} ${r.pace.padEnd(7)} ${(r.seconds / node[r.pace]).toFixed(2)}`);
}
const same = new Set(results.map((r) => r.last)).size === 1;
console.log(same ? 'every stream ends on the same digest' : 'STREAMS DIFFER');
process.exit(same ? 0 : 1);
