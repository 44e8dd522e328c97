"""`--game NAME` wherever a variant is taken: an unknown game is one clear line and exit 2 (run
as the installed program: exit codes and stderr only show there); zwicker is the default."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ARENA = Path(sys.executable).parent / "arena"
BOTS = Path(__file__).resolve().parents[1] / "bots"
BOT = str(BOTS / "zwicker" / "random_bot.py")


@pytest.mark.parametrize("args", [
    ["tournament", "run", "--name", "x", "--bots", f"{BOT},{BOT}", "--game", "chess"],
    ["play", BOT, BOT, "--game", "chess"],
    ["bot", "check", BOT, "--game", "chess"],
    ["sprt", BOT, BOT, "--game", "chess"],
    ["rules", "board", "--game", "chess"],
])
def test_an_unknown_game_is_one_line_and_exit_2(args, tmp_path):
    done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, timeout=60, input="",
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(tmp_path / "a.db")}, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("arena: error: --game: unknown game 'chess' (installed: zwicker")
    assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_a_tournament_stores_its_game(tmp_path):
    from arena.results import read, schema
    from arena.tournaments import runner

    db = schema.open_db(tmp_path / "a.db")
    tid = runner.prepare(db, "cup", [BOT, str(BOTS / "zwicker" / "first_bot.py")], runner.Settings(boards=1, seed=2**60))
    assert read.get_tournament(db, tid)["game"] == "zwicker"
    with pytest.raises(Exception, match="--game: unknown game"):
        runner.Settings(game="chess")
