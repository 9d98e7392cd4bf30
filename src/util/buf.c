/*
 * util/buf.c - growable byte buffer and bounds-checked cursor.
 * Invariant: a cursor read that would pass the end fails with WEIR_ECORRUPT
 * and leaves the cursor where it was.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weir/buf.h"

void weir_buf_init(weir_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void weir_buf_fini(weir_buf *b)
{
    weir_free(b->data);
    weir_buf_init(b);
}

int weir_buf_reserve(weir_buf *b, size_t extra)
{
    if (b->len + extra <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra)
        cap *= 2;
    uint8_t *d = weir_realloc(b->data, cap);
    if (!d)
        return WEIR_ENOMEM;
    b->data = d;
    b->cap = cap;
    return 0;
}

int weir_buf_put(weir_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return 0;
    int rc = weir_buf_reserve(b, n);
    if (rc)
        return rc;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

int weir_buf_put_u8(weir_buf *b, uint8_t v)
{
    return weir_buf_put(b, &v, 1);
}

int weir_buf_put_u32(weir_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                    (uint8_t)(v >> 24)};
    return weir_buf_put(b, x, 4);
}

int weir_buf_put_u64(weir_buf *b, uint64_t v)
{
    /* little-endian bytes; one register store (gcc -O2 left the byte loop a loop: ~70 instructions) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    uint8_t x[8];
    memcpy(x, &v, sizeof x);
    if (b->cap - b->len >= sizeof x) { /* room: one 8-byte store, not a call to copy */
        memcpy(b->data + b->len, x, sizeof x);
        b->len += sizeof x;
        return 0;
    }
    return weir_buf_put(b, x, 8);
}

int weir_buf_put_i64(weir_buf *b, int64_t v)
{
    return weir_buf_put_u64(b, (uint64_t)v);
}

int weir_buf_put_f64(weir_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return weir_buf_put_u64(b, u);
}

int weir_buf_put_varint(weir_buf *b, uint64_t v)
{
    uint8_t x[10];
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        x[n++] = byte | (v ? 0x80 : 0);
    } while (v);
    return weir_buf_put(b, x, n);
}

int weir_buf_put_bytes(weir_buf *b, const void *p, size_t n)
{
    int rc = weir_buf_put_varint(b, n);
    return rc ? rc : weir_buf_put(b, p, n);
}

int weir_buf_put_str(weir_buf *b, const char *s)
{
    /* 0 encodes NULL; otherwise length + 1. */
    if (!s)
        return weir_buf_put_varint(b, 0);
    size_t n = strlen(s);
    int rc = weir_buf_put_varint(b, n + 1);
    return rc ? rc : weir_buf_put(b, s, n);
}

int weir_buf_printf(weir_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return WEIR_EINVAL;
    int rc = weir_buf_reserve(b, (size_t)n + 1);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

int weir_cursor_get(weir_cursor *c, void *out, size_t n)
{
    if (weir_cursor_left(c) < n)
        return WEIR_ECORRUPT;
    if (n)
        memcpy(out, c->p, n);
    c->p += n;
    return 0;
}

int weir_cursor_get_u8(weir_cursor *c, uint8_t *v)
{
    return weir_cursor_get(c, v, 1);
}

int weir_cursor_get_u32(weir_cursor *c, uint32_t *v)
{
    uint8_t x[4];
    int rc = weir_cursor_get(c, x, 4);
    if (rc)
        return rc;
    *v = (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 |
         (uint32_t)x[3] << 24;
    return 0;
}

int weir_cursor_get_u64(weir_cursor *c, uint64_t *v)
{
    uint8_t x[8];
    int rc = weir_cursor_get(c, x, 8);
    if (rc)
        return rc;
    uint64_t r;
    memcpy(&r, x, sizeof r);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    r = __builtin_bswap64(r);
#endif
    *v = r;
    return 0;
}

int weir_cursor_get_i64(weir_cursor *c, int64_t *v)
{
    uint64_t u;
    int rc = weir_cursor_get_u64(c, &u);
    if (!rc)
        *v = (int64_t)u;
    return rc;
}

int weir_cursor_get_f64(weir_cursor *c, double *v)
{
    uint64_t u;
    int rc = weir_cursor_get_u64(c, &u);
    if (!rc)
        memcpy(v, &u, 8);
    return rc;
}

int weir_cursor_get_varint(weir_cursor *c, uint64_t *v)
{
    uint64_t r = 0;
    const uint8_t *p = c->p;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= c->end)
            return WEIR_ECORRUPT;
        uint8_t byte = *p++;
        r |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            if (shift == 63 && byte > 1) /* the tenth byte holds bit 63 only */
                return WEIR_ECORRUPT;
            c->p = p;
            *v = r;
            return 0;
        }
    }
    return WEIR_ECORRUPT;
}

int weir_cursor_get_bytes(weir_cursor *c, const void **p, size_t *n)
{
    weir_cursor save = *c;
    uint64_t len;
    int rc = weir_cursor_get_varint(c, &len);
    if (rc)
        return rc;
    if (weir_cursor_left(c) < len) {
        *c = save;
        return WEIR_ECORRUPT;
    }
    *p = c->p;
    *n = (size_t)len;
    c->p += len;
    return 0;
}

int weir_cursor_get_str(weir_cursor *c, char **out)
{
    weir_cursor save = *c;
    uint64_t len;
    int rc = weir_cursor_get_varint(c, &len);
    if (rc)
        return rc;
    if (len == 0) {
        *out = NULL;
        return 0;
    }
    if (weir_cursor_left(c) < len - 1) {
        *c = save;
        return WEIR_ECORRUPT;
    }
    char *s = weir_strndup((const char *)c->p, (size_t)(len - 1));
    if (!s) {
        *c = save;
        return WEIR_ENOMEM;
    }
    c->p += len - 1;
    *out = s;
    return 0;
}

/*
 * CRC-32C (Castagnoli). Checkpoint files are checksummed whole on every
 * write and every restore, so speed matters: x86-64 with SSE 4.2 uses the
 * crc32 instruction (8 bytes a step), elsewhere a slicing-by-8 table
 * (tables built on first use). Both give the same values.
 */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static bool crc_hw;
#endif

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_tab[t][i] =
                (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    crc_hw = __builtin_cpu_supports("sse4.2");
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) static uint32_t
crc_sse42(uint32_t crc, const uint8_t *p, size_t n)
{
    uint64_t c = crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    while (n--)
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}
#endif

uint32_t weir_crc32c(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&crc_once, crc_init);
    const uint8_t *p = data;
    crc = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (crc_hw)
        return ~crc_sse42(crc, p, n);
#endif
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= crc;
        crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
              crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
              crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
              crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
    }
    while (n--)
        crc = crc_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}
