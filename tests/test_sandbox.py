"""The sandbox modes against the hostile bots in tests/hostile/, with real processes.

Each confinement is checked in the modes that promise it, and, where it is safe, also shown to
be absent in `none` (a positive control: the test would notice if the bot got through).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TypeVar

import pytest
import trio

from engine import zwicker
from arena.process import cgroups, forking, lifecycle, modes, runtime, sandbox
from arena.process.command import BotCommand, Limits
from arena.process.lifecycle import bot_pids, leftover_bot_pids, open_bot

ROOT = os.geteuid() == 0
needs_bwrap = pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason=f"bwrap: {sandbox.bwrap_problem()}")
needs_root = pytest.mark.skipif(not ROOT, reason="a throw-away uid per bot needs root")
needs_fork = pytest.mark.skipif(forking.problem() is not None, reason=f"fork: {forking.problem()}")
BWRAP = pytest.param("bwrap", marks=needs_bwrap)
FORK = pytest.param("fork", marks=needs_fork)
CONFINED = [FORK, BWRAP, "rlimit"]
T = TypeVar("T")
NAMESPACED = [FORK, BWRAP]  # a root of its own: no network, no other files, no other processes


async def run_to_end(mode: str, script: Path, *args: str, limits: Limits | None = None) -> tuple[int, str]:
    """Run a hostile bot in raw mode until it is done or dies: its exit status and what it said."""
    cmd = BotCommand.from_spec(str(script))
    cmd = BotCommand(cmd.argv + (*args, "--raw"), cmd.workdir, cmd.kind)
    said = b""
    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        async with open_bot(cmd, sandbox=mode, limits=limits) as bot:
            while not said.endswith(b"done\n") and (chunk := await bot.stdout.receive_some(4096)):
                said += chunk
            await bot.stdin.aclose()
            returncode = await bot.wait()
    return returncode, said.decode()


def test_resolve_mode():
    assert modes.resolve_mode("none") == "none"
    assert modes.resolve_mode("rlimit") == "rlimit"
    assert modes.resolve_mode(None) in ("fork", "bwrap", "rlimit")
    assert modes.resolve_mode("auto") == modes.default_mode()
    with pytest.raises(ValueError, match="unknown sandbox 'docker': choose one of fork, bwrap, rlimit, none"):
        modes.resolve_mode("docker")


@pytest.mark.parametrize("mode", ["none", *CONFINED])
async def test_a_normal_bot_runs_in_every_mode(hostile, mode):
    with trio.fail_after(60):
        async with open_bot(BotCommand.from_spec(str(hostile / "echo.py")), sandbox=mode) as bot:
            await bot.stdin.send_all(b"deal\n")
            assert await bot.stdout.receive_some(100) == b"deal\n"
            await bot.stdin.aclose()
            assert await bot.wait() == 0
    assert bot.stderr_log() == "echo bot ready\n"


@pytest.mark.parametrize("mode", ["none", *CONFINED])
async def test_bots_run_under_the_batch_policy_and_the_arena_keeps_its_own(hostile, mode):
    policy = os.sched_getscheduler(0)
    status, said = await run_to_end(mode, hostile / "policy.py")
    assert status == 0, said
    assert f"policy {os.SCHED_BATCH}\n" in said
    assert os.sched_getscheduler(0) == policy != os.SCHED_BATCH


@pytest.mark.parametrize("mode", ["none", *CONFINED])
async def test_escaping_children_are_killed_in_every_mode(hostile, mode):
    cmd = BotCommand.from_spec(f"{hostile / 'fork_escape.py'} --raw --exit")
    with trio.fail_after(60):
        async with open_bot(cmd, sandbox=mode) as bot:
            line = await bot.stdout.receive_some(100)
            assert line.startswith(b"pids ")
            assert await bot.wait() == 0
    # the autouse fixture checks that the escapees are gone


@pytest.mark.skipif(not ROOT, reason="without root there is no throw-away uid to find them by")
@pytest.mark.parametrize("mode", CONFINED)
async def test_escapees_without_the_tag_are_found_by_uid(hostile, mode):
    cmd = BotCommand.from_spec(f"{hostile / 'fork_escape.py'} --raw --clean-env")
    with trio.fail_after(60):
        async with open_bot(cmd, sandbox=mode) as bot:
            assert (await bot.stdout.receive_some(100)).startswith(b"pids ")
            escapees: list[int] = []
            while len(escapees) < 2:  # until both have exec'd `sleep` with an empty environment
                await trio.sleep(0.005)
                escapees = [p for p in bot_pids("no tag", (bot.uid,)) if cmdline(p) == b"sleep\0003600\0"]
            assert not set(escapees) & set(bot_pids(bot.tag))  # the tag went with their environment
    assert bot_pids("no tag", (bot.uid,)) == []


@needs_bwrap
async def test_a_bwrap_bot_is_known_gone_by_its_namespace_without_a_proc_scan(hostile, monkeypatch):
    """bwrap reports its PID namespace (--info-fd); once that namespace's init has exited, the
    kernel has killed everything in it, escapees that left the process group and dropped their
    tag included, so the teardown needs no scan of /proc (the autouse fixture scans, after)."""
    scans = []

    async def recorded(tag, uid=None):
        scans.append(tag)

    monkeypatch.setattr(lifecycle, "kill_tagged", recorded)
    cmd = BotCommand.from_spec(f"{hostile / 'fork_escape.py'} --raw --clean-env")
    with trio.fail_after(60):
        async with open_bot(cmd, sandbox="bwrap") as bot:
            assert (await bot.stdout.receive_some(100)).startswith(b"pids ")
            assert bot._namespace is not None
            assert not await bot._namespace.gone(0.05)  # its init is alive while the bot is
        assert await bot._namespace.gone(1)  # (asked again after the block: its record is kept)
    assert scans == []


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


async def listen_and_run(mode: str, script: Path) -> tuple[str, list[bytes]]:
    """Listen on 127.0.0.1, let the bot try to connect; what the bot said and what the listener got."""
    received: list[bytes] = []
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def serve(stream: trio.SocketStream) -> None:
        received.append(await stream.receive_some(100))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, serve, listeners)
        _, log = await run_to_end(mode, script, str(port))
        await trio.sleep(0.05) if "connected" in log else None  # let the positive control's data land
        nursery.cancel_scope.cancel()
    return log, received


async def test_network_reaches_the_listener_without_a_sandbox(hostile):
    log, received = await listen_and_run("none", hostile / "network.py")
    assert "network: connected" in log and received == [b"leaked hand: 9S KH\n"]


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_no_network_in_a_namespace(hostile, mode):
    log, received = await listen_and_run(mode, hostile / "network.py")
    assert "network: blocked" in log and "refused" in log.lower()
    assert received == []


@pytest.fixture
def secret_file():
    """A world-readable "database" in a world-readable folder outside every bot's folder."""
    with tempfile.TemporaryDirectory(prefix="zwicker-results-") as folder:
        os.chmod(folder, 0o755)
        db = Path(folder) / "arena.db"
        db.write_bytes(b"SQLite format 3\0 every hand of every deal")
        db.chmod(0o644)
        yield db


