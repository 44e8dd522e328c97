"""The league against a hostile author, over loopback, against a real `arena league serve`:
archives built to exhaust the server (extended-header and long-name bombs), archives whose
names cannot be stored, and raw HTTP at the edges of the protocol. Each is refused with one
line, stores nothing, and leaves the server answering."""

from __future__ import annotations

import gzip
import io
import json
import secrets
import socket
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.test_league import BOTS, Server, add_author, arena, make_bot, stored

AUTHORS = ("mallory", "trent", "peggy", "victor")


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    folder = Path(tmp_path_factory.mktemp("hostile"))
    folder.chmod(0o755)
    db = folder / "league.db"
    tokens = {name: add_author(db, name) for name in AUTHORS}
    server = Server(db, "--submit-limit", "1000", "--code-limit", "3")
    yield {"server": server, "db": db, "tokens": tokens, "folder": folder}
    if server.proc.poll() is not None:
        Path("/tmp/league_dead.txt").write_text(server.proc.stderr.read())
    server.stop()


def post(url: str, token: str | None, name: str, data: bytes, filename: str = "bot.tar.gz") -> tuple[int, dict]:
    boundary = "----hostile" + secrets.token_hex(8)
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n{name}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="{filename}"\r\n'
            "Content-Type: application/gzip\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url + "/api/submit", data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def peak_memory(pid: int) -> int:
    """The process's peak resident memory in KiB (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def raw_header(name: bytes, kind: bytes, size: int) -> bytes:
    """One 512-byte ustar header, built by hand (tarfile would not write what a bomb needs)."""
    info = tarfile.TarInfo("x")
    info.type, info.size, info.mode = kind, size, 0o644
    block = bytearray(info.tobuf(format=tarfile.USTAR_FORMAT))
    block[0:100] = name.ljust(100, b"\0")[:100]
    block[148:156] = b"        "
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


def bomb(kind: bytes, size: int) -> bytes:
    """A gzip tar whose first member is an extended header (or GNU long name) of `size` bytes,
    then a bot file: a few hundred KB that would hold `size` bytes in memory."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as z:
        z.write(raw_header(b"././@PaxHeader" if kind in (b"x", b"g") else b"././@LongLink", kind, size))
        line = b"%d comment=" % size if kind in (b"x", b"g") else b""
        z.write(line)
        zeros = bytes(1 << 20)
        left = size - len(line)
        while left > 0:
            z.write(zeros[: min(left, len(zeros))])
            left -= len(zeros)
        z.write(bytes(-size % 512))
        code = b"print('hi')\n"
        z.write(raw_header(b"b.py", tarfile.REGTYPE, len(code)) + code + bytes(-len(code) % 512) + bytes(1024))
    return out.getvalue()


@pytest.mark.parametrize("kind, what", [(b"x", "an extended (PAX) header"), (b"g", "a global extended (PAX) header"),
                                        (b"L", "a GNU long name"), (b"K", "a GNU long link name")])
def test_an_extended_header_bomb_is_refused_before_it_is_read(league, kind, what):
    s, t, db = league["server"], league["tokens"], league["db"]
    data = bomb(kind, 96 * 1024 * 1024)
    assert len(data) < 200_000 + 64 * 1024  # within the upload limit of a 200 KB bot
    before, memory = stored(db), peak_memory(s.proc.pid)
    code, answer = post(s.url, t["mallory"], "bomb", data)
    assert code == 400 and answer["error"] == f"the archive holds {what} of {96 * 1024 * 1024} bytes (at most 32768 " \
        "allowed)", answer
    assert stored(db) == before
    assert peak_memory(s.proc.pid) - memory < 32 * 1024  # KiB: the header never came into the server
    assert s.get("/api/status")[0] == 200


