"""Every kept database (tests/data/arena-*.db, one written by each schema the arena has had),
copied and opened by today's code, migrates and reads the same: standings, crosstable, matches
(and each match board by board), faults, boards' outcomes, SPRT counts, the rating inputs,
replays (document and text) and exports (CSV and JSON), as recorded beside it in
tests/data/<db>.readings.json.

- arena-0001.db: migration 0001 only (random, greedy, a crashing bot; see test_migrations).
- arena-f51f83c.db: before there were games (see test_stored_zwicker).
- arena-0014.db: schema 0014, before a match was stored in one shape: Zwicker, clone partners
  (zk-clone) and mixed partners (zk-mixed), three players a bot each (zk-three), Zwicken at
  three players (zn-three) and an SPRT of greedy against random.

The readings were recorded (`python tests/test_kept_databases.py`) by the code that wrote the
newest of them, before the migration to one match shape, and recorded again when the listings
took that shape too (a match's `team_a`/`team_b` became its entrants, team A's W/D/L and margin
each entrant's: every value else the same, checked against the earlier readings); a reading that
changes on purpose is recorded again, and the commit says why.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
KEPT = ["arena-0001", "arena-f51f83c", "arena-0014"]


def _plain(value):
    """JSON's view of a value (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value, default=str))


def readings(path: Path) -> dict:
    """What today's code reads from the database at `path` (migrated on open)."""
    from arena.results import export, read, replay, schema, sprt_tests, web_queries

    db = schema.open_db(path, create=False)
    out: dict = {"tournaments": {}, "replays": {}}
    for t in read.list_tournaments(db):
        tid = t["id"]
        doc = read.standings_document(db, tid)
        inputs = read.rating_inputs(db, tid)
        listed = read.matches(db, tid)
        test = sprt_tests.get(db, tid)
        out["tournaments"][t["name"]] = _plain({
            "standings": doc,
            "crosstable": read.crosstable(db, tid),
            "matches": listed,
            "details": [read.match_detail(db, tid, m["match_no"]) for m in listed],
            "faults": read.faults(db, tid),
            "rating_results": sorted([sorted(r.team_a), sorted(r.team_b), r.score, r.deal, r.weight]
                                     for r in inputs["results"]),
            "sprt": None if test is None else {k: test[k] for k in ("boards", "counts", "llr", "verdict")},
            "board_scores": sprt_tests.board_scores(db, tid),
            "latest_boards": web_queries.latest_boards(db, tid, 1000),
            "match_progress": web_queries.match_progress(db, tid),
            "csv": export.export_csv(db, tid),
            "json": export.export_document(db, tid),
        })
    for (deal_id,) in db.execute("SELECT id FROM deals ORDER BY id").fetchall():
        doc = replay.document(db, deal_id)
        out["replays"][str(deal_id)] = _plain({"document": doc, "text": list(replay.render(doc))})
    db.close()
    return out


def _without_times(value):
    """Readings less what differs on every read: ratings computed now carry a timestamp."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k not in ("computed",)}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


@pytest.mark.parametrize("name", KEPT)
def test_a_kept_database_migrates_and_reads_as_it_did(tmp_path, name):
    path = tmp_path / "arena.db"
    shutil.copy(DATA / f"{name}.db", path)
    expected = json.loads((DATA / f"{name}.readings.json").read_text())
    now = _without_times(readings(path))
    expected = _without_times(expected)
    assert now.keys() == expected.keys()
    assert now["replays"] == expected["replays"]
    assert now["tournaments"].keys() == expected["tournaments"].keys()
    for t, then in expected["tournaments"].items():
        for key, value in then.items():
            assert now["tournaments"][t][key] == value, (t, key)


if __name__ == "__main__":  # record the readings of every kept database (with the code checked out)
    import tempfile

    for name in sys.argv[1:] or KEPT:
        with tempfile.TemporaryDirectory() as folder:
            copy = Path(folder) / "arena.db"
            shutil.copy(DATA / f"{name}.db", copy)
            (DATA / f"{name}.readings.json").write_text(json.dumps(readings(copy), indent=1, sort_keys=True) + "\n")
