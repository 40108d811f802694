// build-scripts/check-determinism: builds every target, runs every scenario on each for N
// ticks collecting the digest of every tick, and compares each stream with the reference
// (native g++ x86-64). See --help and docs/determinism.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanWasm } from './lib/float-scan.mjs';
import { startServer } from './lib/server.mjs';
import { GAMES, TARGETS_OF_BUILD, registrationIn, registrationsOf } from './lib/games.mjs';
import { DEFAULT_TARGETS, REFERENCE, TARGETS, makeTarget } from './lib/targets.mjs';
import { diffDumps, endChildrenOnExit, formatDuration, runProcess, sectionOf } from './lib/util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const QUICK = { ticks: 2000 };
const FULL_TICKS = 20000;
// Random worlds (--random): N specs random:<S * 1,000,000 + F + i>, i < N, for T ticks each
// (F: --first, 0 unless given, so a long block can be run in pieces).
const RANDOM = { n: 40, seed: 1n, ticks: 300 };
const QUICK_RANDOM = { n: 24, ticks: 200 };
const BLOCK = 1_000_000;
const randomSpecs = (n, seed, first) => Array.from({ length: n }, (_, i) => `random:${seed * BigInt(BLOCK) + BigInt(first + i)}`);

const HELP = `usage: build-scripts/check-determinism [OPTIONS]

Builds each target (reusing what is built), runs every scenario on it for N ticks with the
digest of every tick, and compares each stream with the reference, native g++ x86-64.
Prints a table of targets by scenarios ("identical over N ticks" or "first divergent tick T"),
and for a divergence the section digests and the fields of the canonical dump that differ
at tick T. A float twin of the world runs on the same targets as an informational control
(never a failure), and the wasm module is scanned for float arithmetic in the simulation.

options:
  --game NAME         the game to check (default arena, or the one game --game-build registers;
                      accepted: ${Object.keys(GAMES).join(', ')}, and any game --game-build registers)
  --game-build DIR    a build of a game made outside this tree with tandem_add_game (DIR holds
                      tandem-games/<game>.json); repeat it for each build: a native g++ build
                      fills the native row, an Emscripten build the node, chromium and firefox
                      rows, a clang or cross build its own. Those builds are used as they are
                      (build them first); the targets default to the rows they fill
  --scenarios A,B     the game's scenarios to run (default: all; arena: ${GAMES.arena.scenarios.join(', ')};
                      ships: ${GAMES.ships.scenarios.join(', ')}; starter: ${GAMES.starter.scenarios.join(', ')})
  --targets A,B       targets to run (default: ${DEFAULT_TARGETS.join(', ')});
                      the reference (native) always runs; also: perturbed (test only)
  --ticks N           ticks per scenario (default ${FULL_TICKS}; --quick: ${QUICK.ticks})
  --quick             two scenarios (arena: ${GAMES.arena.quick.join(' and ')}) for ${QUICK.ticks} ticks on every target
                      (what build-scripts/test runs, for each game)
  --full              every scenario for ${FULL_TICKS} ticks (the default)
  --random [N]        instead of the scenarios, N random worlds (default ${RANDOM.n}): specs
                      random:<S*1000000+F+i> for i < N, ${RANDOM.ticks} ticks each unless --ticks;
                      with --quick: ${QUICK_RANDOM.n} worlds for ${QUICK_RANDOM.ticks} ticks. A divergence is shrunk
                      (fewest ticks; for the arena also pellets, players, input classes) to a
                      world file that 'tandem run --world FILE' reproduces; the report prints the command
  --seed S            the first seed of --random's specs (default ${RANDOM.seed}; a decimal number)
  --first F           start --random's block at world F of seed S (default 0): runs a long
                      block in pieces, e.g. --first 0 then --first 500 with --random 500
  --max-pellets P     (arena) leave out of --random the worlds with more than P pellets (the
                      report names each one and its pellet count; default: none left out)
  --no-shrink         report divergences of --random without shrinking them
  --perturb T[:PATH]  for the 'perturbed' target: flip the lowest bit of the field at PATH
                      (as 'tandem dump' names it, without a Vec2's .x) after tick T
                      (default 137 and the game's own field: arena ${GAMES.arena.perturbField}, ships ${GAMES.ships.perturbField})
  --no-twin           skip the float-twin control
  --no-scan           skip the wasm float scan
  --no-build          use what is built; fail a target that is not
  --jobs N            streams computed at once (default: the number of cores, ${cpus().length})
  --json              print the report as JSON on stdout (progress and phase lines: stderr)
  --json-out FILE     also write the JSON report to FILE
  -h, --help          this text

exit status: 0 every target identical to the reference (and the scan clean), 1 a divergence,
a fingerprint mismatch, a target that failed to build or run, or floats in the simulation;
2 bad arguments.
targets: ${Object.entries(TARGETS).map(([n, d]) => `\n  ${n.padEnd(10)} ${d.label}`).join('')}
`;

class UsageError extends Error {}

