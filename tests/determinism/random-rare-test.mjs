// The random mode's proof that it can fail (build-scripts/test.d/35-determinism-random-rare):
// a native build that misbehaves only on a rare path (TANDEM_PERTURB_RARE: a moving pellet
// ending a step exactly on the left wall) must be found by `check-determinism --random` within
// its default number of worlds, in some worlds but not most, and shrunk to a small world file
// that the perturbed CLI fails and the reference passes with `tandem run --world FILE`.
// Native targets only, so it stays fast. Prints each check, then "N passed, M failed" last.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, finish, outDir, readReport, root, run } from './lib/check-harness.mjs';

// 1. Bad arguments of the random mode.
for (const [args, says] of [
  [['--random', '0'], /--random expects a whole number in 1\.\./],
  [['--seed', '5'], /--seed needs --random/],
  [['--random', '3', '--scenarios', 'trig'], /--random and --scenarios exclude each other/],
  [['--random', '--seed', 'x'], /--seed expects a whole number/],
  [['--first', '3'], /--first needs --random/],
  [['--max-pellets', '100'], /--max-pellets needs --random/],
  [['--random', '5', '--first', '999999'], /runs past the 1000000 worlds of one seed/],
  [['--random', '2', '--max-pellets', 'x'], /--max-pellets expects a whole number/],
]) {
  const r = run(args, { quiet: true });
  expect(r.status === 2 && says.test(r.stderr), `${args.join(' ')}: exits 2 saying ${says} (exit ${r.status}: ${r.stderr.split('\n')[0]})`);
}

// 2. --first and --max-pellets: world 610 of seed 11 has the generator's maximum of 131,072
// pellets; a piece of the block around it leaves exactly that world out, names it, and
// compares the others.
const piece = join(outDir, 'random-max-pellets.json');
rmSync(piece, { force: true });
const p = run(['--random', '3', '--seed', '11', '--first', '609', '--max-pellets', '100000', '--ticks', '5',
  '--targets', 'native', '--no-scan', '--json-out', piece], { quiet: true });
const pr = readReport(piece);
expect(p.status === 0 && /left out by --max-pellets 100000: random:11000610 \(131072 pellets\)/.test(p.stdout),
  `--max-pellets names the world it leaves out (exit ${p.status})`);
expect(JSON.stringify(pr?.random?.leftOut) === JSON.stringify([{ world: 'random:11000610', pellets: 131072 }]) &&
  JSON.stringify(pr?.scenarios) === JSON.stringify(['random:11000609', 'random:11000611']) &&
  pr.cells.length === 2 && pr.cells.every((c) => c.status === 'identical'),
  `--first 609 runs worlds 609 and 611 and leaves out 610 (${JSON.stringify(pr?.scenarios)})`);

// 3. The rare-path build, the default number of worlds, native targets only.
const json = join(outDir, 'random-rare.json');
rmSync(json, { force: true });
console.log('\n== check-determinism --random --targets perturbed-rare (TANDEM_PERTURB_RARE)');
const r = run(['--random', '--targets', 'perturbed-rare', '--no-scan', '--json-out', json]);
const report = readReport(json);
expect(r.status === 1, `the check exits 1 (exit ${r.status})`);
const cells = report?.cells.filter((c) => c.target === 'perturbed-rare') ?? [];
const divergent = cells.filter((c) => c.status === 'divergent');
expect(cells.length > 0 && divergent.length > 0 && divergent.length < cells.length / 2,
  `the rare path is found in some of the ${cells.length} worlds but not most (${divergent.length} divergent)`);
expect(cells.every((c) => c.status === 'identical' || c.status === 'divergent'), 'every other world is identical (no errors)');
const dumped = divergent.find((c) => c.fields);
expect(dumped?.fields?.length > 0 && dumped.fields.some((f) => /^pellets\[\d+\]\./.test(f.name)) && !dumped.fields.some((f) => /^config\./.test(f.name)),
  `a divergence is reported with its differing pellet fields (${dumped?.fields?.slice(0, 3).map((f) => f.name).join(', ')})`);
const s = report?.shrunk?.find((x) => x.target === 'perturbed-rare');
expect(s && !s.error, `the earliest divergence was shrunk (${s?.error ?? `${s?.from} -> ${s?.spec}`})`);
if (s && !s.error) {
  expect(s.tick <= s.fromTick, `to no more ticks than it diverged at (${s.tick} <= ${s.fromTick})`);
  expect(s.pellets <= 32, `to at most 32 pellets (${s.pellets})`);
  expect(/:players=|:without=/.test(s.spec), `with a simpler input stream (${s.spec})`);
  const file = join(root, s.file);
  const cli = (dir) => spawnSync(join(root, 'build', dir, 'src/cli/tandem'), ['run', '--world', file], { encoding: 'utf8' });
  const mine = cli('native-perturbed-rare');
  const ref = cli('native');
  expect(mine.status === 1 && /differs from/.test(mine.stderr), `tandem run --world on the perturbed build exits 1 naming the difference (${mine.status}: ${mine.stderr.trim()})`);
  expect(ref.status === 0 && /matches/.test(ref.stderr), `tandem run --world on the reference exits 0 (${ref.status}: ${ref.stderr.trim()})`);
  expect(s.command === `${join(root, 'build/native-perturbed-rare/src/cli/tandem')} run --game arena --world ${s.file}`,    `the report prints the one command: ${s.command}`);
}

finish('determinism random rare-path test');
