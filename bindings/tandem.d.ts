// Typings of a game's tandem ES module (tandem.mjs), generic over the game. Hand-written: every
// export, with the units, the ranges and the lifetime rules a caller needs. A package's
// game.d.ts (generated from the game's visitors when the package is built) fills in the game's
// types, `GameTypes<...>`, and is the package's entry ("types"). Keep in step with tandem.mjs.

/**
 * A Q16.16 fixed-point value as its raw bit pattern: an integer in [-2147483648, 2147483647]
 * whose value is `raw / fx.ONE`. Plain JS numbers hold it exactly. Functions that take one
 * throw a RangeError for a non-integer or out-of-range number.
 */
export type FxRaw = number;

/** A 64-bit digest as 16 lowercase hex digits, exactly as the native CLI prints it. */
export type DigestHex = string;

/** A 2-D point or vector of raw Q16.16 values. */
export interface Vec2Raw {
  x: FxRaw;
  y: FxRaw;
}

/** A stable key of an entity that comes and goes (the core's SlotKey). */
export interface SlotKeyValue {
  index: number;
  generation: number;
}

/** A field type of the seam, as a schema names it. */
export type FieldType = 'bool' | 'u8' | 'u16' | 'u32' | 'u64' | 'i8' | 'i16' | 'i32' | 'i64' | 'fx' | 'vec2' | 'key' | 'rng';

/**
 * A game's types, as its game.d.ts gives them: its name, config (every knob, camelCase), command
 * (every field), whole state (World.state()), events and section names.
 */
export interface GameTypes<Name extends string = string, Config extends object = object, Command extends object = object,
  State extends object = object, Event extends StepEvent = StepEvent, Section extends string = string> {
  name: Name;
  config: Config;
  command: Command;
  state: State;
  event: Event;
  section: Section;
}

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
 * Loads the WebAssembly module and resolves to the API of the package's game. Each call loads an
 * independent instance with its own memory; objects of one instance cannot be passed to another.
 * A .wasm that cannot be fetched, read or compiled rejects with an Error saying why.
 */
export default function createTandem<G extends GameTypes = GameTypes>(options?: CreateOptions): Promise<Tandem<G>>;
export { createTandem };

// ---- The API --------------------------------------------------------------------------------

/** Everything a game's module offers. */
export interface Tandem<G extends GameTypes = GameTypes> {
  /** The package version, e.g. "0.1.0". */
  readonly version: string;
  /** The game's fingerprint ("tandem snapshot/2 Q16.16 GAME/VERSION"), as `tandem version` prints it. */
  readonly fingerprint: string;
  /** The game: its name, schema and scenarios. */
  readonly game: GameInfo<G>;
  /** Q16.16 arithmetic on raw values, bit-identical to the native build. */
  readonly fx: Fx;
  readonly ValueNoise: ValueNoiseConstructor;
  readonly FixedTimestep: FixedTimestepConstructor;
  readonly Periodic: PeriodicConstructor;
  /**
   * What one page frame may spend on simulation, in ms, from the gap since the previous frame
   * (0: unknown): the client session's own rule (8 ms, or half a slower frame's gap, at most 32).
   */
  frameBudgetMs(gapMs: number): number;
  /**
   * What an advance of a session in a thread that draws nothing (a page's session worker) may
   * spend, from the time since its previous advance: all of it, within 8 to 32 ms.
   */
  workerBudgetMs(sinceLastMs: number): number;
  readonly World: WorldConstructor<G>;
  /** The game's config knobs in their canonical order, with their field types. */
  readonly configKnobs: readonly FieldSchema[];
  /** The game's default config: every knob (a fresh object). */
  defaultConfig(): G['config'];
  /** The config the knobs given make, the defaults for the rest. @throws ConfigRangeError for a knob the game refuses */
  resolveConfig(config: Partial<ConfigInput<G>>): G['config'];
  /** A command checked and copied. @throws TypeError/RangeError naming a field, InputError for a command the game's codec refuses */
  checkCommand(command: G['command']): G['command'];
  readonly SnapshotError: typeof SnapshotError;
  readonly InputError: typeof InputError;
  readonly ReplayError: typeof ReplayError;
  readonly TicketError: typeof TicketError;
  /** Bytes per input in the canonical encoding: `u32 player | u8 kind | the command's fields`. */
  readonly INPUT_BYTES: number;
  /** The input kinds, indexed by their kind byte. */
  readonly inputKinds: readonly InputKind[];
  /** Inputs as the game's canonical bytes (the wire's and replays'), written by its own encoder. */
  encodeInputs(inputs: readonly Input<G>[]): Uint8Array;
  /** Canonical bytes back to objects. @throws InputError naming the first refused record */
  decodeInputs(bytes: Uint8Array): Input<G>[];
  readonly Scenario: ScenarioStatic<G>;
  /** The game's named scenarios, in the order `tandem scenarios` lists them. */
  scenarios(): ScenarioInfo[];
  /**
   * Runs a scenario from tick 0 and returns its digest stream (tick 0, every `every`-th tick
   * and the last), identical to the native `tandem run --game G --scenario NAME --ticks N --every K`.
   */
  runScenario(name: string, ticks: number, every?: number): TickDigest[];
  readonly Room: RoomConstructor<G>;
  readonly ClientSession: ClientSessionConstructor<G>;
  readonly Replay: ReplayStatic<G>;
  /** Present when the game has a bot policy (G::Bot). */
  readonly ScriptedBot?: ScriptedBotConstructor<G>;
  /** Present when the game has a bot policy (G::Bot). */
  readonly OfflineMatch?: OfflineMatchConstructor<G>;
}

