"""The arena's SQLite schema: the one module that knows it, creates it and migrates it.

The schema is created and migrated on open (ordered migrations recorded by sqlite-utils'
`Migrations` in `_sqlite_migrations`, set "zwicker-arena"); WAL is switched on once, when the file
is created. `registry`, `write`, `read`, `export` and `sprt_tests` beside this module use the
tables it defines; nothing else in the arena touches SQL.

Choices:
- Seeds are stored as decimal TEXT: they range up to 2**64, beyond SQLite's signed INTEGER.
- `synchronous=NORMAL` with WAL: a commit survives the arena being killed (the resume case);
  only a power cut can lose the last commits, and then whole tables at once, never half of one.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils.migrations import Migrations

import games
from arena.errors import ArenaError

DEFAULT_DB = Path("results") / "arena.db"
MIGRATION_SET = "zwicker-arena"
STATUSES = ("created", "running", "interrupted", "finished", "failed")
PARTNERS = ("clone", "mixed")
BUSY_TIMEOUT_MS = 30_000
BT_METHOD = "bradley-terry-map"
ERRORS = ("pool", "anchor")
_SQLITE_MAGIC = b"SQLite format 3\x00"
_BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_IGNORED = ("__pycache__", ".git", ".pytest_cache", ".mypy_cache", ".DS_Store")


class TableAlreadyRecorded(ArenaError):
    """The same (match, board, swapped) table was recorded twice; the first write stands."""


# --------------------------------------------------------------------------------------------
# Schema

migrations = Migrations(MIGRATION_SET)


@migrations(name="0001_initial")
def _m0001_initial(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE bots (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,          -- 1, 2, ... per name; new content, new version
            command TEXT,                      -- how to run it; NULL: the runner decides by path
            path TEXT NOT NULL,                -- the stored copy (relative to the db's folder)
            kind TEXT NOT NULL CHECK (kind IN ('file', 'folder')),
            source TEXT NOT NULL,              -- where it was added from
            sha256 TEXT NOT NULL,
            added TEXT NOT NULL,
            UNIQUE (name, version),
            UNIQUE (name, sha256)
        );
        CREATE TABLE tournaments (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            seed TEXT NOT NULL,                -- master seed, decimal (up to 2**64 - 1)
            variant TEXT NOT NULL,             -- JSON: preset and every option
            format TEXT NOT NULL CHECK (format IN ('deal', 'game')),
            partners TEXT NOT NULL CHECK (partners IN ('clone', 'mixed')),
            boards INTEGER NOT NULL,           -- boards per match
            settings TEXT NOT NULL,            -- JSON: time limits, concurrency, gauntlet, ...
            status TEXT NOT NULL,
            created TEXT NOT NULL,
            started TEXT,
            finished TEXT
        );
        CREATE TABLE tournament_bots (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            PRIMARY KEY (tournament_id, bot_id)
        );
        CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            match_no INTEGER NOT NULL,
            a0 INTEGER NOT NULL REFERENCES bots(id),   -- team A, its two seats
            a1 INTEGER NOT NULL REFERENCES bots(id),
            b0 INTEGER NOT NULL REFERENCES bots(id),   -- team B
            b1 INTEGER NOT NULL REFERENCES bots(id),
            UNIQUE (tournament_id, match_no)
        );
        CREATE TABLE boards (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(id),
            board_no INTEGER NOT NULL,
            seed TEXT NOT NULL,
            margin INTEGER NOT NULL,           -- team A's points minus team B's, both tables
            outcome TEXT NOT NULL CHECK (outcome IN ('win', 'draw', 'loss')),  -- for team A
            completed TEXT NOT NULL,
            UNIQUE (match_id, board_no)
        );
        CREATE TABLE tables (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(id),
            board_no INTEGER NOT NULL,
            swapped INTEGER NOT NULL CHECK (swapped IN (0, 1)),  -- 1: team A holds side 1
            board_seed TEXT NOT NULL,
            points0 INTEGER NOT NULL,          -- side 0, forfeit applied
            points1 INTEGER NOT NULL,
            forfeit TEXT,                      -- JSON {side, seat, status, detail} or NULL
            started TEXT NOT NULL,
            duration_s REAL NOT NULL,
            UNIQUE (match_id, board_no, swapped)
        );
        CREATE TABLE seats (
            id INTEGER PRIMARY KEY,
            table_id INTEGER NOT NULL REFERENCES tables(id),
            seat INTEGER NOT NULL,
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            name TEXT,                         -- as the bot announced itself in the handshake
            version TEXT,
            status TEXT NOT NULL,              -- ok, timeout, crash, illegal_move, protocol_error
            detail TEXT NOT NULL DEFAULT '',
            stderr TEXT NOT NULL DEFAULT '',   -- the tail only
            moves INTEGER NOT NULL DEFAULT 0,
            think_ms_total REAL NOT NULL DEFAULT 0,
            think_ms_max REAL NOT NULL DEFAULT 0,
            UNIQUE (table_id, seat)
        );
        CREATE INDEX seats_bot ON seats (bot_id);
        CREATE TABLE deals (
            id INTEGER PRIMARY KEY,
            table_id INTEGER NOT NULL REFERENCES tables(id),
            number INTEGER NOT NULL,
            seed TEXT NOT NULL,
            dealer INTEGER NOT NULL,
            points TEXT NOT NULL,              -- JSON, per side
            breakdown TEXT NOT NULL,           -- JSON, per side
            moves TEXT NOT NULL,               -- JSON [{"seat", "move", "ms"}], enough to replay
            complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
            UNIQUE (table_id, number)
        );
        CREATE TABLE ratings (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            method TEXT NOT NULL,
            elo REAL NOT NULL,
            ci_low REAL,
            ci_high REAL,
            los_next REAL,                     -- P(stronger than the next one down the table)
            boards INTEGER NOT NULL,           -- boards of the tournament the rating saw
            params TEXT NOT NULL,              -- JSON: k, bootstrap, seed, prior, anchor
            computed TEXT NOT NULL,
            PRIMARY KEY (tournament_id, method, bot_id)
        );
        CREATE TABLE rating_history (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            seq INTEGER NOT NULL,              -- 1-based position of the board, canonical order
            board_id INTEGER NOT NULL REFERENCES boards(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            elo REAL NOT NULL,
            PRIMARY KEY (tournament_id, seq, bot_id)
        );
        """
    )


@migrations(name="0002_table_sandbox")
def _m0002_table_sandbox(db: sqlite_utils.Database) -> None:
    """Each table records the sandbox it was played in: rlimit and none do not isolate partners
    (docs/hostile.md), and the standings say so. NULL: a table stored before this column."""
    db.execute("ALTER TABLE tables ADD COLUMN sandbox TEXT")


