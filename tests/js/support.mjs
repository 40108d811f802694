// Where the tests find what they test: the built package directory (exactly what a user
// gets; never a file inside the build tree other than that directory) and the native CLI
// to compare against. Both can be overridden, e.g. to test an installed package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// Every game's package is built in build/wasm/packages/<game>; the tests of the module's API
// run against the arena's (TANDEM_PACKAGE_DIR names another), the tests over every game against each.
export const packagesDir = resolve(process.env.TANDEM_PACKAGES_DIR ?? join(repoRoot, 'build/wasm/packages'));
export const packageDir = resolve(process.env.TANDEM_PACKAGE_DIR ?? join(packagesDir, 'arena'));
export const packageDirOf = (game) => join(packagesDir, game);
export const GAMES = ['arena', 'ships'];
export const nativeBuildDir = resolve(process.env.TANDEM_NATIVE_BUILD_DIR ?? join(repoRoot, 'build/native'));
export const cliPath = process.env.TANDEM_CLI ?? join(nativeBuildDir, 'src/cli/tandem');

// The package's Node entry by path: `import createTandem from '<dir>/tandem.node.mjs'` (what
// `import 'tandem'` resolves to in Node).
export async function loadTandem(options, dir = packageDir) {
  const entry = join(dir, 'tandem.node.mjs');
  if (!existsSync(entry)) throw new Error(`no package at ${dir}: run build-scripts/build wasm`);
  const { default: createTandem } = await import(pathToFileURL(entry).href);
  return createTandem(options);
}

// Runs the native `tandem` with arguments; returns stdout.
export function cli(...args) {
  if (!existsSync(cliPath)) throw new Error(`no native CLI at ${cliPath}: run build-scripts/build native`);
  return execFileSync(cliPath, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
}

// `tandem run` text output -> [{tick, digest}] (the summary line is left out).
export function parseStream(text) {
  return text.split('\n')
    .filter((line) => /^\d+ [0-9a-f]{16}$/.test(line))
    .map((line) => {
      const [tick, digest] = line.split(' ');
      return { tick: Number(tick), digest };
    });
}

// A fresh project in a temporary directory with the package installed as a user installs it:
// --install-links copies the directory as a registry install would (honouring "files") rather
// than linking to it; the package has no dependencies, so nothing is fetched. The caller
// removes the directory.
export function installedProject(prefix = 'tandem-user-') {
  const project = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--install-links', '--offline', '--no-audit', '--no-fund', '--loglevel=error', packageDir],
    { cwd: project, stdio: 'inherit' });
  return project;
}
