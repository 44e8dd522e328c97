"""At its first move, tries to write to argv[1] and into its own folder, then into $TMPDIR; plays on."""
import os
import sys

import _play


def plant() -> None:
    targets = [sys.argv[1], os.path.join(os.path.dirname(os.path.abspath(__file__)), "planted.py")]
    for path in targets:
        try:
            with open(path, "w") as f:
                f.write("planted by a bot\n")
            _play.say(f"write_outside: wrote {path}")
        except OSError as exc:
            _play.say(f"write_outside: blocked {path} ({exc})")
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "scratch")
    with open(tmp, "w") as f:
        f.write("fine\n")
    _play.say(f"write_outside: temp dir ok ({os.path.getsize(tmp)} bytes)")


_play.main(plant)
