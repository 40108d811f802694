// What the determinism check's own tests share (quick-test.mjs, random-rare-test.mjs): the
// paths, running build-scripts/check-determinism, counting checks, and the closing
// "N passed, M failed" line build-scripts/test adds up.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const check = join(root, 'build-scripts/check-determinism');
export const outDir = join(root, 'build/determinism');
mkdirSync(outDir, { recursive: true });

const started = Date.now();
export const counts = { passed: 0, failed: 0 };

export function expect(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (ok) counts.passed += 1; else counts.failed += 1;
}

export function run(args, { quiet = false } = {}) {
  const r = spawnSync(check, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', quiet ? 'pipe' : 'inherit', 'pipe'], maxBuffer: 256 << 20 });
  if (!quiet && r.stderr) process.stdout.write(r.stderr);
  return r;
}

export const readReport = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null);

// Prints the time and the counts, and exits with their verdict.
export function finish(name) {
  console.log(`\n${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log(`${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed ? 1 : 0);
}
