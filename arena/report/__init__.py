"""Results in the browser: `arena serve` (a live, read-only server) and `arena report` (the same
pages as a static site that opens from disk).

`pages` builds each page's data as plain JSON-able dicts, from `arena.results` only; `frames`
turns a stored deal into the positions the replay viewer steps through (with the game's rules, through `games`);
`server` serves pages and data over HTTP on 127.0.0.1; `site` writes them to a folder. The
pages themselves are one static app in `static/` (HTML, CSS, JavaScript: no CDN, nothing to
fetch from outside), which builds every element with textContent, never from HTML strings.
May import: `arena.errors`, `arena.results` and `games`; nothing that plays.
"""
