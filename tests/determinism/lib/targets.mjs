// The builds the determinism check compares, and how each is built, asked for its
// fingerprint, run (digest stream), dumped at a tick, and how its float twin is built and run.
//
// CLI targets run build/<preset>/src/cli/tandem (through qemu-user for foreign machines), or,
// for a game built by tandem_add_game, the game's own command its registration names; wasm
// targets load build/wasm/package (or the game's own package) in Node (a child process) or in
// a headless browser (a page served by the check's server). Adding a target: add an entry to TARGETS below (and
// a preset with its toolchain file for a new machine); docs/determinism.md says more.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { openChromium, openFirefox } from './browsers.mjs';
import { registrationIn } from './games.mjs';
import { elfArch, mtime, parseDump, readCompileCommands, runProcess, spawnTracked } from './util.mjs';

export const TARGETS = {
  native: { kind: 'cli', preset: 'native', label: 'native g++ x86-64 (reference)', twinLink: [] },
  clang: { kind: 'cli', preset: 'clang', label: 'clang++ 14 libc++ x86-64', twinLink: ['-stdlib=libc++'] },
  // i686 runs natively where the kernel runs 32-bit x86 binaries, else under qemu-i386.
  i686: { kind: 'cli', preset: 'i686', label: 'i686 g++ (x87; noise.cpp SSE2)', emulatorIfNeeded: 'qemu-i386', twinLink: ['-static'] },
  aarch64: { kind: 'cli', preset: 'aarch64', label: 'aarch64 g++ under qemu-aarch64', emulator: 'qemu-aarch64', twinLink: ['-static'] },
  s390x: { kind: 'cli', preset: 's390x', label: 's390x g++ under qemu-s390x (big-endian)', emulator: 'qemu-s390x', twinLink: ['-static'] },
  node: { kind: 'wasm', label: 'wasm package in Node', host: 'node' },
  chromium: { kind: 'wasm', label: 'wasm package in headless Chromium', host: 'chromium' },
  firefox: { kind: 'wasm', label: 'wasm package in headless Firefox ESR', host: 'firefox' },
  // Opt-in: the native preset with the test-only perturbation compiled in (a separate build
  // directory), to prove the check names the tick and field of a divergence.
  perturbed: { kind: 'cli', preset: 'native', dir: 'native-perturbed', label: 'native g++ with TANDEM_PERTURB (test only)', twinLink: [], optIn: true },
  // Opt-in: misbehaves only on a rare path (a moving pellet ending a step exactly on the left
  // wall, TANDEM_PERTURB_RARE), to prove the random mode finds and shrinks such a divergence.
  'perturbed-rare': { kind: 'cli', preset: 'native', dir: 'native-perturbed-rare', label: 'native g++ with TANDEM_PERTURB_RARE (test only)', twinLink: [], optIn: true },
};
export const DEFAULT_TARGETS = Object.keys(TARGETS).filter((t) => !TARGETS[t].optIn);
export const REFERENCE = 'native';


// ---- Building ---------------------------------------------------------------------------

