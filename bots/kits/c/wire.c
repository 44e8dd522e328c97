/* The arena's wire format in C: see wire.h. */
#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t be(const uint8_t *p, int n) {
    uint64_t x = 0;
    for (int k = 0; k < n; k++) x = x << 8 | p[k];
    return x;
}

/* A value's head at p: how many bytes of payload follow it (`skip`), how many values it holds
 * (`items`; a map's pairs count twice) and the size of the head; 0 when the input ends inside
 * the head, -1 for a type the protocol never uses (extensions). */
static int head(const uint8_t *p, const uint8_t *end, uint64_t *skip, uint64_t *items) {
    static const uint8_t width[32] = {  /* 0xc0..0xdf: bytes of the fixed part after the type byte */
        0, 0, 0, 0, 1, 2, 4, 0, 0, 0, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 0, 0, 0, 0, 0, 1, 2, 4, 2, 4, 2, 4};
    uint8_t b = *p;
    *skip = *items = 0;
    if (b <= 0x7f || b >= 0xe0) return 1;
    if (b <= 0x8f) { *items = 2u * (b & 0x0f); return 1; }
    if (b <= 0x9f) { *items = b & 0x0f; return 1; }
    if (b <= 0xbf) { *skip = b & 0x1f; return 1; }
    if (b == 0xc1 || (b >= 0xc7 && b <= 0xc9) || (b >= 0xd4 && b <= 0xd8)) return -1;
    int w = width[b - 0xc0];
    if (end - p < 1 + w) return 0;
    uint64_t n = be(p + 1, w);
    if ((b >= 0xc4 && b <= 0xc6) || (b >= 0xd9 && b <= 0xdb)) *skip = n;   /* bin, str */
    else if (b == 0xdc || b == 0xdd) *items = n;                          /* array */
    else if (b == 0xde || b == 0xdf) *items = 2 * n;                      /* map */
    return 1 + w;
}

/* The byte after the value at v.p: NULL when v.end comes first; *bad for an extension type. */
static const uint8_t *after(mp v, int *bad) {
    const uint8_t *p = v.p;
    uint64_t pending = 1, skip, items;
    while (pending--) {
        if (p >= v.end) return NULL;
        int h = head(p, v.end, &skip, &items);
        if (h <= 0) { *bad = h < 0; return NULL; }
        if (skip > (uint64_t)(v.end - p - h)) return NULL;
        p += h + skip;
        pending += items;
    }
    return p;
}

static mp next(mp v) {
    int bad = 0;
    const uint8_t *p = v.p ? after(v, &bad) : NULL;
    return (mp){p && p < v.end ? p : NULL, v.end};
}

static mp first(mp v, uint32_t *count) {  /* the first item of an array or map, and the count */
    uint64_t skip, items;
    *count = 0;
    if (!v.p || v.p >= v.end) return (mp){NULL, v.end};
    uint8_t b = *v.p;
    int array = (b & 0xf0) == 0x90 || b == 0xdc || b == 0xdd, map = (b & 0xf0) == 0x80 || b == 0xde || b == 0xdf;
    int h = head(v.p, v.end, &skip, &items);
    if (h <= 0 || !(array || map)) return (mp){NULL, v.end};
    *count = (uint32_t)(map ? items / 2 : items);
    return (mp){*count ? v.p + h : NULL, v.end};
}

uint32_t mp_len(mp v) { uint32_t n; first(v, &n); return n; }

mp mp_item(mp array, uint32_t k) {
    uint32_t n;
    mp v = first(array, &n);
    if (k >= n) return (mp){NULL, array.end};
    while (k-- && v.p) v = next(v);
    return v;
}

mp mp_get(mp map, const char *key) {
    uint32_t n;
    mp k = map.p && ((*map.p & 0xf0) == 0x80 || *map.p == 0xde || *map.p == 0xdf) ? first(map, &n) : (mp){NULL, map.end};
    if (!k.p) n = 0;
    for (uint32_t i = 0; i < n && k.p; i++) {
        mp v = next(k);
        if (mp_is(k, key)) return v;
        k = next(v);
    }
    return (mp){NULL, map.end};
}

