// Typings of the tandem ES module (tandem.mjs). Hand-written: every export, with the units,
// the ranges and the lifetime rules a caller needs. Keep in step with tandem.mjs.

/**
 * A Q16.16 fixed-point value as its raw bit pattern: an integer in
 * [-2147483648, 2147483647] whose value is `raw / 65536`. Plain JS numbers hold it exactly.
 * Functions that take one throw a RangeError for a non-integer or out-of-range number.
 */
export type FxRaw = number;

/** A 64-bit digest as 16 lowercase hex digits, exactly as the native CLI prints it. */
export type DigestHex = string;

/**
 * Options of {@link createTandem}. None is needed in Node, in a page served over HTTP, or
 * through a bundler that rewrites `new URL('./tandem-wasm.wasm', import.meta.url)` (Vite,
 * webpack); with esbuild, copy the .wasm beside the bundle (README.md).
 */
export interface CreateOptions {
  /** Where the .wasm is, resolved against the module's URL. Default: `tandem-wasm.wasm` beside it. */
  wasmUrl?: string | URL;
  /** The .wasm bytes, when the caller already has them (skips every fetch and file read). At most 64 MiB. */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /**
   * The .wasm compiled already, or a promise of it (a page that starts
   * `WebAssembly.compileStreaming` before its scripts load): only instantiated. Wins over the
   * other two; a rejected promise rejects createTandem.
   */
  wasmModule?: WebAssembly.Module | PromiseLike<WebAssembly.Module>;
}

/**
 * Loads the WebAssembly module and resolves to the API. Each call loads an independent
 * instance with its own memory; objects of one instance cannot be passed to another. A .wasm
 * that cannot be fetched, read or compiled rejects with an Error saying why.
 *
 * @example
 * ```js
 * import createTandem from 'tandem';
 * const tandem = await createTandem();
 * tandem.runScenario('orbits', 200, 100);
 * // [{tick: 0, digest: '656f604d8a0f0870'}, {tick: 100, digest: '2064337bae78a71d'},
 * //  {tick: 200, digest: '766a39aa9e85e029'}]
 * ```
 */
export default function createTandem(options?: CreateOptions): Promise<Tandem>;
export { createTandem };

/** Everything the module offers. */
export interface Tandem {
  /** The package version, e.g. "0.1.0". */
  readonly version: string;
  /**
   * The simulation fingerprint ("tandem snapshot/2 Q16.16 arena/2"), the same string the
   * native build reports (`tandem version`). Builds that differ in it cannot exchange snapshots.
   */
  readonly fingerprint: string;
  /** Q16.16 arithmetic on raw values, bit-identical to the native build. */
  readonly fx: Fx;
  /** The core's value noise (the renderer's f32 form and the simulation's Fx form). */
  readonly ValueNoise: ValueNoiseConstructor;
  readonly FixedTimestep: FixedTimestepConstructor;
  readonly Periodic: PeriodicConstructor;
  readonly World: WorldConstructor;
  /** The 16 knobs of {@link WorldConfig} in their canonical order, with how each crosses. */
  readonly configKnobs: readonly ConfigKnob[];
  /** The config `new World()` uses: every knob at its default (a fresh object). */
  defaultConfig(): WorldConfigValues;
  readonly Scenario: ScenarioStatic;
  /** The error class {@link WorldConstructor.fromSnapshot} throws. */
  readonly SnapshotError: typeof SnapshotError;
  /** The error class thrown for refused input bytes ({@link World.step}, {@link Tandem.decodeInputs}). */
  readonly InputError: typeof InputError;
  /** Bytes per input in the canonical encoding: 13. */
  readonly INPUT_BYTES: 13;
  /** The input kinds, indexed by their kind byte: `['join', 'leave', 'steer']`. */
  readonly inputKinds: readonly InputKind[];
  /**
   * Inputs as the world's canonical bytes, the same the wire and replays carry: per input, in
   * the order given, 13 bytes little-endian, `u32 player | u8 kind (0 join, 1 leave, 2 steer) |
   * i32 target.x raw | i32 target.y raw` (a leave without a target is written with 0, 0).
   * Written by the C++ world's own encoder.
   * @throws TypeError or RangeError naming the field of a malformed input
   */
  encodeInputs(inputs: readonly Input[]): Uint8Array;
  /**
   * Canonical input bytes back to objects, read by the C++ world's own decoder.
   * @throws InputError naming the first refused record (`truncated`: the length is not a
   *   multiple of 13; `bad_kind`: a kind byte other than 0, 1, 2); TypeError for a non-Uint8Array
   */
  decodeInputs(bytes: Uint8Array): Input[];
  /** Every named scenario, in the order `tandem scenarios` lists them. */
  scenarios(): ScenarioInfo[];
  /**
   * Runs a scenario from tick 0 and returns its digest stream: the entry of tick 0 (before
   * any step), one after every `every`-th tick and one after the last (`ticks + 1` entries for
   * `every` 1), identical to the native `tandem run --scenario NAME --ticks N --every K`.
   * @param name a name from {@link Tandem.scenarios} or a random world's spec, `random:SEED[:pellets=N][:players=N][:without=CLASS+...]` (docs/determinism.md); otherwise RangeError
   * @param ticks ticks to run, an integer >= 0
   * @param every the reporting period in ticks, an integer >= 1 (default 1)
   */
  runScenario(name: string, ticks: number, every?: number): TickDigest[];
}

