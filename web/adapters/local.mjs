// The local stand-in: a world that runs only in this tab, behind the same adapter interface
// the client session will fill (adapters/README.md). Either a sandbox (you steer player 1
// among a few scripted bots) or a named scenario played from tick 0 (watch only). Nothing
// here is verified against anything: it exists so the renderer, the HUD, the lifecycle
// plumbing and the tests run before the session does. It must not grow decisions that belong
// to the session; the offline mode proper will be a Room in the page.

import { RESPAWN_JUMP } from '../palette.mjs';

const ME = 1;
const BOTS = [2, 3, 4];

const toUnits = (raw) => raw / 65536;
const toRaw = (units) => Math.round(units * 65536);

// The world's tick rate and arena side. The module has no config accessor yet, so they are
// read from the canonical dump ("config.tick_hz 60", "config.arena_size <raw>"), once.
function configOf(world) {
  const lines = world.dump().split('\n', 24);
  const value = (name) => {
    const line = lines.find((l) => l.startsWith(`config.${name} `));
    if (line === undefined) throw new Error(`the world's dump has no config.${name}`);
    return Number(line.slice(name.length + 8));
  };
  return { tickHz: value('tick_hz'), arenaSize: toUnits(value('arena_size')) };
}

export class LocalAdapter {
  mode;
  modeLabel;
  arenaSize;
  #tandem;
  #scenario = null;
  #world;
  #clock;
  #lastMs = null;
  #me;
  #steer = null;
  #previous;
  #previousWells = new Map();
  #events = [];
  #droppedMs = 0;
  #stepCostMs = null;
  #suspendedAtMs = null;
  #resume = null;
  #lastResume = null;

