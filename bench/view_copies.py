"""What the sandbox's copies of the view of /usr hold on /dev/shm, and what making them costs.

Builds the view's copy in a fresh folder on /dev/shm (not the machine's shared one), then adds
each runtime installed here (java, perl, ruby, node) as a bot naming it would, and prints the
bytes and seconds of each step; removes the folder at the end.

    .venv/bin/python bench/view_copies.py
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time

from arena.process import sandbox

RUNTIMES = ("java", "perl", "ruby", "node")


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    folder = tempfile.mkdtemp(prefix="zwicker-bench-shm-", dir="/dev/shm")
    sandbox.SHM = folder
    try:
        start = time.perf_counter()
        if sandbox.usr_copy() is None:
            raise SystemExit("no tmpfs at /dev/shm: the view is bound path by path, nothing is copied")
        print(f"base view (the sandbox's Python, tools): {sandbox.shm_used() / 2**20:.0f} MiB, "
              f"{time.perf_counter() - start:.1f} s")
        for name in RUNTIMES:
            program = shutil.which(name)
            if program is None:
                print(f"+ {name}: not installed")
                continue
            before, start = sandbox.shm_used(), time.perf_counter()
            sandbox._program_in_usr(program)
            print(f"+ {name}: {(sandbox.shm_used() - before) / 2**20:.0f} MiB, {time.perf_counter() - start:.1f} s")
        print(f"all: {sandbox.shm_used() / 2**20:.0f} MiB (bound: {sandbox.shm_bound() >> 20} MiB, "
              f"{sandbox.SHM_BOUND_VAR})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
