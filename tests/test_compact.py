"""Compact deals (arena.results.compact): moves as indices into the listed moves plus think
times, replayed exactly; a database of JSON deals is migrated with its deal ids kept."""

from __future__ import annotations

import json
import random
import sqlite3

import sqlite_utils
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import zwicker
from arena.play.table import LEGAL_CAP
from arena.results import compact, read, schema
from arena.results.read import get_deal
from tests.test_storage import BIG_SEED

JENSEN = zwicker.variant("jensen")


def random_deal(seed: int, dealer: int, rng: random.Random, *, indices: bool = True, cut: int | None = None) -> dict:
    """A deal played by random legal moves, recorded as the arena records it (`cut`: stop early)."""
    state = zwicker.deal(JENSEN, seed, dealer)
    moves = []
    while not state.is_over and (cut is None or len(moves) < cut):
        legal, _ = state.listed_moves(compact.CAP)
        k = rng.randrange(len(legal))
        moves.append({"seat": state.to_move, "move": legal[k].to_dict(), "ms": round(rng.uniform(0, 900), 3),
                      **({"i": k} if indices else {})})
        state = state.apply(legal[k])
    return {"state": state, "moves": moves}


def test_the_cap_is_the_arenas():
    assert compact.CAP == LEGAL_CAP


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), dealer=st.integers(0, 3), picks=st.integers(0, 2**32), indices=st.booleans())
def test_a_deal_replays_exactly_from_its_compact_form(seed, dealer, picks, indices):
    played = random_deal(seed, dealer, random.Random(picks), indices=indices)
    blob = compact.encode(JENSEN, seed, dealer, played["moves"])
    back = compact.decode(JENSEN, seed, dealer, blob)
    assert back["moves"] == [{k: v for k, v in m.items() if k != "i"} for m in played["moves"]]
    assert back["points"] == played["state"].score() and back["breakdown"] == played["state"].breakdown()
    assert len(blob) <= 6 + 5 * len(played["moves"])  # a byte or two per index, up to three per think time


def test_moves_that_do_not_replay_are_kept_whole_and_a_cut_deal_has_no_score():
    cut = random_deal(5, 1, random.Random(2), cut=9)
    assert compact.decode(JENSEN, 5, 1, compact.encode(JENSEN, 5, 1, cut["moves"])) == {
        "moves": [{k: v for k, v in m.items() if k != "i"} for m in cut["moves"]], "points": None, "breakdown": None}
    odd = [{"seat": 2, "move": {"type": "trail", "card": "5H"}, "ms": 1.2}, {"seat": 0, "move": {"x": 1}, "ms": None}]
    assert compact.decode(JENSEN, 5, 1, compact.encode(JENSEN, 5, 1, odd))["moves"] == odd


def test_an_older_database_is_migrated_with_its_deal_ids(tmp_path):
    """A database made before the compact form (its JSON deals table) opens migrated."""
    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    schema.migrations.apply(old, stop_before="0002_table_sandbox")  # as the first schema left it
    a = old["bots"].insert({"name": "a", "version": 1, "path": "x", "kind": "file", "source": "x", "sha256": "1",
                            "added": "now"}).last_pk
    b = old["bots"].insert({"name": "b", "version": 1, "path": "y", "kind": "file", "source": "y", "sha256": "2",
                            "added": "now"}).last_pk
    tid = old["tournaments"].insert({"name": "t", "seed": "1", "variant": json.dumps(JENSEN.to_dict()), "format": "deal",
                                     "partners": "clone", "boards": 1, "settings": "{}", "status": "finished",
                                     "created": "now"}).last_pk
    old["tournament_bots"].insert_all([{"tournament_id": tid, "bot_id": a}, {"tournament_id": tid, "bot_id": b}])
    mid = old["matches"].insert({"tournament_id": tid, "match_no": 1, "a0": a, "a1": a, "b0": b, "b1": b}).last_pk
    table = old["tables"].insert({"match_id": mid, "board_no": 0, "swapped": 0, "board_seed": str(BIG_SEED),
                                  "points0": 1, "points1": 2, "started": "now", "duration_s": 1.0}).last_pk
    for seat in range(4):
        old["seats"].insert({"table_id": table, "seat": seat, "bot_id": (a, b)[seat % 2], "status": "ok"})
    full = random_deal(BIG_SEED, 0, random.Random(1), indices=False)
    cut = random_deal(BIG_SEED, 1, random.Random(2), indices=False, cut=7)
    for deal_id, number, dealer, played, done in ((40, 0, 0, full, True), (41, 1, 1, cut, False)):
        state = played["state"]
        old["deals"].insert({"id": deal_id, "table_id": table, "number": number, "seed": str(BIG_SEED), "dealer": dealer,
                             "points": json.dumps(state.score() if done else None),
                             "breakdown": json.dumps(state.breakdown() if done else None),
                             "moves": json.dumps(played["moves"]), "complete": int(done)})
    old.close()

    db = schema.open_db(path)
    assert "play" in db["deals"].columns_dict and "moves" not in db["deals"].columns_dict
    d = get_deal(db, 40)
    assert d["moves"] == full["moves"] and d["points"] == full["state"].score()
    assert d["breakdown"] == json.loads(json.dumps(full["state"].breakdown()))
    assert get_deal(db, 41)["moves"] == cut["moves"] and get_deal(db, 41)["points"] is None
    assert read.get_tournament(db, tid)["boards"] == 1
    db.close()
    with sqlite3.connect(path) as raw:  # the JSON table is gone
        assert {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} >= {"deals"}
        assert "deals_json" not in {r[0] for r in raw.execute("SELECT name FROM sqlite_master")}

