// A uniformly random legal move, seeded from the arena's hello (see protocol.md).
// Run with `node random_bot.cjs`: nothing to install. The protocol needs only a small part of
// msgpack, so this file carries its own codec and answers from a plain blocking read loop (a
// library such as @msgpack/msgpack works just as well: see protocol.md, "Framing"). A bot
// process lives for one match, about a hundred moves, so start-up counts: measured over a
// tournament room's 8 deals in the fork sandbox, this script took about 65 ms of CPU where the
// same bot as an ES module reading through node's streams and @msgpack/msgpack took 120; since
// it steps over the parts of a message it does not use, 36 instead of 43 unsandboxed (node
// itself takes 23 of them to start).
const { readSync, writeSync } = require("node:fs");

// V8's optimising compiler pays off over thousands of calls; this process answers about a
// hundred acts, and compiling its hot functions on a worker thread cost more CPU than it saved
// (a room of four such bots: 7% less CPU without it, replies 15-30% faster). Node prints one
// line on stderr and carries on if a later V8 no longer knows the flag.
require("node:v8").setFlagsFromString("--no-turbofan");

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
// A bot process lives for one match (a hundred moves or so), so this code mostly runs before
// node's compiler has optimised it: it keeps its place in module variables and reads short
// ASCII strings (card codes, keys) byte by byte, which costs far less than the general paths.
const INCOMPLETE = Symbol("the input ends inside a message: wait for more bytes");
const utf8 = new TextDecoder();
let buf = Buffer.alloc(0);
let view = new DataView(buf.buffer);
let pos = 0;

function take(n) {  // the position of the next n bytes, which must all be there
  if (pos + n > buf.length) throw INCOMPLETE;
  const at = pos;
  pos += n;
  return at;
}

function read() {
  const b = buf[take(1)];
  if (b <= 0x7f) return b;
  if (b >= 0xe0) return b - 0x100;
  if ((b & 0xf0) === 0x80) return readMap(b & 0x0f);
  if ((b & 0xf0) === 0x90) return readArray(b & 0x0f);
  if ((b & 0xe0) === 0xa0) return readText(b & 0x1f);
  switch (b) {
    case 0xc0: return null;
    case 0xc2: return false;
    case 0xc3: return true;
    case 0xc4: return readBytes(buf[take(1)]);
    case 0xc5: return readBytes(view.getUint16(take(2)));
    case 0xc6: return readBytes(view.getUint32(take(4)));
    case 0xca: return view.getFloat32(take(4));
    case 0xcb: return view.getFloat64(take(8));
    case 0xcc: return buf[take(1)];
    case 0xcd: return view.getUint16(take(2));
    case 0xce: return view.getUint32(take(4));
    case 0xcf: return wide(view.getBigUint64(take(8)));
    case 0xd0: return view.getInt8(take(1));
    case 0xd1: return view.getInt16(take(2));
    case 0xd2: return view.getInt32(take(4));
    case 0xd3: return wide(view.getBigInt64(take(8)));
    case 0xd9: return readText(buf[take(1)]);
    case 0xda: return readText(view.getUint16(take(2)));
    case 0xdb: return readText(view.getUint32(take(4)));
    case 0xdc: return readArray(view.getUint16(take(2)));
    case 0xdd: return readArray(view.getUint32(take(4)));
    case 0xde: return readMap(view.getUint16(take(2)));
    case 0xdf: return readMap(view.getUint32(take(4)));
  }
  throw new Error(`msgpack type 0x${b.toString(16)} is not part of the protocol`);
}

