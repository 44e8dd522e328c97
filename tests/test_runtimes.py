"""Bots in other languages than Python run in the default sandbox as they run outside, with no
setting: Perl, Ruby, Java (a source file and a jar), Node.js and Tcl (a runtime the view knows
nothing special of), checked by `arena bot check`
as root and as an ordinary user (tests/runtimes/ holds the bots: each plays the first legal
move, msgpack by hand). arena/process/view.py finds what each runtime needs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import games
from arena.process import fitted, view
from arena.process.command import Limits
from tests.users import NOBODY, as_nobody

ROOT = Path(__file__).resolve().parent.parent
ARENA = Path(sys.executable).parent / "arena"
BOTS = Path(__file__).parent / "runtimes"
USERS = [None, pytest.param(NOBODY, id="user")] if os.geteuid() == 0 else [None]
"""As root the test also runs the arena as an ordinary user (CI runs it as one anyway)."""


PACKAGES = {"java": "default-jdk-headless", "javac": "default-jdk-headless", "jar": "default-jdk-headless", "tclsh": "tcl"}


def needs(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed here (Debian: apt-get install {PACKAGES.get(program, program)})")


def check(bot: str, cwd: Path, user: int | None, *extra: str) -> subprocess.CompletedProcess:
    """`arena bot check BOT` in the default sandbox, as `user` (None: this process's)."""
    argv = [str(ARENA), "bot", "check", bot, "--deals", "1", *extra]
    if user is not None:
        argv = [*as_nobody(), *argv]
    env = {**os.environ, "HOME": str(cwd)}
    env.pop(view.EXTRA_VAR, None)  # nothing added by hand: the view finds the runtime itself
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=600, env=env)


@pytest.fixture
def bots(open_dir):
    folder = open_dir / "bots"
    shutil.copytree(BOTS, folder)
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755)
    return folder


def conformant(proc: subprocess.CompletedProcess, name: str) -> None:
    assert proc.returncode == 0 and "conformant" in proc.stdout, (proc.stdout, proc.stderr)
    assert f"as '{name}'" in proc.stdout


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("script, program, name", [("first.pl", "perl", "perl-first"), ("first.rb", "ruby", "ruby-first")])
def test_a_script_runs_under_the_interpreter_its_hash_bang_names(bots, user, script, program, name):
    needs(program)
    conformant(check(f"./{script}", bots, user), name)


@pytest.mark.parametrize("user", USERS)
def test_a_java_source_file_runs_as_java_file_java_with_no_flags(bots, user):
    """`java Bot.java` compiles in the sandbox: the JDK's home, its modules and its configuration
    under /etc (java.security) are in the view, and the arena's JAVA_TOOL_OPTIONS and
    MALLOC_ARENA_MAX (arena/process/fitted.py) fit the JVM to the limits. (At one game: the same
    JVM at a table of each bundled game is the jar's test below.)"""
    needs("java")
    conformant(check("java Bot.java", bots, user, "--game", "zwicken"), "java-first")


@pytest.fixture(scope="module")
def jar(tmp_path_factory) -> Path:
    """tests/runtimes/Bot.java built into bot.jar once for the module's tests."""
    for program in ("javac", "jar"):
        needs(program)
    folder = tmp_path_factory.mktemp("jar")
    subprocess.run(["javac", "-d", str(folder / "classes"), str(BOTS / "Bot.java")], check=True, capture_output=True)
    subprocess.run(["jar", "--create", "--file", str(folder / "bot.jar"), "--main-class", "Bot", "-C", str(folder / "classes"), "."],
                   check=True, capture_output=True)
    return folder / "bot.jar"


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("game", sorted(games.BUNDLED))
def test_a_java_jar_runs_with_no_flags(bots, jar, user, game):
    shutil.copyfile(jar, bots / "bot.jar")
    (bots / "bot.jar").chmod(0o644)
    conformant(check("java -jar bot.jar", bots, user, "--game", game), "java-first")


