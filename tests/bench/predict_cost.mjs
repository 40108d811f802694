// What prediction costs a page frame: a predicting ClientSession (wasm in Node) in a room of
// the default world (1,024 pellets), 50 ms each way, every player steering every tick, so every
// verified tick contradicts the prediction. Prints the per-frame CPU and wall time of the
// predicting session's advance + renderView (p50/p99 over the frames after the first 10 s),
// the depth reached and the prediction's own figures.
//   node tests/bench/predict_cost.mjs [SECONDS=40] [OTHERS=1] [PACKAGE=build/wasm/package]
// PACKAGE may be another checkout's build, to compare two versions in one sitting.
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [secondsText = '40', othersText = '1', pkg = path.join(root, 'build/wasm/package')] = process.argv.slice(2);
const seconds = Number(secondsText);
const others = Number(othersText);
if (!(seconds >= 15 && seconds <= 600) || !(Number.isInteger(others) && others >= 0 && others <= 15)) {
  console.error(`usage: node tests/bench/predict_cost.mjs [SECONDS in [15, 600]] [OTHERS in [0, 15]] [PACKAGE], got ${process.argv.slice(2).join(' ')}`);
  process.exit(2);
}
const { default: createTandem } = await import(pathToFileURL(path.join(path.resolve(pkg), 'tandem.node.mjs')).href);
const tandem = await createTandem();

const TICK_MS = 1000 / 60;
const ONE_WAY_MS = 50;
const room = new tandem.Room({});
const clients = [{ predict: true }, ...Array.from({ length: others }, () => ({}))].map((options) => ({
  session: new tandem.ClientSession({ nowMs: 0, ...options }), id: 0, up: [], down: [],
}));
let now = 0;
const ship = (c) => { for (const bytes of c.session.takeOutgoing()) c.up.push({ at: now + ONE_WAY_MS, bytes }); };
for (const c of clients) {
  c.id = room.connect(now);
  c.session.onConnected(now);
  ship(c);
}
const cpuMs = [];
const wallMs = [];
const depths = [];
const load = loadavg()[0];
for (let t = 0; t < 60 * seconds; ++t) {
  now += TICK_MS;
  for (const c of clients) while (c.up.length > 0 && c.up[0].at <= now) room.receive(c.id, c.up.shift().bytes, now);
  room.tick(now);
  for (const { to, bytes } of room.takeOutbox().sends) clients.find((c) => c.id === to).down.push({ at: now + ONE_WAY_MS, bytes });
  clients.forEach((c, k) => {
    while (c.down.length > 0 && c.down[0].at <= now) c.session.receive(c.down.shift().bytes, now);
    // Everybody steers every tick, each on its own circle.
    if (t > 120) c.session.steer(Math.round((500 + 300 * Math.cos(t / 40 + k)) * 65536), Math.round((500 + 300 * Math.sin(t / 40 + k)) * 65536), now);
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    c.session.advance(now, 8);
    if (k === 0) {
      c.session.renderView(now);
      const wall = performance.now() - wall0;
      const cpu = process.cpuUsage(cpu0);
      if (t >= 600) {
        cpuMs.push((cpu.user + cpu.system) / 1000);
        wallMs.push(wall);
        depths.push(c.session.figures().prediction.depthTicks);
      }
    }
    ship(c);
  });
}
const q = (a, x) => {
  const s = [...a].sort((u, v) => u - v);
  return s.length === 0 ? null : +s[Math.min(s.length - 1, Math.floor(s.length * x))].toFixed(2);
};
const f = clients[0].session.figures();
const p = f.prediction;
console.log(JSON.stringify({
  package: path.relative(process.cwd(), path.resolve(pkg)) || '.', seconds, others, loadAverageAtStart: +load.toFixed(2), loadAverageAtEnd: +loadavg()[0].toFixed(2),
  frames: cpuMs.length, cpuMsP50: q(cpuMs, 0.5), cpuMsP99: q(cpuMs, 0.99), wallMsP50: q(wallMs, 0.5), wallMsP99: q(wallMs, 0.99),
  depthP50: q(depths, 0.5), depthMin: Math.min(...depths), targetDepth: p.targetDepthTicks, stepCostMs: f.stepCostMs,
  rollbacksPerSec: p.rollbacksPerSec, resimTicksP99: p.resimTicksP99, resimMsP99: p.resimMsP99, budgetCuts: p.budgetCuts,
  rollbackUpdatesMax: p.rollbackUpdatesMax ?? null, monitorAlarms: p.monitorAlarms, mismatches: f.session.mismatches,
}));
for (const c of clients) c.session.delete();
room.delete();
