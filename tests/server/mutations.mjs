// The mutation fuzzer's parts (tests/server/fuzz.test.mjs, and the soak's hostile mix in
// tests/load/soak.mjs): a seeded generator, valid client messages written from the protocol's
// layout (wire.mjs), and their mutations at the payload and at the frame level. Nothing here
// judges; the callers do.
import { rawWebSocket, sleep } from './support.mjs';
import { hello, input, ack, ping, desync } from './wire.mjs';

// xorshift32: the same seed, the same clients (the timing of a run still differs).
export function rng(s) {
  let x = (s >>> 0) || 1;
  const next = () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
  return {
    next,
    below: (n) => next() % n,
    chance: (p) => next() / 2 ** 32 < p,
    bytes: (n) => Buffer.from(Array.from({ length: n }, () => next() & 0xff)),
  };
}

export function validMessage(r) {
  switch (r.below(7)) {
    case 0: return hello({ role: r.below(2), token: r.chance(0.2) ? r.bytes(16) : null });
    case 1: return input(r.next(), r.next() | 0, r.next() | 0);
    case 2: return ack(r.chance(0.5) ? null : r.below(2000), BigInt(r.next()));
    case 3: return ping(BigInt(r.next()));
    case 4: return desync(r.below(2000), Array.from({ length: r.below(17) }, () => r.next()));
    case 5: return hello({ role: r.below(2), ticket: r.bytes(r.below(200)) });
    default: return hello({ role: 1 });
  }
}

export function mutatePayload(r, m) {
  const b = Buffer.from(m);
  switch (r.below(7)) {
    case 0: for (let k = 1 + r.below(4); k > 0 && b.length; --k) b[r.below(b.length)] ^= 1 << r.below(8); return b;
    case 1: if (b.length) b[r.below(b.length)] = r.next() & 0xff; return b;
    case 2: return b.subarray(0, r.below(b.length + 1));
    case 3: return Buffer.concat([b, r.bytes(1 + r.below(40))]);
    case 4: return Buffer.concat([b, validMessage(r)]);
    case 5: if (b.length) b[0] = r.next() & 0xff; return b;
    default: return r.bytes(r.below(300));
  }
}

// One frame's bytes: opcode, FIN, RSV, mask and length as given (the length may lie).
export function frameBytes(r, opcode, payload, { fin = true, rsv = 0, mask = true, length } = {}) {
  const len = length ?? payload.length;
  const head = [(fin ? 0x80 : 0) | (rsv << 4) | opcode];
  const m = mask ? 0x80 : 0;
  if (len < 126) head.push(m | len);
  else if (len < 65536) head.push(m | 126, len >> 8, len & 0xff);
  else { const l = Buffer.alloc(8); l.writeBigUInt64BE(BigInt(len)); head.push(m | 127, ...l); }
  if (!mask) return Buffer.concat([Buffer.from(head), payload]);
  const key = r.bytes(4);
  return Buffer.concat([Buffer.from(head), key, Buffer.from(payload.map((x, i) => x ^ key[i % 4]))]);
}

export function framed(r, payload) {
  if (!r.chance(0.35)) return frameBytes(r, 2, payload);
  switch (r.below(9)) {
    case 0: return frameBytes(r, r.below(16), payload);
    case 1: {   // FIN=0 pieces, their continuations sometimes wrong
      const cut = r.below(payload.length + 1);
      return Buffer.concat([frameBytes(r, 2, payload.subarray(0, cut), { fin: false }),
        frameBytes(r, r.chance(0.7) ? 0 : r.below(16), payload.subarray(cut), { fin: r.chance(0.8) })]);
    }
    case 2: return frameBytes(r, 2, payload, { rsv: 1 + r.below(7) });
    case 3: return frameBytes(r, 2, payload, { mask: false });
    case 4: return frameBytes(r, 2, payload, { length: r.chance(0.5) ? r.below(payload.length + 1) : payload.length + 1 + r.below(3000) });
    case 5: return frameBytes(r, 9 + r.below(2), r.bytes(r.chance(0.8) ? r.below(126) : 126 + r.below(200)));   // ping or pong
    case 6: {   // a close with any code and reason
      const p = Buffer.alloc(2 + r.below(20));
      p.writeUInt16BE(r.next() & 0xffff, 0);
      return frameBytes(r, 8, p);
    }
    case 7: return frameBytes(r, 0, payload);   // a stray continuation
    default: return Buffer.concat([frameBytes(r, 9, Buffer.alloc(0)), frameBytes(r, 2, payload)]);
  }
}


// One connection from a random loopback address (127.0.1.x) that sends a few valid, mutated
// or misframed messages, reads or not, and ends one way or another; `seen` counts what came
// of it (connections, refusals at the door, the close codes the server sent).
export async function mutantClient(port, r, until, seen) {
  const from = `127.0.1.${1 + r.below(40)}`;
  let c;
  try {
    c = await rawWebSocket(port, { localAddress: from, pipelined: r.chance(0.1) ? framed(r, mutatePayload(r, validMessage(r))) : undefined });
  } catch {
    seen.refusedAtDoor += 1;   // a budget answered 503, or the socket closed first
    return;
  }
  if (c.status !== 101) {
    seen.refusedAtDoor += 1;
    c.destroy();
    return;
  }
  if (r.chance(0.3)) c.socket.pause();   // never reads
  const steps = 1 + r.below(30);
  for (let i = 0; i < steps && Date.now() < until && !c.socket.destroyed; ++i) {
    const valid = validMessage(r);
    const payload = r.chance(0.5) ? mutatePayload(r, valid) : valid;
    const bytes = framed(r, payload);
    if (r.chance(0.2)) {   // split across writes
      const cut = r.below(bytes.length + 1);
      c.socket.write(bytes.subarray(0, cut));
      await sleep(r.below(15));
      c.socket.write(bytes.subarray(cut));
    } else {
      c.socket.write(bytes);
    }
    if (r.chance(0.4)) await sleep(r.below(25));
  }
  switch (r.below(4)) {
    case 0: c.send(8, Buffer.from([0x03, 0xe8])); await c.ended(1500); break;
    case 1: break;                                       // hang up at once
    case 2: c.socket.end(); await c.ended(1500); break;  // half-close
    default: await sleep(r.below(1500)); break;          // silence, then hang up
  }
  const close = c.frames().find((f) => f.opcode === 8);
  if (close) {
    const code = close.payload.length >= 2 ? close.payload.readUInt16BE(0) : 1005;
    seen.closeCodes[code] = (seen.closeCodes[code] ?? 0) + 1;
  }
  seen.connections += 1;
  c.destroy();
}

