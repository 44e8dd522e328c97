// A complete bot for every game the arena hosts, in Go with nothing but the standard library.
//
// It plays a legal move chosen at random from the `act` message's `legal` list, with a generator
// seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put your strategy
// in `choose`; wire.go decodes a message into maps and slices. Build:
// `CGO_ENABLED=0 go build -o bot .`. Register: arena bot add bots/kits/go/bot --name my-bot
package main

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
)

const name = "kit-go"

// choose is the index in legal of the move to play (the game's forms: its page, games/<game>/protocol.md).
func choose(observation map[string]any, legal []any, rng *rand.Rand) int {
	return rng.Intn(len(legal))
}

func main() {
	runtime.GOMAXPROCS(2) // a thread per core otherwise: the sandbox allows 32 (docs/runtimes.md)
	in := Reader{in: os.Stdin}
	rng := rand.New(rand.NewSource(0))
	for {
		message, err := in.Next()
		if err != nil {
			return // end of input (or bytes that are not msgpack)
		}
		switch message["type"] {
		case "hello":
			var seed int64
			switch s := message["seed"].(type) {
			case int64:
				seed = s
			case uint64:
				seed = int64(s)
			}
			rng = rand.New(rand.NewSource(seed))
			fmt.Fprintf(os.Stderr, "%s: seat %v of a %v table\n", name, message["seat"], message["game"])
			if Send(map[string]any{"type": "ready", "name": name, "version": "1"}) != nil {
				os.Exit(1)
			}
		case "act":
			observation, _ := message["observation"].(map[string]any)
			legal, _ := message["legal"].([]any)
			if Send(map[string]any{"type": "move", "index": choose(observation, legal, rng)}) != nil {
				os.Exit(1)
			}
		case "bye":
			return
		} // "deal" and "deal_end" need no reply: read them here to keep track of a board.
	}
}
