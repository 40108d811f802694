// checks.mjs: what every part of the package's JS layer checks a caller's values with, and how
// it owns C++ objects. Each check throws a TypeError or RangeError whose message names the call
// and the field, before anything reaches the C++, so a refused call changes nothing and no
// caller code (a getter, a proxy, a lying typed array) runs once the C++ has been entered.
// Values are checked against the game's own schema (its field types, from its visitors).

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;
export const UINT32_MAX = 4294967295;

export function show(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

export function number(where, value) {
  if (typeof value !== 'number') throw new TypeError(`${where} must be a number, got ${show(value)}`);
  return value;
}

export function integer(where, value, min, max) {
  number(where, value);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${where} must be an integer in [${min}, ${max}], got ${show(value)}`);
  }
  return value;
}

export const raw = (where, value) => integer(where, value, INT32_MIN, INT32_MAX);

/** A performance.now()-style time: a finite number of milliseconds, not negative. */
export function ms(where, value) {
  number(where, value);
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${where} must be a finite number of milliseconds >= 0, got ${show(value)}`);
  return value;
}

export function plainObject(where, value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`${where} must be an object, got ${show(value)}`);
  return value;
}

// ---- Field values by their type in a game's schema --------------------------------------------

const RANGES = {
  u8: [0, 255], u16: [0, 65535], u32: [0, UINT32_MAX], i8: [-128, 127], i16: [-32768, 32767], i32: [INT32_MIN, INT32_MAX],
};
const BIG = { u64: [0n, 0xffffffffffffffffn], i64: [-0x8000000000000000n, 0x7fffffffffffffffn], rng: [1n, 0xffffffffffffffffn] };

// A 64-bit value from a safe integer or a bigint, as a BigInt (how the C++ reads it).
function big(where, value, [min, max]) {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`${where} must be a safe integer or a bigint, got ${show(value)}`);
    value = BigInt(value);
  } else if (typeof value !== 'bigint') {
    throw new TypeError(`${where} must be a number or bigint, got ${show(value)}`);
  }
  if (value < min || value > max) throw new RangeError(`${where} must be in [${min}, ${max}], got ${value}n`);
  return value;
}

/**
 * One value of a field type (`u8` .. `i64`, `bool`, `fx`, `vec2`, `key`, `rng`), checked and copied:
 * integers and fx (raw Q16.16) as numbers, 64-bit values as BigInt, vec2 as {x, y} raw, key as
 * {index, generation}.
 */
export function fieldValue(where, type, value) {
  if (type in RANGES) return integer(where, value, ...RANGES[type]);
  if (type in BIG) return big(where, value, BIG[type]);
  switch (type) {
    case 'bool':
      if (typeof value !== 'boolean') throw new TypeError(`${where} must be a boolean, got ${show(value)}`);
      return value;
    case 'fx': return raw(where, value);
    case 'vec2': {
      plainObject(where, value);
      return { x: raw(`${where}.x`, value.x), y: raw(`${where}.y`, value.y) };
    }
    case 'key': {
      plainObject(where, value);
      return { index: integer(`${where}.index`, value.index, 0, UINT32_MAX), generation: integer(`${where}.generation`, value.generation, 0, UINT32_MAX) };
    }
    default: throw new Error(`${where}: unknown field type '${type}'`);
  }
}

/**
 * An object of named fields (a config's knobs, a command's fields: [{name, type}], names
 * "outer.inner" for nested objects), checked and copied. Unknown keys are refused; a missing
 * one is left to the C++ default unless `complete`.
 */
export function fieldsObject(where, schema, value, { complete = false, what = 'field' } = {}) {
  plainObject(where, value);
  const names = schema.map((f) => f.name.split('.')[0]);
  for (const key of Object.keys(value)) {
    if (!names.includes(key)) throw new TypeError(`${where}.${key} is not a ${what} (${what}s: ${[...new Set(names)].join(', ')})`);
  }
  const out = {};
  for (const { name, type } of schema) {
    const path = name.split('.');
    let from = value;
    let to = out;
    for (const part of path.slice(0, -1)) {
      from = from?.[part];
      to = to[part] ??= {};
    }
    const last = path[path.length - 1];
    const v = from === undefined ? undefined : from[last];   // read once: the checked value is the one passed on
    if (v === undefined) {
      if (complete) throw new TypeError(`${where}.${name} is missing (a ${type})`);
      continue;
    }
    to[last] = fieldValue(`${where}.${name}`, type, v);
  }
  return out;
}

// A view selection ({lists: {name: [field, ...]}, scalars: [path, ...]}) checked against the
// state's shape: what a page draws, read into column buffers each frame (no object per element).
export function checkSelection(where, shape, selection) {
  plainObject(where, selection);
  const { lists = {}, scalars = [] } = selection;
  plainObject(`${where}.lists`, lists);
  const out = { lists: {}, scalars: [] };
  for (const [name, fields] of Object.entries(lists)) {
    const list = shape.lists.find((l) => l.name === name);
    if (list === undefined) throw new RangeError(`${where}.lists.${name}: the state has no list '${name}' (lists: ${shape.lists.map((l) => l.name).join(', ')})`);
    if (!Array.isArray(fields)) throw new TypeError(`${where}.lists.${name} must be an array of field names, got ${show(fields)}`);
    out.lists[name] = fields.map((f, i) => {
      if (typeof f !== 'string' || !list.fields.some((x) => x.name === f)) {
        throw new RangeError(`${where}.lists.${name}[${i}]: ${show(f)} is not a field of its elements (${list.fields.map((x) => x.name).join(', ')})`);
      }
      return f;
    });
  }
  if (!Array.isArray(scalars)) throw new TypeError(`${where}.scalars must be an array of paths, got ${show(scalars)}`);
  out.scalars = scalars.map((p, i) => {
    if (typeof p !== 'string' || !shape.fields.some((x) => x.path === p)) {
      throw new RangeError(`${where}.scalars[${i}]: ${show(p)} is not a field outside the lists`);
    }
    return p;
  });
  return out;
}