// A game built outside this tree, as its registrations describe it: its scenarios come from its
// own command (the native build's `GAME scenarios`), its quick pick from tandem_add_game's
// QUICK_SCENARIOS (else the first two).
function gameOutside(name, registrations) {
  const native = registrations[REFERENCE];
  if (!native?.command) throw new UsageError(`no native build of ${name} among the --game-build directories: the reference needs one`);
  if (!existsSync(native.command)) throw new UsageError(`${native.command} is not built (cmake --build ${native.buildDir})`);
  const r = spawnSync(native.command, ['scenarios'], { encoding: 'utf8' });
  if (r.status !== 0) throw new UsageError(`${native.command} scenarios exited ${r.status}: ${r.stderr.trim()}`);
  const scenarios = r.stdout.split('\n').map((l) => l.split(/\s+/)[0]).filter(Boolean);
  return { scenarios, quick: native.quick.length ? native.quick : scenarios.slice(0, 2), perturbField: null,
    twin: false, shrinkKnobs: false, outside: true };
}

function parseArgs(argv) {
  const o = { game: null, gameBuilds: [], scenarios: null, targets: null, ticks: null, quick: false, json: false, jsonOut: null,
    twin: true, scan: true, noBuild: false, jobs: cpus().length, perturb: { tick: 137, field: null },
    random: null, seed: null, shrink: true, first: null, maxPellets: null };
  const list = (v, known, what) => {
    const items = v.split(',').map((s) => s.trim()).filter(Boolean);
    if (!items.length) throw new UsageError(`${what} needs at least one name (accepted: ${known.join(', ')})`);
    for (const i of items) if (!known.includes(i)) throw new UsageError(`unknown ${what.replace(/^--/, '').replace(/s$/, '')} '${i}' (accepted: ${known.join(', ')})`);
    return [...new Set(items)];
  };
  const count = (v, flag, min, max) => {
    if (!/^\d+$/.test(v ?? '') || Number(v) < min || Number(v) > max) throw new UsageError(`${flag} expects a whole number in ${min}..${max} (got '${v ?? ''}')`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; ++i) {
    let a = argv[i];
    let inline;
    if (a.startsWith('--') && a.includes('=')) { inline = a.slice(a.indexOf('=') + 1); a = a.slice(0, a.indexOf('=')); }
    const value = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new UsageError(`missing value for ${a}`);
      return argv[++i];
    };
    switch (a) {
      case '-h': case '--help': o.help = true; break;
      case '--game': o.game = value(); break;
      case '--game-build': {
        const dir = resolve(value());
        if (!existsSync(dir)) throw new UsageError(`--game-build ${dir}: no such directory`);
        o.gameBuilds.push(dir);
        break;
      }
      case '--scenarios': o.scenariosText = value(); break;
      case '--targets': o.targets = list(value(), Object.keys(TARGETS), '--targets'); break;
      case '--ticks': o.ticks = count(value(), '--ticks', 1, 10_000_000); break;
      case '--quick': o.quick = true; break;
      case '--full': o.full = true; break;
      case '--random': {
        if (inline !== undefined) o.random = count(inline, '--random', 1, 1_000_000);
        else if (i + 1 < argv.length && /^\d+$/.test(argv[i + 1])) o.random = count(argv[++i], '--random', 1, 1_000_000);
        else o.random = 0;   // the default N, decided below (--quick changes it)
        break;
      }
      case '--seed': {
        const v = value();
        if (!/^\d{1,13}$/.test(v)) throw new UsageError(`--seed expects a whole number in 0..9999999999999 (got '${v}')`);
        o.seed = BigInt(v);
        break;
      }
      case '--first': o.first = count(value(), '--first', 0, BLOCK - 1); break;
      case '--max-pellets': o.maxPellets = count(value(), '--max-pellets', 0, 10_000_000); break;
      case '--no-shrink': o.shrink = false; break;
      case '--json': o.json = true; break;
      case '--json-out': o.jsonOut = value(); break;
      case '--no-twin': o.twin = false; break;
      case '--no-scan': o.scan = false; break;
      case '--no-build': o.noBuild = true; break;
      case '--jobs': o.jobs = count(value(), '--jobs', 1, 64); break;
      case '--perturb': {
        const v = value();
        const m = v.match(/^(\d+)(?::([a-z0-9_.[\]]+))?$/);
        if (!m || Number(m[1]) < 1) throw new UsageError(`--perturb expects TICK[:PATH] with TICK >= 1 and PATH a field path such as pellets[0].pos (got '${v}')`);
        o.perturb = { tick: Number(m[1]), field: m[2] ?? null };
        break;
      }
      default: throw new UsageError(`unknown argument '${argv[i]}' (see --help)`);
    }
  }
  if (o.quick && o.full) throw new UsageError('--quick and --full exclude each other');
  // The game: one of this tree's, or one a --game-build registers (its registrations then say
  // which build fills which row).
  let registered = [];
  try {
    registered = registrationsOf(o.gameBuilds);
  } catch (error) {
    throw new UsageError(error.message);
  }
  const outside = [...new Set(registered.map((r) => r.game))];
  o.game ??= outside.length === 1 ? outside[0] : 'arena';
  // A game added to this tree with tandem_add_game (src/games/<game>) is registered in the
  // native build once configured: it is checked on every target like the games above.
  const inTree = !GAMES[o.game] && !outside.includes(o.game) ? registrationIn(join(root, 'build/native'), o.game) : null;
  if (!GAMES[o.game] && !outside.includes(o.game) && !inTree) {
    throw new UsageError(`unknown game '${o.game}' (accepted: ${[...Object.keys(GAMES), ...outside].join(', ')}, or a game of this tree registered in build/native by tandem_add_game)`);
  }
  o.registrations = {};
  for (const r of registered.filter((x) => x.game === o.game)) {
    for (const t of TARGETS_OF_BUILD[r.build]) {
      if (o.registrations[t]) throw new UsageError(`two builds of ${o.game} fill the ${t} row: ${o.registrations[t].buildDir} and ${r.buildDir}`);
      o.registrations[t] = r;
    }
  }
  const game = GAMES[o.game] ?? (inTree ? { ...gameOutside(o.game, { [REFERENCE]: inTree }), outside: false, registered: true }
    : gameOutside(o.game, o.registrations));
  o.registeredInTree = Boolean(game.registered);
  if (o.scenariosText !== undefined) o.scenarios = list(o.scenariosText, game.scenarios, '--scenarios');
  delete o.scenariosText;
  o.perturb.field ??= game.perturbField;
  if (game.outside && o.targets?.some((t) => TARGETS[t].optIn)) {
    throw new UsageError(`the perturbed builds are built from this tree: they check its games, not ${o.game}`);
  }
  if (!game.twin) o.twin = false;   // the float twin is the arena's
  if (o.maxPellets !== null && o.game !== 'arena') throw new UsageError('--max-pellets is the arena\'s (its worlds have pellets)');
  if (o.random !== null) {
    if (o.scenarios) throw new UsageError('--random and --scenarios exclude each other (--random runs random worlds instead)');
    if (o.full) throw new UsageError('--random and --full exclude each other');
    if (o.random === 0) o.random = o.quick ? QUICK_RANDOM.n : RANDOM.n;
    o.seed ??= RANDOM.seed;
    o.first ??= 0;
    if (o.first + o.random > BLOCK) throw new UsageError(`--first ${o.first} plus --random ${o.random} runs past the ${BLOCK} worlds of one seed`);
    o.scenarios = randomSpecs(o.random, o.seed, o.first);
    o.ticks ??= o.quick ? QUICK_RANDOM.ticks : RANDOM.ticks;
    o.twin = false;   // the float twin knows the four scenarios only
  } else {
    const alone = [[o.seed !== null, '--seed'], [!o.shrink, '--no-shrink'], [o.first !== null, '--first'], [o.maxPellets !== null, '--max-pellets']].find(([set]) => set);
    if (alone) throw new UsageError(`${alone[1]} needs --random`);
  }
  o.scenarios ??= o.quick ? game.quick : game.scenarios;
  o.ticks ??= o.quick ? QUICK.ticks : FULL_TICKS;
  const fromOutside = Boolean(game.outside);
  let targets = o.targets ?? (fromOutside ? DEFAULT_TARGETS.filter((t) => o.registrations[t]) : DEFAULT_TARGETS);
  if (!targets.includes(REFERENCE)) targets = [REFERENCE, ...targets];
  if (fromOutside) {
    const missing = targets.filter((t) => !o.registrations[t]);
    if (missing.length) {
      throw new UsageError(`no build of ${o.game} fills the ${missing.join(', ')} row${missing.length > 1 ? 's' : ''} (give --game-build DIR of such a build; ${REFERENCE}, the reference, needs a native g++ build)`);
    }
  }
  o.targets = [REFERENCE, ...targets.filter((t) => t !== REFERENCE)];
  if (o.targets.includes('perturbed') && o.perturb.tick > o.ticks) {
    throw new UsageError(`--perturb tick ${o.perturb.tick} is beyond --ticks ${o.ticks}: the perturbation would never happen`);
  }
  return o;
}

