"""The bot-process layer: real subprocesses, started and always killed and reaped."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from arena.process.command import ARENA_ID, TAG_VAR, BotCommand, Limits
from arena.process.lifecycle import (
    BotProcess,
    bot_pids,
    leftover_bot_pids,
    open_bot,
    open_bots,
)


async def read_line(stream: trio.abc.ReceiveStream) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = await stream.receive_some(4096)
        if not chunk:
            break
        data += chunk
    return data


def alive(pid: int) -> bool:
    """True if `pid` is a live process (a zombie awaiting its reaper counts as dead)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    state = status.split("State:", 1)[1].split()[0]
    return state not in ("Z", "X")


def test_from_spec_python_script(hostile):
    cmd = BotCommand.from_spec(str(hostile / "echo.py"))
    assert cmd.argv == (sys.executable, str(hostile / "echo.py"))
    assert cmd.workdir == hostile
    assert cmd.kind == "python"


@pytest.mark.parametrize("ending", [".js", ".mjs", ".cjs"])
def test_from_spec_node_script(tmp_path, ending):
    script = tmp_path / f"bot{ending}"
    script.write_text("")
    if not any((Path(p) / "node").exists() for p in os.environ["PATH"].split(os.pathsep)):
        with pytest.raises(ValueError, match="node not found"):
            BotCommand.from_spec(str(script))
        return
    cmd = BotCommand.from_spec(str(script))
    assert Path(cmd.argv[0]).name == "node" and cmd.argv[1] == str(script) and cmd.kind == "node"


