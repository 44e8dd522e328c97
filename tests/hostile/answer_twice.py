"""At its first move, answers twice: two legal `move` messages in one write."""
import os

import _play
import msgpack

for message in _play._messages():
    kind = message.get("type")
    if kind == "hello":
        _play._send({"type": "ready", "name": "answer_twice", "version": "1"})
    elif kind == "act":
        reply = msgpack.packb({"type": "move", "index": 0})
        os.write(1, reply + reply)
    elif kind == "bye":
        break
