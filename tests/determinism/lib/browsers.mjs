// Headless browsers for the determinism check, started directly (no Playwright-managed
// browser download; Debian's own binaries). Playwright's own launch would emulate focus and
// keep every page visible, so the browsers are started by hand:
// - Chromium: spawned with the documented flags and a fresh profile, attached through
//   playwright-core's connectOverCDP (noDefaults: no emulation overrides).
// - Firefox ESR: spawned headless with a fresh profile and driven over WebDriver BiDi
//   (a plain WebSocket to ws://.../session), since Playwright's Firefox does not drive ESR.
// Each opens `url` in one tab and returns {close()}, which ends the browser and removes its
// profile. The page does the rest through the check's server.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endGroup, removeTempDir, spawnTracked, trackTempDir } from './util.mjs';

const require = createRequire(import.meta.url);

export const CHROMIUM_BINARY = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(existsSync) ?? '/usr/bin/chromium';
export const FIREFOX_BINARY = ['/usr/bin/firefox-esr', '/usr/lib/firefox-esr/firefox-esr'].find(existsSync) ?? '/usr/bin/firefox-esr';

// Spawns `binary` and resolves with the first match of `pattern` on its stderr (or stdout).
function spawnAndWait(binary, args, pattern, what, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawnTracked(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      reject(error);
      return;
    }
    let seen = '';
    const timer = setTimeout(() => {
      endGroup(child, 0);
      reject(new Error(`${what}: no '${pattern}' within ${timeoutMs / 1000} s; output:\n${seen.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk) => {
      seen += chunk.toString();
      const m = seen.match(pattern);
      if (m) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        child.stderr.removeAllListeners('data');
        child.stdout.resume();
        child.stderr.resume();
        resolve({ child, match: m });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (error) => { clearTimeout(timer); reject(new Error(`${what}: ${error.message}`)); });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? signal}) before it was ready; output:\n${seen.slice(-2000)}`));
    });
  });
}

const killTree = (child) => endGroup(child);

export async function openChromium(url) {
  const { chromium } = require('playwright-core');
  const profile = trackTempDir(mkdtempSync(join(tmpdir(), 'tandem-det-chromium-')));
  const args = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank',
  ];
  let child;
  try {
    const started = await spawnAndWait(CHROMIUM_BINARY, args, /DevTools listening on (ws:\/\/\S+)/, 'chromium');
    child = started.child;
    const browser = await chromium.connectOverCDP(started.match[1], { noDefaults: true });
    const context = browser.contexts()[0];
    const page = context.pages()[0] ?? await context.newPage();
    const version = browser.version();
    await page.goto(url, { waitUntil: 'commit' });
    return {
      version: `Chromium ${version}`,
      async close() {
        await browser.close().catch(() => {});
        await killTree(child);
        removeTempDir(profile);
      },
    };
  } catch (error) {
    if (child) await killTree(child);
    removeTempDir(profile);
    throw error;
  }
}

// A minimal WebDriver BiDi client: send(method, params) -> result.
async function bidiConnect(wsUrl) {
  const WebSocket = require('ws');
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  let nextId = 1;
  const waiting = new Map();
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.id === undefined || !waiting.has(msg.id)) return;
    const { resolve, reject } = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.type === 'error') reject(new Error(`BiDi ${msg.error}: ${msg.message}`));
    else resolve(msg.result);
  });
  ws.on('close', () => { for (const { reject } of waiting.values()) reject(new Error('BiDi connection closed')); waiting.clear(); });
  return {
    send(method, params = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    close() { ws.close(); },
  };
}

export async function openFirefox(url) {
  const profile = trackTempDir(mkdtempSync(join(tmpdir(), 'tandem-det-firefox-')));
  // A quiet profile: no first-run pages, no update or telemetry traffic.
  writeFileSync(join(profile, 'user.js'), [
    'user_pref("browser.shell.checkDefaultBrowser", false);',
    'user_pref("browser.startup.homepage_override.mstone", "ignore");',
    'user_pref("datareporting.policy.dataSubmissionEnabled", false);',
    'user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);',
    'user_pref("app.update.enabled", false);',
    'user_pref("app.update.auto", false);',
    'user_pref("browser.aboutwelcome.enabled", false);',
    '',
  ].join('\n'));
  let child;
  try {
    const started = await spawnAndWait(FIREFOX_BINARY,
      ['--headless', '--no-remote', '--remote-debugging-port=0', '--profile', profile, 'about:blank'],
      /WebDriver BiDi listening on (ws:\/\/\S+)/, 'firefox-esr');
    child = started.child;
    const bidi = await bidiConnect(`${started.match[1].replace(/\/$/, '')}/session`);
    const session = await bidi.send('session.new', { capabilities: {} });
    const tree = await bidi.send('browsingContext.getTree', {});
    const context = tree.contexts[0]?.context ?? (await bidi.send('browsingContext.create', { type: 'tab' })).context;
    await bidi.send('browsingContext.navigate', { context, url, wait: 'none' });
    const caps = session.capabilities ?? {};
    return {
      version: `Firefox ${caps.browserVersion ?? '?'}`,
      async close() {
        await bidi.send('browser.close', {}).catch(() => {});
        bidi.close();
        await killTree(child);
        removeTempDir(profile);
      },
    };
  } catch (error) {
    if (child) await killTree(child);
    removeTempDir(profile);
    throw error;
  }
}