// ---- Progress ------------------------------------------------------------------------------

class Progress {
  constructor(enabled, out) {
    this.enabled = enabled;
    this.out = out;
    this.jobs = new Map();   // key -> {done, total}
    this.status = '';
    this.started = Date.now();
    this.timer = enabled ? setInterval(() => this.draw(), 250) : null;
    this.timer?.unref();
  }
  add(key, total) { this.jobs.set(key, { done: 0, total }); }
  set(key, done) { const j = this.jobs.get(key); if (j) { j.done = done; this.current = key; } }
  finish(key) { const j = this.jobs.get(key); if (j) j.done = j.total; }
  // A line above the bar (or a plain line when there is no bar).
  line(text, plain) {
    if (this.enabled) { this.out.write(`\r\x1b[K${text}\n`); this.draw(); } else plain(text);
  }
  draw() {
    if (!this.enabled) return;
    let done = 0, total = 0, finished = 0;
    for (const j of this.jobs.values()) { done += j.done / j.total; total += 1; if (j.done >= j.total) finished += 1; }
    const frac = total ? done / total : 0;
    const width = 28;
    const filled = Math.round(frac * width);
    const elapsed = formatDuration((Date.now() - this.started) / 1000);
    const cur = this.current && this.jobs.get(this.current);
    const detail = this.status || (cur ? `${this.current} ${cur.done}/${cur.total}` : '');
    const cols = this.out.columns || 100;
    const text = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(frac * 100)).padStart(3)}%  ${finished}/${total} runs  ${elapsed}  ${detail}`;
    this.out.write(`\r\x1b[K${text.slice(0, cols - 1)}`);
  }
  stop() {
    if (this.timer) clearInterval(this.timer);
    if (this.enabled) this.out.write('\r\x1b[K');
  }
}

// A counting semaphore: at most n computations at once on this machine.
function limiter(n) {
  let active = 0;
  const queue = [];
  const next = () => {
    if (active >= n || !queue.length) return;
    active += 1;
    const { fn, resolve: res, reject: rej } = queue.shift();
    fn().then(res, rej).finally(() => { active -= 1; next(); });
  };
  return (fn) => new Promise((res, rej) => { queue.push({ fn, resolve: res, reject: rej }); next(); });
}
// One task at a time per session (a page or the Node child computes one task at a time).
function serial() {
  let tail = Promise.resolve();
  return (fn) => { const p = tail.then(fn, fn); tail = p.catch(() => {}); return p; };
}

// ---- The check -----------------------------------------------------------------------------

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`check-determinism: ${error.message}\n(try 'build-scripts/check-determinism --help')\n`);
    return 2;
  }
  if (opts.help) { process.stdout.write(HELP); return 0; }
  // From here on the check starts processes (builds, emulators, browsers, Node): every exit
  // path, Ctrl-C and SIGTERM included, ends them all and removes the browser profiles.
  endChildrenOnExit({ onSignal: (why) => process.stderr.write(`\ncheck-determinism: ${why}: stopping every target\n`) });

  // What the targets need (browsers, qemu, wabt, playwright-core): installed if missing.
  if (!process.env.TANDEM_SKIP_INSTALL_DEPS) {
    const deps = await runProcess(join(root, 'build-scripts/install-deps'), [], { cwd: root });
    process.stderr.write(deps.stdout + deps.stderr);
    if (deps.code !== 0) { process.stderr.write('check-determinism: build-scripts/install-deps failed\n'); return 1; }
  }

  const started = Date.now();
  const tty = Boolean(process.stdout.isTTY) && !opts.json;
  const say = opts.json ? (t) => process.stderr.write(`${t}\n`) : (t) => process.stdout.write(`${t}\n`);
  const progress = new Progress(tty, process.stdout);
  const note = (t) => progress.line(t, say);

  const logDir = join(root, 'build/determinism/logs');
  mkdirSync(logDir, { recursive: true });
  let serverPromise = null;
  const ctx = {
    root, logDir, noBuild: opts.noBuild, perturb: opts.perturb, game: opts.game, registrations: opts.registrations,
    registered: opts.registeredInTree,
    server: () => (serverPromise ??= startServer({
      pageDir: join(here, 'page'), libDir: join(here, 'lib'), packageDir: ctx.packageDir ?? join(root, 'build/wasm/packages', opts.game),
      twinPath: ctx.twinWasmPath,
    })),
  };

  const report = {
    reference: REFERENCE, game: opts.game, ticks: opts.ticks, scenarios: opts.scenarios, targets: [], cells: [], twin: null,
    floatScan: null, ok: true, phases: {}, elapsedSeconds: 0,
    random: opts.random ? { worlds: opts.random, seed: String(opts.seed), first: opts.first, ticks: opts.ticks, maxPellets: opts.maxPellets, leftOut: [] } : null,
    shrunk: [],
  };
  const targets = opts.targets.map((name) => makeTarget(name, ctx));
  const state = new Map(targets.map((t) => [t.name, { target: t, error: null, info: null, mismatch: null, twinError: null, seconds: {} }]));

  const phase = (name, t0) => { report.phases[name] = Math.round((Date.now() - t0) / 100) / 10; };
  let t0 = Date.now();
  // 1. Build, one preset at a time (each build uses every core).
  for (const t of targets) {
    const s = state.get(t.name);
    const t0 = Date.now();
    progress.status = `building ${t.name}`;
    note(`build   ${t.name.padEnd(10)} ...`);
    try {
      await t.build();
      s.seconds.build = (Date.now() - t0) / 1000;
    } catch (error) {
      s.error = `build failed: ${error.message}`;
      note(`build   ${t.name.padEnd(10)} FAILED: ${error.message}`);
      continue;
    }
    if (opts.twin) {
      try {
        const twin = await t.buildTwin();
        if (t.name === 'node' || TARGETS[t.name].kind === 'wasm') ctx.twinWasmPath = twin.path;
      } catch (error) {
        s.twinError = `float twin build failed: ${error.message}`;
      }
    }
  }
  phase('build', t0);
  t0 = Date.now();
  // --max-pellets: ask the reference build for each world's pellet count at tick 0 and leave
  // out the larger ones, by name, before any target runs them.
  if (opts.maxPellets !== null) {
    const ref = state.get(REFERENCE);
    if (ref.error) { note(`--max-pellets needs the reference build: ${ref.error}`); return 1; }
    progress.status = 'counting the random worlds\' pellets';
    const limit = limiter(opts.jobs);
    const counts = await Promise.all(opts.scenarios.map((sc) => limit(async () => {
      const r = await runProcess(ref.target.binary, ['run', '--game', opts.game, '--scenario', sc, '--ticks', '0', '--format', 'json'], { cwd: root });
      if (r.code !== 0) throw new Error(`tandem run --scenario ${sc} --ticks 0 exited ${r.code}: ${r.stderr.trim()}`);
      return JSON.parse(r.stdout).summary.pellets;
    })));
    report.random.leftOut = opts.scenarios.map((world, i) => ({ world, pellets: counts[i] })).filter((w) => w.pellets > opts.maxPellets);
    opts.scenarios = opts.scenarios.filter((_, i) => counts[i] <= opts.maxPellets);
    report.scenarios = opts.scenarios;
    for (const w of report.random.leftOut) note(`left out ${w.world}: ${w.pellets} pellets (--max-pellets ${opts.maxPellets})`);
    if (!opts.scenarios.length) { note(`--max-pellets ${opts.maxPellets} left out every world: nothing was compared`); return 1; }
    progress.status = '';
  }
  if (opts.scan && targets.some((t) => TARGETS[t.name].kind === 'wasm')) {
    progress.status = 'float scan of the wasm module';
    note('scan    wasm module and simulation objects ...');
    try {
      report.floatScan = await scanWasm(ctx);
    } catch (error) {
      report.floatScan = { ok: false, error: error.message };
    }
  }
  progress.status = '';
  phase('scan', t0);
  t0 = Date.now();

  // 2. Start sessions and ask each target for its fingerprint.
  await Promise.all(targets.map(async (t) => {
    const s = state.get(t.name);
    if (s.error) return;
    try {
      await t.start();
      s.info = await t.hello();
    } catch (error) {
      s.error = `did not start: ${error.message}`;
    }
  }));
  const ref = state.get(REFERENCE);
  for (const s of state.values()) {
    if (!s.info) continue;
    const why = [];
    const r = ref.info;
    if (!s.info.fingerprint) why.push('no fingerprint reported');
    if (r && s.info.fingerprint !== r.fingerprint) why.push(`fingerprint '${s.info.fingerprint}' (reference '${r.fingerprint}')`);
    if (r && s.info.version !== r.version) why.push(`version ${s.info.version} (reference ${r.version})`);
    if (!s.info.flags.ok) why.push(`flags: ${s.info.flags.problems.join(' ')}`);
    if (why.length) s.mismatch = why.join('; ');
  }

  // 3. Streams (and float-twin streams), at most `jobs` at a time, one at a time per session.
  const limit = limiter(opts.jobs);
  const lanes = new Map(targets.map((t) => [t.name, TARGETS[t.name].kind === 'wasm' ? serial() : (fn) => fn()]));
  const streams = new Map();   // `${target}/${scenario}` -> digests | Error
  const twins = new Map();
  const runs = [];
  const schedule = (map, key, laneName, fn) => {
    progress.add(key, opts.ticks);
    runs.push(lanes.get(laneName)(() => limit(async () => {
      const t0 = Date.now();
      try {
        map.set(key, await fn((done) => progress.set(key, done)));
      } catch (error) {
        map.set(key, error);
      }
      progress.finish(key);
      map.set(`${key}#seconds`, (Date.now() - t0) / 1000);
    })));
  };
  // Slow targets first, so the emulated ones do not finish last alone.
  const order = ['s390x', 'aarch64', 'firefox', 'chromium', 'i686', 'node', 'clang', 'perturbed', 'perturbed-rare', 'native'];
  const sorted = [...targets].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  for (const t of sorted) {
    const s = state.get(t.name);
    if (s.error || (s.mismatch && t.name !== REFERENCE)) continue;
    for (const sc of opts.scenarios) schedule(streams, `${t.name}/${sc}`, t.name, (p) => t.stream(sc, opts.ticks, p));
  }
  if (opts.twin) {
    for (const t of sorted) {
      const s = state.get(t.name);
      if (s.error || s.twinError || t.name === 'perturbed') continue;
      for (const sc of opts.scenarios) schedule(twins, `twin:${t.name}/${sc}`, t.name, (p) => t.twin(sc, opts.ticks, p));
    }
  }
  await Promise.all(runs);
  phase('run', t0);
  t0 = Date.now();

  // 4. Compare; for each divergence, dump both builds at the first divergent tick (random
  // worlds: the first few divergences of each target; the rest report their tick).
  const firstDifference = (a, b, ticks = opts.ticks) => {
    for (let i = 0; i <= ticks; ++i) if (a[i] !== b[i]) return i;
    return -1;
  };
  const maxDumps = opts.random ? 3 : Infinity;
  for (const t of targets) {
    const s = state.get(t.name);
    let dumps = 0;
    for (const sc of opts.scenarios) {
      const cell = { target: t.name, scenario: sc, ticks: opts.ticks };
      report.cells.push(cell);
      const key = `${t.name}/${sc}`;
      const mine = streams.get(key);
      const theirs = streams.get(`${REFERENCE}/${sc}`);
      cell.seconds = streams.get(`${key}#seconds`) ?? null;
      if (s.error) { cell.status = 'error'; cell.error = s.error; continue; }
      if (s.mismatch && t.name !== REFERENCE) { cell.status = 'fingerprint-mismatch'; cell.error = s.mismatch; continue; }
      if (mine instanceof Error || !mine) { cell.status = 'error'; cell.error = `run failed: ${mine?.message ?? 'no stream'}`; continue; }
      if (theirs instanceof Error || !theirs) { cell.status = 'error'; cell.error = 'reference stream missing'; continue; }
      const tick = firstDifference(theirs, mine);
      if (tick < 0) { cell.status = 'identical'; continue; }
      cell.status = 'divergent';
      cell.firstDivergentTick = tick;
      cell.referenceDigest = theirs[tick] ?? null;
      cell.digest = mine[tick] ?? null;
      if (++dumps > maxDumps) continue;
      progress.status = `dumping ${key} at tick ${tick}`;
      try {
        const [a, b] = await Promise.all([state.get(REFERENCE).target.dump(sc, tick), t.dump(sc, tick)]);
        const diffs = diffDumps(a, b);
        cell.fieldsCompared = a.fields.length;
        cell.fields = diffs.slice(0, 200);
        cell.fieldsDiffering = diffs.length;
        if (a.sections && b.sections) {
          cell.sectionsFrom = 'section digests';
          cell.sections = Object.keys(a.sections).filter((n) => a.sections[n] !== b.sections[n])
            .map((n) => ({ name: n, reference: a.sections[n], other: b.sections[n] }));
        } else {
          // The native CLI prints no section digests (yet): the sections whose fields differ.
          cell.sectionsFrom = 'differing fields';
          const names = [...new Set(diffs.map((d) => sectionOf(d.name)))];
          cell.sections = names.map((n) => ({ name: n, reference: a.sections?.[n] ?? null, other: b.sections?.[n] ?? null }));
        }
      } catch (error) {
        cell.dumpError = error.message;
      }
    }
  }
  progress.status = '';

  if (opts.twin) {
    report.twin = { informational: true, cells: [] };
    const refTwinTime = new Map();
    for (const t of targets) {
      if (t.name === 'perturbed') continue;
      const s = state.get(t.name);
      for (const sc of opts.scenarios) {
        const cell = { target: t.name, scenario: sc };
        report.twin.cells.push(cell);
        const mine = twins.get(`twin:${t.name}/${sc}`);
        const theirs = twins.get(`twin:${REFERENCE}/${sc}`);
        cell.seconds = twins.get(`twin:${t.name}/${sc}#seconds`) ?? null;
        if (t.name === REFERENCE) refTwinTime.set(sc, cell.seconds);
        if (s.error || s.twinError) { cell.status = 'unavailable'; cell.error = s.error ?? s.twinError; continue; }
        if (!mine || mine instanceof Error || !theirs || theirs instanceof Error) {
          cell.status = 'unavailable';
          cell.error = (mine instanceof Error ? mine.message : theirs instanceof Error ? theirs.message : 'no stream');
          continue;
        }
        const tick = firstDifference(theirs, mine);
        cell.status = tick < 0 ? 'identical' : 'divergent';
        if (tick >= 0) cell.firstDivergentTick = tick;
      }
    }
  }

  phase('compare', t0);
  t0 = Date.now();

  // 5. Random worlds: shrink each target's earliest divergence to a small world file.
  if (opts.random && opts.shrink) {
    const ref = targets.find((t) => t.name === REFERENCE);
    for (const t of targets) {
      const cells = report.cells.filter((c) => c.target === t.name && c.status === 'divergent');
      if (!cells.length) continue;
      const cell = cells.reduce((a, b) => (b.firstDivergentTick < a.firstDivergentTick ? b : a));
      progress.status = `shrinking ${t.name} / ${cell.scenario}`;
      note(`shrink  ${t.name} / ${cell.scenario} (first divergent tick ${cell.firstDivergentTick}) ...`);
      try {
        const found = await shrink({ ref, target: t, spec: cell.scenario, tick: cell.firstDivergentTick, firstDifference, note,
          knobs: GAMES[opts.game]?.shrinkKnobs ?? false });
        const file = join(root, 'build/determinism/worlds', `${t.name}-${found.spec.replace(/[^a-z0-9=+]+/gi, '_')}.world`);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, [
          `# A divergence of ${t.name} from ${REFERENCE}, found by build-scripts/check-determinism --random`,
          `# in ${cell.scenario} at tick ${cell.firstDivergentTick}, shrunk in ${found.probes} probes.`,
          `# 'expect' is ${REFERENCE}'s digest at the last tick: a build that differs exits 1.`,
          `# game ${opts.game}: run it with --game ${opts.game}`,
          `scenario ${found.spec}`, `ticks ${found.tick}`, 'every 1', `expect ${found.tick} ${found.referenceDigest}`, ''].join('\n'));
        const shown = relative(root, file);
        report.shrunk.push({ target: t.name, from: cell.scenario, fromTick: cell.firstDivergentTick, spec: found.spec,
          tick: found.tick, pellets: found.pellets, probes: found.probes, file: shown, command: t.worldCommand(shown),
          referenceDigest: found.referenceDigest, digest: found.digest });
      } catch (error) {
        report.shrunk.push({ target: t.name, from: cell.scenario, fromTick: cell.firstDivergentTick, error: error.message });
      }
    }
    progress.status = '';
  }
  phase('shrink', t0);
  for (const t of targets) await t.close().catch(() => {});
  if (serverPromise) await (await serverPromise).close();
  progress.stop();

  for (const t of targets) {
    const s = state.get(t.name);
    report.targets.push({
      name: t.name, label: TARGETS[t.name].label, error: s.error, fingerprintMismatch: s.mismatch,
      fingerprint: s.info?.fingerprint ?? null, version: s.info?.version ?? null,
      flags: s.info?.flags?.summary ?? null, platform: s.info?.platform ?? null, engine: s.info?.engine ?? null,
      buildSeconds: s.seconds.build ?? null,
    });
  }
  report.ok = report.cells.length > 0 && report.cells.every((c) => c.status === 'identical') && (!report.floatScan || report.floatScan.ok);
  report.elapsedSeconds = (Date.now() - started) / 1000;

  if (opts.jsonOut) writeFileSync(opts.jsonOut, JSON.stringify(report, null, 2) + '\n');
  if (opts.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else process.stdout.write(renderText(report, opts));
  return report.ok ? 0 : 1;
}

