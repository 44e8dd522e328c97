"""The league under load: spectators polling the league page and authors submitting while the
ladder plays, against the same ladder with nobody looking (interleaved, to share the machine's
drift between the two).

Starts `arena league serve --free` (a subprocess, a fresh database in a temporary folder; the
free tempo, since a fair one spends the whole move limit on every move) with four
bundled bots submitted, then alternates quiet and loaded phases of `--phase` seconds each,
`--rounds` times. In a loaded phase `--spectators` threads each ask for the league page once a
second (a browser's tab polls every three) and `--authors` authors each submit a new version of
their bot every `--submit-every` seconds (each one is checked in the sandbox: four tables), and
`--pullers` authors each download their own large bot (`--big-mb` of incompressible data, the
code endpoint packs it afresh every time) back to back, and `--bombers` authors each send the
worst archive back to back (by turns a decompression bomb at the upload limit, gzip members of
zeros that unpack to about a thousand times their size, and a PAX header bomb), each refused. The
ladder's speed is the deals stored per second in each phase (counted in the database); the
pages' latency is the median and 95th percentile of every request of the loaded phases. Run by hand:

    .venv/bin/python bench/league_load.py [--spectators 50] [--authors 5] [--pullers 1] [--bombers 1] [--phase 20] [--rounds 3]

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.league import archive, client  # noqa: E402

ARENA = [sys.executable, "-m", "arena"]
POOL = 4  # bots on the ladder from the start


def make_bot(folder: Path, source: str, tweak: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text((ROOT / "bots" / "zwicker" / source).read_text() + f"\n# {tweak}\n")
    shutil.copy(ROOT / "bots" / "botkit.py", folder / "botkit.py")
    for p in [folder, *folder.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return folder


def deals(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM deals").fetchone()[0]
    finally:
        conn.close()


def zeros_bomb(upload: int) -> bytes:
    """A gzip tar of one file of zeros as large as an upload of `upload` bytes holds: gzip
    members of 64 MiB of zeros each (about 64 KB sent), one after another (one stream to a reader)."""
    import gzip
    import tarfile

    chunk = gzip.compress(bytes(64 << 20), compresslevel=9)
    count = max(1, (upload - 4096) // len(chunk))
    info = tarfile.TarInfo("b.py")
    info.size = count * (64 << 20)
    head = gzip.compress(info.tobuf(format=tarfile.GNU_FORMAT))  # (a size past 8 GiB: base-256)
    return head + chunk * count


def pax_bomb(size: int) -> bytes:
    """A gzip tar whose first member is a PAX extended header of `size` bytes."""
    import gzip
    import io
    import tarfile

    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as z:
        info = tarfile.TarInfo("././@PaxHeader")
        info.type, info.size = tarfile.XHDTYPE, size
        z.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        z.write(b"%d comment=" % size)
        zeros = bytes(1 << 20)
        for start in range(0, size, len(zeros)):
            z.write(zeros[: min(len(zeros), size - start)])
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spectators", type=int, default=50)
    ap.add_argument("--authors", type=int, default=5)
    ap.add_argument("--phase", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--submit-every", type=float, default=10.0)
    ap.add_argument("--boards", type=int, default=4)
    ap.add_argument("--pullers", type=int, default=1)
    ap.add_argument("--big-mb", type=float, default=9.5)
    ap.add_argument("--bombers", type=int, default=0)
    args = ap.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="league-bench-"))
    folder.chmod(0o755)
    db = folder / "league.db"
    tokens = []
    for k in range(max(args.authors, POOL, args.pullers, args.bombers)):  # the first POOL submit the ladder's starting bots
        out = subprocess.run([*ARENA, "league", "author", "add", f"author{k}", "--db", str(db)],
                             capture_output=True, text=True, check=True, cwd=ROOT)
        tokens.append(out.stdout.strip().splitlines()[-1])
    server = subprocess.Popen([*ARENA, "league", "serve", "--db", str(db), "--port", "0", "--quiet",
                               "--boards", str(args.boards), "--submit-limit", "100000", "--free",
                               "--code-limit", "100000", "--max-bytes", str(int(args.big_mb * 2**20) + 2**20)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        url = server.stdout.readline().split("serving on ")[1].split()[0]
        sources = ["random_bot.py", "first_bot.py", "greedy_bot.py", "heuristic_bot.py", "sweeper_bot.py"]
        for k, token in enumerate(tokens):
            client.submit(url, token, f"bot{k}", make_bot(folder / f"bot{k}", sources[k % len(sources)]))
        for k in range(args.pullers):  # each puller's large bot: the ladder's bot with a model beside it
            big = make_bot(folder / f"big{k}", sources[k % len(sources)])
            (big / "model.bin").write_bytes(os.urandom(int(args.big_mb * 2**20)))
            (big / "model.bin").chmod(0o644)
            client.submit(url, tokens[k], f"big{k}", big)
        time.sleep(args.phase / 2)  # the new versions' first matches, before measuring

        latencies: list[float] = []
        submissions: list[float] = []
        lock = threading.Lock()

        failed = []

        def spectator(stop: threading.Event) -> None:
            while not stop.is_set():
                start = time.perf_counter()
                try:
                    with urllib.request.urlopen(url + "/api/league", timeout=60) as r:  # what the page draws
                        r.read()
                except OSError as exc:  # (the server dropped the connection)
                    with lock:
                        failed.append(repr(exc))
                    continue
                took = time.perf_counter() - start
                with lock:
                    latencies.append(took)
                stop.wait(max(0.0, 1.0 - took))

        def author(k: int, stop: threading.Event) -> None:
            n = 0
            while not stop.wait(args.submit_every * (0.5 if n == 0 else 1.0)):
                n += 1
                bot = make_bot(folder / f"bot{k}-v{n}", sources[k % len(sources)], f"version {n} {time.time()}")
                start = time.perf_counter()
                client.submit(url, tokens[k], f"bot{k}", bot)
                with lock:
                    submissions.append(time.perf_counter() - start)

        pulls: list[float] = []

        def puller(k: int, stop: threading.Event) -> None:
            request = urllib.request.Request(f"{url}/api/bots/big{k}/code",
                                             headers={"Authorization": f"Bearer {tokens[k]}"})
            while not stop.is_set():
                start = time.perf_counter()
                with urllib.request.urlopen(request, timeout=120) as r:
                    r.read()
                with lock:
                    pulls.append(time.perf_counter() - start)

        max_bytes = int(args.big_mb * 2**20) + 2**20
        worst = [zeros_bomb(archive.Limits(max_bytes).max_upload), pax_bomb(64 << 20)]
        refusals: list[float] = []

        def bomber(k: int, stop: threading.Event) -> None:
            n = 0
            while not stop.is_set():
                body, kind = client._multipart({"name": f"bomb{k}"}, "bot.tar.gz", worst[n % len(worst)])
                request = urllib.request.Request(url + "/api/submit", data=body, method="POST", headers={
                    "Content-Type": kind, "Authorization": f"Bearer {tokens[k]}"})
                start = time.perf_counter()
                try:
                    urllib.request.urlopen(request, timeout=300).read()
                    raise SystemExit("a bomb was stored")
                except urllib.error.HTTPError as exc:
                    exc.read()
                    if exc.code != 400:
                        raise SystemExit(f"a bomb was answered {exc.code}") from None
                with lock:
                    refusals.append(time.perf_counter() - start)
                n += 1

        speeds: dict[str, list[float]] = {"quiet": [], "loaded": []}
        for _round in range(args.rounds):
            for phase in ("quiet", "loaded"):
                stop = threading.Event()
                threads = []
                if phase == "loaded":
                    threads = [threading.Thread(target=spectator, args=(stop,)) for _ in range(args.spectators)]
                    threads += [threading.Thread(target=author, args=(k, stop)) for k in range(args.authors)]
                    threads += [threading.Thread(target=puller, args=(k, stop)) for k in range(args.pullers)]
                    threads += [threading.Thread(target=bomber, args=(k, stop)) for k in range(args.bombers)]
                d0, t0 = deals(db), time.monotonic()
                for t in threads:
                    t.start()
                time.sleep(args.phase)
                d1, t1 = deals(db), time.monotonic()
                stop.set()
                for t in threads:
                    t.join()
                speeds[phase].append((d1 - d0) / (t1 - t0))
                print(f"{phase:>6}: {speeds[phase][-1]:.1f} deals/s", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=60)
        server.stdout.close()
        shutil.rmtree(folder, ignore_errors=True)

    q = sorted(latencies)
    quiet, loaded = statistics.mean(speeds["quiet"]), statistics.mean(speeds["loaded"])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"league page: {len(q)} requests by {args.spectators} spectators, median {statistics.median(q) * 1000:.1f} ms,"
          f" p95 {q[int(0.95 * (len(q) - 1))] * 1000:.1f} ms, max {q[-1] * 1000:.1f} ms, {len(failed)} failed")
    if submissions:
        print(f"submissions: {len(submissions)} by {args.authors} authors, median {statistics.median(submissions):.2f} s"
              f" (check included), max {max(submissions):.2f} s")
    if pulls:
        print(f"code downloads: {len(pulls)} of a {args.big_mb} MB bot by {args.pullers} authors, median "
              f"{statistics.median(pulls):.2f} s, max {max(pulls):.2f} s")
    if refusals:
        print(f"worst archives: {len(refusals)} refused, sent by {args.bombers} authors back to back, median "
              f"{statistics.median(refusals):.2f} s, max {max(refusals):.2f} s")
    print(f"ladder: {quiet:.1f} deals/s quiet, {loaded:.1f} loaded: ratio {loaded / max(quiet, 1e-9):.2f} "
          f"({args.rounds} rounds of {args.phase:.0f} s each, interleaved)")


if __name__ == "__main__":
    main()
