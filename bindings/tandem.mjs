// tandem.mjs: a game's package's entry point for browsers and bundlers (the "default" condition
// of its exports; Node gets tandem.node.mjs, which adds reading the .wasm from disk). It loads
// the Emscripten module and wraps the thin Embind layer in an idiomatic surface for whichever
// game the package was built for: argument checks against the game's own schema that throw
// TypeError/RangeError naming the field, errors with stable .code values, plain objects out.
// It never decides anything the simulation depends on (the C++ does) and names no game. Nothing
// here may name a Node module: a bundler building for the browser follows every import.

import createTandemWasm from './tandem-wasm.mjs';
import {
  ADOPT, adopt, adopted, checkSelection, configRefused, disposable, fieldsObject, InputError, integer, isUint8Array, LIMITS, live,
  number, own, plainBytes, plainObject, raw, release, ReplayError, show, SnapshotError, TicketError, UINT32_MAX, INT32_MIN, INT32_MAX,
} from './checks.mjs';
import { makeNet } from './net.mjs';

// ---- Loading ---------------------------------------------------------------------------------

// Where the .wasm is. The literal `new URL('./file', import.meta.url)` is the pattern bundlers
// recognise (Vite, webpack, Parcel): they emit the file as an asset and rewrite the URL to it,
// hash and base path included. esbuild leaves it as it is, so the URL resolves beside the
// bundle, where its user copies the file (README.md). It must stay literal: a URL computed
// from a variable is invisible to a bundler, whose emitted asset is then never the one fetched.
function wasmUrlOf(where, wasmUrl) {
  if (wasmUrl === undefined) return new URL('./tandem-wasm.wasm', import.meta.url);
  if (typeof wasmUrl !== 'string' && !(wasmUrl instanceof URL)) {
    throw new TypeError(`${where}: options.wasmUrl must be a string or URL, got ${show(wasmUrl)}`);
  }
  return new URL(wasmUrl, import.meta.url);
}

// The largest .wasm accepted as options.wasmBinary: far above any game's module (under 1 MiB).
const WASM_LIMIT = { bytes: 1 << 26, what: 'larger than any tandem module (at most 64 MiB)' };

// Emscripten's own Node branch does not work from an ES module (no __dirname, and Node's
// fetch refuses file: URLs), so the module is built for the web only: over http(s) it fetches
// and compiles the .wasm streaming. Given the bytes (tandem.node.mjs reads them in Node), it
// compiles those. A file: URL is fetched here where the runtime can (Deno, Bun); Node cannot,
// and is told where its entry is.
async function wasmOptions(where, { wasmBinary, wasmUrl, wasmModule }) {
  if (wasmModule !== undefined) return compiledOptions(where, await wasmModule);
  if (wasmBinary !== undefined) return { wasmBinary: plainBytes(`${where}: options.wasmBinary`, wasmBinary, WASM_LIMIT, { views: true }) };
  const url = wasmUrlOf(where, wasmUrl);
  if (url.protocol === 'file:') {
    let bytes;
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`status ${response.status}`);
      bytes = await response.arrayBuffer();
    } catch (error) {
      throw new Error(`${where}: cannot fetch ${url.href} (${error.message}); in Node import the package by its name `
        + '(its "node" entry, tandem.node.mjs, reads the file) or pass options.wasmBinary', { cause: error });
    }
    return { wasmBinary: bytes };
  }
  return { locateFile: (path) => (path.endsWith('.wasm') ? url.href : new URL(path, import.meta.url).href) };
}

// A module the caller compiled already (a page that starts WebAssembly.compileStreaming from
// its first inline script, long before this file is imported): only instantiated here.
// Emscripten's hook has no way to report a failure, so it is raced beside the module's
// promise (instantiate below).
function compiledOptions(where, module) {
  if (!(module instanceof WebAssembly.Module)) {
    throw new TypeError(`${where}: options.wasmModule must be a WebAssembly.Module or a promise of one, got ${show(module)}`);
  }
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  return {
    failed,
    instantiateWasm: (imports, receive) => {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), fail);
      return {};
    },
  };
}

