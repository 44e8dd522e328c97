"""The misbehaviour corpus (issue 5) at a real table and in a real tournament.

Each hostile bot of tests/hostile/ sits at a table with three bundled random bots, every one a
real sandboxed process. A fault must give its seat the documented status and detail
(arena/errors.py, protocol.md "Faults"), leave the other seats `ok`, and forfeit the table: the
faulting side scores 0, the other the variant's points per deal. An attack that is no fault must
leave the table finished normally and the attack without effect. The autouse fixture of
conftest.py fails any test after which a bot process is still alive.

Fault cases play the same table in every confining mode at once (bwrap where it runs, and
rlimit): the status is the table's business and must not depend on the sandbox.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio

from engine import zwicker
import games
from arena.errors import ArenaError
from arena.play.table import (
    FixedDeals,
    SeatResult,
    TableResult,
    TimeControl,
    play_table,
)
from arena.process import cgroups, forking, sandbox
from arena.process.command import BotCommand, Limits
from arena.results import read, registry, schema
from arena.tournaments import runner

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
RANDOM = ROOT / "bots" / "zwicker" / "random_bot.py"
VARIANT = zwicker.variant("jensen")
PLAN = [(zwicker.deal_seed(7, 0), 0)]
POINTS_PER_DEAL = FixedDeals(PLAN).forfeit(games.game(), VARIANT, 1).sides[0]  # seat 1's side forfeits
FAST = TimeControl(handshake_s=3, move_s=0.3, bank_s=0.5, grace_s=0.2)
SMALL = Limits(memory_bytes=256 << 20, cpu_seconds=6)
"""cpu_seconds: far beyond FAST's 1 s of wall time a move, so that an arena slowed by a loaded machine
still times a spinning bot out before its CPU limit kills it (2 s once lost that race in CI)."""
STDERR_KEPT = SMALL.stderr_bytes

BWRAP_PROBLEM = sandbox.bwrap_problem()
FORK_PROBLEM = forking.problem()
AS_ROOT = os.geteuid() == 0
needs_bwrap = pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"bwrap cannot run here: {BWRAP_PROBLEM}")
needs_fork = pytest.mark.skipif(FORK_PROBLEM is not None, reason=f"fork cannot run here: {FORK_PROBLEM}")
CONFINED = (["fork"] if FORK_PROBLEM is None else []) + (["bwrap"] if BWRAP_PROBLEM is None else []) + ["rlimit"]
# A root of its own: no network, nothing of the host's files but /usr and the bot's folder.
NAMESPACED = [pytest.param("fork", marks=needs_fork), pytest.param("bwrap", marks=needs_bwrap)]
# rlimit confines files and signals only through the throw-away uid, which needs root.
UID_CONFINED = NAMESPACED + (["rlimit"] if AS_ROOT else [])


def signal_exit(mode: str, signum: int) -> int:
    """A bot killed by `signum` as its exit status reads: bwrap and fork report it as 128 + N."""
    return 128 + signum if mode in ("bwrap", "fork") else -signum


async def play(bot: str, mode: str, seat: int, tc: TimeControl = FAST, limits: Limits = SMALL) -> TableResult:
    """One deal: the hostile bot (a script in tests/hostile/ and its arguments) at `seat`, random bots around it."""
    seats = [BotCommand.from_spec(str(RANDOM))] * VARIANT.players
    seats[seat] = BotCommand.from_spec(f"{HOSTILE / bot}")
    return await play_table(seats, variant=VARIANT, plan=FixedDeals(PLAN), time_control=tc, sandbox=mode,
                            limits=limits, match_id="hostile", table_id=f"{bot}/{mode}", bot_seed=3)


async def play_in(modes: list[str], bot: str, seat: int, tc: TimeControl = FAST,
                  limits: Limits = SMALL) -> dict[str, TableResult]:
    """The same table in each mode, played concurrently."""
    results: dict[str, TableResult] = {}

    async def one(mode: str) -> None:
        results[mode] = await play(bot, mode, seat, tc, limits)

    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        async with trio.open_nursery() as nursery:
            for mode in modes:
                nursery.start_soon(one, mode)
    return results


def assert_others_ok(result: TableResult, hostile: int) -> None:
    """The random bots' seats: ok, and named by their handshake unless a fault cut it short."""
    for s in result.seats:
        if s.seat != hostile:
            assert (s.status, s.detail) == ("ok", ""), s
            if result.deals:
                assert s.name == "random"


def assert_clean(result: TableResult, seat: int) -> SeatResult:
    """The table finished normally: no fault, every seat ok, the deal played out; the hostile seat back."""
    assert result.forfeit is None, result.forfeit
    assert_others_ok(result, seat)
    assert (result.seats[seat].status, result.seats[seat].detail) == ("ok", "")
    assert len(result.deals) == 1 and result.deals[0]["complete"]
    assert result.points == result.deals[0]["points"]
    hostile = result.seats[seat]
    assert hostile.moves > 0
    return hostile


# -- faults -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """A hostile bot that must fault: where it sits, and what its seat must record."""

    bot: str  # script in tests/hostile/ and its arguments
    seat: int
    status: str
    detail: str  # a regular expression for the whole detail; <segv>, <xcpu>: that signal's exit status
    moves: int | None = 0  # moves the seat made before its fault (None: not checked)
    dealt: bool = True  # False: the fault came in the handshake, before the deal
    stderr: str = ""  # a regular expression its kept stderr must contain
    tc: TimeControl = FAST
    limits: Limits = SMALL
    check: Callable[[SeatResult], None] | None = field(default=None, compare=False)


