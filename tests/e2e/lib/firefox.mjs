// Firefox ESR, headless, driven over WebDriver BiDi (a WebSocket to ws://.../session):
// Playwright's Firefox driver does not drive ESR. Enough of the protocol for the e2e tests:
// open tabs, navigate, switch the active tab (which hides the others for real), and evaluate
// an expression in a page, returning its JSON value.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { killTracked, removeDir, spawnTracked, waitForLine } from './processes.mjs';

export const FIREFOX = process.env.TANDEM_FIREFOX ?? ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find(existsSync);

// A quiet profile: no first-run pages, no update or telemetry traffic. (Headless Firefox here
// has no WebGL whatever the prefs: "Exhausted GL driver options"; the page draws its flat view.)
const PREFS = {
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.aboutwelcome.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
  'app.update.enabled': false,
  'app.update.auto': false,
  'network.captive-portal-service.enabled': false,
};

class Bidi {
  #ws;
  #next = 1;
  #waiting = new Map();

  constructor(ws) {
    this.#ws = ws;
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      const waiter = this.#waiting.get(message.id);
      if (waiter === undefined) return;   // an event: none subscribed
      this.#waiting.delete(message.id);
      if (message.type === 'error') waiter.reject(new Error(`BiDi ${message.error}: ${message.message}`));
      else waiter.resolve(message.result);
    });
    ws.on('close', () => {
      for (const { reject } of this.#waiting.values()) reject(new Error('BiDi connection closed'));
      this.#waiting.clear();
    });
  }

  send(method, params = {}) {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  close() { this.#ws.close(); }
}

/** Starts Firefox ESR with a fresh profile; resolves with {bidi, tab, close}. */
export async function launchFirefox() {
  if (!FIREFOX) throw new Error('firefox-esr is not installed (build-scripts/install-deps installs it)');
  const profile = mkdtempSync(join(tmpdir(), 'tandem-e2e-firefox-'));
  writeFileSync(join(profile, 'user.js'), Object.entries(PREFS).map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});\n`).join(''));
  const child = spawnTracked(FIREFOX, ['--headless', '--no-remote', '--remote-debugging-port=0', '--profile', profile, 'about:blank'],
    { cleanup: () => removeDir(profile), env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' } });
  try {
    const [, url] = await waitForLine(child, /WebDriver BiDi listening on (ws:\/\/\S+)/, 60_000, 'firefox-esr');
    const ws = new WebSocket(`${url.replace(/\/$/, '')}/session`);
    await new Promise((ok, fail) => { ws.once('open', ok); ws.once('error', fail); });
    const bidi = new Bidi(ws);
    const session = await bidi.send('session.new', { capabilities: {} });
    const tree = await bidi.send('browsingContext.getTree', {});
    return {
      bidi,
      tab: tree.contexts[0].context,
      version: session.capabilities?.browserVersion ?? '?',
      /** The browser's process group (every Firefox process it started is in it). */
      pid: child.pid,
      async close() {
        await bidi.send('browser.close', {}).catch(() => {});
        bidi.close();
        await killTracked(child);
      },
    };
  } catch (error) {
    await killTracked(child);
    throw error;
  }
}

export const navigate = (bidi, context, url) => bidi.send('browsingContext.navigate', { context, url, wait: 'complete' });
export const newTab = async (bidi) => (await bidi.send('browsingContext.create', { type: 'tab' })).context;
export const activate = (bidi, context) => bidi.send('browsingContext.activate', { context });

/** Evaluates `expression` (may be a promise) in the tab and returns its value through JSON. */
export async function evaluate(bidi, context, expression) {
  const result = await bidi.send('script.evaluate', {
    expression: `(async () => JSON.stringify(await (${expression})))()`,
    target: { context },
    awaitPromise: true,
  });
  if (result.type === 'exception') throw new Error(`in the page: ${result.exceptionDetails.text}`);
  return result.result.type === 'string' ? JSON.parse(result.result.value) : undefined;
}

/** Saves a PNG of the tab's viewport; returns the bytes. */
export async function captureScreenshot(bidi, context) {
  const { data } = await bidi.send('browsingContext.captureScreenshot', { context });
  return Buffer.from(data, 'base64');
}

/** Polls `expression` until it is truthy; returns its value. */
export async function waitFor(bidi, context, expression, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await evaluate(bidi, context, expression).catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${expression}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}
