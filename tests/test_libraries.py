"""A sandboxed Python bot imports an installed library only where its script declares it
(arena/process/libraries.py): the `# /// script` block of PEP 723."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.process import libraries

ARENA = Path(sys.executable).parent / "arena"
BOT = '''{head}import numpy
from botkit import Bot, run


class NumpyBot(Bot):
    name = "numpy-bot"

    def choose(self, observation, legal_moves):
        return int(numpy.argmin([0] * len(legal_moves)))


run(NumpyBot())
'''
BLOCK = '# /// script\n# requires-python = ">=3.11"\n# dependencies = [\n#   "numpy>=1.22",  # arrays\n# ]\n# ///\n'


def test_a_scripts_block_names_its_distributions(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text(BOT.format(head=BLOCK))
    assert libraries.declared(script) == ("numpy",)
    assert libraries.script_of(("python3", "bot.py", "--x"), tmp_path) == script
    script.write_text(BOT.format(head=""))
    assert libraries.declared(script) == () and libraries.for_bot(("python3", str(script)), tmp_path) is None
    script.write_text("# /// script\n# dependencies = [1]\n# ///\n")
    with pytest.raises(ValueError, match="not a list of strings"):
        libraries.declared(script)


def test_a_distribution_not_installed_says_so():
    with pytest.raises(ValueError, match="no-such-distribution-xyz, which is not installed beside the arena"):
        libraries.folder(("no-such-distribution-xyz",))


def test_bots_that_start_at_once_share_one_copy():
    pytest.importorskip("numpy", reason="numpy is not installed beside the arena (extra [openspiel] or [pettingzoo])")
    found: list[Path] = []
    threads = [threading.Thread(target=lambda: found.append(libraries.folder(("numpy",)))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 4 and len(set(found)) == 1 and (found[0] / "numpy" / "__init__.py").is_file()


def check(bot: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(ARENA), "bot", "check", str(bot), "--deals", "1"], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(tmp_path / "a.db")})


def test_only_a_bot_that_declares_numpy_imports_it_in_the_default_sandbox(tmp_path):
    pytest.importorskip("numpy", reason="numpy is not installed beside the arena (extra [openspiel] or [pettingzoo])")
    (tmp_path / "plain").mkdir()
    (tmp_path / "declared").mkdir()
    plain, declared = tmp_path / "plain" / "bot.py", tmp_path / "declared" / "bot.py"
    plain.write_text(BOT.format(head=""))
    declared.write_text(BOT.format(head=BLOCK))
    refused = check(plain, tmp_path)
    assert refused.returncode != 0 and "No module named 'numpy'" in refused.stdout + refused.stderr
    done = check(declared, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
