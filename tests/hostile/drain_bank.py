"""Answers every move OVER ms (argv[1], default 200) after the move limit, so each reply draws
on its time bank until the bank runs dry; says on stderr the bank each `act` offered."""
import sys
import time

import _play

over = int(sys.argv[1]) / 1000 if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0.2
for message in _play._messages():
    kind = message.get("type")
    if kind == "hello":
        _play._send({"type": "ready", "name": "drain_bank", "version": "1"})
    elif kind == "act":
        clock = message["time"]
        _play.say(f"drain_bank: bank_ms {clock['bank_ms']}")
        time.sleep(clock["move_ms"] / 1000 + over)
        _play._send({"type": "move", "index": 0})
    elif kind == "bye":
        break