@pytest.mark.parametrize("user", USERS)
def test_a_node_bot_runs(open_dir, user):
    needs("node")
    shutil.copy(ROOT / "bots" / "zwicker" / "js" / "random_bot.cjs", open_dir / "bot.cjs")
    conformant(check("bot.cjs", open_dir, user), "random-js")


@pytest.mark.parametrize("user", USERS)
def test_a_node_bot_holds_more_heap_than_the_c_librarys_arenas_would_leave_it(open_dir, user):
    """Under 1 GiB a `node` without MALLOC_ARENA_MAX dies at about 56 MiB of JavaScript heap: the
    arena's MALLOC_ARENA_MAX=2 lets this one hold 150 MiB, with no flags."""
    needs("node")
    hold = "globalThis.held = [];\nfor (let i = 0; i < 150; i++) held.push(new Array(128 * 1024).fill(i + 0.5));\n"
    (open_dir / "bot.cjs").write_text(hold + (ROOT / "bots" / "zwicker" / "js" / "random_bot.cjs").read_text())
    conformant(check("bot.cjs", open_dir, user), "random-js")


def test_the_environment_fits_the_jvm_to_the_limits_it_is_given():
    """Every bot gets MALLOC_ARENA_MAX; a JVM, named straight or after `env`, the flags sized from its limits."""
    assert fitted.environment(["/usr/bin/perl", "bot.pl"], Limits(), "/usr/bin") == {"MALLOC_ARENA_MAX": "2"}
    options = fitted.environment(["/usr/bin/env", "-u", "X", "A=1", "java", "-jar", "bot.jar"], Limits(), "/usr/bin")
    assert "-XX:MaxRAM=1024m -XX:CompressedClassSpaceSize=64m -XX:ReservedCodeCacheSize=64m" in options["JAVA_TOOL_OPTIONS"]
    assert "-Xss1024k" in options["JAVA_TOOL_OPTIONS"] and "-Xlog:all=warning:stderr" in options["JAVA_TOOL_OPTIONS"]
    small = fitted.java_options(Limits(memory_bytes=512 << 20, processes=64))
    assert "-XX:MaxRAM=512m -XX:CompressedClassSpaceSize=32m" in small and "-Xss256k" in small


def test_the_view_of_a_jdk_holds_its_home_and_its_configuration_under_etc(open_dir):
    needs("java")
    java = shutil.which("java")
    paths = view.for_program(java)
    home = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    covered = lambda file: any(file == p or file.startswith(p + "/") for p in paths)  # noqa: E731
    assert covered(f"{home}/lib/modules") and covered(f"{home}/bin/java")
    assert not covered(f"{home}/jmods/java.base.jmod")  # what only jlink reads stays out
    sources = [source for kind, path, source in view.layout(paths) if kind != "link" and source]
    assert all(source.startswith("/etc/") for source in sources)
    security = os.path.realpath(f"{home}/conf/security/java.security")
    if security.startswith("/etc/"):  # Debian's JDK keeps its configuration under /etc: shown in its place
        view.copy_to(view.layout(p for p in paths if p.startswith(f"{home}/conf")), str(open_dir))
        inside = open_dir / os.path.relpath(f"{home}/conf/security/java.security", "/usr")
        assert not inside.is_symlink() and inside.read_text() == Path(security).read_text()


def test_an_interpreter_the_sandbox_cannot_show_is_named_in_the_error(open_dir):
    bot = open_dir / "bot.sh"
    bot.write_text("#!/opt/nowhere/bin/perl\nprint 1\n")
    bot.chmod(0o755)
    assert "/opt/nowhere/bin/perl, which is not installed" in view.unseen_interpreter(str(bot), str(open_dir))
    outside = open_dir / "tools" / "perl"
    outside.parent.mkdir()
    shutil.copy(shutil.which("sh") or "/bin/sh", outside)
    other = open_dir / "bot" / "bot.sh"
    other.parent.mkdir()
    other.write_text(f"#!{outside}\n")
    assert "lies outside /usr" in view.unseen_interpreter(str(other), str(other.parent))
    assert view.unseen_interpreter(str(other), str(open_dir)) is None  # in the bot's own folder: shown
    proc = check(str(bot), open_dir, None)
    assert proc.returncode == 2 and "/opt/nowhere/bin/perl, which is not installed" in proc.stderr, proc.stderr


