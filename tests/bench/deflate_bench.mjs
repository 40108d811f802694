// deflate_bench.mjs REPLAY...: what permessage-deflate would buy on tandem's own messages.
// Reads replays (the server's messages exactly as sent: welcome, baselines, frames) and, for
// frames and baselines separately, compresses each message the two ways a WebSocket
// permessage-deflate extension can (with zlib, the library Beast's extension implements):
//   - per connection with context takeover (the compressor's window carries over, as a
//     browser negotiates by default): one stream per recipient, so every recipient costs a
//     compression of every frame;
//   - per message without context takeover (each message compressed alone: the only form a
//     server could compress once and share, if its WebSocket library allowed that).
// Prints bytes before and after, and CPU per message beside a plain copy of the same bytes.
import { readFileSync } from 'node:fs';
import { deflateRawSync, createDeflateRaw, constants } from 'node:zlib';

const FRAME = 0x82;
const BASELINE = 0x83;

function messages(path) {
  const b = readFileSync(path);
  if (b.toString('latin1', 0, 4) !== 'TNDR') throw new Error(`${path}: not a replay`);
  const out = [];
  for (let at = 16; at + 4 <= b.length;) {
    const n = b.readUInt32LE(at);
    out.push(b.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

function cpuNs(fn, rounds) {
  const start = process.cpuUsage();
  for (let i = 0; i < rounds; ++i) fn();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / rounds;
}

// Context takeover: one raw-deflate stream, flushed with Z_SYNC_FLUSH after each message
// (RFC 7692 strips the trailing 00 00 ff ff from each), as a connection's compressor runs.
async function streamSizes(list) {
  const d = createDeflateRaw({ level: 6 });
  let pending = 0;
  d.on('data', (chunk) => { pending += chunk.length; });
  const sizes = [];
  for (const m of list) {
    d.write(m);
    await new Promise((resolve) => d.flush(constants.Z_SYNC_FLUSH, resolve));
    sizes.push(pending - 4);
    pending = 0;
  }
  d.end();
  return sizes;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const fmt = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error('usage: deflate_bench.mjs REPLAY...');
  process.exit(2);
}
console.log('| messages | count | mean bytes | per message, no takeover | per connection, takeover | copy ns | deflate ns (no takeover) | deflate / copy |');
console.log('|---|---|---|---|---|---|---|---|');
for (const path of paths) {
  const all = messages(path);
  for (const [type, label] of [[FRAME, 'frames'], [BASELINE, 'baselines']]) {
    const list = all.filter((m) => m[0] === type);
    if (list.length === 0) continue;
    const raw = sum(list.map((m) => m.length));
    const alone = sum(list.map((m) => deflateRawSync(m, { level: 6 }).length));
    const stream = sum(await streamSizes(list));
    const rounds = Math.max(1, Math.floor(20000 / list.length));
    const sink = Buffer.alloc(Math.max(...list.map((m) => m.length)));
    const copy = cpuNs(() => { for (const m of list) m.copy(sink); }, rounds * 20) / list.length;
    const deflate = cpuNs(() => { for (const m of list) deflateRawSync(m, { level: 6 }); }, rounds) / list.length;
    console.log(`| ${path.split('/').at(-1)} ${label} | ${list.length} | ${fmt(raw / list.length)} | ${fmt((100 * alone) / raw, 1)}% | ${fmt((100 * stream) / raw, 1)}% | ${fmt(copy)} | ${fmt(deflate)} | ${fmt(deflate / copy)}x |`);
  }
}
