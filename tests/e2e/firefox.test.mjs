// The page in Firefox ESR (headless, WebDriver BiDi): it loads from the server alone, draws
// every pellet, and survives being hidden behind another tab. Firefox does not stop a hidden
// tab's animation frames as Chromium does: it slows them to about one a second, which is
// what the feeder and the frame loop must cope with.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { activate, captureScreenshot, evaluate, launchFirefox, navigate, newTab, waitFor } from './lib/firefox.mjs';
import { artifactsDir, assertSaysAway, serverAndBrowser, sleep } from './lib/harness.mjs';

const env = serverAndBrowser(launchFirefox);

const STATE = `(() => { const t = window.__tandem; return { ready: t.ready, error: t.error, figures: t.figures(),
  frames: t.frames(), drawn: t.drawn(), suspended: t.suspended(), visibility: document.visibilityState,
  resumeText: t.resumeText(), notice: document.getElementById('notice').hidden ? null : document.getElementById('notice').textContent, log: t.lifecycleLog(), loopFailure: t.loopFailure(),
  resources: performance.getEntriesByType('resource').map((r) => r.name) }; })()`;

describe('the page in Firefox ESR', () => {
  // Headless Firefox here has no WebGL at all ("Exhausted GL driver options"), so this also
  // proves the page's fallback: the flat view, with a note saying so.
  test('loads from the server alone and draws every pellet', async () => {
    const { bidi, tab } = env.browser;
    const before = env.server.requests.length;
    await navigate(bidi, tab, `${env.server.origin}/?offline`);
    await waitFor(bidi, tab, 'window.__tandem && (window.__tandem.ready || window.__tandem.error) && window.__tandem.drawn()?.kind !== "loading" && window.__tandem.frames()?.frames >= 3 || window.__tandem?.error');
    const state = await evaluate(bidi, tab, STATE);
    assert.equal(state.error, null);
    assert.equal(state.drawn.pellets, 1024);
    if (state.drawn.kind === 'webgl') assert.ok(state.drawn.triangles >= 1024 * 8, `triangles drawn: ${state.drawn.triangles}`);
    else assert.match(state.notice, /^No WebGL here .*flat view/);
    for (const url of state.resources) assert.ok(url.startsWith(`${env.server.origin}/`), `resource from elsewhere: ${url}`);
    const paths = env.server.requests.slice(before).map((r) => r.url);
    assert.ok(paths.includes('/pkg/tandem-wasm.wasm'), paths.join(' '));
    assert.equal(state.loopFailure, null);
    mkdirSync(artifactsDir, { recursive: true });
    writeFileSync(join(artifactsDir, 'firefox.png'), await captureScreenshot(bidi, tab));
  });

  test('hidden behind another tab it slows to about a frame a second, and runs again when shown', async () => {
    const { bidi, tab } = env.browser;
    await sleep(500);
    const startedAt = Date.now();
    const other = await newTab(bidi);
    await activate(bidi, other);
    await waitFor(bidi, tab, 'document.visibilityState === "hidden"', 5000);
    await evaluate(bidi, tab, 'window.__tandem.resetFrames()');
    await sleep(3000);
    const away = await evaluate(bidi, tab, STATE);
    assert.equal(away.suspended, true, 'the lifecycle feeder reported the absence');
    assert.ok(away.frames.frames <= 6, `${away.frames.frames} frames in 3 s hidden`);
    await activate(bidi, tab);
    await bidi.send('browsingContext.close', { context: other });
    await waitFor(bidi, tab, 'document.visibilityState === "visible" && window.__tandem.frames().frames >= 15', 15_000);
    const spanMs = Date.now() - startedAt;
    const back = await evaluate(bidi, tab, STATE);
    assert.equal(back.suspended, false);
    assertSaysAway(back.resumeText, 3000, spanMs);
    assert.equal(back.loopFailure, null);
  });
});
