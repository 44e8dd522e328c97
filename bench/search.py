"""Engine speed for search: what bots/zwicker/mc_bot.py spends its thinking time on.

Run by hand (never a timed test): `.venv/bin/python bench/search.py [--seconds S]`.

1. The positions mc meets: its rollouts, started from the kit's samples (View.sample) of the
   positions of seeded deals at each stage (first move, a quarter, half, three quarters in).
   Per move of a rollout: `legal_moves()` on a fresh state, and `apply` of a listed move,
   timed apart, in microseconds, with the mean number of legal moves.
2. Rollouts per second with mc's own rollout policy, from each stage; and the share of the
   time of 1's rollouts spent in the engine (legal_moves + apply), the rest being the policy
   and the samples.
3. Playouts per decision: what mc gets through in 100 and 250 ms from the deal's start.
Record the figures, with machine and date, in bench/README.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path[:0] = [str(ROOT / "bots" / "zwicker"), str(ROOT / "bots")]

from engine import zwicker  # noqa: E402
from botkit import View  # noqa: E402
from mc_bot import MCBot  # noqa: E402

STAGES = (0.0, 0.25, 0.5, 0.75)
DESCRIBED = zwicker.variant("jensen").describe()


def positions(stage: float, count: int) -> list[tuple[View, int]]:
    """(a seat's View, that seat) at `stage` of seeded random deals, seat to move."""
    out = []
    for seed in range(count):
        rng = random.Random(seed)
        state = start = zwicker.deal("jensen", seed=seed, dealer=seed % 4)
        for _ in range(int(stage * 52)):
            legal = state.legal_moves()
            state = state.apply(legal[rng.randrange(len(legal))])
        seat = state.to_move
        out.append((View(DESCRIBED, start.observation(seat), state.observation(seat)), seat))
    return out


def bot() -> MCBot:
    b = MCBot()
    b.variant, b.seat, b.side, b.time = DESCRIBED, 0, 0, {"move_ms": 1000}
    b.on_hello({})
    return b


def engine_per_move(stage: float, seconds: float) -> tuple[float, float, float, float, float]:
    """Mean us of legal_moves() (uncached) and of apply, the mean legal moves and the mean builds
    among them (which mc's rollout policy almost never plays), along rollouts."""
    mc = bot()
    rng = random.Random(1)
    views = positions(stage, 50)
    legal_t = apply_t = 0.0
    moves = calls = builds = 0
    began = time.perf_counter()
    end = began + seconds
    while time.perf_counter() < end:
        view, _ = views[calls % len(views)]
        state = view.sample(rng)
        while not state.is_over:
            t0 = time.perf_counter()
            legal = state.legal_moves()
            t1 = time.perf_counter()
            move = mc_policy_move(mc, state, legal, rng)
            t2 = time.perf_counter()
            state = state.apply(move)
            t3 = time.perf_counter()
            legal_t += t1 - t0
            apply_t += t3 - t2
            moves += len(legal)
            builds += sum(1 for m in legal if m.type == "build")
            calls += 1
    spent = time.perf_counter() - began  # with the policy and the samples: the engine's share
    return legal_t / calls * 1e6, apply_t / calls * 1e6, moves / calls, builds / calls, (legal_t + apply_t) / spent


def mc_policy_move(mc: MCBot, state, legal, rng):
    """One step of mc's rollout policy (the same code path as MCBot.rollout, one move)."""
    points, per_card = mc.points, mc.per_card
    best, best_value = None, -1.0
    for move in legal:
        if move.type != "capture":
            break
        value = points.get(move.card, 0) + per_card
        for i in move.take:
            for c in (state.table[i],) if type(state.table[i]) is str else state.table[i].cards:
                value += points.get(c, 0) + per_card
        if len(move.take) == len(state.table):
            value += mc.zwick
        if value > best_value:
            best, best_value = move, value
    if best is None or rng.random() > 0.9:
        trails = [m for m in legal if m.type == "trail"]
        best = min(trails, key=lambda m: (points.get(m.card, 0), rng.random())) if trails else legal[0]
    return best


def rollouts_per_second(stage: float, seconds: float) -> tuple[float, float]:
    """mc's rollouts (MCBot.rollout) per second from samples at `stage`, and mean moves each."""
    mc = bot()
    rng = random.Random(2)
    views = positions(stage, 50)
    done = moves = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        view, _ = views[done % len(views)]
        state = view.sample(rng)
        moves += 52 - len(state.history)
        mc.rollout(state, rng)
        done += 1
    return done / seconds, moves / done


def sample_cost(seconds: float) -> float:
    """Microseconds of one View.sample at mid-deal."""
    views = positions(0.5, 50)
    rng = random.Random(3)
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        views[n % len(views)][0].sample(rng)
        n += 1
    return (time.perf_counter() - start) / n * 1e6


def playouts(fraction: float, decisions: int = 20) -> float:
    """Median playouts per decision at the deal's first move with move_ms 1000 and `fraction`."""
    mc = MCBot(fraction=fraction)
    mc.variant, mc.seat, mc.side, mc.time = DESCRIBED, 0, 0, {"move_ms": 1000}
    mc.on_hello({})
    counts = []
    for seed in range(decisions):
        state = zwicker.deal("jensen", seed=seed, dealer=3)
        obs = state.observation(0)
        mc.deal_start = obs
        mc.choose(obs, [m.to_dict() for m in state.legal_moves()])
        counts.append(mc.playouts[-1])
    return statistics.median(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"View.sample at mid-deal: {sample_cost(args.seconds):.0f} us")
    print("stage | legal_moves us | apply us | legal moves | builds | rollouts/s | moves per rollout | engine share")
    for stage in STAGES:
        legal_us, apply_us, width, builds, share = engine_per_move(stage, args.seconds)
        rate, length = rollouts_per_second(stage, args.seconds)
        print(f"{stage:5.2f} | {legal_us:14.1f} | {apply_us:8.1f} | {width:11.1f} | {builds:6.1f} | {rate:10.0f} | "
              f"{length:17.1f} | {share:11.0%}")
    for fraction in (0.1, 0.25):
        print(f"mc playouts per decision at the first move, {fraction * 1000:.0f} ms: {playouts(fraction):.0f}")


if __name__ == "__main__":
    main()
