"""Lone Wolf: buries its lowest card, then plays its highest (it asks the game's own package for ranks)."""

import os
import random
import sys

import msgpack

import lonewolf


def send(message):
    data = msgpack.packb(message, use_bin_type=True)
    while data:
        data = data[os.write(1, data):]


def main(pick):
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=64 * 1024 * 1024)
    rng = random.Random(0)
    name = os.path.basename(sys.argv[0]).removesuffix(".py").removesuffix("_bot")
    while chunk := os.read(0, 65536):
        unpacker.feed(chunk)
        for message in unpacker:
            if message["type"] == "hello":
                rng.seed(message["seed"])
                send({"type": "ready", "name": name, "version": "1", "games": ["lonewolf"]})
            elif message["type"] == "act":
                legal = message["legal"]
                send({"type": "move", "index": pick(legal, message["observation"], rng)})
            elif message["type"] == "bye":
                return


def greedy(legal, observation, rng):
    ranks = [lonewolf.rank(m["card"]) + (10 if lonewolf.suit(m["card"]) == observation["trump"] else 0)
             for m in legal]
    best = min(ranks) if legal[0]["type"] == "bury" else max(ranks)
    return ranks.index(best)


if __name__ == "__main__":
    main(greedy)
