// The soak (build-scripts/soak): one room of the release build under a full house for a long
// time while every kind of hostile client takes its turn at once, to show nothing grows with
// time. It is a measurement, not a test: it prints figures and a verdict, and exits 1 when the
// verdict fails. Never in the default run.
//
// The room: `tandem serve` (default world), tickets required, --record on. The house: 14 players
// and 200 watchers of tests/load/ws_load.cpp (the room's protocol, acking as a page does, spread
// over 8 loopback addresses so the per-address budgets hold), plus 2 bystander players
// (tests/server/bystander.cpp: the kit's ClientSession verifying every tick's digest, every
// frame gap written down). The attackers: two lanes taking turns through every hostile client of
// tests/server/hostile.test.mjs and the mutation fuzzer, each from addresses of its own. Every
// 10 s /metrics and the process's descriptors are sampled. At the end: a table per window of RSS,
// descriptors, connections, late and dropped ticks and the bystanders' frame gaps (p99, max),
// the recording replayed by `tandem replay` (every tick's digest re-computed and compared), and
// the verdict.
//
// usage: node tests/load/soak.mjs --tandem PATH --load PATH --bystander PATH --fingerprint PATH
//                                 [--minutes 30] [--window-minutes 5] [--web DIR]
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function args() {
  const out = { minutes: 30, 'window-minutes': 5, web: 'web' };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) {
    if (!a[i].startsWith('--') || a[i + 1] === undefined) {
      console.error(`soak: expected --name value pairs (got '${a[i]}')`);
      process.exit(2);
    }
    out[a[i].slice(2)] = a[i + 1];
  }
  for (const need of ['tandem', 'load', 'bystander', 'fingerprint']) {
    if (!out[need] || !existsSync(out[need])) {
      console.error(`soak: --${need} must name a built program (got '${out[need] ?? ''}')`);
      process.exit(2);
    }
  }
  out.minutes = Number(out.minutes);
  out['window-minutes'] = Number(out['window-minutes']);
  if (!(out.minutes > 0 && out['window-minutes'] > 0)) {
    console.error('soak: --minutes and --window-minutes expect positive numbers');
    process.exit(2);
  }
  return out;
}
const opt = args();
process.env.TANDEM_ARENA_FINGERPRINT = opt.fingerprint;
// The socket helpers and the protocol's layout, shared with the hostile suite.
const { rawWebSocket, sleep, metrics } = await import('../server/support.mjs');
const { hello, parseError, parseWelcome, type } = await import('../server/wire.mjs');
const { rng, mutantClient } = await import('../server/mutations.mjs');

const dir = mkdtempSync(join(tmpdir(), 'tandem-soak-'));
const key = join(dir, 'ticket.key');
writeFileSync(key, randomBytes(32).toString('hex') + '\n');
// A ticket for this room; `expiry` replaces the default day (the CLI takes one of the two flags).
const mint = (role, expiry = ['--expires-in', '86400']) => execFileSync(opt.tandem, ['ticket', '--ticket-key', key,
  '--room', 'soak', '--role', role, ...expiry], { encoding: 'utf8' }).trim();
const record = join(dir, 'soak.replay');
const emptyPkg = join(dir, 'pkg');
execFileSync('mkdir', ['-p', emptyPkg]);

