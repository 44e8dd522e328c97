"""The results server on a big tournament: 20 bots, a clone round robin, about 20,000 boards.

Builds the database synthetically (the schedule through arena.results.write, then every table,
seat, deal and board in one transaction of direct SQL, as record_table would write them; each
deal is one of a few dozen really played random deals, so every replay works), rates it, then
starts `arena serve` as a subprocess and measures each kind of page: the first request (nothing
cached) and the median of later ones, and the server's memory (VmRSS, VmHWM). With --browser
it also times Chromium from navigation to the drawn tournament page. Run by hand:

    .venv/bin/python bench/web.py [--bots 20] [--boards 106] [--db /tmp/web-bench.db] [--browser]

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def played_deals(count: int) -> list[dict]:
    """`count` jensen deals played to the end by random legal moves, as the runner stores them."""
    from engine import zwicker

    out = []
    for k in range(count):
        seed, dealer = zwicker.deal_seed(99, k), k % 4
        state = zwicker.deal("jensen", seed, dealer)
        rng = random.Random(k)
        moves = []
        while not state.is_over:
            move = rng.choice(state.legal_moves())
            moves.append({"seat": state.to_move, "move": move.to_dict(), "ms": round(rng.uniform(0.05, 3), 3)})
            state = state.apply(move)
        out.append({"seed": seed, "dealer": dealer, "points": state.score(), "breakdown": state.breakdown(),
                    "moves": moves})
    return out


def build(path: Path, bots: int, boards: int, bootstrap: int) -> dict:
    """The database: `bots` bots of made-up strengths, every pair a match of `boards` boards."""
    from engine import zwicker
    from arena.results import compact, schema, write
    from arena.results.schema import _dumps

    if path.exists():
        path.unlink()
    db = schema.open_db(path)
    folder = path.parent / "bench-bots"
    folder.mkdir(exist_ok=True)
    ids = []
    for k in range(bots):
        src = folder / f"b{k:02d}.py"
        src.write_text(f"# bench bot {k}\n")
        from arena.results import registry

        ids.append(registry.add_bot(db, src, name=f"bot{k:02d}")["id"])
    schedule = [([a, a], [b, b]) for i, a in enumerate(ids) for b in ids[i + 1:]]
    tid = write.create_tournament(db, "big", seed=1, variant={"preset": "jensen"}, format="deal", partners="clone",
                                  boards=boards, settings={"sandbox": "none", "elo_k": 16.0}, bot_ids=ids,
                                  matches=schedule)
    write.set_status(db, tid, "running")
    deals = played_deals(48)
    for d in deals:  # each deal's compact form (arena/results/compact.py), made once
        d["play"] = compact.encode(zwicker.variant("jensen"), d["seed"], d["dealer"], d["moves"])
    strength = {b: 3.0 * k for k, b in enumerate(ids)}  # later bots stronger: a margin's mean
    rng = random.Random(1)
    matches = {r[0]: r[1] for r in db.execute("SELECT match_no, id FROM matches WHERE tournament_id = ?", [tid])}
    t0 = time.perf_counter()
    with db.atomic():
        for match_no, (team_a, team_b) in enumerate(schedule, start=1):
            mid = matches[match_no]
            for board_no in range(boards):
                margin = 0
                d = deals[(match_no * boards + board_no) % len(deals)]
                for swapped in (0, 1):
                    p_a = max(0, min(30, round(15 + (strength[team_a[0]] - strength[team_b[0]]) / 4 + rng.gauss(0, 6))))
                    points = (30 - p_a, p_a) if swapped else (p_a, 30 - p_a)
                    margin += p_a - (30 - p_a)
                    table_id = db.execute(
                        "INSERT INTO board_tables (match_id, board_no, swapped, board_seed, side_points, forfeit,"
                        " started, duration_s) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
                        [mid, board_no, swapped, str(d["seed"]), _dumps(list(points)), "2026-01-01T00:00:00.000+00:00",
                         0.05],
                    ).lastrowid
                    seats = write.seat_bots(team_a, team_b, bool(swapped))
                    fault = rng.random() < 0.002
                    db.conn.executemany(
                        "INSERT INTO seats (table_id, seat, bot_id, announced_name, announced_version, status, detail, stderr_tail, moves,"
                        " think_ms_total, think_ms_max) VALUES (?, ?, ?, ?, '1', ?, ?, ?, 13, 12.5, 3.1)",
                        [(table_id, s, b, f"bot{b}", "timeout" if fault and s == 0 else "ok",
                          "no answer within 1.0 s" if fault and s == 0 else "",
                          "thinking...\n" * 40 if fault and s == 0 else "") for s, b in enumerate(seats)])
                    db.execute(
                        "INSERT INTO deals (table_id, deal_no, seed, dealer, points, complete, play)"
                        " VALUES (?, 0, ?, ?, ?, 1, ?)",
                        [table_id, str(d["seed"]), d["dealer"], _dumps(d["points"]), d["play"]])
                board_id = db.execute("INSERT INTO boards (match_id, board_no, seed, completed) VALUES (?, ?, ?, ?)",
                                      [mid, board_no, str(d["seed"]), "2026-01-01T00:00:00.000+00:00"]).lastrowid
                score = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
                db.conn.executemany("INSERT INTO board_entrants (board_id, entrant, result, margin, score)"
                                    " VALUES (?, ?, ?, ?, ?)", [(board_id, 0, 30 + margin // 2, margin, score),
                                                                (board_id, 1, 30 - margin // 2, -margin, 1 - score)])
    filled = time.perf_counter() - t0
    t0 = time.perf_counter()
    write.compute_and_store_ratings(db, tid, bootstrap=bootstrap)
    rated = time.perf_counter() - t0
    write.set_status(db, tid, "finished")
    (n_boards,) = db.execute("SELECT COUNT(*) FROM boards").fetchone()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return {"boards": n_boards, "matches": len(schedule), "fill_s": round(filled, 1), "rate_s": round(rated, 1),
            "db_mb": round(path.stat().st_size / 2**20, 1)}


def get(port: int, path: str) -> tuple[float, int]:
    """Milliseconds for one GET (connect to last byte) and the body's size."""
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    ms = (time.perf_counter() - t0) * 1000
    assert r.status == 200, (path, r.status, body[:200])
    return ms, len(body)