/** One line of a digest stream. */
export interface TickDigest {
  /** The world's tick: the number of ticks stepped since tick 0 (0 for the first entry). */
  tick: number;
  digest: DigestHex;
}

export interface ScenarioInfo {
  name: string;
  /** One line, as `tandem scenarios` prints it. */
  description: string;
}

// ---- fx ---------------------------------------------------------------------------------

/**
 * Saturating Q16.16 arithmetic on raw values. Every result is the C++ core's, so a value
 * computed here is the value the server computes. Results saturate to [MIN, MAX] instead of
 * wrapping; division by zero saturates toward the dividend's sign (0 / 0 is 0).
 */
export interface Fx {
  /** 1.0 (65536). */
  readonly ONE: FxRaw;
  /** The smallest value, -32768.0. */
  readonly MIN: FxRaw;
  /** The largest value, 32767.99998... */
  readonly MAX: FxRaw;
  /** The smallest step, 2^-16 (raw 1). */
  readonly EPSILON: FxRaw;
  /** An integer as Q16.16, saturating outside [-32768, 32767]. */
  fromInt(i: number): FxRaw;
  /**
   * Parses `[+-]digits[.digits]`, using every digit, rounded to nearest (ties to even).
   * @throws TypeError for a non-string; RangeError for other text or a value out of range
   */
  fromString(text: string): FxRaw;
  /** The shortest decimal that parses back to the same value ("-1.5", "0.0001", "3"). */
  toString(a: FxRaw): string;
  /** The value as a JS number (exact). For display and rendering only: never feed it back. */
  toNumber(a: FxRaw): number;
  add(a: FxRaw, b: FxRaw): FxRaw;
  sub(a: FxRaw, b: FxRaw): FxRaw;
  /** Rounded to nearest, ties to even. */
  mul(a: FxRaw, b: FxRaw): FxRaw;
  /** Rounded to nearest, ties to even. */
  div(a: FxRaw, b: FxRaw): FxRaw;
  /** Correctly rounded; a negative input gives 0. */
  sqrt(a: FxRaw): FxRaw;
  /** Radians; at most 1 LSB from the exact value. */
  sin(a: FxRaw): FxRaw;
  /** Radians; at most 1 LSB from the exact value. */
  cos(a: FxRaw): FxRaw;
  /** In [-pi, pi]; atan2(0, 0) is 0. */
  atan2(y: FxRaw, x: FxRaw): FxRaw;
  atan(a: FxRaw): FxRaw;
  /** Inputs outside [-1, 1] are clamped. */
  asin(a: FxRaw): FxRaw;
  /** Inputs outside [-1, 1] are clamped. */
  acos(a: FxRaw): FxRaw;
  /** Never negative; saturates to MAX. */
  exp(a: FxRaw): FxRaw;
  /** Natural logarithm; log of a value <= 0 is MIN. */
  log(a: FxRaw): FxRaw;
}

// ---- ValueNoise -------------------------------------------------------------------------

export interface ValueNoiseConstructor {
  /** The noise of a seed in [0, 2^64) (a safe-integer number or a bigint). */
  new (seed: number | bigint): ValueNoise;
}

/**
 * One octave of smoothed 2-D value noise: the core's `ValueNoise`, the same lattice hash on
 * every build. Two forms sample the same lattice: `octave` (f32, for renderers) and
 * `octaveFx` (integer-only, what a simulation would derive terrain from; never feed the f32
 * form back into a simulation). A plain value: nothing to delete.
 */
export interface ValueNoise {
  readonly seed: bigint;
  /** The lattice value at integer cell (xi, zi) of an octave, in [0, 1), an f32. xi, zi int32; octave >= 0 (default 0). */
  corner(xi: number, zi: number, octave?: number): number;
  /** {@link corner} truncated to 16 fractional bits, as a raw Q16.16. */
  cornerFx(xi: number, zi: number, octave?: number): FxRaw;
  /**
   * Smoothstep-interpolated value at (x, z), lattice points `lattice` units apart, in [0, 1).
   * Arguments are rounded to f32; a lattice that is not positive (or NaN) counts as 1, NaN
   * coordinates as 0. The result is an f32, the same on every build.
   */
  octave(x: number, z: number, lattice: number, octave?: number): number;
  /** The integer-only form: raw Q16.16 arguments and result, exact cell and fraction. */
  octaveFx(x: FxRaw, z: FxRaw, lattice: FxRaw, octave?: number): FxRaw;
}

