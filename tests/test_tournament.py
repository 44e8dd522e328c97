"""Tournaments: the schedule, real duplicate play between real bot processes, determinism,
and resuming after an interruption (a cancelled run, and `kill -9` of the arena itself)."""

from __future__ import annotations

import io
import os
import random
import re
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from engine import zwicker
import games
from arena.errors import ArenaError
from arena.play import room
from arena.play.table import FixedDeals, play_table
from arena.process import forking
from arena.cli.progress import Progress
from arena.process.command import BotCommand
from arena.results import read, schema, write
from arena.tournaments import runner, schedule
from tests.test_shard import shards_of

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
DETERMINISTIC = [str(BOTS / "zwicker" / "random_bot.py"), str(BOTS / "zwicker" / "greedy_bot.py"), str(BOTS / "zwicker" / "first_bot.py")]


def test_round_robin_gauntlet_and_mixed_pairings():
    assert schedule.pairings([1, 2, 3], "clone") == [([1, 1], [2, 2]), ([1, 1], [3, 3]), ([2, 2], [3, 3])]
    assert schedule.pairings([1, 2, 3], "clone", gauntlet=3) == [([3, 3], [1, 1]), ([3, 3], [2, 2])]
    mixed = schedule.pairings([1, 2, 3, 4, 5], "mixed")
    assert len(mixed) == 5 * 3  # five groups of four, three pairings each
    assert ([1, 2], [3, 4]) in mixed and ([1, 3], [2, 4]) in mixed and ([1, 4], [2, 3]) in mixed
    assert all(sorted(a + b) == sorted(set(a + b)) for a, b in mixed)
    with pytest.raises(ArenaError, match="four bots"):
        schedule.pairings([1, 2, 3], "mixed")
    with pytest.raises(ArenaError, match="two bots"):
        schedule.pairings([1], "clone")


def test_every_match_is_played_in_two_rooms_with_the_sides_swapped():
    found = schedule.rooms([([1, 1], [2, 2]), ([1, 3], [2, 4])], boards=3,
                            layout=games.Layout(4, ((0, 2), (1, 3))), done={(1, 0, False)})
    assert [(r.match_no, r.swapped, r.seats, r.boards) for r in found] == [
        (1, False, (1, 2, 1, 2), (1, 2)),
        (1, True, (2, 1, 2, 1), (0, 1, 2)),
        (2, False, (1, 2, 3, 4), (0, 1, 2)),
        (2, True, (2, 1, 4, 3), (0, 1, 2)),
    ]
    # A board's seed depends on the master seed and the board number only.
    assert room.board_seed(5, 1) == zwicker.deal_seed(5, 1) != room.board_seed(5, 0)


def test_a_room_plan_chains_the_boards_plans():
    g = games.game("zwicker")
    v = g.variant("jensen:target=40")

    def finish(planned):  # the deal played to its end, every seat playing its first legal move
        seed, dealer, carry = planned
        s = g.deal(v, seed, dealer, carry)
        while not s.is_over:
            s = s.apply(s.legal_moves(1000)[0][0])
        return s

    fixed = room.RoomPlan([FixedDeals([(11, 0)]), FixedDeals([(12, 1)])])
    assert fixed.next_deal([]) == (11, 0, None)
    one = finish(fixed.next_deal([]))
    assert fixed.next_deal([one]) == (12, 1, None)
    assert fixed.next_deal([one, one]) is None
    assert fixed.split([one]) == ([1], True)
    plans = room.RoomPlan([room.GamePlan(v, 5, 0), room.GamePlan(v, 6, 1)])
    first = room.GamePlan(v, 5, 0)
    game = zwicker.Board.new(v, 5, 0)  # the engine's own game to the target decides
    finished = []
    while not game.is_over:
        assert plans.next_deal(finished) == first.next_deal(finished) == (game.deal_seed, game.dealer, None)
        finished.append(finish(plans.next_deal(finished)))
        game = game.after_points(list(finished[-1].result().sides))
    assert first.next_deal(finished) is None
    assert plans.next_deal(finished) == room.GamePlan(v, 6, 1).next_deal([])  # game 2 starts
    more = finished + [finish(plans.next_deal(finished))]
    assert plans.split(more) == ([len(finished), 1], False)
    assert plans.forfeit(g, v, 1).sides == (80, 0)


