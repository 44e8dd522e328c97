"""Forks until refused; every child sleeps. Safety cap: 2000 processes."""
import os
import sys
import time

count = 0
try:
    while count < 2000:
        if os.fork() == 0:
            os.closerange(0, 3)
            time.sleep(3600)
            os._exit(0)
        count += 1
    print(f"fork_bomb: forked {count}, gave up", file=sys.stderr)
except OSError as exc:
    print(f"fork_bomb: refused after {count} forks ({exc})", file=sys.stderr)
sys.stderr.flush()
os.write(1, b"done\n")
while os.read(0, 65536):
    pass