/** A field of a flat schema (config knobs, command fields, event fields). */
export interface FieldSchema {
  /** camelCase for knobs and command fields ("outer.inner" inside an object). */
  readonly name: string;
  readonly type: FieldType;
}

/** The state's shape, from its visitor. */
export interface StateShape {
  /** Every field outside the lists, by its dump path ("tick", "config.arena_size"). */
  readonly fields: readonly { path: string; type: FieldType; section: string }[];
  /** Each list, with its elements' key and fields (names within an element). */
  readonly lists: readonly {
    name: string;
    section: string;
    key: FieldSchema | null;
    fields: readonly { name: string; type: FieldType; section: string }[];
  }[];
}

export interface GameInfo<G extends GameTypes = GameTypes> {
  readonly name: G['name'];
  readonly fingerprint: string;
  /** The simulation version (bumped by every change to what a step computes). */
  readonly version: number;
  /** Section names, in digest order. */
  readonly sections: readonly G['section'][];
  readonly configKnobs: readonly FieldSchema[];
  readonly commandFields: readonly FieldSchema[];
  readonly state: StateShape;
  readonly eventFields: readonly FieldSchema[];
  /** The list and field a prediction's corrections are eased on, or null. */
  readonly eased: { list: string; field: string } | null;
  readonly inputBytes: number;
  scenarios(): ScenarioInfo[];
  openScenario(name: string): Scenario<G>;
  runScenario(name: string, ticks: number, every?: number): TickDigest[];
}

/** A config as a caller may give it: 64-bit knobs as a safe integer or a bigint. */
export type ConfigInput<G extends GameTypes> = { [K in keyof G['config']]: G['config'][K] extends bigint ? bigint | number : G['config'][K] };

export type InputKind = 'join' | 'leave' | 'command';
/** One player's input for one tick: a join or a leave (the command may be left out), or a command. */
export type Input<G extends GameTypes = GameTypes> =
  | { player: number; kind: 'join' | 'leave'; command?: G['command'] }
  | { player: number; kind: 'command'; command: G['command'] };

/** One thing a step did: `kind` and the fields the game's registration gives it. */
export interface StepEvent {
  kind: string;
  /** The tick the step produced. */
  tick: number;
}

