/* A complete bot for every game the arena hosts, in C with nothing but libc.
 *
 * It plays a legal move chosen at random from the `act` message's `legal` list, with
 * splitmix64 seeded from `hello.seed` (protocol.md section 3), so it replays identically. Put
 * your strategy in `choose`; wire.h walks a message's fields. Build: `make`. Register:
 *   arena bot add bots/kits/c/bot --name my-bot */
#include <stdio.h>

#include "wire.h"

#define NAME "kit-c"

static uint64_t state;

static uint64_t random64(void) {  /* splitmix64 */
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The index in `legal` of the move to play (the game's forms: its page, games/<game>/protocol.md). */
static uint32_t choose(mp observation, mp legal) {
    (void)observation;
    uint32_t n = mp_len(legal);  /* never 0: a seat is asked only when it has a legal move */
    return n ? (uint32_t)(random64() % n) : 0;
}

int main(void) {
    mp_stream in = {0};
    mp m;
    int status;
    while ((status = mp_read(&in, 0, &m)) == 1) {
        mp type = mp_get(m, "type");
        mp_out out = {.n = 0};
        if (mp_is(type, "hello")) {
            uint32_t n;
            const char *game = mp_str(mp_get(m, "game"), &n);
            state = mp_uint(mp_get(m, "seed"));
            fprintf(stderr, NAME ": seat %lld of a %.*s table\n", (long long)mp_int(mp_get(m, "seat"), -1),
                    (int)n, game ? game : "");
            mp_put_map(&out, 3);
            mp_put_str(&out, "type"), mp_put_str(&out, "ready");
            mp_put_str(&out, "name"), mp_put_str(&out, NAME);
            mp_put_str(&out, "version"), mp_put_str(&out, "1");
        } else if (mp_is(type, "act")) {
            mp_put_map(&out, 2);
            mp_put_str(&out, "type"), mp_put_str(&out, "move");
            mp_put_str(&out, "index"), mp_put_int(&out, choose(mp_get(m, "observation"), mp_get(m, "legal")));
        } else if (mp_is(type, "bye")) {
            return 0;
        }  /* "deal" and "deal_end" need no reply: read them here to keep track of a board. */
        if (out.n && !mp_send(1, &out)) return 1;
    }
    if (status < 0) fputs(NAME ": the input is not msgpack\n", stderr);
    return status < 0;
}