// ---- Time -------------------------------------------------------------------------------

/**
 * Handles to C++ objects. `delete()` frees one at a known time; a handle dropped without it
 * is freed when collected (which may be never). Using a deleted handle throws an Error.
 * `using` declarations dispose them where `Symbol.dispose` exists.
 */
export interface Deletable {
  /** Frees the C++ object; later calls on this handle throw. Calling it twice is harmless. */
  delete(): void;
}

export interface FixedTimestepConstructor {
  /**
   * A fixed step of `stepMs` milliseconds (rounded to the nearest nanosecond), with the
   * default catch-up cap of 250 ms.
   * @throws RangeError when the step is not positive (including NaN) or is absurdly long
   */
  new (stepMs: number): FixedTimestep;
  /**
   * A step of 1/hz seconds to the nearest nanosecond: the same step the server uses for
   * the same rate.
   * @param hz an integer in [1, 1000]; otherwise RangeError
   */
  fromHz(hz: number): FixedTimestep;
}

/**
 * Spends elapsed real time as whole fixed simulation steps, carrying the remainder and
 * capping the catch-up after a stall (a backgrounded tab, a sleeping laptop).
 *
 * @example
 * ```js
 * const clock = tandem.FixedTimestep.fromHz(60);
 * function frame(now) {
 *   for (let n = clock.advance(now - last); n > 0; --n) world.step(inputs());
 *   draw(world, clock.alpha());
 * }
 * ```
 */
export interface FixedTimestep extends Deletable {
  /** A copy with another catch-up cap in milliseconds (this one is unchanged). */
  withMaxFrameMs(maxFrameMs: number): FixedTimestep;
  /** A copy that pays out at most `maxSteps` steps per advance (this one is unchanged). */
  withMaxSteps(maxSteps: number): FixedTimestep;
  /**
   * Adds elapsed milliseconds (e.g. a `performance.now()` delta) and returns how many
   * steps they pay for. Time past the cap is dropped and counted in {@link droppedMs};
   * negative or NaN elapsed time counts as zero.
   */
  advance(elapsedMs: number): number;
  /** Changes the step live, keeping the accumulated time. @throws RangeError as the constructor */
  setStepMs(stepMs: number): void;
  /** The fixed step in milliseconds. */
  readonly stepMs: number;
  /** The fixed step in seconds, as Q16.16 (for integrators that take seconds). */
  readonly stepSeconds: FxRaw;
  /** The catch-up cap in milliseconds. */
  readonly maxFrameMs: number;
  /** Time carried toward the next step, in milliseconds: less than one step after an advance. */
  pendingMs(): number;
  /** Elapsed time the cap refused over the whole session, in milliseconds. */
  droppedMs(): number;
  /** The render blend factor in [0, 1): how far from the last step to the next. */
  alpha(): number;
  /** {@link alpha} as Q16.16. */
  alphaRaw(): FxRaw;
  /** Discards the carried remainder (for a rebuilt world); the dropped total stays. */
  reset(): void;
}

export interface PeriodicConstructor {
  /** Something due every `intervalMs` milliseconds. @throws RangeError when not positive */
  new (intervalMs: number): Periodic;
  /** Every 1/hz seconds (the same rounding as FixedTimestep.fromHz). */
  fromHz(hz: number): Periodic;
}

/** Fires something on a period, driven by elapsed time. No cap: long frames are repaid. */
export interface Periodic extends Deletable {
  /** Adds elapsed milliseconds; true when the period elapsed (at most once per call). */
  due(elapsedMs: number): boolean;
  /** Adds elapsed milliseconds; returns how many whole periods they cover. */
  advance(elapsedMs: number): number;
  /** Changes the interval live, keeping the accumulated time. @throws RangeError when not positive */
  setIntervalMs(intervalMs: number): void;
  readonly intervalMs: number;
  /** Time carried toward the next occurrence, in milliseconds. */
  pendingMs(): number;
  /** Milliseconds until the period next elapses; 0 if already owed. */
  remainingMs(): number;
  /** Restarts the period from now. */
  reset(): void;
}

// ---- World ------------------------------------------------------------------------------

/** A 2-D point or vector of raw Q16.16 values. */
export interface Vec2Raw {
  x: FxRaw;
  y: FxRaw;
}

