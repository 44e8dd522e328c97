"""`arena sprt`: is NEW better than OLD? A duplicate match played until a sequential test decides.

A test is a tournament of one match, NEW's two copies (team A) against OLD's (at a table of any
other layout, one entrant per side: NEW and OLD hold alternate sides, entrants 0, 2, ... NEW's, each
bot in every seat of its side), stored like any
other, whose board count grows a batch at a time: `runner.run` plays each batch as the match's
two rooms (a room's four bots play the batch's boards one after another, each board stored as it
ends), so everything a tournament guarantees holds, resuming included. After each batch
the test recounts its boards from the stored tables and applies the SPRT board by board, in board
order (`arena.results.sprt`: each board's two room results summed, 0 .. 2, counted by outcome; a
log-likelihood ratio against Wald's bounds). It stops at the first board whose LLR leaves the
bounds, so the verdict is that of a test checked after every board: boards of the last batch
beyond it stay stored with the match but are not counted. A kill loses at most the boards then
playing; running the same command again plays them again and the counts go on from the table.

Faults stop a test too: a table a bot forfeits scores 0 for its side whatever the cards, so a
test of faulting bots measures the faults, not the play. Once more than `max_faults` of the
test's tables (MAX_FAULTS by default) ended in a fault, checked after each batch, it stops with
the verdict "faults", whatever the LLR says; the summary counts the faulted tables, and whose,
whether it stopped or not.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from arena.errors import ArenaError
from arena.play import seeds
from arena.process.command import Limits
from arena.results import present, read, sprt_tests, write
from arena.results.sprt import SPRT, estimate, pentanomial
from arena.tournaments import runner
from arena.tournaments.progress import Silent, SprtProgress
from arena.tournaments.runner import Settings, bot_command, resolve_bots
from arena.tournaments.schedule import two_teams

BATCH = 8
MAX_FAULTS = 0.1
"""The share of a test's tables that may end in a fault before it stops (as the standings flag
a bot faulting in more than 10% of its tables)."""
"""Boards per batch: a batch costs a start of eight bots, and may overshoot the verdict by up to
BATCH - 1 boards (played, stored, not counted)."""


@dataclass(frozen=True)
class Verdict:
    """Where a test stands after `boards` boards: "H0", "H1", "limit" (no decision within the
    board limit), "faults" (too many tables ended in a fault) or None (play on)."""

    verdict: str | None
    boards: int
    counts: tuple[int, int, int, int, int]
    llr: float


def decide(test: SPRT, scores: Sequence[float], max_boards: int | None = None) -> tuple[Verdict, list[Verdict]]:
    """The test applied board by board to NEW's board scores: its state at the first board whose
    LLR leaves the bounds (or at the board limit, or after every board), and its state after
    each board up to there."""
    steps: list[Verdict] = []
    counts = [0] * 5
    for n, score in enumerate(scores[:max_boards], start=1):
        counts[pentanomial([score]).index(1)] += 1
        llr = test.llr(counts)
        status = "H1" if llr >= test.upper else "H0" if llr <= test.lower else None
        if status is None and max_boards is not None and n >= max_boards:
            status = "limit"
        c0, c1, c2, c3, c4 = counts
        steps.append(Verdict(status, n, (c0, c1, c2, c3, c4), llr))
        if status is not None:
            break
    return (steps[-1] if steps else Verdict(None, 0, (0, 0, 0, 0, 0), 0.0)), steps


def too_many_faults(faults: dict, max_faults: float | None) -> bool:
    """Whether more than `max_faults` of the tables (`read.fault_tables`) ended in a fault."""
    return max_faults is not None and faults["faulted"] > max_faults * faults["tables"]


def standing(db: sqlite_utils.Database, tid: int, test: SPRT, max_boards: int | None, max_faults: float | None
             ) -> tuple[Verdict, list[Verdict], list[float]]:
    """The test's state from its stored boards and tables (`decide`, then the fault limit), its
    state after each board, and the boards' scores."""
    scores = sprt_tests.board_scores(db, tid)
    state, steps = decide(test, scores, max_boards)
    if state.verdict != "faults" and too_many_faults(read.fault_tables(db, tid), max_faults):
        state = dataclasses.replace(state, verdict="faults")
    return state, steps, scores


