"""Writes one file in its temp directory without bound (1 MiB at a time) at its first move,
then plays on; safety cap 1 GiB."""
import os

import _play


def write() -> None:
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "big")
    written = 0
    try:
        with open(path, "wb", buffering=0) as f:
            while written < 1 << 30:
                written += f.write(b"\0" * (1 << 20))
        _play.say(f"big_file: wrote {written} bytes, gave up")
    except OSError as exc:
        _play.say(f"big_file: stopped after {written} bytes ({exc})")


_play.main(write)
