// The newcomer test: a reader follows docs/your-own-game.md on this checkout. Every ```sh block
// of the guide runs, in order, in one shell session whose HOME is a fresh temporary directory
// outside the repository: tandem is built (reusing this run's builds) and installed there, the
// template copied there and renamed, built against the installed kit (find_package), its tests
// run, its server started; two real Chromium pages then join that server and each verify 600
// ticks, and the quick determinism check passes for the game on the builds the guide makes.
// The blocks under the guide's "every target" heading (the cross builds) run only with
// TANDEM_NEWCOMER_ALL_TARGETS=1. Under CI=true a missing prerequisite fails the test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '../e2e/lib/chromium.mjs';
import { killTracked, spawnTracked, waitForLine } from '../e2e/lib/processes.mjs';
import { Session, shellBlocks } from './guide.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const GUIDE = 'docs/your-own-game.md';
const ALL_TARGETS = process.env.TANDEM_NEWCOMER_ALL_TARGETS === '1';
const TICKS = 600;   // each page verifies this many ticks
const started = Date.now();
const artifacts = join(root, 'build/test-artifacts/newcomer');
mkdirSync(artifacts, { recursive: true });

const blocks = shellBlocks(readFileSync(join(root, GUIDE), 'utf8'));
// The ```cmake blocks' text, for the one the FetchContent step uses verbatim.
const cmakeBlocks = (markdown) => [...markdown.matchAll(/^```cmake\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const everyTarget = (b) => /every target|eight targets/i.test(b.heading);
const serves = (b) => /^\S*\/?\S+ serve\b/m.test(b.code) && !/check-determinism/.test(b.code);

// What the test needs beyond the repository; under CI=true a missing one fails, else it skips.
const missing = [
  ['cmake', ['--version']], ['ninja', ['--version']], ['emcmake', ['--help']], ['chromium', ['--version']],
].filter(([cmd, args]) => spawnSync(cmd, args, { stdio: 'ignore' }).error).map(([cmd]) => cmd);
const skip = missing.length && process.env.CI !== 'true' ? `missing ${missing.join(', ')} (build-scripts/install-deps installs them)` : false;

describe('a newcomer follows docs/your-own-game.md from the template to two verifying tabs', { skip }, () => {
  let home;
  let session;
  let gameDir;   // where the guide's blocks left the reader: the game's folder
  const seconds = {};
  const log = (text) => process.stdout.write(text.replace(/^/gm, '    | '));

  before(() => {
    assert.deepEqual(missing, [], `prerequisites missing under CI=true: ${missing.join(', ')}`);
    home = mkdtempSync(join(tmpdir(), 'tandem-newcomer-'));
    assert.ok(!home.startsWith(root), `${home} must be outside the repository`);
    // ccache keys on paths relative to CCACHE_BASEDIR: the game's copy under the temporary HOME
    // hits the cache of an earlier run, and the kit's objects are this run's already.
    session = new Session({ stateDir: join(home, '.guide-state'), cwd: root,
      env: { HOME: join(home, 'home'), PATH: process.env.PATH, CI: process.env.CI ?? '', CCACHE_BASEDIR: home,
        TANDEM_SKIP_INSTALL_DEPS: process.env.TANDEM_SKIP_INSTALL_DEPS ?? '' } });
    spawnSync('mkdir', ['-p', join(home, 'home')]);
  });
  after(() => {
    console.log(`newcomer: ${((Date.now() - started) / 1000).toFixed(0)} s in all; by block: ${JSON.stringify(seconds)}`);
    if (home && !process.env.TANDEM_NEWCOMER_KEEP) rmSync(home, { recursive: true, force: true });
  });

  test('the guide has the blocks this test follows', () => {
    assert.ok(blocks.length >= 5, `${GUIDE} has ${blocks.length} sh blocks`);
    assert.equal(blocks.filter(serves).length, 1, 'exactly one block starts the game\'s server');
    assert.ok(blocks.some((b) => /check-determinism/.test(b.code) && !everyTarget(b)), 'a block runs the quick determinism check');
  });

  for (const [i, block] of blocks.entries()) {
    const name = `${GUIDE}:${block.line} (${block.heading}): ${block.code.split('\n').find((l) => l.trim() && !l.startsWith('#'))?.trim()}`;
    const skipThis = everyTarget(block) && !ALL_TARGETS ? 'the cross builds: TANDEM_NEWCOMER_ALL_TARGETS=1' : false;
    test(name, { skip: skipThis }, async () => {
      if (serves(block)) {
        await serveAndVerify(block, session, seconds);
        return;
      }
      const r = await session.run(block.code, { log });
      seconds[`block ${i + 1}`] = Math.round(r.seconds);
      gameDir = session.cwd;
      assert.equal(r.code, 0, `the block at ${GUIDE}:${block.line} failed (exit ${r.code}); its output ends:\n${r.output.slice(-3000)}`);
      if (/check-determinism/.test(block.code)) {
        assert.match(r.output, /^OK: (\d+) of \1 target x scenario streams identical/m, 'the check reports every stream identical');
        assert.doesNotMatch(r.output, /OK: 0 of 0/, 'the check compared something');
      }
      if (/ctest/.test(block.code)) {
        const m = r.output.match(/(\d+)% tests passed, (\d+) tests failed out of (\d+)/);
        assert.ok(m && Number(m[3]) > 0 && m[2] === '0', `the game's own tests ran and passed (${m?.[0] ?? 'no ctest summary'})`);
      }
    });
  }

  // The guide's other way in: tandem from a path, in the game's own build (FetchContent). The
  // default run configures it, builds the game's library (its headers and flags come from the
  // fetched targets) and asks ninja for the commands the game's command needs (the kit's
  // command line among them); the whole command (the kit compiled again in this build) is
  // built and run only with TANDEM_NEWCOMER_ALL_TARGETS=1.
  test('the template builds with tandem fetched from a path (the guide\'s FetchContent block)', async () => {
    const fetch = cmakeBlocks(readFileSync(join(root, GUIDE), 'utf8')).find((b) => /FetchContent_Declare/.test(b));
    assert.ok(fetch, `${GUIDE} has a cmake block with FetchContent_Declare`);
    const dir = join(session.env().HOME, 'fetched');
    // In a subshell: the guide's session stays where it was.
    const r = await session.run(`(rm -rf ${JSON.stringify(dir)} && cp -r "$TANDEM/src/games/starter" ${JSON.stringify(dir)} && cd ${JSON.stringify(dir)}
python3 - <<'PY'
text = open('CMakeLists.txt').read()
at = text.index('find_package(tandem')   # the guide's block goes before it, which it answers
fetch = ${JSON.stringify(fetch.replace('/path/to/tandem', root))}
open('CMakeLists.txt', 'w').write(text[:at] + fetch + text[at:])
PY
cmake -S . -B build -G Ninja -DTANDEM_BUILD_SERVER=OFF >/dev/null
cmake --build build --target libstarter.a   # the library file: the target name starter is also the command's file
# To a file first: under pipefail, grep -q leaving at its first match would fail the pipe (ninja
# killed by SIGPIPE, exit 141) whenever ninja still had commands to write.
ninja -C build -t commands starter_command > commands.txt
grep -q 'src/cli/cli.cpp' commands.txt
if [ "\${TANDEM_NEWCOMER_ALL_TARGETS:-}" = 1 ]; then
  cmake --build build --target starter_command
  build/starter run --scenario pair --ticks 600 --every 100 | grep -v summary | diff - <(grep -v '^#' tests/golden/pair.txt)
fi)`, { log });
    assert.equal(r.code, 0, `FetchContent build failed:\n${r.output.slice(-3000)}`);
  });

  // The game built against the installed kit sees only what it links: its library reaches
  // core and the seam alone, so including the room is an error at the #include.
  test('a game built against the installed kit cannot include the room (the layering is installed too)', async () => {
    const game = gameDir;
    writeFileSync(join(game, 'probe_includes_room.cpp'), '#include "tandem/net/room.hpp"\n');
    const r = await session.run(`(cd ${JSON.stringify(game)}
printf 'add_library(probe OBJECT EXCLUDE_FROM_ALL probe_includes_room.cpp)\\ntarget_link_libraries(probe PRIVATE %s)\\n' "$(ls include)" >> CMakeLists.txt
cmake build/native >/dev/null
! cmake --build build/native --target probe 2>&1 | tee probe.log
grep -q 'tandem/net/room.hpp: No such file' probe.log)`, { log });
    assert.equal(r.code, 0, `the probe must fail at its #include:\n${r.output.slice(-2000)}`);
  });
});

