"""The `arena` command starts on what its command needs: the modules of arena/cli/ that register
it (arena.cli.MODULES, held here to what they register), and no play machinery or numpy for a
command that only reads the database."""

import subprocess
import sys
import textwrap

import typer

from arena import cli


def _commands(app: typer.Typer) -> list[tuple[str, str]]:
    """(command or group name, module short name) of every command under `app`, its groups' too."""
    found = []
    for info in app.registered_commands:
        found.append((info.name or info.callback.__name__, info.callback.__module__.rsplit(".", 1)[-1]))
    for group in app.registered_groups:
        found += [(group.name, module) for _, module in _commands(group.typer_instance)]
    return found


def test_modules_names_every_command_with_the_module_that_registers_it():
    cli._register()
    found = _commands(cli.app)
    assert {name for name, _ in found} == set(cli.MODULES)
    for name, module in found:
        assert module in cli.MODULES[name], (name, module)


def test_a_command_reading_the_database_loads_no_play_machinery_and_no_numpy(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        from arena.cli import main
        try:
            main(["bot", "list", "--db", {str(tmp_path / "none.db")!r}])
        except SystemExit as exc:
            assert exc.code == 2, exc.code  # no database there: one line, exit 2
        print(sorted(m for m in ("numpy", "trio", "arena.play.match", "arena.tournaments.runner", "arena.league.store")
                     if m in sys.modules))
        import sqlite_utils
        print(sqlite_utils.Database(memory=True).execute("select 6 * 7").fetchone()[0])
        try:
            import numpy
        except ImportError:
            print("no numpy")
        else:
            print(numpy.int64(3) + 4)  # imported as usual after the start
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "[]", done.stdout
    assert lines[1] == "42"
    assert lines[2] in ("7", "no numpy")
