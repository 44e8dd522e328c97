"""The research bridges' costs (games/pettingzoo.py, games/openspiel.py):

1. A PettingZoo step against the engine's own move: random legal play of whole boards, once
   through `games.pettingzoo.env` (per move `env.last()`, which builds the observation, its
   numeric encoding and action mask, then `env.step`) and once on the games interface alone
   (`state.legal_moves()`, `state.apply(move)`) with the same choices; time per move of each and
   their ratio (this process's CPU time, which other load on the machine disturbs less than
   wall time).
2. An OpenSpiel game in a tournament: `arena tournament run --game openspiel:hearts` (four random
   policy bots, `policy_kit`, in the sandbox; every board in four rooms), wall time per run and
   deals per second; beside it the same game's deals per second in-process, random moves on the
   games interface with no protocol and no bots.

Run by hand (never a timed test), from the repository's root:

    .venv/bin/python bench/research.py --boards 8 --sandbox fork

Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RANDOM_POLICY = '''import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from policy_kit import run


def policy(observation, action_mask):
    return random.choice([a for a, ok in enumerate(action_mask) if ok])  # copy {k}


run(policy, name="random-policy")
'''


def pettingzoo_ratio(name: str, players: int | None, boards: int) -> tuple[float, float, int]:
    """Microseconds per move through the PettingZoo env and on the interface, and moves timed."""
    import games
    from games import encoding, pettingzoo

    env = pettingzoo.env(name, players=players, seed=1)
    choices: list[int] = []
    rng = random.Random(3)
    env.reset(seed=1)
    t0 = time.process_time()
    for b in range(boards):
        if b:
            env.reset()
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            k = rng.randrange(int(obs["action_mask"].sum()))
            choices.append(k)
            env.step(k)
    env_s = time.process_time() - t0
    g = games.game(name)
    v = env.variant
    it = iter(choices)
    t0 = time.process_time()
    for b in range(boards):
        board = g.board(v, pettingzoo.board_seed(1, b), b % env.players, env.format)
        while not board.is_over:
            state = board.deal()
            while not state.is_over:
                moves, _ = state.legal_moves(encoding.LEGAL_CAP)  # as the arena lists them, and the env
                state = state.apply(moves[next(it)])
            board = board.after(state)
    engine_s = time.process_time() - t0
    n = len(choices)
    return env_s / n * 1e6, engine_s / n * 1e6, n


def inprocess_deals_per_s(name: str, deals: int) -> float:
    import games

    g = games.game(name)
    v = g.variant(None)
    rng = random.Random(5)
    t0 = time.perf_counter()
    for seed in range(deals):
        state = g.deal(v, seed, 0)
        while not state.is_over:
            moves, _ = state.legal_moves()
            state = state.apply(rng.choice(moves))
    return deals / (time.perf_counter() - t0)


def tournament_deals_per_s(name: str, boards: int, sandbox: str) -> tuple[float, float, int]:
    """Wall seconds and deals per second of one tournament of four random policy bots."""
    import games

    players = games.game(name).variant(None).players
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        bots = []
        for k in range(players):
            folder = Path(tmp) / f"p{k}"
            folder.mkdir()
            (folder / f"rand{k}.py").write_text(RANDOM_POLICY.format(k=k))
            bots.append(str(folder / f"rand{k}.py"))
        arena = Path(sys.executable).parent / "arena"
        t0 = time.perf_counter()
        subprocess.run([str(arena), "tournament", "run", "--game", name, "--bots", ",".join(bots), "--boards",
                        str(boards), "--seed", str(2**50 + 1), "--sandbox", sandbox, "--name", "bench",
                        "--db", str(Path(tmp) / "a.db")], check=True, capture_output=True, text=True, cwd=tmp)
        wall = time.perf_counter() - t0
    deals = boards * players  # one deal a board, a room per seat rotation
    return wall, deals / wall, deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=8, help="boards per tournament and per PettingZoo run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sandbox", default="fork", choices=["fork", "bwrap", "rlimit", "none"])
    parser.add_argument("--game", default="openspiel:hearts")
    args = parser.parse_args()
    print(f"machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; load {os.getloadavg()[0]:.1f}")
    for name, players in (("zwicker", None), ("zwicken", 4)):
        runs = [pettingzoo_ratio(name, players, args.boards) for _ in range(args.runs)]
        env_us = statistics.median(r[0] for r in runs)
        eng_us = statistics.median(r[1] for r in runs)
        print(f"pettingzoo {name}: {env_us:.0f} us a step, the interface {eng_us:.0f} us a move, ratio "
              f"{env_us / eng_us:.1f} (medians of {args.runs} runs, {runs[0][2]} moves each)")
    rate = statistics.median(inprocess_deals_per_s(args.game, 20) for _ in range(args.runs))
    print(f"{args.game} in-process, random moves, no bots: {rate:.1f} deals/s")
    for k in range(args.runs):
        wall, per_s, deals = tournament_deals_per_s(args.game, args.boards, args.sandbox)
        print(f"{args.game} tournament run {k + 1}: {deals} deals in {wall:.1f} s, {per_s:.2f} deals/s "
              f"(sandbox {args.sandbox}, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
