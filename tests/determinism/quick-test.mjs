// The determinism check's part of build-scripts/test (build-scripts/test.d/30-determinism-quick):
// 1. bad arguments exit 2 with a message;
// 2. the check can fail, for every game: a native build with the test-only perturbation (one
//    bit of one field flipped after one tick) must be reported as divergent at exactly that
//    tick, with exactly that field and its section named, and exit 1;
// 3. the float scan can fail (float-scan-selftest.mjs);
// 4. the quick mode, for every game: two scenarios for a few thousand ticks on every target, every stream
//    identical to native, the float scan clean (one pass or fail per target x scenario);
// 5. random worlds, for every game (--random --quick): a few dozen worlds on every target, one pass or fail
//    per target.
// Prints each check, then "N passed, M failed" last.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GAMES, registrationIn } from './lib/games.mjs';
import { counts, expect, finish, outDir, readReport, root, run } from './lib/check-harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));

// 1. Bad arguments.
{
  const r = run(['--ticks', 'many'], { quiet: true });
  expect(r.status === 2 && /--ticks expects a whole number/.test(r.stderr), `bad --ticks exits 2 with a message (exit ${r.status})`);
  const t = run(['--targets', 'native,pdp11'], { quiet: true });
  expect(t.status === 2 && /unknown target 'pdp11'/.test(t.stderr), `unknown target exits 2 naming it (exit ${t.status})`);
  const g = run(['--game', 'nope'], { quiet: true });
  expect(g.status === 2 && /unknown game 'nope'/.test(g.stderr), `unknown game exits 2 naming it (exit ${g.status})`);
  const b = run(['--game-build', outDir], { quiet: true });
  expect(b.status === 2 && /no game registered there/.test(b.stderr), `a --game-build directory without a registration exits 2 saying so (exit ${b.status})`);
}

