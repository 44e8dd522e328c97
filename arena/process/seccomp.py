"""The seccomp filter of the bwrap and fork sandboxes: what namespaces cannot close.

Namespaces give each bot its own processes, network, IPC objects, /tmp and mounts, but two bots
still share read-only files (/usr, the kit) and the kernel. Through those, partners could pass
their hands to each other: byte-range locks (`fcntl`, `flock`) or leases on a file both can
open, inotify/fanotify or dnotify events on a folder both can see. The filter makes those calls
fail with EPERM, together with the calls that reach across processes or into the kernel and that
no bot needs (ptrace, process_vm_*, perf_event_open, bpf, keyrings, userfaultfd, new user
namespaces). io_uring fails with ENOSYS, so runtimes that try it (libuv) fall back to plain
system calls, which the filter sees.

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
)
NOT_THERE = ("io_uring_setup", "io_uring_enter", "io_uring_register", "clone3")  # ENOSYS: callers fall back


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
    for name in REFUSED:
        f.add_rule(refuse, name)
    for name in NOT_THERE:
        f.add_rule(sc.ERRNO(errno.ENOSYS), name)
    for command in FCNTL_REFUSED:
        f.add_rule(refuse, "fcntl", sc.Arg(1, sc.EQ, command))
    f.add_rule(refuse, "unshare", sc.Arg(0, sc.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    f.add_rule(refuse, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        return out.read()
