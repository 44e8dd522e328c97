"""Tournament throughput of two or more revisions, measured side by side.

This shared VM's speed drifts by 20-30% within an hour, so figures taken at different times do
not compare. This runs each revision's own `bench/tournament.py` from a git worktree, the
revisions interleaved (A, B, A, B, ...), and prints each one's runs and median:

    .venv/bin/python bench/compare.py HEAD~3 HEAD [--runs 5] [--boards 8] [--sandbox fork] [--concurrency 2]

A revision may be anything git names (a commit, a branch, HEAD~2), or "." for the working tree
as it is, uncommitted changes included. Run by hand; never from a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def checkout(rev: str, into: Path) -> Path:
    """A worktree of `rev` under `into` (or the working tree itself for ".")."""
    if rev == ".":
        return ROOT
    path = into / f"rev-{len(list(into.iterdir()))}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(path), rev], check=True)
    return path


def one_run(tree: Path, boards: int, sandbox: str, concurrency: int | None) -> dict:
    more = ["--concurrency", str(concurrency)] if concurrency else []
    out = subprocess.run([sys.executable, str(tree / "bench" / "tournament.py"), "--boards", str(boards),
                          "--sandbox", sandbox, *more], cwd=tree, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"bench/tournament.py of {tree} failed: {(out.stderr or out.stdout).strip()[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("revisions", nargs="+", help='git revisions, or "." for the working tree')
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--boards", type=int, default=8)
    parser.add_argument("--sandbox", default="fork", choices=["fork", "bwrap", "rlimit", "none"])
    parser.add_argument("--concurrency", type=int, help="rooms at once (default: the bench's, one per core)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="zwicker-compare-") as tmp:
        Path(tmp).chmod(0o755)  # sandboxed bots read the bot kit from the worktrees
        trees = {}
        try:
            for rev in args.revisions:
                trees[rev] = checkout(rev, Path(tmp))
            rates: dict[str, list[float]] = {rev: [] for rev in args.revisions}
            for n in range(args.runs):
                for rev, tree in trees.items():
                    rates[rev].append(one_run(tree, args.boards, args.sandbox, args.concurrency)["deals_per_s"])
                print(f"run {n + 1}/{args.runs}: " + ", ".join(f"{rev} {r[-1]}" for rev, r in rates.items()),
                      file=sys.stderr)
        finally:
            for tree in trees.values():
                if tree != ROOT:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    print(f"deals per second, {args.boards} boards per match, sandbox {args.sandbox}, concurrency "
          f"{args.concurrency or 'default'}, {args.runs} interleaved runs:")
    first = statistics.median(rates[args.revisions[0]])
    for rev, runs in rates.items():
        median = statistics.median(runs)
        print(f"  {rev:>12}  median {median:6.1f}  ({median / first - 1:+.0%})  runs {runs}")


if __name__ == "__main__":
    main()