// ---- Bytes from a caller: read through the engine's own accessors ----------------------------

// A subclass of Uint8Array can override length, byteLength and friends, and an object can
// pretend to be one through its prototype. The C++ must never see either: it would size its
// copy from a lie (and run out of memory, which aborts the instance). So bytes are recognised
// and measured with %TypedArray%.prototype's own getters and handed over as a fresh plain view.
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const getter = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
const typedTag = getter(typedArrayProto, Symbol.toStringTag);   // undefined for a non-typed array
const typedBuffer = getter(typedArrayProto, 'buffer');
const typedOffset = getter(typedArrayProto, 'byteOffset');
const typedLength = getter(typedArrayProto, 'byteLength');
const dataViewBuffer = getter(DataView.prototype, 'buffer');
const dataViewOffset = getter(DataView.prototype, 'byteOffset');
const dataViewLength = getter(DataView.prototype, 'byteLength');
const arrayBufferLength = getter(ArrayBuffer.prototype, 'byteLength');

export const isUint8Array = (value) => typedTag.call(value) === 'Uint8Array';

/**
 * A plain Uint8Array over the caller's bytes, at most `limit.bytes` of them. views: also accept
 * any other typed array, a DataView or an ArrayBuffer (their bytes, not their elements).
 */
export function plainBytes(where, value, limit, { views = false } = {}) {
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

// The limits keep a caller's mistake from exhausting the instance's memory, far above any
// legal size.
export const LIMITS = {
  // A client message is at most 138 bytes (a desync of 16 section digests); larger ones still
  // reach the room, which refuses them.
  clientMessage: { bytes: 1 << 16, what: 'larger than any client message the room would read (at most 65536 bytes)' },
  // Far above the largest baseline a shipped game writes (about 3.2 MiB).
  serverMessage: { bytes: 1 << 24, what: 'larger than any server message (at most 16 MiB)' },
  snapshot: { bytes: 1 << 24, what: `larger than any snapshot (at most ${1 << 24} bytes)` },
  replay: { bytes: 1 << 28, what: 'larger than any replay this module reads (at most 256 MiB)' },
  // A ticket is at most 192 bytes (include/tandem/net/protocol.hpp's max_ticket_bytes).
  ticket: { bytes: 4096, what: 'larger than any ticket (at most 192 bytes)' },
};

// ---- Handles: C++ objects owned by a JS wrapper -----------------------------------------------

// A wrapper forgotten without delete() frees its C++ object when collected; delete() is still
// the way to free memory at a known time (collection may never run).
const finalizers = new FinalizationRegistry((handle) => {
  if (!handle.isDeleted()) handle.delete();
});

// Module-private construction: `new Class(ADOPT)` wraps the handle in `adopted()`.
export const ADOPT = Symbol('adopt');
let adoptedHandle = null;
export const adopted = () => adoptedHandle;
export function adopt(Class, handle) {
  adoptedHandle = handle;
  try {
    return new Class(ADOPT);
  } finally {
    adoptedHandle = null;
  }
}

export function own(wrapper, handle) {
  finalizers.register(wrapper, handle, wrapper);
  return handle;
}

export function release(wrapper, handle) {
  if (handle === null) return;
  finalizers.unregister(wrapper);
  handle.delete();
}

export function live(handle, what) {
  if (handle === null) throw new Error(`${what} has been deleted`);
  return handle;
}

/** `using x = ...` frees it at the end of the block where the engine has explicit resource management. */
export function disposable(Class) {
  if (Symbol.dispose) Class.prototype[Symbol.dispose] = Class.prototype.delete;
  return Class;
}

// ---- Errors with stable codes ---------------------------------------------------------------

/** A snapshot the decoder refused: .code is its typed reason (truncated, bad_magic, ...). */
export class SnapshotError extends Error {
  constructor(code, where = 'World.fromSnapshot') {
    super(`${where}: snapshot rejected (${code})`);
    this.name = 'SnapshotError';
    this.code = code;
  }
}

/** An input record or command the game's codec refused: .code, and which record (.index). */
export class InputError extends Error {
  constructor(where, { index, code, message }, recordBytes) {
    super(index === undefined ? `${where}: refused: ${message}`
      : `${where}: input ${index} (bytes ${index * recordBytes}..${index * recordBytes + recordBytes - 1}) refused: ${message}`);
    this.name = 'InputError';
    this.code = code;
    this.index = index;
  }
}

/**
 * The replay reader's typed refusal: .code (truncated, bad_magic, fingerprint_mismatch,
 * out_of_order, tick_not_covered, ...), the record (0-based) and byte offset where it stopped.
 */
export class ReplayError extends Error {
  constructor(where, { code, record, offset, message }) {
    super(`${where}: ${message}`);
    this.name = 'ReplayError';
    this.code = code;
    this.record = record;
    this.offset = offset;
  }
}

/**
 * A join ticket that does not decode: .code is the codec's (truncated, unknown_ticket_format,
 * bad_room_name, bad_text, ...), or not_base64url for text that is no ticket at all.
 */
export class TicketError extends Error {
  constructor(where, { code, message }) {
    super(`${where}: ${message}`);
    this.name = 'TicketError';
    this.code = code;
  }
}

/** A config the C++ validate() refused: a RangeError naming the knob, with .code and .field. */
export function configRefused(where, { field, code, message }) {
  return Object.assign(new RangeError(`${where}.${field} is out of range: ${message}`), { code, field });
}
