"""Allocates memory without bound at its first move (16 MiB at a time), until a MemoryError.

A safety cap at 8 GiB keeps a wrongly unsandboxed run from taking the machine down.
"""
import _play


def hog() -> None:
    chunks = []
    try:
        while len(chunks) < 512:
            chunks.append(bytearray(16 << 20))
        _play.say("memory_hog: got 8 GiB, gave up")
    except MemoryError:
        _play.say(f"memory_hog: MemoryError after {len(chunks) * 16} MiB")
        raise


_play.main(hog)
