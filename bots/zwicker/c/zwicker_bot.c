/* A Zwicker bot in C, written from protocol.md alone, with no library but libc.
 *
 * It carries the small part of msgpack the protocol needs (a decoder for nil, bool, integers,
 * floats, strings, binaries, arrays and maps; an encoder for the two replies), reads the raw
 * file descriptor 0 with read(2) (never stdio: a buffered read on a pipe waits for more than the
 * arena sends, protocol.md section 10), and answers with write(2). Strategy: the capture that
 * takes the most point cards, then the most cards; else trail the card worth least. It logs each
 * deal's room and board to stderr, where the arena keeps a bot's log.
 *
 * Build: `make` in this folder (static when the C library allows it). Register and play:
 *   arena bot add bots/zwicker/c --command ./zwicker_bot --name c-greedy
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- decoded values ------------------------------------------------------------------- */

enum kind { NIL, BOOL, INT, FLOAT, STR, ARRAY, MAP };

typedef struct value {
    enum kind kind;
    int64_t i;            /* INT, BOOL (0/1); uint64 above INT64_MAX is clamped (seeds only) */
    double f;             /* FLOAT */
    const char *s;        /* STR: points into the input buffer, not NUL-terminated */
    uint32_t len;         /* STR: bytes; ARRAY: items; MAP: pairs */
    struct value *items;  /* ARRAY: len items; MAP: 2*len (key, value, key, value, ...) */
} value;

typedef struct {
    const uint8_t *p, *end;
    int incomplete;       /* ran out of input: read more and try again */
    int bad;              /* not msgpack we understand */
} reader;

static int need(reader *r, size_t n) {
    if ((size_t)(r->end - r->p) < n) { r->incomplete = 1; return 0; }
    return 1;
}

static uint64_t be(const uint8_t *p, int n) {
    uint64_t x = 0;
    for (int k = 0; k < n; k++) x = x << 8 | p[k];
    return x;
}

static int decode(reader *r, value *v, int depth);

static int decode_items(reader *r, value *v, uint32_t count, int depth) {
    if (depth > 64) { r->bad = 1; return 0; }
    if (count > (uint32_t)(r->end - r->p)) { r->incomplete = 1; return 0; } /* each item >= 1 byte */
    v->items = count ? calloc(count, sizeof(value)) : NULL;
    if (count && !v->items) { r->bad = 1; return 0; }
    for (uint32_t k = 0; k < count; k++)
        if (!decode(r, &v->items[k], depth + 1)) return 0;
    return 1;
}

static int decode(reader *r, value *v, int depth) {
    memset(v, 0, sizeof *v);
    if (!need(r, 1)) return 0;
    uint8_t b = *r->p++;
    uint32_t n;
    if (b <= 0x7f) { v->kind = INT; v->i = b; return 1; }
    if (b >= 0xe0) { v->kind = INT; v->i = (int8_t)b; return 1; }
    if ((b & 0xe0) == 0xa0) { n = b & 0x1f; goto str; }
    if ((b & 0xf0) == 0x90) { v->kind = ARRAY; v->len = b & 0x0f; return decode_items(r, v, v->len, depth); }
    if ((b & 0xf0) == 0x80) { v->kind = MAP; v->len = b & 0x0f; return decode_items(r, v, 2 * v->len, depth); }
    switch (b) {
    case 0xc0: v->kind = NIL; return 1;
    case 0xc2: case 0xc3: v->kind = BOOL; v->i = b == 0xc3; return 1;
    case 0xcc: case 0xcd: case 0xce: case 0xcf: {
        int w = 1 << (b - 0xcc);
        if (!need(r, w)) return 0;
        uint64_t x = be(r->p, w); r->p += w;
        v->kind = INT; v->i = x > INT64_MAX ? INT64_MAX : (int64_t)x; return 1;
    }
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        int w = 1 << (b - 0xd0);
        if (!need(r, w)) return 0;
        uint64_t x = be(r->p, w); r->p += w;
        int shift = 64 - 8 * w;  /* sign-extend */
        v->kind = INT; v->i = (int64_t)(x << shift) >> shift; return 1;
    }
    case 0xca: case 0xcb: {
        int w = b == 0xca ? 4 : 8;
        if (!need(r, w)) return 0;
        uint64_t x = be(r->p, w); r->p += w;
        v->kind = FLOAT;
        if (w == 4) { uint32_t y = (uint32_t)x; float f; memcpy(&f, &y, 4); v->f = f; }
        else memcpy(&v->f, &x, 8);
        return 1;
    }
    case 0xd9: case 0xda: case 0xdb: case 0xc4: case 0xc5: case 0xc6: {
        int w = (b == 0xd9 || b == 0xc4) ? 1 : (b == 0xda || b == 0xc5) ? 2 : 4;
        if (!need(r, w)) return 0;
        n = (uint32_t)be(r->p, w); r->p += w;
        goto str;
    }
    case 0xdc: case 0xdd: {
        int w = b == 0xdc ? 2 : 4;
        if (!need(r, w)) return 0;
        v->kind = ARRAY; v->len = (uint32_t)be(r->p, w); r->p += w;
        return decode_items(r, v, v->len, depth);
    }
    case 0xde: case 0xdf: {
        int w = b == 0xde ? 2 : 4;
        if (!need(r, w)) return 0;
        v->kind = MAP; v->len = (uint32_t)be(r->p, w); r->p += w;
        if (v->len > UINT32_MAX / 2) { r->bad = 1; return 0; }
        return decode_items(r, v, 2 * v->len, depth);
    }
    default: r->bad = 1; return 0;  /* extension types: the arena never sends them */
    }