/** One line of a digest stream. */
export interface TickDigest {
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
  /** 1.0 as a raw value: the scale, from the C++ (no JS spells it). */
  readonly ONE: FxRaw;
  readonly MIN: FxRaw;
  readonly MAX: FxRaw;
  /** The smallest step (raw 1). */
  readonly EPSILON: FxRaw;
  /** An integer as Q16.16, saturating. */
  fromInt(i: number): FxRaw;
  /** The raw value nearest to a number of units (a pointer's float, say), saturated. */
  fromUnits(units: number): FxRaw;
  /** Parses `[+-]digits[.digits]`, rounded to nearest (ties to even). */
  fromString(text: string): FxRaw;
  /** The shortest decimal that parses back to the same value. */
  toString(a: FxRaw): string;
  /** The value as a JS number (exact). For display and rendering only: never feed it back. */
  toNumber(a: FxRaw): number;
  add(a: FxRaw, b: FxRaw): FxRaw;
  sub(a: FxRaw, b: FxRaw): FxRaw;
  mul(a: FxRaw, b: FxRaw): FxRaw;
  div(a: FxRaw, b: FxRaw): FxRaw;
  sqrt(a: FxRaw): FxRaw;
  sin(a: FxRaw): FxRaw;
  cos(a: FxRaw): FxRaw;
  atan2(y: FxRaw, x: FxRaw): FxRaw;
  atan(a: FxRaw): FxRaw;
  asin(a: FxRaw): FxRaw;
  acos(a: FxRaw): FxRaw;
  exp(a: FxRaw): FxRaw;
  log(a: FxRaw): FxRaw;
}

// ---- ValueNoise -------------------------------------------------------------------------

export interface ValueNoiseConstructor {
  /** The noise of a seed in [0, 2^64) (a safe-integer number or a bigint). */
  new (seed: number | bigint): ValueNoise;
}

/** The core's value noise: `octave` (f32, for renderers) and `octaveFx` (integer-only). A plain value. */
export interface ValueNoise {
  readonly seed: bigint;
  corner(xi: number, zi: number, octave?: number): number;
  cornerFx(xi: number, zi: number, octave?: number): FxRaw;
  octave(x: number, z: number, lattice: number, octave?: number): number;
  octaveFx(x: FxRaw, z: FxRaw, lattice: FxRaw, octave?: number): FxRaw;
}

// ---- Handles and time -------------------------------------------------------------------

/**
 * Handles to C++ objects. `delete()` frees one at a known time; a handle dropped without it is
 * freed when collected (which may be never). Using a deleted handle throws an Error. `using`
 * declarations dispose them where `Symbol.dispose` exists.
 */
export interface Deletable {
  delete(): void;
}

export interface FixedTimestepConstructor {
  /** A fixed step of `stepMs` ms, catch-up capped at 250 ms. @throws RangeError when not positive */
  new (stepMs: number): FixedTimestep;
  /** A step of 1/hz s, hz in [1, 1000]. */
  fromHz(hz: number): FixedTimestep;
}

/** Spends elapsed real time as whole fixed steps, carrying the remainder, capping a stall's catch-up. */
export interface FixedTimestep extends Deletable {
  withMaxFrameMs(maxFrameMs: number): FixedTimestep;
  withMaxSteps(maxSteps: number): FixedTimestep;
  /** Adds elapsed ms; returns the steps they pay for. */
  advance(elapsedMs: number): number;
  setStepMs(stepMs: number): void;
  readonly stepMs: number;
  readonly stepSeconds: FxRaw;
  readonly maxFrameMs: number;
  pendingMs(): number;
  droppedMs(): number;
  /** The render blend factor in [0, 1). */
  alpha(): number;
  alphaRaw(): FxRaw;
  reset(): void;
}

export interface PeriodicConstructor {
  new (intervalMs: number): Periodic;
  fromHz(hz: number): Periodic;
}

export interface Periodic extends Deletable {
  due(elapsedMs: number): boolean;
  advance(elapsedMs: number): number;
  setIntervalMs(intervalMs: number): void;
  readonly intervalMs: number;
  pendingMs(): number;
  remainingMs(): number;
  reset(): void;
}

// ---- World ------------------------------------------------------------------------------

/** The RangeError thrown for a config knob the game's validate() refuses. */
export interface ConfigRangeError extends RangeError {
  /** The knob (camelCase), or the room's own key. */
  readonly field: string;
  /** The C++ code, e.g. `'softening_out_of_range'`. */
  readonly code: string;
}

