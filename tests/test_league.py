"""The league against a real server process on 127.0.0.1 (`arena league serve`) with real bot
processes in the sandbox: authors and tokens, submissions through `arena submit` with every
refusal, privacy, the ladder's pairing of a new version, and a server killed (`kill -9`) and
started again that loses and doubles nothing."""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arena.league import archive, authors, pairing
from arena.process.lifecycle import leftover_bot_pids
from arena.process.modes import resolve_mode
from arena.results import schema
from arena.tournaments import cluster

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"
LIMIT = 4  # submissions per author (the server's --submit-limit in these tests)
MAX_BYTES = 200_000
SECRET = "stderr-secret-5f1c"  # what the author's bot writes on stderr: never public


def arena(*args: str, env: dict | None = None, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """`arena ARGS` as a program (`prefix`: run it as another user, tests.users)."""
    return subprocess.run([*prefix, sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=300)


def make_bot(folder: Path, source: Path = BOTS / "zwicker" / "random_bot.py", stderr: str | None = None) -> Path:
    """A bot folder (bot.py with the bot kit beside it), readable for the sandbox's user."""
    folder.mkdir(parents=True)
    text = source.read_text()
    if stderr is not None:
        text = text.replace("from botkit import", f"sys.stderr.write({stderr!r} + '\\n'); sys.stderr.flush()\n"
                                                   "from botkit import", 1)
    (folder / "bot.py").write_text(text)
    shutil.copy(BOTS / "botkit.py", folder / "botkit.py")
    for p in [folder, *folder.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return folder


class Server:
    """`arena league serve` as a process; its stdout lines (a line per match started, room
    stored and fit made) are read as they come, so a test waits for an event, not a time."""

    def __init__(self, db: Path, *extra: str, env: dict | None = None, prefix: tuple[str, ...] = ()) -> None:
        self.db = db
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "arena", "league", "serve", "--db", str(db), "--port", "0", "--boards", "2",
             "--concurrency", "1", "--submit-limit", str(LIMIT), "--max-bytes", str(MAX_BYTES), "--move-ms", "50",
             *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, **(env or {})})
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._drain, daemon=True)  # a full pipe would stop the server
        self._reader.start()
        first = self.next_line()
        assert "serving on http://127.0.0.1:" in first, first + self.proc.stderr.read()
        self.url = first.split("serving on ")[1].split()[0]

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self._queue.put(line)
        self._queue.put(None)

    def next_line(self) -> str:
        line = self._queue.get(timeout=300)
        if line is None:
            self._queue.put(None)
            raise AssertionError(f"the server ended: {self.proc.stderr.read()}")
        self.lines.append(line.rstrip("\n"))
        return self.lines[-1]

    def wait_for(self, test) -> str:
        while not test(line := self.next_line()):
            pass
        return line

    def get(self, path: str, token: str | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {token}"} if token else {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def submit(self, path: Path, token: str, name: str | None) -> subprocess.CompletedProcess:
        """`arena submit`; without a name, the bot is named as `arena bot add` names it."""
        return arena("submit", str(path), "--server", self.url, *(["--name", name] if name else []),
                     env={"ARENA_TOKEN": token})

    def stop(self, sig: int = signal.SIGINT) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:  # what it hangs in, then the failure
                self.proc.send_signal(signal.SIGUSR1)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=10)  # (a failing test only: time for the dump)
                self.proc.kill()
                self.proc.wait(timeout=60)
                raise AssertionError("the server did not stop: " + self.proc.stderr.read()[-6000:]) from None
        self._reader.join(timeout=60)  # at the end of its output
        self.proc.stdout.close()
        self.proc.stderr.close()


def stored(db: Path) -> tuple[int, list[str]]:
    """Bot rows and the stored copies' folders: what a refused submission must not add to."""
    conn = sqlite3.connect(db)
    try:
        (rows,) = conn.execute("SELECT COUNT(*) FROM bots").fetchone()
    finally:
        conn.close()
    return rows, sorted(p.name for p in (db.parent / "bots").glob("*")) if (db.parent / "bots").exists() else []


def add_author(db: Path, name: str, prefix: tuple[str, ...] = ()) -> str:
    out = arena("league", "author", "add", name, "--db", str(db), prefix=prefix)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    folder = Path(tmp_path_factory.mktemp("league"))
    folder.chmod(0o755)
    db = folder / "league.db"
    tokens = {name: add_author(db, name) for name in ("alice", "bob", "carol", "dora", "eve", "hasty")}
    server = Server(db)
    bots = folder / "src"
    bots.mkdir()
    bots.chmod(0o755)
    yield {"server": server, "db": db, "tokens": tokens, "bots": bots}
    server.stop()


