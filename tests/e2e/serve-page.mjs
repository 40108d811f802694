// Serves the demo page the way the e2e tests do (web/ at the root, build/wasm/package under
// /pkg/) on 127.0.0.1 until interrupted, to look at it before `tandem serve` exists.
// Usage: node tests/e2e/serve-page.mjs [PORT]   (default 8080; 0 picks a free one)
import { repoRoot, startServer } from './lib/harness.mjs';

const port = Number(process.argv[2] ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`serve-page: PORT must be an integer in [0, 65535], got ${process.argv[2]}`);
  process.exit(2);
}
const server = await startServer({ port });
console.log(`serving ${repoRoot}/web and build/wasm/package at ${server.origin}/ (Ctrl-C to stop)`);