/** What a page draws: per list the element fields, and fields outside the lists by path. */
export interface ViewSelection {
  lists?: Record<string, string[]>;
  scalars?: string[];
}

/**
 * One state's selected values: per list its element count and one column per field (Fx values
 * as float units in a Float32Array, a Vec2 as `name.x` and `name.y`, a SlotKey as `name.index`
 * and `name.generation`, everything else as doubles), and the selected scalars. Views into the
 * module's memory, valid until the next call into it.
 */
export interface ViewColumns {
  lists: Record<string, { count: number; columns: Record<string, Float32Array | Float64Array> }>;
  scalars: Record<string, number>;
}

export interface WorldConstructor<G extends GameTypes = GameTypes> {
  /** A fresh state at tick 0 from the knobs given (the defaults for the rest). @throws ConfigRangeError */
  new (config?: Partial<ConfigInput<G>>): World<G>;
  /** A world decoded from a snapshot. @throws SnapshotError with the decoder's `.code` */
  fromSnapshot(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): World<G>;
}

/** One state of the game and the Stepper that steps it. */
export interface World<G extends GameTypes = GameTypes> extends Deletable {
  readonly tick: number;
  /** Ticks per second its config runs at. */
  readonly tickHz: number;
  config(): G['config'];
  /** One tick with these inputs (objects, or canonical bytes). @throws InputError, the world unchanged */
  step(inputs?: readonly Input<G>[] | Uint8Array): this;
  /** What the last step did (empty before any step). */
  events(): G['event'][];
  digest(): DigestHex;
  sectionDigests(): Record<G['section'], DigestHex>;
  /** The canonical snapshot (loads in any build of the same fingerprint). */
  snapshot(): Uint8Array;
  /** The canonical state, one `path value` line per field, as `tandem dump` prints it. */
  dump(): string;
  /** The whole state as a plain object, keyed by the visitor's names. */
  state(): G['state'];
  /** Every field: its dump path, section and value as the dump prints it. */
  fields(): { path: string; section: string; value: string }[];
  /** The fields that differ from `other`'s (at most `limit`, default 32) and how many in all. */
  diff(other: World<G>, limit?: number): { fields: { path: string; section: string; self: string | null; other: string | null }[]; total: number };
  clone(): World<G>;
  equals(other: World<G>): boolean;
  /** What view() reads from now on. */
  setView(selection: ViewSelection): void;
  /** The selected columns of this state and of the one before its last step (null before any step). */
  view(): { tick: number; current: ViewColumns; previous: ViewColumns | null; events: G['event'][] } | null;
}

export interface ScenarioStatic<G extends GameTypes = GameTypes> {
  /** The named scenario at tick 0, or driving a copy of `from`. */
  open(name: string, from?: World<G>): Scenario<G>;
}

export interface Scenario<G extends GameTypes = GameTypes> extends Deletable {
  readonly name: string;
  readonly tick: number;
  step(n?: number): this;
  digest(): DigestHex;
  sectionDigests(): Record<G['section'], DigestHex>;
  dump(): string;
  /** The scenario's own world (not a copy): valid until the scenario is deleted. */
  readonly world: World<G>;
}

// ---- Errors -----------------------------------------------------------------------------

export declare class SnapshotError extends Error {
  readonly code: string;
}
export declare class InputError extends Error {
  readonly code: string;
  /** The refused record's index (undefined for a single command). */
  readonly index: number | undefined;
}
export declare class ReplayError extends Error {
  readonly code: string;
  readonly record: number;
  readonly offset: number;
}
/** A join ticket that does not decode (ClientSession.setTicket): the codec's code, or not_base64url. */
export declare class TicketError extends Error {
  readonly code: 'not_base64url' | 'truncated' | 'trailing_bytes' | 'payload_too_long' | 'unknown_ticket_format' | 'bad_role'
    | 'nonzero_padding' | 'bad_room_name' | 'text_too_long' | 'bad_text';
}

// ---- The net layer ------------------------------------------------------------------------

export interface RoomConstructor<G extends GameTypes = GameTypes> {
  /** The game's knobs plus the room's own: inputDelayTicks, maxWatchers, idleTimeoutMs. */
  new (config?: Partial<ConfigInput<G>> & { inputDelayTicks?: number; maxWatchers?: number; idleTimeoutMs?: number }): Room<G>;
}