def registered(db: Path, *args: str, cwd: Path, user: int | None = None) -> subprocess.CompletedProcess:
    argv = [str(ARENA), *args, "--db", str(db)]
    if user is not None:
        argv = [*as_nobody(), *argv]
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=600, env={**os.environ, "HOME": str(cwd)})


@pytest.fixture
def folder_bot(open_dir):
    """A bot of two files: `bot` (its entry point) runs the other, which nothing names."""
    needs("perl")
    folder = open_dir / "duo"
    folder.mkdir()
    shutil.copy(BOTS / "first.pl", folder / "moves.pl")
    (folder / "bot").write_text("#!/usr/bin/perl\ndo './moves.pl' or die($@ || \"moves.pl: $!\");\n")
    for path in (folder, folder / "bot"):
        path.chmod(0o755)
    (folder / "moves.pl").chmod(0o644)
    return folder


@pytest.mark.parametrize("user", USERS)
def test_a_folder_is_checked_and_played_whole_and_so_is_the_bot_registered_from_it(open_dir, folder_bot, user):
    conformant(check(str(folder_bot), open_dir, user), "perl-first")
    (folder_bot / "bot").rename(folder_bot / "start")
    conformant(check(str(folder_bot), open_dir, user, "--command", "./start"), "perl-first")
    (folder_bot / "start").rename(folder_bot / "bot")
    home = open_dir / "home"
    home.mkdir()
    if user is not None:
        os.chown(home, user, user)
    db = home / "arena.db"
    proc = registered(db, "bot", "add", str(folder_bot), cwd=open_dir, user=user)
    assert proc.returncode == 0, proc.stderr
    proc = registered(db, "bot", "check", "duo", "--deals", "1", cwd=open_dir, user=user)
    assert proc.returncode == 0 and "conformant" in proc.stdout, (proc.stdout, proc.stderr)
    proc = registered(db, "play", "duo", str(ROOT / "bots" / "zwicker" / "random_bot.py"), "--boards", "1", "--seed", "1",
                      cwd=open_dir, user=user)
    assert proc.returncode == 0 and "forfeit" not in proc.stdout and "(seat " not in proc.stdout, (proc.stdout, proc.stderr)


def test_a_refusal_lists_the_bots_of_the_database_it_looked_in(open_dir, folder_bot):
    db = open_dir / "arena.db"
    assert registered(db, "bot", "add", str(folder_bot), "--no-check", cwd=open_dir).returncode == 0
    proc = registered(db, "bot", "check", "nosuch", cwd=open_dir)
    assert proc.returncode == 2 and f"nor a bot registered in {db} (known: duo)" in proc.stderr, proc.stderr
    proc = registered(db, "bot", "check", "./no/such/bot.pl", cwd=open_dir)
    assert proc.returncode == 2 and "(known: duo)" in proc.stderr, proc.stderr
    proc = registered(open_dir / "elsewhere.db", "bot", "check", "nosuch", cwd=open_dir)
    assert proc.returncode == 2 and f"no database at {open_dir / 'elsewhere.db'}" in proc.stderr, proc.stderr


@pytest.mark.parametrize("user", USERS)
def test_a_bot_that_runs_out_of_address_space_is_told_the_limit_and_its_size(bots, user):
    (bots / "greedy.pl").write_text("#!/usr/bin/perl\nmy $x = 'x' x (1536 * 1024 * 1024);\nprint length $x;\n")
    (bots / "greedy.pl").chmod(0o755)
    proc = check("./greedy.pl", bots, user)
    assert proc.returncode == 1 and "Out of memory" in proc.stdout, proc.stdout
    assert "limit: the bot met the sandbox's limit of 1 GiB of address space" in proc.stdout, proc.stdout


