"""Results: the database, the ratings computed from it, and replays of what it holds.

`schema` is the one module that knows the schema (and migrates it); `registry` stores bots;
`write` records tournaments, tables and ratings; `read` serves every listing; `export` writes
CSV and JSON; `compact` stores a deal as its seed and move indices; `sprt_tests` keeps SPRT
tests; `lock` is a tournament's run lock; `web_queries` serves the browser pages. `ratings` and `sprt` are pure statistics; `replay`
renders a stored deal.
May import: `arena.errors` and `games`; nothing that plays, so a reader of results never
starts a process.
"""
