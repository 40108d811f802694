// `tandem run --world FILE` for the wasm package in Node: runs the world file's scenario (a
// random world's spec) for its ticks and prints 'TICK DIGEST' lines as the CLI does; with an
// 'expect TICK DIGEST' line, exits 1 when this build's digest at that tick differs.
// usage: node tests/determinism/run-world.mjs FILE [PACKAGE_DIR] [--game NAME]
//   (default build/wasm/packages/GAME, game arena)
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
let game = 'arena';
const gameAt = args.indexOf('--game');
if (gameAt >= 0) [, game] = args.splice(gameAt, 2);
const [file, packageDir = join(root, 'build/wasm/packages', game ?? 'arena')] = args;
if (!file || !game) {
  process.stderr.write('usage: node tests/determinism/run-world.mjs FILE [PACKAGE_DIR] [--game NAME]\n');
  process.exit(2);
}
const world = { every: 1 };
for (const line of readFileSync(file, 'utf8').split('\n')) {
  const [key, ...rest] = line.trim().split(/\s+/);
  if (!key || key.startsWith('#')) continue;
  if (key === 'scenario') world.scenario = rest[0];
  else if (key === 'ticks') world.ticks = Number(rest[0]);
  else if (key === 'every') world.every = Number(rest[0]);
  else if (key === 'expect') world.expect = { tick: Number(rest[0]), digest: rest[1] };
  else { process.stderr.write(`run-world: ${file}: unexpected '${line}'\n`); process.exit(1); }
}
if (!world.scenario || !Number.isInteger(world.ticks)) {
  process.stderr.write(`run-world: ${file}: needs 'scenario NAME' and 'ticks N' lines\n`);
  process.exit(1);
}
const { default: createTandem } = await import(pathToFileURL(join(packageDir, 'tandem.node.mjs')).href);
const tandem = await createTandem();
if (tandem.game.name !== game) {
  process.stderr.write(`run-world: ${packageDir} is the package of ${tandem.game.name}, not of ${game}\n`);
  process.exit(2);
}
const stream = tandem.game.runScenario(world.scenario, world.ticks, world.every);
for (const p of stream) process.stdout.write(`${p.tick} ${p.digest}\n`);
if (world.expect) {
  const got = stream.find((p) => p.tick === world.expect.tick)?.digest;
  if (got !== world.expect.digest) {
    process.stderr.write(`run-world: tick ${world.expect.tick} digest ${got} differs from ${world.expect.digest}, the reference build's recorded in '${file}'\n`);
    process.exit(1);
  }
  process.stderr.write(`run-world: tick ${world.expect.tick} digest ${got} matches the reference's recorded in '${file}'\n`);
}