@pytest.mark.parametrize("user", USERS)
def test_a_jvm_that_cannot_start_in_the_limits_is_told_which_and_how_big(bots, user):
    """The author's flags win over the arena's JAVA_TOOL_OPTIONS: a heap of 2 GiB does not fit in
    the sandbox's address space, and the JVM says so on stderr, not on stdout."""
    needs("java")
    proc = check("java -Xmx2g Bot.java", bots, user)
    assert proc.returncode == 1 and "\nlimit: " in proc.stdout and "1 GiB of address space" in proc.stdout, proc.stdout


def test_a_long_trace_shows_its_head_its_last_cause_and_its_tail():
    from arena.play.match import stderr_cause, stderr_excerpt

    trace = ['Exception in thread "main" java.lang.InternalError: Error loading java.security file',
             *[f"\tat frame{k}(Source.java:{k})" for k in range(20)],
             "Caused by: java.io.FileNotFoundException: /usr/lib/jvm/conf/security/java.security",
             *[f"\tat deeper{k}(Source.java:{k})" for k in range(20)]]
    shown = "\n".join(stderr_excerpt("\n".join(trace)))
    assert "java.lang.InternalError: Error loading java.security file" in shown
    assert "Caused by: java.io.FileNotFoundException" in shown and "deeper19" in shown and "frame10" not in shown
    assert stderr_cause("\n".join(trace)).startswith("Caused by: java.io.FileNotFoundException")
    assert stderr_cause("Picked up JAVA_TOOL_OPTIONS: -Xss1024k\nError: no main class\n") == "Error: no main class"
    assert stderr_cause("Picked up JAVA_TOOL_OPTIONS: -Xss1024k\n") == ""
    javac = "Note: Bot.java uses unchecked or unsafe operations.\nNote: Recompile with -Xlint:unchecked for details.\n"
    assert stderr_cause("Picked up JAVA_TOOL_OPTIONS: -Xss1024k\n" + javac) == ""  # `java Bot.java`'s own notes
    assert stderr_cause("\n".join(trace[:10])).startswith("Exception in thread")
    assert stderr_cause("Traceback (most recent call last):\n  File x\nValueError: bad") == "ValueError: bad"
    tcl = 'invalid command name "frobnicate"\n    while executing\n"frobnicate"\n    (file "/bot/first.tcl" line 5)\n'
    assert stderr_cause(tcl) == 'invalid command name "frobnicate"'


@pytest.fixture
def own_shm(monkeypatch):
    """A folder on /dev/shm standing for it: the view's copies made and swept there only."""
    from arena.process import sandbox

    if sandbox._fs_type("/dev/shm") != "tmpfs":
        pytest.skip("no tmpfs at /dev/shm: the view is bound path by path, no copy")
    folder = Path(tempfile.mkdtemp(prefix="zwicker-test-shm-", dir="/dev/shm"))
    monkeypatch.setattr(sandbox, "SHM", str(folder))
    sandbox.usr_copy.cache_clear()
    yield folder
    sandbox.usr_copy.cache_clear()
    for path, fd in list(sandbox._held.items()):
        if path.startswith(str(folder)):
            os.close(fd)
            del sandbox._held[path]
    shutil.rmtree(folder, ignore_errors=True)


def test_a_copy_of_the_view_no_arena_holds_is_swept_and_one_held_stays(own_shm):
    from arena.process import sandbox

    def copy(name: str, mark: bool = True, link: bool = True) -> Path:
        folder = own_shm / f"{sandbox.USR_COPY_PREFIX}{name}"
        (folder / "usr" / "bin").mkdir(parents=True)
        if mark:
            (folder / sandbox.HELD_MARK).touch()
        if link:
            (own_shm / f"{sandbox.USR_COPY_PREFIX}link{name}").symlink_to(folder.name)
        return folder

    unused, held, legacy = copy("unused"), copy("held"), copy("legacy", mark=False)
    cut = copy("cut", mark=False, link=False)  # its arena was killed while it copied: no mark, no link
    building = copy("building", mark=False, link=False)
    sandbox._hold(building)  # an arena copying it now holds it
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
                               "fcntl.flock(fd, fcntl.LOCK_SH); print('held', flush=True); sys.stdin.read()", str(held)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert sorted(sandbox.sweep_usr_copies()) == sorted([str(unused), str(cut)])
        assert not unused.exists() and not cut.exists() and held.is_dir() and legacy.is_dir() and building.is_dir()
        assert not os.path.lexists(own_shm / f"{sandbox.USR_COPY_PREFIX}linkunused")  # its link went with it
    finally:
        holder.stdin.close()
        holder.stdout.close()
        holder.wait()
    assert sandbox.sweep_usr_copies() == [str(held)]  # its arena is gone
    os.close(sandbox._held.pop(str(building)))
    assert sandbox.sweep_usr_copies() == [str(building)]  # its arena died before it linked it
    assert legacy.is_dir()  # made by an arena that takes no locks: left alone