def prepare(db: sqlite_utils.Database, name: str | None, new: str, old: str, test: SPRT, *,
            max_boards: int | None = None, batch: int = BATCH, settings: Settings | None = None,
            sandbox: str = "none", max_faults: float | None = MAX_FAULTS) -> int:
    """Create the test (a one-match tournament and its row), or find it to resume; returns the
    tournament's id. NEW and OLD may be the same bot. A test found by name must have the same
    bots, hypotheses, error rates, batch and deals; only the board and fault limits may change."""
    if max_boards is not None and max_boards < 1:
        raise ArenaError(f"--max-boards must be at least 1, got {max_boards}")
    if max_faults is not None and not 0 <= max_faults <= 1:
        raise ArenaError(f"--max-faults is a share of the tables, 0 to 1, not {max_faults}")
    if batch < 1:
        raise ArenaError(f"--batch must be at least 1, got {batch}")
    settings = settings or Settings()
    new_row, old_row = resolve_bots(db, [new], settings.game)[0], resolve_bots(db, [old], settings.game)[0]
    name = name or f"sprt-{new_row['name']}@{new_row['version']}-{old_row['name']}@{old_row['version']}"
    existing = {t["name"]: t for t in read.list_tournaments(db)}
    if name in existing:
        t = existing[name]
        stored = sprt_tests.get(db, t["id"])
        if stored is None:
            raise ArenaError(f"'{name}' is a tournament, not an SPRT test: choose another --name")
        for role, row in (("new", new_row), ("old", old_row)):
            if stored[f"{role}_bot"] != row["id"]:
                raise ArenaError(f"SPRT test '{name}' was started with another {role.upper()} bot than "
                                 f"{row['name']}@{row['version']}: choose another --name")
        want: dict[str, object] = {"elo0": test.elo0, "elo1": test.elo1,
                                   "alpha": test.alpha, "beta": test.beta, "batch": batch}
        have = {**{k: stored[k] for k in want}, "seed": t["seed"], "variant": t["variant"], "format": t["format"]}
        want.update(seed=t["seed"] if settings.seed is None else settings.seed, variant=settings.variant,
                    format=settings.format)
        for key, value in want.items():
            if have[key] != value:
                raise ArenaError(f"SPRT test '{name}' exists with {key}={have[key]!r}, not {value!r}: run it with "
                                 "its own settings to resume it, or choose another --name")
        if (stored["max_boards"], stored["max_faults"]) != (max_boards, max_faults):  # new limits may reopen it
            now = standing(db, t["id"], test, max_boards, max_faults)[0]
            sprt_tests.save(db, t["id"], boards=now.boards, counts=list(now.counts), llr=now.llr,
                            verdict=now.verdict, max_boards=max_boards, max_faults=max_faults)
        return t["id"]
    g = runner.check_game(settings.game)
    layout = g.layout(settings.engine_variant)
    teams, k = two_teams(layout), layout.num_sides
    for row in (new_row, old_row):
        bot_command(row)  # a bot that cannot be started is refused before anything is stored
    first = min(batch, max_boards or batch)
    seed = settings.seed
    if seed is None:
        seed = seeds.draw_master_seed()
        sys.stderr.write(f"arena: SPRT test '{name}': master seed {seed} (drawn at random, stored)\n")
    elif (warning := seeds.guessable_warning(seed)) is not None:
        sys.stderr.write(warning + "\n")
    tid = write.create_tournament(
        db, name, seed=seed, variant=settings.variant, format=settings.format, partners="clone",
        boards=first, bot_ids=[new_row["id"], old_row["id"]],
        settings={"sprt": True, "time_control": dataclasses.asdict(settings.time_control), "sandbox": sandbox},
        matches=[([new_row["id"]] * 2, [old_row["id"]] * 2)] if teams else
        [[[new_row["id"] if e % 2 == 0 else old_row["id"]] for e in range(k)]], game=settings.game)
    sprt_tests.create(db, tid, new_bot=new_row["id"], old_bot=old_row["id"], elo0=test.elo0, elo1=test.elo1,
                      alpha=test.alpha, beta=test.beta, max_boards=max_boards, batch=batch, max_faults=max_faults)
    return tid


def _test_of(row: dict) -> SPRT:
    return SPRT(row["elo0"], row["elo1"], row["alpha"], row["beta"])


