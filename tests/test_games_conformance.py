"""Every installed game keeps the interface (games.conformance), and a game from outside goes
through the arena unchanged: tests/data/toytrick, a package of its own with a
`zwicker_arena.games` entry point, installed into a temporary site folder as pip lays one out,
and driven through the `arena` command as a subprocess (docs/adding-a-game.md)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import games
from games import conformance

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "data" / "toytrick"


@pytest.mark.parametrize("name", [g.info.name for g in games.installed()])
def test_every_installed_game_conforms(name):
    game = games.game(name)
    conformance.check(game, boards=2 if name in games.BUNDLED else 1)


@pytest.fixture(scope="module")
def toy():
    sys.path.insert(0, str(TOY))
    try:
        import toytrick

        yield toytrick
    finally:
        sys.path.remove(str(TOY))


def test_the_toy_game_conforms_and_plays_through(toy):
    conformance.check(toy.GAME, ["players=3", {"players": 4}], boards=4)
    text = conformance.playthrough(toy.GAME, "players=3", seed=5)
    assert text == conformance.playthrough(toy.GAME, "players=3", seed=5)
    assert text.startswith("game toytrick 0.1.0\nvariant players=3\n") and "result: seats [" in text


def test_the_check_finds_a_game_that_breaks_the_interface(toy):
    class Unfair(type(toy.GAME)):  # a zero-sum game whose forfeit-free boards do not sum to zero
        def board(self, variant, seed, first_dealer=0, format=None):
            board = super().board(variant, seed, first_dealer, format)
            return dataclasses.replace(board, totals=(1,) * variant.players)

    with pytest.raises(AssertionError, match="zero-sum"):
        conformance.check(Unfair(), boards=1)

    class Forgetful(type(toy.GAME)):  # one stored deal rebuilt alone is not the deal played
        def deal(self, variant, seed, dealer, carry=None):
            return super().deal(variant, seed + 1, dealer, carry)

    with pytest.raises(AssertionError, match="not the board's deal"):
        conformance.check(Forgetful(), boards=1)


def install(site: Path) -> Path:
    """The toy package as `pip install` leaves it in site-packages: the package, and a dist-info
    folder with its metadata and entry points (from its pyproject.toml)."""
    project = tomllib.loads((TOY / "pyproject.toml").read_text())["project"]
    shutil.copytree(TOY / "toytrick", site / "toytrick")
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    points = "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items())
                     for group, eps in project["entry-points"].items())
    (info / "entry_points.txt").write_text(points)
    return site


@pytest.mark.slow
def test_an_outside_game_goes_through_the_arena_unchanged(tmp_path):
    site = install(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(site), "ARENA_DB": str(tmp_path / "arena.db")}

    def arena(*args: str, stdin: str | None = None, ok: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=tmp_path, env=env, input=stdin,
                              capture_output=True, text=True, timeout=600)
        if ok:
            assert done.returncode == 0, f"arena {' '.join(args)}: {done.stdout}\n{done.stderr}"
        return done

    listed = {g["name"]: g for g in json.loads(arena("rules", "games", "--json").stdout)}
    assert listed["toytrick"]["formats"] == ["hand", "rubber"] and listed["toytrick"]["anchor"] == games.RANDOM_NAME
    board = json.loads(arena("rules", "board", "--game", "toytrick",
                             stdin='{"variant": "players=4", "seed": 7, "policy": "first", "format": "rubber"}\n').stdout)
    assert len(board["deals"]) == 3 and sum(board["points"]) == 0

    bots = site / "toytrick" / "bots"
    for path in (bots / "low_bot.py", bots / "high_bot.py", games.RANDOM_BOT):  # each checked as it is added
        arena("bot", "add", str(path), "--game", "toytrick")
    check = arena("bot", "check", str(bots / "low_bot.py"), "--game", "toytrick").stdout
    assert "conformant" in check and "NOT" not in check  # its bot imports the game's own package, sandboxed

    arena("tournament", "run", "--game", "toytrick", "--bots", "low,high,random", "--boards", "3",
          "--format", "rubber", "--name", "toy", "--seed", "123456789012345")
    standings = json.loads(arena("standings", "toy", "--json").stdout)
    assert standings["game"] == "toytrick" and standings["anchor"] == "random"
    rows = {r["bot"]: r for r in standings["standings"]}
    assert rows["random"]["elo"] == 0 and rows["random"]["anchor"] and set(rows) == {"low", "high", "random"}
    assert "players=3  rubber" in arena("tournament", "list").stdout

    replay = arena("replay", "1").stdout
    assert "tricks" in replay and "plays" in replay
    assert "toy,1,0," in arena("export", "toy").stdout

    sprt = arena("sprt", "high", "low", "--game", "toytrick", "--max-boards", "4", "--elo0", "0", "--elo1", "50",
                 "--seed", "12345678901234567", "--quiet").stdout
    assert "after 4 boards" in sprt or "accepted" in sprt.lower()

    wrong = arena("tournament", "run", "--game", "toytrick", "--bots", "low,high,random", "--format", "deal",
                  "--name", "bad", ok=False)
    assert wrong.returncode == 2 and len(wrong.stderr.strip().splitlines()) == 1 and "hand" in wrong.stderr
