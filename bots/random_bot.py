#!/usr/bin/env python3
"""The arena's random bot: a uniformly random legal move of any game, from the list every `act`
carries. `arena bot check` seats it beside the bot checked, and it anchors a tournament's ratings
where the game names no anchor of its own. It needs only `msgpack`, and replays like botkit's
bots: seeded from `hello`, and at each board's first deal from that seed and the board's name.
"""

import os
import random

import msgpack

MAX_MESSAGE = 64 * 1024 * 1024  # the arena's largest message (protocol.md)


def send(message):
    data = msgpack.packb(message, use_bin_type=True)
    while data:
        data = data[os.write(1, data):]


def main():
    rng = random.Random(0)
    seed = None
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_MESSAGE)
    while chunk := os.read(0, 65536):  # the raw fd, never sys.stdin.buffer (protocol.md section 10)
        unpacker.feed(chunk)
        for message in unpacker:
            kind = message.get("type")
            if kind == "act":
                send({"type": "move", "index": rng.randrange(len(message["legal"]))})
            elif kind == "hello":
                seed = message.get("seed")
                rng.seed(seed)
                send({"type": "ready", "name": "random", "version": "1"})
            elif kind == "deal" and message.get("board_deal") == 0 and "board" in message:
                board, room = str(message["board"]), str(message.get("room", ""))
                rng.seed(f"{seed}{board.removeprefix(room)}")
            elif kind == "bye":
                return


if __name__ == "__main__":
    main()
