"""Golden playthroughs of Zwicken: one seeded board per preset written out in full (each attempt's
positions, every seat's observation, the legal moves, the move made), so a rules change shows up
as a reviewable diff. Regenerate with `python tests/golden/zwicken.py`."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from engine import zwicken as z  # noqa: E402

PRESETS = ["bayern", "ohne_welli", "scharf"]
# scharf's board seed is one whose board has a blind deal, a Rundherum and a hop
SEEDS = {"bayern": 2024, "ohne_welli": 2024, "scharf": 2036}


def render(preset: str, seed: int | None = None) -> str:
    seed = SEEDS[preset] if seed is None else seed
    v = z.variant(preset, deals=2, playout_max=1)
    board = z.Board.new(v, seed, 0)
    rng = random.Random(seed)  # a local generator: the choice of moves is part of the fixture
    out = [f"# golden playthrough: zwicken {v}, board seed {seed}, first dealer 0", ""]
    while not board.is_over:
        s = board.deal()
        out.append(f"# attempt {board.deals_played}: carry {json.dumps(board.carry())}")
        step = 0
        while True:
            out.append(f"## step {step}")
            out.append(z.position_text(s))
            for seat in range(v.players):
                obs = {k: x for k, x in z.observe(s, seat).items() if k not in ("variant", "history")}
                out.append(f"observation {seat}: {json.dumps(obs, sort_keys=True)}")
            if s.is_over:
                break
            moves = s.legal_moves()
            choice = moves[rng.randrange(len(moves))]
            out.append(f"legal ({len(moves)}): {' '.join(map(str, moves))}")
            out.append(f"move: seat {s.to_move} {choice}")
            out.append("")
            s = s.apply(choice)
            step += 1
        out.append(f"result: {json.dumps(s.result.to_dict())}")
        out.append("")
        board = board.after(s)
    out.append(f"board: {json.dumps(board.result())}")
    return "\n".join(out) + "\n"


def path(preset: str) -> Path:
    return HERE / f"zwicken_{preset}.txt"


if __name__ == "__main__":
    for preset in PRESETS:
        path(preset).write_text(render(preset))
        print(f"wrote {path(preset)}")
