// Interrupting the determinism check leaves nothing running: a long run is started with every
// kind of child a check has (a CLI target under qemu, the Node target, headless Chromium and
// Firefox with their helper processes), stopped with SIGTERM and again with SIGINT once every
// kind is up, and then no process that inherited the run's marker may remain, and no browser
// profile directory it created. Part of build-scripts/test.d/30-determinism-quick, after the
// quick mode has built every target. Prints each check, then "N passed, M failed" last.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

let passed = 0;
let failed = 0;
const expect = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (ok) passed += 1; else failed += 1;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Every process whose environment carries the marker, as {pid, cmd}. A process's environment
// is inherited by everything it starts, browsers' forked helpers included, so the marker
// finds the whole tree whatever process groups or sessions it made.
function marked(marker) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (!env.split('\0').includes(`TANDEM_INTERRUPT_MARKER=${marker}`)) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ');
      found.push({ pid: Number(entry), cmd });
    } catch { /* exited meanwhile, or not ours to read */ }
  }
  return found;
}

const profiles = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('tandem-det-')));

async function interruptRun(signal, expectedStatus) {
  const marker = `${process.pid}-${signal}-${Date.now()}`;
  const before = profiles();
  // crowd for 20,000 ticks would take an hour: it is certainly still running when stopped.
  const child = spawn(join(root, 'build-scripts/check-determinism'),
    ['--targets', 'aarch64,node,chromium,firefox', '--scenarios', 'crowd', '--ticks', '20000', '--no-twin', '--no-scan', '--no-build'],
    { cwd: root, env: { ...process.env, TANDEM_SKIP_INSTALL_DEPS: '1', TANDEM_INTERRUPT_MARKER: marker }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => { output += c; });
  child.stderr.on('data', (c) => { output += c; });
  const exited = new Promise((r) => child.once('exit', (code, sig) => r({ code, sig })));

  // Wait until every kind of child is up: qemu, the Node target, Chromium (with helpers) and Firefox.
  const kinds = { qemu: /qemu-aarch64/, node: /node-target\.mjs/, chromium: /chromium/, firefox: /firefox/ };
  const deadline = Date.now() + 120_000;
  let seen = {};
  while (Date.now() < deadline) {
    const procs = marked(marker);
    seen = Object.fromEntries(Object.entries(kinds).map(([k, re]) => [k, procs.filter((p) => re.test(p.cmd)).length]));
    if (Object.values(seen).every((n) => n > 0) && seen.chromium > 1) break;
    if (child.exitCode !== null) break;
    await sleep(250);
  }
  const running = marked(marker).length;
  expect(Object.values(seen).every((n) => n > 0),
    `${signal}: the run started every kind of child before the signal (${Object.entries(seen).map(([k, n]) => `${k} ${n}`).join(', ')}; ${running} processes)`);

  const sentAt = Date.now();
  child.kill(signal);
  const result = await Promise.race([exited, sleep(15_000).then(() => null)]);
  expect(result !== null && result.code === expectedStatus,
    `${signal}: the check exits ${expectedStatus} within 15 s (got ${result ? (result.code ?? result.sig) : 'no exit'} after ${((Date.now() - sentAt) / 1000).toFixed(1)} s)`);
  if (result === null) child.kill('SIGKILL');
  await sleep(500);
  const left = marked(marker);
  expect(left.length === 0, `${signal}: no process of the run is left (${left.length}${left.length ? `: ${left.slice(0, 5).map((p) => `${p.pid} ${p.cmd.slice(0, 80)}`).join('; ')}` : ''})`);
  for (const p of left) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
  const newProfiles = [...profiles()].filter((n) => !before.has(n));
  expect(newProfiles.length === 0, `${signal}: no browser profile directory is left (${newProfiles.join(', ') || 'none'})`);
  if (failed) process.stdout.write(output.slice(-3000));
}

await interruptRun('SIGTERM', 143);
await interruptRun('SIGINT', 130);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
