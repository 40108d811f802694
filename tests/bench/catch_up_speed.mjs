// Catch-up speed, native against wasm under Node, side by side in one run: the same program
// (tests/bench/catch_up_speed.cpp: a 16-player room, one session hidden for SECONDS, then
// resumed at 60 frames a second until caught up) built both ways, run alternately REPEAT
// times; each side keeps its best run. Prints ticks per second of catch-up for both, the
// ratio, and how many times real time (60 ticks a second) each catches up at.
//   node tests/bench/catch_up_speed.mjs [SECONDS=5] [REPEAT=5]
// Needs build/native/tests/catch_up_speed (build-scripts/build native) and
// build/wasm/match/catch_up_speed.cjs (TANDEM_TARGETS=tandem_catch_up_speed_wasm build-scripts/build wasm).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const native = path.join(root, 'build/native/tests/catch_up_speed');
const wasm = path.join(root, 'build/wasm/match/catch_up_speed.cjs');
const [secondsText = '5', repeatText = '5'] = process.argv.slice(2);
const repeat = Number(repeatText);
if (!(Number(secondsText) > 0 && Number(secondsText) <= 60) || !(Number.isInteger(repeat) && repeat >= 1)) {
  console.error(`usage: node tests/bench/catch_up_speed.mjs [SECONDS in (0, 60]] [REPEAT >= 1], got ${process.argv.slice(2).join(' ')}`);
  process.exit(2);
}
for (const f of [native, wasm]) {
  if (!existsSync(f)) {
    console.error(`${path.relative(root, f)} is missing: build it first (see the header of this file)`);
    process.exit(1);
  }
}

function run(command, args) {
  let text;
  try {
    text = execFileSync(command, [...args, secondsText], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // The program's own sentence (e.g. the session chose a baseline over catching up) is the
    // whole story; a stack trace of this driver adds nothing.
    process.stderr.write(error.stderr || `${error.message}\n`);
    process.exit(1);
  }
  return Object.fromEntries(text.trim().split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]));
}

const best = { native: null, wasm: null };
const load = loadavg()[0];
for (let r = 0; r < repeat; ++r) {
  for (const [name, command, args] of [['native', native, []], ['wasm', process.execPath, [wasm]]]) {
    const f = run(command, args);
    if (best[name] === null || f.ticks_per_s > best[name].ticks_per_s) best[name] = f;
  }
}
const show = (name) => {
  const f = best[name];
  return `${name.padEnd(6)} ${String(Math.round(f.ticks_per_s)).padStart(6)} ticks/s  (${(f.ticks_per_s / 60).toFixed(1)}x real time; ` +
    `${f.caught_up_ticks} ticks in ${f.frames} frames, ${f.advance_ms.toFixed(0)} ms inside advance)`;
};
console.log(`catch-up after ${secondsText} s away, 16 players, default world; best of ${repeat}; load average ${load.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`);
console.log(show('native'));
console.log(show('wasm'));
console.log(`wasm / native time per caught-up tick: ${(best.native.ticks_per_s / best.wasm.ticks_per_s).toFixed(2)}`);