def test_the_copy_of_the_view_an_arena_is_about_to_use_is_kept_and_the_others_swept(own_shm):
    """An arena that starts keeps its own view's unused copy (the next arena would copy it again)."""
    from arena.process import sandbox

    copies = []
    for name in ("mine", "stale"):
        folder = own_shm / f"{sandbox.USR_COPY_PREFIX}{name}"
        (folder / "usr" / "bin").mkdir(parents=True)
        (folder / sandbox.HELD_MARK).touch()
        (own_shm / f"{sandbox.USR_COPY_PREFIX}link{name}").symlink_to(folder.name)
        copies.append(folder)
    mine, stale = copies
    assert sandbox.sweep_usr_copies(keep=own_shm / f"{sandbox.USR_COPY_PREFIX}linkmine") == [str(stale)]
    assert mine.is_dir() and not stale.exists()
    first = sandbox.usr_copy()  # made, used, then let go as an arena that ends lets it go
    for path, fd in list(sandbox._held.items()):
        os.close(fd)
        del sandbox._held[path]
    sandbox.usr_copy.cache_clear()
    assert first is not None and sandbox.usr_copy() == first  # the next arena finds it, not a new copy
    assert not mine.exists()  # (a copy of another view, unheld: swept)


def test_the_views_copies_stay_within_their_bound_and_a_runtime_past_it_is_one_clear_error(own_shm, monkeypatch):
    from arena.process import sandbox

    needs("ruby")
    copy = sandbox.usr_copy()
    assert copy is not None and copy.startswith(str(own_shm)) and (Path(copy).parent / sandbox.HELD_MARK).exists()
    assert sandbox.sweep_usr_copies() == []  # this process holds it
    used = sandbox.shm_used()
    monkeypatch.setenv(sandbox.SHM_BOUND_VAR, str(used + (1 << 20)))
    with pytest.raises(ValueError, match=f"more than {(used >> 20) + 1} MiB .* {sandbox.SHM_BOUND_VAR} raises the bound"):
        sandbox._program_in_usr(shutil.which("ruby"))
    monkeypatch.delenv(sandbox.SHM_BOUND_VAR)
    assert sandbox._program_in_usr(shutil.which("ruby")) == []
    assert sandbox.shm_used() > used
    monkeypatch.setenv(sandbox.SHM_BOUND_VAR, "1")
    sandbox.usr_copy.cache_clear()
    assert sandbox.usr_copy() == copy  # the copy there is still used; a new one would not be made


LICENSE = "/usr/share/common-licenses/GPL-3"


@pytest.mark.parametrize("user", USERS)
def test_a_file_outside_the_view_is_named_with_the_setting_that_adds_it(bots, user):
    if not os.path.isfile(LICENSE):
        pytest.skip(f"{LICENSE} is not on this machine (Debian's base-files has it)")
    needs("perl")
    source = (bots / "first.pl").read_text().replace(
        "binmode STDIN;", f"open(my $f, '<', '{LICENSE}') or die \"cannot open {LICENSE}: $!\\n\";\nbinmode STDIN;", 1)
    (bots / "reader.pl").write_text(source)
    (bots / "reader.pl").chmod(0o755)
    proc = check("./reader.pl", bots, user)
    assert proc.returncode == 1, proc.stdout
    assert (f"outside the sandbox's view of /usr: {LICENSE} (on this machine, not shown to bots): the organiser "
            f"adds it with {view.EXTRA_VAR}={LICENSE}") in proc.stdout, proc.stdout
    argv = [str(ARENA), "bot", "check", "./reader.pl", "--deals", "1"]
    if user is not None:
        argv = [*as_nobody(), *argv]
    added = subprocess.run(argv, capture_output=True, text=True, cwd=bots, timeout=600,
                           env={**os.environ, "HOME": str(bots), view.EXTRA_VAR: LICENSE})
    conformant(added, "perl-first")


