"""Tournaments: the schedule, its rooms spread over arena processes, stored as they finish.

`schedule` says which matches and rooms a tournament plays; `runner` prepares and runs a stored
tournament (resuming what is missing) and `shard` is the arena process per further core;
`sprt` plays a one-match tournament a batch at a time until a sequential test decides; `swiss`
draws Swiss rounds from the stored results; `cluster` plays rooms as Dask tasks (optional);
`commands` says how a stored bot is run, here or on a worker.
This layer drives the ones below it: it plays rooms (`arena.play`) and writes their results
(`arena.results`).
May import: `arena.play`, `arena.results`, `arena.process`, `arena.protocol`, `arena.errors`,
`games`.
"""