def memory(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    return {k: int(re.search(rf"{k}:\s+(\d+) kB", status)[1]) // 1024 for k in ("VmRSS", "VmHWM")}


def build_times(path: Path, keys: list[str]) -> dict:
    """Milliseconds to build each page's data from the database, nothing shared or cached:
    what the server spends once per page and per change of the results."""
    from arena.report import pages
    from arena.results import web_queries

    db = web_queries.open_readonly(path)
    out = {}
    for key in keys:
        with web_queries.snapshot(db):
            t0 = time.perf_counter()
            pages.page(db, key)
            out[key] = round((time.perf_counter() - t0) * 1000, 1)
    db.close()
    return out


def measure(path: Path, repeat: int, browser: bool) -> dict:
    proc = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--db", str(path), "--port", "0"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        port = int(re.search(r":(\d+)/", proc.stdout.readline())[1])
        import sqlite3

        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as c:
            (deal,) = c.execute("SELECT MAX(id) / 2 FROM deals").fetchone()
            (matches,) = c.execute("SELECT COUNT(*) FROM matches").fetchone()
        out: dict = {"idle_mb": memory(proc.pid)}
        pages = [("/", "the app's page"), ("/static/app.js", "the app"), ("/api/tournaments", "tournaments"),
                 ("/api/t/1", "the tournament"), ("/api/t/1/bot/20", "a bot"), (f"/api/t/1/match/{matches // 2}", "a match"),
                 (f"/api/deal/{deal}", "a deal's replay"), ("/api/version", "the live token")]
        rows = []
        for url, what in pages:
            cold, size = get(port, url)
            warm = [get(port, url)[0] for _ in range(repeat)]
            rows.append({"page": what, "url": url, "kB": round(size / 1024, 1), "first_ms": round(cold, 1),
                         "median_ms": round(statistics.median(warm), 1), "max_ms": round(max(warm), 1)})
        out["pages"] = rows
        out["build_ms"] = build_times(path, [u[len("/api/"):] for u, _ in pages if u.startswith("/api/") and u != "/api/version"])
        if browser:
            out["browser_ms"] = browser_load(port, repeat)
        out["after_mb"] = memory(proc.pid)
        return out
    finally:
        proc.terminate()
        proc.wait()


def browser_load(port: int, repeat: int) -> list[dict]:
    """Chromium: navigation to the tournament page drawn (standings, crosstable and chart in the DOM)."""
    from playwright.sync_api import sync_playwright

    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    times = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = b.new_page(viewport={"width": 1280, "height": 900})
        for _ in range(repeat):
            page.goto("about:blank")
            t0 = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}/#t=1")
            page.wait_for_selector("#history polyline")
            total = round((time.perf_counter() - t0) * 1000, 1)
            # in the page: when the data had arrived, and when it was drawn
            arrived, drawn = page.evaluate("""() => [performance.getEntriesByType('resource')
                .find(e => e.name.endsWith('/api/t/1')).responseEnd, performance.now()]""")
            times.append({"total_ms": total, "data_arrived_ms": round(arrived, 1), "drawn_ms": round(drawn, 1)})
        page.screenshot(path=str(ROOT / "results" / "bench-web-tournament.png"), full_page=True)
        b.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--boards", type=int, default=106, help="boards per match (190 matches for 20 bots)")
    parser.add_argument("--db", type=Path, default=Path("/tmp/web-bench/arena.db"))
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--reuse", action="store_true", help="measure an existing --db without building it")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--browser", action="store_true")
    a = parser.parse_args()
    a.db.parent.mkdir(parents=True, exist_ok=True)
    made = None if a.reuse else build(a.db, a.bots, a.boards, a.bootstrap)
    result = {"machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "database": made,
              **measure(a.db, a.repeat, a.browser)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
