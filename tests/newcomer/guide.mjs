// docs/your-own-game.md as a script: its ```sh blocks, in order, each with the heading it sits
// under, and a runner that executes them the way a reader does, one after the other in one shell
// session (the directory a block ends in and the variables it exports carry to the next).
// The newcomer test (guide.test.mjs) runs every block; nothing here decides what passes.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// [{heading, line, code}] for every ```sh block of the markdown text.
export function shellBlocks(markdown) {
  const blocks = [];
  let heading = '';
  let open = null;
  markdown.split('\n').forEach((text, i) => {
    if (open === null && /^#{1,6} /.test(text)) heading = text.replace(/^#+ /, '');
    const fence = /^```(\w*)\s*$/.exec(text);
    if (!fence) {
      if (open) open.lines.push(text);
      return;
    }
    if (open === null) {
      open = { lang: fence[1], line: i + 2, heading, lines: [] };
    } else {
      if (open.lang === 'sh') blocks.push({ heading: open.heading, line: open.line, code: open.lines.join('\n') });
      open = null;
    }
  });
  return blocks;
}

// A shell session across blocks: each block runs in a fresh bash that starts where the last one
// ended (its directory and exported variables) and stops at the first failing command.
export class Session {
  constructor({ stateDir, env, cwd }) {
    this.stateDir = stateDir;
    mkdirSync(stateDir, { recursive: true });
    this.cwd = cwd;
    this.envFile = join(stateDir, 'env.sh');
    writeFileSync(this.envFile, Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`).join('\n') + '\n');
    this.count = 0;
  }

  // Runs one block; resolves {code, output, seconds}. output holds stdout and stderr interleaved.
  run(code, { log = () => {} } = {}) {
    const n = ++this.count;
    const cwdFile = join(this.stateDir, `cwd-${n}`);
    const script = join(this.stateDir, `block-${n}.sh`);
    writeFileSync(script, [
      'set -euo pipefail',
      `source ${shellQuote(this.envFile)}`,
      `cd ${shellQuote(this.cwd)}`,
      // Where the block ended and what it exported, for the next block, even when it failed.
      `trap 'pwd > ${shellQuote(cwdFile)}; export -p > ${shellQuote(this.envFile)}' EXIT`,
      code,
      '',
    ].join('\n'));
    const started = Date.now();
    return new Promise((resolve) => {
      const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
      let output = '';
      const take = (chunk) => { output += chunk; log(String(chunk)); };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      child.on('close', (status) => {
        if (existsSync(cwdFile)) this.cwd = readFileSync(cwdFile, 'utf8').trim();
        resolve({ code: status, output, seconds: (Date.now() - started) / 1000 });
      });
    });
  }

  // The session's variables as a plain object (after the blocks run so far).
  env() {
    const env = {};
    for (const line of readFileSync(this.envFile, 'utf8').split('\n')) {
      const m = /^declare -x ([A-Za-z_][A-Za-z0-9_]*)="(.*)"$/.exec(line);
      if (m) env[m[1]] = m[2].replace(/\\(["\\$`])/g, '$1');
    }
    return env;
  }
}

export const shellQuote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