/** The server's logic for one match (src/net's Room<G>), driven by calls. */
export interface Room<G extends GameTypes = GameTypes> extends Deletable {
  connect(nowMs: number): number;
  receive(id: number, bytes: Uint8Array | ArrayBuffer | ArrayBufferView, nowMs: number): void;
  disconnect(id: number, nowMs: number): void;
  tick(nowMs: number): void;
  shutDown(nowMs: number): void;
  takeOutbox(): { sends: { to: number; bytes: Uint8Array }[]; closes: { who: number; reason: string; code: number }[] };
  stats(): Record<string, number | Record<string, number>>;
  client(id: number): Record<string, unknown> | null;
  limits(): { inputDelayTicks: number; maxPlayers: number; maxWatchers: number; idleTimeoutMs: number; ringTicks: number;
    flowWindowTicks: number; flowWindowBytes: number; baselineRepeatTicks: number; game: G['config'] };
  stateDigest(): DigestHex;
  stateSections(): Record<G['section'], DigestHex>;
  /** A copy of the authoritative state (delete it when done). */
  world(): World<G>;
  startRecording(): void;
  takeRecording(): Uint8Array;
}

export interface ReplayDivergence {
  tick: number;
  expected: DigestHex;
  actual: DigestHex;
  sections: string[] | null;
  fields: { path: string; section: string; replay: string | null; thisBuild: string | null }[] | null;
  fieldsTick: number | null;
  fieldsDiffering: number | null;
}

export interface ReplayStatic<G extends GameTypes = GameTypes> {
  check(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): { firstTick: number; lastTick: number; framesChecked: number;
    baselinesChecked: number; baselinesAdopted: number; divergence: ReplayDivergence | null };
  worldAt(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, tick: number): World<G>;
  /** The line a page shows for "Check against native". */
  describeCheck(bytes: Uint8Array): string;
}

export interface SessionOptions {
  watch?: boolean;
  nowMs: number;
  /** Time steps with performance.now() to fit advance()'s budget (default true). */
  measureStepCost?: boolean;
  /** Draw a predicted state ahead of the confirmed one (default false). */
  predict?: boolean;
  /** The most ticks the prediction runs ahead, 1..64 (default 12). */
  predictWindowTicks?: number;
}

/** The drawn view of a session: the selected columns of the state drawn and of the one before. */
export interface RenderView<G extends GameTypes = GameTypes> {
  hasWorld: boolean;
  tick: number;
  /** [0, 1]: how far from the previous drawn tick to `tick`. */
  alpha: number;
  /** The world's tick rate (0 without a world): alpha grows by tickHz / 1000 a millisecond until 1. */
  tickHz: number;
  predicted: boolean;
  confirmedTick: number | null;
  me: number | null;
  current: ViewColumns | null;
  previous: ViewColumns | null;
  /** The confirmed step's events (a predicted step's could be taken back). */
  events: G['event'][];
}

export interface PageFigures {
  me: number | null;
  reconnectedAs: number | null;
  tick: number | null;
  serverTick: number;
  lagTicks: number;
  verification: {
    verifiedTick: number | null;
    verifiedTicks: number;
    mismatches: { tick: number; section: string | null; sections: string[] | null;
      fields: { path: string; section: string; room: string | null; thisBuild: string | null }[] | null;
      fieldsTick: number | null; fieldsDiffering: number | null; healed: boolean }[];
  };
  rttMs: number | null;
  bytesInPerSec: number;
  bytesOutPerSec: number;
  droppedMs: number;
  stepCostMs: number;
  lastResume: null | { awayMs: number; path: string; ticks: number; frames: number; baselineBytes: number; droppedMs: number;
    verifiedAfterMs: number | null; catchUpEstimateMs: number | null; baselineEstimateMs: number | null };
  error: null | { code: string; message: string };
  prediction: null | Record<string, number | boolean | string | null>;
  /** The session's own figures, whole. */
  session: Record<string, unknown>;
}

