"""Plays the first legal move and tells on stderr, one JSON line each, what every message it is
sent holds of games/zwicken/protocol.md (kept short: the table keeps a bounded stderr). Self-contained."""
import json
import os
import sys

import msgpack


def tell(**fields):
    sys.stderr.write(json.dumps(fields, sort_keys=True) + "\n")
    sys.stderr.flush()


def send(message):
    sys.stdout.buffer.write(msgpack.packb(message))
    sys.stdout.flush()


unpacker = msgpack.Unpacker(raw=False)
while data := os.read(0, 65536):
    unpacker.feed(data)
    for m in unpacker:
        kind = m["type"]
        if kind == "hello":
            tell(type=kind, game=m.get("game"), seat=m["seat"], side=m["side"], partners=m["partners"],
                 variant_game=m["variant"].get("game"), players=m["variant"].get("players"))
            send({"type": "ready", "name": "tell", "version": "1"})
        elif kind == "deal":
            o = m["observation"]
            tell(type=kind, number=m["number"], board_deal=m.get("board_deal"), seat=o.get("seat"),
                 hand=len(o.get("hand", [])))
        elif kind == "act":
            tell(type=kind, number=m["number"], legal=[x["type"] for x in m["legal"]],
                 seat=m["observation"].get("seat"))
            send({"type": "move", "index": 0})
        elif kind == "deal_end":
            b = m["breakdown"]
            tell(type=kind, number=m["number"], points=m["points"], net=b.get("net"))
        elif kind == "bye":
            sys.exit(0)
