"""The move scheduler (arena/process/scheduler.py): cores lent by labels, and bots frozen with
everything they started while they hold none, in each sandbox that can freeze, by the cgroup
freezer (root here) and by stopping the bot's PID namespace (as an ordinary user has it)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
import trio
import trio.testing

from arena.play.table import FixedDeals, TimeControl, play_table
from arena.process import cgroups, forking, sandbox, scheduler
from arena.process.command import BotCommand
from arena.process.lifecycle import open_bot
from tests.users import NOBODY, as_nobody

ROOT = Path(__file__).resolve().parents[1]
RANDOM = BotCommand.from_spec(str(ROOT / "bots" / "zwicker" / "random_bot.py"))
needs_bwrap = pytest.mark.skipif(sandbox.bwrap_problem() is not None, reason=f"bwrap: {sandbox.bwrap_problem()}")
needs_fork = pytest.mark.skipif(forking.problem() is not None, reason=f"fork: {forking.problem()}")
MODES = [pytest.param("fork", marks=needs_fork), pytest.param("bwrap", marks=needs_bwrap)]


# -- lending cores ----------------------------------------------------------------------------

async def test_no_more_bots_run_than_there_are_cores_and_no_two_share_a_label():
    s = scheduler.Scheduler(2)
    order = []

    async def one(name: str, labels: set[str], go: trio.Event) -> None:
        await s.acquire(frozenset(labels))
        order.append(name)
        await go.wait()
        s.release(frozenset(labels))

    gates = {name: trio.Event() for name in "abcd"}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(one, "a", {"bot x", "side 0"}, gates["a"])
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(one, "b", {"bot x", "side 1"}, gates["b"])  # the same bot: waits for a
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(one, "c", {"bot y", "side 2"}, gates["c"])  # passes b: nothing of it is held
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(one, "d", {"bot z"}, gates["d"])  # no core free
        await trio.testing.wait_all_tasks_blocked()
        assert order == ["a", "c"] and s.running == 2
        gates["a"].set()  # b (first in line, its label free now) before d
        await trio.testing.wait_all_tasks_blocked()
        assert order == ["a", "c", "b"] and s.running == 2
        gates["c"].set()
        await trio.testing.wait_all_tasks_blocked()
        assert order == ["a", "c", "b", "d"]
        gates["b"].set()
        gates["d"].set()
    assert s.running == 0 and s.running_peak == 2 and s.grants == 4


async def test_a_waiter_cancelled_takes_no_core_and_one_granted_gives_it_back():
    s = scheduler.Scheduler(1)
    await s.acquire(frozenset({"x"}))
    with trio.move_on_after(1) as scope:  # the autojump clock: no real wait
        await s.acquire(frozenset({"y"}))
    assert scope.cancelled_caught and s.running == 1
    s.release(frozenset({"x"}))
    assert s.running == 0
    await s.acquire(frozenset({"x"}))  # the label was given back too
    s.release(frozenset({"x"}))


@pytest.fixture
def autojump(autojump_clock):
    return autojump_clock


test_a_waiter_cancelled_takes_no_core_and_one_granted_gives_it_back = pytest.mark.usefixtures("autojump")(
    test_a_waiter_cancelled_takes_no_core_and_one_granted_gives_it_back)


# -- freezing real bots -----------------------------------------------------------------------

@pytest.fixture(params=["cgroup", "signals"])
def freezing(request, monkeypatch):
    """Each way of freezing this machine offers: the cgroup freezer (root with cgroups), and
    stopping the bot's PID namespace (what an ordinary user has)."""
    if request.param == "cgroup":
        if not cgroups.can_freeze():
            pytest.skip("no writable cgroup freezer here")
    else:
        monkeypatch.setattr(cgroups, "_freezer_base", lambda: None)
        monkeypatch.setattr(cgroups, "available", lambda: False)
        monkeypatch.setattr(cgroups, "_bases", lambda: None)
    return request.param


def cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def states(pids: list[int]) -> set[str]:
    found = set()
    for pid in pids:
        try:
            found.add(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0])
        except OSError:
            pass
    return found


