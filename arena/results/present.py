"""The standings document (`read.standings_document`) as the cells and lines a person reads: one
rendering, printed by `arena standings` and shown by the pages, so the two cannot disagree.

`table(doc)` gives the columns (a key, a heading, right-aligned or not), every row's cells as
text, and the lines under the table (`notes`). What the cells say:

- a bot with no boards has no rank, Elo, interval or LOS yet: `–`, listed last;
- a bot that won (lost) every board shows `> X` (`< X`), its one-sided 97.5% bound on the Elo
  scale (either way), not an interval; the anchor under `--errors anchor` shows `anchor` (it is 0 by definition);
- under `--errors pool` (the default) the interval is about the bot's place in the pool: the
  column shows the bot's Elo minus the pool's mean and the 95% interval of that difference,
  never an interval around the Elo on the anchor's scale (which reads as a test against the
  anchor, which it is not); under `--errors anchor` it is the Elo's interval, against the anchor;
- LOS with one decimal (99.6% is not 100%; a share just short of 100% reads "> 99.9%").
"""

from __future__ import annotations

from typing import Any

from arena.results.read import ISOLATING

NONE = "–"
WITHOUT_WHOLE_BOT_LIMITS = "without whole-bot limits"
"""What a stored sandbox label (arena.process.modes.label) says when a run had no writable cgroups."""
NOT_FROZEN = "not frozen off their turn"
"""What a stored sandbox label says when its bots could not be frozen while others moved."""
"""A cell with nothing in it yet (a bot that has not played)."""

COLUMNS = [("rank", "rank", True), ("bot", "bot", False), ("elo", "elo", True), ("interval", None, True),
           ("los", "LOS", True), ("boards", "boards", True), ("wins", "W", True), ("draws", "D", True),
           ("losses", "L", True), ("margin", "margin", True), ("faults", "faults", True), ("notes", "notes", False)]


def elo(x: float | None) -> str:
    return NONE if x is None else f"{x:+.0f}" if round(x) else "0"


def percent(p: float | None) -> str:
    """A share with one decimal; one that would round to 100.0% (0.0%) without being it, as
    "> 99.9%" ("< 0.1%")."""
    if p is None:
        return "-"
    if 0.9995 <= p < 1:
        return "> 99.9%"
    if 0 < p < 0.0005:
        return "< 0.1%"
    return f"{100 * p:.1f}%"


def interval_heading(doc: dict) -> str:
    return "vs pool mean, 95%" if doc["errors"] == "pool" else "95% interval"


def interval(r: dict, doc: dict) -> str:
    """The interval cell (see the module's docstring); `-` where resampling could not move the
    Elo (too few boards): that is not an interval."""
    if r["boards"] == 0 or r["elo"] is None:
        return NONE
    if r["more_than"] is not None:  # a bound on the Elo itself, whatever `errors` says
        return f"> {elo(r['more_than'])}"
    if r["less_than"] is not None:
        return f"< {elo(r['less_than'])}"
    shift = (doc.get("pool_mean") or 0.0) if doc["errors"] == "pool" else 0.0
    if doc["errors"] == "anchor" and (r["bot"] == doc.get("anchor") or r.get("anchor")):
        return "anchor"
    if r["ci_low"] is None or round(r["ci_low"]) == round(r["ci_high"]):
        return "-"
    span = f"{elo(r['ci_low'] - shift)} .. {elo(r['ci_high'] - shift)}"
    return f"{elo(r['elo'] - shift)} ({span})" if doc["errors"] == "pool" else span


def cells(r: dict, doc: dict) -> dict[str, str]:
    unplayed = r["boards"] == 0
    return {
        "rank": NONE if r["rank"] is None else str(r["rank"]), "bot": r["bot"], "elo": elo(r["elo"]),
        "interval": interval(r, doc), "los": NONE if unplayed else percent(r["los_next"]),
        "boards": str(r["boards"]), "wins": str(r["wins"]), "draws": str(r["draws"]), "losses": str(r["losses"]),
        "margin": NONE if unplayed else f"{r['avg_margin']:+.1f}",
        "faults": f"{r['faults']}{' !' if r['fault_flag'] else ''}",
        "notes": ", ".join(f for f in r["flags"] if f in ("anchor", "separated")),
    }


def _mean_text(doc: dict) -> str:
    return f"the mean of the largest group ({', '.join(doc['core'])})" if doc.get("core") else "the pool's mean"