def test_a_stream_longer_than_its_limit_is_refused(league):
    """Many small extended headers, each under the cap, add up to more tar than a bot may be."""
    s, t = league["server"], league["tokens"]
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb") as z:
        z.write(raw_header(b"b", tarfile.DIRTYPE, 0))
        for n in range(400):
            record = b"30000 comment=" + b"a" * (30000 - 15) + b"\n"
            z.write(raw_header(b"././@PaxHeader", b"x", len(record)) + record + bytes(-len(record) % 512))
            z.write(raw_header(b"b/f%d" % n, tarfile.REGTYPE, 0))
        z.write(bytes(1024))
    code, answer = post(s.url, t["mallory"], "stream", out.getvalue())
    assert code == 400 and answer["error"].startswith("the archive's tar stream is longer than "), answer


def gnu_tar(*members: tuple[bytes, bytes, bytes]) -> bytes:
    """A gzip tar of (name as bytes, type, content) members, names written as given."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb") as z:
        for name, kind, body in members:
            z.write(raw_header(name, kind, len(body)) + body + bytes(-len(body) % 512))
        z.write(bytes(1024))
    return out.getvalue()


CODE = (BOTS / "zwicker" / "random_bot.py").read_bytes()


@pytest.mark.parametrize("members, reason", [
    ([(b"b/bot.py", b"0", CODE), (b"b/bot.py/x.py", b"0", CODE)], "uses the file 'b/bot.py' as a folder"),
    ([(b"b/lib/x.py", b"0", CODE), (b"b/lib", b"0", CODE)], "is a file where the archive has a folder"),
    ([(b"b/bot.py", b"0", CODE), (b"b/\xff\xfe.py", b"0", CODE)], "has a name that is not UTF-8"),
    ([(b"b/bot.py", b"0", CODE), (b"b/a\x1b[31m.py", b"0", CODE)], "has a name that contains a control character"),
    ([(b"b/bot.py", b"0", CODE), (b"b/a\nb.py", b"0", CODE)], "has a name that contains a control character"),
    ([(b"b/bot.py", b"0", CODE), (b"b/\xc2\x85.py", b"0", CODE)], "has a name that contains a control character"),
], ids=["file-as-folder", "folder-as-file", "not-utf8", "escape", "newline", "c1"])
def test_a_name_that_cannot_be_stored_is_400_and_nothing_stored(league, members, reason):
    s, t, db = league["server"], league["tokens"], league["db"]
    before = stored(db)
    code, answer = post(s.url, t["trent"], "names", gnu_tar(*members))
    assert code == 400 and answer["error"].startswith("archive entry ") and reason in answer["error"], answer
    assert "\x1b" not in answer["error"] and "\n" not in answer["error"]
    assert stored(db) == before


def test_a_good_bot_is_still_taken(league):
    s, t = league["server"], league["tokens"]
    bot = make_bot(league["folder"] / "fine", BOTS / "zwicker" / "first_bot.py")
    from arena.league import archive

    code, answer = post(s.url, t["peggy"], "fine", archive.pack(bot))
    assert code == 201 and answer["summary"] == "stored fine@1 (conformant)", answer


def test_code_downloads_are_limited_and_only_the_authors_own_versions(league):
    """The organiser registering another version under an author's name (the command the CLI
    suggests) does not make it the author's: their code endpoint serves their versions only."""
    s, t, db = league["server"], league["tokens"], league["db"]
    bot = make_bot(league["folder"] / "mine", BOTS / "zwicker" / "greedy_bot.py")
    from arena.league import archive

    code, answer = post(s.url, t["victor"], "mine", archive.pack(bot))
    assert code == 201, answer
    organisers = make_bot(league["folder"] / "organisers", BOTS / "zwicker" / "random_bot.py")
    for name in ("mine", "Mine", "m1ne"):
        out = arena("bot", "add", str(organisers), "--name", name, "--new-version", "--no-check", "--db", str(db))
        assert out.returncode == 2 and out.stderr.strip() == "arena: error: the name 'mine' belongs to the league " \
            "author 'victor' (their bot, their versions): choose another --name", out.stderr
    from arena.results import registry, schema

    conn = schema.open_db(db)  # as an older arena let the organiser do
    try:
        assert registry.add_bot(conn, organisers, name="mine", new_version=True)["version"] == 2
    finally:
        conn.close()
    code, body = s.get("/api/bots/mine/code", t["victor"])
    assert code == 200
    with tarfile.open(fileobj=io.BytesIO(body)) as tar:
        assert tar.extractfile("mine/bot.py").read() == (bot / "bot.py").read_bytes()
    assert s.get("/api/bots/mine/code?version=2", t["victor"])[0] == 404
    assert s.get("/api/bots/mine/code?version=99999999999999999999", t["victor"])[0] == 400
    for _ in range(2):  # the second and third of three an hour (a refusal does not count)
        assert s.get("/api/bots/mine/code?version=1", t["victor"])[0] == 200
    code, body = s.get("/api/bots/mine/code", t["victor"])
    assert code == 429 and json.loads(body)["error"].startswith("too many code downloads: wait "), body
    assert s.get("/api/me", t["victor"])[0] == 200