@pytest.mark.parametrize("mode", MODES)
async def test_a_bot_off_its_turn_is_frozen_with_the_children_it_spins(hostile, mode, freezing):
    """The bot forks 30 children that leave its session and spin; once it gives its core back
    none of them runs: stopped, and no CPU time while a whole table of other bots is played."""
    cmd = BotCommand.from_spec(str(hostile / "spin_children.py"))
    cmd = BotCommand((*cmd.argv, "--raw"), cmd.workdir, cmd.kind)
    async with forking.serving(mode), open_bot(cmd, mode, labels=frozenset({"test"})) as bot:
        assert bot.freezer is not None and not bot.holds_core
        await bot.resume()
        said = b""
        while not said.endswith(b"done\n"):  # its 30 children spin
            said += await bot.stdout.receive_some(100)
        await bot.pause()
        with trio.fail_after(60):  # a guard against a hang, not a timing assertion
            while not bot.freezer.frozen():  # the freeze is pending at once, and done a moment later
                await trio.lowlevel.checkpoint()
        if isinstance(bot.freezer, scheduler.SignalFreezer):
            pids = bot.freezer.members()
            assert len(pids) >= 31 and states(pids) <= set("TZ")
        else:
            assert freezing == "cgroup" and bot.freezer.frozen()
            pids = [int(p) for p in (bot.freezer.folder / "cgroup.procs").read_text().split()]
            assert len(pids) >= 31
        before = cpu_ticks(pids)
        result = await play_table([RANDOM] * 4, variant="jensen", plan=FixedDeals([(7, 0), (8, 1)]),
                                  sandbox=mode, time_control=TimeControl(move_s=5))
        assert result.ok
        assert cpu_ticks(pids) == before
        await bot.resume()  # thawed, it still works
        await bot.stdin.send_all(b"x")


# -- a bot's limits are its own ---------------------------------------------------------------

THREADS_TOURNAMENT = """
import json, sys, trio
from pathlib import Path
from arena.process import modes
from arena.results import registry, schema
from arena.tournaments import runner
folder, bot = Path(sys.argv[1]), sys.argv[2]
db = schema.open_db(folder / "t.db")
names = [f"threads{k}" for k in range(4)]
for name in names:
    registry.add_bot(db, bot, name=name, store_dir=folder / "store")
tid = runner.prepare(db, "threads", names, runner.Settings(boards=2, seed=2**60), sandbox="auto")
trio.run(lambda: runner.run(db, tid, concurrency=4, sandbox=modes.resolve_mode(None)))
rows = list(db.query("SELECT forfeit FROM board_tables"))
print(json.dumps({"mode": modes.default_mode(), "tables": len(rows), "faults": [r["forfeit"] for r in rows if r["forfeit"]]}))
"""


def test_four_bots_of_twenty_threads_each_play_a_tournament_as_an_ordinary_user(open_dir):
    """Each bot's process limit counts its own tasks only: as an ordinary user, four bots that
    each start 20 threads (their limit: 32) play every table of a four-player tournament, two
    rooms at once, without a fault (the limit used to count every task of the user)."""
    import json
    import subprocess
    import sys

    prefix: list[str] = []
    if os.geteuid() == 0:
        prefix = [*as_nobody(), "--"]
        os.chown(open_dir, NOBODY, NOBODY)
    out = subprocess.run([*prefix, sys.executable, "-c", THREADS_TOURNAMENT, str(open_dir),
                          str(ROOT / "tests" / "data" / "threads_bot.py")],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "HOME": str(open_dir)})
    assert out.returncode == 0, out.stderr[-2000:]
    said = json.loads(out.stdout.splitlines()[-1])
    if said["mode"] == "rlimit":
        pytest.skip("no sandbox with namespaces for an ordinary user here: rlimit counts the user's tasks")
    assert said["tables"] > 0 and said["faults"] == [], said


async def test_a_cancelled_acquire_never_keeps_the_core():
    s = scheduler.Scheduler(1)
    with trio.CancelScope() as scope:
        scope.cancel()
        await s.acquire(frozenset({"x"}))
    assert s.running == 0


START_REFUSED_BOT = """
import os, sys
with open(sys.argv[1], "a") as f:
    f.write("started\\n")
os.write(2, b"bwrap: Can't fork for pid 1: Resource temporarily unavailable\\n")
"""