// Instantiates the Emscripten module; a .wasm that does not load rejects with an Error saying
// so (Emscripten's own report, which it prints, is added to the message).
async function instantiate(where, options) {
  const printed = [];
  let loading = true;
  try {
    const { failed, ...wasm } = await wasmOptions(where, options);
    const loaded = createTandemWasm({
      ...wasm,
      printErr: (text) => (loading ? printed.push(text) : console.warn(text)),
    });
    return await (failed === undefined ? loaded : Promise.race([loaded, failed]));
  } catch (error) {
    const reason = [...printed, String(error?.message ?? error)].join('; ');
    throw new Error(`${where}: the WebAssembly module did not load: ${reason}`, { cause: error });
  } finally {
    loading = false;
  }
}

// ---- fx: Q16.16 as raw integers in JS numbers ---------------------------------------------

function makeFx(m) {
  const ONE = m.fx_one();   // the C++'s scale: no JS spells it
  const unary = (name, fn) => (a) => fn(raw(`fx.${name}: a`, a));
  const binary = (name, fn) => (a, b) => fn(raw(`fx.${name}: a`, a), raw(`fx.${name}: b`, b));
  return Object.freeze({
    ONE,
    MIN: INT32_MIN,
    MAX: INT32_MAX,
    EPSILON: 1,
    fromInt: (i) => m.fx_from_int(raw('fx.fromInt: i', i)),
    /**
     * The raw value nearest to `units` (a float from a pointer, say): the one place a JS number
     * becomes a Q16.16 value, rounded half away from zero and saturated to the range.
     */
    fromUnits(units) {
      number('fx.fromUnits: units', units);
      if (!Number.isFinite(units)) throw new RangeError(`fx.fromUnits: units must be finite, got ${show(units)}`);
      const r = Math.sign(units) * Math.round(Math.abs(units) * ONE);
      return Math.min(INT32_MAX, Math.max(INT32_MIN, r));
    },
    fromString(text) {
      if (typeof text !== 'string') throw new TypeError(`fx.fromString: text must be a string, got ${show(text)}`);
      const parsed = m.fx_parse(text);
      if (parsed === null) {
        throw new RangeError(`fx.fromString: ${show(text)} is not a decimal ([+-]digits[.digits]) in [-32768, 32768)`);
      }
      return parsed;
    },
    toString: unary('toString', m.fx_to_string),
    toNumber: unary('toNumber', m.fx_to_number),
    add: binary('add', m.fx_add),
    sub: binary('sub', m.fx_sub),
    mul: binary('mul', m.fx_mul),
    div: binary('div', m.fx_div),
    sqrt: unary('sqrt', m.fx_sqrt),
    sin: unary('sin', m.fx_sin),
    cos: unary('cos', m.fx_cos),
    atan2: (y, x) => m.fx_atan2(raw('fx.atan2: y', y), raw('fx.atan2: x', x)),
    atan: unary('atan', m.fx_atan),
    asin: unary('asin', m.fx_asin),
    acos: unary('acos', m.fx_acos),
    exp: unary('exp', m.fx_exp),
    log: unary('log', m.fx_log),
  });
}

// ---- Time: the core's fixed-step clocks -------------------------------------------------------

// A time-result from C++: a handle, or the refusal's sentence.
function refusedOr(where, result) {
  if (typeof result === 'string') throw new RangeError(`${where}: ${result}`);
  return result;
}

const NS_PER_MS = 1e6;

