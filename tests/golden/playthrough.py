"""Golden playthroughs: one seeded deal per preset written out in full, so a rules change
shows up as a reviewable diff. Regenerate with `python tests/golden/playthrough.py`."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from engine import zwicker  # noqa: E402
from engine.zwicker.notation import move_text, position_text  # noqa: E402

PRESETS = ["jensen", "huelsemann", "grossenwiehe", "grupp"]
SEED = 2024


def render(preset: str, seed: int = SEED) -> str:
    """The whole deal: each step's position, each seat's observation, the legal moves, the move."""
    state = zwicker.deal(preset, seed, dealer=0)
    rng = random.Random(seed)  # a local generator: the choice of moves is part of the fixture
    out = [f"# golden playthrough: {preset}, seed {seed}, dealer 0", ""]
    step = 0
    while not state.is_over:
        moves = state.legal_moves()
        choice = moves[rng.randrange(len(moves))]
        out.append(f"## step {step}: seat {state.to_move} to move")
        out.append(position_text(state))
        for seat in range(state.variant.players):
            out.append(f"observation {seat}: {json.dumps(state.observation(seat), sort_keys=True)}")
        out.append(f"legal ({len(moves)}): {' '.join(move_text(m) for m in moves)}")
        out.append(f"move: {move_text(choice)}")
        out.append("")
        state = state.apply(choice)
        step += 1
    out.append("## end")
    out.append(position_text(state))
    out.append(f"score: {state.score()}")
    out.append(f"breakdown: {json.dumps(state.breakdown(), sort_keys=True)}")
    return "\n".join(out) + "\n"


def path(preset: str) -> Path:
    return HERE / f"{preset}.txt"


if __name__ == "__main__":
    for preset in PRESETS:
        path(preset).write_text(render(preset))
        print(f"wrote {path(preset)}")
