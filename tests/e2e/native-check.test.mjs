// The page against `tandem serve --game GAME`, for each game, for what the person checks by
// hand: "Check against native"
// (the scenario run in the tab equals the server's native stream tick by tick, and the match
// received re-runs to the server's digests), "Download replay" (the saved file passes the
// native `tandem replay`), and a refused hello (another protocol version, another simulation)
// shown in the page's alert rather than only logged. The refusals are the real server's: the
// test rewrites the page's hello on its way out, the server judges it.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { launchChromium } from './lib/chromium.mjs';
import { GAMES, openDemo, sleep, tandemServeAndBrowser } from './lib/harness.mjs';
import { assertDownloadedReplayPasses, clickAndRead } from './lib/actions.mjs';

// The running describe's server and browser (set by its hook), and the scenario each game checks.
let env = null;
const CHECK = { arena: 'trig', ships: 'duel' };

async function openVerifying(query, context = env.browser.context) {
  const page = await openDemo(context, env.server.origin, query);
  await page.waitForFunction(() => (window.__tandem.figures().verification?.verifiedTicks ?? 0) > 120, null, { timeout: 60_000 });
  return page;
}

// A hello of protocol 5 (its layout unchanged since 4), whole: u8 type | u16 version | u64 fingerprint | u8 role | u8 n | n bytes
// of the game's name | u8 t | t bytes of a resume token | u16 k | k bytes of a ticket.
function isHello(bytes) {
  if (bytes[0] !== 0x01 || bytes.length < 16 + bytes[12]) return false;
  const token = bytes[13 + bytes[12]];
  if (bytes.length < 16 + bytes[12] + token) return false;
  return bytes.length === 16 + bytes[12] + token + bytes.readUInt16LE(14 + bytes[12] + token);
}

/**
 * A page in its own context whose hello is rewritten by `edit` (a Buffer, changed in place)
 * on its way to the real server; everything else passes untouched both ways. Playwright's
 * WebSocket routing sees only the page's own sockets, not a worker's, so this page runs its
 * session on the main thread (?session=main: the same SessionAdapter and C++ session the worker
 * hosts; a refusal reaching the worker's session is session.test.mjs's room-full test).
 */
async function openWithHello(edit) {
  const context = await env.browser.browser.newContext();
  await context.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      const bytes = Buffer.from(message);
      if (isHello(bytes)) edit(bytes);
      server.send(bytes);
    });
  });
  const page = await openDemo(context, env.server.origin, '?session=main');
  return { page, context };
}

for (const game of GAMES) describe(`checks a person makes against \`tandem serve --game ${game}\``, () => {
  const mine = tandemServeAndBrowser(launchChromium, { game });
  const { skip } = mine;
  before(() => { env = mine; });
  const check = CHECK[game];
  // The refused hellos are the shell's and the server's, the same for every game: with the arena.
  const shellOnly = skip || (game === 'arena' ? false : 'the shell\'s own (the same for every game): run with the arena');

  test(`"Check against native" with the server: ${check}'s 2001 digests in the tab equal the server's native stream, and the received match re-runs to the server's digests`, { skip }, async () => {
    const page = await openVerifying(`?check=${check}`);
    const text = await clickAndRead(page, 'check-native', 240_000);
    console.log(`# ${text}`);
    assert.match(text, new RegExp(`^${check}: 2,001 ticks, all identical to the server's native build · received match: ticks \\d+\\.\\.\\d+: \\d+ frames re-run, every digest agrees with the server's$`));
    await page.close();
  });

  test('"Download replay" from a server match: the file the browser saves passes the native `tandem replay`', { skip }, async () => {
    const page = await openVerifying('');
    await assertDownloadedReplayPasses(page);
    await page.close();
  });

  for (const [what, code, edit, says] of [
    ['another protocol version', 'version_mismatch', (hello) => hello.writeUInt16LE(9, 1), /version/i],
    ['another simulation (fingerprint)', 'fingerprint_mismatch', (hello) => { hello[3] ^= 0xff; }, /fingerprint|simulation/i],
  ]) {
    test(`a hello speaking ${what} is refused by the server, shown in the page's alert, and not retried`, { skip: shellOnly }, async () => {
      const { page, context } = await openWithHello(edit);
      try {
        await page.waitForFunction(() => window.__tandem.figures()?.error != null, null, { timeout: 15_000 });
      } catch (error) {
        // Say what the page was doing instead (a fall-back to offline, a reconnect loop, ...).
        const state = await page.evaluate(() => {
          const f = window.__tandem.figures();
          return { mode: window.__tandem.mode, connection: f?.connection, error: f?.error, session: f?.session ?? null };
        }).catch((e) => String(e));
        assert.fail(`no refusal shown within 15 s: ${JSON.stringify(state)} (${error.message.split('\n')[0]})`);
      }
      const error = await page.evaluate(() => window.__tandem.figures().error);
      assert.equal(error.code, code);
      const alert = await page.evaluate(() => ({ hidden: document.getElementById('alert').hidden, text: document.getElementById('alert').textContent }));
      console.log(`# ${code}: the alert says: ${alert.text}`);
      assert.equal(alert.hidden, false, 'the alert is shown');
      assert.ok(alert.text.includes(error.message) && says.test(alert.text), `alert: ${alert.text}`);
      // Retrying cannot cure it: the page stays closed, and it did not fall back to offline.
      await sleep(1500);
      const after = await page.evaluate(() => ({ mode: window.__tandem.mode, connection: window.__tandem.figures().connection }));
      assert.equal(after.mode, 'play');
      assert.equal(after.connection.state, 'closed', JSON.stringify(after.connection));
      await context.close();
    });
  }
});