def test_variant_option_text():
    assert runner.parse_variant("jensen:target=51,all_tens=true") == zwicker.variant(
        "jensen", target=51, all_tens=True).to_dict()
    with pytest.raises(ArenaError, match="unknown option"):
        runner.parse_variant("jensen:colour=red")
    with pytest.raises(ArenaError, match="option=value"):
        runner.parse_variant("jensen:target")


async def test_tables_start_their_bots_at_once_but_play_only_in_their_turn():
    """What a tournament's concurrency rests on: tables sharing a one-table turn play one after
    the other, but the waiting table's bots start and answer hello meanwhile."""
    turn = trio.Semaphore(1)
    events = []

    @asynccontextmanager
    async def recorded(name):
        events.append((name, "ready"))  # handshake done, asking for the turn
        async with turn:
            events.append((name, "in"))
            yield
            events.append((name, "out"))

    bot = BotCommand.from_spec(DETERMINISTIC[0])
    plan = [(zwicker.deal_seed(3, k), k % 4) for k in range(6)]
    results = {}

    async def one(name):
        results[name] = await play_table([bot] * 4, variant="jensen", plan=FixedDeals(plan), turn=recorded(name))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for name in "ab":
                nursery.start_soon(one, name)
    assert all(r.ok and len(r.deals) == 6 for r in results.values())
    turns = [(name, kind) for name, kind in events if kind != "ready"]
    first, second = turns[0][0], turns[2][0]
    assert turns == [(first, "in"), (first, "out"), (second, "in"), (second, "out")]  # one at a time
    assert events.index((second, "ready")) < events.index((first, "out"))  # ready while the first played


def boards_of(db, tid):
    return [(b["match_no"], b["board_no"], b["seed"], b["margin"], b["outcome"])
            for b in read.board_results(db, tid)]


def table_points(db, tid):
    return sorted(db.execute(
        "SELECT m.match_no, t.board_no, t.swapped, json_extract(t.side_points, '$[0]'), json_extract(t.side_points, '$[1]') FROM board_tables t"
        " JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ?", [tid]).fetchall())


async def test_a_tournament_is_deterministic_and_resumes_exactly(tmp_path):
    settings = runner.Settings(boards=2, seed=7)
    full = schema.open_db(tmp_path / "full.db")
    tid = runner.prepare(full, "full", DETERMINISTIC, settings)
    done = await runner.run(full, tid, concurrency=2)
    assert done["status"] == "finished" and done["boards_done"] == 3 * 2
    assert all(row[3] + row[4] > 0 for row in table_points(full, tid))

    again = schema.open_db(tmp_path / "again.db")
    tid2 = runner.prepare(again, "again", DETERMINISTIC, settings)

    class Enough(Exception):
        pass

    played = []

    def on_room(room, boards):  # heard as each board is stored, not only when its room ends
        played.append((room.match_no, room.swapped, tuple(boards)))
        if len(played) == 3:
            raise Enough

    with pytest.raises(BaseException) as caught:
        await runner.run(again, tid2, concurrency=2, on_room=on_room)
    assert caught.group_contains(Enough)
    assert all(len(boards) == 1 for _, _, boards in played)
    assert read.get_tournament(again, tid2)["status"] == "interrupted"
    assert 3 <= len(read.done_tables(again, tid2)) < 12
    resumed = await runner.run(again, tid2, concurrency=1)
    assert resumed["status"] == "finished"
    assert (resumed["settings"]["sandbox"], resumed["settings"]["sandboxes"]) == ("none", ["none"])
    assert boards_of(again, tid2) == boards_of(full, tid)
    assert table_points(again, tid2) == table_points(full, tid)
    standings = read.standings(again, tid2)
    assert {s["bot"].split("@")[0] for s in standings} == {"random", "greedy", "first"}
    random_row = next(s for s in standings if s["bot"].startswith("random"))
    assert random_row["elo"] == 0  # the bundled random bot anchors the scale


