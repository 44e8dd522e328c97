"""Raw mode: four children each touch 300 MiB and hold it until all have tried; says how many
children did (a per-process limit lets every one; a limit on the bot's whole tree does not)."""
import os

CHILDREN, SIZE = 4, 300 << 20
hold_r, hold_w = os.pipe()  # the children hold their memory until the parent closes this
done_r, done_w = os.pipe()  # a byte from each child that touched all of it; EOF when all are out
pids = []
for _ in range(CHILDREN):
    pid = os.fork()
    if pid == 0:
        os.close(hold_w)
        os.close(done_r)
        block = bytearray(SIZE)
        for i in range(0, SIZE, 4096):
            block[i] = 1  # touch every page: resident, not just reserved
        os.write(done_w, b"+")
        os.close(done_w)  # so that the parent sees end of file once every child is through
        os.read(hold_r, 1)
        os._exit(0)
    pids.append(pid)
os.close(hold_r)
os.close(done_w)
touched = 0
while touched < CHILDREN and os.read(done_r, 1):  # until all touched theirs, or the rest were killed
    touched += 1
os.close(hold_w)
held = sum(os.waitpid(pid, 0)[1] == 0 for pid in pids)
print(f"memory_children: {held} of {CHILDREN} held {SIZE >> 20} MiB", flush=True)
print("done", flush=True)
