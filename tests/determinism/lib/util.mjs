// Small helpers of the determinism check: processes, files, dumps.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';

// ---- Every process the check starts, so that no exit path leaves one behind ----------------
// Each child is started in a process group of its own (detached), which also holds whatever it
// starts in turn: a browser's renderer, GPU and zygote helpers, qemu under a CLI target, the
// compilers under a build. Ending a group ends all of it, which killing the child alone would
// not (its helpers would be orphaned, still running). Normal completion closes each child
// through its owner; an interrupted or failed check ends every group still alive, on SIGINT,
// SIGTERM, SIGHUP, an uncaught error, and finally at process exit. Temporary directories
// (browser profiles) are registered too and removed on the same paths.
const liveChildren = new Set();
const tempDirs = new Set();

export function spawnTracked(cmd, args, options = {}) {
  const child = spawn(cmd, args, { ...options, detached: true });
  if (child.pid !== undefined) {
    liveChildren.add(child);
    const forget = () => liveChildren.delete(child);
    child.once('exit', forget);
    child.once('error', forget);
  }
  return child;
}

export function trackTempDir(path) { tempDirs.add(path); return path; }
export function removeTempDir(path) { rmSync(path, { recursive: true, force: true }); tempDirs.delete(path); }

function signalGroup(child, signal) {
  try { process.kill(-child.pid, signal); } catch { /* already gone */ }
}

// Ends a child and everything in its group: SIGTERM, then SIGKILL after graceMs.
export function endGroup(child, graceMs = 3000) {
  if (!child || child.pid === undefined) return Promise.resolve();
  const exited = child.exitCode !== null || child.signalCode !== null;
  // The leader may be gone while its helpers live on: the group is signalled either way.
  signalGroup(child, 'SIGTERM');
  const hard = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  hard.unref();
  if (exited) { signalGroup(child, 'SIGKILL'); clearTimeout(hard); return Promise.resolve(); }
  return new Promise((resolve) => child.once('exit', () => { clearTimeout(hard); signalGroup(child, 'SIGKILL'); resolve(); }));
}

// Synchronous, for the 'exit' event: whatever is still alive gets SIGKILL.
function killEverythingNow() {
  for (const child of liveChildren) signalGroup(child, 'SIGKILL');
  liveChildren.clear();
  for (const dir of tempDirs) { try { rmSync(dir, { recursive: true, force: true }); } catch { /* best effort */ } }
  tempDirs.clear();
}

let handlersInstalled = false;
// Installs the exit paths once: a signal ends every group (SIGTERM, then SIGKILL after a
// short grace) and exits with 128 + the signal number; an uncaught error does the same with
// status 1; process exit kills anything left.
export function endChildrenOnExit({ onSignal = () => {} } = {}) {
  if (handlersInstalled) return;
  handlersInstalled = true;
  let ending = false;
  const end = async (status, why) => {
    if (ending) return;
    ending = true;
    try { onSignal(why); } catch { /* reporting must not block cleanup */ }
    await Promise.race([
      Promise.all([...liveChildren].map((c) => endGroup(c, 1500))),
      new Promise((resolve) => setTimeout(resolve, 2500)),
    ]);
    killEverythingNow();
    process.exit(status);
  };
  for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]]) {
    process.on(signal, () => end(128 + number, signal));
  }
  process.on('uncaughtException', (error) => { process.stderr.write(`${error?.stack ?? error}\n`); end(1, 'uncaught error'); });
  process.on('unhandledRejection', (error) => { process.stderr.write(`${error?.stack ?? error}\n`); end(1, 'unhandled rejection'); });
  process.on('exit', killEverythingNow);
}

// Runs a command; resolves {code, stdout, stderr}. onLine(line) sees stdout line by line.
export function runProcess(cmd, args, { cwd, env, onLine, stdoutFile } = {}) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawnTracked(cmd, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      reject(error);
      return;
    }
    const out = [];
    let err = '';
    let partial = '';
    child.stdout.on('data', (chunk) => {
      if (!onLine) { out.push(chunk); return; }
      partial += chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop();
      for (const line of lines) onLine(line);
    });
    child.stderr.on('data', (chunk) => { err += chunk.toString('utf8'); if (err.length > 1 << 20) err = err.slice(-(1 << 19)); });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (onLine && partial) onLine(partial);
      resolve({ code: code ?? (signal ? 128 : 1), signal, stdout: onLine ? '' : Buffer.concat(out).toString('utf8'), stderr: err });
    });
  });
}

export const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : -1);

// The machine and byte order of an ELF executable, read from its header.
export function elfArch(path) {
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(20);
  try { readSync(fd, head, 0, 20, 0); } finally { closeSync(fd); }
  if (head.readUInt32BE(0) !== 0x7f454c46) return { arch: 'not ELF', endian: '?' };
  const little = head[5] === 1;
  const machine = little ? head.readUInt16LE(18) : head.readUInt16BE(18);
  const names = { 3: 'i386', 62: 'x86-64', 183: 'aarch64', 22: 's390x', 40: 'arm', 243: 'riscv' };
  return { arch: names[machine] ?? `e_machine ${machine}`, endian: little ? 'little-endian' : 'big-endian' };
}

// Splits a compile command into arguments (compile_commands.json "command" strings).
export function splitCommand(command) {
  const args = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m;
  while ((m = re.exec(command))) args.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]));
  return args;
}

export function readCompileCommands(buildDir) {
  const file = `${buildDir}/compile_commands.json`;
  if (!existsSync(file)) return [];
  return JSON.parse(readFileSync(file, 'utf8')).map((e) => {
    const args = e.arguments ?? splitCommand(e.command);
    const output = e.output ?? args[args.indexOf('-o') + 1] ?? '';
    // A test's own copy of a source (tests/fuzz links the games' sources again, with the
    // presets' test-code flags such as -O0) is not what the CLI and the package run.
    return { file: e.file, args, output, test: /^tests\//.test(output) };
  });
}

// The section of the world digest each dump field belongs to (src/world/world.cpp order).
// A dump field's top-level name (its path up to the first '.' or '['): where a dump holds no
// section digests, the differing fields' top-level names stand in for the sections.
export function sectionOf(name) {
  return name.split(/[.[]/)[0];
}

// Parses `tandem dump` / World.dump() text: fields in order, plus the digest and section
// digest lines when present ("digest HEX", "section.NAME HEX" or "sections.NAME HEX").
export function parseDump(text) {
  const fields = [];
  let digest = null;
  const sections = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const space = line.indexOf(' ');
    const name = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1).trim();
    if (name === 'scenario') continue;
    if (name === 'digest') { digest = value; continue; }
    const sm = name.match(/^sections?\.([a-z0-9_-]+)$/);
    if (sm) { sections[sm[1]] = value; continue; }
    fields.push([name, value]);
  }
  return { fields, digest, sections: Object.keys(sections).length ? sections : null };
}

// Field-by-field difference of two parsed dumps: [{name, reference, other}] in the
// reference's order, then fields only the other has.
export function diffDumps(ref, other) {
  const otherMap = new Map(other.fields);
  const refNames = new Set();
  const diffs = [];
  for (const [name, value] of ref.fields) {
    refNames.add(name);
    const o = otherMap.has(name) ? otherMap.get(name) : null;
    if (o !== value) diffs.push({ name, reference: value, other: o });
  }
  for (const [name, value] of other.fields) {
    if (!refNames.has(name)) diffs.push({ name, reference: null, other: value });
  }
  return diffs;
}

export function formatDuration(seconds) {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds - m * 60);
  if (m < 60) return `${m} min ${String(s).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}