async def test_a_table_the_machine_would_not_start_is_played_again_then_stored_as_the_arenas(tmp_path):
    """A start refused for a limit the bot did not reach (bwrap's "Can't fork", said before the
    bot's program runs) is not the bot's: the room plays the table again, ARENA_REPLAYS times,
    and then stores the fault marked as the arena's."""
    from arena.play import room as rooms

    bot = tmp_path / "refused.py"
    bot.write_text(START_REFUSED_BOT)
    starts = tmp_path / "starts"
    refused = BotCommand(("/usr/bin/env", sys.executable, str(bot), str(starts)), tmp_path, "command")
    job = rooms.Job(name="t", seed=2**60, variant={}, format="deal", commands={1: RANDOM, 2: refused},
                    time_control=TimeControl(move_s=5), sandbox="none")
    game, v = job.rules
    stored = []

    async def store(room, boards, records):
        stored.extend(records)

    await rooms.play_room(job, v, rooms.Room(0, 0, (1, 2, 1, 2), (0,)), store)
    assert starts.read_text().count("started") == 2 * (1 + rooms.ARENA_REPLAYS)  # two seats of it, each time
    assert len(stored) == 1 and stored[0]["forfeit"]["arena"] is True


@pytest.mark.parametrize("mode", MODES)
async def test_honest_bots_beside_one_that_spins_children_after_its_handshake_have_no_fault(hostile, mode, freezing):
    """The spinner's 30 children run only in its own turns: its opponents, two tables of them
    at once, play every move in time."""
    spinner = BotCommand.from_spec(str(hostile / "spin_children.py"))
    results = []

    async def one(k: int) -> None:
        results.append(await play_table([spinner, RANDOM, spinner, RANDOM], variant="jensen",
                                        plan=FixedDeals([(11 + k, k)]), sandbox=mode,
                                        time_control=TimeControl(move_s=2, bank_s=2), table_id=f"t{k}"))

    async with forking.serving(mode), trio.open_nursery() as nursery:
        for k in range(2):  # while one table's spinner is on move, the other's honest bots may be
            nursery.start_soon(one, k)
    for result in results:
        assert result.ok, result.forfeit
        assert [result.seats[s].status for s in (1, 3)] == ["ok", "ok"]


