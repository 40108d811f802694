// The in-process match (a Room and eight ClientSessions, tests/net/match_harness.cpp) runs natively
// and in wasm under Node, and both print the same canonical report byte for byte: every final
// digest, every client's figures, the room's stats. Builds: build-scripts/test.d/20-wasm-js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const native = path.join(root, 'build/native/tests/tandem_match_report');
const wasm = path.join(root, 'build/wasm/match/match_report.cjs');

test('the match report of the wasm build under Node equals the native build\'s byte for byte', () => {
  for (const f of [native, wasm]) assert.ok(existsSync(f), `${f} is missing: build the native and wasm presets`);
  const a = execFileSync(native, { encoding: 'utf8', maxBuffer: 1 << 24 });
  const t0 = process.hrtime.bigint();
  const b = execFileSync(process.execPath, [wasm], { encoding: 'utf8', maxBuffer: 1 << 24 });
  console.log(`wasm match under Node: ${Number(process.hrtime.bigint() - t0) / 1e9} s`);
  assert.ok(a.startsWith('room tick 3000 '), `native report: ${a.slice(0, 200)}`);
  const la = a.split('\n'), lb = b.split('\n');
  const diff = [];
  for (let i = 0; i < Math.max(la.length, lb.length); ++i)
    if (la[i] !== lb[i]) diff.push(`line ${i + 1}:\n  native: ${la[i]}\n  wasm:   ${lb[i]}`);
  assert.equal(diff.length, 0, `the reports differ:\n${diff.join('\n')}`);
});