EXITED = r"closed its output before 'bye' \(exited\?\)"
MOVE_TIMEOUT = r"no 'move' reply to 'act' within 0\.800 s \(move limit 0\.3 s \+ bank 0\.500 s\)"


def bank_drawn_down(seat: SeatResult) -> None:
    """No `act` offered a larger bank than the one before, and the fault came at a bank below the
    start. (A reply may cost the bank nothing where a loaded machine kept the bot waiting for a CPU:
    the bank pays only for the bot's own time.)"""
    banks = [int(b) for b in re.findall(r"bank_ms (\d+)", seat.stderr)]
    assert banks[0] == 500 and len(banks) == seat.moves + 1 >= 2, banks
    assert all(a >= b for a, b in zip(banks, banks[1:])) and banks[-1] < banks[0], banks
    left = float(re.search(r"bank (\d\.\d+) s\)", seat.detail).group(1))
    assert 0 <= left < 0.5 and abs(left * 1000 - banks[-1]) <= 1


def memory_bounded(seat: SeatResult) -> None:
    allocated = int(re.search(r"MemoryError after (\d+) MiB", seat.stderr).group(1))
    assert 0 <= allocated < 256  # Limits.memory_bytes, in MiB


FAULTS = {
    "crashes at start": Fault(
        "crash_at_start.py", 0, "crash",
        rf"({EXITED}|its input was closed before 'hello' \(exited\?\)); exit status 1",
        stderr="giving up before the handshake", dealt=False),
    "crashes mid-deal": Fault("crash_mid_deal.py", 1, "crash", rf"{EXITED}; exit status 3", moves=1,
                              stderr="giving up in the middle of deal 0"),
    "crashes mid-deal by a signal": Fault("crash_mid_deal.py --signal", 3, "crash", rf"{EXITED}; exit status <segv>",
                                          moves=1),
    "never answers the handshake": Fault("silent.py", 2, "timeout",
                                         r"no 'ready' reply to 'hello' within the handshake limit of 3 s", dealt=False),
    "sleeps past the move limit": Fault("sleep_past_limit.py", 1, "timeout", MOVE_TIMEOUT, stderr="sleeping"),
    "drains its time bank slowly": Fault(
        "drain_bank.py 200", 2, "timeout",
        r"no 'move' reply to 'act' within 0\.\d+ s \(move limit 0\.3 s \+ bank 0\.\d+ s\)",
        moves=None, check=bank_drawn_down),
    "floods stdout": Fault("flood_stdout.py", 3, "protocol_error", r"undecodable msgpack: .*", dealt=False),
    "writes garbage bytes": Fault("garbage.py", 0, "protocol_error", r"undecodable msgpack: .*", dealt=False),
    # Its first bytes may come before the arena's `hello`; the arena then finds them unasked.
    "sends a 100 MB message": Fault("huge_message.py", 1, "protocol_error",
                                    r"message larger than 65536 bytes|sent a message the arena did not ask for",
                                    dealt=False),
    "sends a valid map of the wrong type": Fault("wrong_type.py", 2, "protocol_error",
                                                 r"expected a 'move' message, got 'ready'"),
    "answers with an illegal move": Fault(
        "illegal_move.py", 3, "illegal_move",
        r"move \{'type': 'trail', 'card': '(\w\w)'\} is not legal: trail \1: the card is not in seat 3's hand"),
    "answers with an index out of range": Fault("illegal_move.py --index", 0, "illegal_move",
                                                r"index (\d+) is out of range \(\1 legal moves\)"),
    "answers twice": Fault("answer_twice.py", 1, "protocol_error", r"sent more than one message in answer to 'act'"),
    # A roomy move clock: filling 256 MiB in three sandboxes at once can take longer than FAST's.
    "allocates memory without bound": Fault("memory_hog.py", 2, "crash", rf"{EXITED}; exit status 1",
                                            stderr=r"MemoryError", check=memory_bounded,
                                            tc=TimeControl(handshake_s=3, move_s=10, bank_s=0, grace_s=0.2)),
    "spins the CPU": Fault("cpu_spin.py", 3, "timeout", MOVE_TIMEOUT, stderr="spinning"),
    "spins the CPU past its CPU seconds": Fault(
        "cpu_spin.py", 0, "crash", rf"{EXITED}; exit status <xcpu>", stderr="spinning",
        tc=TimeControl(handshake_s=3, move_s=30, bank_s=0, grace_s=0.2),
        limits=Limits(memory_bytes=256 << 20, cpu_seconds=1)),
    "forks children meant to outlive it, then exits": Fault("fork_escape.py --exit", 1, "crash",
                                                            rf"{EXITED}; exit status 0", stderr=r"pids \d+ \d+"),
}


