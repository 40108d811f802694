// A usage sample for `tsc --strict` (package.test.mjs): touches every export of the arena's
// package typings (the generic tandem.d.ts through the generated game.d.ts) the way an
// application would, so a typing that is missing or wrong fails to compile.
import createTandem, {
  InputError, SnapshotError, ReplayError,
  type Command, type Config, type DigestHex, type Event, type FixedTimestep, type FxRaw, type Game, type Input,
  type OfflineMatch, type PageFigures, type RenderView, type Scenario, type State, type Tandem, type TickDigest,
  type World, type ConfigRangeError, type ValueNoise, type Room, type ClientSession, type ScriptedBot,
  type ReplayDivergence, type ViewColumns, type Section,
} from 'tandem-arena';

const tandem: Tandem<Game> = await createTandem();
const version: string = tandem.version;
const fingerprint: string = tandem.fingerprint;
const gameName: 'arena' = tandem.game.name;
const sectionNames: readonly Section[] = tandem.game.sections;
const budget: number = tandem.frameBudgetMs(40);
const workerBudget: number = tandem.workerBudgetMs(40);

const { fx } = tandem;
const half: FxRaw = fx.div(fx.ONE, fx.fromInt(2));
const angle: FxRaw = fx.atan2(fx.sin(half), fx.cos(half));
const values: FxRaw[] = [fx.sqrt(half), fx.atan(half), fx.asin(half), fx.acos(half), fx.exp(half), fx.log(half),
  fx.add(half, fx.EPSILON), fx.sub(fx.MAX, half), fx.mul(fx.MIN, half), fx.fromString('1.25'), fx.fromUnits(2.5)];
const text: string = fx.toString(angle);
const approx: number = fx.toNumber(values[0]!);

const clock: FixedTimestep = tandem.FixedTimestep.fromHz(60).withMaxFrameMs(100).withMaxSteps(4);
const other = new tandem.FixedTimestep(16.5);
const steps: number = clock.advance(16.7);
const blend: number = clock.alpha() + clock.pendingMs() + clock.droppedMs() + clock.stepMs + clock.maxFrameMs;
const seconds: FxRaw = clock.stepSeconds + clock.alphaRaw();
other.setStepMs(20);
clock.reset();
const every = tandem.Periodic.fromHz(10);
const due: boolean = every.due(100);
const periods: number = new tandem.Periodic(250).advance(1000) + every.remainingMs() + every.intervalMs;

const names: string[] = tandem.scenarios().map((s) => `${s.name}: ${s.description}`);
const stream: TickDigest[] = tandem.runScenario('orbits', 20, 10);
const digest: DigestHex = stream[0]!.digest;

const world: World<Game> = new tandem.World({ seed: 12n, pelletCount: 4096, maxPlayers: 8, tickHz: 60, arenaSize: fx.fromInt(512) });
const aim: Command = { target: { x: fx.fromInt(30), y: fx.fromInt(40) } };
const inputs: Input<Game>[] = [
  { player: 1, kind: 'join', command: { target: { x: fx.fromInt(10), y: fx.fromInt(20) } } },
  { player: 1, kind: 'command', command: aim },
  { player: 2, kind: 'leave' },
];
world.step(inputs).step();
const records: Uint8Array = tandem.encodeInputs(inputs);
world.step(records);
const decoded: Input<Game>[] = tandem.decodeInputs(records.subarray(0, tandem.INPUT_BYTES * 2));
const kinds: readonly ('join' | 'leave' | 'command')[] = tandem.inputKinds;
try {
  tandem.decodeInputs(new Uint8Array(5));
} catch (error) {
  if (error instanceof InputError || error instanceof tandem.InputError) console.log(error.code, error.index, decoded, kinds);
}
const sections: Record<Section, DigestHex> = world.sectionDigests();
const config: Config = world.config();
const seed: bigint = config.seed;
const knobs: string[] = tandem.configKnobs.map((k) => `${k.name}:${k.type}`);
const tuned = new tandem.World({ ...tandem.defaultConfig(), softening: fx.fromInt(9), treeMaxDepth: 10 });
const resolved: Config = tandem.resolveConfig({ pelletCount: 5 });
const checked: Command = tandem.checkCommand(aim);
try {
  new tandem.World({ theta: -1 });
} catch (error) {
  if (error instanceof RangeError) console.log((error as ConfigRangeError).field, (error as ConfigRangeError).code);
}
console.log(seed, knobs, tuned.config().theta, resolved.pelletCount, checked.target.x);
const happened: Event[] = world.events();
const captured: number[] = happened.filter((e) => e.kind === 'captured').map((e) => e.pellet + e.player + e.tick);
const noise: ValueNoise = new tandem.ValueNoise(42n);
const height: number = noise.octave(1.5, 2.5, 64, 1) + noise.corner(1, 2) + new tandem.ValueNoise(7).seed.toString().length;
const heightFx: FxRaw = noise.octaveFx(fx.fromInt(3), fx.fromInt(4), fx.fromInt(64)) + noise.cornerFx(1, 2, 0);
console.log(captured, height, heightFx);
const state: State = world.state();
const tick: number = world.tick + state.pellets.length + Number(state.captures);
const wellX: FxRaw | undefined = state.wells[0]?.pos.x;
const score: number | undefined = state.wells[0]?.score;
const field: string | undefined = world.fields()[0]?.path;
const diff: number = world.diff(tuned, 3).total;
world.setView({ lists: { pellets: ['pos'], wells: ['player', 'pos'] }, scalars: ['config.arena_size'] });
const drawn: ViewColumns | undefined = world.view()?.current;
const xs = drawn?.lists['pellets']?.columns['pos.x'];
const bytes: Uint8Array = world.snapshot();
const same: boolean = tandem.World.fromSnapshot(bytes).equals(world.clone());
const dump: string = world.dump();
try {
  tandem.World.fromSnapshot(bytes.subarray(0, 4));
} catch (error) {
  if (error instanceof SnapshotError || error instanceof tandem.SnapshotError) console.log(error.code, error.message);
}