/** A player joins, with a first target for its well. */
export interface JoinInput {
  /** An integer in [0, 2^32). */
  player: number;
  kind: 'join';
  target: Vec2Raw;
}
/** A player leaves; its well goes. */
export interface LeaveInput {
  player: number;
  kind: 'leave';
  /** Ignored (checked if present). */
  target?: Vec2Raw;
}
/** A player steers its well toward a target (clamped into the arena). */
export interface SteerInput {
  player: number;
  kind: 'steer';
  target: Vec2Raw;
}
/** One player's input for one tick. */
export type Input = JoinInput | LeaveInput | SteerInput;
export type InputKind = Input['kind'];

/**
 * Every knob of the simulation (the C++ WorldConfig), in its canonical order. Each one is
 * optional in `new World(config)` (an unset knob keeps its default, {@link Tandem.defaultConfig})
 * and every one is present in {@link World.config}. Fx knobs are raw Q16.16 integers
 * (`units * 65536`; {@link Fx.toNumber} gives a number). The ranges are checked by the C++
 * `validate()`: a knob outside its range throws a RangeError naming it and its range.
 */
export interface WorldConfig {
  /** The world's random seed, in [0, 2^64): a safe-integer number or a bigint (read back as a bigint). Default 1. */
  seed: number | bigint;
  /** Ticks per second, 1..1000. Default 60. */
  tickHz: number;
  /** The arena's side, 16..4096 units (raw 1048576..268435456). Default 1024 units. */
  arenaSize: FxRaw;
  /** Pellets, 0..131072. Default 1024. */
  pelletCount: number;
  /** Players admitted (joins beyond are refused), 0..64. Default 16. */
  maxPlayers: number;
  /** A well's gravity, G * M in units^3/s^2, >= 0. Default 6000 units. */
  wellStrength: FxRaw;
  /** One pellet's gravity on the others, >= 0. Default 1/16 (raw 4096). */
  pelletStrength: FxRaw;
  /** Plummer softening length, 1..64 units. Default 8. */
  softening: FxRaw;
  /** A pellet this close to a well falls in, 0..256 units. Default 12. */
  captureRadius: FxRaw;
  /** The spring pulling a well toward its target (1/s^2), >= 0. Default 4. */
  steerGain: FxRaw;
  /** A well's velocity damping (1/s), >= 0. Default 3. */
  steerDamping: FxRaw;
  /** Per-axis clamp of a well's acceleration, >= 0. Default 400 units/s^2. */
  maxWellAccel: FxRaw;
  /** Per-axis clamp of a pellet's velocity, >= 0. Default 300 units/s. */
  maxPelletSpeed: FxRaw;
  /** Velocity kept on a wall bounce, 0..1 (raw 0..65536). Default 0.75. */
  wallRestitution: FxRaw;
  /** The Barnes-Hut opening angle, 0..4. Default 0.7 (raw 45875). */
  theta: FxRaw;
  /** The quadtree's depth bound, 1..24. Default 12. */
  treeMaxDepth: number;
}

/** A world's config as {@link World.config} returns it: every knob, the seed a bigint. */
export type WorldConfigValues = Omit<WorldConfig, 'seed'> & { seed: bigint };

/** One knob's name and how it crosses: `u64` (the seed), `u32` (a number), `fx` (a raw Q16.16). */
export interface ConfigKnob {
  readonly name: keyof WorldConfig;
  readonly type: 'u64' | 'u32' | 'fx';
}

/** The RangeError `new World` throws for a knob outside its range. */
export interface ConfigRangeError extends RangeError {
  /** The knob, e.g. `'softening'`. */
  readonly field: keyof WorldConfig;
  /** The C++ validate()'s code, e.g. `'softening_out_of_range'`. */
  readonly code: string;
}

/** One thing a step did. */
export interface StepEvent {
  /**
   * `captured`: a pellet fell into `player`'s well and respawned under its next generation;
   * `joined` / `left`: `player` became / stopped being a member; `join_refused`: `player`'s
   * join found `maxPlayers` wells present.
   */
  kind: 'captured' | 'joined' | 'left' | 'join_refused';
  player: number;
  /** captured: the pellet's index; otherwise 0. */
  pellet: number;
}

/** Digests of the parts of a world, each 16 hex digits. */
export interface SectionDigests {
  config: DigestHex;
  wells: DigestHex;
  pellets: DigestHex;
  scores: DigestHex;
  rng: DigestHex;
}

export interface Well {
  player: number;
  pos: Vec2Raw;
  vel: Vec2Raw;
  target: Vec2Raw;
  score: number;
}

export interface Score {
  player: number;
  score: number;
}

