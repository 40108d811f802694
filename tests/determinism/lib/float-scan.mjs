// The float scan: proves from the compiled WebAssembly that the simulation is float-free.
//
// Two views, both disassembled with wabt's wasm-objdump and demangled with c++filt:
// 1. The module as shipped, with its function names: build/wasm/scan/<game> is the game's
//    module relinked from the same objects with --profiling-funcs (only a name section
//    added; the package's module strips names). Every function whose name is in namespace
//    tandem (src/core, src/sim) or in a game's namespace (src/games/<game>) must contain no
//    f32/f64 instruction and call no libm function.
//    A game built by tandem_add_game has a module of its own: its registration names its scan
//    copy, its library and the kit's core and sim libraries it was linked with.
// 2. Every function of libtandem_core.a and each game's library as Emscripten compiled them
//    (object files keep symbol names). -O3 inlines much of the simulation into the bindings'
//    functions in the linked module, where view 1 cannot tell it apart from the render edge;
//    the objects still hold each simulation function's own code, so nothing escapes.
// The functions allowed floats are listed by name below: the render edge (Fx to float, one
// way) and the few values defined as basic IEEE operations on integer-derived floats
// (XorShift::unit, ValueNoise's f32 form), which round identically on every build
// (docs/determinism.md, rule 1). Anything else with a float instruction fails the check.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildPreset, buildTarget } from './targets.mjs';
import { mtime, runProcess, spawnTracked } from './util.mjs';

// Demangled names, matched up to the parameter list.
export const ALLOWED_FLOAT_FUNCTIONS = [
  'tandem::to_f32',                      // render edge: Fx -> float, one way
  'tandem::to_f64',                      // render edge: Fx -> double, one way
  'tandem::XorShift::unit',              // renderer's [0, 1) from 24 integer bits
  'tandem::ValueNoise::corner',          // the f32 form of value noise (integer hash -> float)
  'tandem::ValueNoise::octave',          // the f32 form of value noise (+ - * / only)
  'tandem::ValueNoise::sample_f32',      // (if not inlined)
  'tandem::(anonymous namespace)::split_f32',   // noise.cpp's libm-free floor
  'tandem::StateDigest::write_f32',      // render-side checks only
  'tandem::elapsed_ns_from_ms_f64',      // the browser's elapsed ms enters, rounded to ns
  'tandem::FixedTimestep::alpha_f32',    // interpolation factor for the renderer
];

const LIBM = new Set(['sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh',
  'atanh', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'pow', 'sqrt', 'cbrt', 'hypot', 'fmod',
  'remainder', 'floor', 'ceil', 'trunc', 'round', 'lround', 'llround', 'nearbyint', 'rint', 'lrint', 'fma', 'fmin',
  'fmax', 'ldexp', 'frexp', 'modf', 'scalbn', 'erf', 'erfc', 'tgamma', 'lgamma', 'sincos']
  .flatMap((n) => [n, `${n}f`, `${n}l`, `__${n}`, `__${n}f`, `std::${n}`]));
const isLibm = (name) => LIBM.has(name) || /^__(sin|cos|tan|rem_pio2|expo2|math_)/.test(name);

const FLOAT_OP = /\bf(32|64)\.[a-z_0-9]+|\b[a-z0-9]+\.[a-z_]+_f(32|64)(_[su])?\b/;

// Outside the simulation, by namespace:
// - tandem::bindings is the JS boundary (bindings/*.hpp): every JS number arrives as a double,
//   so reading a length or an id converts from f64 there, before anything reaches the simulation.
// - tandem::predict and tandem::client are presentation: the prediction kit and the predicted
//   client ease what is drawn (corrections, remote views) in floats; what they simulate is the
//   game's own step on a copy of the confirmed state, scanned under the game's namespace, and
//   nothing they compute returns to the confirmed state or the wire except the player's own
//   commands. A game's presentation namespace (<game>::presentation) is drawing alike.
const PRESENTATION = ['tandem::bindings::', 'tandem::predict::', 'tandem::client::'];
// The namespaces of the games the package links (src/games/<game>, namespace <game>).
export const GAME_NAMESPACES = ['arena::', 'ships::'];
const simulationIn = (games) => (name) => (name.startsWith('tandem::') && !PRESENTATION.some((p) => name.startsWith(p))) ||
  (games.some((g) => name.startsWith(g)) && !/^[a-z_]+::presentation::/.test(name));
const isSimulation = simulationIn(GAME_NAMESPACES);
const isAllowed = (name) => ALLOWED_FLOAT_FUNCTIONS.some((a) => name === a || name.startsWith(`${a}(`) || name.startsWith(`${a}<`));

async function demangle(names) {
  if (!names.length) return [];
  const r = await new Promise((resolve, reject) => {
    Promise.resolve().then(() => {
      const child = spawnTracked('c++filt', [], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c) => { out += c; });
      child.once('error', reject);
      child.once('close', () => resolve(out));
      child.stdin.end(names.join('\n') + '\n');
    });
  });
  return r.split('\n').slice(0, names.length);
}