def test_fair_plays_the_fixed_tempo_with_many_tables_in_one_process(tmp_path):
    from typer.testing import CliRunner

    from arena.cli import _register, app
    from arena.results import read, schema

    _register()

    bots = ",".join(str(ROOT / "bots" / "zwicker" / name) for name in ("random_bot.py", "first_bot.py"))
    db = tmp_path / "fair.db"
    out = CliRunner().invoke(app, ["tournament", "run", "--bots", bots, "--boards", "2", "--name", "fair", "--fair",
                                   "--move-ms", "20", "--sandbox", "none", "--seed", str(2**60), "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert "fair: fixed tempo, " in out.output and "tables at once" in out.output
    t = read.get_tournament(schema.open_db(db), 1)
    assert t["settings"]["time_control"]["tempo"] == "fixed" and t["boards_done"] == 2
    refused = CliRunner().invoke(app, ["tournament", "run", "--bots", bots, "--name", "x", "--fair", "--tempo", "free",
                                       "--db", str(db)])
    assert refused.exit_code != 0 and "--fair plays the fixed tempo" in str(refused.exception)


def test_bwrap_as_a_user_sets_the_process_limit_inside_the_bots_own_user_namespace():
    """Outside, RLIMIT_NPROC would count every task of the user (other bots' too); bwrap's user
    namespace counts the bot's own, so the limit is set in there, by a shell before the bot."""
    import subprocess

    from arena.process.command import Limits

    if sandbox._kernel() < (5, 14) or not sandbox._sh_is_dash():
        pytest.skip("the kernel counts RLIMIT_NPROC per user namespace from 5.14; the guard's ulimit needs dash")
    shell, inside = sandbox._rlimits(Limits(processes=32), None, extra_processes=2, own_namespace=True)
    assert "ulimit -p" not in shell and "ulimit -v" in shell
    said = subprocess.run([*inside, "/bin/sh", "-c", "ulimit -p"], capture_output=True, text=True, check=True)
    assert said.stdout.strip() == "34"
    shell, inside = sandbox._rlimits(Limits(processes=32), 12345, extra_processes=2, own_namespace=True)
    assert "ulimit -p 34" in shell and inside == []  # a throw-away uid: its tasks are its own anyway


@needs_fork
async def test_a_spinner_and_loop_counter_pair_of_partners_reads_chance(hostile):
    """Partners that pass bits through the CPU they share (children left spinning after a reply
    for a 1, none for a 0; the partner counts its own loop at its next act) read chance: the
    sender and its children are frozen while the partner runs (fork sandbox)."""
    import statistics

    pair = BotCommand.from_spec(str(hostile / "spin_counter.py"))
    result = await play_table([pair, RANDOM, pair, RANDOM], variant="jensen", sandbox="fork",
                              plan=FixedDeals([(21 + k, k) for k in range(2)]),
                              time_control=TimeControl(move_s=1, bank_s=0))
    assert result.ok, result.forfeit
    pairs = []
    for me, partner in ((0, 2), (2, 0)):
        sent = {tuple(line.split()[1:3]): int(line.split()[3]) for line in result.seats[partner].stderr.splitlines()
                if line.startswith("sent ")}
        counts = [(tuple(line.split()[1:3]), int(line.split()[3])) for line in result.seats[me].stderr.splitlines()
                  if line.startswith("count ")]
        median = statistics.median(c for _, c in counts)
        pairs += [(sent[key], int(c < median)) for key, c in counts if key in sent]
    right = sum(bit == read for bit, read in pairs)
    assert len(pairs) >= 30, pairs
    assert right / len(pairs) <= 0.75, (right, len(pairs))


# -- no process of a bot runs beside another of that bot, across the run's processes ------------


def _act_intervals(db) -> dict[int, list[tuple[int, int, str, str]]]:
    """Per bot: (came, replied, process token, boards seen) of every act its processes logged."""
    acts: dict[int, list[tuple[int, int, str, str]]] = {}
    for row in db.query("SELECT bot_id, stderr_tail FROM seats"):
        for line in row["stderr_tail"].splitlines():
            parts = line.split()
            if len(parts) >= 4 and parts[0] == "act":
                acts.setdefault(row["bot_id"], []).append(
                    (int(parts[2]), int(parts[3]), parts[1], parts[4] if len(parts) > 4 else ""))
    return acts


def _overlaps(acts: dict[int, list[tuple[int, int, str, str]]]) -> list[str]:
    """Acts of two processes of one bot that ran at the same time (each with the boards it had seen)."""
    found = []
    for bot, intervals in acts.items():
        intervals = sorted(set(intervals))
        for i, (came, replied, token, seen) in enumerate(intervals):
            for other in intervals[i + 1:]:
                if other[0] >= replied:
                    break
                if other[2] != token:
                    found.append(f"bot {bot}: {token} (seen {seen}) and {other[2]} (seen {other[3]}) "
                                 f"overlap by {(replied - other[0]) / 1e6:.2f} ms")
    return found


@pytest.mark.parametrize("processes", [1, 2])
def test_no_process_of_a_bot_runs_beside_another_of_it_across_the_runs_processes(tmp_path, hostile, processes):
    """Four bots that log, with the monotonic clock, every act they play (2 ms of CPU each) play a
    round robin of every room at once, spread over `processes` arena processes: no two processes
    of one bot (its other room, or its other matches, dealt the same boards) ever ran at once."""
    from arena.process import modes
    from arena.results import registry, schema
    from arena.tournaments import runner

    db = schema.open_db(tmp_path / "t.db")
    names = [f"log{k}" for k in range(4)]
    for name in names:
        registry.add_bot(db, hostile / "act_log.py", name=name, store_dir=tmp_path / "store")
    tid = runner.prepare(db, "apart", names, runner.Settings(boards=2, seed=2**60), sandbox="auto")
    trio.run(lambda: runner.run(db, tid, concurrency=8, processes=processes, sandbox=modes.resolve_mode(None)))
    assert not [r for r in db.query("SELECT forfeit FROM board_tables") if r["forfeit"]]
    acts = _act_intervals(db)
    assert len(acts) == 4 and all(len({a[2] for a in v}) >= 6 for v in acts.values()), acts.keys()
    assert _overlaps(acts) == []


def test_no_process_of_a_bot_runs_beside_another_of_it_across_a_clusters_workers(tmp_path, hostile):
    """The same, with the rooms played by two Dask worker processes of this machine (`--cluster local:2`)."""
    pytest.importorskip("distributed")
    from arena.results import registry, schema
    from arena.tournaments import runner

    db = schema.open_db(tmp_path / "t.db")
    names = [f"log{k}" for k in range(4)]
    for name in names:
        registry.add_bot(db, hostile / "act_log.py", name=name, store_dir=tmp_path / "store")
    tid = runner.prepare(db, "apart", names, runner.Settings(boards=2, seed=2**60), sandbox="auto")
    trio.run(lambda: runner.run(db, tid, cluster="local:2", sandbox=None))
    assert not [r for r in db.query("SELECT forfeit FROM board_tables") if r["forfeit"]]
    acts = _act_intervals(db)
    assert len(acts) == 4 and all(len({a[2] for a in v}) >= 6 for v in acts.values()), acts.keys()
    assert _overlaps(acts) == []


# -- no honest bot times out beside a process that burns every core ------------------------------


def test_honest_bots_at_a_50_ms_limit_four_tables_a_core_beside_a_cpu_hog_never_time_out(tmp_path):
    """A round robin of four bundled bots at a 50 ms move limit, no bank, four tables at once per
    core, while a process per core spins beside the arena the whole time: no seat times out
    (the scheduler lends each bot on move a core, its clock starts when it is thawed, and a
    move the machine starved is the arena's, played again)."""
    from arena.play.table import TimeControl
    from arena.process import modes
    from arena.results import schema
    from arena.tournaments import runner

    cores = os.cpu_count() or 1
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        db = schema.open_db(tmp_path / "t.db")
        bots = [str(ROOT / "bots" / "zwicker" / f"{name}_bot.py") for name in ("random", "greedy", "first", "sweeper")]
        settings = runner.Settings(boards=2, seed=2**60, time_control=TimeControl(move_s=0.05, bank_s=0.0))
        tid = runner.prepare(db, "hogged", bots, settings, sandbox="auto")
        trio.run(lambda: runner.run(db, tid, concurrency=4 * cores, sandbox=modes.resolve_mode(None)))
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    seats = list(db.query("SELECT status, detail FROM seats"))
    assert len(seats) == 6 * 2 * 2 * 4  # matches, rooms, boards, seats
    assert [s for s in seats if s["status"] != "ok"] == []


def test_where_bots_cannot_be_frozen_the_header_and_the_standings_say_so(tmp_path):
    """Sandbox none cannot freeze a bot: the run's header names it, and so do the standings."""
    from typer.testing import CliRunner

    from arena.cli import _register, app
    from arena.process import modes

    _register()
    bots = ",".join(str(ROOT / "bots" / "zwicker" / name) for name in ("random_bot.py", "first_bot.py"))
    db = tmp_path / "none.db"
    out = CliRunner().invoke(app, ["tournament", "run", "--bots", bots, "--boards", "1", "--name", "loose",
                                   "--sandbox", "none", "--seed", str(2**60), "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert f"sandbox none ({modes.NOT_FROZEN})" in out.output.splitlines()[1]
    standings = CliRunner().invoke(app, ["standings", "loose", "--db", str(db)])
    assert standings.exit_code == 0, standings.output
    assert "sandbox none: bots were not frozen off their turn" in standings.output


@needs_fork
async def test_a_bot_left_running_is_dead_and_reaped_once_its_fork_server_has_exited():
    """A start the arena gave up on (forking._discard kills, and does not wait) or a bot left
    running: the server kills and reaps its inits before it exits, so nothing of the bot is
    alive, dying unreaped, when the arena process that served it has exited."""
    from arena.process import runtime
    from arena.process.command import Limits
    from arena.process.lifecycle import leftover_bot_pids

    argv = [sandbox.sandbox_python(), "-c", "import time; time.sleep(60)"]
    async with forking.serving("fork") as server:
        request = sandbox.fork_request(argv, runtime.runtime(), False, Limits(), sandbox.allocate_uid(), {},
                                       sandbox.kit_binds())
        ends = [os.pipe() for _ in range(3)]
        try:
            seat = await server.start(request, [ends[0][0], ends[1][1], ends[2][1]], ends[0][1])
        finally:
            for read, write in ends:
                os.close(read)
                os.close(write)
    try:
        assert select.select([seat.pidfd], [], [], 0)[0], "the bot's init outlived its server"
        assert leftover_bot_pids() == []
    finally:
        seat.kill()
        os.close(seat.pidfd)
