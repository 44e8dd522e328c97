#!/usr/bin/env python3
"""A trained policy as a bot: `train.py`'s linear policy, read from `weights.json` beside this
file, played by the policy kit unchanged (bots/README.md, "A trained policy as a bot").

It scores each legal move by its features (`features` below, the same function training used)
and plays the best; it needs neither numpy nor the trainer's packages, so it runs in every
sandbox. Register the folder: `arena bot add bots/policy --command policy_bot.py --name trained`.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # policy_kit and games, even under python -I and outside a sandbox

from games.encoding import hashed  # noqa: E402

FEATURES = 128  # hashed buckets a move is described by


def features(move):
    """A legal move as numbers: its plain data (type, card, what it takes), feature-hashed."""
    return hashed(move, FEATURES)


def scores(weights, legal):
    return [sum(w * x for w, x in zip(weights, features(m)) if x) for m in legal]


def load(path=os.path.join(HERE, "weights.json")):
    with open(path) as f:
        return json.load(f)["weights"]


def make_policy(weights):
    def policy(observation, action_mask):
        legal = observation["protocol"]["legal"]
        s = scores(weights, legal)
        return max(range(len(legal)), key=lambda k: (s[k], -k))
    return policy


if __name__ == "__main__":
    from policy_kit import run

    run(make_policy(load()), name="linear-policy")