def test_the_leagues_check_runs_a_perl_folder_bot_as_bot_check_does(open_dir, folder_bot):
    """A league author cannot set anything: the server's check shows the runtime all the same."""
    from tests.test_league import Server, add_author

    db = open_dir / "league.db"
    token = add_author(db, "pat")
    server = Server(db)
    try:
        out = server.submit(folder_bot, token, "duo")
        assert out.returncode == 0 and "conformant: the bot speaks protocol version 1" in out.stdout, (out.stdout, out.stderr)
    finally:
        server.stop()


def test_a_jvm_log_on_stdout_is_named_with_the_flag_that_moves_it():
    from arena.errors import ProtocolError
    from arena.protocol.messages import Decoder

    decoder = Decoder()
    decoder.feed(b"[0.027s][warning][os,thread] Failed to start thread\n")
    with pytest.raises(ProtocolError, match=r"did the bot print to stdout\?.*-Xlog:all=warning:stderr"):
        decoder.next()


def test_a_line_printed_to_stdout_in_several_reads_is_quoted_and_named():
    """However many reads a bot's stray print arrives in before the arena decodes, the fault quotes
    it (the first of them used to be dropped after two: "got an integer", and no hint)."""
    from arena.errors import ProtocolError
    from arena.protocol.messages import Decoder

    decoder = Decoder()
    for chunk in (b"[info] st", b"arting ", b"audit bot", b"\n", msgpack_ready()):
        decoder.feed(chunk)
    with pytest.raises(ProtocolError, match=r"as text \('\[info\] starting audit bot\\n.*did the bot print to stdout\?"):
        decoder.next()


def msgpack_ready() -> bytes:
    import msgpack

    return msgpack.packb({"type": "ready", "name": "x"})


def test_matches_logs_names_the_limit_a_tournaments_bot_met(bots):
    needs("perl")
    (bots / "greedy.pl").write_text("#!/usr/bin/perl\nmy $x = 'x' x (1536 * 1024 * 1024);\nprint length $x;\n")
    (bots / "greedy.pl").chmod(0o755)
    db = bots / "arena.db"
    run = registered(db, "tournament", "run", "--name", "t", "--bots", f"./greedy.pl,{ROOT / 'bots' / 'zwicker' / 'random_bot.py'}",
                     "--boards", "1", "--seed", "1", cwd=bots)
    assert run.returncode == 0, run.stderr
    logs = registered(db, "matches", "t", "--logs", cwd=bots)
    assert logs.returncode == 0 and "Out of memory" in logs.stdout, logs.stdout
    assert "limit: the bot met the sandbox's limit of 1 GiB of address space" in logs.stdout, logs.stdout


SHM_ARENA = ("import sys; from arena.process import sandbox; sandbox.SHM = sys.argv[1]; "
             "from arena.cli import main; main(sys.argv[2:])")
"""The arena, its view's copies made in a folder standing for /dev/shm (a copy of its own: what a
runtime adds to a user's copy stays there, and would hide a runtime the view no longer finds)."""


@pytest.fixture
def fresh_shm():
    """A folder standing for /dev/shm, where the arenas of a test make their view's copies afresh."""
    from arena.process import sandbox

    if sandbox._fs_type("/dev/shm") != "tmpfs":
        pytest.skip("no tmpfs at /dev/shm: the view is bound path by path, no copy")
    shm = Path(tempfile.mkdtemp(prefix="zwicker-test-shm-", dir="/dev/shm"))
    shm.chmod(0o1777)
    yield shm
    shutil.rmtree(shm, ignore_errors=True)


