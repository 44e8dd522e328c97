"""Forks until refused at its first move (every child sleeps), then plays on. Safety cap: 2000."""
import os
import time

import _play


def bomb() -> None:
    count = 0
    try:
        while count < 2000:
            if os.fork() == 0:
                os.closerange(0, 3)
                time.sleep(3600)
                os._exit(0)
            count += 1
        _play.say(f"fork_bomb: forked {count}, gave up")
    except OSError as exc:
        _play.say(f"fork_bomb: refused after {count} forks ({exc})")


_play.main(bomb)
