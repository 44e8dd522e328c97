"""Storage and rating at scale: bytes per stored jensen deal, and standings with ratings of a
big tournament, each in a fresh process (peak memory is that part's own). Run by hand:

    .venv/bin/python bench/storage.py deals [--deals 100000]
    .venv/bin/python bench/storage.py ratings [--bots 200] [--boards 200000] [--bootstrap 1000] [--db PATH]

`deals`: random legal play (two worker processes), each deal recorded as the arena records it
(the listed moves' index, think times drawn from a log-normal of median 1 ms), stored through
`write.record_table` one deal per table; then the bytes on disk of the deals table and its index
(SQLite's dbstat), and of the whole file, per deal; and, for comparison, the same deals in the
JSON form of migration 0001 (the table as it was before `compact_deals`).

`ratings`: a round robin of `bots` clone bots with strengths spread over 800 Elo, board results
drawn from them, written straight into the tables as a run stores them (bench-only SQL: the point
is reading them; board k of every match is played on the run's deal k, so the bootstrap has as
many deals to resample as a match has boards); then, timed, what a finished run does:
`read.rating_inputs`, the Bradley-Terry fit with its bootstrap, storing the ratings, and
`read.standings`: the seconds at each of those three points, and the process's CPU seconds in
all (which a loaded machine inflates less than the wall time). `--db PATH` keeps the pool's
database there and reuses it on the next run.

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def play(args: tuple[int, int]) -> list[dict]:
    """Deals `start` .. `start + count - 1`, played by random legal moves."""
    from engine import zwicker
    from arena.results import compact

    start, count = args
    v = zwicker.variant("jensen")
    rng = random.Random(start)
    out = []
    for k in range(start, start + count):
        seed = zwicker.deal_seed(1, k)
        state = zwicker.deal(v, seed, k % 4)
        moves = []
        while not state.is_over:
            legal, _ = state.listed_moves(compact.CAP)
            i = rng.randrange(len(legal))
            moves.append({"seat": state.to_move, "move": legal[i].to_dict(),
                          "ms": round(rng.lognormvariate(0.0, 1.0), 3), "i": i})
            state = state.apply(legal[i])
        out.append({"number": 0, "seed": seed, "dealer": k % 4, "points": state.score(),
                    "breakdown": state.breakdown(), "moves": moves, "complete": True})
    return out


def table_bytes(path: Path, names: list[str]) -> int:
    with sqlite3.connect(path) as raw:
        return raw.execute(f"SELECT SUM(pgsize) FROM dbstat WHERE name IN ({','.join('?' * len(names))})",
                           names).fetchone()[0]


def deals(n: int) -> dict:
    import sqlite_utils

    from arena.results import registry, schema, write
    from arena.results.write import seat_bots

    with tempfile.TemporaryDirectory() as tmp:
        db = schema.open_db(Path(tmp) / "compact.db")
        old = sqlite_utils.Database(Path(tmp) / "json.db")
        schema.migrations.apply(old, stop_before="compact_deals")
        bots = []
        for name in ("a", "b"):
            (Path(tmp) / f"{name}.py").write_text(f"# {name}\n")
            bots.append(registry.add_bot(db, Path(tmp) / f"{name}.py")["id"])
        a, b = bots
        boards = n // 2
        tid = write.create_tournament(db, "bench", seed=1, variant={"preset": "jensen"}, format="deal",
                                      partners="clone", boards=boards, settings={}, bot_ids=bots,
                                      matches=[([a, a], [b, b])])
        chunk = 500
        started = time.perf_counter()
        stored = 0
        json_rows = []
        with multiprocessing.Pool(2) as pool:
            for batch in pool.imap(play, [(s, min(chunk, n - s)) for s in range(0, n, chunk)]):
                with db.atomic():
                    for d in batch:
                        board, swapped = divmod(stored, 2)
                        seats = [{"seat": s, "bot_id": bot, "name": "x", "version": "1", "status": "ok", "detail": "",
                                  "stderr": "", "moves": 13, "think_ms_total": 13.0, "think_ms_max": 2.0}
                                 for s, bot in enumerate(seat_bots([a, a], [b, b], bool(swapped)))]
                        write.record_table(db, tid, 1, board, bool(swapped), board,
                                           {"seats": seats, "points": d["points"], "forfeit": None, "deals": [d],
                                            "started": "2026-12-01T00:00:00.000+00:00", "duration_s": 0.1})
                        json_rows.append((stored + 1, 1, stored, str(d["seed"]), d["dealer"], json.dumps(d["points"]),
                                          json.dumps(d["breakdown"]),
                                          json.dumps([{k: m[k] for k in ("seat", "move", "ms")} for m in d["moves"]]),
                                          1))
                        stored += 1
                with old.conn:
                    old.conn.executemany("INSERT INTO deals (id, table_id, number, seed, dealer, points, breakdown,"
                                         " moves, complete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", json_rows)
                json_rows.clear()
        wall = time.perf_counter() - started
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        old.execute("PRAGMA wal_checkpoint(TRUNCATE)") if old.journal_mode == "wal" else None
        old.close()
        compact_path, json_path = Path(tmp) / "compact.db", Path(tmp) / "json.db"
        deal_bytes = table_bytes(compact_path, ["deals", "sqlite_autoindex_deals_1"])
        json_bytes = table_bytes(json_path, ["deals", "sqlite_autoindex_deals_1"])
        from arena.results import read

        check = schema.open_db(compact_path)
        t0 = time.perf_counter()
        sample = [read.get_deal(check, i) for i in range(1, n + 1, max(1, n // 200))]
        replay_ms = (time.perf_counter() - t0) / len(sample) * 1000
        check.close()
        return {"deals": n, "deals_table_and_index_bytes_per_deal": round(deal_bytes / n, 1),
                "json_deals_table_and_index_bytes_per_deal": round(json_bytes / n, 1),
                "whole_file_bytes_per_deal": round(compact_path.stat().st_size / n, 1),
                "(the file also holds a table row, its board and four seat rows per deal here)": None,
                "play_and_store_wall_s": round(wall, 1), "get_deal_ms": round(replay_ms, 2)}


def build_pool(path: Path, bots: int, boards: int) -> None:
    """The big pool's database at `path`: a round robin of `bots` clone bots, strengths drawn
    uniformly over 800 Elo, cut at `boards` boards, each board's two tables and eight seats as a
    real run stores them (a board's seed is the run's deal seed for its number, so every pairing
    plays the same deals), results drawn from the strengths (5% draws)."""
    from arena.play.room import board_seed
    from arena.results import schema, write

    rng = random.Random(1)
    db = schema.open_db(path)
    strength = {}
    with db.atomic():
        for k in range(bots):
            bot = db.execute("INSERT INTO bots (name, version, path, kind, source, sha256, added)"
                             " VALUES (?, 1, 'x', 'file', 'x', ?, 'now')", [f"bot{k}", f"{k:064x}"]).lastrowid
            strength[bot] = rng.uniform(0, 800)
    ids = list(strength)
    pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]]
    per_match = max(1, math.ceil(boards / len(pairs)))
    tid = write.create_tournament(db, "big", seed=1, variant={"preset": "jensen"}, format="deal",
                                  partners="clone", boards=per_match, settings={}, bot_ids=ids,
                                  matches=[([a, a], [b, b]) for a, b in pairs])
    seeds = [str(board_seed(1, board)) for board in range(per_match)]
    made = 0
    with db.atomic():
        for match_no, (a, b) in enumerate(pairs, start=1):
            (mid,) = db.execute("SELECT id FROM matches WHERE tournament_id = ? AND match_no = ?",
                                [tid, match_no]).fetchone()
            p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
            for board in range(per_match):
                if made >= boards:
                    break
                r = rng.random()
                outcome = "win" if r < p * 0.95 else "draw" if r < p * 0.95 + 0.05 else "loss"
                margin = {"win": 10, "draw": 0, "loss": -10}[outcome]
                points = [(20 + margin // 2, 20 - margin // 2), (20, 20)]  # per room: team A's margin in the first
                for swapped in (0, 1):
                    table = db.execute("INSERT INTO board_tables (match_id, board_no, swapped, board_seed,"
                                       " side_points, started, duration_s, sandbox)"
                                       " VALUES (?, ?, ?, ?, ?, 'now', 0.1, 'fork')",
                                       [mid, board, swapped, seeds[board], json.dumps(points[swapped])]).lastrowid
                    seats = [a, b, a, b] if not swapped else [b, a, b, a]
                    db.conn.executemany("INSERT INTO seats (table_id, seat, bot_id, status) VALUES (?, ?, ?, 'ok')",
                                        [(table, s, bot) for s, bot in enumerate(seats)])
                board_id = db.execute("INSERT INTO boards (match_id, board_no, seed, completed) VALUES (?, ?, ?, 'now')",
                                      [mid, board, seeds[board]]).lastrowid
                score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[outcome]
                db.conn.executemany("INSERT INTO board_entrants (board_id, entrant, result, margin, score)"
                                    " VALUES (?, ?, ?, ?, ?)",
                                    [(board_id, 0, 40 + margin // 2, margin, score),
                                     (board_id, 1, 40 - margin // 2, -margin, 1 - score)])
                made += 1
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def ratings(bots: int, boards: int, bootstrap: int, keep: Path | None) -> dict:
    from arena.results import read, schema, write

    with tempfile.TemporaryDirectory() as tmp:
        path = keep if keep is not None else Path(tmp) / "big.db"
        if not path.exists():
            build_pool(path, bots, boards)
        db = schema.open_db(path)
        (tid,) = db.execute("SELECT id FROM tournaments WHERE name = 'big'").fetchone()
        (made,) = db.execute("SELECT COUNT(*) FROM boards").fetchone()
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        cpu0 = time.process_time()
        started = time.perf_counter()
        inputs = read.rating_inputs(db, tid)
        t_inputs = time.perf_counter() - started
        write.compute_and_store_ratings(db, tid, bootstrap=bootstrap, inputs=inputs)
        t_rated = time.perf_counter() - started
        rows = read.standings(db, tid)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu0
        assert len(rows) == len(inputs["bots"])
        (params,) = db.execute("SELECT params FROM ratings WHERE tournament_id = ? LIMIT 1", [tid]).fetchone()
        return {"bots": len(inputs["bots"]), "boards": made, "deals": len({r.deal for r in inputs["results"]}),
                "bootstrap": bootstrap, "bootstrap_method": json.loads(params).get("bootstrap_method"),
                "rating_inputs_s": round(t_inputs, 2), "ratings_stored_s": round(t_rated, 2),
                "standings_total_s": round(wall, 2), "cpu_s": round(cpu, 2),
                "load_average": round(os.getloadavg()[0], 1), "peak_rss_mib_before": round(rss0 / 1024, 1),
                "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["deals", "ratings"])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--boards", type=int, default=200_000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--db", type=Path, default=None,
                        help="ratings: keep the pool's database here (built when missing, else reused)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        out = deals(args.deals) if args.what == "deals" else ratings(args.bots, args.boards, args.bootstrap, args.db)
        print(json.dumps(out))
        return
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, SQLite {sqlite3.sqlite_version}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    out = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--child"], capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr)
    print(json.dumps(json.loads(out.stdout.strip().splitlines()[-1]), indent=1))


if __name__ == "__main__":
    main()