def fresh_check(shm: Path, bot: str, cwd: Path, user: int | None, *extra: str, bound: str = "") -> subprocess.CompletedProcess:
    """`check`, by an arena whose view's copies are made in `shm` (`bound`: their bound, "0" for
    none: the view bound path by path)."""
    from arena.process import sandbox

    argv = [sys.executable, "-c", SHM_ARENA, str(shm), "bot", "check", bot, "--deals", "1", *extra]
    env = {**os.environ, "HOME": str(cwd), sandbox.SHM_BOUND_VAR: bound}
    env.pop(view.EXTRA_VAR, None)
    return subprocess.run([*(as_nobody() if user is not None else []), *argv], capture_output=True, text=True,
                          cwd=cwd, timeout=600, env=env)


@pytest.mark.parametrize("user", USERS)
def test_a_command_prefixed_by_env_has_the_runtime_env_runs_in_its_view(bots, fresh_shm, user):
    """`env VAR=value ruby bot.rb` (the way to set a variable, docs/runtimes.md): the view holds
    ruby, not only env, in a fresh copy of the view as in one bound path by path."""
    needs("ruby")
    # the default bound: a fresh copy; none at all: the view bound path by path (as root only, for time)
    for bound in ("", "0") if user is None else ("",):
        conformant(fresh_check(fresh_shm, "env RUBYOPT=-W0 ruby first.rb", bots, user, bound=bound), "ruby-first")


@pytest.mark.parametrize("user", USERS)
def test_a_runtime_the_view_knows_nothing_of_runs_with_its_own_librarys_files(bots, fresh_shm, user):
    """tclsh needs Tcl's init.tcl, which is in the package of its library (libtcl8.6), not its own
    (tcl8.6): the view holds the packages of the runtime's own libraries, in a fresh copy."""
    needs("tclsh")
    conformant(fresh_check(fresh_shm, "./first.tcl", bots, user), "tcl-first")


JVM_GREED = {
    "threads": ("for (int t = 0; t < 100; t++) { Thread thread = new Thread(() -> { try { Thread.sleep(600000); } "
                "catch (InterruptedException e) { } }); thread.setDaemon(true); thread.start(); }",
                "the bot could not start a thread: its limit is 32 processes and threads"),
    "heap": ("java.util.List<long[]> held = new java.util.ArrayList<>(); for (int m = 0; m < 100; m++) held.add(new long[1 << 20]);",
             "the JVM's heap is full: the arena's JAVA_TOOL_OPTIONS make it 256 MiB, a quarter of the sandbox's 1 GiB"),
}


@pytest.fixture(scope="module")
def greedy_jars(tmp_path_factory) -> Path:
    """tests/runtimes/Bot.java that starts 100 threads (threads.jar), or holds 800 MiB (heap.jar),
    before it answers hello: built once for the module's tests."""
    for program in ("javac", "jar"):
        needs(program)
    folder = tmp_path_factory.mktemp("greedy")
    ready = 'send("type", "ready", "name", "java-first");'
    for greed, (code, _) in JVM_GREED.items():
        source = folder / greed / "Bot.java"
        source.parent.mkdir()
        source.write_text((BOTS / "Bot.java").read_text().replace(ready, "{ " + code + " " + ready + " }", 1))
        assert code in source.read_text()
        subprocess.run(["javac", "-d", str(folder / greed / "classes"), str(source)], check=True, capture_output=True)
        subprocess.run(["jar", "--create", "--file", str(folder / f"{greed}.jar"), "--main-class", "Bot",
                        "-C", str(folder / greed / "classes"), "."], check=True, capture_output=True)
    return folder


@pytest.mark.parametrize("greed, user", [("threads", None), ("heap", None),
                                         *([pytest.param("threads", NOBODY, id="threads-user")] if os.geteuid() == 0 else [])])
