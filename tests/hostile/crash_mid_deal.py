"""Plays its first move, then at its second `act` dies without answering: exit status 3, or
with --signal killed by SIGSEGV (as a bot with a native crash would be).

With `--deal K` it plays every deal before the table's deal number K cleanly and dies in deal K
(e.g. in the second board of a tournament room).
"""
import os
import signal
import sys

import _play

fatal_deal = int(sys.argv[sys.argv.index("--deal") + 1]) if "--deal" in sys.argv else 0
acts = 0
for message in _play._messages():
    kind = message.get("type")
    if kind == "hello":
        _play._send({"type": "ready", "name": "crash_mid_deal", "version": "1"})
    elif kind == "act":
        acts += message["number"] == fatal_deal
        if acts == 2:
            _play.say(f"crash_mid_deal: giving up in the middle of deal {fatal_deal}")
            if "--signal" in sys.argv:
                os.kill(os.getpid(), signal.SIGSEGV)
            sys.exit(3)
        _play._send({"type": "move", "index": 0})
    elif kind == "bye":
        break
