"""At its first move, moves to one CPU (its first argument) and wakes a CPU hog that waits on
the FIFO named by its second argument (the test's, pinned to that CPU at a higher priority; no
hog listening: it is awake already), then spins for 30 ms of its own CPU time before
answering: a bot the machine starves. A third argument: a file it notes each start in."""
import os
import sys
import time

import _play

if len(sys.argv) > 3:
    with open(sys.argv[3], "a") as f:
        f.write("started\n")


def starve() -> None:
    os.sched_setaffinity(0, {int(sys.argv[1])})
    try:
        fifo = os.open(sys.argv[2], os.O_WRONLY | os.O_NONBLOCK)
        os.write(fifo, b"go")
        os.close(fifo)
    except OSError:
        pass
    start = time.process_time()
    while time.process_time() - start < 0.03:
        pass


_play.main(starve)