str:
    if (!need(r, n)) return 0;
    v->kind = STR; v->s = (const char *)r->p; v->len = n; r->p += n;
    return 1;
}

static void release(value *v) {
    if (v->kind == ARRAY || v->kind == MAP) {
        uint32_t count = v->kind == MAP ? 2 * v->len : v->len;
        for (uint32_t k = 0; k < count; k++) release(&v->items[k]);
        free(v->items);
    }
}

static int is(const value *v, const char *text) {
    return v && v->kind == STR && v->len == strlen(text) && memcmp(v->s, text, v->len) == 0;
}

static const value *get(const value *map, const char *key) {
    if (!map || map->kind != MAP) return NULL;
    for (uint32_t k = 0; k < map->len; k++)
        if (is(&map->items[2 * k], key)) return &map->items[2 * k + 1];
    return NULL;
}

static int64_t get_int(const value *map, const char *key, int64_t otherwise) {
    const value *v = get(map, key);
    return v && v->kind == INT ? v->i : otherwise;
}

/* ---- writing replies -------------------------------------------------------------------- */

typedef struct { uint8_t data[512]; size_t n; } out;

static void put(out *o, const void *p, size_t n) {
    if (o->n + n <= sizeof o->data) { memcpy(o->data + o->n, p, n); o->n += n; }
}

static void put_str(out *o, const char *s) {
    size_t n = strlen(s);
    uint8_t h[2];
    if (n < 32) { h[0] = 0xa0 | (uint8_t)n; put(o, h, 1); }
    else { h[0] = 0xd9; h[1] = (uint8_t)n; put(o, h, 2); }
    put(o, s, n);
}

static void put_uint(out *o, uint64_t x) {
    uint8_t h[9];
    if (x < 128) { h[0] = (uint8_t)x; put(o, h, 1); return; }
    h[0] = 0xcf;
    for (int k = 0; k < 8; k++) h[1 + k] = (uint8_t)(x >> (56 - 8 * k));
    put(o, h, 9);
}

static void put_map(out *o, int pairs) { uint8_t h = 0x80 | (uint8_t)pairs; put(o, &h, 1); }

