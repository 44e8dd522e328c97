"""Ignores SIGTERM, SIGHUP and SIGINT, plays normally, and never exits after `bye` or end of input."""
import signal
import time

import _play


def ignore() -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)


def linger() -> None:
    while True:
        time.sleep(3600)


_play.main(ignore, when="hello", after_bye=linger)
