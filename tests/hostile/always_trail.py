#!/usr/bin/env python3
"""Never captures: always the last legal move (a trail). Four of these crowd the table until
the captures on offer run into the hundreds of thousands, which the arena must survive.
Writes "cut N" to stderr for every act whose legal list was cut (legal_complete false)."""

import os
import sys

import msgpack

out = os.dup(1)
unpacker = msgpack.Unpacker(raw=False, max_buffer_size=64 << 20)
while data := os.read(0, 1 << 16):
    unpacker.feed(data)
    for message in unpacker:
        if message["type"] == "hello":
            os.write(out, msgpack.packb({"type": "ready", "name": "always-trail"}))
        elif message["type"] == "act":
            if not message["legal_complete"]:
                print(f"cut {len(message['legal'])}", file=sys.stderr, flush=True)
            os.write(out, msgpack.packb({"type": "move", "index": len(message["legal"]) - 1}))
        elif message["type"] == "bye":
            sys.exit(0)
