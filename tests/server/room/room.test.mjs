// The transport carrying the real room's protocol over loopback (built only when src/net's
// Room is in the build): a watcher's and a player's stream, the protocol's refusals (an error
// message, then the close), the flood limit, and a client that stops reading, which the
// room's flow control pauses at bounded cost and which gets a baseline when it asks again.
// Messages are written byte by byte from the protocol's layout, not by the code under test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startServer, rawWebSocket, metrics, sleep } from '../support.mjs';
import { hello as wireHello, PROTOCOL_VERSION } from '../wire.mjs';
import { input } from './store_support.mjs';

const fingerprint = Buffer.from(execFileSync(process.env.TANDEM_ARENA_FINGERPRINT, { encoding: 'utf8' }).trim(), 'hex').reverse();
const type = { hello: 0x01, input: 0x02, ack: 0x03, welcome: 0x81, frame: 0x82, baseline: 0x83, error: 0x86 };

// The hello as tests/server/wire.mjs writes it from the layout.
const hello = ({ version = PROTOCOL_VERSION, fp = fingerprint, role = 0, game = 'arena' } = {}) => wireHello({ version, fp, role, game });
// u8 type | u8 holds world | u64 tick | u64 digest: "nothing held" asks for a baseline.
const nothingHeld = () => Buffer.from([type.ack, 0, ...new Array(16).fill(0)]);

// 64 pellets: the sanitizer build steps the default 1,024 too slowly for 60 Hz.
const serve = ['--pellets', '64'];

test('a watcher and a player get a welcome, a baseline and consecutive frames, and /metrics agrees', async () => {
  const server = await startServer({ realRoom: true, serve });
  try {
    const watcher = await rawWebSocket(server.port);
    const player = await rawWebSocket(server.port);
    watcher.send(2, hello({ role: 1 }));
    player.send(2, hello({ role: 0 }));
    for (let i = 0; i < 20; ++i) player.send(2, input(i + 1, 100 << 16, 50 << 16));
    const messages = await watcher.messages(40);
    assert.equal(messages[0].payload[0], type.welcome);
    assert.equal(messages[1].payload[0], type.baseline);
    const frames = messages.filter((m) => m.payload[0] === type.frame);
    const ticks = frames.map((m) => Number(m.payload.readBigUInt64LE(1)));
    for (let i = 1; i < ticks.length; ++i) assert.equal(ticks[i], ticks[i - 1] + 1, `tick ${ticks[i - 1]} then ${ticks[i]}`);
    const { values } = await metrics(server.port);
    assert.equal(values.tandem_room_players, 1);
    assert.equal(values.tandem_room_watchers, 1);
    assert.equal(values.tandem_ws_connections, 2);
    assert.ok(values.tandem_room_tick >= ticks.at(-1));
    assert.equal(values.tandem_room_baselines_sent_total, 2);
    watcher.destroy();
    player.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a wrong fingerprint, a wrong version and an unknown type get the protocol error, then 1002', async () => {
  const server = await startServer({ realRoom: true, serve });
  try {
    for (const [what, message, code] of [
      ['wrong fingerprint', hello({ fp: Buffer.alloc(8, 7) }), 2],
      ['wrong version', hello({ version: 9 }), 1],
      ['unknown type', Buffer.from([0x7f, 1, 2]), 5],
    ]) {
      const client = await rawWebSocket(server.port);
      client.send(2, message);
      const [error] = await client.messages(1);
      assert.equal(error.payload[0], type.error, what);
      assert.equal(error.payload[1], code, what);
      const close = await client.closeFrame();
      assert.deepEqual(close, { code: 1002, reason: 'protocol_error' }, what);
      client.destroy();
    }
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a flood of inputs is rate-limited, then closed with 1008', async () => {
  const server = await startServer({ realRoom: true, serve });
  try {
    const flooder = await rawWebSocket(server.port);
    flooder.send(2, hello());
    await flooder.messages(1);
    for (let i = 1; i <= 2000; ++i) flooder.send(2, input(i));
    const close = await flooder.closeFrame(10_000);
    assert.equal(close?.code, 1008);
    const { values } = await metrics(server.port);
    assert.ok(values.tandem_room_inputs_rate_limited_total > 0);
    flooder.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a watcher that stops reading is paused at bounded cost and gets a baseline when it asks again', async () => {
  const server = await startServer({ realRoom: true, serve });
  try {
    const stalled = await rawWebSocket(server.port);
    stalled.send(2, hello({ role: 1 }));
    await stalled.messages(2);
    stalled.socket.pause();  // reads nothing, never acks
    await sleep(3500);       // past the room's two-second flow window
    const { values } = await metrics(server.port);
    assert.ok(values.tandem_room_flow_control_pauses_total >= 1);
    // The room stopped streaming, so the transport never held more than the flow window.
    assert.ok(values.tandem_ws_write_queue_peak_bytes <= 256 * 1024, `peak ${values.tandem_ws_write_queue_peak_bytes}`);
    const framesBefore = values.tandem_ws_frames_sent_total;
    await sleep(500);
    assert.equal((await metrics(server.port)).values.tandem_ws_frames_sent_total, framesBefore);
    // Reading again and saying "nothing held" brings a baseline, then the stream resumes.
    stalled.socket.resume();
    stalled.send(2, nothingHeld());
    const all = await stalled.messages(200, 10_000);
    assert.ok(all.filter((m) => m.payload[0] === type.baseline).length >= 2, 'no second baseline');
    stalled.destroy();
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});