async def test_reading_outside_works_without_a_sandbox(hostile, secret_file):
    _, log = await run_to_end("none", hostile / "read_file.py", str(secret_file))
    assert "read_file: read 41 bytes" in log


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_namespaces_hide_files_outside_the_bots_folder(hostile, secret_file, mode):
    _, log = await run_to_end(mode, hostile / "read_file.py", str(secret_file))
    assert "read_file: blocked" in log and "No such file" in log
    _, log = await run_to_end(mode, hostile / "read_file.py", str(Path(__file__)))  # another "bot's" code
    assert "read_file: blocked" in log


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_namespaces_show_its_own_folder_read_only(hostile, mode):
    _, log = await run_to_end(mode, hostile / "read_file.py", str(hostile / "echo.py"))
    assert "read_file: read" in log


@needs_root
async def test_rlimit_uid_cannot_read_private_files(hostile, tmp_path):
    secret = tmp_path / "private.db"  # the arena's files that are not world-readable
    secret.write_bytes(b"secret")
    secret.chmod(0o600)
    _, log = await run_to_end("rlimit", hostile / "read_file.py", str(secret))
    assert "read_file: blocked" in log and "Permission denied" in log


@pytest.mark.parametrize("mode", [FORK, BWRAP, pytest.param("rlimit", marks=pytest.mark.skipif(
    not ROOT, reason="rlimit confines writes only through the throw-away uid, which needs root"))])
async def test_writes_only_in_the_temp_dir(hostile, tmp_path, mode):
    target = tmp_path / "results.db"
    returncode, log = await run_to_end(mode, hostile / "write_outside.py", str(target))
    assert returncode == 0, log
    assert f"write_outside: blocked {target}" in log
    # its own folder: at runtime.BOT_MOUNT in fork and bwrap; in rlimit the bot's own (as the
    # arena's user), or the throw-away uid's run folder holding its copy (runtime.for_uid)
    assert re.search(r"write_outside: blocked (/bot|/\S*/hostile|/\S*/run-\w+/bot-\w+)/planted\.py", log), log
    assert "write_outside: temp dir ok (5 bytes)" in log
    assert not target.exists() and not (hostile / "planted.py").exists()


@pytest.mark.parametrize("mode", [FORK, BWRAP, pytest.param("rlimit", marks=pytest.mark.skipif(
    not ROOT, reason="without root the bot runs as the arena's user and may signal its processes"))])
async def test_cannot_signal_other_processes(hostile, mode):
    victim = subprocess.Popen(["sleep", "60"])
    try:
        returncode, log = await run_to_end(mode, hostile / "signal_others.py", str(victim.pid))
        assert f"signal_others: blocked {victim.pid}" in log
        assert victim.poll() is None
        if mode == "rlimit":  # the parent is the arena itself
            assert returncode == 0 and f"signal_others: blocked {os.getpid()}" in log
        elif mode == "fork" and ROOT:  # the parent is the namespace's init, which runs as root
            assert returncode == 0 and "signal_others: blocked 1 " in log
        else:  # the parent is the sandbox's init, of the bot's own user (bwrap's, or fork's without
            # root), which the kernel shields from signals sent inside its namespace
            assert "signal_others: killed 1" in log
    finally:
        victim.kill()
        victim.wait()


@pytest.mark.parametrize("mode", CONFINED)
async def test_memory_is_bounded(hostile, mode):
    returncode, log = await run_to_end(mode, hostile / "memory_hog.py", limits=Limits(memory_bytes=256 << 20))
    assert returncode == 1
    allocated = int(log.split("MemoryError after ")[1].split()[0])
    assert 0 <= allocated < 256


