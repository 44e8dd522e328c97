"""Results in the browser: `arena serve` (a live, read-only server) and `arena report` (the same
pages as a static site that opens from disk).

`pages` builds each page's data as plain JSON-able dicts, from `arena.results` only; `frames`
turns a stored deal into the positions the replay viewer steps through (with the game's rules, through `games`);
`server` serves each page, its JSON and its server-sent events from one route on 127.0.0.1
(`views`: which of them a request asks for, and each game's viewer), and is the league's
server too (arena.league.server mounts its own routes in front of the views); `app` is what
the servers share (Starlette on trio, served by Hypercorn, behind a Host check); `site` writes
the pages to a folder. The
pages themselves are one static app in `static/` (HTML, CSS, JavaScript: no CDN, nothing to
fetch from outside), which builds every element with textContent, never from HTML strings.
May import: `arena.errors`, `arena.results` and `games`; nothing that plays.
"""
