"""Reads everything in its own folder (its working directory) but itself, and each path in
argv[1:], at `hello`, and says on stderr what it saw: another bot lying beside it, or files its
folder links to. Then plays index 0. One file (no _play.py): `arena play` runs it from a
private copy of that file alone.
"""
import os
import sys

import msgpack


def say(line: str) -> None:
    os.write(2, line.encode() + b"\n")


def send(message: dict) -> None:
    data = msgpack.packb(message)
    while data:
        data = data[os.write(1, data):]


def peek(path: str) -> None:
    try:
        if os.path.isdir(path):
            say(f"read_beside: {path}/ holds {sorted(os.listdir(path))}")
            return
        with open(path, "rb") as f:
            data = f.read(60)
        say(f"read_beside: read {path}: {data!r}")
    except OSError as exc:
        say(f"read_beside: {path} blocked ({exc.strerror})")


def look() -> None:
    me = os.path.basename(sys.argv[0])
    others = sorted(name for name in os.listdir(".") if name != me)
    say(f"read_beside: beside me {others}")
    for name in [*others, *sys.argv[1:]]:
        peek(name)


unpacker = msgpack.Unpacker(raw=False, max_buffer_size=64 << 20)
while data := os.read(0, 65536):
    unpacker.feed(data)
    for message in unpacker:
        if message["type"] == "hello":
            look()
            send({"type": "ready", "name": "read_beside", "version": "1"})
        elif message["type"] == "act":
            send({"type": "move", "index": 0})
        elif message["type"] == "bye":
            raise SystemExit(0)
