/* The arena's wire format in C, with nothing but libc (protocol.md sections 1 and 13).
 *
 * Reading works in place, without building anything: an `mp` is one msgpack value inside the
 * bytes read (`p` its first byte, `end` where its message ends), and the functions below walk
 * to a map's field or an array's item. A message stays valid until the next `mp_read`.
 * Writing puts maps, strings and integers (all a reply needs) into a small buffer. */
#ifndef WIRE_H
#define WIRE_H
#include <stddef.h>
#include <stdint.h>

typedef struct { const uint8_t *p, *end; } mp;

mp mp_get(mp map, const char *key);        /* a map's field; p == NULL when absent */
uint32_t mp_len(mp v);                     /* items of an array, pairs of a map, else 0 */
mp mp_item(mp array, uint32_t k);          /* an array's item k; p == NULL past the end */
int mp_is(mp v, const char *text);         /* v is the string `text` */
int64_t mp_int(mp v, int64_t otherwise);   /* an integer of any format (uint64 above INT64_MAX: mp_uint) */
uint64_t mp_uint(mp v);                    /* a non-negative integer, e.g. hello.seed; else 0 */
const char *mp_str(mp v, uint32_t *len);   /* a string's bytes (not NUL-terminated); NULL if none */

typedef struct { uint8_t *buf; size_t cap, len, used; } mp_stream;
/* The next message from fd: 1 and *message, 0 at end of input, -1 on bytes that are not msgpack. */
int mp_read(mp_stream *in, int fd, mp *message);

typedef struct { uint8_t data[512]; size_t n; } mp_out;
void mp_put_map(mp_out *o, uint32_t pairs);
void mp_put_str(mp_out *o, const char *text);
void mp_put_int(mp_out *o, int64_t x);
int mp_send(int fd, const mp_out *o);      /* write it whole: 1, or 0 when the arena is gone */
#endif
