// `tandem serve --record FILE` killed from outside: a player plays over a real socket, the
// server is SIGKILLed, and the file must hold every tick the player had been sent (the server
// writes each tick's records out of the process before that tick's frames go out, so nothing a
// client saw can be missing), `tandem replay` must call it truncated at its last tick and exit 1,
// and --allow-truncated must check what it holds clean. A server stopped with SIGTERM ends the
// file with its end marker instead. The file is read here byte by byte from the layout in
// include/tandem/net/replay.hpp, not by the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeSite, startServer } from '../support.mjs';
import { play, tandem } from './store_support.mjs';

const type = { frame: 0x82 };

// The file's records after the 16-byte header: the ticks of its frames, whether it ends with
// the end marker (a u32 zero), and whether it ends inside a record.
function readRecording(bytes) {
  assert.equal(bytes.subarray(0, 4).toString('latin1'), 'TNDR');
  const frames = [];
  let at = 16;
  let ended = false;
  while (at + 4 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (length === 0) { ended = at + 4 === bytes.length; break; }
    if (at + 4 + length > bytes.length) break;   // a record cut short
    const body = bytes.subarray(at + 4, at + 4 + length);
    if (body[0] === type.frame) frames.push(Number(body.readBigUInt64LE(1)));
    at += 4 + length;
  }
  return { frames, ended, wholeBytes: at };
}

test('SIGKILL during --record: the file holds every tick a client was sent, and `tandem replay` calls it truncated (exit 1) there', async () => {
  const site = makeSite();
  const file = join(site.base, 'killed.replay');
  const server = await startServer({ realRoom: true, site, serve: ['--pellets', '64', '--record', file] });
  const { ws: player, newest, frames } = await play(server, 2500);
  server.child.kill('SIGKILL');
  const { signal } = await server.exited;
  player.destroy();
  assert.equal(signal, 'SIGKILL');
  assert.ok(frames > 60, `the player was sent ${frames} frames`);

  const recorded = readRecording(readFileSync(file));
  assert.equal(recorded.ended, false, 'a killed server wrote no end marker');
  const last = recorded.frames.at(-1);
  // The stated interval is one tick, and a tick's records are out before its frames: every tick
  // the player was sent is in the file, and the file ran ahead of it by at most what the
  // server ticked between its last send and the kill.
  assert.ok(last >= newest, `the file reaches tick ${last}, the player had been sent tick ${newest}`);
  assert.ok(last <= newest + 30, `the file reaches tick ${last}, far past the ${newest} the player saw`);
  for (let i = 1; i < recorded.frames.length; ++i) assert.equal(recorded.frames[i], recorded.frames[i - 1] + 1);
  console.log(`# player sent to tick ${newest}; the killed server's file reaches tick ${last}`);

  const refused = tandem('replay', file);
  assert.equal(refused.status, 1, refused.stderr);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, new RegExp(`truncated: no end marker \\(cut [^)]*\\); the last tick it covers is ${last} \\(ticks \\d+ to ${last}\\)`));
  const checked = tandem('replay', file, '--allow-truncated');
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  assert.match(checked.stdout, new RegExp(`^truncated: no end marker .* the last tick it covers is ${last} `));
  assert.match(checked.stdout, /ok: every digest agrees with this build\n$/);
});

test('SIGTERM during --record: the drain ends the file with its end marker, and `tandem replay` checks it whole (exit 0)', async () => {
  const site = makeSite();
  const file = join(site.base, 'drained.replay');
  const server = await startServer({ realRoom: true, site, serve: ['--pellets', '64', '--record', file] });
  const { ws: player, newest } = await play(server, 1000);
  const { code } = await server.stop();
  player.destroy();
  assert.equal(code, 0);
  const recorded = readRecording(readFileSync(file));
  assert.equal(recorded.ended, true, 'the file ends with the end marker');
  assert.ok(recorded.frames.at(-1) >= newest);
  const checked = tandem('replay', file);
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  assert.doesNotMatch(checked.stdout, /truncated/);
  assert.match(checked.stdout, /ok: every digest agrees with this build\n$/);
});