// Disassembles a module or object: [{name, floatOps: Set, calls: Set}] (names demangled).
export async function disassemble(file) {
  const r = await runProcess('wasm-objdump', ['-d', file]);
  if (r.code !== 0) throw new Error(`wasm-objdump -d ${file} failed: ${r.stderr.trim()}`);
  const funcs = [];
  let cur = null;
  for (const line of r.stdout.split('\n')) {
    const head = line.match(/^[0-9a-f]+ func\[\d+\] <(.*)>:$/);
    if (head) { cur = { mangled: head[1], floatOps: new Set(), calls: new Set() }; funcs.push(cur); continue; }
    if (!cur) continue;
    const text = line.split('|')[1] ?? '';
    const op = text.match(FLOAT_OP);
    if (op) cur.floatOps.add(op[0].trim());
    const call = text.match(/\bcall \d+ <(.*)>/);
    if (call) cur.calls.add(call[1].replace(/^(env|wasi_snapshot_preview1|GOT\.func)\./, ''));
  }
  const names = await demangle(funcs.map((f) => f.mangled));
  const callees = [...new Set(funcs.flatMap((f) => [...f.calls]))];
  const calleeNames = new Map(callees.map((c, i) => [c, i]));
  const demangledCallees = await demangle(callees);
  return funcs.map((f, i) => ({
    name: names[i] || f.mangled,
    floatOps: f.floatOps,
    calls: new Set([...f.calls].map((c) => demangledCallees[calleeNames.get(c)] || c)),
  }));
}

export function check(funcs, where, violations, allowedPresent, isSim = isSimulation) {
  let simulation = 0;
  for (const f of funcs) {
    if (!isSim(f.name)) continue;
    simulation += 1;
    const allowed = isAllowed(f.name);
    if (allowed && f.floatOps.size) allowedPresent.add(f.name.replace(/\(.*$/, ''));
    if (!allowed && f.floatOps.size) {
      violations.push({ where, function: f.name, what: `float instructions: ${[...f.floatOps].slice(0, 6).join(', ')}` });
    }
    const libm = [...f.calls].map((c) => c.replace(/\(.*$/, '')).filter(isLibm);
    if (libm.length) violations.push({ where, function: f.name, what: `calls libm: ${libm.join(', ')}` });
  }
  return simulation;
}

export async function scanWasm(ctx) {
  // A game built by tandem_add_game: its own module's scan copy, built in its own wasm build.
  const r = ctx.wasmRegistration ?? null;
  const buildDir = r ? r.buildDir : join(ctx.root, 'build', 'wasm');
  // Each game is its own module (build/wasm/packages/<game>): the scan reads the checked game's.
  const game = ctx.game ?? 'arena';
  if (r) {
    if (!r.scanTarget) throw new Error(`${r.file} names no module to scan (its wasm build made no package)`);
    if (!ctx.noBuild) await buildTarget(ctx, buildDir, r.scanTarget);
  } else if (!ctx.noBuild) {
    // The checked game's module with names; it needs the simulation libraries too (view 2), which it links.
    await buildPreset(ctx, 'wasm', 'wasm', `tandem_${game}_wasm_scan`);
  }
  const module = r ? r.scanModule : join(buildDir, 'scan', game, 'tandem-wasm.wasm');
  const simulation = r ? simulationIn([...GAME_NAMESPACES, `${r.namespace}::`]) : isSimulation;
  if (mtime(module) < 0) throw new Error(`no scan build at ${module}`);
  const violations = [];
  const allowedPresent = new Set();

  const moduleFuncs = await disassemble(module);
  const named = moduleFuncs.filter((f) => !/^\$?func\d+$/.test(f.name)).length;
  if (named < moduleFuncs.length / 2) throw new Error(`${module} has no name section (${named} of ${moduleFuncs.length} functions named)`);
  const simulationFunctions = check(moduleFuncs, 'module', violations, allowedPresent, simulation);
  const libmInModule = moduleFuncs.filter((f) => isLibm(f.name.replace(/\(.*$/, ''))).map((f) => f.name);

  // The simulation's own objects, from the same build.
  const objDir = join(buildDir, 'determinism-objects');
  rmSync(objDir, { recursive: true, force: true });
  mkdirSync(objDir, { recursive: true });
  let objectFunctions = 0;
  const libraries = r ? [...r.kitLibraries, r.library]
    : ['src/core/libtandem_core.a', 'src/sim/libtandem_sim.a', 'src/games/arena/libtandem_arena.a', 'src/games/ships/libtandem_ships.a'].map((l) => join(buildDir, l));
  for (const lib of libraries) {
    const x = await runProcess('ar', ['x', lib], { cwd: objDir });
    if (x.code !== 0) throw new Error(`ar x ${lib} failed: ${x.stderr.trim()}`);
  }
  const objects = readdirSync(objDir).filter((f) => f.endsWith('.o')).sort();
  if (!objects.length) throw new Error('no object files in the simulation libraries');
  for (const o of objects) {
    objectFunctions += check(await disassemble(join(objDir, o)), `object ${o}`, violations, allowedPresent, simulation);
  }
  return {
    ok: violations.length === 0,
    module,
    simulationFunctions,
    objectFunctions,
    objects,
    allowedPresent: [...allowedPresent].sort(),
    allowedList: ALLOWED_FLOAT_FUNCTIONS,
    libmInModule,
    violations,
  };
}