// The guide's server block: the command as written, on a port of the system's choosing (a test
// never takes a fixed port), then two Chromium pages on the page it serves.
async function serveAndVerify(block, session, seconds) {
  const line = block.code.split('\n').find((l) => / serve\b/.test(l));
  const [command, ...args] = line.replace(/#.*$/, '').trim().split(/\s+/);
  const portAt = args.indexOf('--port');
  if (portAt >= 0) args[portAt + 1] = '0'; else args.push('--port', '0');
  const env = session.env();
  const cwd = session.cwd;
  // In the block's directory, with `listening on` (stdout) moved to stderr, which the harness reads.
  const server = spawnTracked('/bin/sh', ['-c', 'cd "$1" && shift && exec "$@" 1>&2', 'sh', cwd, command, ...args],
    { env: { ...process.env, ...env } });
  const t0 = Date.now();
  let browser;
  try {
    const [, url] = await waitForLine(server, /listening on (http:\/\/\S+)/, 30_000, 'the game\'s server');
    browser = await launchChromium();
    // Two tabs of one window, as a reader opens them: the first is hidden behind the second, and
    // its session (in its worker, which a hidden tab does not throttle) verifies all the same.
    // What each session verified is read from its worker (sessionNow), which a hidden tab's
    // frames (none) would not show.
    const pages = [await browser.context.newPage(), await browser.context.newPage()];
    await Promise.all(pages.map((p) => p.goto(url)));
    const now = (p) => p.evaluate(async () => {
      const f = await window.__tandem?.sessionNow?.();
      return { me: f?.me ?? null, verifiedTicks: f?.verification?.verifiedTicks ?? 0, mismatches: f?.verification?.mismatches ?? null,
        error: window.__tandem?.error ?? f?.error ?? null, visibility: document.visibilityState };
    });
    let figures = [];
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      figures = await Promise.all(pages.map(now));
      if (figures.every((f) => f.verifiedTicks >= TICKS) || figures.some((f) => f.error)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await pages[1].screenshot({ path: join(artifacts, 'two-tabs.png') }).catch(() => {});
    for (const f of figures) {
      assert.equal(f.error, null, `the page failed: ${f.error}`);
      assert.ok(f.verifiedTicks >= TICKS, `each tab verifies ${TICKS} ticks against the server: ${JSON.stringify(figures)}`);
      assert.deepEqual(f.mismatches, [], `no tick mismatched: ${JSON.stringify(figures)}`);
    }
    assert.deepEqual(figures.map((f) => f.visibility), ['hidden', 'visible'], 'one tab behind the other');
    assert.equal(new Set(figures.map((f) => f.me)).size, 2, `the two tabs are two players of one room: ${JSON.stringify(figures)}`);
    assert.ok(figures.every((f) => Number.isInteger(f.me) && f.me > 0), `each tab holds a seat: ${JSON.stringify(figures)}`);
  } finally {
    seconds.serve = Math.round((Date.now() - t0) / 1000);
    if (browser) await browser.close();
    await killTracked(server);
  }
}
