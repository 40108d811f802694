// The in-process match (a Room and eight ClientSessions, tests/net/match_harness.hpp) runs natively
// and in wasm under Node, and both print the same canonical report byte for byte, for each game
// (tests/net/match_report.cpp --game): every final digest, every client's figures, the room's
// stats, and for ships the resume estimates, the desync's field and the refusals too.
// Builds: build-scripts/test.d/20-wasm-js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const native = path.join(root, 'build/native/tests/tandem_match_report');
const wasm = path.join(root, 'build/wasm/match/match_report.cjs');

// Both builds' reports for these arguments; the wasm run's time is logged.
function reports(args) {
  for (const f of [native, wasm]) assert.ok(existsSync(f), `${f} is missing: build the native and wasm presets`);
  const a = execFileSync(native, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  const t0 = process.hrtime.bigint();
  const b = execFileSync(process.execPath, [wasm, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  console.log(`wasm match ${args.join(' ') || '(default)'} under Node: ${Number(process.hrtime.bigint() - t0) / 1e9} s`);
  return [a, b];
}

function assertSameLines(a, b) {
  const la = a.split('\n'), lb = b.split('\n');
  const diff = [];
  for (let i = 0; i < Math.max(la.length, lb.length); ++i)
    if (la[i] !== lb[i]) diff.push(`line ${i + 1}:\n  native: ${la[i]}\n  wasm:   ${lb[i]}`);
  assert.equal(diff.length, 0, `the reports differ:\n${diff.join('\n')}`);
}

test('the arena\'s match report (the default) of the wasm build under Node equals the native build\'s byte for byte', () => {
  const [a, b] = reports([]);
  assert.ok(a.startsWith('room tick 3000 '), `native report: ${a.slice(0, 200)}`);
  assertSameLines(a, b);
});

test('the ships match report of the wasm build under Node equals the native build\'s byte for byte, every scenario in it', () => {
  const [a, b] = reports(['--game', 'ships']);
  assert.ok(a.startsWith('room tick 3000 '), `native report: ${a.slice(0, 200)}`);
  // The report shows each scenario happened, so equal reports mean it happened alike in both.
  for (const line of ['short_suspend resume away_ns 499999980 path catch_up ', 'long_suspend resume away_ns 29999998800 path resync ',
    'corrupted mismatch field ships[1].deaths ', 'flooder resume away_ns 0 path none behind 0 ticks 0 bytes 0 until_verified_ns -1 refused rate_limited',
    'intruder garbage refused malformed', 'intruder fingerprint refused fingerprint_mismatch',
    'intruder watcher_command refused unexpected', 'intruder second_hello refused unexpected'])
    assert.ok(a.includes(line), `the native report lacks "${line}"`);
  assertSameLines(a, b);
});