@pytest.mark.parametrize("mode", CONFINED)
async def test_cpu_time_is_bounded(hostile, mode):
    returncode, log = await run_to_end(mode, hostile / "cpu_spin.py", limits=Limits(cpu_seconds=1))
    # bwrap reports its child's death by signal N as exit status 128 + N
    assert returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU), log


@pytest.mark.parametrize("mode", CONFINED)
async def test_file_size_is_bounded(hostile, mode):
    returncode, log = await run_to_end(mode, hostile / "big_file.py", limits=Limits(file_bytes=1 << 20))
    assert returncode == 0
    assert "big_file: stopped after 1048576 bytes" in log and "File too large" in log


@pytest.mark.parametrize("mode", CONFINED)
async def test_fork_bomb_is_bounded(hostile, mode):
    returncode, log = await run_to_end(mode, hostile / "fork_bomb.py", limits=Limits(processes=16))
    assert returncode == 0 and log.endswith("done\n")
    assert "fork_bomb: refused after" in log, log
    forked = int(log.split("refused after ")[1].split()[0])
    assert forked <= 16
    if mode == "fork":  # the limit counts the bot's own processes only (a throw-away uid, or a user
        assert forked == 15, log  # namespace of its own), so it forks exactly up to it


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_a_namespaced_bot_sees_only_its_own_processes(open_dir, mode):
    script = open_dir / "ps.py"
    script.write_text("import os, sys\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n")
    _, said = await run_to_end(mode, script)
    # bwrap's init runs as the bot's user; fork's is root, or not dumpable (without root), and
    # hidden (hidepid=2): only the bot
    assert said == ("[2]\n" if mode == "fork" else "[1, 2]\n")


CREDENTIALS_PROBE = """import sys
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(" ".join(f"{key}={status[key].split()[0]}" for key in ("Uid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                                           "NoNewPrivs", "Seccomp")))
"""


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_a_namespaced_bot_holds_no_capabilities_and_no_new_privileges(open_dir, mode):
    """Without root the fork sandbox changes no uid (which would have dropped every capability):
    its bot drops them itself, the bounding set included, in a user namespace that owns nothing."""
    script = open_dir / "credentials.py"
    script.write_text(CREDENTIALS_PROBE)
    script.chmod(0o644)
    _, said = await run_to_end(mode, script)
    fields = dict(item.split("=") for item in said.split())
    assert {k: fields[k] for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")} == dict.fromkeys(
        ("CapInh", "CapPrm", "CapEff", "CapAmb"), "0000000000000000"), said
    assert fields["NoNewPrivs"] == "1" and fields["Seccomp"] == "2", said
    if not ROOT:  # the arena's own user, as outside; no capability left to gain back
        assert fields["Uid"] == str(os.getuid()) and fields["CapBnd"] == "0000000000000000", said


KIT_PROBE = """import sys
import importlib._bootstrap_external as loading
compiled = []
source_to_code = loading.SourceLoader.source_to_code
loading.SourceLoader.source_to_code = lambda self, data, path, **kw: compiled.append(path) or source_to_code(self, data, path, **kw)
import botkit
print("compiled", compiled)
"""


@pytest.mark.parametrize("mode", CONFINED)
async def test_a_sandboxed_bot_loads_the_kit_compiled(open_dir, mode):
    """The kit's bytecode stands beside it in the sandbox (sandbox.kit_binds): a bot's start
    does not compile it."""
    script = open_dir / "kit.py"
    script.write_text(KIT_PROBE)
    script.chmod(0o644)
    _, said = await run_to_end(mode, script)
    assert said == "compiled []\n"


ENGINE_PROBE = """from engine import zwicker
state = zwicker.deal("jensen", seed=7)
print("engine", len(state.legal_moves()), zwicker.__file__.startswith(sys.argv[1]))
print("done")
"""


@pytest.mark.parametrize("mode", [*CONFINED, "none"])
async def test_a_sandboxed_bot_can_import_the_engine(open_dir, mode):
    """A Python bot can simulate: the rules engine stands read-only beside the kit (bwrap and
    fork bind it under KIT_MOUNT, rlimit and none put the repository on the path)."""
    script = open_dir / "engine_probe.py"
    script.write_text("import sys\n" + ENGINE_PROBE)
    script.chmod(0o644)
    where = sandbox.KIT_MOUNT if mode in ("fork", "bwrap") else str(runtime.runtime())
    _, said = await run_to_end(mode, script, where)
    assert said == f"engine {len(zwicker.deal('jensen', seed=7).legal_moves())} True\ndone\n"


@needs_root
@pytest.mark.parametrize("mode", CONFINED)
async def test_a_bot_in_a_private_folder_runs_from_a_readable_copy(open_dir, mode):
    """A clone in a 0700 home: the throw-away uid cannot reach the bot's folder, so the bot runs
    from the arena's copy, whose folders it may enter; the files keep their modes (a private
    one stays unreadable), and the user's own folder stays as private as it was."""
    home = open_dir / "home"
    folder = home / "mybot"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    (folder / "secret.txt").write_text("private")
    (folder / "secret.txt").chmod(0o600)
    script = folder / "bot.py"
    script.write_text(f"import os\nprint(open('notes.txt').read(), os.getcwd() != {str(folder)!r}, flush=True)\n"
                      "try:\n    open('secret.txt').read()\nexcept OSError as e:\n    print(e.strerror, flush=True)\n"
                      "print('done', flush=True)\n")
    home.chmod(0o700)
    folder.chmod(0o700)
    _, said = await run_to_end(mode, script)
    assert said == "mine True\nPermission denied\ndone\n"
    assert home.stat().st_mode & 0o777 == 0o700 and (folder / "secret.txt").stat().st_mode & 0o777 == 0o600


