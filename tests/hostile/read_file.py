"""Tries to read a file outside its own folder (argv[1]: another bot's code, the database...)."""
import sys

try:
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    print(f"read_file: read {len(data)} bytes: {data[:40]!r}", file=sys.stderr)
except OSError as exc:
    print(f"read_file: blocked ({exc})", file=sys.stderr)
