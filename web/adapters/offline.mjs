// The offline mode: the game's own Room (C++ in wasm) runs in this tab with scripted bots, and
// the page's own ClientSession talks to it, all inside the module's OfflineMatch (net::Match<G>
// in C++). This file only ticks the room from a timer on the room's own clock and forwards the
// frame's calls (SessionDriver, driver.mjs); the room decides what is sent, the session
// everything it decides against a server (verification, catch-up or baseline after an
// absence, acks, reconnecting), and the bots their paths (the game's bot policy). So a static
// host serves the whole page.
import { SessionDriver } from './driver.mjs';

// Bots that play beside the person (seats after the person's), each on a path of its own seed.
export const OFFLINE_BOTS = 3;

export class OfflineAdapter extends SessionDriver {
  mode = 'offline';
  modeLabel;
  #timers;
  #timer;

  /**
   * @param {object} tandem the loaded ES module (a game's package, with OfflineMatch)
   * @param {{watch: boolean, debug: boolean, lockstep?: boolean, predictWindow?: number | null, seed: number,
   *   config: object, reason: string, timers?: {setInterval: Function, clearInterval: Function}}} options
   *   config: the game's knobs the URL set (?seed, the plugin's own); reason: one line on why
   *   this page runs without a server
   * @param {{view: object, command?: Function}} plugin the game's plugin (what it draws, its command from its input)
   */
  constructor(tandem, { watch, debug, lockstep = false, predictWindow = null, seed, config = {}, reason, timers = globalThis }, plugin) {
    // As against a server: a player draws the predicted state unless ?lockstep.
    const predict = !watch && !lockstep;
    // Bot seeds from the page's seed: a reload with the same ?seed shows the same paths.
    const match = new tandem.OfflineMatch({ nowMs: performance.now(), watch, predict, predictWindowTicks: predictWindow ?? undefined,
      bots: OFFLINE_BOTS, botSeed: seed % 2 ** 40, config });
    // The room's catch-up after a stall (a hidden tab runs timers about once a second) is the
    // match's: pump() pays at most the ticks of 1.1 s at once.
    super(match, tandem, plugin, { debug, replayName: `${tandem.game.name}-offline`, resume: (nowMs) => match.pump(nowMs) });
    this.#timers = timers;
    this.modeLabel = `offline: ${reason}. A room in this tab runs the match: ${watch ? 'watching' : 'you and'} ${OFFLINE_BOTS} scripted bots` +
      (watch ? '' : ` (${predict ? 'predicted' : 'lockstep'})`);
    // The room runs on timers like a server, not on animation frames: while the tab is hidden
    // (timers slowed, frames stopped) it goes on ticking and the session falls behind, so a
    // return exercises the session's catch-up or baseline exactly as against a server.
    this.#timer = timers.setInterval(() => match.pump(performance.now()), 1000 / match.roomFigures().tickHz);
  }

  figures() {
    const f = super.figures({ mode: this.mode, modeLabel: this.modeLabel });
    const { link } = f;
    const connection = link.state === 'open' ? { state: 'local', label: 'offline: room in this tab' }
      : link.state === 'refused' ? { state: 'refused', label: 'refused by the room in this tab' }
        : { state: 'waiting', label: `closed by the room in this tab: retry in ${((link.retryInMs ?? 0) / 1000).toFixed(1)} s` };
    return { ...f, connection };
  }

  /** The room's and the bots' figures (tests and tools; the HUD does not show them). */
  roomFigures() { return this.session.roomFigures(); }

  dispose() {
    this.#timers.clearInterval(this.#timer);
    this.session.delete();
  }
}
