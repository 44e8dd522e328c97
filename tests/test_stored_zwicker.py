"""Zwicker unchanged behind the games interface: a database written by the arena before there
were games (tests/data/arena-f51f83c.db, made with commit f51f83c's code: random, first and
greedy; 'cup-deal', 2 boards a match, and 'cup-game', one game to 31) reads, after today's
migrations, exactly as that code printed it (tests/data/arena-f51f83c.json: its `standings`,
`matches` and `replay` output, JSON and text). Today's documents may only add fields, and tell
a match in one shape: its two teams (`team_a`, `team_b`) as entrants 0 and 1, team A's W/D/L
and margin as each entrant's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.results import read, schema

DATA = Path(__file__).parent / "data"
OLD = DATA / "arena-f51f83c.db"
EXPECTED = json.loads((DATA / "arena-f51f83c.json").read_text())
ADDED = {"game", "pool_mean", "isolation", "sandbox_labels", "bot", "unit", "entrants", "room", "faults",
         "results", "scores"}  # fields today's documents have that f51f83c's did not


def one_shape(then):
    """f51f83c's document with each match (and board) told as k entrants, as today's are."""
    if isinstance(then, list):
        return [one_shape(x) for x in then]
    if not isinstance(then, dict):
        return then
    out = {k: one_shape(v) for k, v in then.items() if k not in ("team_a", "team_b")}
    if "team_a" in then:
        out["entrants"] = ["+".join(dict.fromkeys(then[k])) for k in ("team_a", "team_b")]
        if "wins" in then:  # a match: team A's record, and team B's the other way round
            out.update(wins=[then["wins"], then["losses"]], draws=[then["draws"]] * 2,
                       losses=[then["losses"], then["wins"]], margins=[then["margin"], -then["margin"]])
            del out["margin"]
    return out


@pytest.fixture(scope="module")
def db_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("f51f83c") / "arena.db"
    shutil.copy(OLD, path)
    return path


def arena(db_path, capsys, *args) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main([*args, "--db", str(db_path)])
    out = capsys.readouterr()
    assert done.value.code == 0, out.err
    return out.out


def same_but_added(now, then, where="") -> None:
    """`now` is `then` with at most the ADDED keys added to its dicts."""
    if isinstance(then, dict):
        assert isinstance(now, dict), where
        assert set(now) - set(then) <= ADDED and set(then) <= set(now), (where, set(now) ^ set(then))
        for key in then:
            same_but_added(now[key], then[key], f"{where}.{key}")
    elif isinstance(then, list):
        assert isinstance(now, list) and len(now) == len(then), where
        for k, (a, b) in enumerate(zip(now, then)):
            same_but_added(a, b, f"{where}[{k}]")
    else:
        assert now == then, where


def test_the_old_database_migrates_and_every_tournament_is_zwicker(db_path):
    db = schema.open_db(db_path, create=False)
    assert "0008_tournament_game" in [m.name for m in schema.migrations.applied(db)]
    assert [t["game"] for t in read.list_tournaments(db)] == ["zwicker", "zwicker"]
    db.close()


@pytest.mark.parametrize("name", ["cup-deal", "cup-game"])
def test_standings_and_matches_are_what_f51f83c_printed(db_path, capsys, name):
    then = EXPECTED[name]
    # the text's layout has changed since (the pool column says what its interval is about), so
    # the standings are compared as their document: every number as f51f83c computed it
    text = arena(db_path, capsys, "standings", name)
    header = then["standings_text"].splitlines()[0]
    if name == "cup-game":  # the header now names the variant in full: this one played to 31
        header = header.replace("jensen,", "jensen target=31,")
    assert text.splitlines()[0] == header
    same_but_added(json.loads(arena(db_path, capsys, "standings", name, "--json")), one_shape(then["standings"]))
    same_but_added(json.loads(arena(db_path, capsys, "matches", name, "--json")), one_shape(then["matches"]))


def test_every_replay_is_what_f51f83c_printed(db_path, capsys):
    for deal, then in EXPECTED["replays"].items():
        now = json.loads(arena(db_path, capsys, "replay", deal, "--json"))
        assert now["game"] == "zwicker"
        same_but_added(now, then, f"deal {deal}")
    for deal, text in EXPECTED["replay_text"].items():
        assert arena(db_path, capsys, "replay", deal) == text
