"""An honest bot that thinks: each move burns about 40 ms of its own CPU time, then plays the
first legal move. Its stderr lists each move's wall time in ms (what the opponents cost it)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _play  # noqa: E402


def think() -> None:
    start, wall = time.process_time(), time.monotonic()
    while time.process_time() - start < 0.04:
        pass
    _play.say(f"thinker: {1000 * (time.monotonic() - wall):.0f}")



for message in _play._messages():
    kind = message.get("type")
    if kind == "hello":
        _play._send({"type": "ready", "name": "thinker", "version": "1"})
    elif kind == "act":
        think()
        _play._send({"type": "move", "index": 0})
    elif kind == "bye":
        break
