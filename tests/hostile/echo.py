"""A well-behaved stand-in: echoes stdin to stdout, says hello on stderr, exits at end of input."""
import os
import sys

sys.stderr.write("echo bot ready\n")
sys.stderr.flush()
while data := os.read(0, 65536):
    os.write(1, data)
