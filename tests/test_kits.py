"""The starter kits (bots/kits/<language>/): each is built by its README's build line, reads
every msgpack format the arena may send, registers with `arena bot add` and passes `arena bot
check` at a table of every bundled game, in the default sandbox. A kit whose toolchain is not
installed is skipped with one line naming the package."""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import msgpack
import pytest
from typer.testing import CliRunner

from arena.cli import _register, app
from tests.users import as_nobody

_register()

KITS = Path(__file__).resolve().parent.parent / "bots" / "kits"
GAMES = ("zwicker", "zwicken")


@dataclass(frozen=True)
class Kit:
    language: str
    tools: tuple[str, ...]  # programs the build or the run needs
    package: str  # what to install where they are missing (Debian names)
    build: tuple[str, ...]  # shell lines, run in the kit's folder (its README's build line)
    run: str  # the bot's command line in its folder
    register: str  # what `arena bot add` is given (its README's line): a file, or the folder "."
    command: str | None = None  # --command, for a folder


JAVA = "java -jar bot.jar"  # a folder's bot.jar runs so; the arena's JAVA_TOOL_OPTIONS fit it (arena/process/fitted.py)
KIT_LIST = [
    Kit("python", ("python3",), "python3", (), "python3 bot.py", "bot.py"),
    Kit("c", ("cc", "make"), "gcc make", ("make",), "./bot", "bot"),
    Kit("js", ("node",), "nodejs", (), "node bot.cjs", "bot.cjs"),
    Kit("cpp", ("c++", "make"), "g++ make", ("make",), "./bot", "bot"),
    Kit("rust", ("cargo",), "cargo (or rustup)", ("cargo build --release",), "target/release/bot", "target/release/bot"),
    Kit("go", ("go",), "golang-go", ("CGO_ENABLED=0 go build -o bot .",), "./bot", "bot"),
    Kit("java", ("javac", "jar", "java"), "openjdk-17-jdk-headless",
        ("javac -d classes Bot.java", "jar --create --file bot.jar --main-class Bot -C classes ."), JAVA, "."),
    Kit("perl", ("perl",), "perl", (), "perl bot.pl", "bot.pl"),
    Kit("ruby", ("ruby",), "ruby", (), "ruby bot.rb", "bot.rb"),
]
KITS_BY_NAME = {k.language: k for k in KIT_LIST}

