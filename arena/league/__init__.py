"""The league: a standing competition that authors submit bots to from their own machines.

`arena league serve` is one process that plays the ladder (`ladder`: duplicate matches among
the active bots, forever, paired by `pairing`) and serves its pages and JSON API (`server`,
Starlette on anyio's trio backend, served by Hypercorn). Authors hold tokens (`authors`: only
a hash is stored); a submission is an archive unpacked by the store's rules and checked in the
sandbox before anything is stored (`submissions`, `archive`); `store` owns the league's tables
(migration 0008 in arena.results.schema) and `pages` draws the league's and authors' pages.
`client` is the other end, for `arena submit`. docs/league.md says how to run one.
"""
