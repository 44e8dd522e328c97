// A uniformly random legal move, seeded from the arena's hello (see protocol.md).
// Run with `node random_bot.mjs`; needs `npm ci` in this folder for @msgpack/msgpack.
import { decodeMultiStream, encode } from "@msgpack/msgpack";

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

function send(message) {
  process.stdout.write(encode(message));
}

for await (const message of decodeMultiStream(process.stdin, { useBigInt64: true })) {
  if (message.type === "hello") {
    state = BigInt(message.seed) & MASK;
    send({ type: "ready", name: "random-js", version: "1" });
  } else if (message.type === "act") {
    send({ type: "move", index: below(message.legal.length) });
  } else if (message.type === "bye") {
    break;
  }
}