async def test_a_drawn_master_seed_is_stored_and_replays_its_tournament(tmp_path):
    """Without a seed a tournament draws one (issue 13): given back with --seed, the same deals
    and the same play (the bots' seeds are keyed by it too); the same command resumes it."""
    db = schema.open_db(tmp_path / "seeds.db")
    drawn = runner.prepare(db, "drawn", DETERMINISTIC[:2], runner.Settings(boards=2))
    seed = read.get_tournament(db, drawn)["seed"]
    assert runner.prepare(db, "drawn", DETERMINISTIC[:2], runner.Settings(boards=2)) == drawn
    again = runner.prepare(db, "again", DETERMINISTIC[:2], runner.Settings(boards=2, seed=seed))
    for tid in (drawn, again):
        assert (await runner.run(db, tid, concurrency=2, processes=1))["status"] == "finished"
    assert boards_of(db, again) == boards_of(db, drawn)
    assert [b[2] for b in boards_of(db, drawn)] == [zwicker.deal_seed(seed, k) for k in (0, 1)]
    assert table_points(db, again) == table_points(db, drawn)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("out", [io.StringIO, Terminal])
async def test_the_progress_line_counts_boards_deals_and_faults(tmp_path, out):
    db = schema.open_db(tmp_path / "p.db")
    tid = runner.prepare(db, "p", DETERMINISTIC[:2], runner.Settings(boards=5, seed=3))
    reports = []
    progress = Progress(out=out(), width=80, report_every=2,
                        report=lambda: reports.append(1) or f"REPORT {len(reports)}")
    await runner.run(db, tid, concurrency=2, progress=progress)  # each board is stored as it ends:
    text = progress.out.getvalue()  # reports at 2 and 4 boards, -> 5 (the end: the standings follow)
    shape = (r"(\[[#.]+\] |[━╸╺]+ )?(\d+)/5 boards stored  \d+\.\d deals/s( \d:\d\d:\d\d)?"
             r"  ?ETA (~?\d+:\d\d( \(\d bots? not seen yet\))?|--:--)  faults 0")
    if out is Terminal:  # rich's bar redrawn in place, the cursor hidden meanwhile; reports above it
        assert text.startswith("\x1b[?25l") and text.endswith("\n\x1b[?25h")
        plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
        draws = [d for line in plain.split("\n") for d in line.split("\r") if d]
        lines = [d for d in draws if not d.startswith("REPORT")]
        assert [d for d in draws if d.startswith("REPORT")] == ["REPORT 1", "REPORT 2"]
        assert all(len(d) <= 80 for d in draws)
    else:  # a log: a line at each tenth of the way, the last one once; reports as lines
        assert "\r" not in text and "\x1b" not in text
        lines = [line for line in text.splitlines() if not line.startswith("REPORT")]
        assert [line for line in text.splitlines() if line.startswith("REPORT")] == ["REPORT 1", "REPORT 2"]
    done = [int(re.fullmatch(shape, line).group(2)) for line in lines]
    assert done == sorted(done) and done[-1] == 5
    assert out is Terminal or len(done) == len(set(done))


def test_the_progress_line_after_a_resume_counts_only_this_run():
    """Half stored before: the speed and ETA come from this run's tables, not the stored ones."""
    progress = Progress(out=io.StringIO(), width=80)
    progress.begin(tables_total=40, tables_done=20)
    assert "ETA --:--" in progress.line()  # nothing played here yet: no guess
    progress.started -= 10.0  # ten seconds into this run
    progress.update(tables=10, deals=10, faults=0)  # 10 tables in 10 s, 10 left: about 10 s
    line = progress.line()
    assert "15/20 boards stored" in line and re.search(r"ETA 0:(09|10)", line), line
    assert len(Progress(out=io.StringIO()).line(width=30)) <= 29  # a narrow terminal: cut