@migrations(name="0003_ratings_flags_progression")
def _m0003_ratings_flags_progression(db: sqlite_utils.Database) -> None:
    """Ratings that say what they know (issue 18): a row per interval kind (`errors`: against
    the pool or the anchor) with the record's flags and one-sided bounds; the sequential Elo
    (order-dependent, off the headline's scale) gives way to the headline fit's progression.
    The stored ratings are derived data computed the old way (boards resampled per pairing,
    no flags), so they are dropped, not converted: `standings` computes them until the
    tournament is rated again (`arena tournament run --resume NAME` rates a finished one)."""
    db.executescript(
        """
        DROP TABLE ratings;
        CREATE TABLE ratings (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            method TEXT NOT NULL,              -- bradley-terry-map
            errors TEXT NOT NULL CHECK (errors IN ('pool', 'anchor')),  -- what the interval is relative to
            elo REAL NOT NULL,
            ci_low REAL,                       -- 95% bootstrap interval (over deals)
            ci_high REAL,
            los_next REAL,                     -- P(stronger than the next one down the table)
            flags TEXT NOT NULL DEFAULT '[]',  -- JSON: anchor, perfect, zero, separated
            more_than REAL,                    -- a perfect record: the one-sided 97.5% lower bound
            less_than REAL,                    -- a zero record: the upper bound
            boards INTEGER NOT NULL,           -- boards of the tournament the rating saw
            params TEXT NOT NULL,              -- JSON: bootstrap, seed, anchor, prior, resampling, pool flags, core
            computed TEXT NOT NULL,
            PRIMARY KEY (tournament_id, method, errors, bot_id)
        );
        DROP TABLE rating_history;
        CREATE TABLE rating_progression (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            point INTEGER NOT NULL,            -- 1, 2, ...: the headline fit on a growing prefix of deals
            boards INTEGER NOT NULL,           -- boards in that prefix
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            elo REAL NOT NULL,
            PRIMARY KEY (tournament_id, point, bot_id)
        );
        """
    )


@migrations(name="0004_sprt_tests")
def _m0004_sprt_tests(db: sqlite_utils.Database) -> None:
    """Sequential tests of NEW against OLD (`arena sprt`): a test plays one match of a tournament
    of its own, NEW as team A, and keeps its parameters and where it stands here; its boards are
    the match's, so a resumed test recounts them from the stored tables."""
    db.executescript(
        """
        CREATE TABLE sprt_tests (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL UNIQUE REFERENCES tournaments(id),
            new_bot INTEGER NOT NULL REFERENCES bots(id),   -- team A
            old_bot INTEGER NOT NULL REFERENCES bots(id),   -- team B (may be NEW itself)
            elo0 REAL NOT NULL,                -- H0: NEW is elo0 better per room (logistic Elo)
            elo1 REAL NOT NULL,                -- H1: elo1 better
            alpha REAL NOT NULL,               -- P(accept H1 | H0)
            beta REAL NOT NULL,                -- P(accept H0 | H1)
            max_boards INTEGER,                -- NULL: no limit
            batch INTEGER NOT NULL,            -- boards played per round of the two rooms
            verdict TEXT CHECK (verdict IN ('H0', 'H1', 'limit')),  -- NULL: still running
            boards INTEGER NOT NULL DEFAULT 0, -- boards the test counted (the decision's board, at most)
            counts TEXT NOT NULL DEFAULT '[0,0,0,0,0]',  -- JSON: boards scoring 0, 0.5, 1, 1.5, 2
            llr REAL NOT NULL DEFAULT 0,
            created TEXT NOT NULL,
            finished TEXT
        );
        """
    )


@migrations(name="0005_bot_state")
def _m0005_bot_state(db: sqlite_utils.Database) -> None:
    """Bots can be disabled (left out of --all) and removed (their stored copy deleted, the
    row kept while results name it)."""
    db.execute("ALTER TABLE bots ADD COLUMN disabled TEXT")  # when it was disabled; NULL: enabled
    db.execute("ALTER TABLE bots ADD COLUMN removed TEXT")  # when its copy was removed; NULL: stored


RENAMES = (
    ("TABLE", "tables", None, "board_tables"),
    ("COLUMN", "tournaments", "boards", "boards_per_match"),
    ("COLUMN", "matches", "a0", "team_a_bot1_id"),
    ("COLUMN", "matches", "a1", "team_a_bot2_id"),
    ("COLUMN", "matches", "b0", "team_b_bot1_id"),
    ("COLUMN", "matches", "b1", "team_b_bot2_id"),
    ("COLUMN", "boards", "margin", "team_a_margin"),
    ("COLUMN", "boards", "outcome", "team_a_outcome"),
    ("COLUMN", "board_tables", "points0", "side0_points"),
    ("COLUMN", "board_tables", "points1", "side1_points"),
    ("COLUMN", "seats", "name", "announced_name"),
    ("COLUMN", "seats", "version", "announced_version"),
    ("COLUMN", "seats", "stderr", "stderr_tail"),
    ("COLUMN", "deals", "number", "deal_no"),
)
"""Migration 0006's renames: (what, table, old column, new name); docs/database.md lists them."""