// 2. The perturbed build, per game: the game's default field (GAMES[game].perturbField, its
// lowest bit) flipped right after tick 137 in the CLI's run and dump.
// The native command that runs a game: `tandem`, or a registered game's own (tandem_add_game).
const commandOf = (game) => {
  if (!GAMES[game].registered) return join(root, 'build/native/src/cli/tandem');
  spawnSync('cmake', ['--build', join(root, 'build/native'), '--target', `${game}_command`], { stdio: 'ignore' });
  return registrationIn(join(root, 'build/native'), game)?.command ?? `(no registration of ${game} in build/native)`;
};
const lastDigest = (game, scenario, ticks, every) => {
  const cli = commandOf(game);
  const out = spawnSync(cli, ['run', '--game', game, '--scenario', scenario, '--ticks', String(ticks), '--every', String(every)], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.match(new RegExp(`^${ticks} ([0-9a-f]{16})$`, 'm'))?.[1] ?? null : null;
};
// The name of the first line native's dump prints for the field at PATH: PATH itself, or its
// first component (PATH.x, PATH.state); null when the dump has no such field.
const firstLineOf = (game, scenario, tick, path) => {
  const out = spawnSync(commandOf(game), ['dump', '--game', game, '--scenario', scenario, '--tick', String(tick)], { encoding: 'utf8' });
  if (out.status !== 0) return null;
  const names = out.stdout.split('\n').map((l) => l.split(' ')[0]);
  return names.find((n) => n === path || (n.startsWith(`${path}.`) && !n.slice(path.length + 1).includes('.'))) ?? null;
};
for (const [game, { quick, perturbField }] of Object.entries(GAMES)) {
  const tick = 137;
  const scenario = quick[0];
  const json = join(outDir, `perturbed-${game}.json`);
  rmSync(json, { force: true });
  console.log(`\n== perturbation (${game}): TANDEM_PERTURB_TICK=${tick} TANDEM_PERTURB_FIELD=${perturbField}`);
  const r = run(['--game', game, '--targets', 'perturbed', '--scenarios', scenario, '--ticks', '300', '--perturb', `${tick}:${perturbField}`,
    '--no-twin', '--no-scan', '--json-out', json]);
  const report = readReport(json);
  const cell = report?.cells.find((c) => c.target === 'perturbed' && c.scenario === scenario);
  expect(r.status === 1, `${game}: the check exits 1 on the perturbed build (exit ${r.status})`);
  expect(cell?.status === 'divergent' && cell.firstDivergentTick === tick,
    `${game}: the report names the perturbed tick ${tick} (got ${cell?.status} ${cell?.firstDivergentTick ?? ''})`);
  // The dump names a compound field's components (a Vec2's .x/.y, an XorShift's .state): the
  // lowest bit flipped is in the field's first line of native's own dump at that tick.
  const fields = cell?.fields?.map((f) => f.name) ?? [];
  const first = firstLineOf(game, scenario, tick, perturbField);
  expect(cell?.fieldsDiffering === 1 && first !== null && fields[0] === first,
    `${game}: the report names exactly the perturbed field ${perturbField}, as ${first ?? '(not in the dump)'} (got ${fields.join(', ') || 'none'})`);
  const f = cell?.fields?.[0];
  const low = f && (BigInt(f.reference) ^ BigInt(f.other)) === 1n;
  expect(low, `${game}: the two values differ in the lowest bit only (${f?.reference} vs ${f?.other})`);
  expect(cell?.sections?.length === 1, `${game}: the report names one section (got ${cell?.sections?.map((x) => x.name).join(',')})`);
  // The digests the check reports at that tick are the real ones: the reference's equals what
  // the native CLI itself prints for tick 137, and that CLI reproduces the committed golden
  // stream (so the reference is the simulation, not whatever the check happened to read).
  const atTick = lastDigest(game, scenario, tick, tick);
  expect(atTick !== null && cell?.referenceDigest === atTick && cell?.digest !== atTick,
    `${game}: the reported reference digest at tick ${tick} is native's own (${cell?.referenceDigest} vs ${atTick}), the perturbed one differs (${cell?.digest})`);
  const goldenFile = join(root, GAMES[game].golden, `${scenario}.txt`);
  const golden = existsSync(goldenFile) ? readFileSync(goldenFile, 'utf8').match(/^100 ([0-9a-f]{16})$/m)?.[1] : undefined;
  const at100 = lastDigest(game, scenario, 100, 100);
  expect(golden !== undefined && at100 === golden, `${game}: the native reference reproduces the golden ${scenario} digest at tick 100 (${at100} vs ${golden})`);
  // The check's own list of the game's scenarios is the CLI's.
  const listed = spawnSync(commandOf(game), ['scenarios', '--game', game], { encoding: 'utf8' }).stdout.split('\n').map((l) => l.split(/\s+/)[0]).filter(Boolean);
  expect(JSON.stringify(listed) === JSON.stringify(GAMES[game].scenarios),
    `${game}: the check's scenarios are 'tandem scenarios --game ${game}' (${GAMES[game].scenarios.join(',')} vs ${listed.join(',')})`);
}

// 3. The float scan can fail.
{
  console.log('\n== float scan self-test');
  const r = spawnSync(process.execPath, [join(here, 'float-scan-selftest.mjs')], { cwd: root, encoding: 'utf8' });
  process.stdout.write(r.stdout + r.stderr);
  const m = r.stdout.match(/^(\d+) passed, (\d+) failed$/m);
  if (m) { counts.passed += Number(m[1]); counts.failed += Number(m[2]); } else expect(false, 'float-scan-selftest printed its counts');
}

// 4. Quick mode on every target, per game.
for (const game of Object.keys(GAMES)) {
  const json = join(outDir, `quick-${game}.json`);
  rmSync(json, { force: true });
  console.log(`\n== quick mode: build-scripts/check-determinism --game ${game} --quick`);
  // Each game builds what its rows need (its own command where tandem_add_game gave it one, its
  // float-scan relink); what an earlier game built already is a no-op for ninja.
  const r = run(['--game', game, '--quick', '--json-out', json]);
  const report = readReport(json);
  if (!report) {
    expect(false, `${game}: the quick check wrote its report (exit ${r.status})`);
  } else {
    for (const c of report.cells.filter((x) => x.target !== report.reference)) {
      const why = c.status === 'divergent' ? `first divergent tick ${c.firstDivergentTick}` : c.status === 'identical' ? '' : `${c.status}: ${(c.error ?? '').split('\n')[0]}`;
      expect(c.status === 'identical', `${game}: ${c.target} / ${c.scenario}: identical to ${report.reference} over ${c.ticks} ticks${why ? ` (${why})` : ''}`);
    }
    expect(report.floatScan?.ok === true, `${game}: wasm float scan clean${report.floatScan?.ok ? '' : ` (${report.floatScan?.error ?? `${report.floatScan?.violations?.length} violations`})`}`);
    expect(r.status === (report.ok ? 0 : 1), `${game}: exit status ${r.status} matches the report (ok: ${report.ok})`);
  }
}

// 5. Random worlds on every target, per game: --random --quick (24 worlds, 200 ticks, what
// check-determinism --help states), every world identical to native on every target.
for (const game of Object.keys(GAMES)) {
  const json = join(outDir, `quick-random-${game}.json`);
  rmSync(json, { force: true });
  console.log(`\n== random worlds: build-scripts/check-determinism --game ${game} --random --quick`);
  const t0 = Date.now();
  const r = run(['--game', game, '--random', '--quick', '--no-scan', '--no-build', '--json-out', json]);
  const report = readReport(json);
  if (!report) {
    expect(false, `${game}: the random check wrote its report (exit ${r.status})`);
  } else {
    for (const t of report.targets.filter((x) => x.name !== report.reference)) {
      const cells = report.cells.filter((c) => c.target === t.name);
      const bad = cells.filter((c) => c.status !== 'identical');
      const why = bad.slice(0, 3).map((c) => `${c.scenario}: ${c.status === 'divergent' ? `tick ${c.firstDivergentTick}` : c.status}`).join('; ');
      expect(cells.length === report.random.worlds && bad.length === 0,
        `${game}: ${t.name}: ${cells.length - bad.length} of ${report.random.worlds} random worlds identical to ${report.reference} over ${report.ticks} ticks${why ? ` (${why})` : ''}`);
    }
    expect(r.status === (report.ok ? 0 : 1), `${game}: exit status ${r.status} matches the report (ok: ${report.ok})`);
    console.log(`${game} random worlds: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
}

finish('determinism quick test');
