#!/usr/bin/env python3
"""Train the linear policy `policy_bot.py` plays, on `games.pettingzoo` (extra `[pettingzoo]`).

REINFORCE in self-play: every seat samples its move from a softmax over the legal moves' scores
(`policy_bot.features` times the weights); at the end of each deal every seat's choices are
pushed towards what it did, in proportion to its deal result less the mean of the other seats'
(less a running baseline). Any learner would do; the point is the path from training to
`arena bot add` to a tournament:

    .venv/bin/python bots/policy/train.py --seconds 60            # writes bots/policy/weights.json
    .venv/bin/arena bot add bots/policy --command policy_bot.py --name trained
    .venv/bin/arena play bots/policy/policy_bot.py bots/zwicker/random_bot.py --boards 20
"""

import argparse
import json
import math
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(os.path.dirname(HERE))]  # policy_bot, and the repository's games

from policy_bot import FEATURES, features, scores  # noqa: E402


def train(game="zwicker", seconds=60.0, deals=None, seed=0, lr=0.02, out=os.path.join(HERE, "weights.json")):
    """Train for `seconds` of wall time, or for exactly `deals` deals where given (the same seed
    then gives the same weights); write them to `out`. Returns the number of deals played."""
    from games import pettingzoo

    env = pettingzoo.env(game, seed=seed)
    rng = random.Random(seed)
    weights = [0.0] * FEATURES
    baseline = 0.0
    played = 0
    stop = time.monotonic() + seconds
    env.reset(seed=seed)
    while (played < deals) if deals is not None else (time.monotonic() < stop):
        trail = {a: [] for a in env.possible_agents}  # (features of each legal move, chosen index)
        paid = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            paid[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["protocol"]["legal"][:pettingzoo.MAX_ACTIONS]
            s = scores(weights, legal)
            top = max(s)
            p = [math.exp(x - top) for x in s]
            k = rng.choices(range(len(legal)), p)[0]
            trail[agent].append(([features(m) for m in legal], [x / sum(p) for x in p], k))
            env.step(k)
        played += 1
        for agent, steps in trail.items():
            others = [paid[a] for a in paid if a != agent]
            advantage = paid[agent] - sum(others) / len(others) - baseline
            baseline += 0.01 * (paid[agent] - sum(others) / len(others) - baseline)
            for phis, probs, k in steps:
                for i in range(FEATURES):
                    mean = sum(pr * phi[i] for pr, phi in zip(probs, phis))
                    weights[i] += lr * advantage * (phis[k][i] - mean)
        env.reset()
    with open(out, "w") as f:
        json.dump({"game": game, "deals": played, "seed": seed, "weights": weights}, f)
    return played


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="zwicker")
    ap.add_argument("--seconds", type=float, default=60.0, help="wall time to train (default 60)")
    ap.add_argument("--deals", type=int, help="train for exactly this many deals instead")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(HERE, "weights.json"))
    args = ap.parse_args()
    n = train(args.game, args.seconds, args.deals, args.seed, out=args.out)
    print(f"trained on {n} deals of {args.game}: {args.out}")


if __name__ == "__main__":
    main()