def tar_of(*members: tarfile.TarInfo, data: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for m in members:
            body = (data or {}).get(m.name)
            if body is not None:
                m.size = len(body)
            tar.addfile(m, io.BytesIO(body) if body is not None else None)
    return buffer.getvalue()


def entry(name: str, kind: bytes = tarfile.REGTYPE, **kw) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = 0o644
    for k, v in kw.items():
        setattr(info, k, v)
    return info


# -- tokens ------------------------------------------------------------------------------------


def test_a_token_is_stored_as_its_hash_only(tmp_path):
    db = schema.open_db(tmp_path / "a.db")
    author, token = authors.add_author(db, "dora")
    assert token.startswith("zwl_") and len(token.split("_", 2)[2]) >= 43  # 256 bits, url-safe base64
    (stored_hash,) = db.execute("SELECT token_sha256 FROM league_authors").fetchone()
    assert stored_hash == authors.token_hash(token) and token not in json.dumps(list(db.query(
        "SELECT * FROM league_authors")))
    assert authors.authenticate(db, token)["name"] == "dora"
    assert authors.authenticate(db, token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert authors.authenticate(db, "zwl_999_" + token.split("_", 2)[2]) is None
    authors.revoke_author(db, "dora")
    assert authors.authenticate(db, token) is None
    db.close()


# -- submissions -------------------------------------------------------------------------------


def test_a_bot_submitted_through_the_cli_is_checked_and_stored(league):
    s, t = league["server"], league["tokens"]
    bot = make_bot(league["bots"] / "alice-rnd", stderr=SECRET)
    out = s.submit(bot, t["alice"], "rnd")
    assert out.returncode == 0, out.stderr
    assert "conformant: the bot speaks protocol version 1" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "stored rnd@1 (conformant)"
    again = s.submit(bot, t["alice"], "rnd")  # the same content: the same version
    assert again.returncode == 0 and again.stdout.strip().splitlines()[-1] == "unchanged: rnd@1 (conformant)"


def ensure_rnd(league) -> None:
    """alice's bot `rnd`, which later tests build on (when a test runs alone, it is made here)."""
    if not (league["bots"] / "alice-rnd").exists():
        test_a_bot_submitted_through_the_cli_is_checked_and_stored(league)


def test_a_wrong_token_is_401_and_another_authors_name_403(league):
    s, t, db = league["server"], league["tokens"], league["db"]
    ensure_rnd(league)
    bot = make_bot(league["bots"] / "bob-rnd")
    before = stored(db)
    out = s.submit(bot, t["alice"][:-2] + "xx", "bobs")
    assert out.returncode == 2 and out.stderr.strip() == "arena: error: 401: unknown or revoked token"
    out = s.submit(bot, t["bob"], "rnd")  # alice's name
    assert out.returncode == 2
    assert out.stderr.strip() == "arena: error: 403: the name 'rnd' belongs to another author: choose another --name"
    assert stored(db) == before


@pytest.mark.parametrize("case", ["dotdot", "absolute", "symlink", "hardlink", "device", "fifo", "long"])
def test_an_archive_breaking_a_rule_is_400_with_the_reason_and_nothing_stored(league, case, tmp_path):
    s, t, db = league["server"], league["tokens"], league["db"]
    code = (BOTS / "zwicker" / "random_bot.py").read_bytes()
    members = {
        "dotdot": (entry("b/bot.py"), entry("b/../../escape.py")),
        "absolute": (entry("/etc/b.py"),),
        "symlink": (entry("b/bot.py"), entry("b/botkit.py", tarfile.SYMTYPE, linkname="/etc/passwd")),
        "hardlink": (entry("b/bot.py"), entry("b/botkit.py", tarfile.LNKTYPE, linkname="b/bot.py")),
        "device": (entry("b/bot.py"), entry("b/null", tarfile.CHRTYPE, devmajor=1, devminor=3)),
        "fifo": (entry("b/bot.py"), entry("b/pipe", tarfile.FIFOTYPE)),
        "long": (entry("b/bot.py"), entry("b/" + "x" * 256 + ".py")),  # a name Linux cannot make
    }[case]
    reason = {"dotdot": "contains '..'", "absolute": "is an absolute path", "symlink": "is a symbolic link",
              "hardlink": "is a hard link", "device": "is a character device", "fifo": "is a fifo",
              "long": "has a name longer than 255 bytes"}[case]
    path = tmp_path / "bot.tar.gz"
    path.write_bytes(tar_of(*members, data={m.name: code for m in members if m.type == tarfile.REGTYPE}))
    author = "bob" if case in ("symlink", "hardlink", "device") else "dora" if case == "long" else "carol"
    before = stored(db)
    out = s.submit(path, t[author], f"{author}-{case}")
    assert out.returncode == 2, out.stdout
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("arena: error: 400: archive entry ") and reason in line, line
    assert stored(db) == before


def test_an_oversized_bot_is_400_and_nothing_stored(league):
    s, t, db = league["server"], league["tokens"], league["db"]
    bot = make_bot(league["bots"] / "big")
    (bot / "weights.bin").write_bytes(bytes(MAX_BYTES + 1))  # zeros: a small archive, too big unpacked
    (bot / "weights.bin").chmod(0o644)
    before = stored(db)
    out = s.submit(bot, t["alice"], "big")
    assert out.returncode == 2
    assert out.stderr.strip() == (f"arena: error: 400: the archive unpacks to more than {MAX_BYTES} bytes "
                                  f"({MAX_BYTES // archive.MiB} MiB allowed)")
    assert stored(db) == before


def test_a_name_taken_while_a_check_ran_is_403_and_nothing_of_it_stored(tmp_path):
    """Two authors submit a new name at once: both pass the door, both are checked; the second
    to be stored is refused, as if it had come after."""
    folder = tmp_path / "n"
    folder.mkdir()
    for p in (tmp_path, folder):
        p.chmod(0o755)
    db = folder / "league.db"
    t = {author: add_author(db, author) for author in ("dora", "eve")}
    s = Server(db)
    try:
        before = stored(db)
        procs = {author: subprocess.Popen(
            [sys.executable, "-m", "arena", "submit", str(make_bot(folder / author, BOTS / "zwicker" / source)),
             "--server", s.url, "--name", "shared"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "ARENA_TOKEN": t[author]})
            for author, source in (("dora", "random_bot.py"), ("eve", "greedy_bot.py"))}
        outs = {author: (p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for author, p in procs.items()}
        for p in procs.values():
            p.stdout.close()
            p.stderr.close()
    finally:
        s.stop()
    (winner,) = [a for a, (code, _o, _e) in outs.items() if code == 0]
    (loser,) = [a for a, (code, _o, _e) in outs.items() if code != 0]
    assert outs[winner][1].strip().splitlines()[-1] == "stored shared@1 (conformant)"
    assert outs[loser][0] == 2 and outs[loser][2].strip() == \
        "arena: error: 403: the name 'shared' belongs to another author: choose another --name"
    rows, copies = stored(db)
    assert rows == before[0] + 1 and len(copies) == len(before[1]) + 1  # the winner's only
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT a.name FROM league_versions lv JOIN bots b ON b.id = lv.bot_id JOIN league_authors a"
                            " ON a.id = lv.author_id WHERE b.name = 'shared'").fetchall() == [(winner,)]
    finally:
        conn.close()


def test_a_form_the_server_cannot_read_is_one_line_too(league):
    s, t = league["server"], league["tokens"]
    boundary = "----twice"
    body = f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\ntwice\r\n'.encode()
    for filename in ("a.tar.gz", "b.tar.gz"):  # a second file
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="{filename}"\r\n'
                 "Content-Type: application/gzip\r\n\r\nx\r\n").encode()
    body += f"--{boundary}--\r\n".encode()
    req = urllib.request.Request(s.url + "/api/submit", data=body, method="POST", headers={
        "Authorization": f"Bearer {t['eve']}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=60)
    assert refused.value.code == 400
    assert json.loads(refused.value.read()) == {"error": "Too many files. Maximum number of files is 1.", "status": 400}


def test_a_bot_failing_the_check_is_refused_with_its_stderr(league):
    s, t, db = league["server"], league["tokens"], league["db"]
    bot = league["bots"] / "crasher"
    bot.mkdir()
    (bot / "bot.py").write_text("import sys\nsys.stderr.write('cannot start: no model file\\n')\nsys.exit(3)\n")
    for p in [bot, *bot.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    before = stored(db)
    out = s.submit(bot, t["carol"], "crasher")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].startswith("arena: error: 422: crasher failed the check: seat 0: ")
    assert "cannot start: no model file" in out.stderr and "NOT conformant" in out.stderr
    assert stored(db) == before


def test_too_many_submissions_are_429_with_the_wait(league):
    s, t = league["server"], league["tokens"]
    broken = league["bots"] / "broken.tar.gz"
    broken.write_bytes(b"not an archive")
    for _ in range(LIMIT):
        out = s.submit(broken, t["hasty"], "hasty")
        assert out.returncode == 2 and "400: not a tar archive" in out.stderr
    out = s.submit(broken, t["hasty"], "hasty")
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("arena: error: 429: too many submissions: wait ") and f"at most {LIMIT} in 3600 s" in line
    code, body = s.get("/api/me", t["hasty"])  # reading is not limited
    assert code == 200


# -- privacy -----------------------------------------------------------------------------------


def test_only_the_author_sees_a_bots_code_stderr_and_check(league):
    s, t = league["server"], league["tokens"]
    ensure_rnd(league)
    for path in ("/api/bots/rnd/stderr", "/api/bots/rnd/code", "/api/me"):
        assert s.get(path)[0] == 401, path  # a spectator
    assert s.get("/api/bots/rnd/stderr", t["bob"])[0] == 403
    assert s.get("/api/bots/rnd/code", t["bob"])[0] == 403
    assert SECRET not in s.get("/api/me", t["bob"])[1].decode()
    code, body = s.get("/api/me", t["alice"])
    assert code == 200 and SECRET in body.decode()  # the check's tables keep the bot's stderr
    code, body = s.get("/api/bots/rnd/code", t["alice"])
    assert code == 200
    with tarfile.open(fileobj=io.BytesIO(body)) as tar:
        assert SECRET.encode() in tar.extractfile("alice-rnd/bot.py").read()
    while s.get("/api/standings")[0] == 503:  # the first fit with bots is under way
        s.wait_for(lambda line: line.startswith("rated:"))
    for path in ("/", "/api/league", "/api/standings", "/api/status"):
        code, body = s.get(path)
        assert code == 200 and SECRET not in body.decode(), path


# -- the ladder --------------------------------------------------------------------------------


def test_the_ladder_plays_and_a_new_version_plays_first(league):
    s, t, db = league["server"], league["tokens"], league["db"]
    ensure_rnd(league)
    bot = make_bot(league["bots"] / "bob-greedy", BOTS / "zwicker" / "greedy_bot.py")
    out = s.submit(bot, t["bob"], "greedy")
    assert out.returncode == 0, out.stderr
    s.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
    code, body = s.get("/api/league")
    doc = json.loads(body)
    assert {r["bot"] for r in doc["standings"]} == {"rnd", "greedy"} and doc["boards_done"] >= 1
    v2 = make_bot(league["bots"] / "alice-rnd2", BOTS / "zwicker" / "first_bot.py")
    out = s.submit(v2, t["alice"], "rnd")
    assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == "stored rnd@2 (conformant)"
    s.wait_for(lambda line: line == "submitted: rnd@2 by alice")
    started = [s.wait_for(lambda line: line.startswith("match ")) for _ in range(2)]
    assert any("rnd@2" in line for line in started), started  # the one in play when it came, then it
    status = arena("league", "status", "--db", str(db))
    assert status.returncode == 0 and "active: greedy@1" in status.stdout and "rnd@2" in status.stdout
    standings = arena("league", "standings", "--db", str(db), "--json")
    same = arena("standings", "league", "--db", str(db), "--json")
    assert standings.returncode == 0 and json.loads(standings.stdout)["standings"] and \
        json.loads(standings.stdout).keys() == json.loads(same.stdout).keys()
    text = arena("league", "standings", "--db", str(db))  # the terminal marks what the page marks
    assert text.returncode == 0, text.stderr
    rows = {line.split()[1]: line for line in text.stdout.splitlines()[2:] if line.split()[:1] != ["-"]}
    assert "(replaced)" in rows["rnd@1"] and "(replaced)" not in rows["rnd@2"] and "(re" not in rows["greedy"], rows
    code, page = s.get("/api/league")  # the league view's data (the app draws it at /)
    assert code == 200 and "greedy" in {r["name"] for r in json.loads(page)["standings"]}


def test_retiring_takes_a_bot_off_the_ladder(league):
    s, t, db = league["server"], league["tokens"], league["db"]
    out = arena("submit", "--retire", "rnd", "--server", s.url, env={"ARENA_TOKEN": t["bob"]})
    assert out.returncode == 2 and "403" in out.stderr
    out = arena("submit", "--retire", "greedy", "--server", s.url, env={"ARENA_TOKEN": t["bob"]})
    assert out.returncode == 0 and out.stdout.strip() == "retired greedy"
    status = json.loads(arena("league", "status", "--db", str(db), "--json").stdout)
    assert [b["bot"] for b in status["active"]] == ["rnd@2"]
    text = arena("league", "standings", "--db", str(db))
    assert text.returncode == 0 and "greedy (retired)" in text.stdout, text.stdout + text.stderr


def test_an_older_versions_content_submitted_again_takes_the_ladder_back(tmp_path):
    folder = tmp_path / "o"
    folder.mkdir()
    for p in (tmp_path, folder):
        p.chmod(0o755)
    db = folder / "league.db"
    ann, bea = add_author(db, "ann"), add_author(db, "bea")
    server = Server(db)
    try:
        out = server.submit(make_bot(folder / "a_bot", BOTS / "zwicker" / "random_bot.py"), ann, None)  # named as bot add names it
        assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == "stored a@1 (conformant)", out.stderr
        b1 = make_bot(folder / "b1", BOTS / "zwicker" / "greedy_bot.py")
        for path, version in ((b1, 1), (make_bot(folder / "b2", BOTS / "zwicker" / "first_bot.py"), 2)):
            out = server.submit(path, bea, "b")
            assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == f"stored b@{version} (conformant)"
        before = stored(db)
        out = server.submit(b1, bea, "b")
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip().splitlines()[-1] == "active again: b@1 is back on the ladder in place of b@2"
        assert "conformant: the bot speaks protocol version 1" in out.stdout  # b@1's own check, not made again
        server.wait_for(lambda line: line == "active again: b@1 by bea")
        line = server.wait_for(lambda line: line.startswith("match "))  # the first the ladder picked since
        assert set(line.split(": ", 1)[1].split(" v ")) == {"a@1", "b@1"}, line
        status = json.loads(arena("league", "status", "--db", str(db), "--json").stdout)
        assert [b["bot"] for b in status["active"]] == ["a@1", "b@1"]
        assert arena("submit", "--retire", "b", "--server", server.url, env={"ARENA_TOKEN": bea}).returncode == 0
        out = server.submit(b1, bea, "b")
        assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == "active again: b@1 is back on the ladder"
        server.wait_for(lambda line: line == "active again: b@1 by bea")
        assert stored(db) == before  # no new version, no new copy
        code, body = server.get("/api/me", bea)
        versions = json.loads(body)["bots"][0]["versions"]
        assert code == 200 and [v["version"] for v in versions] == [1, 2] and versions[0]["submitted"] > \
            versions[1]["submitted"]
    finally:
        server.stop()


def test_a_java_bot_submitted_with_a_command_is_checked_stored_and_played_by_it(tmp_path):
    """A bot no file of which runs it (the Java kit: `java -jar bot.jar`) is submitted with
    --command; the check and the ladder run it by that command in its folder, in the sandbox."""
    missing = [t for t in ("javac", "jar", "java") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed: install openjdk-17-jdk-headless")
    folder = tmp_path / "j"
    shutil.copytree(BOTS / "kits" / "java", folder / "java")
    for line in ("javac -d classes Bot.java", "jar --create --file bot.jar --main-class Bot -C classes ."):
        done = subprocess.run(line, shell=True, cwd=folder / "java", capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    for p in [tmp_path, *tmp_path.rglob("*")]:  # the bot runs as a user of its own
        p.chmod(0o755 if p.is_dir() else 0o644)
    db = folder / "league.db"
    ann, bea = add_author(db, "ann"), add_author(db, "bea")
    server = Server(db)
    try:
        def submit(*args: str) -> subprocess.CompletedProcess:
            return arena("submit", str(folder / "java"), "--server", server.url, "--name", "ann-java", *args,
                         env={"ARENA_TOKEN": ann})

        before = stored(db)
        out = submit("--command", "java -jar bot.jar\nrm -rf .")
        assert out.returncode == 2 and out.stderr.strip() == \
            "arena: error: 400: the command holds a control character: give one line of words", out.stderr
        assert stored(db) == before
        out = submit("--command", "java -jar bot.jar")
        assert out.returncode == 0, out.stderr
        assert "conformant: the bot speaks protocol version 1" in out.stdout
        assert out.stdout.strip().splitlines()[-1] == "stored ann-java@1 (conformant)"
        assert submit("--command", "java -jar bot.jar").stdout.strip().splitlines()[-1] == \
            "unchanged: ann-java@1 (conformant)"
        out = submit("--command", "java -Xmx64m -jar bot.jar")  # the same files, another command: a new version
        assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == "stored ann-java@2 (conformant)"
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT version, command FROM bots WHERE name = 'ann-java'").fetchall() == \
                [(1, "java -jar bot.jar"), (2, "java -Xmx64m -jar bot.jar")]
        finally:
            conn.close()
        out = server.submit(make_bot(folder / "b_bot"), bea, "bea-rnd")
        assert out.returncode == 0, out.stderr
        line = server.wait_for(lambda line: line.startswith("match "))
        assert "ann-java@2" in line, line
        server.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        doc = json.loads(server.get("/api/league")[1])
        assert {r["bot"] for r in doc["standings"]} == {"ann-java@1", "ann-java@2", "bea-rnd"} and \
            doc["boards_done"] >= 1
        conn = sqlite3.connect(db)
        try:  # it played, run by its command
            assert conn.execute("SELECT COUNT(*) FROM seats s JOIN bots b ON b.id = s.bot_id WHERE b.name ="
                                " 'ann-java' AND b.version = 2 AND s.status = 'ok' AND s.moves > 0").fetchone()[0] >= 1
        finally:
            conn.close()
    finally:
        server.stop()


def test_a_submission_without_a_name_is_named_as_bot_add_names_it(tmp_path):
    from arena.league.client import default_name

    (tmp_path / "my_bot").mkdir()
    for file in ("my_bot.tar.gz", "my-bot.tgz", "my.tar"):
        (tmp_path / file).write_bytes(b"")
        assert default_name(tmp_path / file) == "my", file
    assert default_name(tmp_path / "my_bot") == default_name(tmp_path / "my_bot" / ".") == "my"
    assert default_name(BOTS / "zwicker" / "greedy_bot.py") == "greedy"


def test_the_pairing_prefers_new_versions_then_overlapping_intervals():
    r = {1: pairing.Rated(0, -50, 50), 2: pairing.Rated(300, 250, 350), 3: pairing.Rated(20, -40, 80)}
    boards = {frozenset((1, 2)): 8, frozenset((1, 3)): 8, frozenset((2, 3)): 8}
    assert pairing.next_pair([1, 2, 3], r, boards, {1: 3, 2: 3, 3: 3}, boards=8) == (1, 3)
    assert pairing.next_pair([1, 2, 3, 4], r, boards, {1: 3, 2: 3, 3: 3}, boards=8)[0] == 4  # new: first
    two = {1: pairing.Rated(0, -50, 50), 2: pairing.Rated(20, -30, 70), 3: pairing.Rated(300, 250, 350),
           4: pairing.Rated(320, 270, 370)}  # two pairs in doubt, as much each
    even = {frozenset((a, b)): 8 for a in two for b in two if a < b}
    assert pairing.next_pair([1, 2, 3, 4], two, even, dict.fromkeys(two, 3), boards=8) == (1, 2)
    assert pairing.next_pair([1, 2, 3, 4], two, {**even, frozenset((1, 2)): 800}, dict.fromkeys(two, 3),
                             boards=8) == (3, 4)  # the pair with fewer boards between them
    assert pairing.next_pair([1], r, boards, {}, boards=8) is None


# -- kill -9 -----------------------------------------------------------------------------------


def tables(db: Path) -> dict[tuple[int, int, int], tuple[int, int]]:
    conn = sqlite3.connect(db)
    try:
        return {(m, b, s): (p0, p1) for m, b, s, p0, p1 in conn.execute(
            "SELECT m.match_no, t.board_no, t.swapped, json_extract(t.side_points, '$[0]'), json_extract(t.side_points, '$[1]') FROM board_tables t"
            " JOIN matches m ON m.id = t.match_id")}
    finally:
        conn.close()


def each_board_once(db: Path) -> None:
    """Every match has at most its two rooms' tables, and a board for each board whose two
    tables are both stored: nothing counted twice."""
    after = tables(db)
    conn = sqlite3.connect(db)
    try:
        for match_no, n_tables, n_boards in conn.execute(
                "SELECT m.match_no, (SELECT COUNT(*) FROM board_tables t WHERE t.match_id = m.id),"
                " (SELECT COUNT(*) FROM boards b WHERE b.match_id = m.id) FROM matches m"):
            assert n_tables <= 4 and n_boards == sum(
                1 for b in range((match_no - 1) * 2, match_no * 2)
                if (match_no, b, 0) in after and (match_no, b, 1) in after), match_no
    finally:
        conn.close()


def test_a_killed_server_started_again_loses_and_doubles_nothing(tmp_path):
    folder = tmp_path / "k"
    folder.mkdir()
    folder.chmod(0o755)
    tmp_path.chmod(0o755)
    db = folder / "league.db"
    token = add_author(db, "ann")
    server = Server(db)
    try:
        for name, source in (("a", "random_bot.py"), ("b", "greedy_bot.py")):
            assert server.submit(make_bot(folder / name, BOTS / "zwicker" / source), token, name).returncode == 0
        server.wait_for(lambda line: line.startswith("room stored:"))
        line = server.wait_for(lambda line: line.startswith("match "))  # one more started: in play
        in_play = int(line.split()[1])
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(timeout=60)
    finally:
        server.stop()
    while leftover_bot_pids():
        pass  # the kernel's parent-death signals take the bots down
    before = tables(db)
    status = json.loads(arena("league", "status", "--db", str(db), "--json").stdout)
    assert status["status"] == "interrupted" and in_play in [m["match_no"] for m in status["to_resume"]]
    text = arena("league", "status", "--db", str(db)).stdout  # each match as its entrants, its boards by its rooms
    for m in status["to_resume"]:
        assert f"to resume at the next start: match {m['match_no']} {' v '.join(m['entrants'])}, " \
            f"{m['tables'] // m['rooms']}/{m['boards']} boards stored" in text
    again = Server(db)
    try:
        line = again.wait_for(lambda line: line.startswith("match "))
        assert line.startswith(f"match {status['to_resume'][0]['match_no']} resumed: ")
        while len({(m, b) for (m, b, _s) in tables(db) if m == in_play}) < 2 or \
                sum(1 for (m, _b, _s) in tables(db) if m == in_play) < 4:
            again.wait_for(lambda line: line.startswith("room stored:"))
        again.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        code, body = again.get("/api/standings")
        document = json.loads(body)
    finally:
        again.stop()
    after = tables(db)
    assert {k: after[k] for k in before} == before  # nothing lost, nothing played again
    each_board_once(db)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM board_tables t JOIN matches m ON m.id = t.match_id"
                            " WHERE m.match_no = ?", [in_play]).fetchone()[0] == 4
        (boards,) = conn.execute("SELECT COUNT(*) FROM boards").fetchone()
    finally:
        conn.close()
    assert sum(r["boards"] for r in document["standings"]) == 2 * len(document["boards"]) <= 2 * boards


# -- on a Dask cluster --------------------------------------------------------------------------


def test_a_league_on_a_dask_cluster_plays_its_rooms_on_the_workers_and_stores_them_here(tmp_path):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install .[cluster])")
    import psutil  # (Dask's own dependency)
    folder = tmp_path / "c"
    folder.mkdir()
    for p in (tmp_path, folder):
        p.chmod(0o755)
    db = folder / "league.db"
    token = add_author(db, "ann")
    scratch = tmp_path / "dask"  # the workers' local directories: where the bots' bundles are unpacked
    server = Server(db, "--cluster", "local:1", env={"DASK_TEMPORARY_DIRECTORY": str(scratch)})
    try:
        assert server.wait_for(lambda line: line.startswith("cluster ")) == \
            "cluster local:1: 1 workers, 2 threads; 1 matches at once"
        for name, source in (("a", "random_bot.py"), ("b", "greedy_bot.py")):
            assert server.submit(make_bot(folder / name, BOTS / "zwicker" / source), token, name).returncode == 0
        while len(tables(db)) < 4:  # match 1, both rooms
            server.wait_for(lambda line: line.startswith("room stored:"))
        conn = sqlite3.connect(db)
        try:
            shas = {sha for (sha,) in conn.execute("SELECT sha256 FROM bots")}
        finally:
            conn.close()
        unpacked = {p.name for p in scratch.glob(f"**/{cluster.CACHE}/*")}
        assert unpacked == shas  # both bots travelled to the worker by content; none was played here
        server.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        code, body = server.get("/api/standings")
        workers = psutil.Process(server.proc.pid).children(recursive=True)  # the local cluster's processes
    finally:
        server.stop()
    psutil.wait_procs(workers)  # a worker may finish the room it plays after the server has gone
    while leftover_bot_pids():
        pass  # the kernel's parent-death signals take the bots of a worker's last room down
    assert code == 200
    document = json.loads(body)
    assert {(m, b, s) for (m, b, s) in tables(db) if m == 1} == {(1, b, s) for b in (0, 1) for s in (0, 1)}
    each_board_once(db)
    conn = sqlite3.connect(db)
    try:
        (settings,) = conn.execute("SELECT settings FROM tournaments WHERE name = 'league'").fetchone()
    finally:
        conn.close()
    assert {r["bot"] for r in document["standings"]} == {"a", "b"}
    assert [m for m in json.loads(settings)["sandboxes"] if m] == [resolve_mode("auto")]  # as the worker resolved it


def test_cluster_without_dask_or_with_a_bad_address_is_one_line_and_nothing_is_made(tmp_path):
    hidden = tmp_path / "hide"
    (hidden / "distributed").mkdir(parents=True)
    (hidden / "distributed" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    db = tmp_path / "league.db"
    out = arena("league", "serve", "--db", str(db), "--cluster", "local:1", env={"PYTHONPATH": str(hidden)})
    assert out.returncode == 2 and out.stderr.splitlines() == [f"arena: error: {cluster.INSTALL_HINT}"], out.stderr
    out = arena("league", "serve", "--db", str(db), "--cluster", "10.0.0.5:8786")
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1, out.stderr
    assert out.stderr.startswith("arena: error: --cluster takes local:N or a scheduler's address")
    assert not db.exists()


# -- the CLI -----------------------------------------------------------------------------------


def test_every_league_command_has_help_with_an_example():
    from typer.testing import CliRunner

    from arena.cli import _register, app

    _register()
    for argv in (["league", "serve"], ["league", "status"], ["league", "standings"], ["league", "author", "add"],
                 ["league", "author", "list"], ["league", "author", "revoke"], ["submit"]):
        out = CliRunner().invoke(app, [*argv, "--help"]).output
        assert "Example: arena " in out, argv


@pytest.mark.parametrize("args, words", [
    (["league", "status", "--db", "{tmp}/none.db"], "no arena database at"),
    (["league", "author", "revoke", "nobody", "--db", "{tmp}/a.db"], "unknown author 'nobody'"),
    (["league", "standings", "--db", "{tmp}/a.db"], "no league 'league' in this database yet"),
    (["submit", "bots/zwicker/random_bot.py", "--name", "x"], "no token: set ARENA_TOKEN or give --token-file"),
    (["submit", "bots/zwicker/random_bot.py", "--token-file", "{tmp}/none"], "cannot read --token-file"),
    (["submit", "--token-file", "{tmp}/token", "--name", "x"], "give the bot's PATH (or --retire NAME)"),
    (["submit", "bots/zwicker/random_bot.py", "--token-file", "{tmp}/token", "--name", "x", "--server",
      "http://127.0.0.1:9"],
     "cannot reach the league at http://127.0.0.1:9/api/submit"),
])
def test_bad_input_is_one_clear_line_and_exit_2(capsys, tmp_path, args, words, monkeypatch):
    from arena.cli import main

    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.chdir(ROOT)
    schema.open_db(tmp_path / "a.db").close()
    (tmp_path / "token").write_text("zwl_1_not-a-real-token-at-all\n")
    with pytest.raises(SystemExit) as exit_info:
        main([a.replace("{tmp}", str(tmp_path)) for a in args])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.startswith("arena: error: ") and words in err and err.count("\n") == 1, err


def test_the_same_files_with_another_command_are_a_new_version(tmp_path):
    """A version is its files and its command (migration 0016): a kept database's bots move
    over whole, and the same folder registered with another command is version 2, sharing the
    stored copy; a path alone still finds its content's version."""
    from arena.results import registry

    kept = tmp_path / "kept.db"
    shutil.copy(ROOT / "tests" / "data" / "arena-0014.db", kept)
    before = sqlite3.connect(kept).execute("SELECT id, name, version, sha256 FROM bots ORDER BY id").fetchall()
    db = schema.open_db(kept)
    assert [tuple(r) for r in db.execute("SELECT id, name, version, sha256 FROM bots ORDER BY id")] == before
    assert "bots_content" in {r[1] for r in db.execute("PRAGMA index_list(bots)")}
    assert db.execute("PRAGMA foreign_key_check").fetchone() is None
    folder = make_bot(tmp_path / "cmd")
    one = registry.add_bot(db, folder, name="cmd", command="python3 bot.py")
    two = registry.add_bot(db, folder, name="cmd", command="python3 -u bot.py", new_version=True)
    assert (one["version"], two["version"]) == (1, 2) and one["path"] == two["path"]
    assert registry.add_bot(db, folder, name="cmd", command="python3 bot.py")["id"] == one["id"]
    assert registry.add_bot(db, folder, name="cmd")["id"] == two["id"]  # a path alone: its content's last
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO bots (name, version, command, path, kind, source, sha256, added) SELECT name, 3,"
                   " command, path, kind, source, sha256, added FROM bots WHERE id = ?", [one["id"]])
