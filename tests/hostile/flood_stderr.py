"""Writes 20 MB to stderr at its first move (never reading meanwhile), then plays on."""
import os

import _play


def flood() -> None:
    line = b"x" * 1023 + b"\n"
    for _ in range(20 * 1024):
        os.write(2, line)
    os.write(2, b"flood_stderr: the end\n")


_play.main(flood)