export interface WorldConstructor {
  /**
   * A fresh world: pellets placed from the seed, no players.
   * @param config any of the knobs; the rest keep their defaults
   * @throws TypeError for a knob of the wrong type or a key that is not a knob;
   *   {@link ConfigRangeError} (a RangeError) naming a knob out of range and the range
   */
  new (config?: Partial<WorldConfig>): World;
  /**
   * Decodes a snapshot written by {@link World.snapshot} of any build (native or wasm) with
   * the same fingerprint. The bytes are only read; more than 16 MiB (far above any snapshot)
   * is refused with a RangeError before they are copied.
   * @throws SnapshotError whose `.code` says why the bytes were refused; TypeError when
   *   `bytes` is not a Uint8Array, another ArrayBuffer view or an ArrayBuffer
   */
  fromSnapshot(bytes: Uint8Array | ArrayBufferView | ArrayBuffer): World;
}

/** The whole simulation as one value: step it, digest it, snapshot it. */
export interface World extends Deletable {
  /** Ticks stepped since creation. */
  readonly tick: number;
  /** Every knob of this world's config, a fresh object (the world cannot be reconfigured). */
  config(): WorldConfigValues;
  readonly pelletCount: number;
  /** Pellets captured over the whole run. */
  readonly captures: number;
  /**
   * What the last step did, a fresh array: per input in canonical order the joins, leaves and
   * refused joins, then per pellet in index order the captures. Events are not state: they
   * are never digested or snapshotted, and a new, cloned or restored world has none. After a
   * scenario's `step(n)`, the events of its last tick.
   */
  events(): StepEvent[];
  /**
   * Advances exactly one tick with that tick's inputs, in any order: input objects, or their
   * canonical bytes ({@link Tandem.encodeInputs}: a Uint8Array of 13-byte records, e.g. as
   * received from the wire). Objects are written into records by the C++ encoder; every
   * record is read back by the C++ decoder before the world is touched, so a malformed input
   * throws and leaves the world as it was: a TypeError or RangeError naming the field
   * (`inputs[2].target.x`) for an object, an InputError naming the record for bytes. At most
   * 65,536 inputs per call (RangeError beyond). Each object is read once, before the C++ is
   * entered.
   * @returns this world
   */
  step(inputs?: readonly Input[] | Uint8Array): this;
  /** The digest of the whole state; equal on every build for equal states. */
  digest(): DigestHex;
  sectionDigests(): SectionDigests;
  /** The canonical snapshot bytes (a fresh copy the caller owns). */
  snapshot(): Uint8Array;
  /**
   * Pellet positions as x0, y0, x1, y1, ... in arena units (render edge: floats, one way).
   * The array is a view into the module's memory, not a copy: it stays valid until the next
   * call into this tandem instance (any call may grow the memory, which detaches the view,
   * and the next pelletPositions() of this world overwrites it). Read it at once or copy it
   * with `.slice()`.
   */
  pelletPositions(): Float32Array;
  /** The wells in player order, as plain objects (copies). */
  wells(): Well[];
  /** Each present player's score, in player order. */
  scores(): Score[];
  /** The canonical state as "name value" lines, for diffing builds. */
  dump(): string;
  /** An independent copy. */
  clone(): World;
  /** Whether both worlds hold the same state, field for field. */
  equals(other: World): boolean;
}

/** Why {@link WorldConstructor.fromSnapshot} refused bytes: the decoder's typed reason. */
export type SnapshotErrorCode =
  | 'truncated'
  | 'bad_magic'
  | 'unsupported_version'
  | 'fingerprint_mismatch'
  | 'count_out_of_range'
  | 'value_out_of_range'
  | 'digest_mismatch'
  | 'trailing_bytes';

/** Why input bytes were refused: the world's input decoder's typed reason. */
export type InputErrorCode = 'truncated' | 'trailing_bytes' | 'bad_kind';

/** Thrown for refused input records. The module stays usable after it. */
export class InputError extends Error {
  readonly name: 'InputError';
  readonly code: InputErrorCode;
  /** The refused record's position: bytes `13 * index` to `13 * index + 12`. */
  readonly index: number;
}

/** Thrown by {@link WorldConstructor.fromSnapshot}. The module stays usable after it. */
export class SnapshotError extends Error {
  readonly name: 'SnapshotError';
  readonly code: SnapshotErrorCode;
}

// ---- Scenarios --------------------------------------------------------------------------

export interface ScenarioStatic {
  /**
   * Starts a named scenario at tick 0; given `from`, drives a copy of that world instead
   * (e.g. one decoded from a snapshot of the same scenario) with the scenario's script, so
   * a snapshot taken at tick T continues exactly as the uninterrupted run.
   * @throws TypeError for a non-string name or a `from` that is not a World of this
   *   instance; RangeError for an unknown name
   */
  open(name: string, from?: World): Scenario;
}