// ---- The text report -----------------------------------------------------------------------

function cellText(c) {
  switch (c.status) {
    case 'identical': return `identical over ${c.ticks} ticks`;
    case 'divergent': return `first divergent tick ${c.firstDivergentTick}`;
    case 'fingerprint-mismatch': return 'fingerprint mismatch';
    default: return 'error';
  }
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}

function renderText(report, opts) {
  let out = '';
  out += `\ngame ${report.game}; fingerprints (reference: ${report.reference}):\n`;
  out += table([['target', 'fingerprint', 'version', 'simulation flags', 'platform', 'engine'],
    ...report.targets.map((t) => [t.name, t.fingerprint ?? '-', t.version ?? '-', t.flags ?? '-', t.platform ?? '-', t.engine ?? '-'])]).replace(/^(?=.)/gm, '  ');

  out += `\ndigest streams, every tick 0..${report.ticks}, compared with ${report.reference}:\n`;
  if (report.random) {
    // Worlds by targets (the same table, transposed: N worlds would not fit as columns).
    const cell = (t, sc) => report.cells.find((c) => c.target === t && c.scenario === sc);
    const short = (c) => (c.status === 'identical' ? 'identical' : c.status === 'divergent' ? `tick ${c.firstDivergentTick}` : cellText(c));
    const rows = [['world', ...report.targets.map((t) => t.name)]];
    for (const sc of report.scenarios) rows.push([sc, ...report.targets.map((t) => short(cell(t.name, sc)))]);
    out += table(rows).replace(/^(?=.)/gm, '  ');
    const r = report.random;
    out += `  (${r.worlds} random worlds from seed ${r.seed}${r.first ? ` starting at world ${r.first}` : ''}, ${report.ticks} ticks each; 'tick T': first divergent tick)\n`;
    if (r.maxPellets !== null) {
      out += `  left out by --max-pellets ${r.maxPellets}: ${r.leftOut.length ? r.leftOut.map((w) => `${w.world} (${w.pellets} pellets)`).join(', ') : 'none'}\n`;
    }
  } else {
    const rows = [['target', ...report.scenarios]];
    for (const t of report.targets) {
      rows.push([t.name, ...report.scenarios.map((sc) => cellText(report.cells.find((c) => c.target === t.name && c.scenario === sc)))]);
    }
    out += table(rows).replace(/^(?=.)/gm, '  ');
  }

  const problems = report.targets.filter((t) => t.error || t.fingerprintMismatch);
  for (const t of problems) {
    out += `\n${t.name}: ${t.error ? t.error : `fingerprint mismatch: ${t.fingerprintMismatch}`}\n`;
  }
  for (const c of report.cells.filter((x) => x.status === 'error' && !problems.some((t) => t.name === x.target))) {
    out += `\n${c.target} / ${c.scenario}: ${c.error}\n`;
  }
  for (const c of report.cells.filter((x) => x.status === 'divergent')) {
    out += `\ndivergence: ${c.target} / ${c.scenario}: first divergent tick ${c.firstDivergentTick}`;
    out += ` (digest ${c.digest ?? 'missing'}, reference ${c.referenceDigest ?? 'missing'})\n`;
    if (c.dumpError) { out += `  could not dump tick ${c.firstDivergentTick}: ${c.dumpError}\n`; continue; }
    if (!c.sections) { out += '  (not dumped: the report dumps the first 3 divergences of each target)\n'; continue; }
    const secs = c.sections.map((s) => (s.reference && s.other ? `${s.name} (${s.reference} vs ${s.other})` : s.name));
    out += `  sections differing (by ${c.sectionsFrom}): ${secs.join(', ') || 'none'}\n`;
    out += `  fields differing at tick ${c.firstDivergentTick}: ${c.fieldsDiffering} of ${c.fieldsCompared}`;
    out += ` (tandem dump on ${report.reference} vs ${c.target})\n`;
    const shown = c.fields.slice(0, 20);
    const w = Math.max(...shown.map((d) => d.name.length), 5);
    for (const d of shown) out += `    ${d.name.padEnd(w)}  ${report.reference} ${d.reference ?? '(absent)'}  ${c.target} ${d.other ?? '(absent)'}\n`;
    if (c.fieldsDiffering > shown.length) out += `    ... ${c.fieldsDiffering - shown.length} more (--json lists up to 200)\n`;
  }

  for (const s of report.shrunk) {
    if (s.error) { out += `\nshrink ${s.target} / ${s.from}: failed: ${s.error}\n`; continue; }
    out += `\nshrunk: ${s.target} / ${s.from} (tick ${s.fromTick}) -> ${s.spec} at tick ${s.tick}${s.pellets !== null ? `, ${s.pellets} pellets` : ''} (${s.probes} probes)\n`;
    out += `  world file: ${s.file} (digest ${s.digest} on ${s.target}, ${s.referenceDigest} on ${report.reference})\n`;
    out += `  reproduce:  ${s.command}\n`;
  }

  if (report.twin) {
    out += `\nfloat twin (control, informational, never a failure): f32 state with libm, same scenarios, vs ${report.reference}:\n`;
    const twinRows = [['target', ...report.scenarios]];
    const targetsWithTwin = [...new Set(report.twin.cells.map((c) => c.target))];
    for (const name of targetsWithTwin) {
      twinRows.push([name, ...report.scenarios.map((sc) => {
        const c = report.twin.cells.find((x) => x.target === name && x.scenario === sc);
        if (c.status === 'identical') return `same floats over ${report.ticks} ticks`;
        if (c.status === 'divergent') return `floats differ from tick ${c.firstDivergentTick}`;
        return 'unavailable';
      })]);
    }
    out += table(twinRows).replace(/^(?=.)/gm, '  ');
    for (const c of report.twin.cells.filter((x) => x.status === 'unavailable' && x.error)) {
      out += `  (${c.target} / ${c.scenario}: ${c.error.split('\n')[0]})\n`;
    }
  }

  if (report.floatScan) {
    const f = report.floatScan;
    out += `\nwasm float scan: ${f.ok ? 'clean' : 'FAILED'}`;
    if (f.error) out += `: ${f.error}\n`;
    else {
      out += ` (${f.simulationFunctions} simulation functions in the module, ${f.objectFunctions} in the core/world objects;`;
      out += ` allowed float functions present: ${f.allowedPresent.join(', ') || 'none'})\n`;
      for (const v of f.violations.slice(0, 20)) out += `  ${v.where}: ${v.function}: ${v.what}\n`;
      if (f.violations.length > 20) out += `  ... ${f.violations.length - 20} more\n`;
    }
  }

  const compared = report.cells.filter((c) => c.target !== report.reference);
  const identical = compared.filter((c) => c.status === 'identical').length;
  const p = report.phases;
  out += `\ntime: build ${formatDuration(p.build ?? 0)}, float scan ${formatDuration(p.scan ?? 0)}, runs ${formatDuration(p.run ?? 0)}`;
  out += `, compare and dumps ${formatDuration(p.compare ?? 0)}`;
  if (p.shrink) out += `, shrink ${formatDuration(p.shrink)}`;
  out += `; total ${formatDuration(report.elapsedSeconds)}\n`;
  out += `${report.ok ? 'OK' : 'FAILED'}: ${identical} of ${compared.length} target x scenario streams identical to ${report.reference}`;
  out += ` over ${report.ticks} ticks`;
  if (report.random) out += ` (${report.random.worlds} random worlds${report.random.leftOut.length ? `, ${report.random.leftOut.length} left out by --max-pellets` : ''})`;
  if (report.floatScan) out += `; float scan ${report.floatScan.ok ? 'clean' : 'FAILED'}`;
  out += '\n';
  return out;
}

