"""Tries to write outside its temp directory: to argv[1], and into its own folder; then into $TMPDIR."""
import os
import sys

targets = [sys.argv[1], os.path.join(os.path.dirname(os.path.abspath(__file__)), "planted.py")]
for path in targets:
    try:
        with open(path, "w") as f:
            f.write("planted by a bot\n")
        print(f"write_outside: wrote {path}", file=sys.stderr)
    except OSError as exc:
        print(f"write_outside: blocked {path} ({exc})", file=sys.stderr)
tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "scratch")
with open(tmp, "w") as f:
    f.write("fine\n")
print(f"write_outside: temp dir ok ({os.path.getsize(tmp)} bytes)", file=sys.stderr)
