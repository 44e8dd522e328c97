"""Bots in other languages than Python run in the default sandbox as they run outside, with no
setting: Perl, Ruby, Java (a source file and a jar) and Node.js, checked by `arena bot check`
as root and as an ordinary user (tests/runtimes/ holds the bots: each plays the first legal
move, msgpack by hand). arena/process/view.py finds what each runtime needs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.process import view

ROOT = Path(__file__).resolve().parent.parent
ARENA = Path(sys.executable).parent / "arena"
BOTS = Path(__file__).parent / "runtimes"
NOBODY = 65534
JVM = "java -XX:+UseSerialGC -Xmx128m -XX:CompressedClassSpaceSize=64m"
"""The JVM's flags for the sandbox's limits: its default heap (a quarter of the machine's memory)
and class space (1 GiB) do not fit in 1 GiB of address space."""
USERS = [None, pytest.param(NOBODY, id="user")] if os.geteuid() == 0 else [None]
"""As root the test also runs the arena as an ordinary user (CI runs it as one anyway)."""


def needs(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed here (Debian: apt-get install "
                    f"{ {'java': 'default-jdk-headless', 'javac': 'default-jdk-headless', 'jar': 'default-jdk-headless'}.get(program, program)})")


def check(bot: str, cwd: Path, user: int | None, *extra: str) -> subprocess.CompletedProcess:
    """`arena bot check BOT` in the default sandbox, as `user` (None: this process's)."""
    argv = [str(ARENA), "bot", "check", bot, "--deals", "1", *extra]
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
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
def test_a_java_source_file_runs_as_java_file_java(bots, user):
    """`java Bot.java` compiles in the sandbox: the JDK's home, its modules and its configuration
    under /etc (java.security) are in the view."""
    needs("java")
    conformant(check(f"{JVM} Bot.java", bots, user), "java-first")


@pytest.mark.parametrize("user", USERS)
def test_a_java_jar_runs(bots, user):
    for program in ("javac", "jar"):
        needs(program)
    subprocess.run(["javac", "-d", str(bots / "classes"), str(bots / "Bot.java")], check=True, capture_output=True)
    subprocess.run(["jar", "--create", "--file", str(bots / "bot.jar"), "--main-class", "Bot", "-C", str(bots / "classes"), "."],
                   check=True, capture_output=True)
    (bots / "bot.jar").chmod(0o644)
    conformant(check(f"{JVM} -jar bot.jar", bots, user), "java-first")


@pytest.mark.parametrize("user", USERS)
def test_a_node_bot_runs(open_dir, user):
    needs("node")
    shutil.copy(ROOT / "bots" / "zwicker" / "js" / "random_bot.cjs", open_dir / "bot.cjs")
    conformant(check("bot.cjs", open_dir, user), "random-js")


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
