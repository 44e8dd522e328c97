"""At its first move, tries to read a file outside its own folder (argv[1]: another bot's code,
the database...); plays on."""
import sys

import _play


def peek() -> None:
    try:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
        _play.say(f"read_file: read {len(data)} bytes: {data[:40]!r}")
    except OSError as exc:
        _play.say(f"read_file: blocked ({exc})")


_play.main(peek)