const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
log(`soak: ${opt.minutes} min, files in ${dir}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

// ---- the room --------------------------------------------------------------------------------
const server = spawn(opt.tandem, ['serve', '--port', '0', '--web', opt.web, '--pkg', emptyPkg, '--max-players', '20',
  '--max-watchers', '300', '--resume-grace', '5', '--ticket-key', key, '--room', 'soak', '--record', record],
{ stdio: ['ignore', 'pipe', 'pipe'] });
let serverErr = '';
server.stderr.on('data', (d) => { serverErr += d; });
const port = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
    if (m) resolve(Number(m[1]));
  });
  server.on('exit', (code) => reject(new Error(`tandem serve exited ${code}: ${serverErr}`)));
});
const serverExit = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
log(`tandem serve pid ${server.pid} on port ${port}`);
const descriptorsAtStart = readdirSync(`/proc/${server.pid}/fd`).length;

// ---- the house ---------------------------------------------------------------------------------
const tickets = join(dir, 'tickets.txt');
writeFileSync(tickets, [...Array.from({ length: 14 }, () => mint('play')), ...Array.from({ length: 200 }, () => mint('watch'))].join('\n') + '\n');
const bystanders = ['127.0.0.2', '127.0.0.3'].map((from, i) => {
  const gaps = join(dir, `gaps-${i}.txt`);
  const child = spawn(opt.bystander, ['--port', String(port), '--from', from, '--role', 'play', '--ticket', mint('play'), '--gaps-file', gaps],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const b = { from, gaps, child, last: null, final: null };
  let pending = '';
  child.stdout.on('data', (d) => {
    pending += d;
    for (let k = pending.indexOf('\n'); k >= 0; k = pending.indexOf('\n')) {
      const line = JSON.parse(pending.slice(0, k));
      pending = pending.slice(k + 1);
      if (line.event === 'status') b.last = line;
      else if (line.event === 'final') b.final = line;
      else log(`bystander ${from}: ${JSON.stringify(line)}`);
    }
  });
  b.exited = new Promise((resolve) => child.on('exit', resolve));
  return b;
});
const seconds = Math.round(opt.minutes * 60);
const load = spawn(opt.load, ['--port', String(port), '--players', '14', '--watchers', '200', '--seconds', String(seconds),
  '--game', 'arena', '--from-addresses', '8', '--tickets', tickets, '--server-pid', String(server.pid)], { stdio: ['ignore', 'pipe', 'pipe'] });
let loadOut = '';
let loadErr = '';
load.stdout.on('data', (d) => { loadOut += d; });
load.stderr.on('data', (d) => { loadErr += d; });
const loadExit = new Promise((resolve) => load.on('exit', (code) => resolve(code)));

// ---- the attackers -------------------------------------------------------------------------
let addressCounter = 0;
const attacker = () => `127.0.${5 + Math.floor(addressCounter / 250) % 40}.${1 + (addressCounter++ % 250)}`;
const counts = {};
const emptyPing = Buffer.from([0x89, 0x80, 0, 0, 0, 0]);
function raw(from, bytes) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
    s.on('error', () => {});
    s.once('connect', () => { if (bytes) s.write(bytes); resolve(s); });
  });
}
async function greet(from, role, ticket = null, token = null) {
  const c = await rawWebSocket(port, { localAddress: from });
  if (c.status !== 101) { c.destroy(); return null; }
  c.send(2, hello({ role, ticket, token }));
  const first = await c.messages(1, 3000);
  c.welcome = first && first[0].payload[0] === type.welcome ? parseWelcome(first[0].payload) : null;
  c.error = first ? parseError(first[0].payload) : null;
  return c;
}
const b64 = (t) => Buffer.from(t, 'base64url');
const attacks = {
  async closePath() {
    for (const [start, then] of [[1, 'unmasked'], [1, 'fin0'], [2, 'big'], [8, 'text']]) {
      const c = await rawWebSocket(port, { localAddress: attacker() });
      c.socket.cork();
      if (start === 1) c.send(1, 'hi'); else if (start === 2) c.send(2, Buffer.from([0xc1])); else c.send(8, Buffer.from([0x03, 0xe8]));
      if (then === 'unmasked') c.send(2, Buffer.from([1, 2, 3]), { mask: false });
      else if (then === 'fin0') { c.send(2, Buffer.from([1]), { fin: false }); c.send(2, Buffer.from([2])); }
      else if (then === 'big') c.send(2, Buffer.alloc(2000));
      else c.send(1, 'again');
      c.socket.uncork();
      await sleep(200);
      c.destroy();
    }
  },
  async pingFlood() {
    const c = await rawWebSocket(port, { localAddress: attacker() });
    c.socket.pause();
    const burst = Buffer.concat(Array.from({ length: 10000 }, () => emptyPing));
    for (let i = 0; i < 20; ++i) c.socket.write(burst);
    await sleep(5000);
    c.destroy();
  },
  async pingRate() {
    const c = await rawWebSocket(port, { localAddress: attacker() });
    for (let i = 0; i < 200; ++i) c.send(9, Buffer.from('x'));
    await c.ended(3000);
    c.destroy();
  },
  async slowloris() {
    const from = attacker();
    const held = [];
    for (let i = 0; i < 24; ++i) held.push(await raw(from, 'GET /ws HTTP/1.1\r\nHost: x\r\n'));
    await sleep(6000);
    for (const s of held) s.destroy();
  },
  async connectionCap() {
    const from = attacker();
    const held = [];
    for (let i = 0; i < 70; ++i) held.push(await raw(from, null));
    await sleep(2000);
    for (const s of held) s.destroy();
  },
  async squat() {
    const from = attacker();
    const held = [];
    for (let i = 0; i < 6; ++i) held.push(await greet(from, 0, b64(mint('play'))));
    for (let i = 0; i < 36; ++i) held.push(await greet(from, 1, b64(mint('watch'))));
    await sleep(1500);
    for (const c of held) c?.destroy();
  },
  async tickets() {
    const from = attacker();
    const forged = b64(mint('play'));
    forged[forged.length - 1] ^= 1;
    const once = b64(mint('play'));
    for (const [role, t] of [[0, null], [0, forged], [0, b64(mint('play', ['--expires-at', '1']))],
      [0, b64(execFileSync(opt.tandem, ['ticket', '--ticket-key', key, '--room', 'other', '--role', 'play'], { encoding: 'utf8' }).trim())],
      [1, b64(mint('play'))], [0, once], [0, once]]) {
      const c = await greet(from, role, t);
      await sleep(50);
      c?.destroy();
    }
  },
  async tokens() {
    const victim = await greet(attacker(), 0, b64(mint('play')));
    if (!victim?.welcome) { victim?.destroy(); return; }
    const thief = attacker();
    for (let i = 0; i < 20; ++i) (await greet(thief, 0, null, randomBytes(16)))?.destroy();
    victim.destroy();
    await sleep(300);
    const back = await greet(attacker(), 0, null, victim.welcome.token);
    (await greet(thief, 0, null, victim.welcome.token))?.destroy();
    await sleep(500);
    back?.destroy();
  },
  async nativeStream() {
    const ask = (from, abort) => new Promise((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
      s.on('error', () => {});
      s.on('close', resolve);
      s.on('data', () => {});
      s.write('GET /native/stream?scenario=crowd&ticks=3600 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      if (abort) setTimeout(() => s.destroy(), 300);
    });
    await Promise.all([ask(attacker(), false), ask(attacker(), true), ask(attacker(), false)]);
  },
  async fuzz() {
    const r = rng(Date.now() % 2 ** 31);
    const until = Date.now() + 4000;
    const seen = { connections: 0, refusedAtDoor: 0, closeCodes: {} };
    await Promise.all([0, 1, 2].map(async () => { while (Date.now() < until) await mutantClient(port, r, until, seen); }));
  },
  async handshakeJunk() {
    for (const key of ['short', 'AAAAAAAAAAAAAAAAAAAAA*==']) (await rawWebSocket(port, { localAddress: attacker(), key })).destroy();
    const s = await raw(attacker(), 'GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(300);
    s.destroy();
  },
  async stalledWatcher() {
    const c = await greet(attacker(), 1, b64(mint('watch')));
    c?.socket.pause();
    await sleep(8000);
    c?.destroy();
  },
};
const names = Object.keys(attacks);
let stopAttacks = false;
const lanes = [0, 1].map(async (lane) => {
  for (let turn = lane; !stopAttacks; turn += 2) {
    const name = names[turn % names.length];
    try {
      await attacks[name]();
      counts[name] = (counts[name] ?? 0) + 1;
    } catch (error) {
      counts[`${name} (threw)`] = (counts[`${name} (threw)`] ?? 0) + 1;
      if ((counts[`${name} (threw)`] ?? 0) <= 3) log(`attack ${name} threw: ${error.message}`);
    }
  }
});

// ---- sampling --------------------------------------------------------------------------------
const samples = [];
const started = performance.now();
const descriptors = () => { try { return readdirSync(`/proc/${server.pid}/fd`).length; } catch { return -1; } };
async function sample() {
  try {
    const { values } = await metrics(port);
    samples.push({
      s: (performance.now() - started) / 1000, rss: values.process_resident_memory_bytes / 1e6, fds: descriptors(),
      connections: values.tandem_ws_connections, players: values.tandem_room_players, watchers: values.tandem_room_watchers,
      held: values.tandem_room_held_seats, late: values.tandem_late_ticks_total, dropped: values.tandem_dropped_ticks_total,
      queued: values.tandem_ws_write_queue_bytes, ticks: values.tandem_ticks_total,
    });
  } catch (error) {
    log(`sample failed: ${error.message}`);
  }
}
await sample();
const until = started + seconds * 1000;
let loadCode = null;
loadExit.then((code) => { loadCode = code; });
while (performance.now() < until && loadCode === null && server.exitCode === null) {
  await sleep(10000);
  await sample();
  const last = samples.at(-1);
  if (last && samples.length % 6 === 0) {
    log(`${(last.s / 60).toFixed(1)} min: rss ${last.rss.toFixed(1)} MB, fds ${last.fds}, connections ${last.connections}, ` +
      `players ${last.players}, watchers ${last.watchers}, late ticks ${last.late}, bystanders verified ${bystanders.map((b) => b.last?.verified_tick).join(', ')}`);
  }
}
stopAttacks = true;
await Promise.all(lanes);
const code = await loadExit;
await sleep(8000);   // the attackers' and the house's sockets close, the house's kept seats expire (5 s)
await sample();
for (const b of bystanders) b.child.stdin.end();
await Promise.all(bystanders.map((b) => b.exited));
const afterAll = samples.at(-1);
server.kill('SIGTERM');
const exit = await serverExit;
const replay = spawnSync(opt.tandem, ['replay', record], { encoding: 'utf8', maxBuffer: 1 << 26 });

// ---- the report ----------------------------------------------------------------------------------
const windowS = opt['window-minutes'] * 60;
const gapRows = bystanders.map((b) => readFileSync(b.gaps, 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number)));
const quantile = (xs, q) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))];
};
const rows = [];
for (let w = 0; w * windowS < seconds; ++w) {
  const inWindow = samples.filter((x) => x.s > w * windowS && x.s <= (w + 1) * windowS);
  if (!inWindow.length) continue;
  const before = samples.filter((x) => x.s <= w * windowS).at(-1) ?? samples[0];
  const end = inWindow.at(-1);
  const gaps = gapRows.flatMap((rowsOf) => rowsOf.filter(([t]) => t / 1000 > w * windowS && t / 1000 <= (w + 1) * windowS).map(([, g]) => g));
  rows.push({
    window: `${w * opt['window-minutes']}-${(w + 1) * opt['window-minutes']} min`,
    rss: `${Math.min(...inWindow.map((x) => x.rss)).toFixed(1)}-${Math.max(...inWindow.map((x) => x.rss)).toFixed(1)}`,
    fds: `${Math.min(...inWindow.map((x) => x.fds))}-${Math.max(...inWindow.map((x) => x.fds))}`,
    connections: `${Math.min(...inWindow.map((x) => x.connections))}-${Math.max(...inWindow.map((x) => x.connections))}`,
    late: end.late - before.late,
    dropped: end.dropped - before.dropped,
    ticks: end.ticks - before.ticks,
    p99: quantile(gaps, 0.99).toFixed(1),
    max: Math.max(0, ...gaps).toFixed(1),
  });
}
console.log('\n| window | RSS MB (min-max) | descriptors | WebSockets | ticks | late ticks | dropped ticks | bystanders\' frame gap p99 ms | max ms |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.window} | ${r.rss} | ${r.fds} | ${r.connections} | ${r.ticks} | ${r.late} | ${r.dropped} | ${r.p99} | ${r.max} |`);