def test_the_eta_allows_for_each_matchs_pace_and_says_when_it_has_not_seen_a_bot():
    """Bot 3 thinks 10 s a board where bots 1 and 2 take a quarter: its match's boards left count
    forty times theirs, which a mean rate over the boards so far would not see."""
    from arena.play.room import Room

    def record(think: dict[int, float], duration: float) -> dict:
        return {"seats": [{"seat": k, "think_ms_total": ms} for k, ms in think.items()], "duration_s": duration}

    fast, slow = (1, 2, 1, 2), (3, 1, 3, 1)
    todo = [Room(1, False, fast, (0, 1)), Room(1, True, fast, (0, 1)),
            Room(2, False, slow, (0, 1, 2, 3)), Room(2, True, slow, (0, 1, 2, 3))]
    progress = Progress(out=io.StringIO(), width=120)
    progress.begin(tables_total=12, tables_done=0, todo=todo)
    assert "ETA --:--" in progress.line()  # nothing stored yet: no guess
    progress.update(1, 1, 0, todo[0], [record({k: 250.0 for k in range(4)}, 1.0)])
    assert "(1 bot not seen yet)" in progress.line()  # bot 3 has not played: said so
    progress.started -= 22.0  # 22 s in: one fast board (1 s) and, now, one slow one (21 s) stored
    progress.update(1, 1, 0, todo[2], [record({0: 10_000.0, 1: 250.0, 2: 10_000.0, 3: 250.0}, 21.0)])
    # a board takes its seats' think time plus the arena's own 0.25 s: 1 + 2 fast boards left at 1.25 s,
    # 3 + 4 slow ones at 20.75 s: 149 s, at 22 s of boards per 22 s (a mean rate would say 110 s)
    line = progress.line()
    assert "ETA 2:29 " in line and "not seen" not in line, line
    assert "1/6 boards stored" in line  # two tables: one board's worth


async def test_mixed_partners_and_whole_games(tmp_path):
    db = schema.open_db(tmp_path / "a.db")
    four = DETERMINISTIC + [str(BOTS / "zwicker" / "sweeper_bot.py")]
    tid = runner.prepare(db, "mixed", four, runner.Settings(boards=1, partners="mixed"))
    result = await runner.run(db, tid)
    assert result["boards_done"] == 3
    seats = db.execute("SELECT DISTINCT t.id, COUNT(DISTINCT s.bot_id) FROM seats s JOIN board_tables t ON t.id = s.table_id"
                       " GROUP BY t.id").fetchall()
    assert all(count == 4 for _, count in seats)  # four different bots at every table

    tid = runner.prepare(db, "games", DETERMINISTIC[1:], runner.Settings(boards=1, format="game",
                                                               variant=zwicker.variant("jensen", target=31).to_dict()))
    await runner.run(db, tid)
    deals = db.execute("SELECT COUNT(*) FROM deals d JOIN board_tables tb ON tb.id = d.table_id"
                       " JOIN matches m ON m.id = tb.match_id WHERE m.tournament_id = ?", [tid]).fetchone()[0]
    assert deals > 2  # each table played deals until a side passed 31
    for p0, p1 in db.execute("SELECT json_extract(t.side_points, '$[0]'), json_extract(t.side_points, '$[1]') FROM board_tables t JOIN matches m ON m.id = t.match_id "
                             "WHERE m.tournament_id = ?", [tid]):
        assert max(p0, p1) >= 31


def test_each_sandbox_a_tournament_ran_under_is_recorded(tmp_path):
    db = schema.open_db(tmp_path / "s.db")
    tid = runner.prepare(db, "s", DETERMINISTIC[:2], runner.Settings(boards=1), sandbox="bwrap")
    for mode in ("bwrap", "rlimit", "bwrap", "fork"):  # a run, then resumed elsewhere, and so on
        write.note_sandbox(db, tid, mode)
    settings = read.get_tournament(db, tid)["settings"]
    assert (settings["sandbox"], settings["sandboxes"]) == ("bwrap", ["bwrap", "rlimit", "fork"])
    with pytest.raises(ArenaError, match="unknown tournament id 99"):
        write.note_sandbox(db, 99, "none")


