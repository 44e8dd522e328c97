"""Raw mode: four children each touch 300 MiB and hold it until all have tried; says how many
children did (a per-process limit lets every one; a limit on the bot's whole tree does not)."""
import os

CHILDREN, SIZE = 4, 300 << 20
hold_r, hold_w = os.pipe()
pids = []
for _ in range(CHILDREN):
    pid = os.fork()
    if pid == 0:
        os.close(hold_w)
        block = bytearray(SIZE)
        for i in range(0, SIZE, 4096):
            block[i] = 1  # touch every page: resident, not just reserved
        os.read(hold_r, 1)  # hold it until the parent lets go
        os._exit(0)
    pids.append(pid)
os.close(hold_r)
import time  # noqa: E402

time.sleep(3)  # the children touch their pages meanwhile (about a second each here)
os.close(hold_w)
held = sum(os.waitpid(pid, 0)[1] == 0 for pid in pids)
print(f"memory_children: {held} of {CHILDREN} held {SIZE >> 20} MiB", flush=True)
print("done", flush=True)
