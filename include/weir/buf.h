/*
 * weir/buf.h - a growable byte buffer for encoding, and a bounds-checked
 * cursor for decoding. Used for keys, state values, accumulators and
 * checkpoint files. Integers are little-endian; varints are LEB128.
 * A cursor never reads past its end: a short read returns WEIR_ECORRUPT.
 */
#ifndef WEIR_BUF_H
#define WEIR_BUF_H

#include "weir/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} weir_buf;

void weir_buf_init(weir_buf *b);
void weir_buf_fini(weir_buf *b);
static inline void weir_buf_clear(weir_buf *b) { b->len = 0; }
int weir_buf_reserve(weir_buf *b, size_t extra);
int weir_buf_put(weir_buf *b, const void *p, size_t n);
int weir_buf_put_u8(weir_buf *b, uint8_t v);
int weir_buf_put_u32(weir_buf *b, uint32_t v);
int weir_buf_put_u64(weir_buf *b, uint64_t v);
int weir_buf_put_i64(weir_buf *b, int64_t v);
int weir_buf_put_f64(weir_buf *b, double v);
int weir_buf_put_varint(weir_buf *b, uint64_t v);
/* varint length followed by the bytes */
int weir_buf_put_bytes(weir_buf *b, const void *p, size_t n);
int weir_buf_put_str(weir_buf *b, const char *s); /* NULL allowed */
int weir_buf_printf(weir_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct weir_cursor {
    const uint8_t *p;
    const uint8_t *end;
} weir_cursor;

static inline void weir_cursor_init(weir_cursor *c, const void *p, size_t n)
{
    c->p = (const uint8_t *)p;
    c->end = c->p + n;
}
static inline size_t weir_cursor_left(const weir_cursor *c) { return (size_t)(c->end - c->p); }
int weir_cursor_get(weir_cursor *c, void *out, size_t n);
int weir_cursor_get_u8(weir_cursor *c, uint8_t *v);
int weir_cursor_get_u32(weir_cursor *c, uint32_t *v);
int weir_cursor_get_u64(weir_cursor *c, uint64_t *v);
int weir_cursor_get_i64(weir_cursor *c, int64_t *v);
int weir_cursor_get_f64(weir_cursor *c, double *v);
int weir_cursor_get_varint(weir_cursor *c, uint64_t *v);
/* Borrowed view into the cursor's memory. */
int weir_cursor_get_bytes(weir_cursor *c, const void **p, size_t *n);
/* Newly allocated NUL-terminated copy (transferred), or NULL for a NULL string. */
int weir_cursor_get_str(weir_cursor *c, char **out);

/* CRC-32C of data, for checksumming files. */
uint32_t weir_crc32c(uint32_t crc, const void *data, size_t n);

#ifdef __cplusplus
}
#endif
#endif