/** A named, seeded, scripted run: the same inputs tick by tick on every build. */
export interface Scenario extends Deletable {
  readonly name: string;
  readonly tick: number;
  /** Steps `n` ticks (default 1) with the scenario's own inputs. @returns this scenario */
  step(n?: number): this;
  digest(): DigestHex;
  /**
   * The scenario's own world (not a copy): stepping the scenario moves it. It belongs to the
   * scenario: its delete() does nothing, and it becomes unusable when the scenario is deleted.
   */
  readonly world: World;
}

// ---- Games: every game the package ships, through the one seam ----------------------------

/** The module object, merged with the declaration above. */
export interface Tandem {
  /** The names of the games this package ships, the default ('arena') first. */
  readonly games: readonly string[];
  /**
   * A shipped game by name, reached through the one game-agnostic surface (any game's
   * scenarios, digests, section digests and canonical dump, as `tandem ... --game NAME`).
   * @throws TypeError for a non-string; RangeError for a name not in {@link Tandem.games}
   */
  game(name: string): Game;
  readonly GameScenario: unknown;
}

export interface Game {
  readonly name: string;
  /** The game's snapshot fingerprint, as `tandem version --game NAME` prints it. */
  readonly fingerprint: string;
  /** Its simulation version. */
  readonly version: number;
  /** Its section names, in digest order. */
  readonly sections: readonly string[];
  /** Its named scenarios, as `tandem scenarios --game NAME` lists them. */
  scenarios(): ScenarioInfo[];
  /**
   * A scenario (a listed name or the game's random world spec, `random:SEED...`) at tick 0.
   * @throws TypeError for a non-string; RangeError for a name the game does not resolve
   */
  openScenario(scenario: string): GameScenario;
  /** The digest stream of `tandem run --game NAME --scenario S --ticks N --every K`. */
  runScenario(scenario: string, ticks: number, every?: number): TickDigest[];
}

/** One scenario of any game, stepped with the scenario's own inputs. */
export interface GameScenario extends Deletable {
  readonly name: string;
  readonly tick: number;
  /** Steps `n` ticks (default 1). @returns this scenario */
  step(n?: number): this;
  digest(): DigestHex;
  /** The section digests, keyed by section name, in the game's section order. */
  sectionDigests(): Record<string, DigestHex>;
  /** The canonical state as `tandem dump --game NAME` prints it (ends with the digests). */
  dump(): string;
}

// ---- The net layer: Room, ClientSession, Replay (net.mjs) ----------------------------------
// Times are performance.now()-style milliseconds; the module converts them to int64
// nanoseconds once, at its boundary. Counters and ticks are numbers (exact below 2^53).

/** The module object, merged with the declaration above. */
export interface Tandem {
  readonly Room: RoomConstructor;
  readonly ClientSession: ClientSessionConstructor;
  readonly ScriptedBot: ScriptedBotConstructor;
  readonly Replay: ReplayStatic;
  readonly ReplayError: typeof ReplayError;
}

/** World knobs (maxPlayers is the world's wells and the room's seats) plus the room's own. */
export interface RoomConfig extends Partial<WorldConfig> {
  inputDelayTicks?: number;
  maxWatchers?: number;
  idleTimeoutMs?: number;
}

/** A refused Room config: `.field` names the key, `.code` is the C++ code. */
export interface RoomConstructor {
  new (config?: RoomConfig): Room;
}

export type CloseReasonName = 'protocol_error' | 'rate_limited' | 'room_full' | 'too_slow' | 'idle' | 'shutting_down';

export interface RoomOutbox {
  /** In order; one frame sent to many is one Uint8Array shared by their entries. */
  sends: { to: number; bytes: Uint8Array }[];
  /** Close `who` with the WebSocket `code` once what was queued for it is sent. */
  closes: { who: number; reason: CloseReasonName; code: number }[];
}

export interface RoomStats {
  tick: number; players: number; watchers: number; framesEncoded: number; baselinesSent: number;
  flowPauses: number; inputsAccepted: number; inputsDropped: number; inputsStale: number;
  desyncReports: number; ackMismatches: number; repliesDropped: number; messagesReceived: number;
  bytesReceived: number; messagesSent: number; bytesSent: number;
  closes: Record<CloseReasonName, number>;
}

export interface RoomClient {
  admitted: boolean; closed: boolean; role: 'play' | 'watch'; player: number | null; paused: boolean;
  sentTick: number; baseTick: number; unackedBytes: number; heldBytes: number;
}

export interface RoomLimits {
  inputDelayTicks: number; maxPlayers: number; maxWatchers: number; idleTimeoutMs: number;
  ringTicks: number; flowWindowTicks: number; flowWindowBytes: number; baselineRepeatTicks: number;
  /** Every knob of the room's world, as World.config() gives them. */
  world: WorldConfigValues;
}