// ---- The shrinker --------------------------------------------------------------------------

const CLASSES = ['odd_ids', 'repeat', 'churn', 'far', 'leave', 'join', 'steer'];   // tried in this order
const MAX_PROBES = 80;

function parseSpec(spec) {
  const [, seed, ...mods] = spec.split(':');
  const o = { seed, pellets: null, players: null, without: [] };
  for (const m of mods) {
    const [k, v] = m.split('=');
    if (k === 'pellets') o.pellets = Number(v);
    else if (k === 'players') o.players = Number(v);
    else if (k === 'without') o.without = v.split('+');
  }
  return o;
}
function formatSpec(o) {
  let s = `random:${o.seed}`;
  if (o.pellets !== null) s += `:pellets=${o.pellets}`;
  if (o.players !== null) s += `:players=${o.players}`;
  if (o.without.length) s += `:without=${CLASSES.slice().reverse().filter((c) => o.without.includes(c)).join('+')}`;
  return s;
}
// Small counts first: the first that still diverges is kept.
const ladder = (below) => [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
  .filter((n) => n < below);

// Reduces a divergent random world while it still diverges: the ticks to the first divergent
// tick, then the pellet count, the players in the stream and the input classes, one at a time
// (each probe runs the candidate on the reference and the target up to the current tick).
async function shrink({ ref, target, spec, tick, firstDifference, note, knobs }) {
  let cur = parseSpec(spec);
  let best = { spec, tick, referenceDigest: null, digest: null };
  let probes = 0;
  const quiet = () => {};
  const attempt = async (candidate) => {
    if (probes >= MAX_PROBES) return false;
    probes += 1;
    const s = formatSpec(candidate);
    const [a, b] = await Promise.all([ref.stream(s, best.tick, quiet), target.stream(s, best.tick, quiet)]);
    const d = firstDifference(a, b, best.tick);
    if (d < 0) return false;
    cur = candidate;
    best = { spec: s, tick: d, referenceDigest: a[d], digest: b[d] };
    note(`shrink  ${target.name}: ${s} diverges at tick ${d}`);
    return true;
  };
  // The original first, for the digests (and a check that it still diverges).
  if (!(await attempt(cur))) throw new Error(`${spec} no longer diverges at tick ${tick}`);
  // Another game's random specs have no knobs this shrinker knows: the first divergent tick
  // is the whole reduction.
  if (!knobs) return { ...best, pellets: null, probes };
  const pellets = cur.pellets ?? await ref.pellets(formatSpec(cur));
  for (const n of ladder(pellets)) if (await attempt({ ...cur, pellets: n })) break;
  for (const n of ladder(9)) if (await attempt({ ...cur, players: n })) break;
  for (const c of CLASSES) {
    if (!cur.without.includes(c)) await attempt({ ...cur, without: [...cur.without, c] });
  }
  // Fewer inputs may let fewer pellets diverge: one more pass over the count.
  const now = cur.pellets ?? pellets;
  for (const n of ladder(now)) if (await attempt({ ...cur, pellets: n })) break;
  return { ...best, pellets: cur.pellets ?? pellets, probes };
}

const code = await main().catch((error) => {
  process.stderr.write(`check-determinism: ${error.stack ?? error}\n`);
  return 1;
});
process.exit(code);