const buildEnv = () => ({ ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' });

async function logged(ctx, logName, cmd, args) {
  mkdirSync(ctx.logDir, { recursive: true });
  const log = join(ctx.logDir, logName);
  const r = await runProcess(cmd, args, { cwd: ctx.root, env: buildEnv() });
  writeFileSync(log, `$ ${cmd} ${args.join(' ')}\n${r.stdout}${r.stderr}`, { flag: 'a' });
  if (r.code !== 0) {
    const tail = (r.stdout + r.stderr).split('\n').filter((l) => /error|Error|FAILED/.test(l)).slice(0, 4).join('\n    ');
    throw new Error(`'${cmd} ${args.slice(0, 4).join(' ')} ...' failed (log: ${log})${tail ? `\n    ${tail}` : ''}`);
  }
  return r;
}

function cacheValue(buildDir, key) {
  const cache = join(buildDir, 'CMakeCache.txt');
  if (!existsSync(cache)) return null;
  const m = readFileSync(cache, 'utf8').match(new RegExp(`^${key}:[A-Z]+=(.*)$`, 'm'));
  return m ? m[1] : null;
}

// Configures a preset (once, or again when a definition changed); returns its build directory.
export async function configurePreset(ctx, preset, dir, extraDefs = {}) {
  const buildDir = join(ctx.root, 'build', dir);
  const log = `build-${dir}.log`;
  writeFileSync(join(ctx.logDir, log), '');
  const stale = Object.entries(extraDefs).some(([k, v]) => cacheValue(buildDir, k) !== String(v));
  if (!existsSync(join(buildDir, 'build.ninja')) || stale) {
    const defs = Object.entries(extraDefs).map(([k, v]) => `-D${k}=${v}`);
    const args = dir === preset ? ['--preset', preset, ...defs] : ['--preset', preset, '-B', buildDir, ...defs];
    await logged(ctx, log, 'cmake', args);
  }
  return buildDir;
}

// Builds one target of a configured build directory.
export async function buildTarget(ctx, buildDir, target) {
  const log = `build-${buildDir.split('/').pop()}.log`;
  await logged(ctx, log, 'cmake', ['--build', buildDir, '--target', target, ...(ctx.buildJobs ? [`-j${ctx.buildJobs}`] : [])]);
}

// Configures (once) and builds only what the check runs.
export async function buildPreset(ctx, preset, dir, target, extraDefs = {}) {
  const buildDir = await configurePreset(ctx, preset, dir, extraDefs);
  await buildTarget(ctx, buildDir, target);
  return buildDir;
}

// The registration of the checked game that a build of this tree holds once configured (a game
// built by tandem_add_game), or a clear error.
function treeRegistration(ctx, buildDir) {
  const r = registrationIn(buildDir, ctx.game);
  if (!r) throw new Error(`${buildDir} holds no registration of ${ctx.game} (tandem-games/${ctx.game}.json): is it built by tandem_add_game?`);
  return r;
}

// The compiler and code-generation flags the preset uses for the arena's simulation (from
// CMake's compile_commands.json), so the float twin is compiled exactly like it.
function worldCompileFlags(buildDir) {
  const entry = readCompileCommands(buildDir).find((e) => e.file.endsWith('src/games/arena/world.cpp') && !e.test);
  if (!entry) throw new Error(`no compile command for src/games/arena/world.cpp in ${buildDir}`);
  const args = entry.args;
  const keep = [args[0]];
  for (let i = 1; i < args.length; ++i) {
    const a = args[i];
    if (['-o', '-c', '-MT', '-MF', '-isystem', '-I', '-D', '-include'].includes(a)) { ++i; continue; }
    if (/^-(I|D|MD|MMD|MT|MF|W|isystem)/.test(a) || a.endsWith('.cpp')) continue;
    keep.push(a);
  }
  return keep;
}

export async function buildTwin(ctx, buildDir, outDir, name, kind, extraLink) {
  const source = join(ctx.root, 'tests/determinism/float_twin/float_twin.cpp');
  const [cxx, ...flags] = worldCompileFlags(buildDir);
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, kind === 'wasm' ? 'float_twin.wasm' : 'float_twin');
  const link = kind === 'wasm'
    ? ['-sSTANDALONE_WASM=1', '--no-entry', '-sEXPORTED_FUNCTIONS=_twin_start,_twin_step,_twin_digest_hi,_twin_digest_lo']
    : extraLink;
  const stamp = JSON.stringify([cxx, flags, link]);
  const stampFile = `${out}.flags`;
  const fresh = mtime(out) > mtime(source) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
  if (!fresh) {
    await logged(ctx, `twin-${name}.log`, cxx, [...flags, '-o', out, source, ...link]);
    writeFileSync(stampFile, stamp);
  }
  return { path: out, compiler: [cxx, ...flags].join(' ') };
}

// ---- Fingerprints ------------------------------------------------------------------------

// The determinism-relevant flags every simulation translation unit (src/core, src/sim, each
// game's src/games/<game> but its presentation; for a game built by tandem_add_game, the
// sources its registration lists) was compiled with, read back from compile_commands.json:
// -ffp-contract=off, no fast-math, floating-point model switches and the test-only perturbation.
export function simulationFlags(buildDir, registration = null) {
  const own = registration ? new Set(registration.sources) : null;
  const commands = readCompileCommands(buildDir);
  const entries = own
    ? commands.filter((e) => own.has(e.file))
    : commands.filter((e) => /\/src\/(core|sim|games\/[a-z0-9_-]+)\//.test(e.file) && !/\/presentation\//.test(e.file));
  if (!entries.length) {
    const what = own ? `the sources of ${registration.game} (${registration.file})` : 'src/core, src/sim, src/games';
    return { ok: false, summary: `no compile commands for ${what}`, problems: ['no compile commands'] };
  }
  const problems = new Set();
  const notes = new Set();
  const noteFiles = new Map();   // note -> files that have it
  let compiler = '';
  let compilerPath = null;
  const opts = new Set();   // the -O levels of the objects the CLI and the package link
  for (const { args, file, test } of entries) {
    const base = file.split('/').pop();
    const addNote = (n) => { notes.add(n); if (!noteFiles.has(n)) noteFiles.set(n, []); noteFiles.get(n).push(base); };
    compilerPath = args[0];
    compiler = args[0].split('/').pop();
    let contract = 'default';
    let opt = '';
    for (const a of args) {
      if (a.startsWith('-ffp-contract=')) contract = a.slice('-ffp-contract='.length);
      if (/^-O/.test(a)) opt = a;   // the last one wins, as in the compiler
      if (a === '-ffast-math' || a === '-Ofast' || a === '-funsafe-math-optimizations' || a === '-ffinite-math-only' || a === '-fassociative-math') problems.add(a);
      if (/^-m(fpmath|sse|arch|fma|avx)/.test(a)) addNote(a);
      const perturb = a.match(/^-DTANDEM_PERTURB_(TICK|FIELD)=(\S+)/);
      if (perturb) addNote(`TANDEM_PERTURB_${perturb[1]}=${perturb[2]}`);
    }
    if (contract !== 'off') problems.add(`-ffp-contract=${contract}`);
    if (!test && opt) opts.add(opt);
  }
  const opt = [...opts].sort().join('/');
  let partialCli = '';
  // The test-only perturbation lives in the CLI's library (src/cli), not in the simulation's
  // files: shown too, so a perturbed build's fingerprint says what it is.
  const cli = new Set();
  for (const { args, file, test } of commands) {
    if (test || !(registration ? file === registration.commandSource : /\/src\/cli\//.test(file))) continue;
    for (const a of args) {
      const perturb = a.match(/^-DTANDEM_PERTURB_(TICK|FIELD)=(\S+)/);
      if (perturb) cli.add(`TANDEM_PERTURB_${perturb[1]}=${perturb[2].replace(/^\\?"(.*?)\\?"$/, '$1')}`);
    }
  }
  if (cli.size) partialCli = `(${registration ? `${registration.game}'s command` : 'src/cli'}: ${[...cli].join(' ')})`;
  // A flag on every simulation file is shown plain; one on some files names them.
  const everywhere = [...notes].filter((n) => noteFiles.get(n).length === entries.length);
  const some = new Map();
  for (const n of notes) {
    if (everywhere.includes(n)) continue;
    const key = [...new Set(noteFiles.get(n))].join(',');
    some.set(key, [...(some.get(key) ?? []), n]);
  }
  const partial = [...some].map(([files, flags]) => `(${files}: ${flags.join(' ')})`);
  const summary = [compiler, opt, problems.size ? '' : '-ffp-contract=off', ...problems, ...everywhere, ...partial, partialCli].filter(Boolean).join(' ');
  return { ok: problems.size === 0, summary, compiler, compilerPath, problems: [...problems],
    perturb: [...notes, ...cli].filter((n) => n.startsWith('TANDEM_PERTURB')) };
}

// ---- Runners ---------------------------------------------------------------------------

class CliTarget {
  constructor(name, def, ctx) {
    this.name = name;
    this.def = def;
    this.ctx = ctx;
    this.dir = def.dir ?? def.preset;
    // A game built outside this tree: the build its registration names, used as it is.
    this.registration = ctx.registrations?.[name] ?? null;
    this.buildDir = this.registration ? this.registration.buildDir : join(ctx.root, 'build', this.dir);
    this.binary = this.registration ? this.registration.command : join(this.buildDir, 'src/cli/tandem');
    this.twinPath = null;
    this.emulator = def.emulator ?? null;
  }

  async build() {
    if (this.registration) {
      if (!existsSync(this.binary)) throw new Error(`not built: ${this.binary} (cmake --build ${this.buildDir})`);
      return;
    }
    const lean = { TANDEM_BUILD_TESTS: 'OFF', TANDEM_BUILD_BENCHMARKS: 'OFF', TANDEM_BUILD_EXHAUSTIVE: 'OFF', TANDEM_BUILD_SERVER: 'OFF' };
    const defs = this.name === 'perturbed'
      ? { TANDEM_PERTURB_TICK: this.ctx.perturb.tick, TANDEM_PERTURB_FIELD: this.ctx.perturb.field, ...lean }
      : this.name === 'perturbed-rare' ? { TANDEM_PERTURB_RARE: 'ON', ...lean } : {};
    if (this.ctx.registered) {
      // A game of this tree built by tandem_add_game: its own command, in the preset's build.
      if (!this.ctx.noBuild) await configurePreset(this.ctx, this.def.preset, this.dir, defs);
      const r = treeRegistration(this.ctx, this.buildDir);
      this.binary = r.command;
      this.ownRegistration = r;
      if (!this.ctx.noBuild) await buildTarget(this.ctx, this.buildDir, r.commandTarget);
    } else if (!this.ctx.noBuild) {
      await buildPreset(this.ctx, this.def.preset, this.dir, 'tandem', defs);
    }
    if (this.ctx.noBuild && !existsSync(this.binary)) throw new Error(`not built: ${this.binary} (run without --no-build)`);
  }

  async buildTwin() {
    const twin = await buildTwin(this.ctx, this.buildDir, join(this.ctx.root, 'build/determinism/float-twin', this.dir),
      this.name, 'cli', this.def.twinLink);
    this.twinPath = twin.path;
    return twin;
  }

  #cmd(binary, args) {
    return this.emulator ? [this.emulator, [binary, ...args]] : [binary, args];
  }

  async start() {}
  async close() {}

  async hello() {
    let [cmd, args] = this.#cmd(this.binary, ['version', '--game', this.ctx.game]);
    let r = await runProcess(cmd, args);
    if (!/^tandem /m.test(r.stdout) && this.def.emulatorIfNeeded && !this.emulator) {
      // The kernel refused the binary (no 32-bit support): run it under qemu-user instead.
      this.emulator = this.def.emulatorIfNeeded;
      [cmd, args] = this.#cmd(this.binary, ['version', '--game', this.ctx.game]);
      r = await runProcess(cmd, args);
    }
    if (r.code !== 0) throw new Error(`tandem version exited ${r.code}: ${r.stderr.trim()}`);
    const fingerprint = r.stdout.match(/^fingerprint (.*)$/m)?.[1]?.trim() ?? null;
    const version = r.stdout.match(/^tandem (\S+)/m)?.[1] ?? null;
    const { arch, endian } = elfArch(this.binary);
    const flags = simulationFlags(this.buildDir, this.registration ?? this.ownRegistration);
    let cc = await runProcess(flags.compilerPath ?? 'false', ['-dumpfullversion']).catch(() => null);
    if (cc?.code !== 0) cc = await runProcess(flags.compilerPath ?? 'false', ['-dumpversion']).catch(() => null);
    const engine = cc?.code === 0 ? `${flags.compiler} ${cc.stdout.trim()}` : 'native';
    return { fingerprint, version, flags, platform: `${arch} ${endian}${this.emulator ? ` (${this.emulator})` : ''}`, engine };
  }

  async #stream(binary, args, ticks, onProgress, what) {
    const digests = new Array(ticks + 1);
    let last = -1;
    let lastReport = 0;
    const [cmd, full] = this.#cmd(binary, args);
    const r = await runProcess(cmd, full, {
      onLine: (line) => {
        const m = line.match(/^(\d+) ([0-9a-f]{16})$/);
        if (!m) return;
        const t = Number(m[1]);
        if (t <= ticks) digests[t] = m[2];
        last = t;
        if (t - lastReport >= 50) { lastReport = t; onProgress(t, ticks); }
      },
    });
    if (r.code !== 0) throw new Error(`${what} exited ${r.code} after tick ${last}: ${r.stderr.trim().slice(0, 500)}`);
    onProgress(ticks, ticks);
    return digests;
  }

  stream(scenario, ticks, onProgress) {
    return this.#stream(this.binary, ['run', '--game', this.ctx.game, '--scenario', scenario, '--ticks', String(ticks), '--every', '1'], ticks, onProgress, 'tandem run');
  }

  twin(scenario, ticks, onProgress) {
    if (!this.twinPath) return Promise.reject(new Error('float twin not built'));
    return this.#stream(this.twinPath, [scenario, String(ticks)], ticks, onProgress, 'float_twin');
  }

  // The command line that runs a world file on this build (printed by the shrinker).
  worldCommand(file) {
    const [cmd, args] = this.#cmd(this.binary, ['run', '--game', this.ctx.game, '--world', file]);
    return [cmd, ...args].join(' ');
  }

  // The pellet count of a scenario's world (from the run's summary line).
  async pellets(scenario) {
    const [cmd, args] = this.#cmd(this.binary, ['run', '--game', this.ctx.game, '--scenario', scenario, '--ticks', '0']);
    const r = await runProcess(cmd, args);
    const m = r.stdout.match(/ pellets=(\d+)/);
    if (r.code !== 0 || !m) throw new Error(`tandem run --ticks 0 exited ${r.code}: ${r.stderr.trim()}`);
    return Number(m[1]);
  }

  async dump(scenario, tick) {
    const [cmd, args] = this.#cmd(this.binary, ['dump', '--game', this.ctx.game, '--scenario', scenario, '--tick', String(tick)]);
    const r = await runProcess(cmd, args);
    if (r.code !== 0) throw new Error(`tandem dump exited ${r.code}: ${r.stderr.trim()}`);
    return parseDump(r.stdout);
  }
}

// A wasm target talks to a "session": the Node child process or a browser page.
class WasmTarget {
  constructor(name, def, ctx) {
    this.name = name;
    this.def = def;
    this.ctx = ctx;
    this.registration = ctx.registrations?.[name] ?? null;
    this.buildDir = this.registration ? this.registration.buildDir : join(ctx.root, 'build/wasm');
    // The package of the game checked: each game is its own package.
    this.packageDir = this.registration ? this.registration.package : join(this.buildDir, 'packages', ctx.game ?? 'arena');
    this.session = null;
    this.browser = null;
    this.twinPath = null;
  }

  async build() {
    // One build serves the three wasm targets; the check calls it once (shared promise).
    if (!this.ctx.wasmBuild) {
      this.ctx.wasmBuild = (async () => {
        if (this.registration) {
          if (!existsSync(this.packageDir)) throw new Error(`not built: ${this.packageDir} (cmake --build ${this.buildDir})`);
          this.ctx.wasmRegistration = this.registration;
          return this.packageDir;
        }
        if (this.ctx.registered) {
          // A game of this tree built by tandem_add_game: its own package in the wasm build.
          if (!this.ctx.noBuild) await configurePreset(this.ctx, 'wasm', 'wasm');
          const r = treeRegistration(this.ctx, this.buildDir);
          if (!r.packageTarget) throw new Error(`${r.file}: ${this.ctx.game}'s wasm build made no package (tandem_add_game MODULE or WEB/module.cpp)`);
          if (!this.ctx.noBuild) await buildTarget(this.ctx, this.buildDir, r.packageTarget);
          if (!existsSync(r.package)) throw new Error(`not built: ${r.package}`);
          this.ctx.wasmRegistration = r;
          return r.package;
        }
        if (this.ctx.noBuild && !existsSync(join(this.packageDir, 'tandem.mjs'))) throw new Error(`not built: ${this.packageDir}`);
        if (!this.ctx.noBuild) await buildPreset(this.ctx, 'wasm', 'wasm', `tandem_${this.ctx.game ?? 'arena'}_package`);
        return this.packageDir;
      })();
    }
    this.packageDir = await this.ctx.wasmBuild;
    this.ctx.packageDir = this.packageDir;
  }

  async buildTwin() {
    if (!this.ctx.wasmTwin) {
      this.ctx.wasmTwin = buildTwin(this.ctx, this.buildDir, join(this.ctx.root, 'build/determinism/float-twin/wasm'), 'wasm', 'wasm', []);
    }
    const twin = await this.ctx.wasmTwin;
    this.twinPath = twin.path;
    return twin;
  }

  async start() {
    if (this.def.host === 'node') {
      this.session = await startNodeSession(this.packageDir, this.twinPath ?? this.ctx.twinWasmPath);
      return;
    }
    const server = await this.ctx.server();
    this.session = server.session(this.name);
    const url = `${server.origin}/?session=${this.name}`;
    this.browser = this.def.host === 'chromium' ? await openChromium(url) : await openFirefox(url);
    await withTimeout(this.session.ready, 120_000, `${this.name}: page did not load the package`);
  }

  async close() {
    if (this.session) this.session.close();
    if (this.browser) await this.browser.close();
    this.session = null;
    this.browser = null;
  }

  async hello() {
    const r = await this.session.run({ kind: 'hello', game: this.ctx.game });
    const flags = simulationFlags(this.buildDir, this.registration ?? (this.ctx.registered ? treeRegistration(this.ctx, this.buildDir) : null));
    const engine = this.browser?.version ?? r.engine;
    return { fingerprint: r.fingerprint, version: r.version, flags, platform: 'wasm32 little-endian', engine };
  }

  async stream(scenario, ticks, onProgress) {
    return (await this.session.run({ kind: 'stream', game: this.ctx.game, scenario, ticks }, onProgress)).digests;
  }

  async twin(scenario, ticks, onProgress) {
    return (await this.session.run({ kind: 'twin', scenario, ticks }, onProgress)).digests;
  }

  worldCommand(file) {
    return `node tests/determinism/run-world.mjs ${file}${this.ctx.game === 'arena' ? '' : ` --game ${this.ctx.game}`}   # the wasm package in Node; ${this.name} runs the same module`;
  }

  async dump(scenario, tick) {
    const r = await this.session.run({ kind: 'dump', game: this.ctx.game, scenario, tick });
    const parsed = parseDump(r.dump);
    parsed.digest = parsed.digest ?? r.digest;
    parsed.sections = parsed.sections ?? r.sections;
    return parsed;
  }
}

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(message)), ms); }),
  ]);
}