static int send_all(const out *o) {
    size_t done = 0;
    while (done < o->n) {
        ssize_t w = write(1, o->data + done, o->n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        done += (size_t)w;
    }
    return 1;
}

/* ---- the strategy --------------------------------------------------------------------- */

static const value *points_table;  /* hello.variant.points: card -> points */

static int card_points(const value *card) {
    if (!points_table || !card || card->kind != STR) return 0;
    for (uint32_t k = 0; k < points_table->len; k++)
        if (points_table->items[2 * k].kind == STR && points_table->items[2 * k].len == card->len &&
            memcmp(points_table->items[2 * k].s, card->s, card->len) == 0)
            return (int)points_table->items[2 * k + 1].i;
    return 0;
}

/* Points and cards of one table unit: a card code, or {"build": [cards], ...}. */
static void unit_worth(const value *unit, int *points, int *cards) {
    if (unit->kind == STR) { *points += card_points(unit); *cards += 1; return; }
    const value *pile = get(unit, "build");
    if (pile && pile->kind == ARRAY)
        for (uint32_t k = 0; k < pile->len; k++) { *points += card_points(&pile->items[k]); *cards += 1; }
}

static int64_t choose(const value *act) {
    const value *legal = get(act, "legal");
    const value *table = get(get(act, "observation"), "table");
    if (!legal || legal->kind != ARRAY || legal->len == 0) return 0;
    int64_t best = -1, best_score = INT64_MIN;
    for (uint32_t k = 0; k < legal->len; k++) {
        const value *move = &legal->items[k];
        const value *card = get(move, "card");
        int64_t score;
        if (is(get(move, "type"), "capture")) {
            int points = card_points(card), cards = 1;
            const value *take = get(move, "take");
            for (uint32_t t = 0; take && take->kind == ARRAY && t < take->len; t++) {
                int64_t i = take->items[t].i;
                if (table && table->kind == ARRAY && i >= 0 && i < table->len) unit_worth(&table->items[i], &points, &cards);
            }
            score = 1000000 + 1000 * points + cards;
        } else if (is(get(move, "type"), "trail")) {
            score = -1000 * card_points(card);
        } else {
            score = -1000000;  /* builds: left to stronger bots */
        }
        if (score > best_score) { best_score = score; best = k; }
    }
    return best < 0 ? 0 : best;
}

/* ---- the loop --------------------------------------------------------------------------- */

static void print_str(const value *v) {
    if (v && v->kind == STR) fwrite(v->s, 1, v->len, stderr);
    else fputs("-", stderr);
}

int main(void) {
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    value hello;           /* kept for the whole run: points_table points into it */
    uint8_t *hello_buf = NULL;
    memset(&hello, 0, sizeof hello);
    if (!buf) return 1;
    for (;;) {
        /* Decode every complete message in the buffer. */
        size_t used = 0;
        for (;;) {
            reader r = { buf + used, buf + len, 0, 0 };
            value m;
            if (!decode(&r, &m, 0)) {
                release(&m);
                if (r.bad) { fprintf(stderr, "c-bot: input is not msgpack this bot reads\n"); return 1; }
                break;  /* incomplete: read more */
            }
            size_t size = (size_t)(r.p - (buf + used));
            const value *type = get(&m, "type");
            out o = { .n = 0 };
            if (is(type, "hello")) {
                put_map(&o, 3);
                put_str(&o, "type"); put_str(&o, "ready");
                put_str(&o, "name"); put_str(&o, "c-greedy");
                put_str(&o, "version"); put_str(&o, "1");
                if (!send_all(&o)) return 1;
                /* Keep hello (and the bytes its strings point into) for the points table. */
                hello_buf = malloc(size);
                if (hello_buf) {
                    memcpy(hello_buf, buf + used, size);
                    reader again = { hello_buf, hello_buf + size, 0, 0 };
                    if (decode(&again, &hello, 0)) points_table = get(get(&hello, "variant"), "points");
                }
                fprintf(stderr, "c-bot: seat %lld, protocol %lld\n", (long long)get_int(&m, "seat", -1),
                        (long long)get_int(&m, "protocol", -1));
            } else if (is(type, "act")) {
                put_map(&o, 2);
                put_str(&o, "type"); put_str(&o, "move");
                put_str(&o, "index"); put_uint(&o, (uint64_t)choose(&m));
                if (!send_all(&o)) return 1;
            } else if (is(type, "deal")) {
                fprintf(stderr, "deal %lld room ", (long long)get_int(&m, "number", -1));
                print_str(get(&m, "room"));
                fputs(" board ", stderr);
                print_str(get(&m, "board"));
                fprintf(stderr, " board_deal %lld\n", (long long)get_int(&m, "board_deal", -1));
            } else if (is(type, "deal_end")) {
                const value *bt = get(&m, "board_totals");
                fprintf(stderr, "deal_end %lld board_totals", (long long)get_int(&m, "number", -1));
                for (uint32_t k = 0; bt && bt->kind == ARRAY && k < bt->len; k++)
                    fprintf(stderr, " %lld", (long long)bt->items[k].i);
                fputc('\n', stderr);
            } else if (is(type, "bye")) {
                fputs("bye ", stderr);
                print_str(get(&m, "reason"));
                fputc('\n', stderr);
                return 0;
            }
            release(&m);
            used += size;
        }
        memmove(buf, buf + used, len - used);
        len -= used;
        if (len == cap) {
            if (cap >= (size_t)64 << 20 << 1) { fprintf(stderr, "c-bot: message too large\n"); return 1; }
            cap *= 2;
            uint8_t *grown = realloc(buf, cap);
            if (!grown) return 1;
            buf = grown;
        }
        ssize_t got = read(0, buf + len, cap - len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;  /* end of input: the arena is done */
        len += (size_t)got;
    }
}