def test_the_submission_limit_survives_a_restart(tmp_path):
    tmp_path.chmod(0o755)
    db = tmp_path / "league.db"
    token = add_author(db, "quick")
    for attempt in range(2):
        server = Server(db, "--submit-limit", "1")
        try:
            code, answer = post(server.url, token, "quick", b"not an archive")
            assert code == (400 if attempt == 0 else 429), answer
        finally:
            server.stop()


@pytest.mark.parametrize("name, words", [
    ("Rnd", "reads as 'rnd', a bot's name already"), ("r-n-d", "reads as 'rnd'"), ("rnd_", "reads as 'rnd'"),
    ("admin", "is reserved (it reads as 'admin')"), ("Organiser", "is reserved"), ("RANDOM", "is reserved"),
    ("1eague", "is reserved (it reads as 'league')"), ("rand0m", "is reserved"),
])
def test_a_name_that_reads_as_another_or_a_reserved_word_is_403(league, name, words):
    s, t, db = league["server"], league["tokens"], league["db"]
    if not any(line == "submitted: rnd@1 by trent" for line in s.lines):
        from arena.league import archive

        code, answer = post(s.url, t["trent"], "rnd", archive.pack(make_bot(league["folder"] / "rnd", BOTS / "zwicker"
                                                                            / "random_bot.py")))
        assert code == 201, answer
        s.wait_for(lambda line: line == "submitted: rnd@1 by trent")
    before = stored(db)
    code, answer = post(s.url, t["peggy"], name, b"never read")
    assert code == 403 and answer["error"].startswith(f"the name '{name}' ") and words in answer["error"] and \
        answer["error"].endswith(": choose another --name"), answer
    assert stored(db) == before


def raw(url: str, request: bytes) -> bytes:
    """One request over a plain socket; everything the server sends back until it closes."""
    host, port = url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def answers(data: bytes) -> list[int]:
    """The status of every HTTP response in what a connection got back."""
    return [int(part[:3]) for part in data.split(b"HTTP/1.1 ")[1:] if part[:3].isdigit()] \
        if data.startswith(b"HTTP/1.1 ") else []


def test_ambiguous_framing_is_400_and_nothing_smuggled_is_answered(league):
    s = league["server"]
    host = s.url.split("//")[1]
    smuggled = f"GET /api/status HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    for headers, status in ((b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", 400),
                            (b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", 400),
                            (b"Transfer-Encoding: chunked\r\n", 400),
                            (b"Content-Length: 5\r\nContent-Length: 6\r\n", 400),  # (h11's own refusal)
                            (b"Transfer-Encoding: gzip, chunked\r\n", 501)):  # (h11's own refusal)
        got = raw(s.url, b"POST /api/submit HTTP/1.1\r\nHost: " + host.encode() + b"\r\n" + headers + b"\r\n0\r\n\r\n"
                  + smuggled)
        assert answers(got) == [status], (headers, got)


