"""Partners passing bits through the CPU they share: the sender keeps the cores busy or lets
them idle, the receiver times its own loop. Raw mode only (no protocol): bench/cpu_timing.py
starts both, and gives both the same start time (the machine's wall clock, which every sandbox
shares), as if they had already agreed on one; a bot at a table would first have to.

    send BITS --start T --slot MS [--spinners K]
                    from time T, each bit of the string BITS (0s and 1s) takes two halves of MS
                    ms: a 1 keeps K processes (default: four per core it may use, so that the
                    receiver shares its core with some wherever it runs) spinning in the first
                    half and asleep in the second, a 0 the other way round (Manchester code:
                    the receiver needs no threshold); say "sent"
    receive N --start T --slot MS
                    count its own loop's turns in each half of N bits' slots; a bit is 1 where
                    the first half counted fewer: say "got <bits>" and "counts <first:second ...>"
Every answer ends with "done".
"""
import os
import sys
import time


def say(*words):
    print(*words, flush=True)


def wait_until(moment):
    while (left := moment - time.time()) > 0:
        time.sleep(left)


def spin_until(moment):
    while time.time() < moment:
        pass


def send(bits, start, half):
    for k, bit in enumerate(bits):
        begin = start + 2 * k * half
        busy = begin if bit == "1" else begin + half
        wait_until(busy)
        spin_until(busy + half)


def receive(n, start, half):
    wait_until(start)
    counts = []
    for k in range(2 * n):
        end, turns = start + (k + 1) * half, 0
        while time.time() < end:
            turns += 1
        counts.append(turns)
    pairs = list(zip(counts[0::2], counts[1::2]))
    return "".join("1" if first < second else "0" for first, second in pairs), pairs


def option(args, name, default=None):
    return args[args.index(name) + 1] if name in args else default


def main():
    args = [a for a in sys.argv[1:] if a != "--raw"]
    start, half = float(option(args, "--start")), float(option(args, "--slot")) / 2000
    if args[0] == "send":
        bits = args[1]
        children = []
        for _ in range(int(option(args, "--spinners", 4 * len(os.sched_getaffinity(0)))) - 1):
            pid = os.fork()
            if pid == 0:
                send(bits, start, half)
                os._exit(0)
            children.append(pid)
        send(bits, start, half)
        for pid in children:
            os.waitpid(pid, 0)
        say("sent")
    elif args[0] == "receive":
        got, pairs = receive(int(args[1]), start, half)
        say("got", got)
        say("counts", " ".join(f"{a}:{b}" for a, b in pairs))
    say("done")


if __name__ == "__main__":
    main()
