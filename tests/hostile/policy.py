"""Not hostile, a probe: says which scheduling policy it runs under (see arena.process.command.batch_policy)."""
import os

import _play

_play.main(lambda: _play.say(f"policy {os.sched_getscheduler(0)}"))