@needs_fork
@pytest.mark.skipif(ROOT, reason="as root the bot runs as a throw-away uid (the test above)")
async def test_without_root_a_fork_bot_runs_from_its_own_private_folder(open_dir):
    """An ordinary user's bot is that user in a user namespace of its own, shown (a copy of) its
    folder at runtime.BOT_MOUNT; the user's folder stays private."""
    home = open_dir / "home"
    folder = home / "mybot"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    script = folder / "bot.py"
    script.write_text("import os\nprint(open('notes.txt').read(), os.getcwd(), os.getuid(), flush=True)\n"
                      "print('done', flush=True)\n")
    home.chmod(0o700)
    folder.chmod(0o700)
    _, said = await run_to_end("fork", script)
    assert said == f"mine {runtime.BOT_MOUNT} {os.getuid()}\ndone\n"
    assert home.stat().st_mode & 0o777 == 0o700


MOUNTS_BOT = """import sys
for name in ("/proc/self/mountinfo", "/proc/self/mounts", "/proc/mounts"):
    print(name, open(name).read().replace("\\n", " | "), flush=True)
print("done", flush=True)
"""


@pytest.mark.parametrize("control", [False, True], ids=["shown", "control"])
@pytest.mark.parametrize("mode", NAMESPACED)
async def test_the_mount_table_names_neither_the_bots_folder_nor_the_stage(open_dir, mode, control, monkeypatch):
    """mountinfo and mounts list every mount's source path within its file system: a bot must
    not read there where the arena keeps its stage or the bot's own folder. The positive
    control binds the bot's real folder instead of its copy: the same probe then reads its path."""
    folder = open_dir / "where-the-bot-lives"
    folder.mkdir()
    (folder / "bot.py").write_text(MOUNTS_BOT)
    if control:
        monkeypatch.setattr(runtime, "_bot_copy", lambda folder, stamp: folder)
    status, said = await run_to_end(mode, folder / "bot.py")
    assert status == 0 and said.count("/proc/") >= 3, said
    if control:
        assert str(folder) in said
        return
    for secret in (str(folder), folder.name, str(runtime.stage()), runtime.stage().name, str(open_dir)):
        assert secret not in said, (secret, said)
    assert f" {runtime.BOT_MOUNT} " in said  # where it is shown instead


def _named(text: str) -> set[str]:
    """The names mountinfo gives the sources of its mounts that are not shown where they lie
    (a path bound at its own place tells nothing), split at '/', '-' and '.'."""
    names = set()
    for line in text.split(" | "):
        fields = line.split()
        if len(fields) > 4 and fields[3] != fields[4]:
            names.update(re.split(r"[/.-]", fields[3]))
    return names


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_the_mount_table_names_neither_the_arenas_user_nor_its_paths(open_dir, mode):
    """A bot learns nothing of the host's user from its mount table: not the arena's uid or user
    name in a source's name (the view's copy on /dev/shm once carried the uid), nor the
    repository's path or its own source's. (As an ordinary user the bot is that user, and the
    kernel shows a tmpfs owner's uid in its options: only the names are the arena's to choose.)"""
    import pwd

    folder = open_dir / "a-bot-of-its-own"
    folder.mkdir()
    (folder / "bot.py").write_text(MOUNTS_BOT)
    status, said = await run_to_end(mode, folder / "bot.py")
    assert status == 0 and said.count("/proc/") >= 3, said
    mountinfo = said.split("/proc/self/mountinfo ", 1)[1].split("\n/proc/self/mounts ", 1)[0]
    names = _named(mountinfo)
    assert {"usr", "bot", "kit"} <= names, mountinfo  # the probe reads the sources' names
    assert str(os.geteuid()) not in names and pwd.getpwuid(os.geteuid()).pw_name not in names, mountinfo
    for secret in (str(runtime.ROOT), str(folder), str(folder / "bot.py")):
        assert secret not in said, (secret, said)


