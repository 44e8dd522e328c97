"""Tries to kill another process (argv[1]: a pid outside the bot), and its own parent.

Never run it unsandboxed as root: it is harmless there only because it names its targets.
"""
import os
import signal
import sys

for pid in (int(sys.argv[1]), os.getppid()):
    try:
        os.kill(pid, signal.SIGKILL)
        print(f"signal_others: killed {pid}", file=sys.stderr)
    except OSError as exc:
        print(f"signal_others: blocked {pid} ({exc})", file=sys.stderr)