VIEWS = {
    "bot_boards": """
        SELECT m.tournament_id, b.id AS board_id, x.bot_id, 'A' AS team,
               b.team_a_margin AS margin, b.team_a_outcome AS outcome
        FROM boards b JOIN matches m ON m.id = b.match_id
        JOIN (SELECT id, team_a_bot1_id AS bot_id FROM matches
              UNION SELECT id, team_a_bot2_id FROM matches) x ON x.id = m.id
        UNION ALL
        SELECT m.tournament_id, b.id, x.bot_id, 'B', -b.team_a_margin,
               CASE b.team_a_outcome WHEN 'win' THEN 'loss' WHEN 'loss' THEN 'win' ELSE 'draw' END
        FROM boards b JOIN matches m ON m.id = b.match_id
        JOIN (SELECT id, team_b_bot1_id AS bot_id FROM matches
              UNION SELECT id, team_b_bot2_id FROM matches) x ON x.id = m.id""",
    "standings": """
        SELECT t.name AS tournament, bt.name || '@' || bt.version AS bot,
               ROUND(r.elo, 1) AS elo, ROUND(r.ci_low, 1) AS elo_low_95, ROUND(r.ci_high, 1) AS elo_high_95,
               ROUND(r.los_next, 3) AS los_next, COALESCE(s.boards, 0) AS boards, COALESCE(s.wins, 0) AS wins,
               COALESCE(s.draws, 0) AS draws, COALESCE(s.losses, 0) AS losses, s.avg_margin,
               (SELECT COUNT(DISTINCT st.table_id) FROM seats st JOIN board_tables x ON x.id = st.table_id
                JOIN matches m ON m.id = x.match_id
                WHERE m.tournament_id = tb.tournament_id AND st.bot_id = tb.bot_id AND st.status != 'ok')
               AS faulted_tables,
               tb.tournament_id, tb.bot_id
        FROM tournament_bots tb JOIN tournaments t ON t.id = tb.tournament_id JOIN bots bt ON bt.id = tb.bot_id
        LEFT JOIN ratings r ON r.tournament_id = tb.tournament_id AND r.bot_id = tb.bot_id
                            AND r.method = 'bradley-terry-map' AND r.errors = 'pool'
        LEFT JOIN (SELECT tournament_id, bot_id, COUNT(*) AS boards, SUM(outcome = 'win') AS wins,
                          SUM(outcome = 'draw') AS draws, SUM(outcome = 'loss') AS losses,
                          ROUND(AVG(margin), 1) AS avg_margin
                   FROM bot_boards GROUP BY tournament_id, bot_id) s
               ON s.tournament_id = tb.tournament_id AND s.bot_id = tb.bot_id
        ORDER BY tb.tournament_id, r.elo DESC""",
    "crosstable": """
        SELECT t.name AS tournament, x.name || '@' || x.version AS bot, y.name || '@' || y.version AS opponent,
               COUNT(*) AS boards, SUM(p.outcome = 'win') AS wins, SUM(p.outcome = 'draw') AS draws,
               SUM(p.outcome = 'loss') AS losses,
               SUM(CASE p.outcome WHEN 'win' THEN 1.0 WHEN 'draw' THEN 0.5 ELSE 0.0 END) AS score,
               SUM(p.margin) AS margin, p.tournament_id, p.bot_id, q.bot_id AS opponent_id
        FROM bot_boards p JOIN bot_boards q ON q.board_id = p.board_id AND q.team != p.team
        JOIN tournaments t ON t.id = p.tournament_id JOIN bots x ON x.id = p.bot_id JOIN bots y ON y.id = q.bot_id
        GROUP BY p.tournament_id, p.bot_id, q.bot_id""",
    "board_results": """
        SELECT t.name AS tournament, m.match_no, b.board_no, b.seed,
               a1.name || '@' || a1.version || CASE WHEN m.team_a_bot2_id != m.team_a_bot1_id
                   THEN '+' || a2.name || '@' || a2.version ELSE '' END AS team_a,
               b1.name || '@' || b1.version || CASE WHEN m.team_b_bot2_id != m.team_b_bot1_id
                   THEN '+' || b2.name || '@' || b2.version ELSE '' END AS team_b,
               b.team_a_margin, b.team_a_outcome,
               (SELECT COUNT(*) FROM seats s JOIN board_tables x ON x.id = s.table_id
                WHERE x.match_id = m.id AND x.board_no = b.board_no AND s.status != 'ok') AS faults,
               b.completed, b.id AS board_id, m.id AS match_id, m.tournament_id
        FROM boards b JOIN matches m ON m.id = b.match_id JOIN tournaments t ON t.id = m.tournament_id
        JOIN bots a1 ON a1.id = m.team_a_bot1_id JOIN bots a2 ON a2.id = m.team_a_bot2_id
        JOIN bots b1 ON b1.id = m.team_b_bot1_id JOIN bots b2 ON b2.id = m.team_b_bot2_id
        ORDER BY m.tournament_id, m.match_no, b.board_no""",
}
"""Migration 0006's views, for reading the results in Datasette or sqlite3 (bots as name@version)."""


@migrations(name="0006_readable_names")
def _m0006_readable_names(db: sqlite_utils.Database) -> None:
    """Names that read without the source at hand (in Datasette): no table called `tables`,
    no columns a0..b1; and views for the standings, the crosstable and each board's result."""
    for what, table, old, new in RENAMES:
        if what == "TABLE":
            db.execute(f"ALTER TABLE {table} RENAME TO {new}")
        else:
            db.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")
    for name, sql in VIEWS.items():
        db.execute(f"CREATE VIEW {name} AS {sql}")


@migrations(name="0007_compact_deals")
def _m0007_compact_deals(db: sqlite_utils.Database) -> None:
    """Deals as seed plus move indices and think times (arena.results.compact owns the SQL)."""
    from arena.results import compact

    compact.migrate(db)


@migrations(name="0008_tournament_game")
def _m0008_tournament_game(db: sqlite_utils.Database) -> None:
    """The game each tournament plays, by its registry name (`games.game(name)`); every
    tournament stored before there were games played Zwicker."""
    db.execute(f"ALTER TABLE tournaments ADD COLUMN game TEXT NOT NULL DEFAULT '{games.ORIGINAL}'")


@migrations(name="0009_league")
def _m0009_league(db: sqlite_utils.Database) -> None:
    """The league (arena.league, docs/league.md): authors with a hash of their token, which
    author owns each bot name (and whether it is retired), and each submitted version's check.
    The ladder itself is a tournament (settings["league"]) whose matches are added as it plays."""
    db.executescript(
        """
        CREATE TABLE league_authors (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_sha256 TEXT NOT NULL,        -- hex sha256 of the whole token; the token is never stored
            created TEXT NOT NULL,
            revoked TEXT                       -- when; NULL: the token works
        );
        CREATE TABLE league_bots (
            name TEXT PRIMARY KEY,             -- bots.name: the author who first submitted it owns it
            author_id INTEGER NOT NULL REFERENCES league_authors(id),
            created TEXT NOT NULL,
            retired TEXT                       -- when its author retired it; NULL: on the ladder
        );
        CREATE TABLE league_versions (
            bot_id INTEGER PRIMARY KEY REFERENCES bots(id),
            author_id INTEGER NOT NULL REFERENCES league_authors(id),
            submitted TEXT NOT NULL,
            check_report TEXT NOT NULL,        -- JSON: the check's verdict, tables and reply times
            check_text TEXT NOT NULL           -- what `arena bot check` prints, the bot's stderr included
        );
        """
    )