def test_a_foreign_host_header_is_refused(league):
    s = league["server"]
    port = s.url.rsplit(":", 1)[1]
    for host, status in ((f"127.0.0.1:{port}", 200), (f"localhost:{port}", 200), ("LOCALHOST", 200),
                         (f"evil.example:{port}", 400), ("evil.example", 400), (f"127.0.0.1.evil.example:{port}", 400)):
        got = raw(s.url, f"GET /api/status HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        assert answers(got) == [status], (host, got[:200])
    assert b"evil" not in raw(s.url, b"GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")


@pytest.mark.parametrize("path", ["/match/99999999999999999999999", "/replay/99999999999999999999999",
                                  "/api/deals/99999999999999999999999", "/api/deals/-1", "/match/%C2%B9",
                                  "/api/deals/1e9", "/match/0"])
def test_an_id_out_of_range_is_404_never_500(league, path):
    s = league["server"]
    code, body = s.get(path)
    assert code == 404 and b"Error" not in body and b"Traceback" not in body, body


def test_the_same_content_sent_four_times_at_once_is_one_row_and_one_new_answer(league):
    import threading

    from arena.league import archive

    s, t, db = league["server"], league["tokens"], league["db"]
    data = archive.pack(make_bot(league["folder"] / "twice", BOTS / "zwicker" / "greedy_bot.py", stderr="twice"))
    before = stored(db)
    results: list[tuple[int, dict]] = []
    threads = [threading.Thread(target=lambda: results.append(post(s.url, t["peggy"], "twice", data)))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answer["state"] for _code, answer in results) == ["new", "unchanged", "unchanged", "unchanged"]
    assert sorted(code for code, _answer in results) == [200, 200, 200, 201]
    rows, copies = stored(db)
    assert rows == before[0] + 1 and len(copies) == len(before[1]) + 1


PROBE = r"""
import json, os, sys
marker, server, deeper, league = sys.argv[1].encode(), sys.argv[2], int(sys.argv[3]), sys.argv[4]
NAMES = {"bot.py", "notes.txt"}  # the submitted bots' files


def status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                out[key] = value.split()
    except OSError:
        pass
    return out


def bots():
    # the server's descendants in a PID namespace `deeper` than its own: its bots (and their inits)
    parents = {pid: status(pid) for pid in os.listdir("/proc") if pid.isdigit()}
    depth = len(parents.get(server, {}).get("NSpid", []))
    below = {server}
    while True:
        more = {p for p, st in parents.items() if st.get("PPid", [None])[0] in below} - below
        if not more:
            break
        below |= more
    return {p for p in below if len(parents[p].get("NSpid", [])) >= depth + deeper}, below


def read(path, leaks):
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 22)
    except OSError:
        return
    if marker in data or os.path.realpath(path).startswith(league + "/"):  # (the database, stored bots)
        leaks.add(path)


def walk(root, leaks, every):
    for here, dirs, files in os.walk(root):
        for name in files:
            if every or name in NAMES:
                read(os.path.join(here, name), leaks)


def scan(leaks, named):
    walk(league, leaks, True)  # (the server's TMPDIR too: its submissions' and sandbox's temp folders)
    walk("/tmp", leaks, False)
    for entry in os.listdir("/dev/shm"):
        if not entry.startswith("zwicker-usr-"):  # (the sandbox's /usr: a copy of the machine's own)
            walk(os.path.join("/dev/shm", entry), leaks, True)
    paths = set()
    for pid in named:  # what the server's processes name: their command lines, their mounts' sources
        paths |= {f"/proc/{pid}/root/bot/bot.py", f"/proc/{pid}/cwd/bot.py"}
        try:
            paths |= {a.decode(errors="replace") for a in open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")}
            for root in {line.split()[3] for line in open(f"/proc/{pid}/mountinfo")} - {"/"}:
                paths |= {root, "/dev/shm" + root, "/tmp" + root}
        except OSError:
            pass
    for path in paths:
        if not path.startswith("/") or path.count("/") < 2 or path.startswith("/dev/shm/zwicker-usr-") or \
                os.path.normpath(path) in ("/tmp", "/dev/shm"):
            continue
        if os.path.isdir(path) and path.startswith(("/tmp/", "/dev/shm/", league)):
            walk(path, leaks, True)
        elif os.path.isfile(path):
            read(path, leaks)


leaks, during, rounds, seen = set(), 0, 0, set()
while during < 3 and rounds < 200:
    rounds += 1
    before, family = bots()
    scan(leaks, family)
    during += bool(before & bots()[0])  # a bot that ran from before the scan to after it
    seen |= before
print(json.dumps({"leaks": sorted(leaks), "during": during, "rounds": rounds, "bots": len(seen)}))
"""


@pytest.mark.parametrize("organiser", ["root", "user"])
def test_no_other_user_reads_the_database_or_any_code_while_matches_play(open_dir, organiser):
    """As root the bots run as throw-away uids; as an ordinary user (here uid nobody) in user
    namespaces, as that user. Either way, another local user scanning /tmp, /dev/shm, the
    league's folder and every path a process's command line or mount table names, again and
    again while bots play, reads neither the database nor a byte of the authors' code."""
    import os
    import sqlite3
    import subprocess

    from tests.users import NOBODY, as_nobody

    nobody = tuple(as_nobody())
    prefix = nobody if organiser == "user" else ()
    other = (4242, 4242) if organiser == "user" else (NOBODY, NOBODY)
    if organiser == "user":
        os.chown(open_dir, NOBODY, NOBODY)
    db = open_dir / "league.db"
    marker = "code-secret-" + secrets.token_hex(8)
    tokens = [add_author(db, name, prefix) for name in ("ann", "bea")]
    (open_dir / "tmp").mkdir(mode=0o1777)
    (open_dir / "tmp").chmod(0o1777)
    server = Server(db, env={"TMPDIR": str(open_dir / "tmp")}, prefix=prefix)
    try:
        for token, name, source in zip(tokens, ("ann", "bea"), ("random_bot.py", "greedy_bot.py"), strict=True):
            bot = make_bot(open_dir / "src" / name, BOTS / "zwicker" / source)
            (bot / "bot.py").write_text((bot / "bot.py").read_text() + f"\n# {marker}\n")
            (bot / "notes.txt").write_text(marker)
            (bot / "notes.txt").chmod(0o644)
            (open_dir / "src").chmod(0o700)  # the sources: not what is looked for
            out = server.submit(bot, token, name)
            assert out.returncode == 0, out.stderr
        server.wait_for(lambda line: line.startswith("match "))
        probe = subprocess.run(
            ["setpriv", f"--reuid={other[0]}", f"--regid={other[1]}", "--clear-groups", "/usr/bin/python3", "-I",
             "-c", PROBE, marker, str(server.proc.pid), "1" if organiser == "root" else "2", str(open_dir)],
            capture_output=True, text=True, cwd="/", timeout=600)
        assert probe.returncode == 0, probe.stderr
        found = json.loads(probe.stdout)
        assert found["leaks"] == [] and found["during"] >= 1, found
        server.wait_for(lambda line: line.startswith("rated:") and line != "rated: 0 boards")
        for path in (db, db.with_name("league.db-wal"), db.with_name("league.db-shm"), open_dir / "bots"):
            assert path.stat().st_mode & 0o077 == 0, path
        conn = sqlite3.connect(db)
        (boards,) = conn.execute("SELECT COUNT(*) FROM board_tables").fetchone()
        conn.close()
        assert boards >= 1
    finally:
        server.stop()


def test_a_server_sweeps_the_temp_folders_a_killed_one_left(tmp_path):
    import os

    tmp_path.chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir(mode=0o755)
    dead = temp / "arena-submission-999999999-abc"  # no such pid
    (dead / "bot").mkdir(parents=True)
    alive = temp / f"arena-submission-{os.getpid()}-def"  # this test runs
    alive.mkdir()
    db = tmp_path / "league.db"
    add_author(db, "anyone")
    server = Server(db, env={"TMPDIR": str(temp)})
    try:
        assert server.next_line() == f"swept: {dead} (left by a server stopped mid-submission)"
        assert not dead.exists() and alive.exists()
    finally:
        server.stop()


def test_a_storage_quota_refuses_and_pruning_frees_it(tmp_path):
    """Each version here takes about 25 KB (the bot kit beside the bot): two fit in 0.06 MiB,
    a third does not until the organiser prunes the one that never played."""
    from arena.league import archive

    tmp_path.chmod(0o755)
    db = tmp_path / "league.db"
    token = add_author(db, "hoarder")
    server = Server(db, "--quota-mb", "0.06")
    try:
        sources = ("random_bot.py", "first_bot.py", "greedy_bot.py")
        data = [archive.pack(make_bot(tmp_path / f"v{k}", BOTS / "zwicker" / source)) for k, source in enumerate(sources)]
        for k in (0, 1):
            code, answer = post(server.url, token, "hoard", data[k])
            assert code == 201, answer
        before = stored(db)
        code, answer = post(server.url, token, "hoard", data[2])
        assert code == 507 and answer["error"].startswith("over your storage quota: your stored versions take 0.0"), \
            answer
        assert stored(db) == before
        out = arena("league", "prune", "--db", str(db))
        assert out.returncode == 0 and out.stdout.splitlines()[0].startswith("pruned hoard@1 by hoarder ("), out.stdout
        assert arena("league", "prune", "--db", str(db)).stdout.strip() == "0 versions, 0.0 MiB freed"
        code, answer = post(server.url, token, "hoard", data[2])
        assert code == 201 and answer["version"] == 3, answer
        code, body = server.get("/api/me", token)
        assert [v["version"] for v in json.loads(body)["bots"][0]["versions"]] == [1, 2, 3]  # hoard@1's check stays
    finally:
        server.stop()


def zeros_bomb(size: int) -> bytes:
    """A gzip tar of one file of `size` zero bytes: about a thousandth of it sent, `size` unpacked."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as z:
        z.write(raw_header(b"b.py", tarfile.REGTYPE, size))
        zeros = bytes(1 << 20)
        for start in range(0, size, len(zeros)):
            z.write(zeros[: min(len(zeros), size - start)])
        z.write(bytes(-size % 512) + bytes(1024))
    return out.getvalue()


def test_the_pages_answer_while_the_worst_archives_are_refused(league):
    """Six of the worst archives in flight at once (PAX and GNU long-name header bombs, and
    decompression bombs at the upload limit: two unpack at a time, in processes of their own):
    the page and the API, asked once every bomb has been sent whole, answer before the last
    refusal does. An event loop that unpacked, or waited on the unpacker, would answer them after."""
    import select
    import threading
    import time

    s, t = league["server"], league["tokens"]
    host, port = s.url.split("//")[1].split(":")
    bombs = [bomb(b"x", 96 << 20), bomb(b"L", 96 << 20), *[zeros_bomb(200 << 20)] * 4]
    assert all(len(data) < 200_000 + 64 * 1024 for data in bombs)  # within the upload limit of a 200 KB bot
    socks = []
    for k, data in enumerate(bombs):
        boundary = "----worst" + secrets.token_hex(8)
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nworst{k}\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; filename="b.tar.gz"\r\n'
                "Content-Type: application/gzip\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        head = (f"POST /api/submit HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {t['mallory']}\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n").encode()
        sock = socket.create_connection((host, int(port)), timeout=300)
        sock.sendall(head + body)  # whole, before any page is asked for
        socks.append(sock)
    events: list[str] = []
    lock = threading.Lock()

    def ask() -> None:
        for path in ("/", "/api/league", "/api/status"):
            code, _body = s.get(path)
            with lock:
                events.append(f"{path} {code}")

    asker = threading.Thread(target=ask)
    asker.start()
    answers_of: dict[socket.socket, bytes] = {sock: b"" for sock in socks}
    open_ = set(socks)
    deadline = time.monotonic() + 300  # a guard against a hang, not a timing assertion
    while open_ and time.monotonic() < deadline:
        ready, _, _ = select.select(list(open_), [], [], 5)
        for sock in ready:
            chunk = sock.recv(65536)
            answers_of[sock] += chunk
            if not chunk:
                open_.discard(sock)
                sock.close()
                with lock:
                    events.append("refused")
    asker.join()
    assert not open_, "a bomb was never answered"
    assert all(data.startswith(b"HTTP/1.1 400 ") for data in answers_of.values()), \
        [data[:200] for data in answers_of.values()]
    pages = [e for e in events if e != "refused"]
    assert pages == ["/ 200", "/api/league 200", "/api/status 200"], events
    assert events[-1] == "refused", events  # every page answered before the last refusal
