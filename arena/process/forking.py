"""The arena's side of sandbox mode "fork": one fork server per run starts every bot (see arena/process/forkserver.py).

`serving(mode)` starts the server for a block (a tournament, a table) and makes it the current
one for every bot `arena.process.lifecycle.open_bot` starts inside; a bot started outside any such block
gets a server of its own. The server is owned by the block: leaving it closes the server's
socket (the server exits, and with it every bot's init left) and reaps it, shielded.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from pathlib import Path

import trio

from arena.process import command, runtime, sandbox, seccomp
from arena.process.command import OWNER, OWNER_VAR, TAG_VAR, Limits, beside, owner_alive

SERVER = Path(__file__).resolve().with_name("forkserver.py")
SCRATCH = Path("/tmp")
SCRATCH_PREFIX = "zwicker-fork-"
"""A server's scratch folder (its inits' mount point) is SCRATCH/zwicker-fork-<arena pid>-<the
arena's start time>-<random>: the arena makes and removes it, and `sweep_scratch` those of dead
arenas."""
_current: ContextVar[ForkServer | None] = ContextVar("zwicker_fork_server", default=None)


class Seat:
    """A bot started by the fork server: the pidfd of its namespace's init, and its exit status."""

    sweep = False  # nothing of the bot outlives its init: the kernel kills the whole PID namespace

    def __init__(self, pid: int, pidfd: int) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.returncode: int | None = None
        self._exited = trio.Event()

    def kill(self) -> None:
        """SIGKILL the init; the kernel then kills everything in the bot's PID namespace."""
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass

    async def wait(self) -> int:
        await trio.lowlevel.wait_readable(self.pidfd)
        await self._exited.wait()  # the server's report follows the exit at once
        return self.returncode  # type: ignore[return-value]

    def _exit(self, status: int) -> None:
        self.returncode = status
        self._exited.set()


class ForkServer:
    """The arena's end of one fork server: start requests out, replies and exit reports in."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._serial = 0
        self._starting: dict[int, tuple[trio.Event, list[object]]] = {}
        self._seats: dict[int, Seat] = {}
        self._gone = False

    async def start(self, request: dict, fds: list[int], stdin: int) -> Seat:
        """Start one bot; `fds` are its stdin, stdout and stderr (the caller closes its copies),
        `stdin` the write end of its stdin, which first carries the request (`send_privately`)."""
        if self._gone:
            raise OSError("the fork server has exited")
        self._serial += 1
        request = {**request, "id": self._serial}
        done, answer = trio.Event(), []
        data = json.dumps(send_privately(request, stdin)).encode()
        self._starting[self._serial] = (done, answer)
        try:
            while True:
                try:
                    socket.send_fds(self._sock, [data], fds)
                    break
                except BlockingIOError:
                    await trio.lowlevel.wait_writable(self._sock)
        except BaseException:  # not sent: no reply will come
            self._starting.pop(request["id"], None)
            raise
        try:
            await done.wait()
        except BaseException:  # cancelled: the bot, once started, is nobody's, so it is killed
            if answer and isinstance(answer[0], Seat):
                _discard(answer[0])
            elif not answer:
                answer.append("abandoned")
            raise
        if isinstance(answer[0], str):
            raise OSError(f"sandbox fork: {answer[0]}")
        return answer[0]  # type: ignore[return-value]

    async def _read(self) -> None:
        """Deliver the server's replies and exit reports until it closes its end."""
        try:
            while True:
                await trio.lowlevel.wait_readable(self._sock)
                try:
                    message, fds, _, _ = socket.recv_fds(self._sock, 1 << 16, 1)
                except BlockingIOError:
                    continue
                if not message:
                    return
                reply = json.loads(message)
                rid = reply["id"]
                if "exit" in reply and rid in self._starting:  # the init died before it was ready
                    done, answer = self._starting.pop(rid)
                    answer.append(f"the bot's sandbox exited with status {reply['exit']} before starting it")
                    done.set()
                elif "exit" in reply:
                    seat = self._seats.pop(rid, None)
                    if seat is not None:
                        seat._exit(reply["exit"])
                else:  # registered here, before its exit report can arrive
                    done, answer = self._starting.pop(rid)
                    if answer:  # abandoned by a cancelled start
                        for fd in fds:
                            _discard(Seat(reply["pid"], fd))
                        continue
                    if "pid" in reply and fds:
                        self._seats[rid] = seat = Seat(_pid_of(fds[0], reply["pid"]), fds[0])
                        answer.append(seat)
                    else:
                        answer.append(reply.get("error", "no pidfd in the server's reply"))
                    done.set()
        except (OSError, ValueError, KeyError):  # a broken socket or a garbled record: the server is lost
            pass
        finally:
            self._gone = True
            # The server is gone, and with it every init and so every bot (parent-death signals).
            for done, answer in self._starting.values():
                answer.append("the fork server exited")
                done.set()
            for seat in self._seats.values():
                seat._exit(128 + signal.SIGKILL)
            self._starting.clear()
            self._seats.clear()