async def run(db: sqlite_utils.Database, tid: int, *, sandbox: str = "none", limits: Limits | None = None,
              report: SprtProgress | None = None, concurrency: int | None = None) -> dict:
    """Play the test's boards a batch at a time until it decides (or reaches its board limit);
    returns the stored test. A test decided already just says so. `concurrency`: tables at
    once (default 2; the fair setting, `--fair`, plays as many as memory allows)."""
    row = sprt_tests.get(db, tid)
    if row is None:
        raise ArenaError(f"tournament {tid} is not an SPRT test")
    test, max_boards, batch, max_faults = _test_of(row), row["max_boards"], row["batch"], row["max_faults"]
    report = report if report is not None else Silent()
    per = "room" if read.told_as_teams(db, tid) else "board"  # one bot a seat: per board
    report.on_line(f"sprt {row['name']}: {row['new']} v {row['old']}, H0 elo {test.elo0:g}, H1 elo {test.elo1:g} per "
               f"{per}, alpha {test.alpha:g}, beta {test.beta:g}, LLR bounds [{test.lower:+.2f}, {test.upper:+.2f}]")
    shown = None
    while True:
        state, steps, scores = standing(db, tid, test, max_boards, max_faults)
        if shown is None and steps:
            report.on_line(f"decided already, at board {state.boards}" if state.verdict is not None
                       else f"resuming after {len(steps)} boards (LLR {state.llr:+.2f})")
            shown = len(steps)
        for step in steps[shown or 0:]:
            report.on_board(f"board {step.boards:4d}  score {scores[step.boards - 1]:g}  LLR {step.llr:+.2f}  "
                            f"bounds [{test.lower:+.2f}, {test.upper:+.2f}]")
        shown = len(steps)
        sprt_tests.save(db, tid, boards=state.boards, counts=list(state.counts), llr=state.llr,
                        verdict=state.verdict, max_boards=max_boards, max_faults=max_faults)
        if state.verdict == "faults":
            report.on_line(f"stopped: {present.fault_line(read.fault_tables(db, tid))}")
        if state.verdict is not None:
            break
        t = read.get_tournament(db, tid)
        if len(scores) >= t["boards"]:  # the stored boards are all played: the next batch
            target = len(scores) + batch
            sprt_tests.grow(db, tid, target if max_boards is None else min(target, max_boards))
        await runner.run(db, tid, concurrency=concurrency or 2, processes=1, sandbox=sandbox, limits=limits,
                         rate=False)
        if len(sprt_tests.board_scores(db, tid)) <= len(scores):
            raise ArenaError(f"SPRT test '{row['name']}': a batch ended without a finished board")
    report.on_end()
    write.compute_and_store_ratings(db, tid)
    return summary(db, tid)


def summary(db: sqlite_utils.Database, tid: int) -> dict[str, Any]:
    """The stored test with its verdict in words and NEW's room Elo with a 95% interval."""
    row = sprt_tests.get(db, tid)
    if row is None:
        raise ArenaError(f"tournament {tid} is not an SPRT test")
    test = _test_of(row)
    room_elo = elo_with_interval(row["counts"])
    played = len(sprt_tests.board_scores(db, tid))
    faults = read.fault_tables(db, tid)
    limit = row["max_faults"]
    said = {"H1": f"H1 accepted: {row['new']} is better than {row['old']} (by elo1 = {test.elo1:g} rather than "
                  f"elo0 = {test.elo0:g})",
            "H0": f"H0 accepted: {row['new']} is not better than {row['old']} by elo1 = {test.elo1:g}",
            "limit": "no decision by the board limit (--max-boards)",
            "faults": f"stopped without a decision: more than {100 * (limit or 0):g}% of the tables ended in a fault",
            None: "still running"}[row["verdict"]]
    seats = read.schedule(db, tid)[0]["entrants"]
    alone = not read.told_as_teams(db, tid)
    return {**row, "lower": test.lower, "upper": test.upper, "played": played, "said": said, "faults": faults,
            "room_elo": room_elo, "seats": len(seats) if alone else None}


def elo_with_interval(counts: Sequence[int]) -> dict[str, float | bool | None]:
    """NEW's Elo (room or board) with its 95% interval, for JSON (which has neither infinity
    nor -0.0): `elo`, `low`, `high`, None where unbounded; a record all at one end (every board
    won: `elo` None) is open there, and `more_than` (`less_than`) is its one finite bound."""
    elo, low, high = (None if math.isinf(x) else x + 0.0 for x in estimate(counts))
    return {"elo": elo, "low": low, "high": high,
            "more_than": low if elo is None and low is not None and high is None else None,
            "less_than": high if elo is None and high is not None and low is None else None}