  /**
   * @param {object} tandem the loaded ES module
   * @param {{scenario: string|null, watch: boolean, seed: number, pellets: number, reason: string}} options
   *   reason: one line on why this page is not connected to a server
   */
  constructor(tandem, { scenario, watch, seed, pellets, reason }) {
    this.#tandem = tandem;
    if (scenario !== null) {
      this.#scenario = tandem.Scenario.open(scenario);
      this.#world = this.#scenario.world;
      this.#me = null;
      this.mode = 'scenario';
      this.modeLabel = `Scenario "${scenario}" played in this tab from tick 0 (${reason})`;
    } else {
      this.#world = new tandem.World({ seed, pelletCount: pellets });
      this.#me = watch ? null : ME;
      this.mode = 'local';
      this.modeLabel = watch
        ? `Offline, watching: a local world in this tab with ${BOTS.length} scripted bots (${reason})`
        : `Offline: a local world in this tab, you and ${BOTS.length} scripted bots (${reason})`;
    }
    const config = configOf(this.#world);
    // The world's own rate, on the core's fixed-step clock (the same one the server uses).
    this.#clock = tandem.FixedTimestep.fromHz(config.tickHz);
    this.arenaSize = config.arenaSize;
    this.#previous = new Float32Array(this.#world.pelletCount * 2);
    this.#previous.set(this.#world.pelletPositions());
  }

  get world() { return this.#world; }

  advance(nowMs, budgetMs) {
    const elapsed = this.#lastMs === null ? 0 : nowMs - this.#lastMs;
    this.#lastMs = nowMs;
    const owed = this.#clock.advance(elapsed);
    if (owed > 0) this.#events = [];   // the view shows the events of the newest frame's ticks
    const start = performance.now();
    let stepped = 0;
    // The local stand-in spends at most the budget and drops the rest (nothing to verify, so
    // nothing is lost but time); the session decides this for real.
    while (stepped < owed && (stepped === 0 || performance.now() - start < budgetMs)) {
      this.#stepOnce();
      stepped += 1;
    }
    const spent = performance.now() - start;
    if (stepped > 0) this.#stepCostMs = spent / stepped;
    if (stepped < owed) this.#droppedMs += (owed - stepped) * this.#clock.stepMs;
    if (this.#resume !== null) {
      this.#resume.ticks += stepped;
      this.#resume.frames += 1;
      this.#lastResume = { ...this.#resume, droppedMs: this.#clock.droppedMs() + this.#droppedMs - this.#resume.droppedBeforeMs };
      this.#resume = null;   // the capped clock pays the whole absence in its first frame
    }
  }

  #stepOnce() {
    const world = this.#world;
    this.#previous.set(world.pelletPositions());
    this.#previousWells.clear();
    for (const w of world.wells()) this.#previousWells.set(w.player, { x: toUnits(w.pos.x), y: toUnits(w.pos.y) });
    if (this.#scenario !== null) {
      this.#scenario.step(1);
    } else {
      world.step(this.#inputs(world.tick));
    }
    this.#findCaptures();
  }

  // The sandbox's inputs for the coming tick: joins at tick 0, your newest steer, the bots'
  // circles (scripted from the tick, so a reload shows the same dance).
  #inputs(tick) {
    const centre = this.arenaSize / 2;
    const inputs = [];
    const at = (x, y) => ({ x: toRaw(x), y: toRaw(y) });
    if (tick === 0) {
      if (this.#me !== null) inputs.push({ player: this.#me, kind: 'join', target: at(centre, centre) });
      for (const bot of BOTS) inputs.push({ player: bot, kind: 'join', target: at(centre, centre) });
    }
    if (this.#steer !== null) {
      inputs.push({ player: this.#me, kind: 'steer', target: at(this.#steer.x, this.#steer.y) });
      this.#steer = null;
    }
    if (tick % 6 === 0) {
      BOTS.forEach((bot, k) => {
        const angle = tick / (160 + 50 * k) + (k * 2 * Math.PI) / BOTS.length;
        const radius = this.arenaSize * (0.18 + 0.09 * k);
        inputs.push({ player: bot, kind: 'steer', target: at(centre + radius * Math.cos(angle), centre + radius * Math.sin(angle)) });
      });
    }
    return inputs;
  }

  // Captures for the flashes: a pellet that jumped respawned, taken by the nearest well.
  // (Replaced by the step's own events once the module reports them.)
  #findCaptures() {
    const now = this.#world.pelletPositions();
    const prev = this.#previous;
    const wells = [...this.#previousWells].map(([player, p]) => ({ player, ...p }));
    if (wells.length === 0) return;
    for (let i = 0; i < now.length; i += 2) {
      if (Math.abs(now[i] - prev[i]) + Math.abs(now[i + 1] - prev[i + 1]) < RESPAWN_JUMP) continue;
      let best = wells[0];
      let bestD = Infinity;
      for (const w of wells) {
        const d = (w.x - prev[i]) ** 2 + (w.y - prev[i + 1]) ** 2;
        if (d < bestD) [best, bestD] = [w, d];
      }
      this.#events.push({ kind: 'captured', tick: this.#world.tick, player: best.player, pellet: i / 2 });
    }
  }

  onSuspend(nowMs) {
    this.#suspendedAtMs = nowMs;
  }

  onResume(nowMs) {
    if (this.#suspendedAtMs === null) return;
    this.#resume = { awayMs: nowMs - this.#suspendedAtMs, path: 'local', ticks: 0, frames: 0,
      droppedBeforeMs: this.#clock.droppedMs() + this.#droppedMs };
    this.#suspendedAtMs = null;
  }

  /** The person's steer target in arena units; applied at the next tick. */
  steer(point) {
    if (this.#me === null) return;
    this.#steer = { x: point.x, y: point.y };
  }

  renderView() {
    const wells = this.#world.wells().map((w) => {
      const x = toUnits(w.pos.x);
      const y = toUnits(w.pos.y);
      const prev = this.#previousWells.get(w.player);
      return { player: w.player, x, y, prevX: prev?.x ?? x, prevY: prev?.y ?? y,
        targetX: toUnits(w.target.x), targetY: toUnits(w.target.y), score: w.score };
    });
    return {
      tick: this.#world.tick,
      alpha: this.#clock.alpha(),
      arenaSize: this.arenaSize,
      me: this.#me,
      pellets: { current: this.#world.pelletPositions(), previous: this.#previous },
      wells,
      events: this.#events,
    };
  }

  figures() {
    return {
      mode: this.mode,
      modeLabel: this.modeLabel,
      connection: { state: 'local', label: this.mode === 'scenario' ? 'scenario' : 'offline' },
      me: this.#me,
      players: this.#world.scores(),
      tick: this.#world.tick,
      serverTick: null,
      lagTicks: null,
      verification: null,
      rttMs: null,
      bytesInPerSec: null,
      bytesOutPerSec: null,
      droppedMs: this.#clock.droppedMs() + this.#droppedMs,
      stepCostMs: this.#stepCostMs,
      lastResume: this.#lastResume,
      error: null,
    };
  }

  // Check against native, replays and the debug corruption need the session and the server
  // (or the Room and a shipped golden stream offline): not in this stand-in.
  actions = {};

  dispose() {
    if (this.#scenario !== null) this.#scenario.delete();
    else this.#world.delete();
    this.#clock.delete();
  }
}