export interface Room extends Deletable {
  /** A connection opened: its id (from 1). The client must then send a hello. */
  connect(nowMs: number): number;
  receive(id: number, bytes: Uint8Array | ArrayBufferView | ArrayBuffer, nowMs: number): void;
  disconnect(id: number, nowMs: number): void;
  tick(nowMs: number): void;
  shutDown(nowMs: number): void;
  takeOutbox(): RoomOutbox;
  stats(): RoomStats;
  client(id: number): RoomClient | null;
  limits(): RoomLimits;
  worldDigest(): DigestHex;
  worldSections(): SectionDigests;
  /** A copy of the authoritative world: delete it when done. */
  world(): World;
  startRecording(): void;
  /** Replay bytes recorded since the last call. */
  takeRecording(): Uint8Array;
}

/**
 * The replay reader's refusals. Replays are format 2, protocol 2, and carry the game's
 * fingerprint hash: a file of another game is fingerprint_mismatch, a welcome naming another
 * game or a frame whose commands the game refuses is bad_record.
 */
export type ReplayErrorCode = 'truncated' | 'bad_magic' | 'unsupported_version' | 'protocol_mismatch'
  | 'fingerprint_mismatch' | 'bad_record' | 'out_of_order' | 'no_baseline' | 'bad_baseline' | 'tick_not_covered';

export class ReplayError extends Error {
  readonly code: ReplayErrorCode;
  /** The record (0-based) and byte offset where the reader stopped. */
  readonly record: number;
  readonly offset: number;
}

/**
 * One field that differs between the replay's state and this build's re-run, as `tandem dump`
 * names and prints it ("wells[1].pos.x", a decimal integer); null on the side that lacks it
 * (an element one state has and the other has not).
 */
export interface ReplayFieldDifference {
  path: string;
  /** The section it is digested in ("wells", ...; "" for the tick). */
  section: string;
  replay: string | null;
  thisBuild: string | null;
}

/** The first tick at which this build's re-run differs from the replay. */
export interface ReplayDivergence {
  tick: number;
  /** The replay's digest (its frame's, or its baseline state's) and this build's. */
  expected: DigestHex;
  actual: DigestHex;
  /** The differing section names, in the game's order; null when the replay holds none for that tick. */
  sections: string[] | null;
  /**
   * The fields that differ at fieldsTick, the first state the replay holds at or after the
   * divergence (a baseline), against this build's re-run there: at most 32, in the state's
   * field order, of fieldsDiffering. All three null when the replay holds no such state.
   */
  fields: ReplayFieldDifference[] | null;
  fieldsTick: number | null;
  fieldsDiffering: number | null;
}

export interface ReplayCheck {
  firstTick: number; lastTick: number; framesChecked: number; baselinesChecked: number; baselinesAdopted: number;
  /** null: every digest agreed. */
  divergence: ReplayDivergence | null;
}

export interface ReplayStatic {
  check(bytes: Uint8Array | ArrayBufferView | ArrayBuffer): ReplayCheck;
  /** This build's re-run world at `tick`: delete it when done. */
  worldAt(bytes: Uint8Array | ArrayBufferView | ArrayBuffer, tick: number): World;
}

export interface ClientSessionConstructor {
  /**
   * measureStepCost (default true) times steps with performance.now() to fit advance()'s budget.
   * predict (default false): renderView() draws the predicted state, the own steers applied at
   * once and rolled back when others' arrive (docs/prediction.md); figures().prediction says how.
   * predictWindowTicks (an integer in [1, 64], default 12): the most ticks it runs ahead.
   */
  new (options: { watch?: boolean; nowMs: number; measureStepCost?: boolean; predict?: boolean; predictWindowTicks?: number }): ClientSession;
  /**
   * Whether this build of the module has the predicted client (client::PredictedClient over
   * the session): true in every build; pages check it before asking for `predict: true`.
   */
  readonly predicts: boolean;
}

/** web/adapters/README.md's render view. */
export interface SessionRenderView {
  hasWorld: boolean; tick: number; alpha: number; arenaSize: number | null; me: number | null;
  /** Views into the module's memory: valid until the next call into the module. */
  pellets: { current: Float32Array; previous: Float32Array | null };
  /** With `predict`, positions include the correction still being eased. */
  wells: { player: number; x: number; y: number; prevX: number; prevY: number; targetX?: number; targetY?: number; score?: number }[];
  /** Of the confirmed world's last step (a predicted step's effects could be taken back). */
  events: { kind: string; tick: number; player: number; pellet: number }[];
  /** Whether this is a predicting session's view: then `tick` is the predicted tick. */
  predicted: boolean;
  /** The confirmed tick under a predicted view; null for a lockstep session. */
  confirmedTick: number | null;
}

