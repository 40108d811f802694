// Proves the float scan can fail: compiles a small translation unit with Emscripten in which
// simulation-namespaced functions use float arithmetic and libm, and one allowed render-edge
// function uses floats, then runs the scan's checker on the object. Passes when exactly the
// bad functions are reported. Prints "N passed, M failed" last.
// usage: node float-scan-selftest.mjs [BUILD_DIR]   (default build/determinism/scan-selftest)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, disassemble } from './lib/float-scan.mjs';
import { runProcess } from './lib/util.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = resolve(process.argv[2] ?? join(root, 'build/determinism/scan-selftest'));
mkdirSync(dir, { recursive: true });
const source = join(dir, 'bad.cpp');
writeFileSync(source, `#include <cmath>
#include <cstdint>
namespace tandem {
struct Fx { int32_t raw; };
// Allowed: the render edge.
float to_f32(Fx a) { return static_cast<float>(a.raw) / 65536.0f; }
// Not allowed: a libm transcendental in the simulation.
__attribute__((noinline)) int32_t leak_sin(int32_t x) { return static_cast<int32_t>(std::sin(static_cast<float>(x)) * 65536.0f); }
namespace world {
// Not allowed: double arithmetic hidden in an integer interface.
__attribute__((noinline)) int32_t sneaky_scale(int32_t a) { volatile double d = a; return static_cast<int32_t>(d * 1.5); }
// Fine: integers only.
__attribute__((noinline)) int32_t clean(int32_t a) { return a * 3 + 1; }
}
}
`);
const obj = join(dir, 'bad.o');
let passed = 0, failed = 0;
const expect = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (ok) passed += 1; else failed += 1; };
const cc = await runProcess('em++', ['-std=c++20', '-O3', '-ffp-contract=off', '-c', source, '-o', obj],
  { env: { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' } });
if (cc.code !== 0) {
  expect(false, `em++ compiled the self-test object: ${cc.stderr.trim().slice(0, 500)}`);
} else {
  const violations = [];
  const allowed = new Set();
  check(await disassemble(obj), 'self-test', violations, allowed);
  const names = violations.map((v) => `${v.function}: ${v.what}`);
  for (const n of names) console.log(`     reported ${n}`);
  expect(violations.some((v) => v.function.startsWith('tandem::leak_sin') && /float instructions/.test(v.what)), 'float arithmetic in tandem::leak_sin is reported');
  expect(violations.some((v) => v.function.startsWith('tandem::leak_sin') && /calls libm: .*sinf/.test(v.what)), 'the libm call (sinf) in tandem::leak_sin is reported');
  expect(violations.some((v) => v.function.startsWith('tandem::world::sneaky_scale') && /f64/.test(v.what)), 'double arithmetic in tandem::world::sneaky_scale is reported');
  expect(!violations.some((v) => v.function.startsWith('tandem::to_f32')) && allowed.has('tandem::to_f32'), 'the allowed render-edge tandem::to_f32 is not reported');
  expect(!violations.some((v) => v.function.startsWith('tandem::world::clean')), 'integer-only tandem::world::clean is not reported');
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
