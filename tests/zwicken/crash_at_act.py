"""Answers hello, then dies at its first `act` without answering (exit status 3): a crash in the
middle of a Zwicken attempt. Self-contained (msgpack only): the arena runs it from a copy of this
file alone."""
import os
import sys

import msgpack

unpacker = msgpack.Unpacker(raw=False)
while data := os.read(0, 65536):
    unpacker.feed(data)
    for message in unpacker:
        if message["type"] == "hello":
            sys.stdout.buffer.write(msgpack.packb({"type": "ready", "name": "crash-at-act", "version": "1"}))
            sys.stdout.flush()
        elif message["type"] == "act":
            sys.stderr.write("crash-at-act: giving up at my first act\n")
            sys.exit(3)
        elif message["type"] == "bye":
            sys.exit(0)
