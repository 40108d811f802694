// Debian's Chromium, started by hand and attached over CDP without Playwright's defaults.
// Playwright's own launch turns on focus emulation, which keeps every page "visible": a tab
// behind another, a minimised window or a frozen page would go on drawing at 60 fps and a test
// of backgrounding would prove nothing. Here visibility, rAF throttling and freezing are the
// browser's own. Only Chromium's real throttling is wanted: no anti-throttling flags.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { killTracked, removeDir, spawnTracked, waitForLine } from './processes.mjs';

export const CHROMIUM = process.env.TANDEM_CHROMIUM ?? ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(existsSync);

// The flags measured to keep real lifecycle behaviour while staying quiet and local:
// nothing here reaches the network (no component updates, no sync, no QUIC probes).
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--window-size=' + (process.env.WS ?? '1280,800'),
];

/**
 * Starts Chromium with a fresh profile and attaches Playwright to it.
 * @returns {Promise<{browser: import('playwright-core').Browser, context: import('playwright-core').BrowserContext, close: () => Promise<void>}>}
 */
export async function launchChromium({ extraArgs = [] } = {}) {
  if (!CHROMIUM) throw new Error('chromium is not installed (build-scripts/install-deps installs it)');
  const profile = mkdtempSync(join(tmpdir(), 'tandem-e2e-chromium-'));
  const child = spawnTracked(CHROMIUM, [...FLAGS, ...extraArgs, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'],
    { cleanup: () => removeDir(profile) });
  let browser = null;
  try {
    const [, wsUrl] = await waitForLine(child, /DevTools listening on (ws:\/\/\S+)/, 30_000, 'chromium');
    browser = await chromium.connectOverCDP(wsUrl, { noDefaults: true });
  } catch (error) {
    await killTracked(child);
    throw error;
  }
  const context = browser.contexts()[0];
  return {
    browser,
    context,
    stderr: () => child.stderrTail,
    /** The browser's process group (every Chromium process it started is in it). */
    pid: child.pid,
    async close() {
      await browser.close().catch(() => {});
      await killTracked(child);
    },
  };
}

/** A CDP session on a page (for lifecycle states and window bounds). */
const cdp = (page) => page.context().newCDPSession(page);

/**
 * Hides `page` behind a new tab of the same window; resolves with the function that brings it
 * back (and closes the other tab).
 */
export async function hideBehindAnotherTab(page) {
  const other = await page.context().newPage();
  await other.bringToFront();
  await waitForVisibility(page, 'hidden');
  return async () => {
    await page.bringToFront();
    await other.close();
    await waitForVisibility(page, 'visible');
  };
}

/** Minimises the page's window; resolves with the function that restores it. */
export async function minimise(page) {
  const session = await cdp(page);
  const { windowId } = await session.send('Browser.getWindowForTarget');
  await session.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'minimized' } });
  await waitForVisibility(page, 'hidden');
  return async () => {
    await session.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } });
    await waitForVisibility(page, 'visible');
    await session.detach();
  };
}

/**
 * Hides the page behind another tab and freezes it (Page Lifecycle: no timers, no tasks, no
 * socket messages); resolves with the function that unfreezes it and brings it back.
 */
export async function hideAndFreeze(page) {
  const restore = await hideBehindAnotherTab(page);
  const session = await cdp(page);
  await session.send('Page.setWebLifecycleState', { state: 'frozen' });
  return async () => {
    await session.send('Page.setWebLifecycleState', { state: 'active' });
    await session.detach();
    await restore();
  };
}

/** Waits until document.visibilityState is `state` (polled from outside the page). */
export async function waitForVisibility(page, state, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(() => document.visibilityState) === state) return;
    if (Date.now() > deadline) throw new Error(`the page did not become ${state} within ${timeoutMs} ms`);
    await new Promise((ok) => setTimeout(ok, 20));
  }
}
