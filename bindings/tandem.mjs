// tandem.mjs: the package's entry point for browsers and bundlers (the "default" condition of
// its exports; Node gets tandem.node.mjs, which adds reading the .wasm from disk). It loads the
// Emscripten module and wraps the thin Embind layer in an idiomatic surface: argument checks
// that throw TypeError/RangeError naming the field, errors with stable .code values, plain
// objects out. It never decides anything the simulation depends on; the C++ does. Nothing
// here may name a Node module: a bundler building for the browser follows every import.

import createTandemWasm from './tandem-wasm.mjs';
import { makeNet, ReplayError } from './net.mjs';

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

// The largest .wasm accepted as options.wasmBinary: far above this module's (under 1 MiB).
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
      throw new Error(`${where}: cannot fetch ${url.href} (${error.message}); in Node import the package as 'tandem' `
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

// ---- Argument checks: every message names the call and the field -------------------------

function show(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function number(where, value) {
  if (typeof value !== 'number') throw new TypeError(`${where} must be a number, got ${show(value)}`);
  return value;
}

function integer(where, value, min, max) {
  number(where, value);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${where} must be an integer in [${min}, ${max}], got ${show(value)}`);
  }
  return value;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const UINT32_MAX = 4294967295;
const raw = (where, value) => integer(where, value, INT32_MIN, INT32_MAX);

// ---- fx: Q16.16 as raw integers in JS numbers ---------------------------------------------

function makeFx(m) {
  const unary = (name, fn) => (a) => fn(raw(`fx.${name}: a`, a));
  const binary = (name, fn) => (a, b) => fn(raw(`fx.${name}: a`, a), raw(`fx.${name}: b`, b));
  return Object.freeze({
    ONE: 65536,
    MIN: INT32_MIN,
    MAX: INT32_MAX,
    EPSILON: 1,
    fromInt: (i) => m.fx_from_int(raw('fx.fromInt: i', i)),
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

// ---- Handles: C++ objects owned by a JS wrapper --------------------------------------------

// A wrapper forgotten without delete() frees its C++ object when collected; delete() is
// still the way to free memory at a known time (collection may never run).
const finalizers = new FinalizationRegistry((handle) => {
  if (!handle.isDeleted()) handle.delete();
});

// Module-private construction: `new Class(ADOPT)` wraps the handle in `adopted`.
const ADOPT = Symbol('adopt');
let adopted = null;
function adopt(Class, handle) {
  adopted = handle;
  try {
    return new Class(ADOPT);
  } finally {
    adopted = null;
  }
}

function own(wrapper, handle) {
  finalizers.register(wrapper, handle, wrapper);
  return handle;
}

function release(wrapper, handle) {
  if (handle === null) return;
  finalizers.unregister(wrapper);
  handle.delete();
}

function live(handle, what) {
  if (handle === null) throw new Error(`${what} has been deleted`);
  return handle;
}

// A time-result from C++: a handle, or the refusal's sentence.
function refusedOr(where, result) {
  if (typeof result === 'string') throw new RangeError(`${where}: ${result}`);
  return result;
}

const NS_PER_MS = 1e6;

function makeTime(m) {
  class FixedTimestep {
    #h;

    /** @param {number} stepMs */
    constructor(stepMs) {
      const handle = stepMs === ADOPT ? adopted
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
    alpha() { return live(this.#h, 'FixedTimestep').alpha() / 65536; }
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
      const handle = intervalMs === ADOPT ? adopted
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

  if (Symbol.dispose) {
    FixedTimestep.prototype[Symbol.dispose] = FixedTimestep.prototype.delete;
    Periodic.prototype[Symbol.dispose] = Periodic.prototype.delete;
  }
  return { FixedTimestep, Periodic };
}

// ---- World ---------------------------------------------------------------------------------

// ---- Bytes from a caller: read through the engine's own accessors --------------------------

// A subclass of Uint8Array can override length, byteLength and friends, and an object can
// pretend to be one through its prototype. The C++ must never see either: it would size its
// copy from a lie (and run out of memory, which aborts the instance). So bytes are recognised
// and measured with %TypedArray%.prototype's own getters and handed over as a fresh plain view.
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const getter = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
const typedTag = getter(typedArrayProto, Symbol.toStringTag);  // undefined for a non-typed array
const typedBuffer = getter(typedArrayProto, 'buffer');
const typedOffset = getter(typedArrayProto, 'byteOffset');
const typedLength = getter(typedArrayProto, 'byteLength');
const dataViewBuffer = getter(DataView.prototype, 'buffer');
const dataViewOffset = getter(DataView.prototype, 'byteOffset');
const dataViewLength = getter(DataView.prototype, 'byteLength');
const arrayBufferLength = getter(ArrayBuffer.prototype, 'byteLength');

// A plain Uint8Array over the caller's bytes, at most `limit` of them. views: also accept any
// other typed array, a DataView or an ArrayBuffer (their bytes, not their elements).
function plainBytes(where, value, limit, { views = false } = {}) {
  let buffer;
  let offset = 0;
  let length;
  const tag = typedTag.call(value);
  if (tag === 'Uint8Array' || (views && tag !== undefined)) {
    [buffer, offset, length] = [typedBuffer.call(value), typedOffset.call(value), typedLength.call(value)];
  } else if (views && ArrayBuffer.isView(value)) {
    [buffer, offset, length] = [dataViewBuffer.call(value), dataViewOffset.call(value), dataViewLength.call(value)];
  } else if (views && isArrayBuffer(value)) {
    [buffer, length] = [value, arrayBufferLength.call(value)];
  } else {
    throw new TypeError(`${where}: bytes must be a Uint8Array${views ? ', another ArrayBuffer view or an ArrayBuffer' : ''}, got ${show(value)}`);
  }
  if (length > limit.bytes) throw new RangeError(`${where}: ${length} bytes is ${limit.what}`);
  return new Uint8Array(buffer, offset, length);
}

function isArrayBuffer(value) {
  try {
    arrayBufferLength.call(value);
    return true;
  } catch {
    return false;
  }
}

// ---- Inputs --------------------------------------------------------------------------------

// Inputs enter the world as the world's canonical bytes: 13 bytes per input, little-endian,
//   u32 player | u8 kind (0 join, 1 leave, 2 steer) | i32 target.x raw | i32 target.y raw
// the same records the wire and replays carry. A caller passes those bytes (a Uint8Array) or
// plain objects, which the C++ writes into records with the world's own encoder; either way
// the C++ reads every record back with the world's decoder before the world sees it.
const INPUT_BYTES = 13;
// The most inputs one call takes: far above any tick's (a room's players times its per-tick
// steer allowance), and small enough that their copy in the instance's memory (832 KiB)
// can never exhaust it.
const MAX_INPUTS = 65536;
const INPUT_LIMIT = { bytes: MAX_INPUTS * INPUT_BYTES, what: `more than ${MAX_INPUTS} inputs (at most ${MAX_INPUTS} inputs of ${INPUT_BYTES} bytes per call)` };
// Far above the largest snapshot a valid world writes (about 3.2 MiB at 131,072 pellets and 64
// wells), so that a caller's bytes can never exhaust the instance's memory.
const SNAPSHOT_LIMIT = { bytes: 1 << 24, what: `larger than any snapshot (at most ${1 << 24} bytes)` };

// The decoder's typed reason for refusing an input record, and which record it was.
export class InputError extends Error {
  constructor(where, { index, code, message }) {
    super(`${where}: input ${index} (bytes ${index * INPUT_BYTES}..${index * INPUT_BYTES + INPUT_BYTES - 1}) refused: ${message}`);
    this.name = 'InputError';
    this.code = code;
    this.index = index;
  }
}

// Checks every field of every input object and returns fresh plain copies, each field read
// once: a bad input leaves the world untouched with a message naming the field, and no getter
// or proxy of the caller's runs once the C++ has been entered. `kinds`: the C++'s kind names.
function checkInputObjects(where, inputs, kinds) {
  if (!Array.isArray(inputs)) throw new TypeError(`${where}: inputs must be an array or a Uint8Array, got ${show(inputs)}`);
  const count = inputs.length;
  if (count > MAX_INPUTS) throw new RangeError(`${where}: ${count} inputs is more than ${MAX_INPUTS} (at most ${MAX_INPUTS} per call)`);
  const accepted = kinds.map((k) => `'${k}'`).join(', ');
  const out = new Array(count);
  for (let i = 0; i < count; ++i) {
    const at = `${where}: inputs[${i}]`;
    const input = inputs[i];
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new TypeError(`${at} must be an object {player, kind, target}, got ${show(input)}`);
    }
    const player = integer(`${at}.player`, input.player, 0, UINT32_MAX);
    const kind = input.kind;
    if (typeof kind !== 'string') throw new TypeError(`${at}.kind must be a string (${accepted}), got ${show(kind)}`);
    if (!kinds.includes(kind)) throw new RangeError(`${at}.kind must be one of ${accepted}, got ${show(kind)}`);
    const target = input.target;
    if (kind === 'leave' && target === undefined) {
      out[i] = { player, kind, target: { x: 0, y: 0 } };
      continue;
    }
    if (target === null || typeof target !== 'object') {
      throw new TypeError(`${at}.target must be an object {x, y} of raw Q16.16 integers, got ${show(target)}`);
    }
    out[i] = { player, kind, target: { x: raw(`${at}.target.x`, target.x), y: raw(`${at}.target.y`, target.y) } };
  }
  return out;
}

function makeInputs(m) {
  const kinds = Object.freeze(m.input_kind_names());
  return {
    INPUT_BYTES,
    inputKinds: kinds,
    checkObjects: (where, inputs) => checkInputObjects(where, inputs, kinds),
    checkBytes: (where, bytes) => plainBytes(where, bytes, INPUT_LIMIT),
    isBytes: (value) => typedTag.call(value) === 'Uint8Array',
    /** Input objects as the canonical bytes (a fresh Uint8Array of 13 bytes per input). */
    encodeInputs(inputs) {
      return m.inputs_encode(checkInputObjects('encodeInputs', inputs, kinds));
    },
    /** Canonical bytes as input objects; an InputError names the first record refused. */
    decodeInputs(bytes) {
      const result = m.inputs_decode(plainBytes('decodeInputs', bytes, INPUT_LIMIT));
      if (!Array.isArray(result)) throw new InputError('decodeInputs', result);
      return result;
    },
  };
}

// The decoder's typed reason, as an Error a caller can switch on.
export class SnapshotError extends Error {
  constructor(code) {
    super(`World.fromSnapshot: snapshot rejected (${code})`);
    this.name = 'SnapshotError';
    this.code = code;
  }
}

const NO_INPUTS = new Uint8Array(0);

// ---- Config: every knob of the C++ WorldConfig, named and typed by the C++ itself ---------

// A u64 knob (the seed) crosses as two u32 words; from a safe integer or a bigint.
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

function makeConfig(m) {
  // [{name: 'tickHz', type: 'u32'}, ...] in the C++ for_each_config_field order: u64 (the seed),
  // u32, or fx (a raw Q16.16 int32).
  const knobs = Object.freeze(m.config_knobs().map((k) => Object.freeze(k)));
  const names = knobs.map((k) => k.name);
  const check = { u64: u64Words, u32: (where, v) => integer(where, v, 0, UINT32_MAX), fx: raw };

  // The knobs a caller set, type-checked; the ranges are the C++ validate()'s.
  function overrides(where, config) {
    if (config === null || typeof config !== 'object' || Array.isArray(config)) {
      throw new TypeError(`${where} must be an object, got ${show(config)}`);
    }
    for (const key of Object.keys(config)) {
      if (!names.includes(key)) throw new TypeError(`${where}.${key} is not a config knob (knobs: ${names.join(', ')})`);
    }
    const out = {};
    for (const { name, type } of knobs) {
      const value = config[name];   // read once: the checked value is the one passed on
      if (value !== undefined) out[name] = check[type](`${where}.${name}`, value);
    }
    return out;
  }

  // The C++ config as the JS one: every knob, the seed as a bigint.
  function fromCpp(config) {
    const out = {};
    for (const { name, type } of knobs) {
      const v = config[name];
      out[name] = type === 'u64' ? (BigInt(v.hi) << 32n) | BigInt(v.lo) : v;
    }
    return out;
  }

  // validate()'s refusal: a RangeError naming the knob and its range, with the C++ code.
  function refused(where, { field, code, message }) {
    return Object.assign(new RangeError(`${where}.${field} is out of range: ${message}`), { code, field });
  }

  return { knobs, overrides, fromCpp, refused, defaults: () => fromCpp(m.default_config()) };
}


function makeWorld(m, inputs, knobs) {
  let adoptWorld;
  let detachWorld;
  let handleOf;

  class World {
    #h;
    #owned;

    /** @param {object} [config] any of the 16 knobs (tandem.d.ts WorldConfig) */
    constructor(config = {}) {
      if (config === ADOPT) {
        this.#h = adopted.handle;
        this.#owned = adopted.owned;
      } else {
        const result = m.world_create(knobs.overrides('new World: config', config));
        if (result.field !== undefined) throw knobs.refused('new World: config', result);
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
      const result = m.world_from_snapshot(plainBytes('World.fromSnapshot', bytes, SNAPSHOT_LIMIT, { views: true }));
      if (typeof result === 'string') throw new SnapshotError(result);
      return adoptWorld(result, true);
    }

    #live() {
      if (this.#h === null) throw new Error('World has been deleted');
      return this.#h;
    }

    get tick() { return this.#live().tick(); }
    /** Every knob of this world's config (a fresh object; Fx knobs raw, the seed a bigint). */
    config() { return knobs.fromCpp(this.#live().config()); }
    get pelletCount() { return this.#live().pelletCount(); }
    get captures() { return this.#live().captures(); }
    /** What the last step did: [{kind, player, pellet}], a fresh array (empty before any step). */
    events() { return this.#live().events(); }

    /** inputs: an array of input objects, or a Uint8Array of canonical 13-byte records. */
    step(tickInputs = NO_INPUTS) {
      const handle = this.#live();
      const refusal = inputs.isBytes(tickInputs) ? handle.stepBytes(inputs.checkBytes('World.step', tickInputs))
        : handle.stepObjects(inputs.checkObjects('World.step', tickInputs));
      if (refusal !== null) throw new InputError('World.step', refusal);
      return this;
    }

    digest() { return this.#live().digest(); }
    sectionDigests() { return this.#live().sectionDigests(); }
    snapshot() { return this.#live().snapshot(); }
    pelletPositions() { return this.#live().pelletPositions(); }
    wells() { return this.#live().wells(); }
    scores() { return this.#live().scores(); }
    dump() { return this.#live().dump(); }
    clone() { return adoptWorld(this.#live().clone(), true); }

    equals(other) {
      if (!(other instanceof World)) throw new TypeError(`World.equals: other must be a World, got ${show(other)}`);
      return this.#live().equals(other.#live());
    }

    /** Frees the C++ world. A scenario's world belongs to the scenario: a no-op there. */
    delete() {
      if (!this.#owned) return;
      release(this, this.#h);
      this.#h = null;
    }
  }

  if (Symbol.dispose) World.prototype[Symbol.dispose] = World.prototype.delete;
  return { World, adoptWorld, detachWorld, handleOf };
}

// ---- ValueNoise: the core's noise, a plain value (its seed), nothing to delete ------------

function makeNoise(m) {
  const int32 = (where, v) => integer(where, v, INT32_MIN, INT32_MAX);
  const octaveOf = (where, v) => integer(where, v, 0, UINT32_MAX);

  class ValueNoise {
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
  }
  return ValueNoise;
}

// ---- Scenarios -----------------------------------------------------------------------------

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
    #world;

    constructor(token) {
      if (token !== ADOPT) throw new TypeError('Scenario: use Scenario.open(name)');
      this.#h = own(this, adopted);
      this.#world = null;
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

    #live() {
      if (this.#h === null) throw new Error('Scenario has been deleted');
      return this.#h;
    }

    get name() { return this.#live().name(); }
    get tick() { return this.#live().tick(); }

    step(n = 1) {
      this.#live().step(integer('Scenario.step: n', n, 0, UINT32_MAX));
      return this;
    }

    digest() { return this.#live().digest(); }

    /** The scenario's own world (not a copy): valid until the scenario is deleted. */
    get world() {
      const handle = this.#live();
      if (this.#world === null) this.#world = adoptWorld(handle.world(), false);
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
  if (Symbol.dispose) Scenario.prototype[Symbol.dispose] = Scenario.prototype.delete;

  function scenarios() {
    return list();
  }

  function runScenario(name, ticks, every = 1) {
    known('runScenario', name);
    integer('runScenario: ticks', ticks, 0, UINT32_MAX);
    integer('runScenario: every', every, 1, UINT32_MAX);
    const result = m.scenario_run(name, ticks, every);
    if (typeof result === 'string') throw new RangeError(`runScenario: ${result}`);
    return result;
  }

  return { Scenario, scenarios, runScenario };
}

// ---- Games: every game the package ships, through the one seam ------------------------------

function makeGames(m) {
  const list = m.game_list().map((g) => Object.freeze({ ...g, sections: Object.freeze(g.sections) }));
  const names = list.map((g) => g.name);
  const gameNamed = (where, name) => {
    if (typeof name !== 'string') throw new TypeError(`${where}: game must be a string, got ${show(name)}`);
    const g = list.find((x) => x.name === name);
    if (!g) throw new RangeError(`${where}: unknown game ${show(name)} (known: ${names.join(', ')})`);
    return g;
  };
  const scenarioName = (where, name) => {
    if (typeof name !== 'string') throw new TypeError(`${where}: scenario must be a string, got ${show(name)}`);
    return name;
  };

  /** One scenario of one game, stepped tick by tick (any game: see `games`). */
  class GameScenario {
    #h;
    constructor(token) {
      if (token !== ADOPT) throw new TypeError('GameScenario: use game(name).openScenario(scenario)');
      this.#h = own(this, adopted);
    }
    get name() { return live(this.#h, 'GameScenario').name(); }
    get tick() { return live(this.#h, 'GameScenario').tick(); }
    step(n = 1) {
      live(this.#h, 'GameScenario').step(integer('GameScenario.step: n', n, 0, UINT32_MAX));
      return this;
    }
    digest() { return live(this.#h, 'GameScenario').digest(); }
    /** {section name: hex digest}, in the game's section order. */
    sectionDigests() { return live(this.#h, 'GameScenario').sectionDigests(); }
    /** The canonical state as `tandem dump` prints it. */
    dump() { return live(this.#h, 'GameScenario').dump(); }
    delete() {
      release(this, this.#h);
      this.#h = null;
    }
  }
  if (Symbol.dispose) GameScenario.prototype[Symbol.dispose] = GameScenario.prototype.delete;

  /** A shipped game by name: its fingerprint, sections and scenarios, and ways to run them. */
  function game(name) {
    const g = gameNamed('game', name);
    return Object.freeze({
      ...g,
      scenarios: () => m.game_scenarios(g.name),
      openScenario(scenario) {
        const result = m.game_scenario_open(g.name, scenarioName(`game('${g.name}').openScenario`, scenario));
        if (typeof result === 'string') throw new RangeError(`game('${g.name}').openScenario: ${result}`);
        return adopt(GameScenario, result);
      },
      runScenario(scenario, ticks, every = 1) {
        const where = `game('${g.name}').runScenario`;
        scenarioName(where, scenario);
        integer(`${where}: ticks`, ticks, 0, UINT32_MAX);
        integer(`${where}: every`, every, 1, UINT32_MAX);
        const result = m.game_scenario_run(g.name, scenario, ticks, every);
        if (typeof result === 'string') throw new RangeError(`${where}: ${result}`);
        return result;
      },
    });
  }
  return { games: Object.freeze(names), game, GameScenario };
}

// ---- The module ----------------------------------------------------------------------------

/**
 * Loads the WebAssembly module and returns the tandem API. Resolves the .wasm beside this
 * file unless options.wasmUrl, options.wasmBinary or options.wasmModule say otherwise.
 */
export default async function createTandem(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`createTandem: options must be an object, got ${show(options)}`);
  const m = await instantiate('createTandem', options);
  const { FixedTimestep, Periodic } = makeTime(m);
  const inputs = makeInputs(m);
  const knobs = makeConfig(m);
  const world = makeWorld(m, inputs, knobs);
  const { World } = world;
  const { Scenario, scenarios, runScenario } = makeScenarios(m, world);
  const { games, game, GameScenario } = makeGames(m);
  const net = makeNet(m, { World, knobs, show, number, integer, own, release, plainBytes });
  return Object.freeze({
    version: m.version(),
    fingerprint: m.fingerprint(),
    fx: makeFx(m),
    ValueNoise: makeNoise(m),
    FixedTimestep,
    Periodic,
    World,
    configKnobs: knobs.knobs,
    defaultConfig: knobs.defaults,
    SnapshotError,
    InputError,
    INPUT_BYTES: inputs.INPUT_BYTES,
    inputKinds: inputs.inputKinds,
    encodeInputs: inputs.encodeInputs,
    decodeInputs: inputs.decodeInputs,
    Scenario,
    scenarios,
    runScenario,
    games,
    game,
    GameScenario,
    ...net,
  });
}

export { createTandem, ReplayError };
