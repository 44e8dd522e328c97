"""A minimal protocol loop for the misbehaving test bots: `serve(act)` answers hello, calls
`act(message, count)` for each act (it returns the bytes to write), and exits at bye."""

import os
import sys

import msgpack


def move(index):
    return msgpack.packb({"type": "move", "index": index})


def serve(act, hello=None):
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=64 << 20)
    count = 0
    while data := os.read(0, 65536):
        unpacker.feed(data)
        for message in unpacker:
            if message["type"] == "hello":
                reply = hello(message) if hello else msgpack.packb({"type": "ready", "name": "faulty"})
                os.write(1, reply)
            elif message["type"] == "act":
                count += 1
                os.write(1, act(message, count))
            elif message["type"] == "bye":
                sys.exit(0)
