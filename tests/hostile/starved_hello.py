"""At `hello`, before its `ready`: moves to one CPU (its first argument) and wakes a CPU hog
that waits on the FIFO named by its second argument (the test's, pinned to that CPU at a higher
priority), then spins for 0.3 s of its own CPU time: a start-up the machine starves."""
import os
import sys
import time

import _play


def starve() -> None:
    os.sched_setaffinity(0, {int(sys.argv[1])})
    try:
        fifo = os.open(sys.argv[2], os.O_WRONLY | os.O_NONBLOCK)
        os.write(fifo, b"go")
        os.close(fifo)
    except OSError:
        pass
    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass


_play.main(starve, when="hello")