def test_a_jvm_that_runs_out_of_threads_or_heap_is_told_which_limit_and_its_size(bots, greedy_jars, greed, user):
    """The JVM's words for both say "out of memory" ("unable to create native thread: possibly out
    of memory or process/resource limits reached"): the thread budget is named for a thread."""
    shutil.copyfile(greedy_jars / f"{greed}.jar", bots / "bot.jar")
    (bots / "bot.jar").chmod(0o644)
    proc = check("java -jar bot.jar", bots, user)
    assert proc.returncode == 1 and f"\nlimit: {JVM_GREED[greed][1]}" in proc.stdout, proc.stdout


def test_a_bot_of_another_game_only_is_added_and_checked_at_its_games_table_without_game(open_dir):
    """A Zwicken bot that says so (ready.games) is added and checked at a table of its game, with
    no --game; a bot that names the default game is still checked at the default's."""
    db = open_dir / "arena.db"
    bot = ROOT / "bots" / "zwicken" / "zwicken_random_bot.py"
    proc = registered(db, "bot", "add", str(bot), cwd=open_dir)
    assert proc.returncode == 0 and "added zwicken_random" in proc.stdout, proc.stderr
    proc = registered(db, "bot", "check", "zwicken_random", "--deals", "1", cwd=open_dir)
    assert proc.returncode == 0 and proc.stdout.startswith(
        f"zwicken_random plays zwicken (its ready.games), not {games.DEFAULT}: checked at a zwicken table"), proc.stdout
    assert "conformant: the bot speaks protocol version 1" in proc.stdout
    proc = registered(db, "bot", "check", "zwicken_random", "--deals", "1", "--game", games.DEFAULT, cwd=open_dir)
    assert proc.returncode == 1 and "checked at a" not in proc.stdout, proc.stdout  # chosen by hand: kept
    proc = registered(db, "play", "zwicken_random", "zwicken_random", cwd=open_dir)
    assert proc.returncode == 2 and proc.stderr.rstrip().endswith(
        f"plays zwicken (its ready.games), not {games.DEFAULT} (--game zwicken plays it)"), proc.stderr


def test_a_folder_of_a_script_or_a_jar_runs_with_no_command_in_check_play_and_add(open_dir):
    """A folder holding bot.pl (bot.rb, bot.jar, Bot.java) is run by its runtime as bot.py is by
    python: `bot check FOLDER`, `play FOLDER` and `bot add FOLDER` need no --command."""
    needs("perl")
    folder = open_dir / "perlbot"
    folder.mkdir()
    shutil.copy(BOTS / "first.pl", folder / "bot.pl")
    (folder / "bot.pl").chmod(0o644)  # not executable: run as `perl bot.pl`
    folder.chmod(0o755)
    conformant(check(str(folder), open_dir, None), "perl-first")
    db = open_dir / "arena.db"
    proc = registered(db, "play", str(folder), str(ROOT / "bots" / "zwicker" / "random_bot.py"), "--boards", "1", "--seed", "1",
                      cwd=open_dir)
    assert proc.returncode == 0 and "perl-first" in proc.stdout, (proc.stdout, proc.stderr)
    proc = registered(db, "bot", "add", str(folder), cwd=open_dir)
    assert proc.returncode == 0 and "added perlbot" in proc.stdout, proc.stderr


def test_a_program_outside_usr_and_the_bots_folder_is_named_when_the_bot_fails(bots, open_dir):
    """The sandbox shows such a program as a file of its own: a script that reads a file beside it
    (a runtime's home, say) fails, and bot check says why and what to do."""
    tools = open_dir / "tools"
    tools.mkdir()
    (tools / "lib.sh").write_text("LEVEL=1\n")
    (tools / "run.sh").write_text(f"#!/bin/sh\n. {tools / 'lib.sh'}\nexec /usr/bin/perl ./first.pl\n")
    for path in (tools, tools / "run.sh"):
        path.chmod(0o755)
    (tools / "lib.sh").chmod(0o644)
    proc = check(str(bots), open_dir, None, "--command", str(tools / "run.sh"))
    assert proc.returncode == 1, proc.stdout
    assert (f"outside /usr and the bot's folder: {tools / 'run.sh'}: the sandbox shows the bot each such program as "
            "a file of its own") in proc.stdout, proc.stdout
