// The page's own modules that load only when wanted (the offline and scenario modes, the native
// check, the package's name for its game, the game's plugin), by their path in the page and
// resolved against the page's URL. The code that asks for them runs bundled into pkg/page.mjs
// (the wasm build makes it), where a path relative to the importing module would point into
// pkg/; and the bundler leaves an import() of a computed URL to the browser, so each stays a
// file of its own, fetched when wanted and not before.
export const importFromPage = (path) => import(new URL(path, document.baseURI).href);