@pytest.mark.parametrize("case", list(FAULTS.values()), ids=list(FAULTS))
async def test_a_fault_forfeits_the_table_with_the_documented_status(case: Fault):
    results = await play_in(CONFINED, case.bot, case.seat, case.tc, case.limits)
    for mode, result in results.items():
        detail = case.detail.replace("<segv>", str(signal_exit(mode, 11))).replace("<xcpu>", str(signal_exit(mode, 24)))
        seat = result.seats[case.seat]
        assert seat.status == case.status, (mode, seat)
        assert re.fullmatch(detail, seat.detail), (mode, seat.detail)
        assert re.search(case.stderr, seat.stderr), (mode, seat.stderr)
        if case.moves is not None:
            assert seat.moves == case.moves, (mode, seat)
        if case.check is not None:
            case.check(seat)
        assert_others_ok(result, case.seat)
        side = VARIANT.side_of(case.seat)
        assert result.forfeit == {"side": side, "seat": case.seat, "status": case.status, "detail": seat.detail}
        assert result.points == [0 if s == side else POINTS_PER_DEAL for s in range(VARIANT.num_sides)]
        assert not any(deal["complete"] for deal in result.deals)  # the fault ended the only deal
        assert len(result.deals) == int(case.dealt)


async def test_the_garbage_detail_says_what_was_wrong():
    result = (await play_in(["rlimit"], "garbage.py", 0))["rlimit"]
    assert result.seats[0].status == "protocol_error"
    assert re.fullmatch(r"undecodable msgpack: \S.*", result.seats[0].detail), result.seats[0].detail


# -- attacks that are no fault: the table finishes, the attack has no effect ------------------