def test_a_name_that_exists_with_other_settings_is_refused(tmp_path):
    db = schema.open_db(tmp_path / "a.db")
    runner.prepare(db, "x", DETERMINISTIC[:2], runner.Settings(boards=1))
    assert runner.prepare(db, "x", DETERMINISTIC[:2], runner.Settings(boards=1)) == runner.prepare(db, "x", None, None)
    with pytest.raises(ArenaError, match="boards=1, not 2"):
        runner.prepare(db, "x", DETERMINISTIC[:2], runner.Settings(boards=2))
    with pytest.raises(ArenaError, match="other bots"):
        runner.prepare(db, "x", DETERMINISTIC, runner.Settings(boards=1))
    with pytest.raises(ArenaError, match="no tournament 'y' to resume"):
        runner.prepare(db, "y", None, None)
    with pytest.raises(ArenaError, match="unknown bot 'nobody'"):
        runner.prepare(db, "z", ["nobody", DETERMINISTIC[0]], runner.Settings())
    with pytest.raises(ArenaError, match="no bot file"):
        runner.prepare(db, "z", ["bots/missing_bot.py", DETERMINISTIC[0]], runner.Settings())


def bot_processes(marker):
    """Live bot processes (tagged by the arena) whose command line names `marker`: this test's
    folder, where the stored bot copies live (other test runs on the machine have their own)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if b"ZWICKER_ARENA_BOT=" not in Path(f"/proc/{entry.name}/environ").read_bytes():
                    continue
                if marker.encode() not in Path(f"/proc/{entry.name}/cmdline").read_bytes():
                    continue
                if "State:\tZ" not in Path(f"/proc/{entry.name}/status").read_text():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def describe(pids):
    out = []
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            status = Path(f"/proc/{pid}/status").read_text()
            state = next(line for line in status.splitlines() if line.startswith(("State", "PPid")))
            kids = [c for c in os.listdir("/proc") if c.isdigit() and f"PPid:\t{pid}\n" in
                    (Path(f"/proc/{c}/status").read_text() if Path(f"/proc/{c}/status").exists() else "")]
            state += f"; children {kids}; wchan {Path(f'/proc/{pid}/wchan').read_text()}"
            for kid in kids:
                state += f" [{kid}: {Path(f'/proc/{kid}/cmdline').read_bytes()[:80]!r}]"
            ppid = next(line for line in status.splitlines() if line.startswith("PPid"))
            out.append(f"{pid}: {cmd[:200]} [{state}; {ppid}]")
        except (OSError, StopIteration):
            out.append(f"{pid}: gone")
    return "; ".join(out)


def count_tables(path):
    try:
        db = schema.open_db(path, create=False)
    except ArenaError:  # not created yet, or still empty
        return 0
    try:
        return db.execute("SELECT COUNT(*) FROM board_tables").fetchone()[0]
    finally:
        db.close()


def run_arena(db_path, name, wait=True, concurrency=2):
    """The real `arena tournament run` command in its own process (the default sandbox):
    five bots in mixed partnerships, 30 rooms of 2 boards."""
    five = DETERMINISTIC + [str(BOTS / "zwicker" / "sweeper_bot.py"), str(BOTS / "zwicker" / "builder_bot.py")]
    cmd = [sys.executable, "-m", "arena", "tournament", "run", "--bots", ",".join(five), "--partners", "mixed",
           "--boards", "2", "--seed", "11", "--name", name, "--quiet", "--concurrency", str(concurrency)]
    env = {**os.environ, "ARENA_DB": str(db_path)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if wait:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    return proc


def pace_of(db_path, name):
    """Run the real command to the end, watching its database: the seconds until its first room
    was stored, and between rooms after that (so that kills can be timed in rooms, not in
    seconds, on a fast machine as on a slow one)."""
    start = time.monotonic()
    proc = run_arena(db_path, name, wait=False)
    stored, first, last = 0, None, None
    while proc.poll() is None:
        if (now := count_tables(db_path)) > stored:
            stored, last = now, time.monotonic() - start
            first = last if first is None else first
        time.sleep(0.005)
    _, err = proc.communicate()
    assert proc.returncode == 0, err.decode()
    rooms = count_tables(db_path) // 2  # two boards a room
    return first, (last - first) / max(1, rooms - 1)


def test_kill_9_ten_times_then_resume_gives_the_uninterrupted_results(open_dir):
    """SIGKILL the arena at ten random moments, resuming each time (issues 4 and 5)."""
    tmp_path = open_dir
    reference = tmp_path / "reference.db"
    first_room, per_room = pace_of(reference, "t")
    killed = tmp_path / "killed.db"
    rng = random.Random(5)
    stored, kills, ended = [0], 0, []  # ended: the runs that ended before their kill, and how
    for i in range(10):
        # One room at a time, killed at a random moment of the room after this run's first
        # (or, one time in four, at any moment until about its first room is stored: start-up,
        # opening the database); every other run with two tables, which on two cores or more
        # play in two processes. Timed by the reference run's pace, 30 rooms last ten rounds.
        # The kill comes at that moment or as a third table more is stored, whichever is first:
        # a run that goes faster than the reference (tables stored in a burst) is killed too.
        proc = run_arena(killed, "t", wait=False, concurrency=1 + i % 2)
        if rng.random() < 0.75:
            while proc.poll() is None and count_tables(killed) <= stored[-1]:
                time.sleep(0.005)
            until = time.monotonic() + rng.uniform(0, per_room)
        else:
            until = time.monotonic() + rng.uniform(0, first_room)
        while proc.poll() is None and time.monotonic() < until and count_tables(killed) <= stored[-1] + 2:
            time.sleep(0.005)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        _, err = proc.communicate()
        if proc.returncode != -signal.SIGKILL:
            ended.append((i, proc.returncode, err.decode()[-500:]))
        deadline = time.monotonic() + 10
        while (bot_processes(str(tmp_path)) or shards_of(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.01)  # by their parent-death signals, or the watchdogs (arena/process/watchdog.py)
        assert shards_of(proc.pid) == []
        assert bot_processes(str(tmp_path)) == [], f"left behind: {describe(bot_processes(str(tmp_path)))}"
        db = schema.open_db(killed, create=False)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.close()
        stored.append(count_tables(killed))
    assert stored == sorted(stored) and kills == 10 and stored[-1] < 60, (stored, kills, ended)
    run_arena(killed, "t")
    assert bot_processes(str(tmp_path)) == [], f"left behind: {describe(bot_processes(str(tmp_path)))}"
    a, b = schema.open_db(reference, create=False), schema.open_db(killed, create=False)
    ta, tb = read.get_tournament(a, "t"), read.get_tournament(b, "t")
    assert tb["status"] == "finished"
    assert boards_of(b, tb["id"]) == boards_of(a, ta["id"]) and len(boards_of(a, ta["id"])) == 30
    assert table_points(b, tb["id"]) == table_points(a, ta["id"])
    assert b.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert read.standings(b, tb["id"]) == read.standings(a, ta["id"])


@pytest.mark.skipif(forking.problem() is not None, reason=f"fork: {forking.problem()}")
async def test_a_tournament_in_the_fork_sandbox_gives_the_results_of_one_without(open_dir):
    """One fork server serves the whole run; the sandbox changes nothing a deterministic bot does."""
    settings = runner.Settings(boards=2, seed=11)
    results = {}
    for mode in ("fork", "none"):
        db = schema.open_db(open_dir / f"{mode}.db")
        tid = runner.prepare(db, mode, DETERMINISTIC, settings, sandbox=mode)
        done = await runner.run(db, tid, concurrency=2, sandbox=mode)
        assert done["status"] == "finished" and done["boards_done"] == 3 * 2
        assert not db.execute("SELECT COUNT(*) FROM seats WHERE status != 'ok'").fetchone()[0]
        results[mode] = (boards_of(db, tid), table_points(db, tid))
    assert results["fork"] == results["none"]
