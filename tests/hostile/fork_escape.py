"""At its first move, starts children meant to outlive it: one in a new session (setsid), one by
double fork; then plays on (or, with --exit, exits at once).

Says the pids of the escapees ("pids A B"). With --clean-env the escapees also drop the
environment they inherited (and with it the arena's tag), becoming plain `sleep` processes.
"""
import os
import signal
import sys
import time

import _play


def linger() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    os.closerange(0, 3)  # do not hold the arena's pipes open
    if "--clean-env" in sys.argv:
        os.execve("/bin/sleep", ["sleep", "3600"], {})
    while True:
        time.sleep(3600)


def escape() -> None:
    read_end, write_end = os.pipe()
    if os.fork() == 0:  # child 1: a new session, out of the bot's process group
        os.setsid()
        os.write(write_end, f"{os.getpid()} ".encode())
        linger()
    if os.fork() == 0:  # double fork: the grandchild is orphaned when the middle one exits
        os.setsid()
        if os.fork() == 0:
            os.write(write_end, f"{os.getpid()} ".encode())
            linger()
        os._exit(0)
    os.close(write_end)
    pids = b""
    while len(pids.split()) < 2:
        pids += os.read(read_end, 100)
    _play.say("pids " + pids.decode().strip())
    if "--exit" in sys.argv:
        os._exit(0)


_play.main(escape)
