// Step time per tick, wasm (this Node) against native (the CLI), on the same scenario over
// the same ticks: orbits, 4,096 pellets. Prints both and the ratio (goal: wasm <= 1.3x).
// CPU time, not wall time, so a busy machine does not decide the ratio: for wasm the
// process's CPU time around the stepping loop (it includes V8's helper threads, so it errs
// against wasm); for native the CPU time of two CLI runs (W+N ticks minus W ticks, which
// removes process start and world creation). Each side keeps the best of several repeats.
//   node bench.mjs [--ticks N] [--warmup W] [--repeat R] [--scenario NAME]
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { cliPath, loadTandem } from './support.mjs';

const { values } = parseArgs({ options: {
  ticks: { type: 'string', default: '200' },
  warmup: { type: 'string', default: '20' },
  repeat: { type: 'string', default: '3' },
  scenario: { type: 'string', default: 'orbits' },
} });
const ticks = Number(values.ticks);
const warmup = Number(values.warmup);
const repeat = Number(values.repeat);
const name = values.scenario;

// CPU seconds of one CLI run, from bash's `times` (children's user and system time).
function nativeSeconds(n) {
  const out = execFileSync('bash', ['-c', '"$0" run --scenario "$1" --ticks "$2" --every "$2" >/dev/null; times',
    cliPath, name, String(n)], { encoding: 'utf8' });
  const children = out.trim().split('\n').at(-1);
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, s]) => Number(m) * 60 + Number(s));
  return seconds[0] + seconds[1];
}

const cpuSeconds = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1e6; };

const tandem = await loadTandem();
const pellets = (() => { const s = tandem.Scenario.open(name); const n = s.world.state().pellets.length; s.delete(); return n; })();

let bestWasm = Infinity;
let bestNative = Infinity;
let digestWasm;
for (let r = 0; r < repeat; ++r) {
  const scenario = tandem.Scenario.open(name).step(warmup);
  const start = cpuSeconds();
  for (let i = 0; i < ticks; ++i) scenario.step();
  bestWasm = Math.min(bestWasm, (cpuSeconds() - start) / ticks);
  digestWasm = scenario.digest();
  scenario.delete();

  const whole = nativeSeconds(warmup + ticks);
  const head = nativeSeconds(warmup);
  bestNative = Math.min(bestNative, (whole - head) / ticks);
}

const summary = execFileSync(cliPath, ['run', '--scenario', name, '--ticks', String(warmup + ticks), '--every', String(warmup + ticks)], { encoding: 'utf8' });
const digestNative = /digest=([0-9a-f]{16})/.exec(summary)[1];
const ms = (s) => (s * 1000).toFixed(3);
console.log(`scenario ${name}: ${pellets} pellets, ticks ${warmup + 1}..${warmup + ticks}, best of ${repeat}`);
console.log(`native ${ms(bestNative)} ms/tick CPU`);
console.log(`wasm   ${ms(bestWasm)} ms/tick CPU (node ${process.versions.node})`);
console.log(`ratio  ${(bestWasm / bestNative).toFixed(2)}x (goal <= 1.30x)`);
console.log(`same final digest: ${digestWasm === digestNative ? 'yes' : `NO (wasm ${digestWasm}, native ${digestNative})`}`);
