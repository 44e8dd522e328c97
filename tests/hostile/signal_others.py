"""At its first move, tries to kill another process (argv[1]: a pid outside the bot) and its own
parent; plays on if it is still alive.

Never run it unsandboxed as root: it is harmless there only because it names its targets.
"""
import os
import signal
import sys

import _play


def strike() -> None:
    for pid in (int(sys.argv[1]), os.getppid()):
        try:
            os.kill(pid, signal.SIGKILL)
            _play.say(f"signal_others: killed {pid}")
        except OSError as exc:
            _play.say(f"signal_others: blocked {pid} ({exc})")


_play.main(strike)