def notes(doc: dict) -> list[str]:
    """The lines under the standings: what the numbers are, and what the boards cannot rate."""
    rows, anchor = doc["standings"], doc["anchor"]
    core = f"the mean of the largest group ({', '.join(doc['core'])})" if doc["core"] else "the mean"
    zero = f"0 = {anchor}" if anchor else f"0 = {core}"
    how = {"refit": " (each resample refitted)",
           "one-step": " (each resample one Newton step from the fit: a pool of this size)"}.get(
        doc.get("bootstrap_method") or "", "")
    lines = [f"Elo: penalised (MAP) Bradley-Terry over all boards, one virtual draw per bot against a 0-rated bot; {zero}."]
    if doc["errors"] == "pool":
        mean = doc.get("pool_mean")
        at = f" ({elo(mean)} on the Elo scale)" if mean is not None and anchor else ""
        lines.append(
            f"vs pool mean: a bot's Elo minus {_mean_text(doc)}{at} and its 95% interval, bootstrap over deals{how}: "
            f"its place in this pool, not a test against {anchor or 'any one bot'} (--errors anchor: intervals "
            "against the anchor).")
    else:
        against = f"{anchor}, the anchor, whose own uncertainty it carries" if anchor else "the mean (no anchor here)"
        lines.append(f"Interval: 95%, bootstrap over deals{how}, relative to {against} (--errors anchor).")
    lines.append("LOS: likelihood of superiority over the next bot down (the bootstrap's, never surer than the fit's "
                 "posterior).")
    if doc.get("entrants"):
        k, unit = doc["entrants"], doc.get("unit") or "points"
        others = "the other" if k == 2 else f"each of the other {k - 1}"
        lines.append(f"W D L: each board compares a bot with {others} at its table by the {unit} "
                     f"each won over the board's {k} rooms (each holding every side once); {unit}/board: a bot's "
                     f"{unit} per board over those rooms. The Elo weighs each comparison 1/{k - 1}: a board counts once.")
    if any(r["more_than"] is not None or r["less_than"] is not None for r in rows):
        lines.append("> X, < X: won (lost) every board, so only the prior sets its Elo: X is its one-sided 97.5% bound"
                     " on the Elo scale.")
    if any(r["boards"] == 0 for r in rows):
        lines.append(f"{NONE}: no boards yet, so no rank, Elo or interval.")
    if any(interval(r, doc) == "-" for r in rows):
        lines.append("- in the interval: no resample of the deals moved this Elo (too few deals, or its every "
                     "board alike), so there is no interval to give.")
    groups = " | ".join(", ".join(g) for g in doc["groups"])
    if "disconnected" in doc["pool_flags"]:
        lines.append(f"Disconnected: some bots never met, even through others ({groups}); only the prior places "
                     "these groups against each other.")
    elif "separated" in doc["pool_flags"]:
        lines.append(f"Separated: a group of bots won (or lost) every board against the rest ({groups}); only the "
                     "prior sets the gaps between groups (\"separated\": outside the largest group).")
    if doc.get("faults") is not None:
        lines.append(fault_line(doc["faults"]))
    if any(r["fault_flag"] for r in rows):
        lines.append("!: faulted in more than 10% of its tables.")
    for label in doc.get("sandbox_labels") or []:
        if WITHOUT_WHOLE_BOT_LIMITS in label:
            lines.append(f"sandbox {label.split(' (' + NOT_FROZEN)[0]}: each bot process had its own memory, process and CPU limits, but a bot "
                         "with all it started was not bounded as a whole.")
        if NOT_FROZEN in label:
            lines.append(f"sandbox {label.split(' (')[0]}: bots were {NOT_FROZEN} (arena.process.scheduler): a bot "
                         "could run, and think, while others moved.")
    iso = doc.get("isolation")
    if iso and iso["unisolated"]:
        modes = ", ".join(m for m in iso["sandboxes"] if m not in ISOLATING)
        who = "the bots of a table" if doc.get("entrants") else "partners"
        lines.append(f"not isolated: {iso['unisolated']} of {iso['tables']} tables ran in sandbox {modes}, "
                     f"where {who} can talk to each other: these results are not fair play.")
    return lines


def fault_line(faults: dict) -> str:
    """How many tables ended in a fault, and whose (`read.fault_tables`): said even when none did."""
    tables, faulted = faults["tables"], faults["faulted"]
    if not faulted:
        return f"Faults: none in {tables} table{'s' * (tables != 1)}."
    whose = ", ".join([f"{bot} {n}" for bot, n in faults["by_bot"].items()]
                      + ([f"the arena {faults['arena']}"] if faults.get("arena") else []))
    return f"Faults: {faulted} of {tables} tables ended in a fault ({100 * faulted / tables:.1f}%): {whose}."


def table(doc: dict) -> dict[str, Any]:
    """The standings as text: `columns` ({key, heading, right}), `rows` (each a dict of the
    columns' cells, with its bot_id), `notes`, and `errors` and `pool_mean` (for a chart)."""
    heading = {"interval": interval_heading(doc)}
    if doc.get("entrants"):  # one bot a seat: its result per board in the game's unit
        heading["margin"] = f"{doc.get('unit') or 'points'}/board"
    return {
        "errors": doc["errors"], "pool_mean": doc.get("pool_mean"),
        "columns": [{"key": k, "heading": heading.get(k, h), "right": right} for k, h, right in COLUMNS],
        "rows": [{"bot_id": r["bot_id"], **cells(r, doc)} for r in doc["standings"]],
        "notes": notes(doc),
    }
