"""An honest bot with threads, as a JVM starts about 11: 20 that wait for good, started before
its handshake; then uniformly random legal moves. Its process limit (32 tasks) holds them."""

import threading

from botkit import Bot, run

block = threading.Event()
for _ in range(20):
    threading.Thread(target=block.wait, daemon=True).start()


class ThreadsBot(Bot):
    name = "threads"
    version = "1"

    def choose(self, observation, legal_moves):
        return self.rng.randrange(len(legal_moves))


if __name__ == "__main__":
    run(ThreadsBot())
