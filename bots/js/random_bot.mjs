// A uniformly random legal move, seeded from the arena's hello (see protocol.md).
// Run with `node random_bot.mjs`: nothing to install. The protocol needs only a small part of
// msgpack, so this file carries its own codec and answers from a plain blocking read loop (a
// library such as @msgpack/msgpack works just as well: see protocol.md, "Framing"). Node's own
// streams cost this bot 0.5 ms per move and 10 ms of start-up more than the loop below.
import { readSync, writeSync } from "node:fs";

// splitmix64 on BigInt: a small, well-known generator, so the bot replays identically.
const MASK = (1n << 64n) - 1n;
let state = 0n;
function next() {
  state = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}
function below(n) {  // uniform in 0..n-1 (the bias of a 64-bit modulus is negligible here)
  return Number(next() % BigInt(n));
}

// --- msgpack: decoding every format but extensions, encoding what the replies need ----------
class Incomplete extends Error {}  // the buffer ends inside a message: wait for more bytes

const utf8 = new TextDecoder();

function decodeAt(buf, view, pos) {  // returns [value, position after it]
  if (pos >= buf.length) throw new Incomplete();
  const b = buf[pos];
  const need = (n) => { if (pos + 1 + n > buf.length) throw new Incomplete(); };
  if (b <= 0x7f) return [b, pos + 1];
  if (b >= 0xe0) return [b - 0x100, pos + 1];
  if ((b & 0xf0) === 0x80) return decodeMap(buf, view, pos + 1, b & 0x0f);
  if ((b & 0xf0) === 0x90) return decodeArray(buf, view, pos + 1, b & 0x0f);
  if ((b & 0xe0) === 0xa0) return decodeBytes(buf, pos + 1, b & 0x1f, true);
  switch (b) {
    case 0xc0: return [null, pos + 1];
    case 0xc2: return [false, pos + 1];
    case 0xc3: return [true, pos + 1];
    case 0xc4: case 0xd9: need(1); return decodeBytes(buf, pos + 2, buf[pos + 1], b === 0xd9);
    case 0xc5: case 0xda: need(2); return decodeBytes(buf, pos + 3, view.getUint16(pos + 1), b === 0xda);
    case 0xc6: case 0xdb: need(4); return decodeBytes(buf, pos + 5, view.getUint32(pos + 1), b === 0xdb);
    case 0xca: need(4); return [view.getFloat32(pos + 1), pos + 5];
    case 0xcb: need(8); return [view.getFloat64(pos + 1), pos + 9];
    case 0xcc: need(1); return [buf[pos + 1], pos + 2];
    case 0xcd: need(2); return [view.getUint16(pos + 1), pos + 3];
    case 0xce: need(4); return [view.getUint32(pos + 1), pos + 5];
    case 0xcf: need(8); return [wide(view.getBigUint64(pos + 1)), pos + 9];
    case 0xd0: need(1); return [view.getInt8(pos + 1), pos + 2];
    case 0xd1: need(2); return [view.getInt16(pos + 1), pos + 3];
    case 0xd2: need(4); return [view.getInt32(pos + 1), pos + 5];
    case 0xd3: need(8); return [wide(view.getBigInt64(pos + 1)), pos + 9];
    case 0xdc: need(2); return decodeArray(buf, view, pos + 3, view.getUint16(pos + 1));
    case 0xdd: need(4); return decodeArray(buf, view, pos + 5, view.getUint32(pos + 1));
    case 0xde: need(2); return decodeMap(buf, view, pos + 3, view.getUint16(pos + 1));
    case 0xdf: need(4); return decodeMap(buf, view, pos + 5, view.getUint32(pos + 1));
  }
  throw new Error(`msgpack type 0x${b.toString(16)} is not part of the protocol`);
}

function wide(big) {  // a 64-bit integer: a Number when exact, else a BigInt (seeds)
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

function decodeBytes(buf, start, length, text) {
  if (start + length > buf.length) throw new Incomplete();
  const bytes = buf.subarray(start, start + length);
  return [text ? utf8.decode(bytes) : Uint8Array.from(bytes), start + length];
}

function decodeArray(buf, view, pos, length) {
  const out = new Array(length);
  for (let i = 0; i < length; i++) [out[i], pos] = decodeAt(buf, view, pos);
  return [out, pos];
}

function decodeMap(buf, view, pos, length) {
  const out = {};
  for (let i = 0; i < length; i++) {
    let key, value;
    [key, pos] = decodeAt(buf, view, pos);
    [value, pos] = decodeAt(buf, view, pos);
    out[key] = value;
  }
  return [out, pos];
}

function encode(value, out = []) {  // maps of strings and small non-negative integers
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new Error(`cannot encode ${value}`);
    if (value <= 0x7f) out.push(value);
    else if (value <= 0xffff) out.push(0xcd, value >> 8, value & 0xff);
    else out.push(0xce, value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff);
  } else if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    if (bytes.length <= 31) out.push(0xa0 | bytes.length);
    else if (bytes.length <= 0xff) out.push(0xd9, bytes.length);
    else out.push(0xda, bytes.length >> 8, bytes.length & 0xff);
    for (const byte of bytes) out.push(byte);
  } else {
    const entries = Object.entries(value);
    out.push(0x80 | entries.length);  // a reply has far fewer than 16 fields
    for (const [k, v] of entries) { encode(k, out); encode(v, out); }
  }
  return out;
}

function send(message) {
  const bytes = Buffer.from(encode(message));
  for (let done = 0; done < bytes.length;) done += writeSync(1, bytes, done);
}

// --- the protocol loop: blocking reads of stdin, one reply per hello and act ----------------
const pause = new Int32Array(new SharedArrayBuffer(4));

function* messages() {
  const chunk = Buffer.alloc(1 << 16);
  let pending = Buffer.alloc(0);
  for (;;) {
    let n;
    try {
      n = readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      Atomics.wait(pause, 0, 0, 1);  // stdin was left non-blocking: wait a millisecond, read again
      continue;
    }
    if (n === 0) return;  // end of input: the arena is done with us
    pending = pending.length ? Buffer.concat([pending, chunk.subarray(0, n)]) : Buffer.from(chunk.subarray(0, n));
    const view = new DataView(pending.buffer, pending.byteOffset, pending.length);
    let pos = 0;
    for (;;) {
      let message;
      try {
        [message, pos] = decodeAt(pending, view, pos);
      } catch (e) {
        if (e instanceof Incomplete) break;
        throw e;
      }
      yield message;
    }
    pending = pending.subarray(pos);
  }
}

for (const message of messages()) {
  if (message.type === "hello") {
    state = BigInt(message.seed) & MASK;
    send({ type: "ready", name: "random-js", version: "1" });
  } else if (message.type === "act") {
    send({ type: "move", index: below(message.legal.length) });
  } else if (message.type === "bye") {
    break;
  }
}
