// A mutation fuzzer from outside: many connections at once, from many loopback addresses, each
// saying valid things (a hello, inputs, acks, pings, desync reports, written from the protocol's
// layout by tests/server/wire.mjs) mutated at the payload level (bits flipped, bytes set, cut,
// extended, spliced, the type changed) and at the frame level (another opcode, FIN=0 pieces and
// stray continuations, reserved bits, no mask, a length that lies, oversized control frames,
// split across writes, pings, pongs and closes with any code), sometimes reading, sometimes not,
// and ending by a close, a hang-up, a half-close or silence. Against the arena's real room in the
// build TANDEM_TEST_SERVER names (ASan in the default run), beside a verifying bystander player.
// Afterwards nothing may be left: the connection, player, watcher, kept-seat and write-queue
// gauges back to the bystander's alone, the process's descriptors back to where they were, the
// server alive and healthy, the bystander connected, verifying and never starved of frames.
//
// It runs TANDEM_FUZZ_SECONDS (default 20) with TANDEM_FUZZ_SEED (default: the clock, printed);
// a longer run:  TANDEM_FUZZ_SECONDS=600 build-scripts/fuzz-sockets
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { startArena, startBystander, assertBystanderFine, waitForMetrics, rawHttp, sleep } from './support.mjs';
import { rng, mutantClient } from './mutations.mjs';

const seconds = Number(process.env.TANDEM_FUZZ_SECONDS ?? 20);
const seed = Number(process.env.TANDEM_FUZZ_SEED ?? (Date.now() % 2 ** 31));
const concurrency = Number(process.env.TANDEM_FUZZ_CONNECTIONS ?? 6);

const openDescriptors = (pid) => readdirSync(`/proc/${pid}/fd`).length;

test(`mutated messages and frames from many connections for ${seconds} s leave no session behind, the server up and the bystander playing (seed ${seed})`,
  { timeout: (seconds + 120) * 1000 }, async () => {
    console.log(`# fuzz seed ${seed}, ${seconds} s, ${concurrency} connections at once (TANDEM_FUZZ_SEED=${seed} repeats the clients)`);
    const server = await startArena({ fixture: ['--close-ms', '300'], serve: ['--resume-grace', '1', '--max-players', '16'] });
    const player = await startBystander(server.port);
    try {
      // After a first scrape: its kept-alive connection is then counted on both sides.
      await waitForMetrics(server.port, () => true, 0);
      const descriptorsBefore = openDescriptors(server.child.pid);
      const seen = { connections: 0, refusedAtDoor: 0, closeCodes: {} };
      const until = Date.now() + seconds * 1000;
      const master = rng(seed);
      await Promise.all(Array.from({ length: concurrency }, async (_, lane) => {
        const r = rng(master.next() ^ lane);
        while (Date.now() < until) await mutantClient(server.port, r, until, seen);
      }));
      console.log(`# ${seen.connections} connections, ${seen.refusedAtDoor} refused at the door; close codes ${JSON.stringify(seen.closeCodes)}`);
      assert.ok(seen.connections > seconds * 5, `only ${seen.connections} connections were made`);
      assert.equal(server.child.exitCode, null, `the server died: ${server.output().stderr.slice(-2000)}`);
      // Every session ends within the close deadline, kept seats within their grace.
      const values = await waitForMetrics(server.port, (v) => v.tandem_ws_connections === 1 && v.tandem_room_players === 1 &&
        v.tandem_room_watchers === 0 && v.tandem_room_held_seats === 0 && v.tandem_ws_write_queue_bytes === 0, 8000);
      assert.deepEqual(
        { connections: values.tandem_ws_connections, players: values.tandem_room_players, watchers: values.tandem_room_watchers,
          held: values.tandem_room_held_seats, queued: values.tandem_ws_write_queue_bytes },
        { connections: 1, players: 1, watchers: 0, held: 0, queued: 0 }, 'a session was left behind');
      // The descriptors the fuzzing opened are all closed (the /metrics scrapes' come and go).
      let descriptors = openDescriptors(server.child.pid);
      for (let w = 0; w < 40 && descriptors > descriptorsBefore; ++w) { await sleep(50); descriptors = openDescriptors(server.child.pid); }
      assert.ok(descriptors <= descriptorsBefore, `descriptors ${descriptorsBefore} before, ${descriptors} after`);
      const health = await rawHttp(server.port, '/healthz');
      assert.equal(health.status, 200, `healthz ${health.status} ${health.body}`);
      assertBystanderFine(await player.finish(), assert);
    } finally {
      await player.finish().catch(() => {});
      assert.equal((await server.stop()).code, 0, server.output().stderr.slice(-2000));
    }
  });