// The Node child process (node-target.mjs) behind the same run(task, onProgress) interface
// as a browser page.
function startNodeSession(packageDir, twinPath) {
  const script = join(dirname(new URL(import.meta.url).pathname), '..', 'node-target.mjs');
  const child = spawnTracked(process.execPath, [script, packageDir, ...(twinPath ? [twinPath] : [])], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += c; });
  const running = new Map();
  let nextId = 1;
  return new Promise((resolve, reject) => {
    let ready = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      let msg;
      try { msg = JSON.parse(line); } catch { return; }
      if ('ready' in msg) {
        if (msg.ready) { ready = true; resolve(session); } else reject(new Error(`node: ${msg.error}`));
        return;
      }
      const entry = running.get(msg.id);
      if (!entry) return;
      if (msg.progress) entry.onProgress(...msg.progress);
      else {
        running.delete(msg.id);
        if ('error' in msg) entry.reject(new Error(msg.error)); else entry.resolve(msg.result);
      }
    });
    child.once('exit', (code) => {
      const error = new Error(`node target exited ${code}: ${stderr.trim().slice(-1000)}`);
      if (!ready) reject(error);
      for (const { reject: r } of running.values()) r(error);
      running.clear();
    });
    const session = {
      run(task, onProgress = () => {}) {
        const id = nextId++;
        return new Promise((res, rej) => {
          running.set(id, { resolve: res, reject: rej, onProgress });
          child.stdin.write(JSON.stringify({ ...task, id }) + '\n');
        });
      },
      close() { child.stdin.end(); },
    };
  });
}

export function makeTarget(name, ctx) {
  const def = TARGETS[name];
  return def.kind === 'cli' ? new CliTarget(name, def, ctx) : new WasmTarget(name, def, ctx);
}
