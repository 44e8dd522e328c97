"""Passes numbers between two bots through the inode numbers of pipes: the kernel numbers pipes,
sockets, /proc's per-process entries and anonymous inodes from one counter of the whole machine
(`get_next_ino`), handed out 1,024 at a time to each CPU. No sandbox can refuse pipes and
sockets, so this is what a bot keeps. Raw mode only: a harness (bench/inode_channel.py) runs a
sender and a receiver as partners run, never at the same time.

    send same|cross      for each number v read from stdin: make pipes (same: 32 v of them on
                         CPU 0; cross: enough to take v fresh batches of 1,024 on its CPU), then
                         say "sent"
    receive same|cross   say "ready" after a first reading; then for each line read from stdin,
                         read the counter again and say "got v", the number decoded

same: both pin themselves to CPU 0 and count the numbers taken there since the receiver's last
reading (exact while fewer than 1,024 are taken in between; every other process on that CPU adds
to it). cross: the receiver uses up its CPU's batch and sees which batch comes next: the batches
the whole machine took since its last reading, the sender's among them.
"""
import ctypes
import os
import sys

BATCH = 1024
PER_UNIT = 32  # pipes per unit of the number in "same"


def say(*words):
    print(*words, flush=True)


def probe() -> int:
    """One number taken: the inode number of a new pipe."""
    r, w = os.pipe()
    try:
        return os.fstat(r).st_ino
    finally:
        os.close(r)
        os.close(w)


def pin(cpu: int | None = None) -> None:
    """Stay on one CPU (CPU 0, or the one it runs on now), so that its numbers come from one batch."""
    allowed = sorted(os.sched_getaffinity(0))
    here = ctypes.CDLL(None).sched_getcpu()
    os.sched_setaffinity(0, {cpu if cpu in allowed else allowed[0]} if cpu is not None else {here})


def next_batch() -> int:
    """Use up this CPU's batch; the index of the batch the machine's counter hands out next."""
    first = probe() // BATCH
    while (ino := probe()) // BATCH == first:
        pass
    return ino // BATCH


def send(kind: str) -> None:
    if kind == "same":
        pin(0)
    else:
        pin()
    for line in sys.stdin:
        v = int(line)
        if kind == "same":
            for _ in range(PER_UNIT * v):
                probe()
        else:
            batch = probe() // BATCH
            for _ in range(v):  # each change of batch is one taken from the machine's counter
                while (now := probe() // BATCH) == batch:
                    pass
                batch = now
        say("sent")


def receive(kind: str) -> None:
    if kind == "same":
        pin(0)
        last = probe()
    else:
        pin()
        last = next_batch()
    say("ready")
    for _ in sys.stdin:
        if kind == "same":
            now = probe()
            v = round(((now - last - 1) % BATCH) / PER_UNIT)
        else:
            now = next_batch()
            v = now - last - 1
        last = now
        say(f"got {v}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--raw"]
    {"send": send, "receive": receive}[args[0]](args[1])
