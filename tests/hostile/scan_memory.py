"""Looks through its own memory for what other bots were started with. Raw mode only.

    hold MARK     wait until stdin ends (a bot started with MARK on its command line)
    scan          read all its own anonymous memory (heap, stack, mappings) and say each
                  "zwicker-marker-<hex>" it finds there, and each arena tag (ZWICKER_ARENA_BOT=...)
                  that is not its own: "found <text>", then "done"
In the fork sandbox a Python bot is a copy of the fork server's memory: whatever the server
still held of the bots started before it would be there.
"""
import ctypes
import os
import re
import sys

PREFIX = b"zwicker-" + b"marker-"  # (split, so that this constant is no find)


def scan():
    own = os.environ.get("ZWICKER_ARENA_BOT", "").encode()
    found = set()
    pattern = re.compile(re.escape(PREFIX) + rb"[0-9a-f]{16}|ZWICKER_ARENA_BOT(?:=|\": \")[\w./-]+")
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        start, end = (int(x, 16) for x in fields[0].split("-"))
        # Its own readable memory that is no file's (a file's page past its end would be SIGBUS):
        # the heap, the stack and anonymous mappings, where a freed request would lie.
        if "r" not in fields[1] or (len(fields) > 5 and fields[5] not in ("[heap]", "[stack]")):
            continue
        data = ctypes.string_at(start, end - start)
        for match in pattern.finditer(data):
                text = match.group()
                if not text.endswith(own):
                    found.add(text.decode(errors="replace"))
    for text in sorted(found):
        print("found", text, flush=True)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--raw"]
    if args[0] == "hold":
        print("holding", flush=True)
        sys.stdin.read()
    else:
        scan()
    print("done", flush=True)