def test_from_spec_executable_and_command_string(tmp_path):
    exe = tmp_path / "bot"
    exe.write_text("#!/bin/sh\ncat\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    assert BotCommand.from_spec(str(exe)) == BotCommand((str(exe),), tmp_path, "exec")
    cmd = BotCommand.from_spec(f"python3 -u '{exe}' --level 3")
    assert Path(cmd.argv[0]).name == "python3" and cmd.argv[1:] == ("-u", str(exe), "--level", "3")
    assert cmd.workdir == tmp_path and cmd.kind == "python"


@pytest.mark.parametrize(
    ("spec", "message"),
    [("", "empty"), ("   ", "empty"), ("no_such_bot.py", "no such file"), ("no-such-program-zw --x", "not found"),
     ("'unclosed", "quotation")],
)
def test_from_spec_bad_input_is_one_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        BotCommand.from_spec(spec)


def test_from_spec_plain_file_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(ValueError, match="not executable"):
        BotCommand.from_spec(str(tmp_path / "notes.txt"))


def test_limits_are_validated():
    with pytest.raises(ValueError, match="memory_bytes"):
        Limits(memory_bytes=0)
    with pytest.raises(ValueError, match="processes"):
        Limits(processes=True)


async def test_normal_bot_talks_and_exits_cleanly(hostile):
    async with open_bot(BotCommand.from_spec(str(hostile / "echo.py"))) as bot:
        assert bot.pid > 0 and bot.returncode is None
        await bot.stdin.send_all(b"deal 1\n")
        assert await read_line(bot.stdout) == b"deal 1\n"
        await bot.stdin.aclose()  # end of input: the bot exits by itself
        assert await bot.wait() == 0
    assert bot.returncode == 0
    assert bot.stderr_log() == "echo bot ready\n"


async def test_bot_that_exits_early(hostile):
    async with open_bot(BotCommand.from_spec(str(hostile / "crash_at_start.py"))) as bot:
        assert await bot.wait() == 1
        assert await bot.stdout.receive_some(100) == b""
        with pytest.raises(trio.BrokenResourceError):
            for _ in range(100):  # the pipe buffer may take a first write
                await bot.stdin.send_all(b"x" * 65536)
    assert "crash_at_start: giving up" in bot.stderr_log()


async def test_bot_ignoring_sigterm_and_eof_is_killed(hostile, autojump_clock):
    async with open_bot(BotCommand.from_spec(f"{hostile / 'ignore_sigterm.py'} --raw")) as bot:
        assert await read_line(bot.stdout) == b"done\n"
    assert bot.returncode == -9
    assert not alive(bot.pid)


async def test_stderr_flood_is_bounded_and_does_not_block_the_bot(hostile):
    limits = Limits(stderr_bytes=4096)
    async with open_bot(BotCommand.from_spec(f"{hostile / 'flood_stderr.py'} --raw"), limits=limits) as bot:
        # 20 MB of stderr came first: seeing "done" proves the bot never blocked on its stderr pipe.
        assert await read_line(bot.stdout) == b"done\n"
    log = bot.stderr_log()
    assert len(log) < 4096 + 100
    assert log.startswith("x" * 100)  # the head is kept ...
    assert log.endswith("flood_stderr: the end\n")  # ... and so is the tail, where a traceback would be
    assert "bytes of stderr dropped" in log


@pytest.mark.parametrize("exit_at_once", [False, True])
async def test_children_meant_to_outlive_the_bot_are_killed(hostile, exit_at_once):
    argv = [str(hostile / "fork_escape.py"), "--raw"] + (["--exit"] if exit_at_once else [])
    cmd = BotCommand((sys.executable, *argv), hostile, "python")
    async with open_bot(cmd) as bot:
        line = await read_line(bot.stdout)
        assert line.startswith(b"pids ")
        escapees = [int(p) for p in line.splitlines()[0].split()[1:]]
        assert len(escapees) == 2 and all(alive(p) for p in escapees)
        assert set(escapees) <= set(bot_pids(bot.tag))
    assert not any(alive(p) for p in escapees)
    assert bot_pids(bot.tag) == []


async def test_cancelling_the_block_kills_the_bot(hostile):
    with trio.CancelScope() as scope:
        async with open_bot(BotCommand.from_spec(f"{hostile / 'ignore_sigterm.py'} --raw"), grace=0) as bot:
            assert await read_line(bot.stdout) == b"done\n"
            scope.cancel()
            await trio.sleep_forever()
    assert scope.cancelled_caught
    assert bot.returncode == -9 and not alive(bot.pid)


async def test_an_exception_in_the_block_kills_the_bot_and_propagates(hostile):
    with pytest.raises(KeyError):
        async with open_bot(BotCommand.from_spec(str(hostile / "silent.py")), grace=0) as bot:
            raise KeyError("table failed")
    assert bot.returncode == -9 and not alive(bot.pid)


async def test_many_bots_at_once(hostile):
    async with trio.open_nursery() as nursery:
        for n in range(8):
            nursery.start_soon(echo_once, hostile, n)
    assert leftover_bot_pids() == []


async def echo_once(hostile: Path, n: int) -> None:
    async with open_bot(BotCommand.from_spec(str(hostile / "echo.py"))) as bot:
        await bot.stdin.send_all(b"%d\n" % n)
        assert await read_line(bot.stdout) == b"%d\n" % n


async def test_a_tables_bots_open_together_and_one_that_cannot_start_is_its_error(hostile, tmp_path):
    echo = BotCommand.from_spec(str(hostile / "echo.py"))
    missing = BotCommand((sys.executable, "bot.py"), tmp_path / "gone", "python")  # no folder to start in
    async with open_bots([echo, missing, echo]) as bots:
        assert isinstance(bots[1], FileNotFoundError)
        for n in (0, 2):
            assert isinstance(bots[n], BotProcess)
            await bots[n].stdin.send_all(b"%d\n" % n)
            assert await read_line(bots[n].stdout) == b"%d\n" % n
    assert all(bot.returncode is not None and not alive(bot.pid) for bot in (bots[0], bots[2]))


async def test_an_exception_among_a_tables_bots_comes_out_as_itself(hostile):
    with pytest.raises(KeyError):
        async with open_bots([BotCommand.from_spec(str(hostile / "silent.py"))] * 3, grace=0) as bots:
            raise KeyError("table failed")
    assert [bot.returncode for bot in bots] == [-9] * 3 and not any(alive(bot.pid) for bot in bots)


def started(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    """`argv` in a new session, once its exec is complete: Popen returns when the exec has
    closed the child's close-on-exec pipe, a moment before the kernel gives the new program
    its environment, and /proc/<pid>/environ reads empty until then (seen under load)."""
    proc = subprocess.Popen(argv, env=env, start_new_session=True)
    deadline = time.monotonic() + 10
    while not Path(f"/proc/{proc.pid}/environ").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.001)
    return proc


def test_leftover_check_finds_a_tagged_process_and_ignores_zombies():
    """The autouse fixture relies on this: a tagged process outside any group is seen until dead."""
    proc = started(["sleep", "60"], {TAG_VAR: f"{ARENA_ID}/leak"})
    try:
        assert proc.pid in leftover_bot_pids()
        assert proc.pid in bot_pids(f"{ARENA_ID}/leak") and bot_pids(f"{ARENA_ID}/lea") == []
        assert leftover_bot_pids("another-arena") == []
    finally:
        proc.kill()
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # a zombie now, not yet reaped
    try:
        assert proc.pid not in leftover_bot_pids()
    finally:
        proc.wait()


def test_an_arena_sweeps_the_bots_of_a_dead_arena():
    """A process tagged with a dead arena as its owner is killed by sweep_orphans; our own and
    those of a live owner are left alone."""
    import subprocess

    from arena.process.command import OWNER, OWNER_VAR, TAG_VAR, _start_time
    from arena.process.lifecycle import sweep_orphans

    gone = subprocess.Popen(["true"])
    gone_owner = f"{gone.pid}:{_start_time(gone.pid)}"
    gone.wait()
    alive_owner = f"1:{_start_time(1)}"
    procs = {
        name: started(["sleep", "60"], {TAG_VAR: "test/1", OWNER_VAR: owner})
        for name, owner in (("orphan", gone_owner), ("ours", OWNER), ("alive", alive_owner))
    }
    try:
        swept = sweep_orphans()
        assert procs["orphan"].pid in swept
        assert procs["orphan"].wait(timeout=10) == -9
        assert procs["ours"].poll() is None and procs["alive"].poll() is None
    finally:
        for p in procs.values():
            p.kill()
            p.wait()


ARENA_THAT_DIES = """
import os, subprocess, sys
from arena.process import command
from arena.process import lifecycle
uid = int(sys.argv[1]) if len(sys.argv) > 1 else None
lifecycle.watchdog(uid)
tag = {command.TAG_VAR: command.ARENA_ID + "/1"}
procs = [subprocess.Popen(["sleep", "60"], env=tag, start_new_session=True)]
if uid is not None:  # as a bot's escapee that dropped its environment: known by its uid alone
    procs.append(subprocess.Popen(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--",
                                   "sleep", "60"], env={}, start_new_session=True))
print(*(p.pid for p in procs), flush=True)
sys.stdin.read()
"""


def test_the_watchdog_kills_what_a_killed_arena_left_behind():
    """Processes of a SIGKILLed arena with no parent-death signal (bwrap's race, an escapee)
    are killed by its watchdog, and not before the arena is gone."""
    uid = [str(0x7A000000 + 4242)] if os.geteuid() == 0 else []
    arena = subprocess.Popen([sys.executable, "-c", ARENA_THAT_DIES, *uid], cwd=Path(__file__).parents[1],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    left = [int(pid) for pid in arena.stdout.readline().split()]
    assert len(left) == 1 + len(uid)
    try:
        time.sleep(0.1)
        assert all(alive(pid) for pid in left)  # the arena lives: nothing is killed
        arena.kill()
        arena.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in left) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(alive(pid) for pid in left)
    finally:
        for pid in left:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        arena.stdin.close()
        arena.stdout.close()
