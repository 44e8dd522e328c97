"""The seccomp filter of the bwrap and fork sandboxes: what namespaces cannot close.

Namespaces give each bot its own processes, network, IPC objects, /tmp and mounts, but two bots
still share read-only files (/usr, the kit) and the kernel. Through those, partners could pass
their hands to each other: byte-range locks (`fcntl`, `flock`) or leases on a file both can
open, inotify/fanotify or dnotify events on a folder both can see. The filter makes those calls
fail with EPERM, together with the calls that reach across processes or into the kernel and that
no bot needs (ptrace, process_vm_*, perf_event_open, bpf, keyrings, userfaultfd, new user
namespaces). io_uring fails with ENOSYS, so runtimes that try it (libuv) fall back to plain
system calls, which the filter sees.

The page cache of a file two bots can read is shared state too: a bot that drops a page
(`posix_fadvise` DONTNEED, `madvise` MADV_PAGEOUT or MADV_COLD) and loads it again writes a
bit; a call that asks whether a page is cached without loading it (`preadv2` with RWF_NOWAIT,
`mincore`, `cachestat`, Linux AIO or io_uring with RWF_NOWAIT) reads it. The filter refuses
those: fadvise's WILLNEED, DONTNEED and NOREUSE (the access-pattern hints stay allowed),
readahead, RWF_NOWAIT on preadv2/pwritev2, madvise's WILLNEED, COLD, PAGEOUT, POPULATE_* and
COLLAPSE (MADV_DONTNEED and MADV_FREE, which allocators use, only unmap or free the caller's own
pages), process_madvise; mincore, cachestat and Linux AIO fail with ENOSYS. What is left, a read
timed by the clock (it loads the page it probes), works only on pages that are not cached: the
sandboxes show bots only files whose pages the arena keeps cached (arena/process/view.py).

The kernel's own tmpfs (shm_mnt) numbers its inodes from one machine-wide counter, handed out
1,024 per CPU: every `memfd_create` and every anonymous shared mapping takes the next number, so
a bot that makes some moves the counter and its partner, making one, reads it. The filter makes
`memfd_create` fail with EPERM (and `memfd_secret`, whose inodes come from the counter pipes and
sockets use, with ENOSYS), and `mmap` with MAP_SHARED and MAP_ANONYMOUS together with EPERM
(private anonymous memory, what allocators and runtimes map, stays allowed). The third way to
such a mapping, a shared mapping of /dev/zero, is closed by the sandboxes' /dev: their
/dev/zero is the kernel's /dev/full, which reads zeros as /dev/zero does and cannot be mapped.

The program is compiled by libseccomp (through pyseccomp), once per arena process; bwrap takes it
with `--seccomp FD`, the fork server loads it into each bot before the bot's program runs. What
stays open (timing, host-wide counters) is in docs/hostile.md.
"""

from __future__ import annotations

import errno
import functools
import tempfile

# fcntl commands that lock, lease or watch: another process's lock is visible through F_GETLK.
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
FCNTL_REFUSED = (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY)
CLONE_NEWUSER = 0x10000000

REFUSED = (
    "flock", "inotify_init", "inotify_init1", "fanotify_init",  # channels through shared files
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",  # other processes
    "perf_event_open", "bpf", "userfaultfd", "add_key", "request_key", "keyctl",  # the kernel
    "name_to_handle_at", "open_by_handle_at", "mount", "umount2", "pivot_root", "setns",
    "mq_open", "msgget", "semget", "shmget",  # IPC (its namespace separates it too)
    "memfd_create",  # an inode number from the machine-wide counter of the kernel's tmpfs
)
NOT_THERE = (
    "io_uring_setup", "io_uring_enter", "io_uring_register", "clone3",  # ENOSYS: callers fall back
    "mincore", "cachestat",  # is a page cached? (the kernel answers for files one may write)
    "io_setup", "io_submit", "io_getevents", "io_pgetevents", "io_cancel", "io_destroy",  # Linux AIO: RWF_NOWAIT
    "memfd_secret",  # an inode number from the counter of pipes and sockets
)
# Page cache: drop or probe a page of a file shared with another bot (see above).
PAGE_CACHE_REFUSED = ("readahead", "process_madvise")
POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE = 3, 4, 5
FADVISE_REFUSED = (POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE)
MADV_WILLNEED, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE, MADV_COLLAPSE = 3, 20, 21, 22, 23, 25
MADVISE_REFUSED = (MADV_WILLNEED, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE, MADV_COLLAPSE)
RWF_NOWAIT = 0x8
SIGCONT = 18
SIGNAL_ARGUMENT = (("kill", 1), ("tkill", 1), ("tgkill", 2), ("rt_sigqueueinfo", 1), ("rt_tgsigqueueinfo", 2),
                   ("pidfd_send_signal", 1))
"""Where each call that sends a signal takes the signal's number."""
MAP_SHARED, MAP_ANONYMOUS = 0x01, 0x20  # (MAP_SHARED_VALIDATE, 0x03, has MAP_SHARED's bit)


@functools.cache
def problem() -> str | None:
    """Why the filter cannot be built here (no libseccomp), or None."""
    try:
        program()
    except (ImportError, OSError, RuntimeError) as exc:
        return f"libseccomp is not usable ({exc}); Debian: apt-get install libseccomp2"
    return None


@functools.cache
def program() -> bytes:
    """The filter as a BPF program (struct sock_filter[]), as bwrap --seccomp and prctl take it."""
    import pyseccomp as sc

    refuse = sc.ERRNO(errno.EPERM)
    f = sc.SyscallFilter(sc.ALLOW)
    f.set_attr(sc.Attr.ACT_BADARCH, refuse)  # another architecture's (or x32's) calls
    for name in REFUSED + PAGE_CACHE_REFUSED:
        f.add_rule(refuse, name)
    for name in NOT_THERE:
        f.add_rule(sc.ERRNO(errno.ENOSYS), name)
    for command in FCNTL_REFUSED:
        f.add_rule(refuse, "fcntl", sc.Arg(1, sc.EQ, command))
    for advice in FADVISE_REFUSED:  # fadvise64(fd, offset, len, advice)
        f.add_rule(refuse, "fadvise64", sc.Arg(3, sc.EQ, advice))
    for advice in MADVISE_REFUSED:
        f.add_rule(refuse, "madvise", sc.Arg(2, sc.EQ, advice))
    for name in ("preadv2", "pwritev2"):  # (fd, iov, iovcnt, pos_l, pos_h, flags)
        f.add_rule(refuse, name, sc.Arg(5, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    # SIGCONT: a bot's frozen processes (stopped: arena.process.scheduler) stay stopped.
    for name, position in SIGNAL_ARGUMENT:
        f.add_rule(refuse, name, sc.Arg(position, sc.EQ, SIGCONT))
    shared_anonymous = MAP_SHARED | MAP_ANONYMOUS  # mmap(addr, len, prot, flags, fd, off)
    f.add_rule(refuse, "mmap", sc.Arg(3, sc.MASKED_EQ, shared_anonymous, shared_anonymous))
    f.add_rule(refuse, "unshare", sc.Arg(0, sc.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    f.add_rule(refuse, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        return out.read()
