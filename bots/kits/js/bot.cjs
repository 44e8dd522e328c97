// A complete bot for every game the arena hosts, in Node.js with nothing to install.
//
// It plays a legal move chosen at random from the `act` message's `legal` list, with splitmix64
// seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put your strategy
// in `choose`. Run: `node bot.cjs`; register: arena bot add bots/kits/js/bot.cjs
// The file's second half is the arena's wire format with nothing to install (protocol.md
// sections 1 and 16): a msgpack decoder (every format but extensions, which the arena never
// sends), an encoder for what a bot sends, and the message stream on file descriptors 0 and 1,
// read with blocking readSync calls (a bot answers one message at a time: no event loop needed).
"use strict";
const { readSync, writeSync } = require("node:fs");

const NAME = "kit-js";
const MASK = (1n << 64n) - 1n;
let state = 0n;

function random64() {  // splitmix64
  state = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

// The index in `legal` of the move to play (the game's forms: its page, games/<game>/protocol.md).
function choose(observation, legal) {
  return Number(random64() % BigInt(legal.length));
}

function main() {
  for (const message of messages(0)) {
    if (message.type === "hello") {
      state = BigInt(message.seed) & MASK;
      console.error(`${NAME}: seat ${message.seat} of a ${message.game} table`);  // stderr is the log
      send(1, { type: "ready", name: NAME, version: "1" });
    } else if (message.type === "act") {
      send(1, { type: "move", index: choose(message.observation, message.legal) });
    } else if (message.type === "bye") {
      return;
    }  // "deal" and "deal_end" need no reply: read them here to keep track of a board.
  }
}

// --- msgpack ---------------------------------------------------------------------------------
const INCOMPLETE = new Error("the input ends inside a message");
const utf8 = new TextDecoder();

// One value of `buf` at `at.pos` (moved past it). 64-bit integers beyond 2^53 come as BigInt.
function unpack(buf, at) {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
  const take = (n) => {
    if (at.pos + n > buf.length) throw INCOMPLETE;
    at.pos += n;
    return at.pos - n;
  };
  const wide = (x) => (x >= Number.MIN_SAFE_INTEGER && x <= Number.MAX_SAFE_INTEGER ? Number(x) : x);
  const items = (n) => Array.from({ length: n }, () => value());
  const map = (n) => {
    const out = {};
    for (let i = 0; i < n; i++) out[value()] = value();
    return out;
  };
  const text = (n) => utf8.decode(buf.subarray(take(n), at.pos));
  const bytes = (n) => buf.slice(take(n), at.pos);
  function value() {
    const b = buf[take(1)];
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if (b <= 0x8f) return map(b & 0x0f);
    if (b <= 0x9f) return items(b & 0x0f);
    if (b <= 0xbf) return text(b & 0x1f);
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return bytes(view.getUint8(take(1)));
      case 0xc5: return bytes(view.getUint16(take(2)));
      case 0xc6: return bytes(view.getUint32(take(4)));
      case 0xca: return view.getFloat32(take(4));
      case 0xcb: return view.getFloat64(take(8));
      case 0xcc: return view.getUint8(take(1));
      case 0xcd: return view.getUint16(take(2));
      case 0xce: return view.getUint32(take(4));
      case 0xcf: return wide(view.getBigUint64(take(8)));
      case 0xd0: return view.getInt8(take(1));
      case 0xd1: return view.getInt16(take(2));
      case 0xd2: return view.getInt32(take(4));
      case 0xd3: return wide(view.getBigInt64(take(8)));
      case 0xd9: return text(view.getUint8(take(1)));
      case 0xda: return text(view.getUint16(take(2)));
      case 0xdb: return text(view.getUint32(take(4)));
      case 0xdc: return items(view.getUint16(take(2)));
      case 0xdd: return items(view.getUint32(take(4)));
      case 0xde: return map(view.getUint16(take(2)));
      case 0xdf: return map(view.getUint32(take(4)));
    }
    throw new Error(`msgpack type 0x${b.toString(16)} is not part of the protocol`);
  }
  return value();
}

// msgpack bytes of an object, array, string, integer, boolean or null (what a bot sends).
function pack(value, out = []) {
  const head = (type, n, width) => {
    out.push(type);
    for (let k = width - 1; k >= 0; k--) out.push(Number((BigInt(n) >> BigInt(8 * k)) & 0xffn));
  };
  if (value === null || value === undefined) out.push(0xc0);
  else if (typeof value === "boolean") out.push(value ? 0xc3 : 0xc2);
  else if (typeof value === "number" || typeof value === "bigint") {
    if (typeof value === "number" && !Number.isInteger(value)) throw new Error(`cannot send ${value}`);
    if (value >= -32 && value <= 127) out.push(Number(value) & 0xff);
    else head(0xd3, BigInt.asUintN(64, BigInt(value)), 8);
  } else if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    if (bytes.length < 32) out.push(0xa0 | bytes.length);
    else head(0xdb, bytes.length, 4);
    out.push(...bytes);
  } else if (Array.isArray(value)) {
    head(0xdd, value.length, 4);
    for (const item of value) pack(item, out);
  } else {
    const entries = Object.entries(value);
    head(0xdf, entries.length, 4);
    for (const [k, v] of entries) { pack(k, out); pack(v, out); }
  }
  return out;
}

// Each message as soon as its bytes are in; the generator ends with the input.
function* messages(fd = 0) {
  const chunk = Buffer.alloc(1 << 16);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let buf = Buffer.alloc(0);
  for (;;) {
    let n;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      Atomics.wait(pause, 0, 0, 1);  // stdin was left non-blocking: wait a millisecond, read again
      continue;
    }
    if (n === 0) return;
    buf = Buffer.concat([buf, chunk.subarray(0, n)]);
    const at = { pos: 0 };
    for (;;) {
      const start = at.pos;
      let message;
      try {
        message = unpack(buf, at);
      } catch (e) {
        if (e !== INCOMPLETE) throw e;
        at.pos = start;
        break;
      }
      yield message;
    }
    buf = buf.subarray(at.pos);
  }
}

// Write one message whole.
function send(fd, message) {
  const bytes = Buffer.from(pack(message));
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
}

main();
