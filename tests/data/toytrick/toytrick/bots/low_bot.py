"""Toy Trick: always the lowest card it may play (it asks the game's own package which is lowest)."""

import os
import random

import msgpack

import toytrick


def send(message):
    data = msgpack.packb(message, use_bin_type=True)
    while data:
        data = data[os.write(1, data):]


def main(pick):
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=64 * 1024 * 1024)
    rng = random.Random(0)
    while chunk := os.read(0, 65536):
        unpacker.feed(chunk)
        for message in unpacker:
            if message["type"] == "hello":
                rng.seed(message["seed"])
                send({"type": "ready", "name": os.path.basename(__file__).removesuffix(".py").removesuffix("_bot") or "toy", "version": "1", "games": ["toytrick"]})
            elif message["type"] == "act":
                cards = [m["card"] for m in message["legal"]]
                send({"type": "move", "index": cards.index(pick(cards, rng))})
            elif message["type"] == "bye":
                return


if __name__ == "__main__":
    main(lambda cards, rng: min(cards, key=toytrick.rank))
