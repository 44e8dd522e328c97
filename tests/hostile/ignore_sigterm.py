"""Ignores SIGTERM and the end of its input, and never exits on its own."""
import os
import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
os.write(1, b"ready\n")
while True:
    time.sleep(3600)
