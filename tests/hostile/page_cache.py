"""Partners passing a number through the page cache of files both can read. Raw mode only (no
protocol): the test starts both bots. Bit k of the number is "is page 2 of the k-th largest
.py file of the standard library loaded?" (32 files: 32 bits).

    primitives      try every call that drops or probes a cached page, on a file both see, and
                    say for each "open <call>" or "refused <call>: <error>"
    send N          write N: load the pages of its 1 bits (a read), drop those of its 0 bits by
                    every way it has (fadvise DONTNEED, madvise PAGEOUT and COLD on a mapping),
                    then, with --fill MiB, fill its own memory (cgroup) to evict what it loaded
                    itself; say "sent". With --fresh S: pages of session S (see `targets`),
                    which nobody has loaded, so that the 0 bits need no dropping (--under DIR:
                    drawn from DIR instead of all of /usr)
    receive         read the number without loading the pages first where it can (preadv2 with
                    RWF_NOWAIT), else by a read that the kernel counts as block input or not
                    (getrusage's ru_inblock: it came from disk; `--counted` forces that), or with
                    `--timed` by a read timed by the clock: say "got N by <how>" (with every
                    page's read time in ns when timed)
Every answer ends with "done".
"""
import ctypes
import errno
import functools
import hashlib
import mmap
import os
import resource
import sys
import time

PAGE = 4096
BITS = 32
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.syscall.restype = ctypes.c_long
SYS = {"x86_64": {"cachestat": 451, "io_uring_setup": 425, "io_setup": 206, "process_madvise": 440, "readahead": 187},
       "aarch64": {"cachestat": 451, "io_uring_setup": 425, "io_setup": 0, "process_madvise": 440, "readahead": 213}}[
    os.uname().machine]
MADV_WILLNEED, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ = 3, 20, 21, 22


def say(*words):
    print(*words, flush=True)