SERVER_KEYS = ("id", "usr")
MAX_PRIVATE = 60 << 10  # within a pipe's buffer: written before the bot reads it


def send_privately(request: dict, stdin: int) -> dict:
    """Write all of `request` but what the server itself needs (SERVER_KEYS) to the bot's own
    stdin, framed (4 bytes of length, then JSON), where the bot's process reads it before its
    program starts; returns the part for the server. So the server, whose memory every Python
    bot is a copy of, never holds another bot's command line, folder, environment or uid."""
    private = json.dumps({k: v for k, v in request.items() if k not in SERVER_KEYS}).encode()
    if len(private) > MAX_PRIVATE:
        raise ValueError(f"sandbox fork: the bot's command line and environment exceed {MAX_PRIVATE >> 10} KiB")
    framed = len(private).to_bytes(4, "big") + private
    while framed:
        framed = framed[os.write(stdin, framed):]
    return {k: request[k] for k in SERVER_KEYS if k in request}


def _pid_of(pidfd: int, told: int) -> int:
    """The pid of a pidfd's process here: an unprivileged server counts pids in a PID namespace
    of its own, so the pid it tells is not the arena's."""
    try:
        with open(f"/proc/self/fdinfo/{pidfd}") as f:
            for line in f:
                if line.startswith("Pid:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return told


def _discard(seat: Seat) -> None:
    seat.kill()
    os.close(seat.pidfd)


def current() -> ForkServer | None:
    return _current.get()


@asynccontextmanager
async def serving(mode: str = "fork") -> AsyncIterator[ForkServer | None]:
    """The current fork server for the block when `mode` is "fork" (reusing one already running)."""
    if mode != "fork" or _current.get() is not None:
        yield _current.get()
        return

    # Every init and Python bot is a fork of the server and shows the server's environment
    # in /proc: this arena's tag and owner, by which tests and sweep_orphans find them.
    env = {"PATH": sandbox.PATH, "LANG": "C.UTF-8", TAG_VAR: f"{command.ARENA_ID}/fork-server", OWNER_VAR: OWNER}
    scratch = make_scratch()
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        popen = subprocess.Popen(  # from the trio thread, for the parent-death signal (arena.process.lifecycle)
            sandbox.death_with_arena() + server_argv(theirs.fileno(), scratch),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, pass_fds=[theirs.fileno()],
            start_new_session=True, env=env,
        )
    except BaseException:
        mine.close()
        _remove(scratch)
        raise
    finally:
        theirs.close()
    mine.setblocking(False)
    server = ForkServer(mine)
    token = _current.set(server)
    pidfd = os.pidfd_open(popen.pid)
    try:
        async with beside(server._read):
            yield server
    finally:
        _current.reset(token)
        with trio.CancelScope(shield=True):
            mine.close()  # the server sees end of file and exits
            with trio.move_on_after(5):
                await trio.lowlevel.wait_readable(pidfd)
            if popen.poll() is None:
                popen.kill()
            popen.wait()
            os.close(pidfd)
            _remove(scratch)


def server_argv(fd: int, scratch: str) -> list[str]:

    """The server's command line. Its bots' /usr is the view's tmpfs copy where there is one
    (sandbox.usr_copy: pages that no reclaim evicts), else the view's paths, pinned."""
    copy = sandbox.usr_copy()
    layout = [] if copy else sandbox.pinned_usr_layout()
    return [sandbox.sandbox_python(), "-I", str(SERVER), str(fd), scratch, str(runtime.runtime()),
            seccomp.program().hex(), json.dumps(layout), copy or ""]


def make_scratch() -> str:
    """A new, empty scratch folder for one fork server, named after this arena."""

    return tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{OWNER.replace(':', '-')}-", dir=SCRATCH)


def _remove(scratch: str) -> None:
    try:
        os.rmdir(scratch)
    except OSError:
        pass


def sweep_scratch() -> list[str]:
    """Remove the scratch folders of fork servers whose arena is dead (killed outright, its
    server could not clean up); returns the folders removed."""

    removed = []
    for folder in SCRATCH.glob(f"{SCRATCH_PREFIX}*-*-*"):
        pid, _, rest = folder.name[len(SCRATCH_PREFIX):].partition("-")
        started = rest.partition("-")[0]
        if not (pid.isdigit() and started.isdigit()) or owner_alive(f"{pid}:{started}"):
            continue
        try:
            folder.rmdir()  # only ever an empty mount point out here
        except OSError:
            continue
        removed.append(str(folder))
    return removed


@functools.cache
def problem() -> str | None:
    """Why mode "fork" cannot run here, or None once a trial bot started in it and ran fine.

    Root builds the bots' namespaces outright; an ordinary user in a user namespace of the
    server's own, where the kernel allows unprivileged ones (most do; the trial says if not)."""

    if os.uname().machine not in ("x86_64", "aarch64"):
        return f"the fork sandbox does not know {os.uname().machine}"
    trouble = sandbox.sandbox_python_problem() or seccomp.problem()
    if trouble:
        return trouble
    try:
        status, said = _trial()
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return f"fork server trial failed: {exc}"
    if status != 0:
        return f"fork sandbox trial failed: {said.splitlines()[-1] if said else f'exit status {status}'}"
    return None


def _trial() -> tuple[int, str]:
    """Start a server and one bot in it (the sandbox's Python importing msgpack), synchronously."""

    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    scratch = make_scratch()
    try:
        popen = subprocess.Popen(server_argv(theirs.fileno(), scratch), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, pass_fds=[theirs.fileno()], start_new_session=True)
    except BaseException:
        _remove(scratch)
        raise
    finally:
        theirs.close()
    (in_read, in_write), (out_read, out_write), (err_read, err_write) = (os.pipe() for _ in range(3))
    open_fds = {in_read, in_write, out_read, out_write, err_read, err_write}

    def close(*fds: int) -> None:
        for fd in fds:
            open_fds.discard(fd)
            os.close(fd)

    try:
        mine.settimeout(30)
        argv = [sandbox.sandbox_python(), "-c", "import msgpack"]
        request = sandbox.fork_request(argv, runtime.runtime(), False, Limits(), sandbox.allocate_uid(), {},
                                       sandbox.kit_binds())
        public = send_privately({**request, "id": 1}, in_write)
        socket.send_fds(mine, [json.dumps(public).encode()], [in_read, out_write, err_write])
        close(in_read, out_write, err_write)
        message, fds, _, _ = socket.recv_fds(mine, 1 << 16, 1)
        for fd in fds:
            os.close(fd)
        reply = json.loads(message or b"{}")
        if "pid" not in reply:
            raise ValueError(reply.get("error", "the server exited"))
        status = json.loads(mine.recv(1 << 16) or b"{}").get("exit", -1)
        close(in_write)
        said = os.read(err_read, 4096).decode(errors="replace").strip()
        return status, said
    finally:
        mine.close()
        close(*open_fds)
        try:
            popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait()
        _remove(scratch)
