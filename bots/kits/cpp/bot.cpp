// A complete bot for every game the arena hosts, in C++17 with nothing but the standard library.
//
// It plays a legal move chosen at random from the `act` message's `legal` list, with a generator
// seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put your strategy
// in `choose`; wire.hpp decodes a message into a Value (message["legal"][0]["type"]). Build:
// `make`. Register: arena bot add bots/kits/cpp/bot --name my-bot
#include <iostream>
#include <random>

#include "wire.hpp"

static const char* const NAME = "kit-cpp";

// The index in `legal` of the move to play (the game's forms: its page, games/<game>/protocol.md).
static size_t choose(const wire::Value& observation, const wire::Value& legal, std::mt19937_64& rng) {
    (void)observation;
    return legal.size() ? rng() % legal.size() : 0;  // never empty: a seat is asked only when it can move
}

int main() {
    wire::Reader in(0);
    wire::Value message;
    std::mt19937_64 rng;
    while (in.next(message)) {
        const wire::Value& type = message["type"];
        if (type.is("hello")) {
            rng.seed(message["seed"].as_uint());
            std::cerr << NAME << ": seat " << message["seat"].as_int(-1) << " of a " << message["game"].s << " table\n";
            if (!wire::Writer().map(3).str("type").str("ready").str("name").str(NAME).str("version").str("1").send(1)) return 1;
        } else if (type.is("act")) {
            auto index = static_cast<int64_t>(choose(message["observation"], message["legal"], rng));
            if (!wire::Writer().map(2).str("type").str("move").str("index").integer(index).send(1)) return 1;
        } else if (type.is("bye")) {
            return 0;
        }  // "deal" and "deal_end" need no reply: read them here to keep track of a board.
    }
    return 0;
}
