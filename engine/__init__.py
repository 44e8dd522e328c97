"""The rules of the bundled games, one package each, laid out alike (`engine.zwicker`,
`engine.zwicken`: the same module names and entry points), over what every game shares: the
errors (`engine.errors`) and the seeds and shuffle (`engine.seeds`). Pure, synchronous, no I/O,
no global randomness; the arena reaches them only through `games/`.

    >>> from engine import zwicker
    >>> s = zwicker.deal("jensen", seed=7, dealer=0)
"""
