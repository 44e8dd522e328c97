"""Lone Wolf: buries and plays its lowest card."""

import os

import msgpack

import lonewolf


def send(message):
    data = msgpack.packb(message, use_bin_type=True)
    while data:
        data = data[os.write(1, data):]


def main():
    unpacker = msgpack.Unpacker(raw=False)
    while chunk := os.read(0, 65536):
        unpacker.feed(chunk)
        for message in unpacker:
            if message["type"] == "hello":
                send({"type": "ready", "name": "timid", "games": ["lonewolf"]})
            elif message["type"] == "act":
                ranks = [lonewolf.rank(m["card"]) for m in message["legal"]]
                send({"type": "move", "index": ranks.index(min(ranks))})
            elif message["type"] == "bye":
                return


if __name__ == "__main__":
    main()
