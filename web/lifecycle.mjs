// Feeds the page's lifecycle to whoever keeps the simulation (the adapter, and through it the
// client session): one onSuspend(now) when the page stops being shown or running, one
// onResume(now) when it is back. It decides nothing about what an absence means; it only
// folds the browser's overlapping events (hidden, then frozen; resumed while still hidden,
// then visible; pagehide/pageshow around the back-forward cache) into one absence.
// A target with onLifecycle(now, {hidden, frozen, unloaded}) (the session in its worker, which
// keeps running while the page is only hidden) is given every change of the reasons instead.

/**
 * @param {{onSuspend(nowMs: number): void, onResume(nowMs: number): void,
 *   onLifecycle?(nowMs: number, away: {hidden: boolean, frozen: boolean, unloaded: boolean}): void}} target
 * @param {{document?: Document, window?: Window, now?: () => number}} [env]
 * @returns {{log: Array<{event: string, atMs: number, suspended: boolean}>, suspended: () => boolean, stop: () => void}}
 */
export function feedLifecycle(target, env = {}) {
  const doc = env.document ?? document;
  const win = env.window ?? window;
  const now = env.now ?? (() => performance.now());

  // Each reason the page may be away; the page is suspended while any holds.
  const away = { hidden: doc.visibilityState === 'hidden', frozen: false, unloaded: false };
  let suspended = Object.values(away).some(Boolean);
  const log = [];
  const LOG_LIMIT = 200;

  const update = (event, reason, isAway) => {
    const changed = away[reason] !== isAway;
    away[reason] = isAway;
    const nowMs = now();
    const next = Object.values(away).some(Boolean);
    log.push({ event, atMs: nowMs, suspended: next });
    if (log.length > LOG_LIMIT) log.shift();
    if (typeof target.onLifecycle === 'function') {
      suspended = next;
      if (changed) target.onLifecycle(nowMs, { ...away });
      return;
    }
    if (next === suspended) return;
    suspended = next;
    if (next) target.onSuspend(nowMs);
    else target.onResume(nowMs);
  };

  const listeners = [
    [doc, 'visibilitychange', () => update('visibilitychange', 'hidden', doc.visibilityState === 'hidden')],
    // Page Lifecycle (Chromium only): a frozen page runs nothing, not even its timers.
    [doc, 'freeze', () => update('freeze', 'frozen', true)],
    [doc, 'resume', () => update('resume', 'frozen', false)],
    // The back-forward cache: a persisted pagehide is an absence that may end in pageshow.
    [win, 'pagehide', (e) => { if (e.persisted) update('pagehide', 'unloaded', true); }],
    [win, 'pageshow', (e) => { if (e.persisted) update('pageshow', 'unloaded', false); }],
  ];
  for (const [where, name, fn] of listeners) where.addEventListener(name, fn);

  return {
    log,
    suspended: () => suspended,
    stop() {
      for (const [where, name, fn] of listeners) where.removeEventListener(name, fn);
    },
  };
}