def test_the_views_copy_is_used_only_when_it_and_its_link_are_ours(tmp_path):
    """The view's copy lies in /dev/shm, where anyone may make a folder or a link: one that another
    user could write to, or a link that leads elsewhere, is never bound as a bot's /usr."""
    good = tmp_path / "zwicker-usr-good"
    (good / "usr").mkdir(parents=True)
    link = tmp_path / "zwicker-usr-0123"
    link.symlink_to(good.name)
    assert sandbox._trusted_copy(link) == str(good / "usr")
    good.chmod(0o775)
    assert sandbox._trusted_copy(link) is None  # its group may write to it
    good.chmod(0o755)
    for target in (str(good), "elsewhere"):
        link.unlink()
        link.symlink_to(target)
        assert sandbox._trusted_copy(link) is None
    if ROOT:
        link.unlink()
        link.symlink_to(good.name)
        os.chown(good, 12345, 12345, follow_symlinks=False)
        assert sandbox._trusted_copy(link) is None  # another user's folder
        os.chown(good, 0, 0)
        os.chown(link, 12345, 12345, follow_symlinks=False)
        assert sandbox._trusted_copy(link) is None  # another user's link


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_a_bot_whose_folder_changed_runs_from_a_new_copy(open_dir, mode):
    folder = open_dir / "changing"
    folder.mkdir()
    (folder / "bot.py").write_text("print(open('value.txt').read(), flush=True)\nprint('done', flush=True)\n")
    for value in ("one", "two"):
        (folder / "value.txt").write_text(value)
        assert await run_to_end(mode, folder / "bot.py") == (0, f"{value}\ndone\n")


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_a_folders_copy_serves_every_start_and_goes_with_the_folder(open_dir, mode):
    """One copy while the folder stays as it is; a changed folder's old copy, and the copy of a
    folder that is gone (a checked submission's temp folder), are removed at the next start."""
    def copies() -> set[Path]:
        return set(runtime.copies().glob("bot-*"))

    folder, other = open_dir / "passing", open_dir / "other"
    for f in (folder, other):
        f.mkdir()
        (f / "bot.py").write_text("print('done', flush=True)\n")
    before = copies()
    assert await run_to_end(mode, folder / "bot.py") == (0, "done\n")
    made = copies() - before
    assert len(made) == 1
    assert await run_to_end(mode, folder / "bot.py") == (0, "done\n")
    assert copies() - before == made  # the same copy again
    (folder / "notes.txt").write_text("changed")
    assert await run_to_end(mode, folder / "bot.py") == (0, "done\n")
    changed = copies() - before
    assert len(changed) == 1 and changed != made  # the outdated copy went
    shutil.rmtree(folder)
    assert await run_to_end(mode, other / "bot.py") == (0, "done\n")
    assert len(copies() - before) == 1 and not changed & copies()  # the gone folder's copy went too


ARENA_SCRIPT = """
import sys, trio
from arena.process.command import ARENA_ID, BotCommand
from arena.process.lifecycle import open_bot

async def main():
    cmd = BotCommand.from_spec(sys.argv[2] + " --raw")
    async with open_bot(cmd, sandbox=sys.argv[1]) as bot:
        assert await bot.stdout.receive_some(100) == b"done\\n"
        print(ARENA_ID, flush=True)
        await trio.sleep_forever()

trio.run(main)
"""


async def kill_an_arena(hostile: Path, mode: str, look: Callable[[int, str], T]) -> T:
    """Start an arena with one bot in `mode`, call `look(arena pid, arena id)` while it runs,
    SIGKILL the arena, wait until the kernel has taken its bots down; what `look` returned."""
    arena = await trio.lowlevel.open_process(
        [sys.executable, "-c", ARENA_SCRIPT, mode, str(hostile / "ignore_sigterm.py")],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    with trio.fail_after(60):
        arena_id = (await arena.stdout.receive_some(100)).decode().strip()
        seen = look(arena.pid, arena_id)
        arena.kill()
        await arena.wait()
        await arena.stdout.aclose()
        while leftover_bot_pids(arena_id):
            await trio.sleep(0.01)  # the kernel delivers the parent-death signals
    return seen


@pytest.mark.parametrize("mode", ["none", *CONFINED])
async def test_bots_die_with_a_killed_arena(hostile, mode):
    """An arena killed by SIGKILL cannot clean up: the parent-death signal takes its bots down."""
    assert await kill_an_arena(hostile, mode, lambda pid, arena_id: leftover_bot_pids(arena_id))


@needs_fork
async def test_a_killed_arenas_fork_scratch_folder_is_swept(hostile):
    """A fork server's scratch folder outlives an arena killed outright; the next sweep removes it."""
    (scratch,) = await kill_an_arena(
        hostile, "fork", lambda pid, arena_id: list(forking.SCRATCH.glob(f"{forking.SCRATCH_PREFIX}{pid}-*")))
    assert scratch.is_dir()  # nobody was left to remove it
    assert str(scratch) in forking.sweep_scratch()
    assert not scratch.exists()


def test_the_scratch_sweep_takes_only_dead_arenas_empty_folders(tmp_path, monkeypatch):
    from arena.process.command import OWNER, _start_time

    monkeypatch.setattr(forking, "SCRATCH", tmp_path)
    gone = subprocess.Popen(["true"])
    dead = f"{gone.pid}-{_start_time(gone.pid)}"
    gone.wait()
    names = {"dead": f"zwicker-fork-{dead}-a1b2", "busy": f"zwicker-fork-{dead}-c3d4",
             "ours": f"zwicker-fork-{OWNER.replace(':', '-')}-e5f6", "alive": f"zwicker-fork-1-{_start_time(1)}-g7h8",
             "unnamed": "zwicker-fork-i9j0"}
    for name in names.values():
        (tmp_path / name).mkdir()
    (tmp_path / names["busy"] / "something").write_text("")  # not an empty mount point: not ours to delete
    assert forking.sweep_scratch() == [str(tmp_path / names["dead"])]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n for k, n in names.items() if k != "dead")