GROUP_VIEWS = {
    "bot_boards": """
        SELECT m.tournament_id, b.id AS board_id, x.bot_id, 'A' AS team,
               b.team_a_margin AS margin, b.team_a_outcome AS outcome
        FROM boards b JOIN matches m ON m.id = b.match_id
        JOIN (SELECT id, team_a_bot1_id AS bot_id FROM matches
              UNION SELECT id, team_a_bot2_id FROM matches) x ON x.id = m.id
        WHERE m.id NOT IN (SELECT match_id FROM match_entrants)
        UNION ALL
        SELECT m.tournament_id, b.id, x.bot_id, 'B', -b.team_a_margin,
               CASE b.team_a_outcome WHEN 'win' THEN 'loss' WHEN 'loss' THEN 'win' ELSE 'draw' END
        FROM boards b JOIN matches m ON m.id = b.match_id
        JOIN (SELECT id, team_b_bot1_id AS bot_id FROM matches
              UNION SELECT id, team_b_bot2_id FROM matches) x ON x.id = m.id
        WHERE m.id NOT IN (SELECT match_id FROM match_entrants)
        UNION ALL
        SELECT m.tournament_id, b.id, e.bot_id, CAST(e.entrant AS TEXT), e.result,
               CASE WHEN e.score * 2 > (SELECT COUNT(*) - 1 FROM match_entrants k WHERE k.match_id = m.id) THEN 'win'
                    WHEN e.score * 2 < (SELECT COUNT(*) - 1 FROM match_entrants k WHERE k.match_id = m.id) THEN 'loss'
                    ELSE 'draw' END
        FROM board_entrants e JOIN boards b ON b.id = e.board_id JOIN matches m ON m.id = b.match_id""",
    "standings": """
        SELECT t.name AS tournament, bt.name || '@' || bt.version AS bot,
               ROUND(r.elo, 1) AS elo, ROUND(r.ci_low, 1) AS elo_low_95, ROUND(r.ci_high, 1) AS elo_high_95,
               ROUND(r.los_next, 3) AS los_next, COALESCE(s.boards, 0) AS boards,
               COALESCE(pr.wins, s.wins, 0) AS wins, COALESCE(pr.draws, s.draws, 0) AS draws,
               COALESCE(pr.losses, s.losses, 0) AS losses, s.avg_margin,
               (SELECT COUNT(DISTINCT st.table_id) FROM seats st JOIN board_tables x ON x.id = st.table_id
                JOIN matches m ON m.id = x.match_id
                WHERE m.tournament_id = tb.tournament_id AND st.bot_id = tb.bot_id AND st.status != 'ok')
               AS faulted_tables,
               tb.tournament_id, tb.bot_id
        FROM tournament_bots tb JOIN tournaments t ON t.id = tb.tournament_id JOIN bots bt ON bt.id = tb.bot_id
        LEFT JOIN ratings r ON r.tournament_id = tb.tournament_id AND r.bot_id = tb.bot_id
                            AND r.method = 'bradley-terry-map' AND r.errors = 'pool'
        LEFT JOIN (SELECT tournament_id, bot_id, COUNT(DISTINCT board_id) AS boards, SUM(outcome = 'win') AS wins,
                          SUM(outcome = 'draw') AS draws, SUM(outcome = 'loss') AS losses,
                          ROUND(SUM(margin) * 1.0 / COUNT(DISTINCT board_id), 1) AS avg_margin
                   FROM bot_boards GROUP BY tournament_id, bot_id) s
               ON s.tournament_id = tb.tournament_id AND s.bot_id = tb.bot_id
        LEFT JOIN (SELECT m.tournament_id, p.bot_id, SUM(p.result > q.result) AS wins,
                          SUM(p.result = q.result) AS draws, SUM(p.result < q.result) AS losses
                   FROM board_entrants p JOIN board_entrants q ON q.board_id = p.board_id AND q.entrant != p.entrant
                        AND q.bot_id != p.bot_id
                   JOIN boards b ON b.id = p.board_id JOIN matches m ON m.id = b.match_id
                   GROUP BY m.tournament_id, p.bot_id) pr
               ON pr.tournament_id = tb.tournament_id AND pr.bot_id = tb.bot_id
        ORDER BY tb.tournament_id, r.elo DESC""",
    "crosstable": """
        SELECT t.name AS tournament, x.name || '@' || x.version AS bot, y.name || '@' || y.version AS opponent,
               COUNT(*) AS boards, SUM(p.margin > q.margin) AS wins, SUM(p.margin = q.margin) AS draws,
               SUM(p.margin < q.margin) AS losses,
               SUM(CASE WHEN p.margin > q.margin THEN 1.0 WHEN p.margin = q.margin THEN 0.5 ELSE 0.0 END) AS score,
               SUM(CASE WHEN p.team IN ('A', 'B') THEN p.margin ELSE p.margin - q.margin END) AS margin,
               p.tournament_id, p.bot_id, q.bot_id AS opponent_id
        FROM bot_boards p JOIN bot_boards q ON q.board_id = p.board_id AND q.team != p.team
        JOIN tournaments t ON t.id = p.tournament_id JOIN bots x ON x.id = p.bot_id JOIN bots y ON y.id = q.bot_id
        GROUP BY p.tournament_id, p.bot_id, q.bot_id""",
}
"""Migration 0010's views: `bot_boards` with a row per entrant of a match of k entrants (its
result over the board's rooms, and win/loss where it beat more/fewer than half the others), and
`crosstable` by each pair's margins, which for two teams is the board's outcome as before (for
two entrants: the W/D/L and the margin of their results, as `arena crosstable` gives them), and
`standings` with an entrant's W/D/L counted per comparison with each other bot at its table and
its margin per board, as `arena standings` counts them."""


