"""The ladder's gaps: a 95% bootstrap interval for the Elo difference between each bot and the
next one down, from a stored tournament.

The standings' intervals are each bot's rating against the anchor (the random bot). When the
anchor almost never wins, where it sits is itself uncertain, and that uncertainty moves every
other bot's interval together: two bots can have overlapping intervals although one is above
the other in every bootstrap resample (LOS 100%). The interval of the *difference* does not carry
the anchor's uncertainty, so it is the one that says whether the ladder's rungs are separated.

    .venv/bin/python bench/ladder_gaps.py ladder --db /tmp/ladder.db
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.results import ratings, read, schema  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tournament")
    parser.add_argument("--db", default=None)
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args()
    db = schema.open_db(args.db, create=False)
    tid = read.get_tournament(db, args.tournament)["id"]
    inputs = read.rating_inputs(db, tid)
    names = {bot_id: name for bot_id, name in db.execute("SELECT id, name FROM bots")}
    bots = inputs["bots"]
    samples = ratings.bootstrap_samples(inputs["results"], bots, anchor=inputs["anchor"], stop=args.bootstrap)
    headline = ratings.bradley_terry(inputs["results"], bots, anchor=inputs["anchor"], samples=samples,
                                     bootstrap=args.bootstrap)
    index = {b: i for i, b in enumerate(bots)}
    print("bot        elo   gap to next down, 95% interval")
    for upper, lower in zip(headline, headline[1:] + [None]):
        if lower is None:
            print(f"{names[upper.bot]:<9} {upper.elo:+5.0f}")
            break
        i, j = index[upper.bot], index[lower.bot]
        gaps = sorted(s[i] - s[j] for s in samples)
        low, high = gaps[int(0.025 * len(gaps))], gaps[int(0.975 * len(gaps)) - 1]
        print(f"{names[upper.bot]:<9} {upper.elo:+5.0f}   {upper.elo - lower.elo:+5.0f}  ({low:+.0f} .. {high:+.0f})")


if __name__ == "__main__":
    main()
