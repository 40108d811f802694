// ?scenario=NAME: one of the game's named scenarios played in this tab from tick 0, watched
// (its script drives every input), behind the adapter interface (web/README.md). Nothing here
// is verified against anything, and nothing is decided here: the core's fixed-step clock says
// how many ticks are owed, the scenario's script says each tick's inputs, and the world says
// what each step did (its events). What it draws is the same selection a session draws.

export class ScenarioAdapter {
  mode = 'scenario';
  modeLabel;
  #scenario;
  #clock;
  #lastMs = null;
  #droppedMs = 0;
  #stepCostMs = null;
  #suspendedAtMs = null;
  #resume = null;
  #lastResume = null;
  #view = null;

  /**
   * @param {object} tandem the loaded ES module (a game's package)
   * @param {{scenario: string, reason: string}} options
   * @param {{view: object}} plugin the game's plugin (what it draws)
   */
  constructor(tandem, { scenario, reason }, plugin) {
    this.#scenario = tandem.Scenario.open(scenario);
    this.#scenario.world.setView(plugin.view);
    this.modeLabel = `Scenario "${scenario}" played in this tab from tick 0 (${reason})`;
    // The scenario's own rate, on the core's fixed-step clock (the same one the server uses).
    this.#clock = tandem.FixedTimestep.fromHz(this.#scenario.world.tickHz);
    this.actions = {};
    this.frameBudgetMs = tandem.frameBudgetMs;
  }

  advance(nowMs, budgetMs) {
    const elapsed = this.#lastMs === null ? 0 : nowMs - this.#lastMs;
    this.#lastMs = nowMs;
    const owed = this.#clock.advance(elapsed);
    const start = performance.now();
    let stepped = 0;
    // At most the budget, the rest dropped (nothing to verify, so nothing is lost but time).
    while (stepped < owed && (stepped === 0 || performance.now() - start < budgetMs)) {
      this.#scenario.step(1);
      stepped += 1;
    }
    if (stepped > 0) {
      this.#stepCostMs = (performance.now() - start) / stepped;
      this.#view = null;
    }
    if (stepped < owed) this.#droppedMs += (owed - stepped) * this.#clock.stepMs;
    if (this.#resume !== null) {
      this.#lastResume = { ...this.#resume, ticks: stepped, frames: 1, droppedMs: this.#clock.droppedMs() + this.#droppedMs - this.#resume.droppedBeforeMs };
      this.#resume = null;   // the capped clock pays the whole absence in its first frame
    }
  }

  onSuspend(nowMs) { this.#suspendedAtMs = nowMs; }

  onResume(nowMs) {
    if (this.#suspendedAtMs === null) return;
    this.#resume = { awayMs: nowMs - this.#suspendedAtMs, path: 'local', droppedBeforeMs: this.#clock.droppedMs() + this.#droppedMs };
    this.#suspendedAtMs = null;
  }

  sendInput() {}   // watched: the script plays every seat

  /** The world's columns now and before its last step, in the render view's shape. */
  renderView() {
    const v = this.#scenario.world.view();
    return { hasWorld: true, tick: v.tick, alpha: this.#clock.alpha(), predicted: false, confirmedTick: null, me: null,
      current: v.current, previous: v.previous, events: v.events };
  }

  figures() {
    return {
      mode: this.mode,
      modeLabel: this.modeLabel,
      connection: { state: 'local', label: 'scenario' },
      me: null,
      tick: this.#scenario.tick,
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
      prediction: null,
    };
  }

  dispose() {
    this.#scenario.delete();
    this.#clock.delete();
  }
}