function wide(big) {  // a 64-bit integer: a Number when exact, else a BigInt (seeds)
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

function readText(n) {
  const at = take(n);
  if (n > 16) return utf8.decode(buf.subarray(at, at + n));
  let text = "";
  for (let i = at; i < at + n; i++) {
    if (buf[i] > 0x7f) return utf8.decode(buf.subarray(at, at + n));
    text += String.fromCharCode(buf[i]);
  }
  return text;
}

function readBytes(n) {
  const at = take(n);
  return Uint8Array.prototype.slice.call(buf, at, at + n);
}

function readArray(n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = read();
  return out;
}

function readMap(n) {
  const out = {};
  for (let i = 0; i < n; i++) {
    const key = read();
    out[key] = read();
  }
  return out;
}

// What a random bot never looks at is stepped over, not built: the bytes of such a value are
// walked (strings skipped by their length), which costs a fraction of decoding it. An act's
// `observation` carries the deal's whole move list so far; `legal` only needs its length.
function skip() {
  const b = buf[take(1)];
  if (b <= 0x7f || b >= 0xe0) return;
  if ((b & 0xf0) === 0x80) return skipItems(2 * (b & 0x0f));
  if ((b & 0xf0) === 0x90) return skipItems(b & 0x0f);
  if ((b & 0xe0) === 0xa0) { take(b & 0x1f); return; }
  switch (b) {
    case 0xc0: case 0xc2: case 0xc3: return;
    case 0xc4: case 0xd9: take(buf[take(1)]); return;
    case 0xc5: case 0xda: take(view.getUint16(take(2))); return;
    case 0xc6: case 0xdb: take(view.getUint32(take(4))); return;
    case 0xcc: case 0xd0: take(1); return;
    case 0xcd: case 0xd1: take(2); return;
    case 0xca: case 0xce: case 0xd2: take(4); return;
    case 0xcb: case 0xcf: case 0xd3: take(8); return;
    case 0xdc: return skipItems(view.getUint16(take(2)));
    case 0xdd: return skipItems(view.getUint32(take(4)));
    case 0xde: return skipItems(2 * view.getUint16(take(2)));
    case 0xdf: return skipItems(2 * view.getUint32(take(4)));
  }
  throw new Error(`msgpack type 0x${b.toString(16)} is not part of the protocol`);
}

function skipItems(n) {
  for (let i = 0; i < n; i++) skip();
}

function readLength(array) {  // an array's or a map's header: its number of items
  const b = buf[take(1)];
  if (array && (b & 0xf0) === 0x90) return b & 0x0f;
  if (!array && (b & 0xf0) === 0x80) return b & 0x0f;
  if (b === (array ? 0xdc : 0xde)) return view.getUint16(take(2));
  if (b === (array ? 0xdd : 0xdf)) return view.getUint32(take(4));
  throw new Error(`expected ${array ? "an array" : "a map"}, got msgpack type 0x${b.toString(16)}`);
}

// One message: its top-level fields, but the bulky ones stepped over and `legal` as its length.
const STEP_OVER = new Set(["observation", "variant", "moves", "breakdown"]);
function readMessage() {
  const fields = readLength(false);
  const out = {};
  for (let i = 0; i < fields; i++) {
    const key = read();
    if (key === "legal") {
      const n = readLength(true);
      skipItems(n);
      out.legal = n;
    } else if (STEP_OVER.has(key)) {
      skip();
    } else {
      out[key] = read();
    }
  }
  return out;
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
    buf = pos < buf.length ? Buffer.concat([buf.subarray(pos), chunk.subarray(0, n)]) : Buffer.from(chunk.subarray(0, n));
    view = new DataView(buf.buffer, buf.byteOffset, buf.length);
    pos = 0;
    for (;;) {
      const start = pos;
      let message;
      try {
        message = readMessage();
      } catch (e) {
        if (e !== INCOMPLETE) throw e;
        pos = start;  // read this message again when more bytes have come
        break;
      }
      yield message;
    }
  }
}

for (const message of messages()) {
  if (message.type === "hello") {
    state = BigInt(message.seed) & MASK;
    send({ type: "ready", name: "random-js", version: "1" });
  } else if (message.type === "act") {
    send({ type: "move", index: below(message.legal) });
  } else if (message.type === "bye") {
    break;
  }
}
