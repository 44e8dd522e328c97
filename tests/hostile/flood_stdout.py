"""Writes to stdout without end, never reading its input."""
import os

chunk = b"\xc1" * 65536  # 0xc1 is never valid msgpack
while True:
    os.write(1, chunk)
