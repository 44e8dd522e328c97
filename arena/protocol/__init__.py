"""The wire protocol between the arena and a bot (protocol.md is the specification).

`messages` holds the records and the bounded msgpack codec; `connection` is one bot's end of the
protocol, written against trio streams rather than a process.
May import: `arena.errors` and `games`; not `arena.process`, so that tests can run it over
in-memory streams.
"""
