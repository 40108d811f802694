// A game's package as a user gets it (the arena's): `npm install <build/wasm/packages/arena>`
// into a fresh project, then a bare `import 'tandem-arena'` in plain Node (no flags, no
// options), and the typings (the generic tandem.d.ts and the game's generated game.d.ts)
// compiled with `tsc --strict` against a usage sample resolved through the exports map.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { installedProject, loadTandem, packageDir } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
let project;

before(() => { project = installedProject(); });
after(() => rmSync(project, { recursive: true, force: true }));

describe('the package', () => {
  test('its manifest is an ES module: types first, Node\'s entry under "node", the browser\'s as the default', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'tandem-arena');
    assert.equal(manifest.type, 'module');
    assert.deepEqual(manifest.exports['.'], { types: './game.d.ts', node: './tandem.node.mjs', default: './tandem.mjs' });
    for (const file of manifest.files) assert.ok(existsSync(join(packageDir, file)), `${file} is in the package`);
  });

  test('the module starts and steps where code generation from strings is forbidden (a page under a CSP without \'unsafe-eval\')', () => {
    writeFileSync(join(project, 'no-eval.mjs'), `
      let evalRefused = false;
      try { new Function('return 1'); } catch { evalRefused = true; }
      const tandem = await (await import('tandem-arena')).default();
      const session = new tandem.ClientSession({ nowMs: 0 });
      session.delete();
      console.log(JSON.stringify({ evalRefused, stream: tandem.runScenario('orbits', 4, 2).map((e) => e.tick) }));
    `);
    const out = JSON.parse(execFileSync(process.execPath, ['--disallow-code-generation-from-strings', 'no-eval.mjs'], { cwd: project, encoding: 'utf8' }));
    assert.deepEqual(out, { evalRefused: true, stream: [0, 2, 4] });
  });

  test('a bare import of the installed package works in Node with no flags or options', () => {
    writeFileSync(join(project, 'main.mjs'), `
      const tandem = await (await import('tandem-arena')).default();
      const world = new tandem.World({ pelletCount: 16 });
      world.step();
      console.log(JSON.stringify({ version: tandem.version, fingerprint: tandem.fingerprint,
        stream: tandem.runScenario('orbits', 4, 2), tick: world.tick }));
    `);
    const out = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { cwd: project, encoding: 'utf8' }));
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    assert.equal(out.version, manifest.version);
    assert.match(out.fingerprint, /^tandem snapshot\/\d+ Q16\.16 arena\/\d+$/);
    assert.deepEqual(out.stream.map((e) => e.tick), [0, 2, 4]);
    assert.equal(out.tick, 1);
  });

  test('the typings compile with tsc --strict against a usage sample', () => {
    const tsc = join(here, 'node_modules/typescript/bin/tsc');
    assert.ok(existsSync(tsc), 'typescript is installed (build-scripts/install-deps runs npm install in tests/js)');
    cpSync(join(here, 'typings/usage.ts'), join(project, 'usage.ts'));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
        lib: ['es2022', 'dom'], types: [], skipLibCheck: false },
      files: ['usage.ts'],
    }));
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      assert.fail(`tsc --strict refused the usage sample:\n${error.stdout}${error.stderr}`);
    }
  });

  test('the typings reject misuse: a wrong input kind, a string where a raw Fx goes, another game\'s command, an unknown knob', () => {
    const tsc = join(here, 'node_modules/typescript/bin/tsc');
    writeFileSync(join(project, 'misuse.ts'), `
      import createTandem from 'tandem-arena';
      const tandem = await createTandem();
      new tandem.World().step([{ player: 1, kind: 'jump', command: { target: { x: 0, y: 0 } } }]);
      tandem.fx.add('1', 2);
      tandem.checkCommand({ buttons: 1 });
      new tandem.World({ pellets: 5 });
    `);
    writeFileSync(join(project, 'tsconfig.misuse.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: [] },
      files: ['misuse.ts'],
    }));
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', join(project, 'tsconfig.misuse.json')], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      output = error.stdout;
    }
    assert.match(output, /misuse\.ts\(4,/, 'the bad input kind is a type error');
    assert.match(output, /misuse\.ts\(5,/, 'the string argument is a type error');
    assert.match(output, /misuse\.ts\(6,/, 'ships\' command given to the arena is a type error');
    assert.match(output, /misuse\.ts\(7,/, 'an unknown knob is a type error');
  });
});

describe('instances', () => {
  test('each createTandem() is an independent instance; objects do not cross between them', async () => {
    const a = await loadTandem();
    const b = await loadTandem();
    const wa = new a.World({ pelletCount: 8 });
    const wb = new b.World({ pelletCount: 8 });
    assert.equal(wa.digest(), wb.digest());
    assert.throws(() => wa.equals(wb), TypeError);
    wa.delete();
    wb.delete();
  });

  test('the .wasm bytes can be passed in, for hosts that fetch them their own way', async () => {
    const wasmBinary = readFileSync(join(packageDir, 'tandem-wasm.wasm'));
    const t = await loadTandem({ wasmBinary });
    assert.equal(t.fx.mul(t.fx.fromInt(3), t.fx.fromInt(4)), t.fx.fromInt(12));
  });

  test('a module compiled already, or a promise of one, is only instantiated (a page compiles while its scripts load)', async () => {
    const compiled = WebAssembly.compile(readFileSync(join(packageDir, 'tandem-wasm.wasm')));
    const fromPromise = await loadTandem({ wasmModule: compiled });
    const fromModule = await loadTandem({ wasmModule: await compiled, wasmBinary: new Uint8Array([0]) });
    for (const t of [fromPromise, fromModule]) assert.equal(t.fx.mul(t.fx.fromInt(3), t.fx.fromInt(4)), t.fx.fromInt(12));
  });
});