const char *mp_str(mp v, uint32_t *len) {
    uint64_t skip, items;
    *len = 0;
    if (!v.p) return NULL;
    uint8_t b = *v.p;
    if (!((b & 0xe0) == 0xa0 || (b >= 0xd9 && b <= 0xdb))) return NULL;
    int h = head(v.p, v.end, &skip, &items);
    if (h <= 0) return NULL;
    *len = (uint32_t)skip;
    return (const char *)v.p + h;
}

int mp_is(mp v, const char *text) {
    uint32_t n;
    const char *s = mp_str(v, &n);
    return s && n == strlen(text) && memcmp(s, text, n) == 0;
}

uint64_t mp_uint(mp v) {
    if (!v.p) return 0;
    uint8_t b = *v.p;
    if (b <= 0x7f) return b;
    if (b >= 0xcc && b <= 0xcf) return be(v.p + 1, 1 << (b - 0xcc));
    int64_t i = mp_int(v, -1);
    return i < 0 ? 0 : (uint64_t)i;
}

int64_t mp_int(mp v, int64_t otherwise) {
    if (!v.p) return otherwise;
    uint8_t b = *v.p;
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return (int8_t)b;
    if (b >= 0xcc && b <= 0xcf) {
        uint64_t x = be(v.p + 1, 1 << (b - 0xcc));
        return x > INT64_MAX ? otherwise : (int64_t)x;
    }
    if (b >= 0xd0 && b <= 0xd3) {
        int w = 1 << (b - 0xd0), shift = 64 - 8 * w;
        return (int64_t)(be(v.p + 1, w) << shift) >> shift;  /* sign-extended */
    }
    return otherwise;
}

int mp_read(mp_stream *in, int fd, mp *message) {
    for (;;) {
        if (in->used < in->len) {
            int bad = 0;
            mp v = {in->buf + in->used, in->buf + in->len};
            const uint8_t *end = after(v, &bad);
            if (bad) return -1;
            if (end) {
                *message = (mp){v.p, end};
                in->used = (size_t)(end - in->buf);
                return 1;
            }
        }
        memmove(in->buf, in->buf + in->used, in->len - in->used);  /* keep the unread bytes */
        in->len -= in->used;
        in->used = 0;
        if (in->len == in->cap) {  /* the arena's messages are at most 64 MiB (protocol.md section 6) */
            size_t cap = in->cap ? 2 * in->cap : 1 << 16;
            uint8_t *grown = cap <= (size_t)128 << 20 ? realloc(in->buf, cap) : NULL;
            if (!grown) return -1;
            in->buf = grown;
            in->cap = cap;
        }
        ssize_t got = read(fd, in->buf + in->len, in->cap - in->len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        in->len += (size_t)got;
    }
}

static void put(mp_out *o, const void *p, size_t n) {
    if (o->n + n <= sizeof o->data) memcpy(o->data + o->n, p, n);
    o->n += n;  /* past the buffer: mp_send refuses it */
}

static void put_head(mp_out *o, uint8_t type, uint64_t x, int width) {
    uint8_t h[9] = {type};
    for (int k = 0; k < width; k++) h[1 + k] = (uint8_t)(x >> (8 * (width - 1 - k)));
    put(o, h, 1 + (size_t)width);
}

void mp_put_map(mp_out *o, uint32_t pairs) {
    if (pairs < 16) put_head(o, (uint8_t)(0x80 | pairs), 0, 0);
    else put_head(o, 0xdf, pairs, 4);
}

void mp_put_str(mp_out *o, const char *text) {
    size_t n = strlen(text);
    if (n < 32) put_head(o, (uint8_t)(0xa0 | n), 0, 0);
    else put_head(o, 0xdb, n, 4);
    put(o, text, n);
}

void mp_put_int(mp_out *o, int64_t x) {
    if (x >= -32 && x <= 127) put_head(o, (uint8_t)x, 0, 0);
    else put_head(o, 0xd3, (uint64_t)x, 8);
}

int mp_send(int fd, const mp_out *o) {
    if (o->n > sizeof o->data) return 0;
    for (size_t done = 0; done < o->n;) {
        ssize_t w = write(fd, o->data + done, o->n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        done += (size_t)w;
    }
    return 1;
}
