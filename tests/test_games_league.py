"""The league for every game (`arena league serve --game G [--players N] [--variant V]`): its
ladder pairs k entrants where the game seats one bot a seat. Played here by the outside toy game
(tests/data/toytrick, installed by its entry point as tests/test_games_conformance.py installs
it), through the real server and `arena submit`."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading

import pytest

import games
from arena.league import pairing
from tests.test_games_conformance import install


def test_the_ladder_fills_a_table_of_k_with_the_most_doubtful_bots():
    assert pairing.next_group([1, 2], {}, {}, {}, boards=4, size=3) is None
    settled = {1: 3, 2: 3, 3: 3, 4: 3}
    apart = {1: pairing.Rated(0, -10, 10), 2: pairing.Rated(5, -5, 15), 3: pairing.Rated(8, -2, 18),
             4: pairing.Rated(900, 890, 910)}
    assert set(pairing.next_group([1, 2, 3, 4], apart, {}, settled, boards=4, size=3)) == {1, 2, 3}
    assert pairing.next_group([1, 2, 3, 4], apart, {}, settled, boards=4, size=2) == \
        pairing.next_pair([1, 2, 3, 4], apart, {}, settled, boards=4)
    met = {frozenset((5, 1)): 8, frozenset((5, 2)): 8}  # a new version meets those it met least
    assert pairing.next_group([1, 2, 3, 4, 5], apart, met, {**settled, 5: 0}, boards=4, size=3)[:1] == (5,)
    assert set(pairing.next_group([1, 2, 3, 4, 5], apart, met, {**settled, 5: 0}, boards=4, size=3)[1:]) == {3, 4}


@pytest.mark.slow
def test_a_league_of_an_outside_game_pairs_tables_of_three(tmp_path):
    tmp_path.chmod(0o755)
    site = install(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(site)}
    db = tmp_path / "league.db"

    def arena(*args: str, token: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=tmp_path,
                              env={**env, **({"ARENA_TOKEN": token} if token else {})}, timeout=300)

    tokens = {}
    for author in ("ann", "ben", "cid"):
        out = arena("league", "author", "add", author, "--db", str(db))
        assert out.returncode == 0, out.stderr
        tokens[author] = out.stdout.strip().splitlines()[-1]

    proc = subprocess.Popen([sys.executable, "-m", "arena", "league", "serve", "--db", str(db), "--port", "0",
                             "--boards", "1", "--concurrency", "1", "--game", "toytrick", "--players", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    lines: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()

    def wait_for(test) -> str:
        while True:
            line = lines.get(timeout=300)
            if line is None:
                raise AssertionError(f"the server ended: {proc.stderr.read()}")
            if test(line):
                return line

    try:
        url = wait_for(lambda line: "serving on" in line).split("serving on ")[1].split()[0]
        sources = {"ann": site / "toytrick" / "bots" / "low_bot.py", "ben": site / "toytrick" / "bots" / "high_bot.py",
                   "cid": games.RANDOM_BOT}
        for author, source in sources.items():
            folder = tmp_path / "src" / author
            folder.mkdir(parents=True)
            shutil.copy(source, folder / "bot.py")
            for p in (folder.parent, folder, folder / "bot.py"):
                p.chmod(0o755 if p.is_dir() else 0o644)
            out = arena("submit", str(folder), "--server", url, "--name", f"{author}-bot", token=tokens[author])
            assert out.returncode == 0, out.stdout + out.stderr  # checked at a table of the toy game
        started = wait_for(lambda line: line.startswith("match "))
        assert started.count(" v ") == 2, started  # three entrants, one table
        wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        standings = arena("league", "standings", "--db", str(db), "--json")
        assert standings.returncode == 0, standings.stderr
        doc = json.loads(standings.stdout)
        assert doc["game"] == "toytrick" and doc["entrants"] == 3
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        reader.join(timeout=60)
        proc.stdout.close()
        proc.stderr.close()

    again = arena("league", "serve", "--db", str(db), "--port", "0", "--game", games.DEFAULT)
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1 and "toytrick" in again.stderr