const scenario: Scenario<Game> = tandem.Scenario.open('chaos').step().step(5);
const resumed: Scenario<Game> = tandem.Scenario.open('chaos', scenario.world);
const scenarioDigest: DigestHex = scenario.digest();
const scenarioWorld: World<Game> = scenario.world;
console.log(scenario.name, scenario.tick, scenarioWorld.tick, resumed.digest(), tandem.game.openScenario('trig').dump().length);
scenario.delete();
resumed.delete();
world.delete();
clock.delete();
other.delete();
every.delete();

// The net layer: a room, a session, a replay, a bot, an offline match.
const room: Room<Game> = new tandem.Room({ pelletCount: 64, inputDelayTicks: 2, maxWatchers: 10 });
const session: ClientSession<Game> = new tandem.ClientSession({ watch: false, nowMs: 0, predict: true });
const connection: number = room.connect(0);
session.onConnected(0);
for (const out of session.takeOutgoing()) room.receive(connection, out, 0);
room.tick(16.7);
for (const { to, bytes } of room.takeOutbox().sends) if (to === connection) session.receive(bytes, 16.7);
const applied: number = session.advance(16.7, 8);
session.sendCommand(aim, 17);
session.setView({ lists: { wells: ['player', 'target'] } });
const view: RenderView<Game> = session.renderView();
const targets = view.current?.lists['wells']?.columns['target.x'];
const figures: PageFigures = session.figures();
const verified: number = figures.verification.verifiedTicks;
const mismatchField = figures.verification.mismatches[0]?.fields?.[0];
const canPredict: boolean = tandem.ClientSession.predicts;
console.log(mismatchField?.room, mismatchField?.thisBuild, canPredict, targets, session.corruptOnce());
const check = tandem.Replay.check(room.takeRecording());
console.log(applied, verified, check.divergence?.sections, room.stats(), room.stateDigest(), room.limits().game.pelletCount);
const divergence: ReplayDivergence | null = check.divergence;
const firstField = divergence?.fields?.[0];
const sides: (string | null)[] = firstField ? [firstField.replay, firstField.thisBuild, firstField.section] : [];
console.log(sides, divergence?.fieldsTick, divergence?.fieldsDiffering, firstField?.path, session.checkAgainstNative());
try {
  tandem.Replay.check(new Uint8Array(3));
} catch (error) {
  if (error instanceof ReplayError) console.log(error.code, error.record, error.offset);
}
if (tandem.ScriptedBot !== undefined && tandem.OfflineMatch !== undefined) {
  const bot: ScriptedBot<Game> = new tandem.ScriptedBot({ seed: 3 });
  const botId: number = room.connect(20);
  bot.onConnected();
  for (const out of bot.takeOutgoing()) room.receive(botId, out, 20);
  for (const { to, bytes } of room.takeOutbox().sends) if (to === botId) bot.receive(bytes);
  const botTarget: FxRaw = bot.figures().command.target.x;
  console.log(bot.figures().player, botTarget);
  bot.delete();
  const offline: OfflineMatch<Game> = new tandem.OfflineMatch({ nowMs: 0, predict: true, bots: 2, config: { pelletCount: 64 } });
  offline.pump(16);
  offline.advance(33, 8);
  offline.sendCommand(aim, 34);
  console.log(offline.figures().verification.verifiedTicks, offline.roomFigures().bots.length);
  offline.delete();
}
session.delete();
room.delete();

const withBytes: Tandem<Game> = await createTandem({ wasmBinary: new Uint8Array(0), wasmUrl: new URL('https://example.invalid/x.wasm') });

console.log(version, fingerprint, gameName, sectionNames, budget, workerBudget, text, approx, steps, blend, seconds, due, periods, names, digest,
  sections, tick, wellX, score, field, diff, xs, same, dump, scenarioDigest, withBytes);