/** What a ClientSession and an OfflineMatch both offer a page. */
export interface SessionSurface<G extends GameTypes = GameTypes> {
  /** The person's command; the session sequences and rate-limits it. @throws TypeError/RangeError/InputError */
  sendCommand(command: G['command'], nowMs?: number): void;
  setView(selection: ViewSelection): void;
  renderView(nowMs?: number): RenderView<G>;
  figures(): PageFigures;
  exportReplay(): Uint8Array;
  /** Debug: flips a field (the game's choice, or `path`); true when one was flipped. */
  corruptOnce(path?: string): boolean;
  checkAgainstNative(): string;
}

export interface ClientSessionConstructor<G extends GameTypes = GameTypes> {
  new (options: SessionOptions): ClientSession<G>;
  /** Every build binds the predicted client. */
  readonly predicts: boolean;
}

/** The browser's side of a match (src/net's ClientSession<G>, and client::PredictedClient<G>). */
export interface ClientSession<G extends GameTypes = GameTypes> extends Deletable, SessionSurface<G> {
  /**
   * A join ticket from the room's lobby, for a server that requires them (`tandem serve
   * --ticket-key`): the base64url text `tandem ticket` prints, or its bytes. Sent with every
   * hello asking for a new seat or place. Throws a TicketError (`.code`) when it does not decode.
   */
  setTicket(ticket: string | Uint8Array): void;
  onConnected(nowMs: number): void;
  receive(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, nowMs: number): void;
  onDisconnected(code: number, nowMs: number): void;
  /** The socket closed without ever opening (refused, unreachable): the next attempt backs off and goes elsewhere. */
  onConnectFailed(nowMs: number): void;
  /**
   * The URL the transport opens first, and the fleet's other WebSocket URLs for this room (any
   * process sharing the room's store serves it or names its owner), tried in turn when a
   * connection does not open. Returns how many of `urls` were kept: ws:// or wss:// URLs only,
   * no repeats, at most 8. Throws a TypeError for anything but a string and an array of strings.
   */
  setFleet(ownUrl: string, urls: string[]): number;
  shouldReconnect(): boolean;
  readonly reconnectDelayMs: number;
  /**
   * Where the next socket should go; '' for the transport's own URL. After a `room_moved`
   * refusal (another process serves the room now), the URL it named: the session keeps its
   * resume token, so a player gets its seat back there; it follows at most 4 moves between
   * verified ticks, then refuses for good. After a socket that never opened, the fleet's next
   * entry (setFleet), or back to the entry that named a process that no longer answers.
   */
  readonly nextUrl: string;
  takeOutgoing(): Uint8Array[];
  advance(nowMs: number, budgetMs: number): number;
  onSuspend(nowMs: number): void;
  onResume(nowMs: number): void;
}

export interface ScriptedBotConstructor<G extends GameTypes = GameTypes> {
  new (options: { seed: number }): ScriptedBot<G>;
}

export interface ScriptedBot<G extends GameTypes = GameTypes> extends Deletable {
  onConnected(): void;
  receive(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): void;
  takeOutgoing(): Uint8Array[];
  figures(): { welcomed: boolean; player: number | null; tick: number; commandsSent: number; acksSent: number;
    malformedIn: number; refused: boolean; command: G['command'] };
}

export interface OfflineMatchConstructor<G extends GameTypes = GameTypes> {
  new (options: SessionOptions & { config?: Partial<ConfigInput<G>>; inputDelayTicks?: number; bots?: number; botSeed?: number }): OfflineMatch<G>;
}

/** A room, this page's session and scripted bots in one tab (src/net's Match<G>). */
export interface OfflineMatch<G extends GameTypes = GameTypes> extends Deletable, SessionSurface<G> {
  /** The room's ticks owed by now; call from a timer at the tick rate. */
  pump(nowMs: number): number;
  /** One page frame: pump, then the session's advance within budgetMs. */
  advance(nowMs: number, budgetMs: number): number;
  onSuspend(nowMs: number): void;
  onResume(nowMs: number): void;
  roomFigures(): { digest: DigestHex; tick: number; tickHz: number; stats: ReturnType<Room<G>['stats']>;
    bots: ReturnType<ScriptedBot<G>['figures']>[] };
}
