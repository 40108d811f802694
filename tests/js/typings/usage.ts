// A usage sample for `tsc --strict` (package.test.mjs): touches every export of tandem.d.ts
// the way an application would, so a typing that is missing or wrong fails to compile.
import createTandem, {
  InputError, SnapshotError,
  type DigestHex, type FixedTimestep, type FxRaw, type Input, type Scenario, type SectionDigests, type Tandem,
  type TickDigest, type World, type WorldConfigValues, type ConfigRangeError, type StepEvent, type ValueNoise,
  type Room, type ClientSession, type RoomOutbox, type ReplayCheck, type ScriptedBot,
  type ReplayDivergence, type ReplayFieldDifference, type SessionFieldDifference,
} from 'tandem';

const tandem: Tandem = await createTandem();
const version: string = tandem.version;
const fingerprint: string = tandem.fingerprint;

const { fx } = tandem;
const half: FxRaw = fx.div(fx.ONE, fx.fromInt(2));
const angle: FxRaw = fx.atan2(fx.sin(half), fx.cos(half));
const values: FxRaw[] = [fx.sqrt(half), fx.atan(half), fx.asin(half), fx.acos(half), fx.exp(half), fx.log(half),
  fx.add(half, fx.EPSILON), fx.sub(fx.MAX, half), fx.mul(fx.MIN, half), fx.fromString('1.25')];
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

const world: World = new tandem.World({ seed: 12n, pelletCount: 4096, maxPlayers: 8, tickHz: 60, arenaSize: fx.fromInt(512) });
const inputs: Input[] = [
  { player: 1, kind: 'join', target: { x: fx.fromInt(10), y: fx.fromInt(20) } },
  { player: 1, kind: 'steer', target: { x: fx.fromInt(30), y: fx.fromInt(40) } },
  { player: 2, kind: 'leave' },
];
world.step(inputs).step();
const records: Uint8Array = tandem.encodeInputs(inputs);
world.step(records);
const decoded: Input[] = tandem.decodeInputs(records.subarray(0, tandem.INPUT_BYTES * 2));
const kinds: readonly ('join' | 'leave' | 'steer')[] = tandem.inputKinds;
try {
  tandem.decodeInputs(new Uint8Array(5));
} catch (error) {
  if (error instanceof InputError || error instanceof tandem.InputError) {
    const reason: 'truncated' | 'trailing_bytes' | 'bad_kind' = error.code;
    console.log(reason, error.index, decoded, kinds);
  }
}
const sections: SectionDigests = world.sectionDigests();
const config: WorldConfigValues = world.config();
const seed: bigint = config.seed;
const knobs: string[] = tandem.configKnobs.map((k) => `${k.name}:${k.type}`);
const tuned = new tandem.World({ ...tandem.defaultConfig(), softening: fx.fromInt(9), treeMaxDepth: 10 });
try {
  new tandem.World({ theta: -1 });
} catch (error) {
  if (error instanceof RangeError) console.log((error as ConfigRangeError).field, (error as ConfigRangeError).code);
}
console.log(seed, knobs, tuned.config().theta);
const happened: StepEvent[] = world.events();
const captured: number[] = happened.filter((e) => e.kind === 'captured').map((e) => e.pellet + e.player);
const noise: ValueNoise = new tandem.ValueNoise(42n);
const height: number = noise.octave(1.5, 2.5, 64, 1) + noise.corner(1, 2) + new tandem.ValueNoise(7).seed.toString().length;
const heightFx: FxRaw = noise.octaveFx(fx.fromInt(3), fx.fromInt(4), fx.fromInt(64)) + noise.cornerFx(1, 2, 0);
console.log(captured, height, heightFx);
const tick: number = world.tick + world.pelletCount + world.captures;
const positions: Float32Array = world.pelletPositions();
const wellX: FxRaw | undefined = world.wells()[0]?.pos.x;
const score: number | undefined = world.scores()[0]?.score;
const bytes: Uint8Array = world.snapshot();
const same: boolean = tandem.World.fromSnapshot(bytes).equals(world.clone());
const dump: string = world.dump();
try {
  tandem.World.fromSnapshot(bytes.subarray(0, 4));
} catch (error) {
  if (error instanceof SnapshotError || error instanceof tandem.SnapshotError) {
    const code: 'truncated' | 'bad_magic' | 'unsupported_version' | 'fingerprint_mismatch' | 'count_out_of_range'
      | 'value_out_of_range' | 'digest_mismatch' | 'trailing_bytes' = error.code;
    console.log(code, error.message);
  }
}

const scenario: Scenario = tandem.Scenario.open('chaos').step().step(5);
const resumed: Scenario = tandem.Scenario.open('chaos', scenario.world);
const scenarioDigest: DigestHex = scenario.digest();
const scenarioWorld: World = scenario.world;
console.log(scenario.name, scenario.tick, scenarioWorld.tick, resumed.digest());
scenario.delete();
resumed.delete();
world.delete();
clock.delete();
other.delete();
every.delete();

// The net layer: a room, a session, a replay.
const room: Room = new tandem.Room({ pelletCount: 64, inputDelayTicks: 2, maxWatchers: 10 });
const session: ClientSession = new tandem.ClientSession({ watch: true, nowMs: 0 });
const connection: number = room.connect(0);
session.onConnected(0);
for (const out of session.takeOutgoing()) room.receive(connection, out, 0);
room.tick(16.7);
const outbox: RoomOutbox = room.takeOutbox();
for (const { to, bytes } of outbox.sends) if (to === connection) session.receive(bytes, 16.7);
const applied: number = session.advance(16.7, 8);
const pellets: Float32Array = session.renderView().pellets.current;
const verified: number = session.figures().verification.verifiedTicks;
const mismatchField: SessionFieldDifference | undefined = session.figures().verification.mismatches[0]?.fields?.[0];
const canPredict: boolean = tandem.ClientSession.predicts;
console.log(mismatchField?.room, mismatchField?.thisBuild, canPredict);
const check: ReplayCheck = tandem.Replay.check(room.takeRecording());
console.log(applied, pellets.length, verified, check.divergence?.sections, room.stats().closes.room_full, room.worldDigest());
const divergence: ReplayDivergence | null = check.divergence;
const firstField: ReplayFieldDifference | undefined = divergence?.fields?.[0];
const sides: (string | null)[] = firstField ? [firstField.replay, firstField.thisBuild, firstField.section] : [];
const fieldsAt: number | null = divergence === null ? null : divergence.fieldsTick;
console.log(sides, fieldsAt, divergence?.fieldsDiffering, firstField?.path);
const bot: ScriptedBot = new tandem.ScriptedBot({ seed: 3 });
const botId: number = room.connect(20);
bot.onConnected();
for (const out of bot.takeOutgoing()) room.receive(botId, out, 20);
for (const { to, bytes } of room.takeOutbox().sends) if (to === botId) bot.receive(bytes);
const botPlayer: number | null = bot.figures().player;
console.log(botPlayer, bot.figures().target.x);
bot.delete();
session.delete();
room.delete();

const withBytes: Tandem = await createTandem({ wasmBinary: new Uint8Array(0) , wasmUrl: new URL('https://example.invalid/x.wasm') });

console.log(version, fingerprint, text, approx, steps, blend, seconds, due, periods, names, digest, sections, tick,
  positions, wellX, score, same, dump, scenarioDigest, withBytes);