def test_the_stage_sweep_takes_a_dead_arenas_stage_and_what_it_showed_its_bots(tmp_path, monkeypatch):
    from arena.process.command import OWNER, _start_time

    temp, shm = tmp_path / "tmp", tmp_path / "shm"
    temp.mkdir()
    shm.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(runtime, "SHM", str(shm))
    gone = subprocess.Popen(["true"])
    dead = f"{gone.pid}-{_start_time(gone.pid)}"
    gone.wait()
    stages = {"dead": temp / f"zwicker-stage-{dead}-a1b2", "alive": temp / f"zwicker-stage-1-{_start_time(1)}-c3d4"}
    shown = {"dead": shm / "zwicker-abcd1234", "alive": shm / "zwicker-efgh5678", "ours": shm / "zwicker-ijkl9012",
             "view": shm / "zwicker-usr-q1w2e3r4", "making": shm / "zwicker-mnop3456"}
    owners = {"dead": dead.replace("-", ":"), "alive": f"1:{_start_time(1)}", "ours": OWNER}
    for stage in stages.values():
        stage.mkdir()
    for key, folder in shown.items():
        (folder / "kit").mkdir(parents=True)
        if key in owners:
            (folder / runtime.OWNER_FILE).write_text(owners[key])
    frozen = shown["dead"] / "proc" / "sys" / "fs"  # as the snapshot of /proc leaves its folders: 0555
    frozen.mkdir(parents=True)
    (frozen / "file-max").write_text("9")
    for path in (frozen, frozen.parent, frozen.parent.parent):
        path.chmod(0o555)
    (shm / "zwicker-usr-0123456789abcdef").symlink_to(shown["view"].name)  # the view's link
    theirs = temp / f"zwicker-stage-{dead}-e5f6"  # a dead arena of another user's: never ours to sweep
    if os.geteuid() == 0:
        (theirs / "inside").mkdir(parents=True)
        for path in (theirs / "inside", theirs):
            os.chown(path, 65534, 65534)
        theirs.chmod(0o711)  # as a stage is: its owner's alone to list
    assert sorted(runtime.sweep_stages()) == sorted([str(shown["dead"]), str(stages["dead"])])
    assert sorted(p.name for p in shm.iterdir()) == sorted([*(f.name for k, f in shown.items() if k != "dead"),
                                                            "zwicker-usr-0123456789abcdef"])
    assert sorted(p.name for p in temp.iterdir()) == sorted([stages["alive"].name] + [theirs.name] * theirs.exists())


def test_default_mode_falls_back_to_rlimit_with_one_warning_line(monkeypatch, capsys):
    caches = (modes.default_mode, sandbox.bwrap_problem, sandbox.sandbox_python_problem, forking.problem)
    monkeypatch.setenv(sandbox.SANDBOX_PYTHON_VAR, "/nonexistent/python3")
    for cache in caches:
        cache.cache_clear()
    try:
        assert modes.default_mode() == "rlimit"
        assert modes.default_mode() == "rlimit"  # warned once only
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert err.startswith("arena: warning: no sandbox isolates bots here (bwrap: ")
        assert "; fork: " in err
        assert "/nonexistent/python3" in err  # the fork sandbox's trial needs the sandbox's Python
        assert err.endswith("bots run with --sandbox rlimit, which limits each bot's resources but does not keep "
                            "partners from talking to each other\n")
    finally:
        monkeypatch.undo()
        for cache in caches:
            cache.cache_clear()


@needs_fork
def test_without_bwrap_the_default_is_the_arenas_own_fork_sandbox(monkeypatch, capsys):
    """A fresh machine has no bubblewrap: the arena confines bots itself, silently (as root, or
    as an ordinary user where the kernel allows unprivileged user namespaces)."""
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bwrap is not installed")
    modes.default_mode.cache_clear()
    try:
        assert modes.default_mode() == "fork"
        assert capsys.readouterr().err == ""
    finally:
        modes.default_mode.cache_clear()


