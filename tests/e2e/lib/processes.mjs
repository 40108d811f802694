// Every browser and server the e2e harness starts is registered here and killed on every
// way out: a normal close, a failed test, an uncaught error, SIGINT/SIGTERM. Each child runs
// in its own process group so its helpers (renderers, GPU process, crash handler) go with it.
// Live pids are also written to a file, so a runner killed outright (SIGKILL) leaves a list
// that build-scripts/test.d/40-e2e kills afterwards.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const live = new Map();   // pid -> {child, cleanup}
const pidDir = process.env.TANDEM_E2E_PID_DIR ?? null;

// One file per test process (node --test runs each test file in its own), listing only the
// groups still alive, so whoever reads it after a crash kills nothing that was already reaped
// (its pid may belong to someone else by then).
function writePidFile() {
  if (pidDir === null) return;
  mkdirSync(pidDir, { recursive: true });
  const file = join(pidDir, `${process.pid}.pids`);
  if (live.size === 0) rmSync(file, { force: true });
  else writeFileSync(file, [...live.keys()].map((pid) => `${pid}\n`).join(''));
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function killAllNow() {
  for (const [pid, { cleanup }] of live) {
    killGroup(pid);
    try { cleanup?.(); } catch { /* best effort on the way out */ }
  }
  live.clear();
  writePidFile();
}

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killAllNow();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}

/**
 * Spawns a child in its own process group and registers it.
 * @param {string} command
 * @param {string[]} args
 * @param {{cleanup?: () => void, env?: object}} [options] cleanup runs after the group is killed (e.g. removing a profile)
 */
export function spawnTracked(command, args, { cleanup, env } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: env ?? process.env });
  live.set(child.pid, { child, cleanup });
  // Always drained (a full pipe would stall the child); the tail is kept for failure messages.
  child.stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { child.stderrTail = (child.stderrTail + chunk).slice(-4000); });
  writePidFile();
  child.once('exit', () => {
    // The group may outlive its leader (helpers still running): kill it anyway.
    killGroup(child.pid);
  });
  return child;
}

/** Kills a tracked child's whole group and waits for the leader to exit, then cleans up. */
export async function killTracked(child) {
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((ok) => child.once('exit', ok));
  killGroup(child.pid);
  await exited;
  const entry = live.get(child.pid);
  live.delete(child.pid);
  writePidFile();
  entry?.cleanup?.();
}

/** Removes a temporary directory, retrying while a dying process still writes into it. */
export function removeDir(dir) {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch (error) {
    console.log(`# could not remove ${dir}: ${error.message}`);
  }
}

/** Resolves with the first match of `pattern` in the child's stderr, or rejects on exit or timeout. */
export function waitForLine(child, pattern, timeoutMs, what) {
  return new Promise((ok, fail) => {
    let text = '';
    const timer = setTimeout(() => finish(new Error(`${what}: no line matching ${pattern} within ${timeoutMs} ms; stderr:\n${text.slice(-2000)}`)), timeoutMs);
    const onData = (chunk) => {
      text += chunk;
      const match = pattern.exec(text);
      if (match) finish(null, match);
    };
    const onExit = (code, signal) => finish(new Error(`${what} exited (${code ?? signal}) before printing ${pattern}; stderr:\n${text.slice(-2000)}`));
    function finish(error, match) {
      clearTimeout(timer);
      child.stderr.off('data', onData);
      child.off('exit', onExit);
      if (error) fail(error);
      else ok(match);
    }
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
}
