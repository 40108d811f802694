// The READMEs' examples are executed, so they cannot drift from the code. Every ```js block of
// README.md and bindings/README.md runs under Node against the installed package, the blocks
// of one file in order as one module; a comment `// => VALUE` (after a statement, or alone on
// the next line) asserts the statement's value, `// throws TYPE: MESSAGE` the error it throws
// (regular expression literals match the value's text). Every `tandem` command of README.md's
// ```sh blocks runs against the native CLI and must succeed, and a ```json block is compared,
// parsed, with the output of the command quoted just before it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { cliPath, installedProject, nativeBuildDir, parseStream, repoRoot } from './support.mjs';

const READMES = ['README.md', 'bindings/README.md'];

// [{lang, code, line (1-based, of the first code line), before (the text since the last block)}]
function codeBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  let open = null;
  let textSince = 0;
  lines.forEach((text, i) => {
    const fence = /^```(\w*)\s*$/.exec(text);
    if (!fence) return;
    if (open === null) {
      open = { lang: fence[1], line: i + 2, before: lines.slice(textSince, i).join('\n') };
    } else {
      blocks.push({ lang: open.lang, line: open.line, before: open.before, code: lines.slice(open.line - 1, i).join('\n') });
      open = null;
      textSince = i + 1;
    }
  });
  return blocks;
}

const VALUE = /^(?<code>.*?\S)?\s*\/\/ => (?<expected>.+)$/;
const THROWS = /^(?<code>.*?\S)?\s*\/\/ throws (?<type>\w+): (?<message>.+)$/;

// A js block with its stated results turned into checks; `checks` counts them.
function instrument(block, file, counter) {
  const lines = block.code.split('\n');
  const out = [...lines];
  let previous = -1;   // the last line holding code
  lines.forEach((text, i) => {
    const at = `${file}:${block.line + i}`;
    const value = VALUE.exec(text);
    const thrown = THROWS.exec(text);
    const match = value ?? thrown;
    if (!match) {
      if (text.trim() !== '' && !text.trim().startsWith('//')) previous = i;
      return;
    }
    const target = match.groups.code === undefined ? previous : i;
    assert.ok(target >= 0, `${at}: a stated result with no statement before it`);
    const statement = (target === i ? match.groups.code : lines[target]).trim().replace(/;$/, '');
    const indent = /^\s*/.exec(lines[target])[0];
    counter.stated += 1;
    if (target !== i) out[i] = '';
    out[target] = value
      ? `${indent}__readme.value(${JSON.stringify(at)}, () => (${statement}), () => (${value.groups.expected}));`
      : `${indent}__readme.throws(${JSON.stringify(at)}, () => { ${statement}; }, ${JSON.stringify(thrown.groups.type)}, ${JSON.stringify(thrown.groups.message)});`;
    previous = target === i ? i : previous;
  });
  return out.join('\n');
}

const PRELUDE = `import __assert from 'node:assert/strict';
const __readme = {
  checks: 0,
  value(at, actual, expected) {
    const got = actual();
    const want = expected();
    if (want instanceof RegExp) __assert.match(String(got), want, at);
    else __assert.deepEqual(got, want, at);
    this.checks += 1;
  },
  throws(at, run, type, message) {
    __assert.throws(run, (e) => e instanceof Error && e.name === type && e.message === message, at);
    this.checks += 1;
  },
};
`;

// Relative import specifiers are the README's, resolved from the file's directory (a reader
// runs them from the checkout); bare ones ('tandem') from the project the package is installed in.
function resolveImports(code, readmeDir) {
  return code.replace(/(from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g,
    (_, lead, spec) => `${lead}'${pathToFileURL(join(readmeDir, spec)).href}'`);
}

// The files README.md's commands read that no earlier command of it writes: a world file as
// the determinism check writes them (its documented example, with native's digest as expect)
// and a recorded match covering tick 1200.
function makeFixtures(dir) {
  const scenario = 'random:1000015:pellets=24:players=3:without=far+churn+repeat';
  const last = parseStream(execFileSync(cliPath, ['run', '--scenario', scenario, '--ticks', '18', '--every', '18'], { encoding: 'utf8' })).at(-1);
  writeFileSync(join(dir, 'rare.world'), `scenario ${scenario}\nticks 18\nevery 1\nexpect ${last.tick} ${last.digest}\n`);
  const makeReplay = join(nativeBuildDir, 'tests/tandem_test_make_replay');
  execFileSync(makeReplay, ['orbits', '1300', join(dir, 'match.replay')]);
  // A file cut short as a killed server leaves one: the same records without the end marker
  // (a u32 zero, the replay format's last four bytes).
  const whole = readFileSync(join(dir, 'match.replay'));
  assert.deepEqual([...whole.subarray(whole.length - 4)], [0, 0, 0, 0], 'a finished replay ends with its end marker');
  writeFileSync(join(dir, 'killed.replay'), whole.subarray(0, whole.length - 4));
}

let project;
let work;
before(() => {
  project = installedProject('tandem-readme-');
  work = mkdtempSync(join(tmpdir(), 'tandem-readme-cli-'));
});
after(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('README examples', () => {
  for (const file of READMES) {
    test(`${file}: every js example runs and every stated result holds`, () => {
      const markdown = readFileSync(join(repoRoot, file), 'utf8');
      const blocks = codeBlocks(markdown).filter((b) => b.lang === 'js');
      assert.ok(blocks.length > 0, `${file} has js examples`);
      const counter = { stated: 0 };
      const body = blocks.map((b) => instrument(b, file, counter)).join('\n');
      const module = `${PRELUDE}${resolveImports(body, dirname(join(repoRoot, file)))}\nconsole.log(JSON.stringify({ checks: __readme.checks }));\n`;
      const path = join(project, `${file.replace(/\W/g, '_')}.mjs`);
      writeFileSync(path, module);
      let output;
      try {
        output = execFileSync(process.execPath, [path], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        assert.fail(`${file}'s examples failed:\n${error.stderr}`);
      }
      const { checks } = JSON.parse(output.trim().split('\n').at(-1));
      assert.ok(counter.stated > 0, `${file} states results`);
      assert.equal(checks, counter.stated, 'every stated result was checked');
    });
  }

  test('README.md: every `tandem` command of the sh examples succeeds; the json example is its command\'s output', () => {
    makeFixtures(work);
    const blocks = codeBlocks(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
    const PREFIX = 'build/native/src/cli/tandem ';
    let ran = 0;
    for (const block of blocks.filter((b) => b.lang === 'sh')) {
      for (const line of block.code.split('\n')) {
        const command = line.replace(/\s+#.*$/, '').trim();
        if (command === '') continue;
        if (!command.startsWith(PREFIX)) {
          assert.match(command, /^build-scripts\/\w/, `README.md: "${command}" is neither a tandem command nor a build script`);
          continue;
        }
        const args = command.slice(PREFIX.length).split(/\s+/);
        execFileSync(cliPath, args, { cwd: work, stdio: 'pipe' });
        ran += 1;
      }
    }
    assert.ok(ran >= 7, `ran ${ran} tandem commands`);
    const json = blocks.filter((b) => b.lang === 'json');
    assert.ok(json.length > 0);
    for (const block of json) {
      const quoted = [...block.before.matchAll(/`tandem ([^`]+)`/g)].at(-1);
      assert.ok(quoted, 'the json example names its command just before it');
      const output = execFileSync(cliPath, quoted[1].split(/\s+/), { cwd: work, encoding: 'utf8' });
      assert.deepEqual(JSON.parse(block.code), JSON.parse(output), `tandem ${quoted[1]}`);
    }
  });
});
