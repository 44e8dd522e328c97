"""The arena database on real SQLite files: schema, refusals, bots, atomic tables, read side."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest
import sqlite_utils

import games
from arena.errors import ArenaError
from arena.results import export, read, registry, schema
from arena.results.read import (
    board_results,
    done_tables,
    get_deal,
    get_tournament,
    list_tournaments,
)
from arena.results.registry import add_bot, get_bot, list_bots
from arena.results.schema import TableAlreadyRecorded, open_db
from arena.results.write import (
    compute_and_store_ratings,
    create_tournament,
    note_sandbox,
    record_table,
    seat_bots,
    set_status,
)

BIG_SEED = 2**64 - 1


def fake_table(team_a, team_b, swapped, points, *, seed=7, fault=None, deals=1):
    """A realistic table dict as the runner builds it; `fault` = (seat, status) forfeits a side."""
    bots = seat_bots(team_a, team_b, swapped)
    seats = []
    for seat, bot in enumerate(bots):
        status, detail = "ok", ""
        if fault is not None and fault[0] == seat:
            status, detail = fault[1], "no answer within 1.0 s"
        seats.append({
            "seat": seat, "bot_id": bot, "name": f"bot{bot}", "version": "1", "status": status,
            "detail": detail, "stderr": "warming up\n", "moves": 13, "think_ms_total": 12.5,
            "think_ms_max": 3.1,
        })
    forfeit = None
    if fault is not None:
        forfeit = {"side": fault[0] % 2, "seat": fault[0], "status": fault[1], "detail": "no answer within 1.0 s"}
    return {
        "seats": seats,
        "points": list(points),
        "forfeit": forfeit,
        "deals": [
            {
                "number": k, "seed": BIG_SEED - k, "dealer": (3 + k) % 4, "points": list(points),
                "breakdown": [{"cards": 27, "total": points[0]}, {"cards": 25, "total": points[1]}],
                "moves": [
                    {"seat": 0, "move": {"type": "trail", "card": "5H"}, "ms": 1.2},
                    {"seat": 1, "move": {"type": "capture", "card": "5S", "value": 5, "take": [0]}, "ms": 0.7},
                ],
                "complete": fault is None,
            }
            for k in range(deals)
        ],
        "started": "2025-01-01T12:00:00.000+00:00",
        "duration_s": 0.41,
    }


@pytest.fixture
def db(tmp_path):
    d = open_db(tmp_path / "results" / "arena.db")
    yield d
    d.close()


def make_bot(tmp_path, name, body="print('hi')\n"):
    path = tmp_path / "src" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


@pytest.fixture
def three(db, tmp_path):
    """Three registered bots and a clone round robin of 2 boards per match among them."""
    ids = [add_bot(db, make_bot(tmp_path, n, f"# {n}\n"))["id"] for n in ("alpha", "beta", "random")]
    a, b, r = ids
    sched = [([a, a], [b, b]), ([a, a], [r, r]), ([b, b], [r, r])]
    tid = create_tournament(
        db, "t1", seed=BIG_SEED, variant={"preset": "jensen", "players": 4}, format="deal",
        partners="clone", boards=2, settings={"time_per_move": 1.0}, bot_ids=ids, matches=sched,
    )
    return tid, ids, sched


# ---- opening -------------------------------------------------------------------------------


def test_open_creates_folder_wal_and_records_migrations(tmp_path):
    path = tmp_path / "deep" / "er" / "arena.db"
    db = open_db(path)
    assert path.exists()
    assert db.journal_mode == "wal"
    assert [m.name for m in schema.migrations.applied(db)] == [m.name for m in schema.migrations._migrations]
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == schema.BUSY_TIMEOUT_MS
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    for table in ("bots", "tournaments", "tournament_bots", "matches", "boards", "board_tables", "seats",
                  "deals", "ratings", "rating_progression"):
        assert db[table].exists(), table
    db.close()
    again = open_db(path, create=False)
    assert len(schema.migrations.applied(again)) == len(schema.migrations._migrations)
    again.close()


def test_default_path_follows_env(monkeypatch, tmp_path):
    monkeypatch.delenv("ARENA_DB", raising=False)
    assert schema.default_db_path() == schema.DEFAULT_DB
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "x.db"))
    assert schema.default_db_path() == tmp_path / "x.db"
    open_db().close()
    assert (tmp_path / "x.db").exists()


def test_refuses_missing_file_without_create(tmp_path):
    with pytest.raises(ArenaError, match="no arena database at"):
        open_db(tmp_path / "nope.db", create=False)
    assert not (tmp_path / "nope.db").exists()


def test_refuses_a_file_that_is_not_sqlite(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n")
    with pytest.raises(ArenaError, match="is not an SQLite database"):
        open_db(path)
    assert path.read_text().startswith("these are my notes")


def test_refuses_sqlite_that_is_not_ours(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    with pytest.raises(ArenaError, match="not an arena database"):
        open_db(path)
    with sqlite3.connect(path) as conn:  # untouched: no tables of ours were added
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names == {"invoices"}


def test_empty_sqlite_is_refused_only_without_create(tmp_path):
    path = tmp_path / "empty.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 1")  # writes a valid header, no tables
    assert path.read_bytes().startswith(b"SQLite format 3")
    with pytest.raises(ArenaError, match="empty SQLite database"):
        open_db(path, create=False)
    # with create=True it is set up: an arena killed while creating its file leaves just this
    db = open_db(path)
    assert db["bots"].exists()
    db.close()


def test_refuses_a_corrupt_database(tmp_path, db):
    path = tmp_path / "results" / "arena.db"
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # trash the schema page, keep the header
    path.write_bytes(bytes(data))
    with pytest.raises(ArenaError, match="corrupt|not an arena database"):
        open_db(path)


def test_refuses_a_database_from_a_newer_arena(tmp_path, db):
    db["_sqlite_migrations"].insert(
        {"migration_set": schema.MIGRATION_SET, "name": "9999_future", "applied_at": "2099"}
    )
    db.close()
    with pytest.raises(ArenaError, match="newer arena"):
        open_db(tmp_path / "results" / "arena.db")


# ---- bots ----------------------------------------------------------------------------------


def test_add_bot_stores_a_content_addressed_copy(db, tmp_path):
    src = make_bot(tmp_path, "greedy", "print('greedy v1')\n")
    bot = add_bot(db, src, command="python3 {path}")
    assert (bot["name"], bot["version"], bot["command"]) == ("greedy", 1, "python3 {path}")
    assert len(bot["sha256"]) == 64
    stored = tmp_path / "results" / "bots" / bot["sha256"] / "greedy.py"
    assert bot["path"] == str(stored.resolve())
    assert stored.read_text() == "print('greedy v1')\n"
    assert add_bot(db, src)["id"] == bot["id"]  # same content: the same version
    src.write_text("print('greedy v2')\n")
    with pytest.raises(ArenaError, match="is not the registered bot 'greedy' .* --new-version"):
        add_bot(db, src)  # other content never silently becomes the next version
    v2 = add_bot(db, src, new_version=True)
    assert (v2["version"], v2["id"] != bot["id"]) == (2, True)
    assert stored.read_text() == "print('greedy v1')\n"  # the old copy stays for old results
    assert get_bot(db, "greedy")["id"] == v2["id"]
    assert get_bot(db, "greedy@1")["id"] == bot["id"]
    assert get_bot(db, "greedy", version=1)["id"] == bot["id"]
    assert get_bot(db, str(bot["id"]))["version"] == 1
    assert [(b["name"], b["version"]) for b in list_bots(db)] == [("greedy", 1), ("greedy", 2)]


def test_add_bot_folder_hashes_sorted_contents(db, tmp_path):
    folder = tmp_path / "src" / "deep"
    (folder / "lib").mkdir(parents=True)
    (folder / "main.py").write_text("import lib\n")
    (folder / "lib" / "search.py").write_text("DEPTH = 3\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"\0junk")
    bot = add_bot(db, folder)
    assert (bot["name"], bot["kind"]) == ("deep", "folder")
    copy = tmp_path / "results" / "bots" / bot["sha256"] / "deep"
    assert (copy / "lib" / "search.py").read_text() == "DEPTH = 3\n"
    assert not (copy / "__pycache__").exists()
    assert registry.bot_sha256(copy) == bot["sha256"]
    (folder / "__pycache__" / "x.pyc").write_bytes(b"other junk")  # caches do not count
    assert add_bot(db, folder)["id"] == bot["id"]
    (folder / "lib" / "search.py").write_text("DEPTH = 4\n")
    assert add_bot(db, folder, new_version=True)["version"] == 2


def test_unknown_and_bad_bots_are_one_clear_error(db, tmp_path):
    add_bot(db, make_bot(tmp_path, "greedy"))
    add_bot(db, make_bot(tmp_path, "random", "import random\n"))
    with pytest.raises(ArenaError, match=r"^unknown bot 'nosuch' \(known: greedy, random\)$"):
        get_bot(db, "nosuch")
    with pytest.raises(ArenaError, match="unknown bot 'greedy@7'"):
        get_bot(db, "greedy@7")
    with pytest.raises(ArenaError, match="no bot at"):
        add_bot(db, tmp_path / "missing.py")
    with pytest.raises(ArenaError, match="bad bot name"):
        add_bot(db, make_bot(tmp_path, "x"), name="two words")
    with pytest.raises(ArenaError, match="bad bot name"):
        add_bot(db, make_bot(tmp_path, "y"), name="a,b")


# ---- tournaments ---------------------------------------------------------------------------


def test_tournament_round_trip_and_status(db, three):
    tid, ids, sched = three
    t = get_tournament(db, "t1")
    assert t["id"] == tid and t["seed"] == BIG_SEED
    assert t["variant"] == {"preset": "jensen", "players": 4}
    assert (t["format"], t["partners"], t["boards"], t["status"]) == ("deal", "clone", 2, "created")
    assert (t["matches"], t["boards_total"], t["boards_done"]) == (3, 6, 0)
    assert sorted(b["id"] for b in t["bots"]) == sorted(ids)
    assert get_tournament(db)["id"] == tid  # the latest
    set_status(db, tid, "running")
    started = get_tournament(db, tid)["started"]
    set_status(db, tid, "interrupted")
    set_status(db, tid, "running")
    assert get_tournament(db, tid)["started"] == started  # the first start stands
    set_status(db, tid, "finished")
    t = get_tournament(db, tid)
    assert t["status"] == "finished" and t["finished"] >= started
    with pytest.raises(ArenaError, match="unknown tournament status"):
        set_status(db, tid, "exploded")
    assert [x["name"] for x in list_tournaments(db)] == ["t1"]


def test_tournament_errors(db, three):
    tid, ids, sched = three
    kwargs = dict(seed=1, variant={}, format="deal", partners="clone", boards=2, settings={},
                  bot_ids=ids, matches=sched)
    with pytest.raises(ArenaError, match="tournament 't1' already exists"):
        create_tournament(db, "t1", **kwargs)
    with pytest.raises(ArenaError, match=r"unknown tournament 'nope' \(known: t1\)"):
        get_tournament(db, "nope")
    with pytest.raises(ArenaError, match="seed must be"):
        create_tournament(db, "t2", **{**kwargs, "seed": 2**64})
    with pytest.raises(ArenaError, match="unknown format"):
        create_tournament(db, "t2", **{**kwargs, "format": "rubber"})
    with pytest.raises(ArenaError, match="not in the tournament"):
        create_tournament(db, "t2", **{**kwargs, "bot_ids": ids[:2]})
    with pytest.raises(ArenaError, match="unknown bot ids"):
        create_tournament(db, "t2", **{**kwargs, "bot_ids": [*ids, 999]})
    assert [x["name"] for x in list_tournaments(db)] == ["t1"]


def test_no_tournaments_yet(db):
    with pytest.raises(ArenaError, match="no tournaments"):
        get_tournament(db)


# ---- recording tables ----------------------------------------------------------------------


def test_board_appears_when_its_second_table_lands(db, three):
    tid, (a, b, r), sched = three
    # team A (alpha) holds side 0: 20 - 10; swapped, A holds side 1: 12 - 18 -> A: +10 and +6
    record_table(db, tid, 1, 1, False, 99, fake_table([a, a], [b, b], False, (20, 10), seed=99))
    assert done_tables(db, tid) == {(1, 1, False)}
    assert board_results(db, tid) == []
    record_table(db, tid, 1, 1, True, 99, fake_table([a, a], [b, b], True, (12, 18), seed=99))
    assert done_tables(db, tid) == {(1, 1, False), (1, 1, True)}
    (board,) = board_results(db, tid)
    assert board["margin"] == 16 and board["outcome"] == "win"
    assert (board["entrants"], board["seed"]) == ([[a], [b]], 99)
    # B wins a board: A gets 10 - 20 and (swapped) 20 - 10 on side 0 -> -10 - 10
    record_table(db, tid, 1, 2, True, 5, fake_table([a, a], [b, b], True, (20, 10)))
    record_table(db, tid, 1, 2, False, 5, fake_table([a, a], [b, b], False, (10, 20)))
    assert [(x["board_no"], x["margin"], x["outcome"]) for x in board_results(db, tid)] == [
        (1, 16, "win"), (2, -20, "loss")]
    assert get_tournament(db, tid)["boards_done"] == 2


def test_draw_and_canonical_order(db, three):
    tid, (a, b, r), sched = three
    # recorded out of order, as concurrent tables finish
    for match_no, board_no in ((3, 2), (1, 2), (2, 1), (3, 1)):
        ta, tb = sched[match_no - 1]
        for swapped in (True, False):
            record_table(db, tid, match_no, board_no, swapped, 1,
                         fake_table(ta, tb, swapped, (15, 15)))
    got = [(x["match_no"], x["board_no"], x["outcome"]) for x in board_results(db, tid)]
    assert got == [(1, 2, "draw"), (2, 1, "draw"), (3, 1, "draw"), (3, 2, "draw")]


def test_recording_a_table_twice_does_not_count_twice(db, three):
    tid, (a, b, r), sched = three
    t = fake_table([a, a], [b, b], False, (20, 10))
    record_table(db, tid, 1, 1, False, 3, t)
    record_table(db, tid, 1, 1, True, 3, fake_table([a, a], [b, b], True, (10, 20)))
    with pytest.raises(TableAlreadyRecorded, match="match 1, board 1, room 0"):
        record_table(db, tid, 1, 1, False, 3, t)
    assert len(board_results(db, tid)) == 1
    assert db["board_tables"].count == 2 and db["seats"].count == 8 and db["deals"].count == 2


def test_a_failed_write_leaves_nothing(db, three):
    tid, (a, b, r), sched = three
    broken = fake_table([a, a], [b, b], False, (20, 10), deals=3)
    broken["deals"][2]["number"] = 1  # a duplicate deal number fails after table and seats went in
    with pytest.raises(ValueError, match="rejected by the database"):
        record_table(db, tid, 1, 1, False, 3, broken)
    assert done_tables(db, tid) == set()
    assert (db["board_tables"].count, db["seats"].count, db["deals"].count) == (0, 0, 0)
    bad = fake_table([a, a], [b, b], False, (20, 10))
    del bad["deals"][0]["moves"]
    with pytest.raises(KeyError):
        record_table(db, tid, 1, 1, False, 3, bad)
    assert (db["board_tables"].count, db["seats"].count) == (0, 0)


def test_wrong_bots_at_a_table_are_refused(db, three):
    tid, (a, b, r), sched = three
    with pytest.raises(ValueError, match="seat 0 holds bot"):
        record_table(db, tid, 1, 1, False, 3, fake_table([r, r], [b, b], False, (20, 10)))
    with pytest.raises(ValueError, match="seat 0 holds bot"):  # unswapped layout sent as swapped
        record_table(db, tid, 1, 1, True, 3, fake_table([a, a], [b, b], False, (20, 10)))
    with pytest.raises(ArenaError, match="has no match 9"):
        record_table(db, tid, 9, 1, False, 3, fake_table([a, a], [b, b], False, (20, 10)))
    record_table(db, tid, 1, 1, False, 3, fake_table([a, a], [b, b], False, (20, 10)))
    with pytest.raises(ValueError, match="different seeds"):
        record_table(db, tid, 1, 1, True, 4, fake_table([a, a], [b, b], True, (20, 10)))
    assert done_tables(db, tid) == {(1, 1, False)}


def test_a_second_connection_sees_whole_tables(db, three, tmp_path):
    tid, (a, b, r), sched = three
    reader = open_db(tmp_path / "results" / "arena.db", create=False)
    assert done_tables(reader, tid) == set()
    record_table(db, tid, 1, 1, False, 3, fake_table([a, a], [b, b], False, (20, 10), deals=2))
    assert done_tables(reader, tid) == {(1, 1, False)}
    assert reader.execute("SELECT COUNT(*) FROM deals").fetchone()[0] == 2
    reader.close()


def test_get_deal_has_everything_to_replay(db, three):
    tid, (a, b, r), sched = three
    t = fake_table([a, a], [b, b], True, (9, 21), fault=(1, "timeout"), deals=2)
    table_id = record_table(db, tid, 1, 2, True, 77, t)
    deal_ids = [x["id"] for x in db["deals"].rows_where("table_id = ?", [table_id], order_by="deal_no")]
    d = get_deal(db, deal_ids[1])
    assert d["variant"] == {"preset": "jensen", "players": 4}
    assert (d["seed"], d["dealer"], d["number"]) == (BIG_SEED - 1, 0, 1)
    assert d["moves"] == t["deals"][1]["moves"]
    assert d["breakdown"] is None  # a deal cut short has none (a finished one's is recomputed by replay)
    assert (d["match_no"], d["board_no"], d["swapped"], d["complete"]) == (1, 2, True, False)
    assert [s["bot"] for s in d["seats"]] == ["beta", "alpha", "beta", "alpha"]
    assert d["seats"][1]["status"] == "timeout"
    assert d["forfeit"] == {"side": 1, "seat": 1, "status": "timeout", "detail": "no answer within 1.0 s"}
    with pytest.raises(ArenaError, match="unknown deal 999"):
        get_deal(db, 999)


# ---- read side -----------------------------------------------------------------------------


def play_all(db, tid, sched, boards, margin_of):
    """Record every table; margin_of(team_a_bot, team_b_bot, board_no) gives A's margin per table."""
    for match_no, (ta, tb) in enumerate(sched, start=1):
        for board_no in range(1, boards + 1):
            m = margin_of(ta[0], tb[0], board_no)
            for swapped in (False, True):
                pts = (15 + m // 2, 15 - (m - m // 2))
                side_pts = pts if not swapped else pts[::-1]
                record_table(db, tid, match_no, board_no, swapped, board_no, fake_table(ta, tb, swapped, side_pts))


def test_the_bundled_random_bot_anchors_even_beside_another_random(db, tmp_path):
    """A JavaScript random_bot.cjs registered by its path is "random" too (a later version): the
    scale stays anchored on the bundled bots/zwicker/random_bot.py."""
    bundled = add_bot(db, games.extras(games.game("zwicker")).anchor[1])["id"]
    other = add_bot(db, make_bot(tmp_path, "random_bot", "# another random\n"), new_version=True)
    alpha = add_bot(db, make_bot(tmp_path, "alpha", "# alpha\n"))["id"]
    assert (other["name"], other["version"]) == ("random", 2)
    ids = [alpha, bundled, other["id"]]
    sched = [([x, x], [y, y]) for i, x in enumerate(ids) for y in ids[i + 1:]]
    tid = create_tournament(db, "t", seed=BIG_SEED, variant={"preset": "jensen", "players": 4}, format="deal",
                            partners="clone", boards=2, settings={}, bot_ids=ids, matches=sched)
    strength = {alpha: 3, other["id"]: 2, bundled: 1}
    play_all(db, tid, sched, 2, lambda x, y, n: 4 if strength[x] > strength[y] else -4)
    rows = {r["bot"]: r for r in read.standings(db, tid)}
    assert rows["random@1"]["elo"] == 0.0 and rows["random@2"]["elo"] > 0


def test_standings_crosstable_and_matches(db, three):
    tid, (a, b, r), sched = three
    strength = {a: 3, b: 2, r: 1}
    play_all(db, tid, sched, 2, lambda x, y, n: 4 if strength[x] > strength[y] else -4)
    rows = read.standings(db, tid)
    assert [x["bot"] for x in rows] == ["alpha", "beta", "random"]
    assert [x["rank"] for x in rows] == [1, 2, 3]
    top = rows[0]
    assert (top["boards"], top["wins"], top["draws"], top["losses"]) == (4, 4, 0, 0)
    assert top["avg_margin"] == 8.0 and top["faults"] == 0 and top["fault_flag"] is False
    assert rows[2]["elo"] == 0.0  # random anchors the scale
    # a perfect record: only the prior sets its Elo, so it is "more than" its one-sided bound
    assert top["flags"] == ["perfect", "separated"] and top["more_than"] < top["elo"] and top["less_than"] is None
    assert rows[2]["flags"] == ["anchor", "separated", "zero"] and rows[2]["less_than"] > 0  # (against the pool)
    doc = read.standings_document(db, tid)
    assert doc["pool_flags"] == ["separated"] and doc["core"] is None
    assert doc["groups"] == [["alpha"], ["beta"], ["random"]]
    ct = read.crosstable(db, tid)
    assert ct["bots"] == ["alpha", "beta", "random"]
    alpha_row = ct["rows"][0]["results"]
    assert alpha_row["beta"]["wins"] == 2 and alpha_row["beta"]["margin"] == 16
    assert ct["rows"][1]["results"]["alpha"]["losses"] == 2
    assert "alpha" not in alpha_row
    ms = read.matches(db, tid)
    assert [(m["match_no"], m["entrants"][0], m["wins"], m["boards_done"]) for m in ms] == [
        (1, "alpha", [2, 0], 2), (2, "alpha", [2, 0], 2), (3, "beta", [2, 0], 2)]
    assert [m["match_no"] for m in read.matches(db, tid, bot="random")] == [2, 3]
    with pytest.raises(ArenaError, match="unknown bot 'gamma' in this tournament"):
        read.matches(db, tid, bot="gamma")
    detail = read.match_detail(db, tid, 1)
    assert [len(bd["tables"]) for bd in detail["boards"]] == [2, 2]
    assert all(len(t["deal_ids"]) == 1 for bd in detail["boards"] for t in bd["tables"])


def test_faults_are_counted_per_table_and_flagged(db, three):
    tid, (a, b, r), sched = three
    # beta times out at one of its two tables of match 1, board 1 (1 of 8 tables: 12.5% > 10%)
    record_table(db, tid, 1, 1, False, 1, fake_table([a, a], [b, b], False, (30, 0), fault=(1, "timeout")))
    record_table(db, tid, 1, 1, True, 1, fake_table([a, a], [b, b], True, (15, 15)))
    for board_no in (2,):
        for swapped in (False, True):
            record_table(db, tid, 1, board_no, swapped, 2, fake_table([a, a], [b, b], swapped, (15, 15)))
    for match_no in (3,):
        for board_no in (1, 2):
            for swapped in (False, True):
                record_table(db, tid, match_no, board_no, swapped, board_no,
                             fake_table([b, b], [r, r], swapped, (15, 15)))
    rows = {x["bot"]: x for x in read.standings(db, tid)}
    assert (rows["beta"]["tables"], rows["beta"]["faults"], rows["beta"]["fault_flag"]) == (8, 1, True)
    assert (rows["alpha"]["faults"], rows["alpha"]["fault_flag"]) == (0, False)
    assert read.matches(db, tid)[0]["faults"] == 1


def test_ratings_are_stored_with_progression_and_replaced(db, three):
    tid, (a, b, r), sched = three
    play_all(db, tid, sched, 2, lambda x, y, n: 6 if n == 1 else 0)  # team A is the stronger
    head = compute_and_store_ratings(db, tid, bootstrap=200)
    assert [h["bot_id"] for h in head] == [a, b, r]
    stored = list(db.query("SELECT * FROM ratings WHERE tournament_id = ? ORDER BY errors, elo DESC", [tid]))
    assert {(x["method"], x["errors"]) for x in stored} == {(schema.BT_METHOD, "pool"), (schema.BT_METHOD, "anchor")}
    assert all(x["boards"] == 4 for x in stored)  # each bot's own: 2 matches of 2 (of the 6 boards)
    assert all(json.loads(x["params"])["tournament_boards"] == 6 for x in stored)
    pool = [x for x in stored if x["errors"] == "pool"]
    anchored = [x for x in stored if x["errors"] == "anchor"]
    assert pool[0]["los_next"] > 0.5 and pool[-1]["los_next"] is None
    assert [x["elo"] for x in pool] == [x["elo"] for x in anchored]  # one fit, two kinds of interval
    assert json.loads(anchored[-1]["flags"]) == ["anchor"] and anchored[-1]["ci_low"] is None
    assert pool[-1]["ci_low"] is not None  # against the pool the anchor has an interval too
    params = json.loads(pool[0]["params"])
    assert params["anchor_bot_id"] == r and params["resampling"] == "deal" and params["pool_flags"] == []
    assert params["bootstrap_method"] == "refit"  # a small pool
    assert {row["bootstrap_method"] for row in read.standings(db, tid)} == {"refit"}  # the pages say it
    assert params["prior"] == {"virtual_draws": 1, "opponent": 0, "fit": "MAP"}
    points = read.progression(db, tid)
    assert [p["point"] for p in points][::3] == [1, 2] and [p["boards"] for p in points][::3] == [3, 6]
    last = {p["bot"]: p["elo"] for p in points if p["point"] == 2}
    assert last == pytest.approx({x["bot"]: x["elo"] for x in read.standings(db, tid)})  # ends on the headline
    compute_and_store_ratings(db, tid, bootstrap=50)  # recomputing replaces, never appends
    assert db["ratings"].count == 6 and db["rating_progression"].count == 6
    before = read.standings(db, tid)
    assert before[0]["elo"] == pool[0]["elo"]  # read from the stored rows while they are current


def test_the_migration_from_sequential_elo_to_progression(tmp_path):
    """A database of the first schema, with its ratings and sequential history, opens migrated:
    the old derived rows dropped (standings computes them again), progression in their place."""
    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    schema.migrations.apply(old, stop_before="0002_table_sandbox")
    old.execute("INSERT INTO tournaments (name, seed, variant, format, partners, boards, settings, status, created)"
                " VALUES ('t', '1', '{}', 'deal', 'clone', 1, '{\"elo_k\": 16}', 'finished', 'x')")
    old.execute("INSERT INTO bots (name, version, path, kind, source, sha256, added) VALUES ('b', 1, 'p', 'file', 's', 'h', 'x')")
    old.execute("INSERT INTO ratings VALUES (1, 1, 'elo-sequential', 3.0, NULL, NULL, NULL, 1, '{}', 'x')")
    old.conn.commit()
    old.close()
    db = open_db(path)
    assert [m.name for m in schema.migrations.applied(db)][:3] == ["0001_initial", "0002_table_sandbox", "0003_ratings_flags_progression"]
    tables = set(db.table_names())
    assert "rating_history" not in tables and "rating_progression" in tables and db["ratings"].count == 0
    assert {"errors", "flags", "more_than", "less_than"} <= set(db["ratings"].columns_dict)
    assert db["ratings"].pks == ["tournament_id", "method", "errors", "bot_id"]
    db.close()


def test_export_csv_and_json(db, three):
    tid, (a, b, r), sched = three
    play_all(db, tid, sched, 1, lambda x, y, n: 2)
    text = export.export_csv(db, tid)
    lines = text.splitlines()
    assert lines[0].split(",") == list(export.EXPORT_COLUMNS)
    assert len(lines) == 1 + 3 * 2
    # one shape for every match: entrants (team A = entrant 0), seats, who holds each seat, each side's and
    # each entrant's points at this table, then each entrant's result over the board's rooms and its score
    assert lines[1].startswith("t1,1,1,0,1,alpha beta,alpha beta alpha beta,0 1 0 1,16 14,16 14,32 28,1 0,,,1,")
    assert lines[2].startswith("t1,1,1,1,1,alpha beta,beta alpha beta alpha,1 0 1 0,14 16,16 14,32 28,1 0,,,1,")
    doc = export.export_document(db, tid)
    assert json.loads(json.dumps(doc)) == doc
    assert doc["tournament"]["seed"] == str(BIG_SEED)
    assert len(doc["tables"]) == 6 and doc["tables"][0]["deals"][0]["moves"][0]["ms"] == 1.2
    assert [s["bot"] for s in doc["standings"]] == ["alpha", "beta", "random"]
    # what an outside tool needs to refit: the kind of interval, the prior, flags, room outcomes
    assert {k: doc["ratings"][k] for k in ("errors", "resampling", "bootstrap_method", "pool_flags", "anchor")} == {
        "errors": "pool", "resampling": "deal", "bootstrap_method": "refit", "pool_flags": ["separated"],
        "anchor": "random"}
    assert doc["ratings"]["prior"]["virtual_draws"] == 1
    assert doc["standings"][0]["flags"] == ["perfect", "separated"] and doc["standings"][0]["more_than"] is not None
    assert [(x["rooms"], x["score"], x["result"]) for x in doc["boards"]] == [([1.0, 1.0], 2.0, 1.0)] * 3
    assert [(x["entrants"], x["results"], x["scores"]) for x in doc["boards"][:1]] == [(["alpha", "beta"], [32, 28], [1.0, 0.0])]
    assert doc["progression"] == []  # not rated yet
    compute_and_store_ratings(db, tid, bootstrap=10)
    last = [p for p in export.export_document(db, tid)["progression"] if p["boards"] == 3]
    assert {p["bot"]: p["elo"] for p in last} == pytest.approx({s["bot"]: s["elo"] for s in doc["standings"]})
    streamed = io.StringIO()
    export.write_json(db, tid, streamed)  # a board or table at a time: the same document
    assert json.loads(streamed.getvalue()) == json.loads(json.dumps(export.export_document(db, tid)))


def test_a_stored_deal_replays_with_the_engine(db, three):
    """The stored variant, seed, dealer and moves are enough to replay a deal to its score."""
    import random

    from engine import zwicker

    tid, (a, b, r), sched = three
    variant = get_tournament(db, tid)["variant"]
    seed = zwicker.deal_seed(get_tournament(db, tid)["seed"], 3)
    state = zwicker.deal(zwicker.variant(variant), seed, dealer=1)
    rng = random.Random(8)
    moves = []
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        moves.append({"seat": state.to_move, "move": move.to_dict(), "ms": 0.25})
        state = state.apply(move)
    table = fake_table([a, a], [b, b], False, state.score())
    table["deals"] = [{"number": 0, "seed": seed, "dealer": 1, "points": state.score(),
                       "breakdown": state.breakdown(), "moves": moves, "complete": True}]
    table_id = record_table(db, tid, 1, 3, False, seed, table)
    (deal_id,) = [d["id"] for d in db["deals"].rows_where("table_id = ?", [table_id])]
    d = get_deal(db, deal_id)
    replay = zwicker.deal(zwicker.variant(d["variant"]), d["seed"], dealer=d["dealer"])
    for step in d["moves"]:
        assert replay.to_move == step["seat"]
        replay = replay.apply(step["move"])
    assert replay.is_over and replay.score() == d["points"] == state.score()
    assert d["breakdown"] == json.loads(json.dumps(state.breakdown()))


def test_mixed_partnerships_credit_each_member(db, tmp_path):
    ids = [add_bot(db, make_bot(tmp_path, n, f"# {n}\n"))["id"] for n in ("p", "q", "s", "t")]
    p, q, s, t = ids
    sched = [([p, q], [s, t]), ([s, t], [p, q])]
    tid = create_tournament(db, "mix", seed=3, variant={"preset": "jensen"}, format="deal",
                            partners="mixed", boards=1, settings={}, bot_ids=ids, matches=sched)
    for match_no, (ta, tb) in enumerate(sched, start=1):
        for swapped in (False, True):
            a_pts = 20 if match_no == 1 else 15  # p+q win match 1, match 2 is drawn
            pts = (30 - a_pts, a_pts) if swapped else (a_pts, 30 - a_pts)
            record_table(db, tid, match_no, 1, swapped, 1, fake_table(ta, tb, swapped, pts))
    rows = {x["bot"]: x for x in read.standings(db, tid)}
    assert {k: (v["boards"], v["wins"], v["draws"], v["losses"]) for k, v in rows.items()} == {
        "p": (2, 1, 1, 0), "q": (2, 1, 1, 0), "s": (2, 0, 1, 1), "t": (2, 0, 1, 1)}
    assert rows["p"]["elo"] == pytest.approx(rows["q"]["elo"]) and rows["p"]["elo"] > rows["s"]["elo"]
    ct = {row["bot"]: row["results"] for row in read.crosstable(db, tid)["rows"]}
    assert set(ct["p"]) == {"s", "t"} and ct["p"]["s"]["score"] == 1.5
    with pytest.raises(ValueError, match="seat 0 holds bot"):  # a partner on the wrong side
        record_table(db, tid, 1, 2, False, 1, fake_table([s, q], [p, t], False, (15, 15)))


def test_a_reader_sees_a_table_whole_or_not_at_all(db, three, tmp_path):
    tid, (a, b, r), sched = three
    reader = sqlite3.connect(tmp_path / "results" / "arena.db", isolation_level=None)
    reader.execute("BEGIN")
    counts = "SELECT (SELECT COUNT(*) FROM board_tables), (SELECT COUNT(*) FROM seats), (SELECT COUNT(*) FROM deals)"
    assert reader.execute(counts).fetchone() == (0, 0, 0)
    record_table(db, tid, 1, 1, False, 3, fake_table([a, a], [b, b], False, (20, 10), deals=2))
    assert reader.execute(counts).fetchone() == (0, 0, 0)  # its snapshot; the writer was not blocked
    reader.execute("COMMIT")
    assert reader.execute(counts).fetchone() == (1, 4, 2)
    reader.close()


def test_seat_layout_and_schedule(db, three):
    tid, (a, b, r), sched = three
    assert seat_bots([1, 2], [3, 4], False) == [1, 3, 2, 4]
    assert seat_bots([1, 2], [3, 4], True) == [3, 1, 4, 2]
    assert seat_bots([1, 1], [3, 3], False, players=2) == [1, 3]
    assert read.schedule(db, tid) == [  # a clone team is stored as its one bot
        {"match_no": k, "entrants": [list(dict.fromkeys(ta)), list(dict.fromkeys(tb))]}
        for k, (ta, tb) in enumerate(sched, start=1)]


def test_a_bot_is_named_after_its_file_without_the_bot_suffix(db, tmp_path):
    """`arena bot add bots/zwicker/random_bot.py` and `--bots bots/zwicker/random_bot.py` agree: "random" (the anchor)."""
    assert add_bot(db, make_bot(tmp_path, "random_bot"))["name"] == "random"
    assert add_bot(db, make_bot(tmp_path, "my-bot"))["name"] == "my"
    assert add_bot(db, make_bot(tmp_path, "robot"))["name"] == "robot"


def test_isolation_counts_tables_by_their_sandbox_and_older_ones_by_the_tournament_s_runs(db, three):
    """rlimit and none do not isolate partners: a table played in either marks its bots in the
    standings. A table stored before tables recorded their sandbox counts as the runs did."""
    tid, (a, b, r), _ = three
    for swapped, mode in ((False, "bwrap"), (True, "rlimit")):
        record_table(db, tid, 1, 0, swapped, 7, {**fake_table([a, a], [b, b], swapped, [10, 20]), "sandbox": mode})
    record_table(db, tid, 2, 0, False, 7, fake_table([a, a], [r, r], False, [10, 20]))  # no sandbox: older
    note_sandbox(db, tid, "bwrap")
    assert read.isolation(db, tid) == {"tables": 3, "unisolated": 1,
                                       "sandboxes": {"bwrap": 1, "rlimit": 1, "unrecorded": 1}}
    flags = {row["bot_id"]: (row["unisolated_tables"], row["isolation_flag"]) for row in read.standings(db, tid)}
    assert flags == {a: (1, True), b: (1, True), r: (0, False)}
    note_sandbox(db, tid, "rlimit")  # a run in rlimit: the older table may have been played there
    assert read.isolation(db, tid)["unisolated"] == 2
    assert {row["bot_id"]: row["unisolated_tables"] for row in read.standings(db, tid)} == {a: 2, b: 1, r: 1}


def test_standings_order_ties_by_label_not_by_bot_id(db, tmp_path):
    """Two identical records (draws with each other, a win and a draw each against random) fit to
    Elo equal up to float noise: the table orders them by label (alpha before zeta), as the
    ratings' LOS does, whatever their ids (zeta was registered first) or the noise."""
    z, a, r = (add_bot(db, make_bot(tmp_path, n, f"# {n}\n"))["id"] for n in ("zeta", "alpha", "random"))
    sched = [([z, z], [a, a]), ([z, z], [r, r]), ([a, a], [r, r])]
    tid = create_tournament(db, "ties", seed=1, variant={"preset": "jensen"}, format="deal", partners="clone",
                            boards=2, settings={}, bot_ids=[z, a, r], matches=sched)
    play_all(db, tid, sched, 2, lambda x, y, n: 0 if r not in (x, y) or n == 2 else 4)
    compute_and_store_ratings(db, tid, bootstrap=100)
    rows = read.standings(db, tid)
    assert [(row["rank"], row["bot"]) for row in rows] == [(1, "alpha"), (2, "zeta"), (3, "random")]
    assert abs(rows[0]["elo"] - rows[1]["elo"]) < 1e-6 and 0.3 < rows[0]["los_next"] < 0.7


def test_rating_inputs_key_boards_by_deal_in_board_order(db, three):
    """Every pairing plays the same deals: the ratings get each board's seed as its deal (the
    bootstrap resamples deals whole) and the boards in board order (progression's prefixes)."""
    tid, (a, b, r), sched = three
    play_all(db, tid, sched, 2, lambda x, y, n: 2 if y == r or n == 1 else -2)
    inputs = read.rating_inputs(db, tid)
    assert [(x.deal, x.team_a[0]) for x in inputs["results"]] == [(1, a), (1, a), (1, b), (2, a), (2, a), (2, b)]
    assert inputs["anchor"] is None and inputs["random"] == r  # random lost every board: outside the core {a, b}
    assert inputs["labels"] == {a: "alpha", b: "beta", r: "random"}
    from arena.cli.results import standings_notes

    doc = read.standings_document(db, tid)
    assert (doc["anchor"], doc["core"], doc["pool_flags"]) == (None, ["alpha", "beta"], ["separated"])
    assert "0 = the mean of the largest group (alpha, beta)." in standings_notes(doc)[0]
    assert "bootstrap over deals (each resample refitted)" in standings_notes(doc)[1]
    big = {**doc, "bootstrap_method": "one-step"}  # what a big pool stores
    assert "bootstrap over deals (each resample one Newton step from the fit" in standings_notes(big)[1]


def test_a_disconnected_pool_is_said_under_the_standings(db, tmp_path):
    """alpha and beta only met each other, gamma and random too: nothing but the prior places one
    pair against the other, and the line under the table says so."""
    from arena.cli.results import standings_notes

    a, b, c, r = (add_bot(db, make_bot(tmp_path, n, f"# {n}\n"))["id"] for n in ("alpha", "beta", "gamma", "random"))
    sched = [([a, a], [b, b]), ([c, c], [r, r])]
    tid = create_tournament(db, "apart", seed=1, variant={"preset": "jensen"}, format="deal", partners="clone",
                            boards=2, settings={}, bot_ids=[a, b, c, r], matches=sched)
    play_all(db, tid, sched, 2, lambda x, y, n: 2 if n == 1 else -2)
    doc = read.standings_document(db, tid)
    assert doc["pool_flags"] == ["disconnected", "separated"]
    assert doc["groups"] == [["alpha", "beta"], ["gamma", "random"]] and doc["core"] is None
    notes = standings_notes(doc)
    assert any(line.startswith("Disconnected: some bots never met") and "(alpha, beta | gamma, random)" in line
               for line in notes)


def test_a_match_of_mixed_partners_is_two_entrants_of_two_bots_each(db, tmp_path):
    """One shape for every match: mixed partners are entrants with two members, read back as
    "a+b" (the view, the export, the board outcomes), each member counted for its team."""
    a, b, c, d = (add_bot(db, make_bot(tmp_path, n, f"# {n}\n"))["id"] for n in ("a", "b", "c", "d"))
    sched = [([a, b], [c, d])]
    tid = create_tournament(db, "mixed", seed=BIG_SEED, variant={"preset": "jensen", "players": 4}, format="deal",
                            partners="mixed", boards=1, settings={}, bot_ids=[a, b, c, d], matches=sched)
    play_all(db, tid, sched, 1, lambda x, y, n: 6)
    assert [tuple(r) for r in db.execute("SELECT entrant, member, bot_id FROM match_entrants")] == [
        (0, 0, a), (0, 1, b), (1, 0, c), (1, 1, d)]
    assert [(v["entrant"], v["bots"], v["margin"], v["score"]) for v in db.query("SELECT * FROM board_results")] == [
        (0, "a@1+b@1", 12, 1.0), (1, "c@1+d@1", -12, 0.0)]
    assert read.schedule(db, tid) == [{"match_no": 1, "entrants": [[a, b], [c, d]]}]
    rows = {r["bot"]: (r["boards"], r["wins"], r["losses"], r["avg_margin"]) for r in read.standings(db, tid)}
    assert rows == {"a": (1, 1, 0, 12.0), "b": (1, 1, 0, 12.0), "c": (1, 0, 1, -12.0), "d": (1, 0, 1, -12.0)}
    assert next(export.export_rows(db, tid))["entrants"] == "a+b c+d"
    (board,) = read.board_outcomes(db, tid)
    assert (board["entrants"], board["margin"], board["rooms"]) == (["a+b", "c+d"], 12, [1.0, 1.0])
    (match,) = read.matches(db, tid)  # a side's two bots, each named
    assert (match["entrants"], match["margins"], match["wins"]) == (["a+b", "c+d"], [12, -12], [1, 0])
    cells = {(row["bot"], y): c["wins"] for row in read.crosstable(db, tid)["rows"] for y, c in row["results"].items()}
    assert cells == {(x, y): 1 for x in "ab" for y in "cd"} | {(y, x): 0 for x in "ab" for y in "cd"}