const allGaps = gapRows.flatMap((r) => r.map(([, g]) => g));
const lastWindow = samples.filter((x) => x.s >= seconds - windowS && x.s <= seconds + 1);
const rssGrowth = Math.max(...lastWindow.map((x) => x.rss)) - Math.max(...samples.filter((x) => x.s >= 60 && x.s <= 60 + windowS).map((x) => x.rss));
const verdicts = [
  [`the load generator kept every one of its 214 clients (exit ${code}${loadErr ? `: ${loadErr.trim()}` : ''})`, code === 0],
  [`every bystander stayed connected and verified with no mismatch (${bystanders.map((b) => `${b.from}: ${b.final?.verified_ticks} ticks, ${b.final?.mismatches} mismatches, open ${b.final?.open}`).join('; ')})`,
    bystanders.every((b) => b.final && b.final.open && b.final.mismatches === 0 && b.final.verified_ticks > 50 * seconds)],
  [`the recording replays: every recorded tick's digest agrees with a re-run (tandem replay exit ${replay.status}: ${(replay.stdout + replay.stderr).trim().split('\n').at(-1)})`, replay.status === 0],
  [`RSS did not grow: ${rssGrowth.toFixed(1)} MB from the first window after warm-up to the last (bound 8 MB)`, rssGrowth < 8],
  [`once the attackers and the load generator had gone, only the 2 bystanders were left: WebSockets ${afterAll.connections}, players ${afterAll.players}, watchers ${afterAll.watchers}, kept seats ${afterAll.held}, queued bytes ${afterAll.queued}`,
    afterAll.connections === 2 && afterAll.players === 2 && afterAll.watchers === 0 && afterAll.held === 0 && afterAll.queued === 0],
  [`descriptors back to the start's plus the bystanders' two and a kept-alive /metrics connection: ${afterAll.fds} now, ${descriptorsAtStart} at the start`, afterAll.fds <= descriptorsAtStart + 3],
  [`the server drained and exited 0 (${JSON.stringify(exit)})`, exit.code === 0],
];
console.log(`\nbystanders' frame gaps over the whole run: p99 ${quantile(allGaps, 0.99).toFixed(1)} ms, max ${Math.max(0, ...allGaps).toFixed(1)} ms (${allGaps.length} gaps)`);
console.log(`attacks run: ${JSON.stringify(counts)}`);
console.log(`load generator: ${loadOut.trim()}`);
console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
for (const [what, ok] of verdicts) console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
process.exit(verdicts.every(([, ok]) => ok) ? 0 : 1);
