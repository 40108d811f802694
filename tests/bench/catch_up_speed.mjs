// Resume after a hidden tab, native against wasm under Node, side by side in one run: the same
// program (tests/bench/catch_up_speed.cpp: a 16-player Match<arena::Sim>, one session's page
// hidden for SECONDS behind a link of RTT, then shown again until current) built both ways,
// run alternately REPEAT times; each side keeps its run that was current soonest. Prints the
// path the resume rule chose, its two estimates against what the resume took, the catch-up
// speed (ticks per second, times real time) when it caught up, and wasm against native.
//   node tests/bench/catch_up_speed.mjs [SECONDS=5] [REPEAT=5] [--rtt-ms N=100]
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
const args = process.argv.slice(2);
let rttText = '100';
const positional = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--rtt-ms') rttText = args[++i];
  else if (args[i].startsWith('--rtt-ms=')) rttText = args[i].slice('--rtt-ms='.length);
  else positional.push(args[i]);
}
const [secondsText = '5', repeatText = '5'] = positional;
const repeat = Number(repeatText);
const rtt = Number(rttText);
if (!(Number(secondsText) > 0 && Number(secondsText) <= 60) || !(Number.isInteger(repeat) && repeat >= 1) ||
    positional.length > 2 || !(rtt >= 0 && rtt <= 2000)) {
  console.error(`usage: node tests/bench/catch_up_speed.mjs [SECONDS in (0, 60]] [REPEAT >= 1] [--rtt-ms N in [0, 2000]], got ${args.join(' ')}`);
  process.exit(2);
}
for (const f of [native, wasm]) {
  if (!existsSync(f)) {
    console.error(`${path.relative(root, f)} is missing: build it first (see the header of this file)`);
    process.exit(1);
  }
}

// The program's first line: key=value pairs, numbers where they are numbers ("never" and the
// path names stay words).
function run(command, args) {
  let text;
  try {
    text = execFileSync(command, [...args, secondsText, '--rtt-ms', rttText], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    process.stderr.write(error.stderr || `${error.message}\n`);
    process.exit(1);
  }
  const line = text.trim().split('\n')[0];
  return Object.fromEntries(line.split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, v !== '' && Number.isFinite(Number(v)) ? Number(v) : v]));
}

// The run that was current soonest (a resume that never got current counts as the slowest).
const soonest = (a, b) => (a === null ? b : (b.current === 'yes' ? b.actual_ms : Infinity) < (a.current === 'yes' ? a.actual_ms : Infinity) ? b : a);
const best = { native: null, wasm: null };
const load = loadavg()[0];
for (let r = 0; r < repeat; ++r) {
  for (const [name, command, args] of [['native', native, []], ['wasm', process.execPath, [wasm]]]) {
    best[name] = soonest(best[name], run(command, args));
  }
}
const show = (name) => {
  const f = best[name];
  const speed = f.ticks_per_s > 0 ? `, ${Math.round(f.ticks_per_s)} ticks/s caught up (${f.real_time_x.toFixed(1)}x real time)` : '';
  return `${name.padEnd(6)} chose ${f.chosen} (estimates: catch up ${f.catch_up_estimate_ms} ms, baseline ${f.baseline_estimate_ms} ms), ` +
    `${f.taken === f.chosen ? '' : `ended as ${f.taken}, `}current ${f.current === 'yes' ? `after ${f.actual_ms} ms` : 'NEVER'} ` +
    `(${f.work_ms} ms session work, ${f.frames} frames, ${f.ticks} ticks, ${f.baseline_bytes} baseline bytes)${speed}; ` +
    `step cost ${f.step_cost_us} us; actual / estimate ${f.estimate_ratio} (${f.estimate_ok === 'yes' ? 'within' : 'NOT within'} ${f.estimate_factor}x)`;
};
console.log(`resume after ${secondsText} s hidden, ${rttText} ms RTT, 16 players, default arena; soonest of ${repeat}; load average ${load.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`);
console.log(show('native'));
console.log(show('wasm'));
const n = best.native;
const w = best.wasm;
if (n.ticks_per_s > 0 && w.ticks_per_s > 0) console.log(`wasm / native time per caught-up tick: ${(n.ticks_per_s / w.ticks_per_s).toFixed(2)}`);
console.log(`wasm / native step cost: ${(w.step_cost_us / n.step_cost_us).toFixed(2)}; resume wall time: ${(w.actual_ms / n.actual_ms).toFixed(2)}`);
