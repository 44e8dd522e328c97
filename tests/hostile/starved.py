"""Runs on one CPU (its first argument) and, at its first move, wakes a CPU hog that waits on the
FIFO named by its second argument (the test's, pinned to the same CPU at a higher priority),
then spins for 30 ms of its own CPU time before answering: a bot the machine starves."""
import os
import sys
import time

import _play

os.sched_setaffinity(0, {int(sys.argv[1])})


def starve() -> None:
    with open(sys.argv[2], "wb") as fifo:
        fifo.write(b"go")
    start = time.process_time()
    while time.process_time() - start < 0.03:
        pass


_play.main(starve)
