"""Tournaments at every table the rules allow (issue 33, one match shape): a match is k entrants
in k rotated rooms, one entrant a side, a side of several seats filled with copies of its bot;
two sides of two partners stay two teams (clone or mixed). Zwicker by 3 (each for himself) and
grossenwiehe by 6 (three against three) through the real `arena`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.tournaments.schedule import room_seats

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots" / "zwicker"


def test_a_side_of_several_seats_holds_copies_of_its_entrant():
    assert room_seats([[7], [9]], 6, ((0, 2, 4), (1, 3, 5))) == [[7, 9, 7, 9, 7, 9], [9, 7, 9, 7, 9, 7]]
    assert room_seats([[1], [2], [3]], 3) == [[1, 2, 3], [3, 1, 2], [2, 3, 1]]  # one seat a side
    assert room_seats([[1, 1], [2, 2]], 4) == [[1, 2, 1, 2], [2, 1, 2, 1]]  # two teams, as before


@pytest.mark.slow
def test_zwicker_tournaments_by_three_and_three_against_three(tmp_path):
    env = {**os.environ, "ARENA_DB": str(tmp_path / "arena.db")}

    def arena(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "arena", *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=600)

    for name in ("random", "greedy", "first"):
        assert arena("bot", "add", str(BOTS / f"{name}_bot.py"), "--no-check").returncode == 0
    for args, entrants in ((["--players", "3"], 3), (["--variant", "grossenwiehe", "--players", "6"], 2)):
        name = f"t{entrants}"
        run = arena("tournament", "run", "--bots", "random,greedy,first", "--boards", "1", "--name", name,
                    "--seed", "123456789012345", *args)
        assert run.returncode == 0, run.stdout + run.stderr
        doc = json.loads(arena("standings", name, "--json").stdout)
        assert doc["entrants"] == entrants and doc["anchor"] == "random" and len(doc["standings"]) == 3
        matches = arena("matches", name, "--match", "1").stdout
        assert f"mod {entrants}" in matches
    replay = arena("replay", "4").stdout  # a deal of the three against three: copies fill each side
    seats = [entry.split("=")[1] for entry in replay.split("seats: ")[1].splitlines()[0].split(", ")]
    assert len(seats) == 6 and seats[0] == seats[2] == seats[4] != seats[1] == seats[3] == seats[5]

    sprt = arena("sprt", "greedy", "random", "--variant", "grossenwiehe", "--players", "6", "--max-boards", "2")
    assert sprt.returncode == 2 and len(sprt.stderr.strip().splitlines()) == 1 and "3 v 3" in sprt.stderr
    swiss = arena("tournament", "run", "--bots", "random,greedy,first", "--variant", "grossenwiehe", "--players", "6",
                  "--pairing", "swiss", "--name", "s6")
    assert swiss.returncode == 2 and len(swiss.stderr.strip().splitlines()) == 1
