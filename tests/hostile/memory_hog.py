"""Allocates memory without bound (16 MiB at a time, touched), stopping only at a MemoryError.

A safety cap at 8 GiB keeps a wrongly unsandboxed run from taking the machine down.
"""
import sys

chunks = []
try:
    while len(chunks) < 512:
        chunks.append(bytearray(16 << 20))
    print("memory_hog: got 8 GiB, gave up", file=sys.stderr)
except MemoryError:
    print(f"memory_hog: MemoryError after {len(chunks) * 16} MiB", file=sys.stderr)
    raise
