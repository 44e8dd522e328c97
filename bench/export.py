"""Export memory: peak RSS of `arena export` (csv and json) at 100 and 10,000 boards.

A real 100-board tournament (greedy v random, one match, sandbox none) is played once; the
10,000-board database repeats its 200 tables as 100 matches of the same two bots (each table
recorded through write.record_table, as a run records it), so the exported bytes per board are
a real tournament's. Each export runs in a fresh process: its peak RSS is that export's own.
For contrast, `document` builds the whole JSON document in memory first (export_document, as
the export did before it streamed). Peak RSS is the export process's VmHWM (/proc/self/status):
getrusage's ru_maxrss would carry over this process's own peak through fork and exec. Run by hand (never a timed test):

    .venv/bin/python bench/export.py [--boards 100 10000]

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SOURCE_BOARDS = 100

MEASURE = r"""
import json, sys, time
from arena.results import export, read, schema
db = schema.open_db(sys.argv[1], create=False, readonly=True)
tid = read.get_tournament(db, sys.argv[2])["id"]
start = time.perf_counter()
with open(sys.argv[4], "w", encoding="utf-8") as out:
    if sys.argv[3] == "csv":
        export.write_csv(db, tid, out)
    elif sys.argv[3] == "json":
        export.write_json(db, tid, out)
    else:
        out.write(json.dumps(export.export_document(db, tid), indent=2, ensure_ascii=False))
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"seconds": time.perf_counter() - start, "peak_rss_mb": int(hwm.split()[1]) / 1024}))
"""


def build(folder: Path, boards: int) -> Path:
    """A database with a tournament of `boards` boards named 'bench'."""
    import trio

    from arena.results import export, registry, schema, write
    from arena.tournaments import runner

    path = folder / f"export-{boards}.db"
    db = schema.open_db(path)
    greedy = registry.add_bot(db, ROOT / "bots" / "zwicker" / "greedy_bot.py")["id"]
    rnd = registry.add_bot(db, ROOT / "bots" / "zwicker" / "random_bot.py")["id"]
    source = folder / "source.db"
    if not source.exists():
        src = schema.open_db(source)
        tid = runner.prepare(src, "source", [str(ROOT / "bots" / "zwicker" / "greedy_bot.py"), str(ROOT / "bots" / "zwicker" / "random_bot.py")],
                             runner.Settings(boards=SOURCE_BOARDS, seed=1))
        trio.run(lambda: runner.run(src, tid, sandbox="none"))
        src.close()
    src = schema.open_db(source, create=False)
    tables = list(export._tables(src, 1))
    src.close()
    ids = {"greedy": greedy, "random": rnd}
    matches = max(1, boards // SOURCE_BOARDS)
    per_match = min(boards, SOURCE_BOARDS)
    tid = write.create_tournament(db, "bench", seed=1, variant={"preset": "jensen"}, format="deal", partners="clone",
                                  boards=per_match, settings={}, bot_ids=[greedy, rnd],
                                  matches=[([greedy, greedy], [rnd, rnd])] * matches)
    for match_no in range(1, matches + 1):
        with db.atomic():
            for t in tables:
                if t["board_no"] >= per_match:
                    continue
                record = {**t, "seats": [{**s, "bot_id": ids[s["bot"]]} for s in t["seats"]]}
                write.record_table(db, tid, match_no, t["board_no"], t["swapped"], int(t["board_seed"]), record)
    write.set_status(db, tid, "finished")
    write.compute_and_store_ratings(db, tid, bootstrap=100)
    db.close()
    return path


def measure(db: Path, kind: str, out: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(db), "bench", kind, str(out)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    figures = json.loads(proc.stdout)
    figures["mb_written"] = out.stat().st_size / 1e6
    out.unlink()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, nargs="+", default=[100, 10_000])
    args = parser.parse_args()
    print(f"{platform.node()}  {platform.python_implementation()} {platform.python_version()}  "
          f"{os.cpu_count()} cores  {time.strftime('%Y-%m-%d')}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'boards':>7} {'export':>9} {'peak RSS MB':>12} {'MB written':>11} {'seconds':>8}")
        for boards in args.boards:
            db = build(folder, boards)
            for kind in ("csv", "json", "document"):
                f = measure(db, kind, folder / f"out.{kind}")
                print(f"{boards:>7} {kind:>9} {f['peak_rss_mb']:>12.1f} {f['mb_written']:>11.2f} {f['seconds']:>8.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