function makeTime(m, fx) {
  class FixedTimestep {
    #h;

    /** @param {number} stepMs */
    constructor(stepMs) {
      const handle = stepMs === ADOPT ? adopted()
        : refusedOr('new FixedTimestep', m.timestep_from_step_ms(number('new FixedTimestep: stepMs', stepMs)));
      this.#h = own(this, handle);
    }

    static fromHz(hz) {
      return adopt(FixedTimestep, refusedOr('FixedTimestep.fromHz', m.timestep_from_hz(integer('FixedTimestep.fromHz: hz', hz, INT32_MIN, INT32_MAX))));
    }

    withMaxFrameMs(ms) {
      const handle = live(this.#h, 'FixedTimestep');
      return adopt(FixedTimestep, refusedOr('FixedTimestep.withMaxFrameMs', handle.withMaxFrameMs(number('FixedTimestep.withMaxFrameMs: ms', ms))));
    }

    withMaxSteps(steps) {
      const handle = live(this.#h, 'FixedTimestep');
      return adopt(FixedTimestep, refusedOr('FixedTimestep.withMaxSteps', handle.withMaxSteps(integer('FixedTimestep.withMaxSteps: steps', steps, 0, UINT32_MAX))));
    }

    advance(elapsedMs) {
      return live(this.#h, 'FixedTimestep').advanceMs(number('FixedTimestep.advance: elapsedMs', elapsedMs));
    }

    setStepMs(stepMs) {
      const refusal = live(this.#h, 'FixedTimestep').setStepMs(number('FixedTimestep.setStepMs: stepMs', stepMs));
      if (refusal !== null) throw new RangeError(`FixedTimestep.setStepMs: ${refusal}`);
    }

    get stepMs() { return live(this.#h, 'FixedTimestep').stepNs() / NS_PER_MS; }
    get stepSeconds() { return live(this.#h, 'FixedTimestep').stepSeconds(); }
    get maxFrameMs() { return live(this.#h, 'FixedTimestep').maxFrameNs() / NS_PER_MS; }
    pendingMs() { return live(this.#h, 'FixedTimestep').pendingNs() / NS_PER_MS; }
    droppedMs() { return live(this.#h, 'FixedTimestep').droppedNs() / NS_PER_MS; }
    alpha() { return live(this.#h, 'FixedTimestep').alpha() / fx.ONE; }
    alphaRaw() { return live(this.#h, 'FixedTimestep').alpha(); }
    reset() { live(this.#h, 'FixedTimestep').reset(); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }

  class Periodic {
    #h;

    constructor(intervalMs) {
      const handle = intervalMs === ADOPT ? adopted()
        : refusedOr('new Periodic', m.periodic_from_interval_ms(number('new Periodic: intervalMs', intervalMs)));
      this.#h = own(this, handle);
    }

    static fromHz(hz) {
      return adopt(Periodic, refusedOr('Periodic.fromHz', m.periodic_from_hz(integer('Periodic.fromHz: hz', hz, INT32_MIN, INT32_MAX))));
    }

    due(elapsedMs) { return live(this.#h, 'Periodic').dueMs(number('Periodic.due: elapsedMs', elapsedMs)); }
    advance(elapsedMs) { return live(this.#h, 'Periodic').advanceMs(number('Periodic.advance: elapsedMs', elapsedMs)); }
    setIntervalMs(intervalMs) {
      const refusal = live(this.#h, 'Periodic').setIntervalMs(number('Periodic.setIntervalMs: intervalMs', intervalMs));
      if (refusal !== null) throw new RangeError(`Periodic.setIntervalMs: ${refusal}`);
    }
    get intervalMs() { return live(this.#h, 'Periodic').intervalNs() / NS_PER_MS; }
    pendingMs() { return live(this.#h, 'Periodic').pendingNs() / NS_PER_MS; }
    remainingMs() { return live(this.#h, 'Periodic').remainingNs() / NS_PER_MS; }
    reset() { live(this.#h, 'Periodic').reset(); }

    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }

  return { FixedTimestep: disposable(FixedTimestep), Periodic: disposable(Periodic) };
}

// ---- ValueNoise: the core's noise, a plain value (its seed), nothing to delete ------------

// A u64 seed crosses as two u32 words; from a safe integer or a bigint.
function u64Words(where, value) {
  if (typeof value === 'number') {
    integer(where, value, 0, Number.MAX_SAFE_INTEGER);
    return { hi: Math.floor(value / 2 ** 32), lo: value % 2 ** 32 };
  }
  if (typeof value === 'bigint') {
    if (value < 0n || value > 0xffffffffffffffffn) throw new RangeError(`${where} must be in [0, 2^64), got ${value}n`);
    return { hi: Number(value >> 32n), lo: Number(value & 0xffffffffn) };
  }
  throw new TypeError(`${where} must be a number or bigint, got ${show(value)}`);
}

function makeNoise(m) {
  const int32 = (where, v) => integer(where, v, INT32_MIN, INT32_MAX);
  const octaveOf = (where, v) => integer(where, v, 0, UINT32_MAX);

  return class ValueNoise {
    #hi;
    #lo;

    /** @param {number|bigint} seed in [0, 2^64) */
    constructor(seed) {
      ({ hi: this.#hi, lo: this.#lo } = u64Words('new ValueNoise: seed', seed));
    }

    get seed() { return (BigInt(this.#hi) << 32n) | BigInt(this.#lo); }

    corner(xi, zi, octave = 0) {
      return m.noise_corner(this.#hi, this.#lo, int32('ValueNoise.corner: xi', xi), int32('ValueNoise.corner: zi', zi),
        octaveOf('ValueNoise.corner: octave', octave));
    }

    cornerFx(xi, zi, octave = 0) {
      return m.noise_corner_fx(this.#hi, this.#lo, int32('ValueNoise.cornerFx: xi', xi), int32('ValueNoise.cornerFx: zi', zi),
        octaveOf('ValueNoise.cornerFx: octave', octave));
    }

    octave(x, z, lattice, octave = 0) {
      return m.noise_octave(this.#hi, this.#lo, number('ValueNoise.octave: x', x), number('ValueNoise.octave: z', z),
        number('ValueNoise.octave: lattice', lattice), octaveOf('ValueNoise.octave: octave', octave));
    }

    octaveFx(x, z, lattice, octave = 0) {
      return m.noise_octave_fx(this.#hi, this.#lo, raw('ValueNoise.octaveFx: x', x), raw('ValueNoise.octaveFx: z', z),
        raw('ValueNoise.octaveFx: lattice', lattice), octaveOf('ValueNoise.octaveFx: octave', octave));
    }
  };
}

// ---- The game: its description, config, commands and inputs --------------------------------------

// The most inputs one call takes: far above any tick's (a room's players times its per-tick
// command allowance), and small enough that their copy in the instance's memory can never
// exhaust it.
const MAX_INPUTS = 65536;

function makeGameSchema(m) {
  const info = m.game_info();
  const deepFreeze = (o) => {
    if (o !== null && typeof o === 'object') {
      for (const v of Object.values(o)) deepFreeze(v);
      Object.freeze(o);
    }
    return o;
  };
  deepFreeze(info);
  const kinds = Object.freeze(m.input_kind_names());
  const inputBytes = info.inputBytes;
  const inputLimit = { bytes: MAX_INPUTS * inputBytes, what: `more than ${MAX_INPUTS} inputs (at most ${MAX_INPUTS} inputs of ${inputBytes} bytes per call)` };

  // The knobs a caller set, type-checked; the ranges are the C++ validate()'s.
  const config = (where, value) => fieldsObject(where, info.configKnobs, value, { what: 'config knob' });
  // A command: every field, each of its type; the game's own rules (its require()s) are its codec's.
  const command = (where, value) => fieldsObject(where, info.commandFields, value, { complete: true, what: 'command field' });

  // Checks every input object and returns fresh plain copies, each field read once: a bad
  // input leaves the world untouched with a message naming the field.
  function inputObjects(where, inputs) {
    if (!Array.isArray(inputs)) throw new TypeError(`${where}: inputs must be an array or a Uint8Array, got ${show(inputs)}`);
    const count = inputs.length;
    if (count > MAX_INPUTS) throw new RangeError(`${where}: ${count} inputs is more than ${MAX_INPUTS} (at most ${MAX_INPUTS} per call)`);
    const accepted = kinds.map((k) => `'${k}'`).join(', ');
    const out = new Array(count);
    for (let i = 0; i < count; ++i) {
      const at = `${where}: inputs[${i}]`;
      const input = inputs[i];
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        throw new TypeError(`${at} must be an object {player, kind, command}, got ${show(input)}`);
      }
      const player = integer(`${at}.player`, input.player, 0, UINT32_MAX);
      const kind = input.kind;
      if (typeof kind !== 'string') throw new TypeError(`${at}.kind must be a string (${accepted}), got ${show(kind)}`);
      if (!kinds.includes(kind)) throw new RangeError(`${at}.kind must be one of ${accepted}, got ${show(kind)}`);
      // A join or a leave may leave out its command (the game's default command).
      const given = input.command;
      out[i] = { player, kind, command: given === undefined && kind !== 'command' ? {} : command(`${at}.command`, given) };
    }
    return out;
  }

  return {
    info,
    kinds,
    inputBytes,
    config,
    command,
    inputObjects,
    inputBytesOf: (where, bytes) => plainBytes(where, bytes, inputLimit),
    /** Input objects as the canonical bytes (a fresh Uint8Array of inputBytes per input). */
    encodeInputs(inputs) {
      const result = m.inputs_encode(inputObjects('encodeInputs', inputs));
      if (!(result instanceof Uint8Array)) throw new InputError('encodeInputs', result, inputBytes);
      return result;
    },
    /** Canonical bytes as input objects; an InputError names the first record refused. */
    decodeInputs(bytes) {
      const result = m.inputs_decode(plainBytes('decodeInputs', bytes, inputLimit));
      if (!Array.isArray(result)) throw new InputError('decodeInputs', result, inputBytes);
      return result;
    },
  };
}

// ---- World: one state of the game and the Stepper that steps it -----------------------------

const NO_INPUTS = new Uint8Array(0);

function makeWorld(m, schema) {
  let adoptWorld;
  let detachWorld;
  let handleOf;

  class World {
    #h;
    #owned;

    /** @param {object} [config] any of the game's knobs (its typings: Config) */
    constructor(config = {}) {
      if (config === ADOPT) {
        ({ handle: this.#h, owned: this.#owned } = adopted());
      } else {
        const result = m.world_create(schema.config('new World: config', config));
        if (result.field !== undefined) throw configRefused('new World: config', result);
        this.#h = result;
        this.#owned = true;
      }
      if (this.#owned) own(this, this.#h);
    }

    static {
      adoptWorld = (handle, owned) => adopt(World, { handle, owned });
      detachWorld = (world) => { world.#h = null; };
      handleOf = (world) => world.#live();
    }

    static fromSnapshot(bytes) {
      const result = m.world_from_snapshot(plainBytes('World.fromSnapshot', bytes, LIMITS.snapshot, { views: true }));
      if (typeof result === 'string') throw new SnapshotError(result);
      return adoptWorld(result, true);
    }

    #live() { return live(this.#h, 'World'); }

    get tick() { return this.#live().tick(); }
    /** The ticks per second its config runs at (the game's G::tick_hz). */
    get tickHz() { return this.#live().tickHz(); }
    /** Every knob of this world's config (a fresh object; Fx knobs raw, 64-bit ones BigInt). */
    config() { return this.#live().config(); }
    /** What the last step did: [{kind, tick, ...}] as the game's registration reads them (empty before any step). */
    events() { return this.#live().events(); }

    /** inputs: an array of input objects, or a Uint8Array of canonical records. */
    step(tickInputs = NO_INPUTS) {
      const handle = this.#live();
      const refusal = isUint8Array(tickInputs) ? handle.stepBytes(schema.inputBytesOf('World.step', tickInputs))
        : handle.stepObjects(schema.inputObjects('World.step', tickInputs));
      if (refusal !== null) throw new InputError('World.step', refusal, schema.inputBytes);
      return this;
    }

    digest() { return this.#live().digest(); }
    sectionDigests() { return this.#live().sectionDigests(); }
    snapshot() { return this.#live().snapshot(); }
    dump() { return this.#live().dump(); }
    /** The whole state as a plain object, keyed by the visitor's names (the dump's). */
    state() { return this.#live().state(); }
    /** Every field as [{path, section, value}], value as the dump prints it. */
    fields() { return this.#live().fields(); }
    /** The fields that differ from `other`'s: {fields: [{path, section, self, other}], total}. */
    diff(other, limit = 32) {
      if (!(other instanceof World)) throw new TypeError(`World.diff: other must be a World, got ${show(other)}`);
      return this.#live().diff(other.#live(), integer('World.diff: limit', limit, 0, UINT32_MAX));
    }
    clone() { return adoptWorld(this.#live().clone(), true); }
    equals(other) {
      if (!(other instanceof World)) throw new TypeError(`World.equals: other must be a World, got ${show(other)}`);
      return this.#live().equals(other.#live());
    }
    /** What view() reads from now on (and the state before each step is kept for it). */
    setView(selection) { this.#live().setView(checkSelection('World.setView: selection', schema.info.state, selection)); }
    /**
     * {tick, current, previous, events}: the selected columns of this state and of the one
     * before its last step (null before any step since setView). Typed arrays are views into
     * the module's memory, valid until the next call into it.
     */
    view() { return this.#live().view(); }

    /** Frees the C++ world. A scenario's world belongs to the scenario: a no-op there. */
    delete() {
      if (!this.#owned) return;
      release(this, this.#h);
      this.#h = null;
    }
  }

  return { World: disposable(World), adoptWorld, detachWorld, handleOf };
}

// ---- Scenarios: the game's named, seeded runs -------------------------------------------------

function makeScenarios(m, { World, adoptWorld, detachWorld, handleOf }) {
  const list = () => m.scenario_list();
  const known = (where, name) => {
    if (typeof name !== 'string') throw new TypeError(`${where}: name must be a string, got ${show(name)}`);
    // A random world's spec ("random:SEED[:...]") is resolved, and refused with its reason, in C++.
    if (!name.startsWith('random:') && !list().some((s) => s.name === name)) {
      throw new RangeError(`${where}: unknown scenario ${show(name)} (known: ${list().map((s) => s.name).join(', ')})`);
    }
    return name;
  };

  class Scenario {
    #h;
    #world = null;

    constructor(token) {
      if (token !== ADOPT) throw new TypeError('Scenario: use Scenario.open(name)');
      this.#h = own(this, adopted());
    }

    /**
     * Starts the named scenario at tick 0, or, given `from`, drives a copy of that world
     * (e.g. one decoded from a snapshot) with the scenario's script.
     */
    static open(name, from = undefined) {
      known('Scenario.open', name);
      if (from !== undefined && !(from instanceof World)) {
        throw new TypeError(`Scenario.open: from must be a World of this module, got ${show(from)}`);
      }
      const result = from === undefined ? m.scenario_open(name) : m.scenario_resume(name, handleOf(from));
      if (typeof result === 'string') throw new RangeError(`Scenario.open: ${result}`);
      return adopt(Scenario, result);
    }

    #live() { return live(this.#h, 'Scenario'); }

    get name() { return this.#live().name(); }
    get tick() { return this.#live().tick(); }
    step(n = 1) {
      this.#live().step(integer('Scenario.step: n', n, 0, UINT32_MAX));
      return this;
    }
    digest() { return this.#live().digest(); }
    /** {section name: hex digest}, in the game's section order. */
    sectionDigests() { return this.#live().sectionDigests(); }
    /** The canonical state as `tandem dump` prints it. */
    dump() { return this.#live().dump(); }
    /** The scenario's own world (not a copy): valid until the scenario is deleted. */
    get world() {
      this.#world ??= adoptWorld(this.#live().world(), false);
      return this.#world;
    }

    delete() {
      if (this.#world !== null) {
        detachWorld(this.#world);
        this.#world = null;
      }
      release(this, this.#h);
      this.#h = null;
    }
  }

  function runScenario(name, ticks, every = 1) {
    known('runScenario', name);
    integer('runScenario: ticks', ticks, 0, UINT32_MAX);
    integer('runScenario: every', every, 1, UINT32_MAX);
    const result = m.scenario_run(name, ticks, every);
    if (typeof result === 'string') throw new RangeError(`runScenario: ${result}`);
    return result;
  }

  return { Scenario: disposable(Scenario), scenarios: list, runScenario };
}

// ---- The module ----------------------------------------------------------------------------

/**
 * Loads the WebAssembly module and returns the API of the package's game. Resolves the .wasm
 * beside this file unless options.wasmUrl, options.wasmBinary or options.wasmModule say otherwise.
 */
export default async function createTandem(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`createTandem: options must be an object, got ${show(options)}`);
  const m = await instantiate('createTandem', options);
  const fx = makeFx(m);
  const { FixedTimestep, Periodic } = makeTime(m, fx);
  const schema = makeGameSchema(m);
  const world = makeWorld(m, schema);
  const { World } = world;
  const { Scenario, scenarios, runScenario } = makeScenarios(m, world);
  const { info } = schema;
  // The game: its description and its scenarios in one object (the determinism check's surface).
  const game = Object.freeze({
    name: info.name,
    fingerprint: info.fingerprint,
    version: info.version,
    sections: info.sections,
    configKnobs: info.configKnobs,
    commandFields: info.commandFields,
    state: info.state,
    eventFields: info.eventFields,
    eased: info.eased,
    inputBytes: info.inputBytes,
    scenarios,
    openScenario: (name) => Scenario.open(name),
    runScenario,
  });
  const net = makeNet(m, { World, schema });
  return Object.freeze({
    version: m.version(),
    fingerprint: info.fingerprint,
    game,
    fx,
    ValueNoise: makeNoise(m),
    FixedTimestep,
    Periodic,
    /**
     * What one page frame may spend on simulation, from the gap since the previous frame (ms):
     * the client session's own rule (client_session.hpp, frame_budget_ns), so page and session agree.
     */
    frameBudgetMs: (gapMs) => m.frame_budget_ms(number('frameBudgetMs: gapMs', gapMs)),
    /**
     * What an advance of a session in a thread that draws nothing (a page's session worker) may
     * spend, from the time since its previous advance: all of it, within 8 to 32 ms
     * (client_session.hpp, worker_budget_ns).
     */
    workerBudgetMs: (sinceLastMs) => m.worker_budget_ms(number('workerBudgetMs: sinceLastMs', sinceLastMs)),
    World,
    configKnobs: info.configKnobs,
    defaultConfig: () => m.default_config(),
    /** The config the knobs given make (the defaults for the rest), checked by the game's validate(). */
    resolveConfig(config) {
      const result = m.resolve_config(schema.config('resolveConfig: config', config));
      if (result.field !== undefined && result.code !== undefined && result.message !== undefined) throw configRefused('resolveConfig: config', result);
      return result;
    },
    /** A command checked and copied (every field of the game's command, its own rules kept), or throws. */
    checkCommand(command) {
      const copy = schema.command('checkCommand: command', command);
      const refusal = m.command_refusal(copy);
      if (refusal !== null) throw new InputError('checkCommand', refusal, schema.inputBytes);
      return copy;
    },
    SnapshotError,
    InputError,
    ReplayError,
    TicketError,
    INPUT_BYTES: schema.inputBytes,
    inputKinds: schema.kinds,
    encodeInputs: schema.encodeInputs,
    decodeInputs: schema.decodeInputs,
    Scenario,
    scenarios,
    runScenario,
    ...net,
  });
}

export { createTandem, SnapshotError, InputError, ReplayError, TicketError };
