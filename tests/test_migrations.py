"""The schema's migrations on a database written by the arena before them (tests/data/arena-0001.db:
migration 0001 only; random, greedy and a crashing bot, 2 boards per match, seed 5), and the
views they add agreeing with the library's own listings."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.results import export, read, replay, schema, write

OLD = Path(__file__).parent / "data" / "arena-0001.db"


@pytest.fixture
def old(tmp_path):
    path = tmp_path / "arena.db"
    shutil.copy(OLD, path)
    return path


def columns(db, table: str) -> list[str]:
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})")]


def test_an_old_database_is_upgraded_in_place_and_reads_as_before(old):
    db = schema.open_db(old, create=False)
    assert [m.name for m in schema.migrations.applied(db)] == [m.name for m in schema.migrations._migrations]
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    assert "tables" not in names and {"board_tables", "standings", "crosstable", "board_results"} <= names
    assert columns(db, "matches") == ["id", "tournament_id", "match_no"]  # its teams are entrants 0 and 1 now
    assert [tuple(r) for r in db.execute("SELECT entrant, member, bot_id FROM match_entrants WHERE match_id = 1")] == [
        (0, 0, 1), (1, 0, 2)]
    for _kind, table, old_name, new in schema.RENAMES:
        if old_name is not None and table in ("tournaments", "seats", "deals"):  # (the rest moved on in 0015)
            assert new in columns(db, table) and old_name not in columns(db, table), (table, new)
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    t = read.get_tournament(db, "fixture-cup")
    assert (t["boards"], t["boards_done"], t["boards_total"], t["seed"]) == (2, 6, 6, 5)
    rows = {r["bot"]: r for r in read.standings(db, t["id"])}
    assert [(rows[b]["boards"], rows[b]["wins"], rows[b]["losses"]) for b in ("greedy", "random", "crasher")] == [
        (4, 4, 0), (4, 2, 2), (4, 0, 4)]
    assert rows["crasher"]["faults"] == 8 and rows["random"]["anchor"]
    faults = read.faults(db, t["id"])
    assert len(faults) == 8 and all("Traceback" in f["stderr"] for f in faults)
    deal = replay.document(db, 1)
    assert list(replay.render(deal))[-1].startswith("score: ")
    assert len(json.loads(json.dumps(export.export_document(db, t["id"])))["tables"]) == 12
    db.close()
    again = schema.open_db(old, create=False)  # nothing applied twice
    assert len(schema.migrations.applied(again)) == len(schema.migrations._migrations)
    again.close()


def test_an_old_database_that_cannot_be_written_is_upgraded_in_memory(old):
    """(As a reader without write access opens it: schema._open_readonly; the file stays as it was.)"""
    before = old.read_bytes()
    db = schema._open_readonly(old)
    assert read.get_tournament(db)["name"] == "fixture-cup"
    assert {r["bot"] for r in db.query("SELECT bot FROM standings")} == {"greedy@1", "random@1", "crasher@1"}
    with pytest.raises(sqlite3.OperationalError):
        db.execute("INSERT INTO bots (name, version, path, kind, source, sha256, added) VALUES"
                   " ('x', 1, 'p', 'file', 's', 'h', 'now')")
    db.close()
    assert old.read_bytes() == before


def test_the_views_agree_with_the_listings(old):
    db = schema.open_db(old, create=False)
    tid = read.get_tournament(db)["id"]
    write.compute_and_store_ratings(db, tid)  # the migration dropped the old derived ratings
    labels = read._bot_labels(db, tid)
    listed = {r["bot_id"]: r for r in read.standings(db, tid)}
    for v in db.query("SELECT * FROM standings WHERE tournament_id = ?", [tid]):
        r = listed[v["bot_id"]]
        assert (v["boards"], v["wins"], v["draws"], v["losses"], v["faulted_tables"]) == (
            r["boards"], r["wins"], r["draws"], r["losses"], r["faults"])
        assert v["avg_margin"] == pytest.approx(r["avg_margin"], abs=0.051)  # (rounded to 0.1 in the view)
        assert v["elo"] == pytest.approx(r["elo"], abs=0.051)
    ct = read.crosstable(db, tid)
    cells = {(row["bot"], other): c for row in ct["rows"] for other, c in row["results"].items()}
    viewed = {(labels[v["bot_id"]], labels[v["opponent_id"]]): v
              for v in db.query("SELECT * FROM crosstable WHERE tournament_id = ?", [tid])}
    assert viewed.keys() == cells.keys()
    for key, c in cells.items():
        assert (viewed[key]["boards"], viewed[key]["score"], viewed[key]["margin"]) == (c["boards"], c["score"],
                                                                                      c["margin"])
    boards = read.board_results(db, tid)
    viewed = list(db.query("SELECT * FROM board_results WHERE tournament_id = ?", [tid]))
    assert [(v["match_no"], v["board_no"], v["entrant"], v["bots"], v["result"], v["score"], v["seed"])
            for v in viewed] == [
        (b["match_no"], b["board_no"], e, "+".join(f"{labels[x]}@1" for x in b["entrants"][e]), b["results"][e],
         b["scores"][e], str(b["seed"])) for b in boards for e in range(2)]
    assert [v["margin"] for v in viewed if v["entrant"] == 0] == [b["margin"] for b in boards]
    db.close()


def test_every_table_view_and_column_is_described(tmp_path):
    """docs/database.md and the shipped Datasette metadata cover the schema as it is."""
    db = schema.open_db(tmp_path / "new.db")
    root = Path(__file__).resolve().parents[1]
    meta = json.loads((root / "docs" / "datasette-metadata.json").read_text())["databases"]["arena"]["tables"]
    doc = (root / "docs" / "database.md").read_text()
    found = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
                                      " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\'")]
    assert set(found) == set(meta)
    for name in found:
        cols = columns(db, name)
        assert set(cols) == set(meta[name]["columns"]), name
        assert all(meta[name]["columns"][c] for c in cols) and meta[name]["description"]
        row = next(line for line in doc.splitlines() if line.startswith(f"| `{name}` |"))
        assert [c.split("`")[1] for c in row.split("|")[3].split(",")] == cols, name  # in their order
    db.close()
