// The determinism check's part of build-scripts/test (build-scripts/test.d/30-determinism-quick):
// 1. bad arguments exit 2 with a message;
// 2. the check can fail: a native build with the test-only perturbation (one bit of one
//    field flipped after one tick) must be reported as divergent at exactly that tick, with
//    exactly that field and its section named, and exit 1;
// 3. the float scan can fail (float-scan-selftest.mjs);
// 4. the quick mode: two scenarios for a few thousand ticks on every target, every stream
//    identical to native, the float scan clean (one pass or fail per target x scenario);
// 5. random worlds (--random --quick): a few dozen worlds on every target, one pass or fail
//    per target.
// Prints each check, then "N passed, M failed" last.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { counts, expect, finish, outDir, readReport, root, run } from './lib/check-harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));

// 1. Bad arguments.
{
  const r = run(['--ticks', 'many'], { quiet: true });
  expect(r.status === 2 && /--ticks expects a whole number/.test(r.stderr), `bad --ticks exits 2 with a message (exit ${r.status})`);
  const t = run(['--targets', 'native,pdp11'], { quiet: true });
  expect(t.status === 2 && /unknown target 'pdp11'/.test(t.stderr), `unknown target exits 2 naming it (exit ${t.status})`);
}

// 2. The perturbed build: pellet 0's x flipped after tick 137 (field 0).
{
  const tick = 137;
  const json = join(outDir, 'perturbed.json');
  rmSync(json, { force: true });
  console.log(`\n== perturbation: TANDEM_PERTURB_TICK=${tick} TANDEM_PERTURB_FIELD=0 (pellet 0 x)`);
  const r = run(['--targets', 'perturbed', '--scenarios', 'trig', '--ticks', '300', '--perturb', `${tick}:0`,
    '--no-twin', '--no-scan', '--json-out', json]);
  const report = readReport(json);
  const cell = report?.cells.find((c) => c.target === 'perturbed' && c.scenario === 'trig');
  expect(r.status === 1, `the check exits 1 on the perturbed build (exit ${r.status})`);
  expect(cell?.status === 'divergent' && cell.firstDivergentTick === tick,
    `the report names the perturbed tick ${tick} (got ${cell?.status} ${cell?.firstDivergentTick ?? ''})`);
  const fields = cell?.fields?.map((f) => f.name) ?? [];
  expect(cell?.fieldsDiffering === 1 && fields[0] === 'pellet[0].pos.x',
    `the report names exactly the perturbed field pellet[0].pos.x (got ${fields.join(', ') || 'none'})`);
  const f = cell?.fields?.[0];
  expect(f && Math.abs(Number(f.reference) - Number(f.other)) === 1 && (Number(f.reference) ^ Number(f.other)) === 1,
    `the two values differ in the lowest bit only (${f?.reference} vs ${f?.other})`);
  expect(cell?.sections?.map((s) => s.name).join(',') === 'pellets', `the report names the pellets section (got ${cell?.sections?.map((s) => s.name).join(',')})`);
  // The digests the check reports at that tick are the real ones: the reference's equals what
  // the native CLI itself prints for tick 137, and that CLI reproduces the committed golden
  // stream (so the reference is the simulation, not whatever the check happened to read).
  const cli = join(root, 'build/native/src/cli/tandem');
  const lastDigest = (ticks, every) => {
    const out = spawnSync(cli, ['run', '--scenario', 'trig', '--ticks', String(ticks), '--every', String(every)], { encoding: 'utf8' });
    return out.status === 0 ? out.stdout.match(new RegExp(`^${ticks} ([0-9a-f]{16})$`, 'm'))?.[1] ?? null : null;
  };
  const atTick = lastDigest(tick, tick);
  expect(atTick !== null && cell?.referenceDigest === atTick && cell?.digest !== atTick,
    `the reported reference digest at tick ${tick} is native's own (${cell?.referenceDigest} vs ${atTick}), the perturbed one differs (${cell?.digest})`);
  const golden = readFileSync(join(root, 'tests/world/golden/trig.txt'), 'utf8').match(/^100 ([0-9a-f]{16})$/m)?.[1];
  const at100 = lastDigest(100, 100);
  expect(golden !== undefined && at100 === golden, `the native reference reproduces the golden trig digest at tick 100 (${at100} vs ${golden})`);
}

// 3. The float scan can fail.
{
  console.log('\n== float scan self-test');
  const r = spawnSync(process.execPath, [join(here, 'float-scan-selftest.mjs')], { cwd: root, encoding: 'utf8' });
  process.stdout.write(r.stdout + r.stderr);
  const m = r.stdout.match(/^(\d+) passed, (\d+) failed$/m);
  if (m) { counts.passed += Number(m[1]); counts.failed += Number(m[2]); } else expect(false, 'float-scan-selftest printed its counts');
}

// 4. Quick mode on every target.
{
  const json = join(outDir, 'quick.json');
  rmSync(json, { force: true });
  console.log('\n== quick mode: build-scripts/check-determinism --quick');
  const r = run(['--quick', '--json-out', json]);
  const report = readReport(json);
  if (!report) {
    expect(false, `the quick check wrote its report (exit ${r.status})`);
  } else {
    for (const c of report.cells.filter((x) => x.target !== report.reference)) {
      const why = c.status === 'divergent' ? `first divergent tick ${c.firstDivergentTick}` : c.status === 'identical' ? '' : `${c.status}: ${(c.error ?? '').split('\n')[0]}`;
      expect(c.status === 'identical', `${c.target} / ${c.scenario}: identical to ${report.reference} over ${c.ticks} ticks${why ? ` (${why})` : ''}`);
    }
    expect(report.floatScan?.ok === true, `wasm float scan clean${report.floatScan?.ok ? '' : ` (${report.floatScan?.error ?? `${report.floatScan?.violations?.length} violations`})`}`);
    expect(r.status === (report.ok ? 0 : 1), `exit status ${r.status} matches the report (ok: ${report.ok})`);
  }
}

// 5. Random worlds on every target: --random --quick (24 worlds, 200 ticks, what
// check-determinism --help states), every world identical to native on every target.
{
  const json = join(outDir, 'quick-random.json');
  rmSync(json, { force: true });
  console.log('\n== random worlds: build-scripts/check-determinism --random --quick');
  const t0 = Date.now();
  const r = run(['--random', '--quick', '--no-scan', '--no-build', '--json-out', json]);
  const report = readReport(json);
  if (!report) {
    expect(false, `the random check wrote its report (exit ${r.status})`);
  } else {
    for (const t of report.targets.filter((x) => x.name !== report.reference)) {
      const cells = report.cells.filter((c) => c.target === t.name);
      const bad = cells.filter((c) => c.status !== 'identical');
      const why = bad.slice(0, 3).map((c) => `${c.scenario}: ${c.status === 'divergent' ? `tick ${c.firstDivergentTick}` : c.status}`).join('; ');
      expect(cells.length === report.random.worlds && bad.length === 0,
        `${t.name}: ${cells.length - bad.length} of ${report.random.worlds} random worlds identical to ${report.reference} over ${report.ticks} ticks${why ? ` (${why})` : ''}`);
    }
    expect(r.status === (report.ok ? 0 : 1), `exit status ${r.status} matches the report (ok: ${report.ok})`);
    console.log(`random worlds: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
}

finish('determinism quick test');
