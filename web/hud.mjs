// The HUD: turns the adapter's figures (web/README.md) into text, colours, a digest strip and
// two live plots, lists the players and their scores as the game's plugin names them in the
// drawn view, and shows errors to the person rather than only logging them. It formats; it
// never computes a figure the session keeps, nor judges one. It names no game: the plugin
// gives its words (labels) and where its players are (scoreboard).
import { DigestStrip, LivePlot } from './plots.mjs';

const $ = (id) => document.getElementById(id);

// Writes an element's text only when it changed: an unchanged write still replaces the text
// node, and the page is laid out again for it in the next frame.
function setText(id, text) {
  const element = $(id);
  if (element.textContent !== text) element.textContent = text;
}

export const formatBytes = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${Math.round(n / 1e3)} KB` : `${Math.round(n)} B`);
const formatRate = (n) => (n === null || n === undefined ? '–' : `${formatBytes(n)}/s`);
const formatMs = (n) => (n === null || n === undefined ? '–' : n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);
// 12,345: digits grouped by hand. The HUD's first frame comes before the first verified tick,
// and the first toLocaleString() of a page loads the locale's number formats (90 ms in
// Chromium on a busy machine).
export const groupDigits = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const plural = (n, one, many = `${one}s`) => `${groupDigits(n)} ${n === 1 ? one : many}`;

/** The last-resume line, e.g. "away 4.9 s: caught up 294 ticks in 6 frames". */
export function resumeLine(r) {
  if (r === null || r === undefined) return 'no absence yet';
  const away = `away ${(r.awayMs / 1000).toFixed(1)} s`;
  switch (r.path) {
    case 'catch_up':
      return `${away}: caught up ${plural(r.ticks, 'tick')} in ${plural(r.frames, 'frame')}` +
        (r.verifiedAfterMs === null ? ', verifying…' : `, verified again in ${Math.round(r.verifiedAfterMs)} ms`);
    case 'idle':
      // Nothing to weigh: no world was held (a snapshot is on its way) or no tick was missed.
      return `${away}: ${r.frames > 0 ? 'waiting for a snapshot' : 'nothing to catch up'}` +
        (r.verifiedAfterMs === null ? '' : `, verified again in ${Math.round(r.verifiedAfterMs)} ms`);
    case 'baseline':
      return r.verifiedAfterMs === null
        ? `${away}: waiting for a baseline…`
        : `${away}: baseline ${formatBytes(r.baselineBytes)}, verified again in ${Math.round(r.verifiedAfterMs)} ms`;
    case 'local':
      return `${away}: local world ran ${plural(r.ticks, 'tick')} in ${plural(r.frames, 'frame')}` +
        (r.droppedMs > 0 ? `, skipped ${(r.droppedMs / 1000).toFixed(1)} s` : '');
    default:
      return `${away}: ${r.path}`;
  }
}

/**
 * What the latest absence did, in a player's words: "hidden 8.0 s: stayed live in the
 * background", "frozen 10.0 s: reconnected, resynced from a 25 KB snapshot, verified in 180 ms".
 * From the worker session's absence facts (figures.absence) where there are some, else the
 * session's last resume (an adapter on the main thread, which stops whenever the page is away).
 */
export function absenceLine(f) {
  const a = f.absence;
  if (a === null || a === undefined) return resumeLine(f.lastResume);
  const r = f.lastResume;
  if (a.ongoing) return `${a.kind === 'hidden' ? 'hidden' : a.kind}: ${a.kind === 'hidden' ? 'live in the background' : 'stopped by the browser'}`;
  const away = `${a.kind === 'suspended' ? 'in the back-forward cache' : a.kind} ${(a.awayMs / 1000).toFixed(1)} s`;
  const snapshot = () => `resynced from a ${r?.path === 'baseline' && r.baselineBytes > 0 ? `${formatBytes(r.baselineBytes)} ` : ''}snapshot`;
  if (a.kind === 'hidden') {
    if (a.resumesDuring === 0) return `${away}: stayed live in the background, ${plural(a.verifiedWhileAway, 'tick')} verified meanwhile`;
    // The worker fell behind while hidden (the browser or the machine starved it): how the session came back.
    const how = r?.path === 'baseline' ? snapshot() : r?.path === 'catch_up' ? `caught up ${plural(r.ticks, 'tick')}` : 'resumed';
    return `${away}: fell behind in the background ${a.resumesDuring === 1 ? 'once' : `${a.resumesDuring} times`}, ${how}` +
      (r?.verifiedAfterMs == null ? ', verifying…' : `, verified in ${Math.round(r.verifiedAfterMs)} ms`);
  }
  const parts = [];
  // The seat taken back with the session's resume token, where the room gave it (reconnectedAs).
  if (a.reconnected) parts.push(f.reconnectedAs == null ? 'reconnected' : `reconnected as player ${f.reconnectedAs}`);
  if (a.resyncedSince || r?.path === 'baseline') {
    parts.push(snapshot());
  } else if (r?.path === 'catch_up') {
    parts.push(`caught up ${plural(r.ticks, 'tick')}`);
  } else {
    parts.push('nothing to catch up');
  }
  parts.push(a.verifiedAfterMs === null ? 'verifying…' : `verified in ${Math.round(a.verifiedAfterMs)} ms`);
  return `${away}: ${parts.join(', ')}`;
}

// A player's colour when the plugin gives none: a hue per id.
const defaultColour = (player) => `hsl(${(player * 137) % 360} 70% 60%)`;

export class Hud {
  #strip = new DigestStrip($('digest-strip'));
  #scoreboard = null;
  #colour = defaultColour;
  /** The players and scores last listed (the test hook reads them). */
  lastPlayers = [];
  #lagPlot = new LivePlot($('plot-lag'), { colour: '#ffb703', floor: 2 });
  #stepPlot = new LivePlot($('plot-step'), { colour: '#4cc9f0', floor: 1 });
  #playersKey = '';
  #lastPlotMs = -Infinity;
  #lastTextMs = -Infinity;
  #alertCode = null;
  lastResumeText = 'no absence yet';

  /**
   * The game's plugin: its HUD words (labels.players, labels.help, labels.title), where its
   * players and scores are in the drawn view (scoreboard: {list, player, score}) and its colours.
   */
  setGame(plugin) {
    this.#scoreboard = plugin.scoreboard ?? null;
    this.#colour = plugin.playerColourCss ?? defaultColour;
    const { labels = {} } = plugin;
    if (labels.players) $('players-title').textContent = labels.players;
    if (labels.title) document.title = labels.title;
    if (labels.stage) $('stage').setAttribute('aria-label', labels.stage);
    const help = $('game-help');
    help.replaceChildren(...(labels.help ?? []).map((text) => Object.assign(document.createElement('p'), { textContent: text })));
    $('players').hidden = this.#scoreboard === null;
  }

  update(f, view, frame, nowMs) {
    // Text 10 times a second, plots 30 times: enough to read, cheap to draw.
    if (nowMs - this.#lastTextMs >= 100) {
      this.#lastTextMs = nowMs;
      this.#text(f, view);
    }
    // The plots and the strip start with the first verified tick (or mismatch): before it they
    // have nothing to show, and their first drawing (canvas set-up included) would compete on the main
    // thread with the welcome, the baseline and the first frames that bring that tick.
    const waiting = f.verification !== null && f.verification.verifiedTicks === 0 && f.verification.mismatches.length === 0;
    if (!waiting && nowMs - this.#lastPlotMs >= 33) {
      this.#lastPlotMs = nowMs;
      this.#lagPlot.push(f.lagTicks ?? 0);
      this.#stepPlot.push(f.stepCostMs ?? 0);
      this.#lagPlot.draw();
      this.#stepPlot.draw();
      if (f.verification !== null) this.#strip.update(f.verification.verifiedTick, f.verification.mismatches);
      this.#strip.draw(f.verification === null ? null : f.serverTick ?? f.tick);
    }
  }

  #text(f, view) {
    const badge = $('connection');
    if (badge.dataset.state !== f.connection.state) badge.dataset.state = f.connection.state;
    setText('connection', f.reconnectedAs == null ? f.connection.label : `${f.connection.label}, reconnected as player ${f.reconnectedAs}`);
    setText('mode', f.modeLabel);
    setText('tick', f.tick === null ? '–' : groupDigits(f.tick));
    setText('server-tick', f.serverTick == null ? '–' : groupDigits(f.serverTick));
    setText('lag', f.lagTicks == null ? '–' : String(f.lagTicks));
    this.lastResumeText = absenceLine(f);
    setText('resume', this.lastResumeText);
    setText('rtt', formatMs(f.rttMs));
    setText('bw-in', formatRate(f.bytesInPerSec));
    setText('bw-out', formatRate(f.bytesOutPerSec));
    setText('dropped', formatMs(f.droppedMs));
    setText('verify-summary', verificationSummary(f.verification));
    this.#prediction(f.prediction);
    this.#players(this.#playersOf(view), f.me);
    this.#alert(f.error);
  }

  // A predicting session's figures (docs/prediction.md); hidden in lockstep and offline.
  #prediction(p) {
    if ($('prediction').hidden !== !p) $('prediction').hidden = !p;
    if (!p) return;
    setText('predict-depth', p.active ? `+${p.depthTicks} ticks` : '–');
    setText('predict-rollbacks', `${p.rollbacksPerSec}/s`);
    setText('predict-resim', `${p.resimTicksLast} / p99 ${p.resimTicksP99}` +
      (p.resimMsP99 === null ? '' : ` (${p.resimMsP99.toFixed(1)} ms)`));
    setText('predict-alarms', String(p.monitorAlarms));
  }

  // [{player, score}] from the drawn view's columns the plugin names; [] before a world.
  #playersOf(view) {
    const board = this.#scoreboard;
    const list = board && view?.current?.lists[board.list];
    if (!list) return [];
    const ids = list.columns[board.player];
    const scores = list.columns[board.score];
    const out = [];
    for (let i = 0; i < list.count; ++i) out.push({ player: ids[i], score: scores?.[i] ?? 0 });
    this.lastPlayers = out;
    return out;
  }

  #players(players, me) {
    const key = players.map((p) => `${p.player}:${p.score}`).join(',') + `|${me}`;
    if (key === this.#playersKey) return;
    this.#playersKey = key;
    const list = $('score-list');
    list.replaceChildren(...[...players].sort((a, b) => b.score - a.score || a.player - b.player).map((p) => {
      const li = document.createElement('li');
      if (p.player === me) li.className = 'mine';
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = this.#colour(p.player);
      const name = document.createElement('span');
      name.textContent = p.player === me ? `player ${p.player} (you)` : `player ${p.player}`;
      const score = document.createElement('span');
      score.className = 'score';
      score.textContent = groupDigits(p.score);
      li.append(swatch, name, score);
      return li;
    }));
    if (players.length === 0) list.replaceChildren(Object.assign(document.createElement('li'), { textContent: 'nobody yet' }));
  }

  #alert(error) {
    const code = error ? `${error.code}: ${error.message}` : null;
    if (code === this.#alertCode) return;
    this.#alertCode = code;
    this.showAlert(error ? error.message : null);
  }

  showAlert(message) {
    const alert = $('alert');
    alert.hidden = message === null;
    alert.textContent = message ?? '';
  }

  /** A standing note about this page (not an error), e.g. the flat view standing in for 3D; null hides it. */
  notice(text) {
    const note = $('notice');
    note.hidden = text === null;
    note.textContent = text ?? '';
  }

  /** A failure of the page itself (the module did not load, a frame threw). */
  fail(error) {
    this.showAlert(`The page stopped: ${error?.message ?? error}`);
    const badge = $('connection');
    badge.dataset.state = 'failed';
    badge.textContent = 'stopped';
  }

  /** Restarts the strip (a new world). */
  clearStrip() { this.#strip.clear(); }
}

export function verificationSummary(v) {
  if (v === null) return 'nothing to verify: this world runs only in this tab';
  const parts = [`${plural(v.verifiedTicks, 'tick')} verified`];
  if (v.mismatches.length > 0) {
    const last = v.mismatches[v.mismatches.length - 1];
    parts.push(`${plural(v.mismatches.length, 'mismatch', 'mismatches')}, last at tick ${last.tick}` +
      (last.section ? ` (${last.section})` : '') + mismatchField(last) + (last.healed ? ', healed' : ''));
  }
  return parts.join(' · ');
}

/**
 * The first field of a mismatch, once the session knows it (the healing baseline's diff):
 * ": players[1].pos.x server 6553600, this tab 6553601" (and how many more differ).
 */
export function mismatchField(m) {
  const first = m.fields?.[0];
  if (!first) return '';
  const more = m.fieldsDiffering > 1 ? ` (+${groupDigits(m.fieldsDiffering - 1)} more)` : '';
  return `: ${first.path} server ${first.room ?? '-'}, this tab ${first.thisBuild ?? '-'}${more}`;
}
