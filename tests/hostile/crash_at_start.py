"""Crashes before reading anything: an uncaught exception, exit status 1."""
raise SystemExit("crash_at_start: giving up before the handshake")