@migrations(name="0010_rooms_and_entrants")
def _m0010_rooms_and_entrants(db: sqlite_utils.Database) -> None:
    """Boards of the "session" format (Zwicken's: a session of deals to its close-out), and
    matches of k entrants, one per side (a game without partnerships: Zwicken), played in k
    rooms, room r rotating the entrants by r sides (arena.play.match.rotation): `swapped` is now
    the room (for two sides, 1 as before: team A holds side 1), each table keeps every side's
    points, and a match's entrants and each board's result per entrant have tables of their own.
    Such a match's team columns name entrants 0 and 1 (team A and B of a two-sided one)."""
    for name in VIEWS:
        db.execute(f"DROP VIEW IF EXISTS {name}")
    (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tournaments'").fetchone()
    widened = re.sub(r"CHECK \(format IN \([^)]*\)\)", "CHECK (format IN ('deal', 'game', 'session'))", sql)
    columns = ", ".join(r[1] for r in db.execute("PRAGMA table_info(tournaments)"))
    db.execute(re.sub(r'^CREATE TABLE "?tournaments"?', "CREATE TABLE tournaments_new", widened))
    db.execute(f"INSERT INTO tournaments_new ({columns}) SELECT {columns} FROM tournaments")
    db.execute("DROP TABLE tournaments")
    db.execute("ALTER TABLE tournaments_new RENAME TO tournaments")
    db.executescript(
        """
        CREATE TABLE board_tables_new (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(id),
            board_no INTEGER NOT NULL,
            swapped INTEGER NOT NULL CHECK (swapped >= 0),  -- the room: 0, or the entrants rotated by this many sides
            board_seed TEXT NOT NULL,
            side0_points INTEGER NOT NULL,     -- side 0, forfeit applied
            side1_points INTEGER NOT NULL,
            forfeit TEXT,                      -- JSON {side, seat, status, detail} or NULL
            started TEXT NOT NULL,
            duration_s REAL NOT NULL,
            sandbox TEXT,
            side_points TEXT,                  -- JSON, every side's points (NULL: two sides, stored before)
            UNIQUE (match_id, board_no, swapped)
        );
        INSERT INTO board_tables_new (id, match_id, board_no, swapped, board_seed, side0_points, side1_points,
                                      forfeit, started, duration_s, sandbox)
            SELECT id, match_id, board_no, swapped, board_seed, side0_points, side1_points, forfeit, started,
                   duration_s, sandbox FROM board_tables;
        DROP TABLE board_tables;
        ALTER TABLE board_tables_new RENAME TO board_tables;
        CREATE TABLE match_entrants (
            match_id INTEGER NOT NULL REFERENCES matches(id),
            entrant INTEGER NOT NULL,          -- 0..k-1: in room r it holds side (entrant + r) mod k
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            PRIMARY KEY (match_id, entrant)
        );
        CREATE TABLE board_entrants (
            board_id INTEGER NOT NULL REFERENCES boards(id),
            entrant INTEGER NOT NULL,
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            result INTEGER NOT NULL,           -- its sides' results over the board's rooms, in the game's unit
            score REAL NOT NULL,               -- the others it beat on that result, draws half (0 .. k-1)
            PRIMARY KEY (board_id, entrant)
        );
        """
    )
    for name, sql in {**VIEWS, **GROUP_VIEWS}.items():
        db.execute(f"CREATE VIEW {name} AS {sql}")
    if db.execute("PRAGMA foreign_key_check").fetchone() is not None:
        raise sqlite3.IntegrityError("FOREIGN KEY constraint failed after rebuilding tournaments and board_tables")


@migrations(name="0011_deal_carry")
def _m0011_deal_carry(db: sqlite_utils.Database) -> None:
    """What a deal's board carried into it (`games.api.Game.deal`'s carry: for Zwicken the pot,
    balances, deal and attempt numbers), so that a deal after a session's first replays from
    where it began; NULL: nothing (a Zwicker deal, or a session's first)."""
    db.execute("ALTER TABLE deals ADD COLUMN carry TEXT")


@migrations(name="0012_formats_from_games")
def _m0012_formats_from_games(db: sqlite_utils.Database) -> None:
    """A board's format is whichever its game names (`games.api.Info.formats`, checked when a
    tournament is stored), not a fixed list: the CHECK on tournaments.format goes."""
    for name in {**VIEWS, **GROUP_VIEWS}:
        db.execute(f"DROP VIEW IF EXISTS {name}")
    (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tournaments'").fetchone()
    freed = re.sub(r"format TEXT NOT NULL CHECK \(format IN \([^)]*\)\)", "format TEXT NOT NULL", sql)
    columns = ", ".join(r[1] for r in db.execute("PRAGMA table_info(tournaments)"))
    db.execute(re.sub(r'^CREATE TABLE "?tournaments"?', "CREATE TABLE tournaments_new", freed))
    db.execute(f"INSERT INTO tournaments_new ({columns}) SELECT {columns} FROM tournaments")
    db.execute("DROP TABLE tournaments")
    db.execute("ALTER TABLE tournaments_new RENAME TO tournaments")
    for name, view in {**VIEWS, **GROUP_VIEWS}.items():
        db.execute(f"CREATE VIEW {name} AS {view}")
    if db.execute("PRAGMA foreign_key_check").fetchone() is not None:
        raise sqlite3.IntegrityError("FOREIGN KEY constraint failed after rebuilding tournaments")


@migrations(name="0013_sprt_faults")
def _m0013_sprt_faults(db: sqlite_utils.Database) -> None:
    """An SPRT test may stop for faults: `max_faults`, the share of its tables that may end in a
    fault before it stops without a verdict (NULL: never; tests stored before never did), and
    the verdict 'faults' (the table is rebuilt: SQLite cannot change a CHECK in place)."""
    db.executescript(
        """
        CREATE TABLE sprt_tests_new (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL UNIQUE REFERENCES tournaments(id),
            new_bot INTEGER NOT NULL REFERENCES bots(id),   -- team A
            old_bot INTEGER NOT NULL REFERENCES bots(id),   -- team B (may be NEW itself)
            elo0 REAL NOT NULL,                -- H0: NEW is elo0 better per room (logistic Elo)
            elo1 REAL NOT NULL,                -- H1: elo1 better
            alpha REAL NOT NULL,               -- P(accept H1 | H0)
            beta REAL NOT NULL,                -- P(accept H0 | H1)
            max_boards INTEGER,                -- NULL: no limit
            batch INTEGER NOT NULL,            -- boards played per round of the two rooms
            verdict TEXT CHECK (verdict IN ('H0', 'H1', 'limit', 'faults')),  -- NULL: still running
            boards INTEGER NOT NULL DEFAULT 0, -- boards the test counted (the decision's board, at most)
            counts TEXT NOT NULL DEFAULT '[0,0,0,0,0]',  -- JSON: boards scoring 0, 0.5, 1, 1.5, 2
            llr REAL NOT NULL DEFAULT 0,
            created TEXT NOT NULL,
            finished TEXT,
            max_faults REAL                    -- stop once more than this share of tables faulted; NULL: never
        );
        INSERT INTO sprt_tests_new (id, tournament_id, new_bot, old_bot, elo0, elo1, alpha, beta, max_boards, batch,
                                    verdict, boards, counts, llr, created, finished)
            SELECT id, tournament_id, new_bot, old_bot, elo0, elo1, alpha, beta, max_boards, batch,
                   verdict, boards, counts, llr, created, finished FROM sprt_tests;
        DROP TABLE sprt_tests;
        ALTER TABLE sprt_tests_new RENAME TO sprt_tests;
        """
    )


# --------------------------------------------------------------------------------------------
# Opening


def default_db_path() -> Path:
    """`ARENA_DB` when set, else results/arena.db (relative to the working folder)."""
    env = os.environ.get("ARENA_DB")
    return Path(env) if env else DEFAULT_DB


def open_db(path: str | os.PathLike[str] | None = None, *, create: bool = True,
            readonly: bool = False) -> sqlite_utils.Database:
    """Open (and create or migrate) the arena database, refusing any file that is not ours.

    `readonly`: for a command that only reads. A file the user may not write is then opened
    read-only (older schemas migrated in a copy in memory), so every listing works on it.
    """
    path = Path(path) if path is not None else default_db_path()
    exists = path.exists()
    if exists and path.is_dir():
        raise ArenaError(f"{path} is a folder, not an arena database")
    if not exists and not create:
        raise ArenaError(f"no arena database at {path} (run a tournament or `arena bot add` first)")
    fresh = not exists or path.stat().st_size == 0
    if not fresh:
        try:
            with open(path, "rb") as f:
                magic = f.read(16)
        except PermissionError:
            raise ArenaError(f"{path} is not readable for you") from None
        if magic != _SQLITE_MAGIC:
            raise ArenaError(f"{path} is not an SQLite database")
    if exists and not writable(path):
        if readonly:
            return _open_readonly(path)
        raise ArenaError(f"{path} is read-only for you: this command writes to it (listings still work)")
    if not exists:
        _make_folder(path)
    try:
        db = sqlite_utils.Database(path)
    except sqlite3.OperationalError as exc:
        raise ArenaError(f"cannot open {path}: {exc}") from None
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            if not create:
                raise ArenaError(f"{path} is an empty SQLite database, not an arena database")
            db.enable_wal()
        _check_ours(db, path, tables)
        db.execute("PRAGMA synchronous = NORMAL")
        # One transaction around all of it (sqlite-utils creates its migrations table before the
        # first migration's own transaction): an arena killed while creating the database, or a
        # reader looking meanwhile, never sees a half-made schema. Foreign keys are enforced from
        # then on: a migration that rebuilds a table others refer to (0010) drops it first, as
        # SQLite's own procedure does, and checks the keys itself before the commit.
        with db.atomic():
            migrations.apply(db)
        db.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        db.close()
        if "readonly" in str(exc):
            raise ArenaError(f"{path} is read-only here: {exc}") from None
        raise ArenaError(f"{path} is corrupt or unreadable: {exc}") from None
    except BaseException:
        db.close()
        raise
    return db


def writable(path: Path) -> bool:
    """Whether this user may write the database: the file and, for WAL's -wal and -shm files
    (unless both are there to write), its folder."""
    if not os.access(path, os.W_OK):
        return False
    side = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    if all(p.exists() and os.access(p, os.W_OK) for p in side):
        return True
    return os.access(path.parent if str(path.parent) else Path("."), os.W_OK | os.X_OK)


def _make_folder(path: Path) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArenaError(f"cannot create the arena database {path}: {(exc.strerror or str(exc)).lower()} "
                         f"({exc.filename})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ArenaError(f"cannot create the arena database {path}: {folder} is not writable for you")


def _check_ours(db: sqlite_utils.Database, path: Path, tables: set[str]) -> None:
    if tables and (Migrations.migrations_table not in tables or not migrations.applied(db)):
        raise ArenaError(f"{path} is an SQLite database but not an arena database")
    known = {m.name for m in migrations._migrations}
    unknown = [m.name for m in migrations.applied(db) if m.name not in known]
    if unknown:
        raise ArenaError(f"{path} was written by a newer arena (migration {unknown[-1]})")


def _open_readonly(path: Path) -> sqlite_utils.Database:
    """A database this user may not write: read-only (or immutable, when WAL's shared-memory
    file cannot be made: then no one can be writing it), migrated in memory if it is older."""
    uri = Path(os.path.abspath(path)).as_uri()
    conn = None
    try:
        for mode in ("mode=ro", "immutable=1"):
            try:
                conn = sqlite3.connect(f"{uri}?{mode}", uri=True)
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                break
            except sqlite3.OperationalError:
                if conn is not None:
                    conn.close()
                conn = None
        if conn is None:
            raise ArenaError(f"{path} cannot be opened read-only")
        db = sqlite_utils.Database(conn)
        _check_ours(db, path, tables)
        if migrations.pending(db):
            memory = sqlite3.connect(":memory:")
            conn.backup(memory)
            conn.close()
            conn = memory
            db = sqlite_utils.Database(conn)
            with db.atomic():
                migrations.apply(db)
        db.execute("PRAGMA query_only = ON")
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise ArenaError(f"{path} is corrupt or unreadable: {exc}") from None
    db.arena_folder = path.parent  # type: ignore[attr-defined]  # (bot copies live beside it)
    db.arena_path = path  # type: ignore[attr-defined]
    return db


def db_path(db: sqlite_utils.Database) -> Path | None:
    """The file the database was opened from (None in memory)."""
    known = getattr(db, "arena_path", None)
    if known is not None:
        return Path(known)
    for _seq, name, file in db.execute("PRAGMA database_list"):
        if name == "main" and file:
            return Path(file)
    return None


def _db_folder(db: sqlite_utils.Database) -> Path:
    path = db_path(db)
    return path.parent if path is not None else Path.cwd()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


# --------------------------------------------------------------------------------------------
# Bots


# --------------------------------------------------------------------------------------------
# Tournaments


# --------------------------------------------------------------------------------------------
# Writing results


# --------------------------------------------------------------------------------------------
# Ratings (the pure maths is in arena.results.ratings)


# --------------------------------------------------------------------------------------------
# Reading results


# --------------------------------------------------------------------------------------------
# Export


@migrations(name="0014_bot_games")
def _m0014_bot_games(db: sqlite_utils.Database) -> None:
    """The games a bot version plays, as its `ready.games` said when `bot add` checked it (JSON
    array); NULL: any game (it did not say, was added without the check, or was stored before)."""
    db.execute("ALTER TABLE bots ADD COLUMN games TEXT")


ENTRANT_VIEWS = {
    "bot_boards": """
        SELECT m.tournament_id, b.id AS board_id, x.bot_id, e.entrant, e.result, e.margin, e.score,
               CASE WHEN e.score * 2 > k.n - 1 THEN 'win' WHEN e.score * 2 < k.n - 1 THEN 'loss' ELSE 'draw' END
               AS outcome
        FROM board_entrants e JOIN boards b ON b.id = e.board_id JOIN matches m ON m.id = b.match_id
        JOIN match_entrants x ON x.match_id = m.id AND x.entrant = e.entrant
        JOIN (SELECT board_id, COUNT(*) AS n FROM board_entrants GROUP BY board_id) k ON k.board_id = b.id
        WHERE EXISTS (SELECT 1 FROM match_entrants o WHERE o.match_id = m.id AND o.entrant != e.entrant
                      AND NOT EXISTS (SELECT 1 FROM match_entrants y WHERE y.match_id = m.id
                                      AND y.entrant = o.entrant AND y.bot_id = x.bot_id))""",
    "standings": """
        SELECT t.name AS tournament, bt.name || '@' || bt.version AS bot,
               ROUND(r.elo, 1) AS elo, ROUND(r.ci_low, 1) AS elo_low_95, ROUND(r.ci_high, 1) AS elo_high_95,
               ROUND(r.los_next, 3) AS los_next, COALESCE(s.boards, 0) AS boards,
               COALESCE(pr.wins, 0) AS wins, COALESCE(pr.draws, 0) AS draws, COALESCE(pr.losses, 0) AS losses,
               s.avg_margin,
               (SELECT COUNT(DISTINCT st.table_id) FROM seats st JOIN board_tables x ON x.id = st.table_id
                JOIN matches m ON m.id = x.match_id
                WHERE m.tournament_id = tb.tournament_id AND st.bot_id = tb.bot_id AND st.status != 'ok')
               AS faulted_tables,
               tb.tournament_id, tb.bot_id
        FROM tournament_bots tb JOIN tournaments t ON t.id = tb.tournament_id JOIN bots bt ON bt.id = tb.bot_id
        LEFT JOIN ratings r ON r.tournament_id = tb.tournament_id AND r.bot_id = tb.bot_id
                            AND r.method = 'bradley-terry-map' AND r.errors = 'pool'
        LEFT JOIN (SELECT tournament_id, bot_id, COUNT(DISTINCT board_id) AS boards,
                          ROUND(SUM(margin) * 1.0 / COUNT(DISTINCT board_id), 1) AS avg_margin
                   FROM bot_boards GROUP BY tournament_id, bot_id) s
               ON s.tournament_id = tb.tournament_id AND s.bot_id = tb.bot_id
        LEFT JOIN (SELECT p.tournament_id, p.bot_id, SUM(p.result > q.result) AS wins,
                          SUM(p.result = q.result) AS draws, SUM(p.result < q.result) AS losses
                   FROM bot_boards p JOIN board_entrants q ON q.board_id = p.board_id AND q.entrant != p.entrant
                   JOIN boards b ON b.id = p.board_id
                   WHERE NOT EXISTS (SELECT 1 FROM match_entrants y WHERE y.match_id = b.match_id
                                     AND y.entrant = q.entrant AND y.bot_id = p.bot_id)
                   GROUP BY p.tournament_id, p.bot_id) pr
               ON pr.tournament_id = tb.tournament_id AND pr.bot_id = tb.bot_id
        ORDER BY tb.tournament_id, r.elo DESC""",
    "crosstable": """
        SELECT t.name AS tournament, x.name || '@' || x.version AS bot, y.name || '@' || y.version AS opponent,
               COUNT(*) AS boards, SUM(p.result > q.result) AS wins, SUM(p.result = q.result) AS draws,
               SUM(p.result < q.result) AS losses,
               SUM(CASE WHEN p.result > q.result THEN 1.0 WHEN p.result = q.result THEN 0.5 ELSE 0.0 END) AS score,
               SUM(p.result - q.result) AS margin, p.tournament_id, p.bot_id, q.bot_id AS opponent_id
        FROM bot_boards p JOIN bot_boards q ON q.board_id = p.board_id AND q.entrant != p.entrant
        JOIN boards b ON b.id = p.board_id
        JOIN tournaments t ON t.id = p.tournament_id JOIN bots x ON x.id = p.bot_id JOIN bots y ON y.id = q.bot_id
        WHERE NOT EXISTS (SELECT 1 FROM match_entrants z WHERE z.match_id = b.match_id AND z.entrant = q.entrant
                          AND z.bot_id = p.bot_id)
          AND NOT EXISTS (SELECT 1 FROM match_entrants z WHERE z.match_id = b.match_id AND z.entrant = p.entrant
                          AND z.bot_id = q.bot_id)
        GROUP BY p.tournament_id, p.bot_id, q.bot_id""",
    "board_results": """
        SELECT t.name AS tournament, m.match_no, b.board_no, b.seed, e.entrant,
               (SELECT group_concat(name, '+') FROM (SELECT x.name || '@' || x.version AS name FROM match_entrants me
                JOIN bots x ON x.id = me.bot_id WHERE me.match_id = m.id AND me.entrant = e.entrant
                ORDER BY me.member)) AS bots,
               e.result, e.margin, e.score,
               (SELECT COUNT(*) FROM seats s JOIN board_tables x ON x.id = s.table_id
                WHERE x.match_id = m.id AND x.board_no = b.board_no AND s.status != 'ok') AS faults,
               b.completed, b.id AS board_id, m.id AS match_id, m.tournament_id
        FROM board_entrants e JOIN boards b ON b.id = e.board_id JOIN matches m ON m.id = b.match_id
        JOIN tournaments t ON t.id = m.tournament_id
        ORDER BY m.tournament_id, m.match_no, b.board_no, e.entrant""",
}
"""Migration 0015's views over the one match shape (bots as name@version): `bot_boards`, a row per
board and bot of an entrant (not one that every entrant of the match holds: a bot on both sides
of a mixed match counts for neither), its entrant's result, margin and score, and `outcome`: win
where it beat more than half the others; `standings` with W/D/L per comparison with each other
entrant that does not hold the bot; `crosstable` by each pair of bots on different entrants
(neither holding the other); `board_results`, a row per board and entrant."""


@migrations(name="0015_one_match_shape")
def _m0015_one_match_shape(db: sqlite_utils.Database) -> None:
    """One shape for every match: k entrants (`match_entrants`, a row per entrant and member: the
    one bot of clones, the two of mixed partners), each board's result per entrant
    (`board_entrants`: result, margin, score) and each table's every side's points
    (`board_tables.side_points`). A two-team match moves in: team A is entrant 0, team B entrant 1,
    its result per entrant its sides' points over both rooms, its margin team A's (B's: negated),
    its score from the outcome. The team columns (matches.team_*, boards.team_a_*,
    board_tables.side0/1_points) and board_entrants.bot_id go: the tables are rebuilt."""
    for name in {**VIEWS, **GROUP_VIEWS}:
        db.execute(f"DROP VIEW IF EXISTS {name}")
    db.executescript(
        """
        CREATE TABLE match_entrants_new (
            match_id INTEGER NOT NULL REFERENCES matches(id),
            entrant INTEGER NOT NULL,          -- 0..k-1: in room r it holds side (entrant + r) mod k
            member INTEGER NOT NULL,           -- 0, 1, ...: seat i of its side holds member i mod (members)
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            PRIMARY KEY (match_id, entrant, member)
        );
        INSERT INTO match_entrants_new SELECT match_id, entrant, 0, bot_id FROM match_entrants;
        INSERT INTO match_entrants_new
            SELECT id, 0, 0, team_a_bot1_id FROM matches WHERE id NOT IN (SELECT match_id FROM match_entrants)
            UNION ALL SELECT id, 0, 1, team_a_bot2_id FROM matches
                WHERE id NOT IN (SELECT match_id FROM match_entrants) AND team_a_bot2_id != team_a_bot1_id
            UNION ALL SELECT id, 1, 0, team_b_bot1_id FROM matches WHERE id NOT IN (SELECT match_id FROM match_entrants)
            UNION ALL SELECT id, 1, 1, team_b_bot2_id FROM matches
                WHERE id NOT IN (SELECT match_id FROM match_entrants) AND team_b_bot2_id != team_b_bot1_id;
        CREATE TABLE board_entrants_new (
            board_id INTEGER NOT NULL REFERENCES boards(id),
            entrant INTEGER NOT NULL,
            result INTEGER NOT NULL,           -- its sides' results over the board's rooms, in the game's unit
            margin INTEGER NOT NULL,           -- what the standings average: two teams, its result less
                                               -- the other's; else its result
            score REAL NOT NULL,               -- the others it beat on that result, draws half (0 .. k-1)
            PRIMARY KEY (board_id, entrant)
        );
        INSERT INTO board_entrants_new SELECT board_id, entrant, result, result, score FROM board_entrants;
        INSERT INTO board_entrants_new
            SELECT b.id, e.entrant,
                   (SELECT SUM(CASE WHEN (t.swapped + e.entrant) % 2 = 0 THEN t.side0_points ELSE t.side1_points END)
                    FROM board_tables t WHERE t.match_id = b.match_id AND t.board_no = b.board_no),
                   CASE e.entrant WHEN 0 THEN b.team_a_margin ELSE -b.team_a_margin END,
                   CASE b.team_a_outcome WHEN 'draw' THEN 0.5
                        WHEN 'win' THEN 1.0 - e.entrant ELSE 0.0 + e.entrant END
            FROM boards b JOIN (SELECT 0 AS entrant UNION ALL SELECT 1) e
            WHERE b.match_id NOT IN (SELECT match_id FROM match_entrants);
        DROP TABLE match_entrants;
        ALTER TABLE match_entrants_new RENAME TO match_entrants;
        DROP TABLE board_entrants;
        ALTER TABLE board_entrants_new RENAME TO board_entrants;
        CREATE TABLE matches_new (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            match_no INTEGER NOT NULL,
            UNIQUE (tournament_id, match_no)
        );
        INSERT INTO matches_new SELECT id, tournament_id, match_no FROM matches;
        DROP TABLE matches;
        ALTER TABLE matches_new RENAME TO matches;
        CREATE TABLE boards_new (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(id),
            board_no INTEGER NOT NULL,
            seed TEXT NOT NULL,
            completed TEXT NOT NULL,
            UNIQUE (match_id, board_no)
        );
        INSERT INTO boards_new SELECT id, match_id, board_no, seed, completed FROM boards;
        DROP TABLE boards;
        ALTER TABLE boards_new RENAME TO boards;
        CREATE TABLE board_tables_new (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(id),
            board_no INTEGER NOT NULL,
            swapped INTEGER NOT NULL CHECK (swapped >= 0),  -- the room: 0, or the entrants rotated by this many sides
            board_seed TEXT NOT NULL,
            side_points TEXT NOT NULL,         -- JSON, every side's points, forfeit applied
            forfeit TEXT,                      -- JSON {side, seat, status, detail} or NULL
            started TEXT NOT NULL,
            duration_s REAL NOT NULL,
            sandbox TEXT,
            UNIQUE (match_id, board_no, swapped)
        );
        INSERT INTO board_tables_new
            SELECT id, match_id, board_no, swapped, board_seed,
                   COALESCE(side_points, json_array(side0_points, side1_points)), forfeit, started, duration_s, sandbox
            FROM board_tables;
        DROP TABLE board_tables;
        ALTER TABLE board_tables_new RENAME TO board_tables;
        """
    )
    for name, view in ENTRANT_VIEWS.items():
        db.execute(f"CREATE VIEW {name} AS {view}")
    if db.execute("PRAGMA foreign_key_check").fetchone() is not None:
        raise sqlite3.IntegrityError("FOREIGN KEY constraint failed after moving every match to one shape")


@migrations(name="0016_bot_command_identity")
def _m0016_bot_command_identity(db: sqlite_utils.Database) -> None:
    """A bot version is its files and its command: the same files run by another command are a
    new version of the name (`UNIQUE (name, sha256)` goes, a unique index on name, sha256 and
    command, no command counted as one, takes its place). The bots table is rebuilt; the views
    and indexes over it are made again as they were."""
    views = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'").fetchall()
    indexes = db.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'bots'"
                         " AND sql IS NOT NULL").fetchall()
    for name, _sql in views:
        db.execute(f"DROP VIEW {name}")
    (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'bots'").fetchone()
    narrowed = re.sub(r",\s*UNIQUE \(name, sha256\)", "", sql)
    columns = ", ".join(r[1] for r in db.execute("PRAGMA table_info(bots)"))
    db.execute(re.sub(r'^CREATE TABLE "?bots"?', "CREATE TABLE bots_new", narrowed))
    db.execute(f"INSERT INTO bots_new ({columns}) SELECT {columns} FROM bots")
    db.execute("DROP TABLE bots")
    db.execute("ALTER TABLE bots_new RENAME TO bots")
    db.execute("CREATE UNIQUE INDEX bots_content ON bots (name, sha256, COALESCE(command, ''))")
    for (index,) in indexes:
        db.execute(index)
    for _name, view in views:
        db.execute(view)
    if db.execute("PRAGMA foreign_key_check").fetchone() is not None:
        raise sqlite3.IntegrityError("FOREIGN KEY constraint failed after rebuilding bots")
