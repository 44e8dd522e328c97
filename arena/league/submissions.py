"""A submission, from the archive to a stored version on the ladder, or a refusal.

In order: the token (401), the bot's name (400) and whose it is (403: a name belongs to the
author who first submitted it, and the organiser's registered bots to no author; a reserved
name or one that reads as another is no one's, arena.league.names), the author's rate (429
with the wait), the archive's rules (400, arena.league.archive, unpacked in a process of its
own), the storage quotas and free space (507), whether the arena can run it (400), and
`bot check` in the sandbox (422 with the verdict and the bot's stderr).
Everything before the store happens in a temporary folder that is removed, so nothing of a
refused submission is kept. The same content again is the version already stored, not checked
again; an older version, or a retired name's, goes back on the ladder, since what an author
submitted last is what they want played.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import sqlite_utils
import trio

from arena.errors import ArenaError
from arena.league import archive, authors, store
from arena.play.match import check_bot, format_check
from arena.results import registry
from arena.results.schema import _BOT_NAME, _db_folder
from arena.tournaments.runner import candidate_command


UNPACKS = 2  # archives unpacked at once (each in a process of up to archive.MEMORY_MAX)
CHECKS = 1  # submissions checked at once (each seats the bot at a table in the sandbox)
TEMP_PREFIX = "arena-submission-"  # then the server's pid: a folder whose server is gone is swept


def sweep_temp(root: Path | None = None) -> list[Path]:
    """Remove the submission folders that servers killed mid-submission left behind (their
    pid no longer runs; this user's only). Returns what was removed."""
    removed = []
    for folder in Path(root or tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*"):
        pid = folder.name[len(TEMP_PREFIX):].split("-", 1)[0]
        try:
            if not pid.isdigit() or folder.is_symlink() or folder.lstat().st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
            continue  # its server still runs
        except ProcessLookupError:
            pass
        except (OSError, ValueError):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


class Refused(ArenaError):
    """A submission refused: `status` is the HTTP status, the message the one line to show."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra


@dataclass
class RateLimit:
    """At most `count` uses of `kind` (submissions, code downloads) per author in any `window`
    seconds, counted in the database (`league_rate`), so a restarted server remembers them.
    Every authenticated submission counts, refused or not, since a refused one may have cost a
    check."""

    count: int = 10
    window: float = 3600.0
    kind: str = "submit"
    clock: Any = time.time

    def wait(self, db: sqlite_utils.Database, author_id: int) -> float:
        """Seconds until the author may go again (0: now), without counting."""
        now = self.clock()
        rows = db.execute("SELECT at FROM league_rate WHERE author_id = ? AND kind = ? AND at > ? ORDER BY at",
                          [author_id, self.kind, now - self.window]).fetchall()
        return 0.0 if len(rows) < self.count else max(rows[-self.count][0] + self.window - now, 0.001)

    def take(self, db: sqlite_utils.Database, author_id: int) -> None:
        now = self.clock()
        with store.writing(db):
            db.execute("INSERT INTO league_rate (author_id, kind, at) VALUES (?, ?, ?)", [author_id, self.kind, now])
            db.execute("DELETE FROM league_rate WHERE author_id = ? AND kind = ? AND at <= ?",
                       [author_id, self.kind, now - self.window])

    def admit(self, db: sqlite_utils.Database, author_id: int, what: str) -> None:
        """Count one use, or refuse it (429 with the wait)."""
        wait = self.wait(db, author_id)
        if wait > 0:
            raise Refused(429, f"too many {what}: wait {int(wait) + 1} s (at most {self.count} "
                               f"in {int(self.window)} s)", retry_after=int(wait) + 1)
        self.take(db, author_id)


def check_name(name: str | None) -> str:
    name = (name or "").strip()
    if not name:
        raise Refused(400, "a submission needs a bot name (--name)")
    if not _BOT_NAME.fullmatch(name) or len(name) > 64:
        raise Refused(400, f"bad bot name {name!r}: use up to 64 letters, digits and . _ + - (start with a letter or digit)")
    if name.isdigit():
        raise Refused(400, f"bad bot name {name!r}: a name of digits only reads as a bot id")
    return name


MAX_COMMAND = 1000  # characters of a submission's --command


def check_command(command: Any) -> str | None:
    """A submission's --command (run in the bot's folder, in the same sandbox as any bot), or
    None when it sent none (an empty field is none)."""
    if command is None:
        return None
    if not isinstance(command, str):
        raise Refused(400, "the field 'command' must be text, not a file")
    command = command.strip()
    if not command:
        return None
    if len(command) > MAX_COMMAND:
        raise Refused(400, f"the command is {len(command)} characters, more than the {MAX_COMMAND} allowed")
    if any(not c.isprintable() for c in command):
        raise Refused(400, "the command holds a control character: give one line of words")
    return command


def author_of(db: sqlite_utils.Database, token: str | None) -> dict:
    author = authors.authenticate(db, token)
    if author is None:
        raise Refused(401, "unknown or revoked token" if token else "this needs an author's token")
    return author


def may_use(db: sqlite_utils.Database, author: dict, name: str) -> None:
    if (why := store.name_taken(db, author, name)) is not None:
        raise Refused(403, why)


@dataclass(frozen=True)
class Quota:
    """Storage: what one author's stored versions may take, what the league's may take in all,
    and the free space the database's disk keeps after a store (bytes)."""

    author: int = 100 * archive.MiB
    total: int = 5000 * archive.MiB
    min_free: int = 1000 * archive.MiB

    def refusal(self, db: sqlite_utils.Database, author_id: int, size: int) -> str | None:
        mine, everyone = store.usage(db, author_id), store.usage(db)
        mib = archive.MiB
        if mine + size > self.author:
            return (f"over your storage quota: your stored versions take {mine / mib:.1f} MiB, this one "
                    f"{size / mib:.1f} MiB, of {self.author / mib:.0f} MiB (versions that never played can be "
                    "pruned by the organiser)")
        if everyone + size > self.total:
            return f"the league's storage is full ({everyone / mib:.0f} of {self.total / mib:.0f} MiB): tell the organiser"
        free = shutil.disk_usage(_db_folder(db)).free
        if free - size < self.min_free:
            return f"the league's disk is nearly full ({free / mib:.0f} MiB free): tell the organiser"
        return None


@dataclass
class Submissions:
    """What the server needs to take submissions: its database, the league, the limits."""

    db: sqlite_utils.Database
    tid: int
    sandbox: str
    limits: archive.Limits = archive.Limits()
    rate: RateLimit = field(default_factory=RateLimit)
    check_deals: int = 1
    quota: Quota = field(default_factory=lambda: Quota())
    _names: dict[str, trio.Lock] = field(default_factory=dict)  # one submission of a name at a time
    unpacking: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(UNPACKS))
    checking: trio.CapacityLimiter = field(default_factory=lambda: trio.CapacityLimiter(CHECKS))

    def admit(self, token: str | None, name: str | None) -> tuple[dict, str]:
        """Who submits what, before the archive is read: 401, 400, 403 or 429, or the author."""
        author = author_of(self.db, token)
        name = check_name(name)
        may_use(self.db, author, name)
        self.rate.admit(self.db, author["id"], "submissions")
        return author, name

    async def submit(self, author: dict, name: str, data: bytes, command: str | None = None) -> dict:
        """Unpack, check and store; returns the stored version and its check, or raises Refused.
        Submissions of one name take turns: the same content sent several times at once is
        stored once, and the later ones find it stored ("unchanged")."""
        lock = self._names.setdefault(name, trio.Lock())
        try:
            async with lock:
                return await self._submit(author, name, data, command)
        finally:
            if not lock.locked() and lock.statistics().tasks_waiting == 0:
                self._names.pop(name, None)

    async def _submit(self, author: dict, name: str, data: bytes, command: str | None) -> dict:
        folder = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
        try:
            try:
                async with self.unpacking:
                    path = await archive.unpack_isolated(data, folder / "bot", self.limits)
            except archive.BadArchive as exc:
                raise Refused(400, str(exc)) from None
            sha = await trio.to_thread.run_sync(registry.bot_sha256, path)
            same = self.db.execute("SELECT b.id, lv.check_text FROM bots b JOIN league_versions lv ON lv.bot_id = b.id"
                                   " WHERE b.name = ? AND b.sha256 = ? AND b.command IS ? AND b.removed IS NULL",
                                   [name, sha, command]).fetchone()
            if same is not None:  # a version already checked (its files and its command): no second check
                return self._again(name, same[0], same[1])
            size = await trio.to_thread.run_sync(store.stored_bytes, path)
            if (why := self.quota.refusal(self.db, author["id"], size)) is not None:
                raise Refused(507, why)
            try:
                run = await trio.to_thread.run_sync(candidate_command, path, command)
            except ArenaError as exc:
                raise Refused(400, str(exc).replace(str(path.parent) + "/", "")) from None
            rules = self.db.execute("SELECT game, variant FROM tournaments WHERE id = ?", [self.tid]).fetchone()
            async with self.checking:
                result = await check_bot(run, deals=self.check_deals, sandbox=self.sandbox, game=rules[0],
                                         variant=json.loads(rules[1]))  # at a table of the league's game
            report = result.to_dict()
            report["bot"] = name
            text = format_check(result).replace(str(run), name)
            stderr = _stderr(result)
            if not result.conformant:
                raise Refused(422, f"{name} failed the check: {_fault(result)}; nothing stored",
                              check=text, stderr=stderr, verdict="not conformant")
            try:
                bot = store.store_version(self.db, self.tid, author, path, name, report, text, size,
                                          command=command)
            except store.NameTaken as exc:  # taken by another author while the check ran
                raise Refused(403, str(exc)) from None
            return _answer(bot, "new", f"stored {_label(bot)} (conformant)", check=text, stderr=stderr)
        finally:
            await trio.to_thread.run_sync(partial(shutil.rmtree, folder, ignore_errors=True))

    def _again(self, name: str, bot_id: int, check: str) -> dict:
        """A stored version's content submitted again: unchanged if it is the one on the ladder,
        else on the ladder again (in place of the name's newer version, or back from retirement)."""
        bot = registry.get_bot(self.db, bot_id)
        current = store.current_version(self.db, name)
        retired = store.owner(self.db, name)["retired"] is not None
        if current == bot_id and not retired:
            return _answer(bot, "unchanged", f"unchanged: {_label(bot)} (conformant)", check=check)
        store.submit_again(self.db, self.tid, bot_id, name)
        instead = "" if current == bot_id else f" in place of {_label(registry.get_bot(self.db, current))}"
        return _answer(bot, "active again", f"active again: {_label(bot)} is back on the ladder{instead}",
                       check=check)


def _label(bot: dict) -> str:
    return f"{bot['name']}@{bot['version']}"


def _answer(bot: dict, state: str, summary: str, *, check: str, stderr: str = "") -> dict:
    """The answer to a submission that was taken: `state` is new, unchanged or active again;
    `summary` the one line the CLI and the form show."""
    return {"bot": _label(bot), "bot_id": bot["id"], "name": bot["name"], "version": bot["version"],
            "new": state == "new", "state": state, "summary": summary, "verdict": "conformant", "check": check,
            "stderr": stderr}


def _stderr(result: Any) -> str:
    """The checked bot's own stderr over its check tables (never the random bots')."""
    parts = [t.seats[seat].stderr for t, seat in zip(result.tables, result.positions) if t.seats[seat].stderr]
    return "\n".join(parts)[-8000:]


def _fault(result: Any) -> str:
    for t, seat in zip(result.tables, result.positions):
        s = t.seats[seat]
        if s.status != "ok":
            return f"seat {seat}: {s.status}: {s.detail}"[:300]
        if t.forfeit is not None:
            return f"a table was forfeited: {t.forfeit.get('status')}: {t.forfeit.get('detail')}"[:300]
    return "not conformant"
