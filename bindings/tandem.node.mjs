// tandem.node.mjs: the package's entry point under Node (the "node" condition of its exports).
// It is tandem.mjs plus the one thing Node needs: reading the .wasm from the installed package,
// since Node's fetch refuses file: URLs. Kept out of tandem.mjs so that a bundler building for
// the browser (esbuild --platform=browser, Vite) never meets node:fs.
import { readFile } from 'node:fs/promises';
import createBrowserTandem from './tandem.mjs';

export * from './tandem.mjs';

/**
 * Loads the WebAssembly module and returns the tandem API: the .wasm is read from beside this
 * file (or from options.wasmUrl when that is a file: URL or path); options.wasmModule,
 * options.wasmBinary, or an http(s) wasmUrl, are left to tandem.mjs.
 */
export default async function createTandem(options = {}) {
  if (options === null || typeof options !== 'object') return createBrowserTandem(options);
  const { wasmBinary, wasmUrl, wasmModule } = options;
  if (wasmModule !== undefined || wasmBinary !== undefined || (wasmUrl !== undefined && typeof wasmUrl !== 'string' && !(wasmUrl instanceof URL))) {
    return createBrowserTandem(options);
  }
  const url = wasmUrl === undefined ? new URL('./tandem-wasm.wasm', import.meta.url) : new URL(wasmUrl, import.meta.url);
  if (url.protocol !== 'file:') return createBrowserTandem(options);
  let bytes;
  try {
    bytes = await readFile(url);
  } catch (error) {
    throw new Error(`createTandem: cannot read the WebAssembly module at ${url.href}: ${error.message}`, { cause: error });
  }
  return createBrowserTandem({ ...options, wasmBinary: bytes });
}

export { createTandem };
