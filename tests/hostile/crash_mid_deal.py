"""Plays its first move, then at its second `act` dies without answering: exit status 3, or
with --signal killed by SIGSEGV (as a bot with a native crash would be)."""
import os
import signal
import sys

import _play

acts = 0
for message in _play._messages():
    kind = message.get("type")
    if kind == "hello":
        _play._send({"type": "ready", "name": "crash_mid_deal", "version": "1"})
    elif kind == "act":
        acts += 1
        if acts == 2:
            _play.say("crash_mid_deal: giving up in the middle of the deal")
            if "--signal" in sys.argv:
                os.kill(os.getpid(), signal.SIGSEGV)
            sys.exit(3)
        _play._send({"type": "move", "index": 0})
    elif kind == "bye":
        break