USERNS = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
result = libc.unshare(0x10000000)
print("userns", "created" if result == 0 else os.strerror(ctypes.get_errno()))
"""


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_no_user_namespaces_for_a_namespaced_bot(open_dir, mode):
    script = open_dir / "userns.py"
    script.write_text(USERNS)
    _, said = await run_to_end(mode, script)
    assert said.startswith("userns ") and "created" not in said, said


async def test_user_namespaces_are_open_without_a_sandbox(open_dir):  # the positive control
    script = open_dir / "userns.py"
    script.write_text(USERNS)
    _, said = await run_to_end("none", script)
    assert said == "userns created\n"


IN_PROCESS = """import atexit, os, random, sys, threading, time
print("name", __name__, "argv", sys.argv[1:], "path0", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
print("random", random.random())
atexit.register(lambda: print("atexit ran", flush=True))
def late():
    time.sleep(0.05)
    print("thread done", flush=True)
threading.Thread(target=late).start()
if sys.argv[1] == "raise":
    raise ValueError("the bot's own error")
sys.exit(int(sys.argv[1]))
"""


@needs_fork
async def test_a_python_bot_in_the_fork_server_runs_as_under_its_own_interpreter(open_dir):
    script = open_dir / "inproc.py"
    script.write_text(IN_PROCESS)
    cmd = BotCommand.from_spec(f"{script} 3 --flag")
    async with forking.serving("fork"):  # one server: two bots forked from the same interpreter
        runs = []
        for _ in range(2):
            async with open_bot(cmd, sandbox="fork") as bot:
                said = b""
                while chunk := await bot.stdout.receive_some(4096):
                    said += chunk
                runs.append((await bot.wait(), said.decode()))
        async with open_bot(BotCommand.from_spec(f"{script} raise"), sandbox="fork") as bot:
            status = await bot.wait()
            while await bot.stdout.receive_some(4096):
                pass
        assert status == 1 and "ValueError: the bot's own error" in bot.stderr_log()
    (status, said), (_, said_again) = runs
    assert status == 3
    lines = said.splitlines()
    assert lines[0] == "name __main__ argv ['3', '--flag'] path0 True"
    assert lines[2:] == ["thread done", "atexit ran"]
    assert lines[1] != said_again.splitlines()[1]  # each bot's random is seeded afresh


@needs_fork
async def test_a_failed_fork_start_is_one_clear_error(hostile, tmp_path):
    async with forking.serving("fork") as server:
        request = sandbox.fork_request(["/nonexistent/program"], tmp_path / "missing", False, Limits(),
                                       sandbox.allocate_uid(), {}, [])
        ends = [os.pipe() for _ in range(3)]
        try:
            with pytest.raises(OSError, match=r"^sandbox fork: .*missing.*No such file or directory"):
                await server.start(request, [ends[0][0], ends[1][1], ends[2][1]], ends[0][1])
            del request["binds"]  # an init that dies before it is ready must not leave us waiting
            with pytest.raises(OSError, match=r"^sandbox fork: the bot's sandbox exited with status 1 before"):
                await server.start(request, [ends[0][0], ends[1][1], ends[2][1]], ends[0][1])
        finally:
            for read, write in ends:
                os.close(read)
                os.close(write)


async def _holding(bot, marker: bytes = b"holding\n") -> str:
    said = b""
    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        while not said.endswith(marker) and (chunk := await bot.stdout.receive_some(4096)):
            said += chunk
    return said.decode()


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_partners_cannot_pass_a_number_through_locks_on_a_shared_file(hostile, mode):
    """Two bots see the same read-only /usr: a byte-range lock (fcntl, OFD) or flock on a file
    there would carry a number from one to the other. The seccomp filter refuses them."""
    script = hostile / "partner_channel.py"
    async with open_bot(BotCommand.from_spec(f"{script} lock 4242"), sandbox=mode) as sender:
        sent = await _holding(sender)
        _, got = await run_to_end(mode, script, "getlk")
        await sender.stdin.aclose()
    assert "blocked fcntl lock" in sent and "blocked ofd lock" in sent and "blocked flock" in sent, sent
    assert "4242" not in got and "4243" not in got and "held by another" not in got, got


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_partners_cannot_pass_a_name_through_inotify(hostile, mode):
    """A bot watching a shared folder with inotify would see which file its partner opens."""
    script = hostile / "partner_channel.py"
    async with open_bot(BotCommand.from_spec(f"{script} watch"), sandbox=mode) as watcher:
        said = await _holding(watcher, b"\n")
        if said.startswith("watching"):
            await run_to_end(mode, script, "open", "3")
            said += await _holding(watcher, b"done\n")
        await watcher.stdin.aclose()
    assert said.startswith("blocked inotify"), said


needs_cgroups = pytest.mark.skipif(not cgroups.available(), reason="no writable memory, pids and cpu cgroups (needs root)")


@needs_cgroups
@pytest.mark.parametrize("mode", CONFINED)
async def test_the_memory_limit_holds_for_a_bot_and_all_its_children(hostile, mode):
    """Four children of one bot touching 300 MiB each: the bot's cgroup allows 512 MiB for all."""
    limits = Limits(memory_bytes=512 << 20)
    _, said = await run_to_end(mode, hostile / "memory_children.py", limits=limits)
    held = int(said.split("memory_children: ")[1].split()[0])
    assert held < 2, said


@needs_cgroups
def test_the_sweep_removes_only_the_groups_of_dead_arenas():
    """A live arena's bot group is empty for a moment before its bot joins it: a sweep by
    another arena must leave it (a bot once failed to join its removed group)."""
    from arena.process.command import _start_time

    live = cgroups.BotGroup(64 << 20, 8, None)
    gone = subprocess.Popen(["sleep", "60"])
    started = _start_time(gone.pid)
    gone.kill()
    gone.wait()
    dead = [group.parent / f"{cgroups.GROUP_PREFIX}{gone.pid}-{started}" / "bot-x"
            for group in cgroups.arena_groups()]
    try:
        for folder in dead:
            folder.mkdir(parents=True)
        removed = cgroups.sweep_stale()
        assert all(folder.exists() for folder in live.folders)
        assert all(str(folder) in removed and not folder.parent.exists() for folder in dead)
    finally:
        live.remove()
        for folder in dead:
            for f in (folder, folder.parent):
                if f.exists():
                    f.rmdir()


def test_a_fork_bots_process_limit_counts_the_users_tasks_only_on_old_kernels(monkeypatch):
    """Before 5.14 the kernel counted RLIMIT_NPROC per user, not per user namespace: a bot of an
    unprivileged server then gets the user's running tasks on top of its own limit."""
    limits = Limits(processes=16)
    request = lambda uid: sandbox.fork_request(["/bin/true"], Path("/tmp"), False, limits, uid, {}, [])  # noqa: E731
    monkeypatch.setattr(sandbox, "_kernel", lambda: (6, 1))
    assert request(None)["limits"]["processes"] == request(4242)["limits"]["processes"] == 16
    monkeypatch.setattr(sandbox, "_kernel", lambda: (5, 10))
    assert request(4242)["limits"]["processes"] == 16
    assert request(None)["limits"]["processes"] > 16  # this test's own process at least


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_a_bot_holds_nothing_of_the_bots_started_before_it(hostile, mode):
    """In fork mode a Python bot is a copy of the server's memory: the server gets only a
    request's id (the command line, folder, environment and uid go down the bot's own stdin), so
    a bot that scans its own memory, started after three others as in a room, finds neither
    their command lines nor their tags."""
    script = hostile / "scan_memory.py"
    markers = [f"zwicker-marker-{os.urandom(8).hex()}" for _ in range(3)]
    holders = []
    async with forking.serving(mode), AsyncExitStack() as stack:
        for marker in markers:
            cmd = BotCommand.from_spec(str(script))
            holder = await stack.enter_async_context(open_bot(
                BotCommand(cmd.argv + ("hold", f"{marker} " * 50), cmd.workdir, cmd.kind), sandbox=mode))
            assert "holding" in await _holding(holder)
            holders.append(holder)
        _, said = await run_to_end(mode, script, "scan")
    assert said.endswith("done\n"), said
    assert not [m for m in markers if m in said] and not [h.tag for h in holders if f"{h.tag}\n" in said], said


HOST_COUNTERS = ("vmstat", "meminfo", "sys/fs/file-nr")  # what the bot surely moves


async def test_without_a_sandbox_a_bot_moves_the_machines_counters(hostile):  # the positive control
    _, said = await run_to_end("none", hostile / "host_counters.py")
    assert all(f"moved {name}" in said for name in HOST_COUNTERS), said


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_a_namespaced_bot_sees_the_machines_counters_frozen(hostile, mode):
    """/proc's machine-wide files (vmstat, meminfo, stat, loadavg, pressure, /proc/sys/fs, ...)
    are a snapshot taken once per arena process: 64 MiB of shared memory moves nothing there."""
    _, said = await run_to_end(mode, hostile / "host_counters.py")
    assert said.endswith("done\n") and "moved" not in said and all(f"same {n}" in said for n in HOST_COUNTERS), said


TMPFS_COUNTER_WAYS = ("memfd_create", "shared anonymous mapping", "shared mapping of /dev/zero")


async def test_without_a_sandbox_a_bot_takes_inodes_from_the_kernels_tmpfs_counter(hostile):  # the control
    _, said = await run_to_end("none", hostile / "shared_counter.py")
    numbers = [int(re.search(rf"made {way} inode (\d+)", said)[1]) for way in TMPFS_COUNTER_WAYS]
    assert numbers == sorted(numbers) and len(set(numbers)) == 3 and "uptime moved" in said, said


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_a_namespaced_bot_takes_no_inode_from_a_machine_wide_counter(hostile, mode):
    """memfd_create and anonymous shared mappings number their inodes from one counter of the
    kernel's tmpfs (a partner reads what a bot moved it by): refused by the filter (EPERM), a
    shared mapping of /dev/zero by the sandbox's /dev (ENODEV). shm_open's file lies on the bot's
    own /tmp, a tmpfs of its own; /proc/uptime is in the frozen snapshot."""
    _, said = await run_to_end(mode, hostile / "shared_counter.py")
    assert said.endswith("done\n"), said
    assert "blocked memfd_create: Operation not permitted" in said, said
    assert "blocked shared anonymous mapping: Operation not permitted" in said, said
    assert "blocked shared mapping of /dev/zero: No such device" in said, said
    made = re.search(r"made shm_open file inode \d+ on device (\d+)", said)  # fork: on its own /tmp
    assert int(made[1]) != os.stat("/dev/shm").st_dev if made else "blocked shm_open file: Read-only" in said, said
    assert "uptime same" in said, said


RUNTIMES = {"python3": ("run.py", "import mmap\nmmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)\nprint('runs')\n"),
            "node": ("run.js", "require('fs'); require('child_process'); console.log('runs');\n")}


@pytest.mark.parametrize("program", RUNTIMES)
@pytest.mark.parametrize("mode", NAMESPACED)
async def test_the_interpreters_bots_use_run_under_the_filter(open_dir, mode, program):
    """The filter refuses shared anonymous memory: private memory, what runtimes map, stays."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    name, code = RUNTIMES[program]
    (open_dir / name).write_text(code)
    said = b""
    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        async with open_bot(BotCommand.from_spec(str(open_dir / name)), sandbox=mode) as bot:
            while chunk := await bot.stdout.receive_some(4096):
                said += chunk
            assert await bot.wait() == 0, bot.stderr_log()
    assert said == b"runs\n"


def test_without_writable_cgroups_the_sandbox_names_the_missing_limits(monkeypatch):
    """Where bots get only per-process limits (an ordinary user: no writable cgroups), the run's
    header and `bot check` say so after the mode's name, as rlimit's warning says what it lacks."""
    if cgroups.available():  # as root: the same machine without them
        assert modes.label("fork") == "fork"
        monkeypatch.setattr(cgroups, "available", lambda: False)
    for mode in ("fork", "bwrap"):
        assert modes.label(mode) == f"{mode} (without whole-bot limits: no writable cgroups here, only each process's own)"
    assert modes.label("rlimit") == (f"rlimit (without whole-bot limits: no writable cgroups here, only each "
                                     f"process's own) ({modes.NOT_FROZEN})")  # and no PID namespace to stop
    assert modes.label("none") == f"none ({modes.NOT_FROZEN})"
