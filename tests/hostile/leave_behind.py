"""At its first move, makes what would outlive it where every process may write: a file and a
folder in /tmp, files in /var/tmp and /dev/shm (their names end in argv[1]), and a SysV shared
memory segment, message queue and semaphore set; says on stderr what it made; plays on.
In bwrap and fork all of it is its own namespaces'; in rlimit it is the machine's."""
import ctypes
import os
import sys

import _play

IPC_PRIVATE, IPC_CREAT = 0, 0o1000


def make() -> None:
    token = sys.argv[1]
    made = []
    for path in (f"/tmp/zwicker-left-{token}", f"/var/tmp/zwicker-left-{token}", f"/dev/shm/zwicker-left-{token}"):
        try:
            with open(path, "w") as f:
                f.write("still here")
            made.append(path)
        except OSError as exc:
            _play.say(f"leave_behind: {path} refused ({exc.strerror})")
    try:
        os.mkdir(f"/tmp/zwicker-leftdir-{token}")
        with open(f"/tmp/zwicker-leftdir-{token}/inside", "w") as f:
            f.write("still here")
        made.append(f"/tmp/zwicker-leftdir-{token}")
    except OSError as exc:
        _play.say(f"leave_behind: a folder in /tmp refused ({exc.strerror})")
    libc = ctypes.CDLL(None, use_errno=True)
    for kind, ident in (("shm", libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600)),
                        ("msg", libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)),
                        ("sem", libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600))):
        if ident >= 0:
            made.append(f"SysV {kind} {ident}")
    _play.say(f"leave_behind: made {', '.join(made)}")


_play.main(make)