/** A predicting session's figures (docs/prediction.md, "The predicted client"). */
export interface PredictionFigures {
  active: boolean; predictedTick: number | null;
  depthTicks: number; targetDepthTicks: number; windowTicks: number; leadSamples: number;
  rollbacks: number; rollbacksPerSec: number; resimulatedTicks: number;
  resimTicksLast: number; resimTicksP99: number;
  /** Timed with performance.now() (null when measureStepCost is false). */
  resimMsP99: number | null; resimMsMax: number | null;
  budgetCuts: number; resets: number; corrections: number; lastCorrection: number;
  /** Every predicted step of a frame (forward and re-simulation), timed: p99 and largest over the last 256 frames. */
  stepsMsP99: number | null; stepsMsMax: number | null;
  /** Resets because a frame verified past the predicted tick, the most ticks past, and re-simulations abandoned before landing. */
  resetsBehind: number; behindTicksMax: number; rollbacksDropped: number;
  /** A rollback's re-simulation is in flight (spread over updates by the time budget). */
  catchingUp: boolean; rollbackUpdatesLast: number; rollbackUpdatesMax: number;
  monitorAlarms: number; pendingInputs: number;
  /** The predicted world's digest (hex), or null without one. */
  digest: string | null;
}

/** One field of a mismatch's diff, as `tandem dump` names and prints it; null on a side without it. */
export interface SessionFieldDifference {
  path: string; section: string; room: string | null; thisBuild: string | null;
}

/** web/adapters/README.md's figures; `session` holds every figure of the C++ session. */
export interface SessionFigures {
  me: number | null;
  /** The player id this connection got back with the session's resume token; null after a fresh join. */
  reconnectedAs: number | null;
  players: Score[];
  tick: number | null; serverTick: number; lagTicks: number;
  verification: {
    verifiedTick: number | null; verifiedTicks: number;
    mismatches: {
      tick: number; section: string | null; sections: string[] | null; healed: boolean;
      /**
       * The room's state against this session's own at fieldsTick (the healing baseline's),
       * at most 32 of fieldsDiffering; all three null until known.
       */
      fields: SessionFieldDifference[] | null; fieldsTick: number | null; fieldsDiffering: number | null;
    }[];
  };
  rttMs: number | null; bytesInPerSec: number; bytesOutPerSec: number; droppedMs: number; stepCostMs: number;
  lastResume: null | { awayMs: number; path: 'catch_up' | 'baseline' | 'idle'; ticks: number; frames: number;
    baselineBytes: number; droppedMs: number; verifiedAfterMs: number | null;
    /** The two paths' wall times as the resume rule estimated them (null: could never finish); the faster was taken. */
    catchUpEstimateMs: number | null; baselineEstimateMs: number | null };
  error: null | { code: string; message: string };
  /** null unless the session was created with `predict: true`. */
  prediction: PredictionFigures | null;
  session: Record<string, unknown>;
}

export interface ClientSession extends Deletable {
  onConnected(nowMs: number): void;
  receive(bytes: Uint8Array | ArrayBufferView | ArrayBuffer, nowMs: number): void;
  onDisconnected(code: number, nowMs: number): void;
  shouldReconnect(): boolean;
  readonly reconnectDelayMs: number;
  takeOutgoing(): Uint8Array[];
  /** @returns the ticks applied */
  advance(nowMs: number, budgetMs: number): number;
  onSuspend(nowMs: number): void;
  onResume(nowMs: number): void;
  steer(xRaw: number, yRaw: number, nowMs?: number): void;
  renderView(nowMs?: number): SessionRenderView;
  figures(): SessionFigures;
  exportReplay(): Uint8Array;
  corruptOnce(): void;
  /** Re-runs what the session received in this build: a sentence saying whether it agrees. */
  checkAgainstNative(): string;
}

export interface ScriptedBotConstructor {
  /** @param options.seed a safe integer >= 0 choosing the bot's path; otherwise RangeError */
  new (options: { seed: number }): ScriptedBot;
}

/**
 * A scripted player for a Room with no server around it: hello, steers along waypoints drawn
 * from its seed, an ack every 6 frames with the room's own digest (it holds no world).
 */
export interface ScriptedBot extends Deletable {
  onConnected(): void;
  receive(bytes: Uint8Array | ArrayBufferView | ArrayBuffer): void;
  takeOutgoing(): Uint8Array[];
  figures(): {
    welcomed: boolean; player: number | null; tick: number; steersSent: number; acksSent: number;
    malformedIn: number; refused: boolean; target: { x: number; y: number };
  };
}
