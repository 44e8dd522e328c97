"""Hostile text: announces a name and version full of terminal escapes (set the title, clear the
screen, forge a line), writes more to stderr, and plays a move whose card is an escape sequence.
Standalone (no faultkit), so that its stored copy runs in a tournament too."""

import os
import sys

import msgpack

NAME = "\x1b]0;pwned\x07evil\x1b[2J\rforged line\n"
VERSION = "1\x1b[31m\x9b2J"

unpacker = msgpack.Unpacker(raw=False)
while data := os.read(0, 65536):
    unpacker.feed(data)
    for message in unpacker:
        if message["type"] == "hello":
            sys.stderr.write("\x1b[2J\x1b[Hstderr forged\r\narena: all good\n")
            sys.stderr.flush()
            os.write(1, msgpack.packb({"type": "ready", "name": NAME, "version": VERSION}))
        elif message["type"] == "act":
            os.write(1, msgpack.packb({"type": "move", "move": {"type": "trail", "card": "\x1b[5m\x1b]2;x\x07"}}))
        elif message["type"] == "bye":
            sys.exit(0)