def targets(session=None, under="/usr"):
    """The 32 pages of the bits, as (file, page): page 2 of the largest .py files of the standard
    library (both bots see it); with a session number, pages nobody has read yet: one page of
    each of 32 files drawn from everything under /usr by the session (no dropping needed)."""
    if session is None and under != "/usr":  # page 2 of the largest files there
        found = [(-os.path.getsize(p), p) for p in _files(under) if os.path.getsize(p) > 4 * PAGE]
        return [(p, 2) for _, p in sorted(found)[:BITS]]
    if session is None:
        stdlib = os.path.dirname(os.__file__)
        files = [os.path.join(stdlib, name) for name in os.listdir(stdlib) if name.endswith(".py")]
        files = [f for f in files if os.path.isfile(f) and not os.path.islink(f) and os.path.getsize(f) > 4 * PAGE]
        return [(f, 2) for f in sorted(files, key=lambda f: (-os.path.getsize(f), f))[:BITS]]
    files = [(path, os.path.getsize(path) // PAGE) for path in _files(under) if os.path.getsize(path) >= PAGE]
    # 32 different files (a read loads its neighbours too), ranked by a hash of the session.
    digest = lambda path: hashlib.sha256(f"{session}/{path}".encode()).digest()  # noqa: E731
    ranked = sorted(files, key=lambda entry: digest(entry[0]))[:BITS]
    return [(path, int.from_bytes(digest(path)[8:16], "big") % pages) for path, pages in ranked]


def _files(under):
    """Every regular file under `under`, in a fixed order."""
    for here, dirs, names in os.walk(under):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(here, name)
            try:
                if not os.path.islink(path) and os.path.isfile(path):
                    yield path
            except OSError:
                pass


def call(name, result):
    """Say how a call went: "open" (it did what it asks) or "refused" with its errno."""
    if result is None or (isinstance(result, int) and result >= 0):
        say(f"open {name}")
        return True
    err = ctypes.get_errno() if result == -1 else -result
    return refused(name, err)


def refused(name, err):
    """EPERM and ENOSYS are the filter's answers; any other error came from the call itself
    (a bad argument on purpose, say): the call is there."""
    if err not in (errno.EPERM, errno.ENOSYS):
        say(f"open {name} ({errno.errorcode.get(err, err)})")
        return True
    say(f"refused {name}: {errno.errorcode.get(err, err)}")
    return False


def attempt(name, fn):
    try:
        return call(name, fn())
    except OSError as exc:
        if exc.errno == errno.EAGAIN:  # RWF_NOWAIT's "not cached": the probe worked
            return call(name, None)
        return refused(name, exc.errno)


def mapping(fd, size):
    addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    return addr


def primitives(path):
    fd = os.open(path, os.O_RDONLY)
    size = os.fstat(fd).st_size
    addr = mapping(fd, size)
    attempt("fadvise DONTNEED", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))
    attempt("fadvise WILLNEED", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED))
    attempt("fadvise NOREUSE", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_NOREUSE))
    attempt("readahead", lambda: libc.syscall(SYS["readahead"], fd, ctypes.c_long(0), ctypes.c_size_t(size)))
    attempt("preadv2 RWF_NOWAIT", lambda: os.preadv(fd, [bytearray(PAGE)], 0, os.RWF_NOWAIT))
    for name, advice in (("COLD", MADV_COLD), ("PAGEOUT", MADV_PAGEOUT), ("WILLNEED", MADV_WILLNEED),
                         ("POPULATE_READ", MADV_POPULATE_READ)):
        attempt(f"madvise {name}", lambda: libc.madvise(ctypes.c_void_p(addr), ctypes.c_size_t(size), advice))
    vec = (ctypes.c_ubyte * (size // PAGE + 1))()
    attempt("mincore", lambda: libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec))
    stat = (ctypes.c_uint64 * 8)()
    crange = (ctypes.c_uint64 * 2)(0, size)
    attempt("cachestat", lambda: libc.syscall(SYS["cachestat"], fd, crange, stat, 0))
    params = (ctypes.c_ubyte * 120)()
    attempt("io_uring_setup", lambda: _closing(libc.syscall(SYS["io_uring_setup"], 4, params)))
    ctx = ctypes.c_ulong(0)
    attempt("io_setup", lambda: libc.syscall(SYS["io_setup"], 4, ctypes.byref(ctx)))
    attempt("process_madvise", lambda: libc.syscall(SYS["process_madvise"], -1, None, 0, MADV_COLD, 0))


def _closing(fd):
    if fd >= 0:
        os.close(fd)
    return fd


def send(number, fill_mib, session):
    addrs = []
    for bit, (path, page) in enumerate(targets(session)):
        fd = os.open(path, os.O_RDONLY)
        if number >> bit & 1:
            os.pread(fd, 1, page * PAGE)
        elif session is None:
            try:
                os.posix_fadvise(fd, page * PAGE, PAGE, os.POSIX_FADV_DONTNEED)
            except OSError:
                pass
            addr = mapping(fd, (page + 1) * PAGE)
            for advice in (MADV_PAGEOUT, MADV_COLD):
                libc.madvise(ctypes.c_void_p(addr + page * PAGE), ctypes.c_size_t(PAGE), advice)
            addrs.append(addr)
        os.close(fd)
    if fill_mib:
        fill(fill_mib)
    say("sent")


def fill(mib):
    """Touch `mib` MiB in children (each below the per-process limit): the bot's cgroup must
    reclaim, and evicts the file pages charged to it."""
    children = []
    for _ in range(max(1, mib // 128)):
        pid = os.fork()
        if pid == 0:
            held = []
            try:
                for _ in range(128 // 16):
                    held.append(bytearray(16 << 20))
            except MemoryError:
                pass
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)


def receive(timed, session, counted=False):
    got, how, times = 0, None, []
    with open(__file__, "rb") as warm:  # the first read of a process is slow for other reasons
        for _ in range(3):
            warm.read(1)
            warm.seek(0)
    for bit, (path, page) in enumerate(targets(session)):
        fd = os.open(path, os.O_RDONLY)
        cached = None
        if not timed and not counted:
            try:
                os.preadv(fd, [bytearray(PAGE)], page * PAGE, os.RWF_NOWAIT)
                cached, how = True, "preadv2 RWF_NOWAIT"
            except BlockingIOError:
                cached, how = False, "preadv2 RWF_NOWAIT"
            except OSError:
                pass
        if cached is None and not timed:  # a read the kernel counts as block input: it came from disk
            before = resource.getrusage(resource.RUSAGE_SELF).ru_inblock
            os.pread(fd, 1, page * PAGE)
            cached, how = resource.getrusage(resource.RUSAGE_SELF).ru_inblock == before, "a read counted by getrusage"
        if cached is None:
            start = time.perf_counter_ns()
            os.pread(fd, 1, page * PAGE)
            spent = time.perf_counter_ns() - start
            times.append(spent)
            how = "a timed read"
        os.close(fd)
        if cached is None:
            continue
        got |= cached << bit
    if times:  # a loaded page reads in a few microseconds, one from disk in tens or hundreds
        threshold = max(8 * sorted(times)[len(times) // 4], 20_000)
        got = sum((spent < threshold) << bit for bit, spent in enumerate(times))
    say(f"got {got} by {how}" + (f" times {' '.join(map(str, times))}" if times else ""))


def main(args):
    session = int(args[args.index("--fresh") + 1]) if "--fresh" in args else None
    if "--under" in args:  # where --fresh draws its files (all of /usr by default)
        global targets
        targets = functools.partial(targets, under=args[args.index("--under") + 1])
    if args[0] == "primitives":
        primitives(targets()[0][0])
    elif args[0] == "send":
        fill_mib = int(args[args.index("--fill") + 1]) if "--fill" in args else 0
        send(int(args[1]), fill_mib, session)
        sys.stdin.read()  # hold on until the receiver has read (the test closes stdin)
    elif args[0] == "receive":
        receive("--timed" in args, session, "--counted" in args)
    say("done")


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a != "--raw"])
