"""Writes one file in its temp directory without bound (1 MiB at a time); safety cap 1 GiB."""
import os
import sys

path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "big")
written = 0
try:
    with open(path, "wb", buffering=0) as f:
        while written < 1 << 30:
            written += f.write(b"\0" * (1 << 20))
    print(f"big_file: wrote {written} bytes, gave up", file=sys.stderr)
except OSError as exc:
    print(f"big_file: stopped after {written} bytes ({exc})", file=sys.stderr)
    sys.exit(1)
