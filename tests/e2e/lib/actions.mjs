// The page's buttons as a person uses them, for the e2e tests: click, read the result line,
// save a download where the test can find it, and check a saved replay with the native CLI.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sleep, tandemBinary } from './harness.mjs';

/** Clicks a button of the page and waits for the action's result line to change. */
export async function clickAndRead(page, id, timeoutMs) {
  await page.evaluate(() => { document.getElementById('action-result').textContent = ''; });
  await page.click(`#${id}`);
  await page.waitForFunction(() => document.getElementById('action-result').textContent !== '', null, { timeout: timeoutMs, polling: 200 });
  return page.textContent('#action-result');
}

/**
 * Clicks "Download replay" and returns the path of the file the browser saved: Chromium is
 * told over CDP to save downloads in a fresh directory, as a person's browser would.
 */
export async function downloadReplay(page) {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-e2e-download-'));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir, eventsEnabled: true });
  const said = await clickAndRead(page, 'download-replay', 10_000);
  const deadline = Date.now() + 10_000;
  let file = null;
  while (file === null && Date.now() < deadline) {
    const done = readdirSync(dir).filter((f) => f.endsWith('.replay'));
    if (done.length === 1 && statSync(join(dir, done[0])).size > 0) file = join(dir, done[0]);
    else await sleep(100);
  }
  await cdp.detach();
  assert.ok(file, `a .replay file was saved in ${dir} (${readdirSync(dir).join(', ')}); the page said: ${said}`);
  return { file, dir, said };
}

/** `tandem replay FILE`: its exit status and output. */
export async function nativeReplay(file) {
  try {
    const { stdout, stderr } = await promisify(execFile)(tandemBinary, ['replay', file], { timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