@pytest.fixture(scope="session")
def kit_home():
    """One folder for the session's builds that the sandboxed bots' users can enter."""
    path = Path(tempfile.mkdtemp(prefix="zwicker-kits-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


_built: dict[str, Path] = {}


def built(kit: Kit, home: Path) -> Path:
    """A copy of the kit, built once a session; skips naming the package when a tool is missing."""
    missing = [t for t in kit.tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed: install {kit.package} to build the {kit.language} kit")
    if kit.language not in _built:
        folder = home / kit.language
        shutil.copytree(KITS / kit.language, folder)
        for line in kit.build:
            done = subprocess.run(line, shell=True, cwd=folder, capture_output=True, text=True, timeout=600,
                                  env={**os.environ, "CARGO_NET_OFFLINE": "true"})
            assert done.returncode == 0, f"{kit.language}: {line}\n{done.stdout}{done.stderr}"
        for path in [folder, *folder.rglob("*")]:  # the bot runs as a user of its own
            path.chmod(path.stat().st_mode | 0o005 | (0o050 if path.is_dir() else 0))
        _built[kit.language] = folder
    return _built[kit.language]


@pytest.fixture(scope="session")
def registry(kit_home):
    """A database of its own, and the kits registered in it by `arena bot add`, once each."""
    db = kit_home / "kits.db"
    names: dict[str, str] = {}

    def register(kit: Kit) -> str:
        if kit.language not in names:
            folder = built(kit, kit_home)
            args = ["bot", "add", str(folder / kit.register), "--name", f"kit-{kit.language}", "--db", str(db),
                    "--no-check"]  # the checks below play it at every game
            if kit.command:
                args += ["--command", kit.command]
            result = CliRunner().invoke(app, args)
            assert result.exit_code == 0, result.output
            names[kit.language] = f"kit-{kit.language}"
        return names[kit.language]

    register.db = db  # type: ignore[attr-defined]
    return register


EXTRA = {"i8": -100, "i16": -30000, "i32": -2**31, "i64": -2**63, "u64": 2**64 - 1, "u16": 65535, "f": 1.5,
         "bin": b"\x00\x01", "s8": "x" * 40, "s16": "y" * 300, "s32": "z" * 70000, "a16": list(range(20)),
         "m16": {str(k): [k, None, True, False] for k in range(20)}, "nested": [[{"a": [1.0, "é"]}]]}


@pytest.mark.parametrize("language", list(KITS_BY_NAME))
def test_a_kit_reads_every_msgpack_format_and_answers_each_act(language, kit_home):
    """Fields a later revision may add, in every format msgpack has (16- and 32-bit lengths,
    negative and 64-bit integers, floats of both sizes, binaries, nested maps), leave it
    answering `ready` once and one legal `move` per `act`, then exiting at `bye`."""
    kit = KITS_BY_NAME[language]
    folder = built(kit, kit_home)
    hello = {**EXTRA, "type": "hello", "protocol": 1, "game": "zwicker", "seat": 2, "side": 0, "partner": 0,
             "partners": [0], "variant": {"game": "zwicker"}, "seed": 2**64 - 1}
    legal = [{"type": "trail", "card": "9S"}, {"type": "capture", "card": "TS", "value": 10, "take": [0]},
             {"type": "trail", "card": "2D"}]
    act = {**EXTRA, "type": "act", "number": 0, "observation": {"table": ["TD"], "moves": []}, "legal": legal,
           "legal_complete": True, "time": {"move_ms": 1000, "bank_ms": 10000}}
    deal = {"type": "deal", "number": 0, "dealer": 0, "observation": {}, "room": "t", "board": "t", "board_deal": 0}
    stream = [hello, deal, *[act] * 6, {"type": "deal_end", "number": 0, "points": [1, 2]},
              {"type": "bye", "reason": "end", "detail": ""}]
    data = b"".join(msgpack.packb(m, use_single_float=False) for m in stream)
    data = data.replace(msgpack.packb(1.5), b"\xca\x3f\xc0\x00\x00", 1)  # one float32 too
    done = subprocess.run(shlex.split(kit.run), input=data, capture_output=True, timeout=60, cwd=folder)
    assert done.returncode == 0, done.stderr
    replies = list(msgpack.Unpacker(io.BytesIO(done.stdout), raw=False))
    assert replies[0] == {"type": "ready", "name": f"kit-{language}", "version": "1"}
    moves = replies[1:]
    assert len(moves) == 6 and all(m["type"] == "move" and 0 <= m["index"] < len(legal) for m in moves), moves
    assert len({m["index"] for m in moves}) > 1, "the same move six times: is the generator seeded?"
    assert f"kit-{language}: seat 2 of a zwicker table" in done.stderr.decode()
    again = subprocess.run(shlex.split(kit.run), input=data, capture_output=True, timeout=60, cwd=folder)
    assert list(msgpack.Unpacker(io.BytesIO(again.stdout), raw=False)) == replies, "the same seed played differently"


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", list(KITS_BY_NAME))
def test_a_registered_kit_passes_bot_check_at_every_game(language, game, registry):
    kit = KITS_BY_NAME[language]
    name = registry(kit)
    result = CliRunner().invoke(app, ["bot", "check", name, "--game", game, "--deals", "1", "--db", str(registry.db)])
    assert result.exit_code == 0, result.output
    assert "conformant: the bot speaks protocol version 1" in result.output
    assert f"as 'kit-{language}' version '1'" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("language", list(KITS_BY_NAME))
def test_a_kit_passes_bot_check_as_an_ordinary_user(language, kit_home):
    """The installed program run by uid nobody, as an author without root would (the tests
    above run as whoever runs pytest: as an ordinary user they are this already)."""
    prefix = as_nobody()
    kit = KITS_BY_NAME[language]
    folder = built(kit, kit_home)
    spec = str(folder) if kit.register == "." else str(folder / kit.register)  # a folder: as bot add takes it
    argv = [*prefix, str(Path(sys.executable).parent / "arena"),
            "bot", "check", spec, "--deals", "1"]
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "HOME": str(kit_home)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conformant: the bot speaks protocol version 1" in done.stdout


def test_every_kit_folder_is_tested_and_documented():
    assert sorted(p.name for p in KITS.iterdir() if p.is_dir()) == sorted(KITS_BY_NAME)
    for kit in KIT_LIST:
        readme = (KITS / kit.language / "README.md").read_text()
        for line in kit.build:
            assert line in readme, (kit.language, line)
        line = f"arena bot add bots/kits/{kit.language}" + ("" if kit.register == "." else f"/{kit.register}")
        assert line in readme and (kit.command is None or f'--command "{kit.command}"' in readme), kit.language
    assert os.access(KITS / "README.md", os.R_OK)
