// Serves the page the way the e2e tests do (web/ at the root, a game's package
// build/wasm/packages/GAME under /pkg/) on 127.0.0.1 until interrupted, with no room: the page
// then runs offline.
// Usage: node tests/e2e/serve-page.mjs [PORT] [GAME]   (default 8080 and arena; 0 picks a free port)
import { repoRoot, startServer } from './lib/harness.mjs';

const port = Number(process.argv[2] ?? 8080);
const game = process.argv[3] ?? 'arena';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`serve-page: PORT must be an integer in [0, 65535], got ${process.argv[2]}`);
  process.exit(2);
}
const server = await startServer({ port, game });
console.log(`serving ${repoRoot}/web and build/wasm/packages/${game} at ${server.origin}/ (Ctrl-C to stop)`);