@pytest.mark.parametrize("mode", CONFINED)
async def test_a_stderr_flood_is_kept_bounded(mode):
    # A roomy clock: 20 MB through the pipe is the point here, not the bot's speed.
    tc = TimeControl(handshake_s=3, move_s=5, bank_s=5, grace_s=0.2)
    seat = assert_clean((await play_in([mode], "flood_stderr.py", 2, tc))[mode], 2)
    written = 20 * 1024 * 1024 + len("flood_stderr: the end\n")
    note = f"\n[... {written - STDERR_KEPT} bytes of stderr dropped ...]\n"
    head, _, tail = seat.stderr.partition(note)
    assert len(head) == len(tail) == STDERR_KEPT // 2, (len(head), len(tail))
    line = "x" * 1023 + "\n"  # what the bot writes, 20 Ki times
    assert head == line * (len(head) // len(line)) and tail.endswith(line + "flood_stderr: the end\n")


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return re.search(r"^State:\s+[ZX]", status, re.M) is None


@pytest.mark.parametrize("mode", ["none", *CONFINED])
async def test_children_meant_to_outlive_the_bot_die_with_its_table(mode):
    seat = assert_clean((await play_in([mode], "fork_escape.py", 1))[mode], 1)
    pids = [int(p) for p in re.search(r"pids (\d+) (\d+)", seat.stderr).groups()]
    if mode in ("none", "rlimit"):  # else pids of its own namespace; the autouse fixture finds those by uid
        assert not [p for p in pids if alive(p)]


@pytest.mark.parametrize("mode", ["none", *CONFINED])
async def test_ignoring_sigterm_and_end_of_input_changes_nothing(mode):
    assert_clean((await play_in([mode], "ignore_sigterm.py", 3))[mode], 3)
    # it lingers after `bye`: the autouse fixture checks it was killed after the grace period


async def listen(received: list[bytes], task_status=trio.TASK_STATUS_IGNORED) -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")

    async def serve(stream: trio.SocketStream) -> None:
        async with stream:
            received.append(await stream.receive_some(100))

    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(serve, listeners)


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_no_network_at_the_table(mode):
    received: list[bytes] = []
    async with trio.open_nursery() as nursery:
        port = await nursery.start(listen, received)
        seat = assert_clean((await play_in([mode], f"network.py {port}", 0))[mode], 0)
        assert "network: blocked" in seat.stderr and "refused" in seat.stderr.lower()
        # The positive control: unsandboxed, the same bot does reach the listener.
        control = assert_clean((await play_in(["none"], f"network.py {port}", 0))["none"], 0)
        assert f"network: connected to port {port}" in control.stderr
        with trio.fail_after(10):
            while not received:
                await trio.sleep(0.01)  # the control's bytes on their way through the loopback
        nursery.cancel_scope.cancel()
    assert received == [b"leaked hand: 9S KH\n"]  # the control's, and only it


@pytest.fixture
def results_folder():
    """A world-readable "database" in a world-readable folder outside every bot's folder."""
    with tempfile.TemporaryDirectory(prefix="zwicker-results-") as folder:
        os.chmod(folder, 0o755)
        db = Path(folder) / "arena.db"
        db.write_bytes(b"SQLite format 3\0 every hand of every deal: 9S KH 2C")
        db.chmod(0o644)
        yield Path(folder)


@pytest.mark.parametrize("mode", NAMESPACED)
@pytest.mark.parametrize("target", ["database", "another bot's code"])
async def test_reading_the_database_or_another_bot_learns_nothing(results_folder, target, mode):
    path = results_folder / "arena.db" if target == "database" else RANDOM
    secret = path.read_bytes()[:40].decode(errors="replace")
    seat = assert_clean((await play_in([mode], f"read_file.py {path}", 2))[mode], 2)
    assert "read_file: blocked" in seat.stderr and "No such file" in seat.stderr
    assert "read_file: read" not in seat.stderr and secret[:15] not in seat.stderr
    if target == "database":  # the positive control: unsandboxed, the same bot reads it
        control = assert_clean((await play_in(["none"], f"read_file.py {path}", 2))["none"], 2)
        assert "read_file: read" in control.stderr and secret[:15] in control.stderr


@pytest.mark.parametrize("mode", UID_CONFINED)
async def test_writing_outside_its_temp_dir_writes_nothing(results_folder, mode):
    target = results_folder / "results.json"
    if mode != "rlimit":  # even a folder anyone may write to is out of reach (rlimit relies on its owner)
        os.chmod(results_folder, 0o777)
    seat = assert_clean((await play_in([mode], f"write_outside.py {target}", 1))[mode], 1)
    assert f"write_outside: blocked {target}" in seat.stderr
    # its own folder: at /bot in fork and bwrap; in rlimit the bot's own, or as root the copy it
    # runs from (a run folder of its throw-away uid's alone, docs/hostile.md)
    assert re.search(r"write_outside: blocked (/bot|/\S*/hostile|/\S*/bot-[0-9a-f]+)/planted\.py", seat.stderr), seat.stderr
    assert "write_outside: temp dir ok (5 bytes)" in seat.stderr
    assert not target.exists() and not (HOSTILE / "planted.py").exists()


@pytest.mark.parametrize("mode", UID_CONFINED)
async def test_signalling_other_processes_harms_nobody(mode):
    victim = subprocess.Popen(["sleep", "60"])
    try:
        seat = assert_clean((await play_in([mode], f"signal_others.py {victim.pid}", 3))[mode], 3)
        assert f"signal_others: blocked {victim.pid}" in seat.stderr
        assert victim.poll() is None  # alive; and so is the arena, which ran the table to its end
    finally:
        victim.kill()
        victim.wait()


@pytest.mark.parametrize("mode", CONFINED)
async def test_a_file_without_bound_stops_at_the_file_size_limit(mode):
    seat = assert_clean((await play_in([mode], "big_file.py", 0))[mode], 0)
    assert "big_file: stopped after 1048576 bytes" in seat.stderr and "File too large" in seat.stderr


@pytest.mark.parametrize("mode", CONFINED)
async def test_a_fork_bomb_stops_at_the_process_limit(mode):
    limits = Limits(memory_bytes=256 << 20, cpu_seconds=2, processes=16)
    seat = assert_clean((await play_in([mode], "fork_bomb.py", 2, limits=limits))[mode], 2)
    forked = int(re.search(r"fork_bomb: refused after (\d+) forks", seat.stderr).group(1))
    assert forked <= 16


# -- a tournament with hostile entrants ---------------------------------------------------------

@dataclass(frozen=True)
class Entrant:
    """A hostile tournament entrant: its script, how it is run, and what its seats must record."""

    script: str
    status: str
    detail: str  # a regular expression for the whole detail
    command: str | None = None  # registered with this command (run in its stored folder)
    faulty_boards: tuple[int, ...] = (0, 1)  # boards on which it faults (every room: fresh processes after a fault)


ENTRANTS = {
    "crasher": Entrant("crash_mid_deal.py", "crash", rf"{EXITED}; exit status 3"),
    # plays board 0 cleanly and crashes in board 1, which its room's processes play next
    "late_crasher": Entrant("crash_mid_deal.py", "crash", rf"{EXITED}; exit status 3", command="bot.py --deal 1",
                            faulty_boards=(1,)),
    "sleeper": Entrant("sleep_past_limit.py", "timeout", MOVE_TIMEOUT),
    "cheat": Entrant("illegal_move.py", "illegal_move",
                     r"move \{'type': 'trail', 'card': '(\w\w)'\} is not legal: trail \1: the card is not in seat \d's hand"),
    "chatter": Entrant("answer_twice.py", "protocol_error", r"sent more than one message in answer to 'act'"),
}
SNOOP = "snoop"  # reads the database's file: no fault, and nothing learnt


def register(db, open_dir: Path, name: str, script: str, command: str | None = None) -> None:
    """A hostile bot as a folder (its script as bot.py, and _play.py beside it), stored where it can be read."""
    folder = open_dir / "src" / name
    folder.mkdir(parents=True)
    # The entrant's name in its code, so that two entrants never share content (see the xfail test below).
    (folder / "bot.py").write_bytes((HOSTILE / script).read_bytes() + f"# entrant {name}\n".encode())
    (folder / "_play.py").write_bytes((HOSTILE / "_play.py").read_bytes())
    registry.add_bot(db, folder, name=name, command=command, store_dir=open_dir / "store")


def test_the_same_code_can_be_registered_under_two_names(tmp_path):
    """Found registering two hostile entrants that differ only in their command line."""
    db = schema.open_db(tmp_path / "arena.db")
    for name in ("first_copy", "second_copy"):
        folder = tmp_path / "src" / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_bytes(RANDOM.read_bytes())
        registry.add_bot(db, folder, name=name)
    assert [b["name"] for b in registry.list_bots(db)] == ["first_copy", "second_copy"]


async def test_a_tournament_with_hostile_bots_finishes_with_their_faults_counted(tmp_path, open_dir):
    mode = "bwrap" if BWRAP_PROBLEM is None else "rlimit"
    snoop = mode == "bwrap" or AS_ROOT  # unconfined reads as the arena's own user without either
    path = tmp_path / "arena.db"
    db = schema.open_db(path)
    registry.add_bot(db, RANDOM, name="random", store_dir=open_dir / "store")
    for name, entrant in ENTRANTS.items():
        register(db, open_dir, name, entrant.script, entrant.command)
    if snoop:
        register(db, open_dir, SNOOP, "read_file.py", command=f"bot.py {path}")
    names = ["random", *ENTRANTS, *([SNOOP] if snoop else [])]
    settings = runner.Settings(boards=2, seed=5, gauntlet="random", time_control=FAST)
    tid = runner.prepare(db, "hostile", names, settings, sandbox=mode)
    with trio.fail_after(120):  # a guard against a hang, not a timing assertion
        done = await runner.run(db, tid, concurrency=2, sandbox=mode, limits=SMALL)
    opponents = len(names) - 1
    assert done["status"] == "finished" and done["boards_done"] == opponents * 2

    rows = db.execute(
        "SELECT t.id, t.forfeit, json_extract(t.side_points, '$[0]'), json_extract(t.side_points, '$[1]'), s.seat, s.status, s.detail, s.stderr_tail, b.name,"
        " t.board_no,"
        " (SELECT COUNT(*) FROM deals d WHERE d.table_id = t.id AND d.complete)"
        " FROM board_tables t JOIN matches m ON m.id = t.match_id JOIN seats s ON s.table_id = t.id"
        " JOIN bots b ON b.id = s.bot_id WHERE m.tournament_id = ? ORDER BY t.id, s.seat", [tid]).fetchall()
    tables: dict[int, list] = {}
    for row in rows:
        tables.setdefault(row[0], []).append(row)
    assert len(tables) == opponents * 2 * 2  # two boards, each in two rooms
    snoop_stderr = ""
    for seats in tables.values():
        assert [s[4] for s in seats] == [0, 1, 2, 3]
        hostile = {s[8] for s in seats} - {"random"}
        (name,) = hostile
        faults = [s for s in seats if s[5] != "ok"]
        forfeit, points, board_no, complete_deals = seats[0][1], [seats[0][2], seats[0][3]], seats[0][9], seats[0][10]
        if name == SNOOP or board_no not in ENTRANTS[name].faulty_boards:
            assert faults == [] and forfeit is None and sum(points) > 0 and complete_deals == 1, seats
            snoop_stderr += "".join(s[7] for s in seats if s[8] == SNOOP)
            continue
        entrant = ENTRANTS[name]
        assert len(faults) == 1, faults  # the first fault ends the table
        seat, got_status, got_detail, bot = faults[0][4], faults[0][5], faults[0][6], faults[0][8]
        assert bot == name and got_status == entrant.status and re.fullmatch(entrant.detail, got_detail), faults[0]
        assert complete_deals == 0
        side = VARIANT.side_of(seat)
        assert json.loads(forfeit) == {"side": side, "seat": seat, "status": entrant.status, "detail": got_detail}
        assert points == [0 if s == side else POINTS_PER_DEAL for s in range(2)]
    if snoop:
        assert snoop_stderr.count("read_file: blocked") == 2 * 2  # both seats, in each room's last record
        assert "read_file: read" not in snoop_stderr and "SQLite format 3" not in snoop_stderr

    standings = {row["bot"]: row for row in read.standings(db, tid)}
    assert set(standings) == set(names)
    random_row = standings["random"]
    assert (random_row["tables"], random_row["faults"], random_row["fault_flag"]) == (opponents * 4, 0, False)
    assert random_row["wins"] >= sum(len(e.faulty_boards) for e in ENTRANTS.values())  # every forfeited board
    for name, entrant in ENTRANTS.items():
        row = standings[name]
        faulted = 2 * len(entrant.faulty_boards)  # the board's table in each room
        assert (row["tables"], row["faults"], row["fault_flag"]) == (4, faulted, True), row
        assert row["boards"] == 2 and row["losses"] >= len(entrant.faulty_boards), row
    if snoop:
        assert (standings[SNOOP]["faults"], standings[SNOOP]["fault_flag"]) == (0, False)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    # the autouse fixture checks that no process of any room is left


# -- what a bot's seed gives away (issue 13) ----------------------------------------------------

GUESS_LIMIT = 4096  # the master seeds guess_seed.py tries
SMALL_SEED = 1000  # a seed chosen by hand, small enough for it (the positive control)


def guesses(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("guess_seed:")]


def assert_guessed(stderr: str, master: int, partner_hand: tuple[str, ...]) -> None:
    """guess_seed found `master` (by the published keyed derivation) and so every hand."""
    lines = guesses(stderr)
    assert lines[0] == f"guess_seed: master seed {master} found by the keyed", lines
    assert "my hand matches" in lines[1] and lines[1].endswith(f"partner's hand {' '.join(partner_hand)}"), lines


async def test_a_tournament_without_a_seed_gives_no_bot_the_deals(tmp_path, open_dir, capsys):
    """The old attack: the hello seed was a public hash chain of a default seed of 0. Now the
    seed is drawn at random and the bots' seeds are keyed; a small seed chosen by hand is still
    found (guess_seed knows today's derivation too), and warned of."""
    mode = "bwrap" if BWRAP_PROBLEM is None else "rlimit"
    db = schema.open_db(tmp_path / "arena.db")
    registry.add_bot(db, RANDOM, name="random", store_dir=open_dir / "store")
    register(db, open_dir, "guesser", "guess_seed.py", command=f"bot.py {GUESS_LIMIT}")
    stderr = {}
    for name, seed in (("drawn", None), ("chosen", SMALL_SEED)):
        given = {} if seed is None else {"seed": seed}
        settings = runner.Settings(boards=1, gauntlet="random", time_control=FAST, **given)
        tid = runner.prepare(db, name, ["random", "guesser"], settings, sandbox=mode)
        stderr[name] = capsys.readouterr().err
        with trio.fail_after(60):  # a guard against a hang, not a timing assertion
            await runner.run(db, tid, concurrency=2, processes=1, sandbox=mode, limits=SMALL)
    seats = db.execute(
        "SELECT tn.name, t.board_seed, t.swapped, s.seat, s.stderr_tail FROM seats s JOIN board_tables t ON t.id = s.table_id"
        " JOIN matches m ON m.id = t.match_id JOIN tournaments tn ON tn.id = m.tournament_id"
        " JOIN bots b ON b.id = s.bot_id WHERE b.name = 'guesser' ORDER BY tn.id, t.swapped, s.seat").fetchall()
    assert len(seats) == 8  # two tournaments, two rooms each, two seats of the guesser in each
    for tournament, board_seed, _swapped, seat, log in seats:
        if tournament == "drawn":
            assert guesses(log) == [f"guess_seed: no master seed below {GUESS_LIMIT} gives my seed"]
        else:
            state = zwicker.deal(VARIANT, int(board_seed), 0)
            assert_guessed(log, SMALL_SEED, state.hands[(seat + 2) % 4])
    drawn, chosen = read.get_tournament(db, "drawn")["seed"], read.get_tournament(db, "chosen")["seed"]
    assert stderr["drawn"] == (f"arena: tournament 'drawn': master seed {drawn} (drawn at random, stored; "
                               f"--seed {drawn} replays its deals)\n")
    assert stderr["chosen"] == (f"arena: warning: seed {SMALL_SEED} is below 2**48: a bot can guess it and "
                                "compute every deal; leave --seed out for a random 64-bit seed\n")
    assert chosen == SMALL_SEED and drawn >= GUESS_LIMIT


async def test_arena_play_without_a_seed_gives_no_bot_the_deals(capsys):
    """`arena play` used the seed 0 and told it in the match id, "play-0"."""
    from arena.play.match import play_match

    mode = "bwrap" if BWRAP_PROBLEM is None else "rlimit"
    guesser = BotCommand.from_spec(f"{HOSTILE / 'guess_seed.py'} {GUESS_LIMIT}")
    random_bot = BotCommand.from_spec(str(RANDOM))
    warnings = []
    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        drawn = await play_match(guesser, random_bot, boards=1, time_control=FAST, sandbox=mode, limits=SMALL)
        warnings.append(capsys.readouterr().err)
        chosen = await play_match(guesser, random_bot, boards=1, seed=SMALL_SEED, time_control=FAST, sandbox=mode,
                                  limits=SMALL)
        warnings.append(capsys.readouterr().err)
    for result, found in ((drawn, False), (chosen, True)):
        board = result.boards[0]
        state = zwicker.deal(VARIANT, board.seed, board.dealer)
        for t, table in enumerate(board.tables):
            for seat in (t, t + 2):  # A holds side 0 at the first table, side 1 at the second
                log = table.seats[seat].stderr
                if found:
                    assert_guessed(log, SMALL_SEED, state.hands[(seat + 2) % 4])
                else:
                    assert guesses(log) == [f"guess_seed: no master seed below {GUESS_LIMIT} gives my seed"]
    assert drawn.seed >= GUESS_LIMIT and warnings[0] == ""
    assert warnings[1] == (f"arena: warning: seed {SMALL_SEED} is below 2**48: a bot can guess it and compute "
                           "every deal; leave --seed out for a random 64-bit seed\n")


# -- what a bot's folder may hold, and what it sees beside it (issue 13) ------------------------

READ_BESIDE = HOSTILE / "read_beside.py"


@pytest.fixture
def secret(tmp_path):
    """A file only its owner may read (the bot's own users are others to it)."""
    path = tmp_path / "secret.txt"
    path.write_text("root only: 9S KH 2C")
    path.chmod(0o600)
    return path


def linker(open_dir: Path) -> Path:
    """A folder bot: read_beside.py as bot.py."""
    folder = open_dir / "src" / "linker"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_bytes(READ_BESIDE.read_bytes())
    return folder


@pytest.mark.parametrize("entry", ["a link to a private file", "a link to a folder", "a fifo", pytest.param(
    "a device", marks=pytest.mark.skipif(not AS_ROOT, reason="only root makes device files")), "the bot's own path a link"])
async def test_registering_copies_regular_files_and_folders_only(tmp_path, open_dir, secret, entry):
    """Registering followed links (then made the copies readable to all): `loot -> a 0600 file`
    and `sub/dir -> another folder` were read by the bot in its sandbox. Now anything but a
    regular file or a folder is refused in one line that names it, and nothing is stored."""
    folder = linker(open_dir)
    bot = folder
    if entry == "a link to a private file":
        bad = folder / "loot"
        bad.symlink_to(secret)
        kind = f"a symbolic link (to {secret})"
    elif entry == "a link to a folder":
        (folder / "sub").mkdir()
        bad = folder / "sub" / "dir"
        bad.symlink_to(tmp_path)
        kind = f"a symbolic link (to {tmp_path})"
    elif entry == "a fifo":
        bad = folder / "pipe"
        os.mkfifo(bad)
        kind = "a fifo"
    elif entry == "a device":
        bad = folder / "null"
        os.mknod(bad, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        kind = "a character device"
    else:
        bot = bad = open_dir / "src" / "alias"
        bad.symlink_to(folder)
        kind = f"a symbolic link (to {folder})"
    db = schema.open_db(tmp_path / "arena.db")
    store = open_dir / "store"

    def add() -> None:
        registry.add_bot(db, bot, name="linker", command="bot.py loot sub/dir", store_dir=store)

    try:
        with trio.fail_after(20):  # a guard: reading a fifo without a writer blocks for good
            with pytest.raises(ArenaError) as caught:
                await trio.to_thread.run_sync(add, abandon_on_cancel=True)
    finally:
        if entry == "a fifo":  # release a reader stuck on it
            with contextlib.suppress(OSError):
                os.close(os.open(bad, os.O_WRONLY | os.O_NONBLOCK))
    assert str(caught.value) == f"bot {bad} is {kind}: a bot is registered from regular files and folders only"
    assert registry.list_bots(db) == [] and not (store.exists() and any(store.rglob("*")))


@pytest.mark.skipif(not AS_ROOT, reason="without root the bot runs as the arena's user, who owns the stored copy")
@pytest.mark.parametrize("mode", UID_CONFINED)
async def test_a_stored_copy_keeps_its_modes_so_nothing_private_becomes_readable(tmp_path, open_dir, mode):
    """The store made every copied file readable to all, so that the sandboxed bot could read
    its copy: a file its author kept private too. Each copy now keeps its own bits."""
    folder = linker(open_dir)
    (folder / "notes.txt").write_text("public notes")
    (folder / "private.txt").write_text("private: 9S KH")
    (folder / "private.txt").chmod(0o600)
    db = schema.open_db(tmp_path / "arena.db")
    row = registry.add_bot(db, folder, name="linker", command="bot.py", store_dir=open_dir / "store")
    stored = Path(row["path"])
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (stored, *stored.iterdir())}
    assert modes == {"linker": 0o755, "bot.py": 0o644, "notes.txt": 0o644, "private.txt": 0o600}
    seats = [BotCommand.from_spec(str(RANDOM))] * VARIANT.players
    seats[1] = runner.bot_command(row)
    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        result = await play_table(seats, variant=VARIANT, plan=FixedDeals(PLAN), time_control=FAST, sandbox=mode,
                                  limits=SMALL, bot_seed=3)
    log = assert_clean(result, 1).stderr
    assert "read_beside: read notes.txt: b'public notes'" in log  # its own folder, as its author left it
    assert "read_beside: private.txt blocked (Permission denied)" in log and "9S KH" not in log


@pytest.mark.parametrize("mode", NAMESPACED)
async def test_arena_play_and_bot_check_run_each_bot_from_a_private_copy(open_dir, mode):
    """`arena play a.py b.py` ran both bots in place: with both in one folder, each read the
    other's code. Now each runs from a copy of its own file in a folder of its own."""
    from arena.play.match import check_bot, play_match

    folder = open_dir / "both"
    folder.mkdir()
    (folder / "read_beside.py").write_bytes(READ_BESIDE.read_bytes())
    (folder / "rival_bot.py").write_bytes(RANDOM.read_bytes() + b"# secret strategy 42\n")
    peeker = BotCommand.from_spec(str(folder / "read_beside.py"))
    rival = BotCommand.from_spec(str(folder / "rival_bot.py"))
    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        match = await play_match(peeker, rival, boards=1, seed=2**63, time_control=FAST, sandbox=mode, limits=SMALL)
        check = await check_bot(peeker, deals=1, seed=2**63, time_control=FAST, sandbox=mode, limits=SMALL)
    logs = [t.seats[s].stderr for t in match.boards[0].tables for s in range(4) if t.seats[s].name == "read_beside"]
    logs += [t.seats[s].stderr for t, s in zip(check.tables, check.positions)]
    assert len(logs) == 8 and not match.forfeits and check.conformant
    for log in logs:
        assert [line for line in log.splitlines() if line.startswith("read_beside:")] == [
            "read_beside: beside me []"], log
    assert (folder / "rival_bot.py").exists()  # the originals stay where they were


# -- sandboxes that do not isolate partners (issue 13) ------------------------------------------


@pytest.mark.parametrize("mode", [pytest.param("bwrap", marks=needs_bwrap), "rlimit"])
async def test_every_table_records_its_sandbox_and_the_standings_mark_one_without_isolation(tmp_path, open_dir,
                                                                                           mode):
    """Partners at one table (`whisper.py`, two copies) pass their hands through a file in /tmp:
    in rlimit they can, in bwrap not. Tables did not say which sandbox they were played in, nor
    the standings that partners could talk; now every table records it, and a tournament with a
    table in rlimit or none is marked (a flag on each row of its bots, and a line)."""
    from typer.testing import CliRunner

    from arena.cli import _register, app

    _register()  # the commands
    name = f"whisper-{os.urandom(4).hex()}"  # its files in a shared /tmp are its own
    path = tmp_path / "arena.db"
    db = schema.open_db(path)
    registry.add_bot(db, RANDOM, name="random", store_dir=open_dir / "store")
    register(db, open_dir, "whisper", "whisper.py")
    settings = runner.Settings(boards=1, seed=2**63, gauntlet="random", time_control=FAST)
    tid = runner.prepare(db, name, ["random", "whisper"], settings, sandbox=mode)
    try:
        with trio.fail_after(60):  # a guard against a hang, not a timing assertion
            await runner.run(db, tid, concurrency=2, processes=1, sandbox=mode, limits=SMALL)
    finally:
        for left in Path("/tmp").glob(f"zwicker-whisper-{name.replace('-', '_')}_*"):
            left.unlink()
    tables = db.execute("SELECT t.id, t.board_seed, t.sandbox FROM board_tables t JOIN matches m ON m.id = t.match_id"
                        " WHERE m.tournament_id = ?", [tid]).fetchall()
    assert len(tables) == 2 and {t[2] for t in tables} == {mode}
    shared = mode == "rlimit"
    for table_id, board_seed, _ in tables:
        hands = zwicker.deal(VARIANT, int(board_seed), 0).hands
        for seat, log in db.execute("SELECT s.seat, s.stderr_tail FROM seats s JOIN bots b ON b.id = s.bot_id"
                                    " WHERE s.table_id = ? AND b.name = 'whisper'", [table_id]):
            heard = [line for line in log.splitlines() if line.startswith("whisper:")]
            partner = " ".join(hands[(seat + 2) % 4])
            assert heard == [f"whisper: heard partner's hand {partner}" if shared else "whisper: heard nothing"]

    assert read.isolation(db, tid) == {"tables": 2, "unisolated": 2 if shared else 0, "sandboxes": {mode: 2}}
    rows = read.standings(db, tid)
    assert [(r["unisolated_tables"], r["isolation_flag"]) for r in rows] == [(2 if shared else 0, shared)] * 2
    out = CliRunner().invoke(app, ["standings", name, "--db", str(path)])
    assert out.exit_code == 0, out.output
    line = ("not isolated: 2 of 2 tables ran in sandbox rlimit, where partners can talk to each other: "
            "these results are not fair play.")
    assert (line in out.output.splitlines()) == shared and ("not isolated" in out.output) == shared


# -- nothing a bot made outlives its table (issue 13) -------------------------------------------


def sysv_ids(kind: str) -> set[int]:
    lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
    return {int(line.split()[1]) for line in lines[1:]}


@pytest.mark.parametrize("mode", UID_CONFINED)
async def test_nothing_a_bot_made_outlives_its_table(mode):
    """In rlimit a bot's files in /tmp, /var/tmp and /dev/shm and its SysV shared memory,
    message queue and semaphores stayed after its table (they are the machine's); now the
    teardown removes what its throw-away uid owns there. In bwrap and fork they are its
    namespaces' and go with them."""
    token = os.urandom(4).hex()
    made: list[str] = []
    try:
        seat = assert_clean((await play_in([mode], f"leave_behind.py {token}", 2))[mode], 2)
        line = next(line for line in seat.stderr.splitlines() if line.startswith("leave_behind: made "))
        made = line.removeprefix("leave_behind: made ").split(", ")
        files = [p for p in made if p.startswith("/")]
        ipc = [p.split() for p in made if p.startswith("SysV ")]
        assert f"/tmp/zwicker-left-{token}" in files and f"/tmp/zwicker-leftdir-{token}" in files
        # bwrap and fork refuse SysV IPC outright (the seccomp filter); rlimit lets the bot make it
        assert [kind for _, kind, _ in ipc] == (["shm", "msg", "sem"] if mode == "rlimit" else []), made
        assert [p for p in files if os.path.lexists(p)] == []
        if mode == "rlimit":  # the machine's own ids (in bwrap and fork, ids of the bot's namespace)
            assert [(kind, int(i)) for _, kind, i in ipc if int(i) in sysv_ids(kind)] == []
    finally:
        if mode == "rlimit":  # what a failure left on the machine
            for path in made:
                if path.startswith("/") and os.path.lexists(path):
                    subprocess.run(["rm", "-rf", path], check=True)
                elif path.startswith("SysV "):
                    _, kind, ident = path.split()
                    if int(ident) in sysv_ids(kind):
                        subprocess.run(["ipcrm", {"shm": "-m", "msg": "-q", "sem": "-s"}[kind], ident], check=False)


@pytest.mark.skipif(not cgroups.available(), reason="no writable cpu cgroups (needs root)")
@pytest.mark.parametrize("mode", UID_CONFINED)
async def test_a_bot_whose_children_burn_every_core_does_not_push_its_opponents_into_timeouts(mode):
    """Thirty spinning children of each opponent: with a CPU share per bot (its cgroup), an
    honest bot that needs 40 ms of CPU a move still answers within its second. Without it, each
    of its moves took over a second here and it forfeited. The spinners' own moves may starve
    (their children share their group): that is their loss. (Figures: bench/README.md.)"""
    seats = [BotCommand.from_spec(str(HOSTILE / name)) for name in ("thinker.py", "spin_children.py") * 2]
    tc = TimeControl(handshake_s=5, move_s=1.0, bank_s=0.5, grace_s=0.2)
    with trio.fail_after(60):  # a guard against a hang, not a timing assertion
        result = await play_table(seats, variant=VARIANT, plan=FixedDeals(PLAN), time_control=tc, sandbox=mode,
                                  limits=Limits(cpu_seconds=30), match_id="hostile", table_id=f"spin/{mode}", bot_seed=3)
    thinkers = [result.seats[0], result.seats[2]]
    assert [s.status for s in thinkers] == ["ok", "ok"], [(s.status, s.detail) for s in result.seats]
    assert all(s.moves >= 3 for s in thinkers), [(s.status, s.moves, s.detail) for s in result.seats]
    assert "30 spinning" in result.seats[1].stderr
