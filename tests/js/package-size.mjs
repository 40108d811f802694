// Each game's package as a page loads it: the module (.wasm and its Emscripten glue) and the
// generic JS layer (tandem.mjs, checks.mjs, net.mjs), raw and gzip -9, per file and loaded in
// total, against the goal of 100 KB gzipped (docs/performance.md, "WebAssembly").
//   node tests/js/package-size.mjs [GAME...]   (default: every package in build/wasm/packages)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { packagesDir } from './support.mjs';

const LOADED = ['tandem-wasm.wasm', 'tandem-wasm.mjs', 'tandem.mjs', 'checks.mjs', 'net.mjs'];
const games = process.argv.slice(2).length > 0 ? process.argv.slice(2) : readdirSync(packagesDir).sort();
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
for (const game of games) {
  let raw = 0;
  let gzip = 0;
  for (const file of LOADED) {
    const bytes = readFileSync(join(packagesDir, game, file));
    const packed = gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gzip += packed;
    console.log(`${game}  ${file.padEnd(18)} ${String(bytes.length).padStart(8)} B raw  ${String(packed).padStart(7)} B gzip -9`);
  }
  console.log(`${game}  loaded in total     ${kb(raw).padStart(10)} raw  ${kb(gzip).padStart(9)} gzip -9 (goal < 100 KB: ${gzip < 100_000 ? 'met' : 'missed'})`);
}
