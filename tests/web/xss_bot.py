#!/usr/bin/env python3
"""A bot whose every word is markup: it announces itself as an <img> with an onerror handler,
its version as a <script>, writes markup to stderr, and crashes at its third move so that the
stderr shows on its page. The results pages must show all of it as text (tests/test_web_browser.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from botkit import Bot, run  # noqa: E402


class XssBot(Bot):
    name = "<img src=x onerror=alert(1)>"
    version = "<script>window.__xss = 2</script>"

    def __init__(self):
        super().__init__()
        self.moves = 0

    def choose(self, observation, legal_moves):
        self.moves += 1
        if self.moves == 3:
            sys.stderr.write("<img src=x onerror=\"window.__xss = 3\"><b>not bold</b>\n")
            sys.stderr.flush()
            sys.exit(1)
        return 0


if __name__ == "__main__":
    run(XssBot())
