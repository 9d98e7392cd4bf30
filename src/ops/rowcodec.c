/*
 * ops/rowcodec.c - the row encodings operators keep in state (see
 * rowcodec.h).
 */
#include <assert.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "runtime/checkpoint.h"
#include "weir/schema.h"

/*
 * Copies one fixed-width value. The widths are few and small, so a
 * constant-size memcpy per width compiles to a move; a memcpy of a
 * variable size is a library call per value, which showed in profiles.
 */
static inline void copy_value(void *dst, const void *src, size_t w)
{
    switch (w) {
    case 8:
        memcpy(dst, src, 8);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    case 1:
        memcpy(dst, src, 1);
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 16:
        memcpy(dst, src, 16);
        break;
    default:
        memcpy(dst, src, w);
        break;
    }
}

/* Bytes of the encoding of columns [0, n) of a row: per column a NULL flag,
 * then the fixed-width value or a u32 length (little-endian) and the bytes. */
size_t weir__row_encoded_len(const weir_batch *b, uint32_t row, uint32_t n)
{
    size_t len = n;
    for (uint32_t c = 0; c < n; c++) {
        if (weir_batch_is_null(b, c, row))
            continue;
        const weir_column *col = &b->cols[c];
        if (weir_type_is_varlen(col->type.id))
            len += 4 + (size_t)((const weir_strref *)col->data)[row].len;
        else
            len += weir_type_size(col->type);
    }
    return len;
}

/* Writes the encoding of len bytes (weir__row_encoded_len) at p: the values
 * stored directly rather than one weir_buf call per flag, length and value. */
void weir__row_encode_to(const weir_batch *b, uint32_t row, uint32_t n, size_t len, uint8_t *p)
{
    const uint8_t *start = p;
    for (uint32_t c = 0; c < n; c++) {
        if (weir_batch_is_null(b, c, row)) {
            *p++ = 1;
            continue;
        }
        *p++ = 0;
        const weir_column *col = &b->cols[c];
        if (weir_type_is_varlen(col->type.id)) {
            uint32_t slen;
            const char *s = weir_batch_str(b, c, row, &slen);
            p[0] = (uint8_t)slen;
            p[1] = (uint8_t)(slen >> 8);
            p[2] = (uint8_t)(slen >> 16);
            p[3] = (uint8_t)(slen >> 24);
            if (slen)
                memcpy(p + 4, s, slen);
            p += 4 + (size_t)slen;
        } else {
            size_t w = weir_type_size(col->type);
            copy_value(p, (const char *)col->data + (size_t)row * w, w);
            p += w;
        }
    }
    assert((size_t)(p - start) == len);
    (void)start;
    (void)len;
}

/* The same into out's spare room (one reservation). */
int weir__row_encode_append(const weir_batch *b, uint32_t row, uint32_t n,
                            size_t len, weir_buf *out)
{
    if (weir_buf_reserve(out, len))
        return WEIR_ENOMEM;
    weir__row_encode_to(b, row, n, len, out->data + out->len);
    out->len += len;
    return 0;
}

int weir__row_encode(const weir_batch *b, uint32_t row, uint32_t n,
                     weir_buf *out)
{
    weir_buf_clear(out);
    return weir__row_encode_append(b, row, n, weir__row_encoded_len(b, row, n), out);
}

/* Writes an encoded row into columns [off, off + n) of (dst, row). */
int weir__row_decode(const uint8_t *p, size_t len, weir_batch *dst,
                     uint32_t row, uint32_t off, uint32_t n)
{
    weir_cursor cur;
    weir_cursor_init(&cur, p, len);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = off + i;
        uint8_t isnull;
        if (weir_cursor_get_u8(&cur, &isnull))
            return WEIR_ECORRUPT;
        if (isnull) {
            weir_batch_set_null(dst, c, row);
            continue;
        }
        weir_type_id t = dst->cols[c].type.id;
        if (weir_type_is_varlen(t)) {
            uint32_t slen;
            if (weir_cursor_get_u32(&cur, &slen) ||
                weir_cursor_left(&cur) < slen)
                return WEIR_ECORRUPT;
            int rc = weir_batch_set_str(dst, c, row, (const char *)cur.p, slen);
            if (rc)
                return rc;
            cur.p += slen;
        } else {
            size_t w = weir_type_size(dst->cols[c].type);
            if (weir_cursor_left(&cur) < w)
                return WEIR_ECORRUPT;
            copy_value((char *)dst->cols[c].data + (size_t)row * w, cur.p, w);
            cur.p += w;
        }
    }
    return 0;
}

/* Copies columns [0, n) of (src, srow) into columns [off, off + n) of (dst,
 * drow). */
int weir__row_copy_cols(weir_batch *dst, uint32_t drow, uint32_t off,
                        const weir_batch *src, uint32_t srow, uint32_t soff,
                        uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t dc = off + i, sc = soff + i;
        if (weir_batch_is_null(src, sc, srow)) {
            weir_batch_set_null(dst, dc, drow);
        } else if (weir_type_is_varlen(src->cols[sc].type.id)) {
            uint32_t len;
            const char *s = weir_batch_str(src, sc, srow, &len);
            int rc = weir_batch_set_str(dst, dc, drow, s, len);
            if (rc)
                return rc;
        } else {
            size_t w = weir_type_size(src->cols[sc].type);
            copy_value((char *)dst->cols[dc].data + (size_t)drow * w,
                       (const char *)src->cols[sc].data + (size_t)srow * w, w);
        }
    }
    return 0;
}

/* ---- the compact encoding (rowcodec.h) ---- */

/* How a column's value is stored in the compact encoding. */
enum { CK_V32, CK_V64, CK_STR, CK_RAW };

/* Each type's kind, but DECIMAL's (by its precision): a load per column of
 * a row rather than a switch over the types (2 % of q19's instructions). */
#define CK_DEC 4
static const uint8_t crow_kind_of[WEIR__TYPE_ID_LAST + 1] = {
    [WEIR_TYPE_BOOLEAN] = CK_RAW,   [WEIR_TYPE_INT] = CK_V32,       [WEIR_TYPE_BIGINT] = CK_V64,
    [WEIR_TYPE_DOUBLE] = CK_RAW,    [WEIR_TYPE_DECIMAL] = CK_DEC,   [WEIR_TYPE_STRING] = CK_STR,
    [WEIR_TYPE_BYTES] = CK_STR,     [WEIR_TYPE_TIMESTAMP] = CK_V64, [WEIR_TYPE_TIMESTAMP_LTZ] = CK_V64,
    [WEIR_TYPE_NULL] = CK_RAW,      [WEIR_TYPE_ARRAY] = CK_STR,     [WEIR_TYPE_MAP] = CK_STR,
    [WEIR_TYPE_ROW] = CK_STR,       [WEIR_TYPE_DATE] = CK_V32,      [WEIR_TYPE_TIME] = CK_V32,
    [WEIR_TYPE_MULTISET] = CK_STR,
};

static inline int crow_kind(weir_type t)
{
    int k = crow_kind_of[t.id];
    return k == CK_DEC ? (t.precision > 18 ? CK_RAW : CK_V64) : k;
}

static inline uint64_t zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline uint32_t zigzag32(int32_t v) { return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31); }

/* Bytes of the varint of v, 7 bits a byte: 1 + (63 - clz) / 7 by a table, not a division per value. */
static const uint8_t vlen_by_clz[64] = {
    10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7, 7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5,
    5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
};
static inline size_t vlen64(uint64_t v) { return vlen_by_clz[__builtin_clzll(v | 1)]; }

static inline uint8_t *vput(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* The varint at *pp (before end) into *v, its bytes read up to end, or with room (10 bytes, the
 * longest's, before end) without a test of end a byte. */
static inline __attribute__((always_inline)) bool vget_loop(const uint8_t **pp, const uint8_t *end, bool room,
                                                            uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = 0;
    for (unsigned sh = 0; (room || p < end) && sh < 64; sh += 7) {
        uint8_t c = *p++;
        x |= (uint64_t)(c & 0x7f) << sh;
        if (c < 0x80) {
            if (sh == 63 && c > 1) /* the tenth byte holds bit 63 only */
                return false;
            *v = x;
            *pp = p;
            return true;
        }
    }
    return false;
}

/* The varint at *pp into *v when it has at most 8 bytes, with 8 bytes before the end: one
 * load, its 7-bit groups gathered by masks and shifts (a timestamp's 6 bytes took a loop of
 * ~50 instructions and a branch a byte). False, *pp untouched, when it is longer. */
static inline bool vget_word(const uint8_t **pp, uint64_t *v)
{
    uint64_t w;
    memcpy(&w, *pp, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    uint64_t stops = ~w & 0x8080808080808080ull; /* the high bit clear: the varint's last byte */
    if (!stops)
        return false;
    /* its bytes (up to the first stop), without their high bits, then the groups side by side */
    w &= (stops ^ (stops - 1)) & 0x7f7f7f7f7f7f7f7full;
    w = (w & 0x007f007f007f007full) | ((w & 0x7f007f007f007f00ull) >> 1);
    w = (w & 0x00003fff00003fffull) | ((w & 0x3fff00003fff0000ull) >> 2);
    w = (w & 0x000000000fffffffull) | ((w & 0x0fffffff00000000ull) >> 4);
    *v = w;
    *pp += (__builtin_ctzll(stops) + 1) / 8;
    return true;
}

/* The varint at *pp (before end) into *v; false when it runs past end or
 * past 64 bits (more than ten bytes, or bits over 64 in the tenth). */
static inline __attribute__((always_inline)) bool vget(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return true;
    }
    if (end - p >= 8 && vget_word(pp, v))
        return true;
    return end - p >= 10 ? vget_loop(pp, end, true, v) : vget_loop(pp, end, false, v);
}

/* The bytes of the non-NULL value (col, row) of kind k (crow_kind) in the compact encoding;
 * stored as its bytes, it has the width of type t (NULL: w, taken before). The column helpers
 * below share these arguments. */
static inline __attribute__((always_inline)) size_t crow_col_len(int k, const weir_type *t, size_t w,
                                                                 const weir_column *col, uint32_t row)
{
    switch (k) {
    case CK_V32:
        return vlen64(zigzag32(((const int32_t *)col->data)[row]));
    case CK_V64:
        return vlen64(zigzag64(((const int64_t *)col->data)[row]));
    case CK_STR: {
        uint32_t sl = ((const weir_strref *)col->data)[row].len;
        return vlen64(sl) + sl;
    }
    default:
        return t ? weir_type_size(*t) : w;
    }
}

/* The length, write and decode of the compact encoding, the columns where skip is true (skip
 * NULL: none) left out: their NULL bit clear and no bytes (weir__crow_len_skip). Inline into
 * each caller, so that those without skip test nothing per column. */
static inline __attribute__((always_inline)) size_t crow_len(const weir_batch *b, uint32_t row, uint32_t n,
                                                             const bool *skip)
{
    size_t len = (n + 7) / 8;
    for (uint32_t c = 0; c < n; c++) {
        if ((skip && skip[c]) || weir_batch_is_null(b, c, row))
            continue;
        const weir_column *col = &b->cols[c];
        len += crow_col_len(crow_kind(col->type), &col->type, 0, col, row);
    }
    return len;
}

size_t weir__crow_len(const weir_batch *b, uint32_t row, uint32_t n) { return crow_len(b, row, n, NULL); }

size_t weir__crow_len_skip(const weir_batch *b, uint32_t row, uint32_t n, const bool *skip)
{
    return crow_len(b, row, n, skip);
}

/* The most bytes a column takes in the compact encoding but a string's bytes: a 64-bit
 * varint (10), a string's length's varint (5), a DECIMAL of precision > 18 (16). */
#define CROW_COL_MAX 16

/* A row written into a buffer that grows as its strings need (crow_put). */
typedef struct crow_grow {
    weir_buf *buf;
    size_t start; /* the row's offset in buf */
    /* buf's room past the bitmap and CROW_COL_MAX bytes for each column still to write,
     * at least: a column takes at most its CROW_COL_MAX but a string's bytes, which are
     * taken from it (a test and a subtraction per string) */
    size_t spare;
    uint8_t *bits; /* the row's bitmap (it moves with buf) */
    uint32_t n;    /* the row's columns */
} crow_grow;

/* Writes the non-NULL value (col, row) (of the row's column c; heap: its batch's) at p in the
 * compact encoding; returns its end. g: p is the end of g->buf's bytes, and a string that
 * would not fit grows it first (NULL when that fails); NULL: p has room. */
static inline __attribute__((always_inline)) uint8_t *crow_col_put(int k, const weir_type *t, size_t w,
                                                                   const weir_column *col, const char *heap,
                                                                   uint32_t row, uint8_t *p, crow_grow *g,
                                                                   uint32_t c)
{
    switch (k) {
    case CK_V32:
        return vput(p, zigzag32(((const int32_t *)col->data)[row]));
    case CK_V64:
        return vput(p, zigzag64(((const int64_t *)col->data)[row]));
    case CK_STR: {
        weir_strref r = ((const weir_strref *)col->data)[row];
        if (g && r.len > g->spare) {
            /* room for the string, and CROW_COL_MAX for this column and each after it */
            size_t fixed = (size_t)(g->n - c) * CROW_COL_MAX;
            g->buf->len = (size_t)(p - g->buf->data);
            if (weir_buf_reserve(g->buf, r.len + fixed))
                return NULL;
            p = g->buf->data + g->buf->len;
            g->bits = g->buf->data + g->start;
            g->spare = g->buf->cap - g->buf->len - fixed;
        }
        if (g)
            g->spare -= r.len;
        p = vput(p, r.len);
        if (r.len)
            memcpy(p, heap + r.off, r.len);
        return p + r.len;
    }
    default: {
        size_t ww = t ? weir_type_size(*t) : w;
        copy_value(p, (const char *)col->data + (size_t)row * ww, ww);
        return p + ww;
    }
    }
}

/*
 * Writes the compact encoding at p (the columns where skip is true left out) and returns
 * its end. grow NULL: p has room for the whole row (crow_len). grow: p is the end of
 * grow's bytes (data + len), with room for the bitmap and CROW_COL_MAX bytes a column,
 * and a string that would not fit grows it first (its data moves): the row in one pass,
 * no length taken before it. NULL when that growth fails.
 */
static inline __attribute__((always_inline)) uint8_t *crow_put(const weir_batch *b, uint32_t row, uint32_t n,
                                                               uint8_t *p, const bool *skip, weir_buf *grow)
{
    size_t nb = (n + 7) / 8;
    crow_grow g = {grow, grow ? grow->len : 0, 0, p, n};
    if (grow)
        g.spare = grow->cap - g.start - nb - (size_t)n * CROW_COL_MAX;
    if (nb == 1) /* most rows: not a call for one byte */
        *p = 0;
    else
        memset(p, 0, nb);
    p += nb;
    for (uint32_t c = 0; c < n; c++) {
        if (skip && skip[c])
            continue;
        if (weir_batch_is_null(b, c, row)) {
            g.bits[c >> 3] |= (uint8_t)(1u << (c & 7));
            continue;
        }
        const weir_column *col = &b->cols[c];
        int k = crow_kind(col->type);
        p = crow_col_put(k, &col->type, 0, col, b->heap, row, p, grow ? &g : NULL, c);
        if (grow && k == CK_STR && !p) /* only a string grows the buffer */
            return NULL;
    }
    return p;
}

static inline __attribute__((always_inline)) void crow_write(const weir_batch *b, uint32_t row, uint32_t n,
                                                             size_t len, uint8_t *p, const bool *skip)
{
    uint8_t *end = crow_put(b, row, n, p, skip, NULL);
    assert((size_t)(end - p) == len);
    (void)end;
    (void)len;
}

void weir__crow_write(const weir_batch *b, uint32_t row, uint32_t n, size_t len, uint8_t *p)
{
    crow_write(b, row, n, len, p, NULL);
}

void weir__crow_write_skip(const weir_batch *b, uint32_t row, uint32_t n, size_t len, uint8_t *p, const bool *skip)
{
    crow_write(b, row, n, len, p, skip);
}

/* One pass over the row (crow_put), not its length and then its bytes: 30 % fewer of
 * the encoder's instructions on Nexmark q20, whose join stores every bid. Appended to
 * out's bytes. */
static inline __attribute__((always_inline)) int crow_append(const weir_batch *b, uint32_t row, uint32_t n,
                                                            const bool *skip, weir_buf *out)
{
    if (n == 0)
        return 0; /* no bitmap, no column: no byte (and out may have no buffer yet) */
    if (weir_buf_reserve(out, (n + 7) / 8 + (size_t)n * CROW_COL_MAX))
        return WEIR_ENOMEM;
    size_t before = out->len;
    uint8_t *end = crow_put(b, row, n, out->data + before, skip, out);
    out->len = end ? (size_t)(end - out->data) : before;
    return end ? 0 : WEIR_ENOMEM;
}

static inline __attribute__((always_inline)) int crow_encode(const weir_batch *b, uint32_t row, uint32_t n,
                                                            const bool *skip, weir_buf *out)
{
    weir_buf_clear(out);
    return crow_append(b, row, n, skip, out);
}

int weir__crow_encode(const weir_batch *b, uint32_t row, uint32_t n, weir_buf *out)
{
    return crow_encode(b, row, n, NULL, out);
}

int weir__crow_encode_append_skip(const weir_batch *b, uint32_t row, uint32_t n, const bool *skip, weir_buf *out)
{
    return skip ? crow_append(b, row, n, skip, out) : crow_append(b, row, n, NULL, out);
}

int weir__crow_encode_skip(const weir_batch *b, uint32_t row, uint32_t n, const bool *skip, weir_buf *out)
{
    return skip ? crow_encode(b, row, n, skip, out) : crow_encode(b, row, n, NULL, out);
}

/*
 * The strings go into one piece of dst's heap: the row's length is taken
 * at once (the strings are shorter) and what they did not use is given
 * back, so a row costs one heap reservation, not one per string.
 */
typedef struct crow_heap {
    char *h;          /* the piece (NULL: not taken yet) */
    weir_strref at;   /* where it lies in dst's heap */
    size_t used, len; /* its bytes used; taken: the row's length */
} crow_heap;

/* Reads the non-NULL value of kind k (crow_kind; t, w: crow_col_len's) at *pp (before end),
 * past it, and with put writes it into (col, row) of dst, a string into hp's piece.
 * WEIR_ECORRUPT when it does not decode. */
static inline __attribute__((always_inline)) int crow_col_get(int k, const weir_type *t, size_t w, const uint8_t **pp,
                                                              const uint8_t *end, weir_batch *dst, weir_column *col,
                                                              uint32_t row, bool put, crow_heap *hp)
{
    uint64_t v;
    int rc;
    switch (k) {
    case CK_V32:
        if (!vget(pp, end, &v) || v > UINT32_MAX)
            return WEIR_ECORRUPT;
        if (put)
            ((int32_t *)col->data)[row] = (int32_t)((uint32_t)(v >> 1) ^ (uint32_t)-(int32_t)(v & 1));
        return 0;
    case CK_V64:
        if (!vget(pp, end, &v))
            return WEIR_ECORRUPT;
        if (put)
            ((int64_t *)col->data)[row] = (int64_t)((v >> 1) ^ (uint64_t)-(int64_t)(v & 1));
        return 0;
    case CK_STR:
        if (!vget(pp, end, &v) || v > (uint64_t)(end - *pp))
            return WEIR_ECORRUPT;
        if (put) {
            if (!hp->h && (rc = weir_batch_heap_alloc(dst, hp->len, &hp->h, &hp->at)))
                return rc;
            if (v)
                memcpy(hp->h + hp->used, *pp, (size_t)v);
            ((weir_strref *)col->data)[row] = (weir_strref){hp->at.off + (uint32_t)hp->used, (uint32_t)v};
            hp->used += (size_t)v;
        }
        *pp += v;
        return 0;
    default:
        if (t)
            w = weir_type_size(*t);
        if ((size_t)(end - *pp) < w)
            return WEIR_ECORRUPT;
        if (put)
            copy_value((char *)col->data + (size_t)row * w, *pp, w);
        *pp += w;
        return 0;
    }
}

/* Inlined in both callers: the whole row's decode (skip and want NULL) keeps no test per column.
 * skip: columns left out of the stored row (Top-N's); want: columns to write (the others are read past). */
__attribute__((always_inline)) static inline int crow_decode(const uint8_t *p, size_t len, weir_batch *dst,
                                                            uint32_t row, uint32_t off, uint32_t n, const bool *skip,
                                                            const bool *want, const weir_schema *types)
{
    const uint8_t *end = p + len, *bits = p;
    size_t nb = (n + 7) / 8;
    if (len < nb)
        return WEIR_ECORRUPT;
    p += nb;
    crow_heap hp = {NULL, {0, 0}, 0, len};
    size_t heap_before = dst->heap_len;
    int rc = 0;
    /* Some columns: read up to the last one wanted, the bytes after it left unread. */
    uint32_t upto = n;
    while (want && upto > 0 && !want[upto - 1])
        upto--;
    for (uint32_t i = 0; i < upto && !rc; i++) {
        uint32_t c = off + i;
        if (skip && skip[i]) {
            if (bits[i >> 3] & (1u << (i & 7))) /* a column left out has no NULL bit */
                rc = WEIR_ECORRUPT;
            continue;
        }
        bool put = !want || want[i];
        if (bits[i >> 3] & (1u << (i & 7))) {
            if (put)
                weir_batch_set_null(dst, c, row);
            continue;
        }
        weir_column *col = &dst->cols[c];
        weir_type type = types ? types->fields[c].type : col->type;
        rc = crow_col_get(crow_kind(type), &type, 0, &p, end, dst, col, row, put, &hp);
    }
    /* every byte read (when every column was), and no NULL bit past the columns */
    if (!rc && ((upto == n && p != end) || ((n & 7) && bits[nb - 1] >> (n & 7))))
        rc = WEIR_ECORRUPT;
    if (hp.h)
        dst->heap_len = rc ? heap_before : hp.at.off + hp.used;
    return rc;
}

int weir__crow_decode(const uint8_t *p, size_t len, weir_batch *dst, uint32_t row, uint32_t off, uint32_t n)
{
    return crow_decode(p, len, dst, row, off, n, NULL, NULL, NULL);
}

int weir__crow_decode_skip(const uint8_t *p, size_t len, weir_batch *dst, uint32_t row, uint32_t off, uint32_t n,
                           const bool *skip)
{
    return crow_decode(p, len, dst, row, off, n, skip, NULL, NULL);
}

int weir__crow_decode_some(const uint8_t *p, size_t len, weir_batch *dst, uint32_t row, uint32_t off, uint32_t n,
                           const bool *skip, const bool *want, const weir_schema *types)
{
    return crow_decode(p, len, dst, row, off, n, skip, want, types);
}

/* ---- the compact encoding of one row type (weir__crow_plan) ---- */

void weir__crow_plan_fini(weir__crow_plan *pl)
{
    weir_free(pl->cols);
    weir_free(pl->bad);
    pl->cols = NULL;
    pl->bad = NULL;
    pl->n = pl->n_stored = 0;
}

static int plan_init(weir__crow_plan *pl, const weir_schema *s, uint32_t off, uint32_t n, const bool *skip)
{
    size_t nb = (n + 7) / 8;
    pl->off = off;
    pl->n = n;
    pl->n_stored = 0;
    pl->cols = weir_malloc((n ? n : 1) * sizeof *pl->cols);
    pl->bad = weir_calloc(nb ? nb : 1, 1);
    if (!pl->cols || !pl->bad) {
        weir__crow_plan_fini(pl);
        return WEIR_ENOMEM;
    }
    for (uint32_t c = 0; c < n; c++) {
        if (skip && skip[c]) { /* a column left out has no NULL bit */
            pl->bad[c >> 3] |= (uint8_t)(1u << (c & 7));
            continue;
        }
        weir_type t = s->fields[off + c].type;
        int k = crow_kind(t);
        pl->cols[pl->n_stored++] =
            (weir__crow_col){c, (uint8_t)k, (uint8_t)(k == CK_RAW ? weir_type_size(t) : 0), (uint8_t)(1u << (c & 7))};
    }
    if (n & 7) /* nor a bit past the columns */
        pl->bad[nb - 1] |= (uint8_t)(0xffu << (n & 7));
    return 0;
}

int weir__crow_plan_init(weir__crow_plan *pl, const weir_schema *s, uint32_t n, const bool *skip)
{
    return plan_init(pl, s, 0, n, skip);
}

int weir__crow_plan_init_at(weir__crow_plan *pl, const weir_schema *s, uint32_t off, uint32_t n, const bool *skip)
{
    return plan_init(pl, s, off, n, skip);
}

size_t weir__crow_plan_len(const weir__crow_plan *pl, const weir_batch *b, uint32_t row)
{
    size_t len = (pl->n + 7) / 8;
    for (uint32_t i = 0; i < pl->n_stored; i++) {
        const weir__crow_col *e = &pl->cols[i];
        uint32_t c = pl->off + e->col;
        if (!weir_batch_is_null(b, c, row))
            len += crow_col_len(e->kind, NULL, e->w, &b->cols[c], row);
    }
    return len;
}

void weir__crow_plan_lens(const weir__crow_plan *pl, const weir_batch *b, const uint32_t *rows, uint32_t n,
                          size_t *len)
{
    const size_t nb = (pl->n + 7) / 8;
    for (uint32_t i = 0; i < n; i++)
        len[i] = nb;
    for (uint32_t j = 0; j < pl->n_stored; j++) {
        const weir__crow_col *e = &pl->cols[j];
        const weir_column *col = &b->cols[pl->off + e->col];
        const bool all = col->all_valid;
        /* a NULL adds nothing: its bit is in the bitmap */
#define PLAN_LENS_EACH(add)                                                                                            \
    for (uint32_t i = 0; i < n; i++) {                                                                                 \
        uint32_t r = rows[i];                                                                                          \
        if (all || (col->valid[r >> 3] & (1u << (r & 7))))                                                             \
            len[i] += (add);                                                                                           \
    }
        switch (e->kind) {
        case CK_V32: {
            const int32_t *d = col->data;
            PLAN_LENS_EACH(vlen64(zigzag32(d[r])))
            break;
        }
        case CK_V64: {
            const int64_t *d = col->data;
            PLAN_LENS_EACH(vlen64(zigzag64(d[r])))
            break;
        }
        case CK_STR: {
            const weir_strref *d = col->data;
            PLAN_LENS_EACH(vlen64(d[r].len) + d[r].len)
            break;
        }
        default: {
            const size_t w = e->w;
            PLAN_LENS_EACH(w)
            break;
        }
        }
#undef PLAN_LENS_EACH
    }
}

void weir__crow_plan_write(const weir__crow_plan *pl, const weir_batch *b, uint32_t row, size_t len, uint8_t *p)
{
    uint8_t *bits = p;
    size_t nb = (pl->n + 7) / 8;
    if (nb == 1) /* most rows: not a call for one byte */
        *p = 0;
    else if (nb)
        memset(p, 0, nb);
    p += nb;
    for (uint32_t i = 0; i < pl->n_stored; i++) {
        const weir__crow_col *e = &pl->cols[i];
        uint32_t c = pl->off + e->col;
        if (weir_batch_is_null(b, c, row))
            bits[e->col >> 3] |= e->bit;
        else
            p = crow_col_put(e->kind, NULL, e->w, &b->cols[c], b->heap, row, p, NULL, 0);
    }
    assert((size_t)(p - bits) == len);
    (void)len;
}

int weir__crow_plan_decode(const weir__crow_plan *pl, const uint8_t *p, size_t len, weir_batch *dst, uint32_t row)
{
    const uint8_t *end = p + len, *bits = p;
    size_t nb = (pl->n + 7) / 8;
    if (len < nb)
        return WEIR_ECORRUPT;
    for (size_t j = 0; j < nb; j++)
        if (bits[j] & pl->bad[j])
            return WEIR_ECORRUPT;
    p += nb;
    crow_heap hp = {NULL, {0, 0}, 0, len};
    size_t heap_before = dst->heap_len;
    int rc = 0;
    for (uint32_t i = 0; i < pl->n_stored && !rc; i++) {
        const weir__crow_col *e = &pl->cols[i];
        uint32_t c = pl->off + e->col;
        if (bits[e->col >> 3] & e->bit)
            weir_batch_set_null(dst, c, row);
        else
            rc = crow_col_get(e->kind, NULL, e->w, &p, end, dst, &dst->cols[c], row, true, &hp);
    }
    if (!rc && p != end) /* every byte read */
        rc = WEIR_ECORRUPT;
    if (hp.h)
        dst->heap_len = rc ? heap_before : hp.at.off + hp.used;
    return rc;
}

int weir__crow_plan_get_i64(const weir__crow_plan *pl, const uint8_t *p, size_t len, uint32_t col, int64_t *v)
{
    const uint8_t *end = p + len, *bits = p;
    size_t nb = (pl->n + 7) / 8;
    if (len < nb)
        return WEIR_ECORRUPT;
    p += nb;
    for (uint32_t i = 0; i < pl->n_stored; i++) {
        const weir__crow_col *e = &pl->cols[i];
        bool null = bits[e->col >> 3] & e->bit;
        if (e->col == col) {
            uint64_t u;
            if (null)
                return 1;
            if (e->kind != CK_V64 || !vget(&p, end, &u))
                return WEIR_ECORRUPT;
            *v = (int64_t)((u >> 1) ^ (uint64_t)-(int64_t)(u & 1));
            return 0;
        }
        int rc = null ? 0 : crow_col_get(e->kind, NULL, e->w, &p, end, NULL, NULL, 0, false, NULL);
        if (rc)
            return rc;
    }
    return WEIR_ECORRUPT;
}

int weir__crow_recode(const uint8_t *p, size_t len, weir_batch *scratch, uint32_t n, weir_buf *out)
{
    weir_batch_reset(scratch);
    int row = weir_batch_append_row(scratch);
    if (row < 0)
        return row;
    /* the canonical encoding's length, to see that the row uses every byte */
    int rc = weir__row_decode(p, len, scratch, (uint32_t)row, 0, n);
    if (!rc && weir__row_encoded_len(scratch, (uint32_t)row, n) != len)
        rc = WEIR_ECORRUPT;
    return rc ? rc : weir__crow_encode(scratch, (uint32_t)row, n, out);
}

int weir__describe_row_format(weir_job *job, weir_stream s)
{
    return weir_job_describe_state(job, s, WEIR__ROW_FORMAT_FIELD, WEIR__ROW_FORMAT);
}

int weir__out_row(weir_op_ctx *ctx, weir_batch *out)
{
    if (weir_batch_full(out)) {
        int rc = weir_op_emit_reset(ctx, out);
        if (rc)
            return rc;
    }
    int row = weir_batch_append_row(out);
    return row < 0 ? WEIR_EINVAL : row;
}

/* Copies one held element (sort key, row) into h. */
static int held_collect(void *ud, const void *val, size_t len)
{
    weir__held *h = ud;
    weir_cursor cur;
    weir_cursor_init(&cur, val, len);
    const void *sk, *row, *tsb = NULL;
    size_t sklen, rowlen, tslen = 8;
    if ((h->with_ts && weir_cursor_get_bytes(&cur, &tsb, &tslen)) || tslen != 8 ||
        weir_cursor_get_bytes(&cur, &sk, &sklen) || weir_cursor_get_bytes(&cur, &row, &rowlen))
        return WEIR_ECORRUPT;
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? 2 * h->cap : 64;
        weir__held_row *n = weir_realloc(h->v, cap * sizeof *n);
        if (!n)
            return WEIR_ENOMEM;
        h->v = n;
        h->cap = cap;
    }
    weir__held_row *r = &h->v[h->n++];
    r->sk_off = (uint32_t)h->buf.len;
    r->sk_len = (uint32_t)sklen;
    r->row_off = (uint32_t)(h->buf.len + sklen);
    r->row_len = (uint32_t)rowlen;
    r->ts = 0;
    for (int i = 0; tsb && i < 8; i++)
        r->ts |= (int64_t)((uint64_t)((const uint8_t *)tsb)[i] << (8 * i));
    if (weir_buf_put(&h->buf, sk, sklen) || weir_buf_put(&h->buf, row, rowlen))
        return WEIR_ENOMEM;
    return 0;
}

static int held_cmp(const weir__held *h, const weir__held_row *a, const weir__held_row *b)
{
    size_t m = a->sk_len < b->sk_len ? a->sk_len : b->sk_len;
    int cmp = m ? memcmp(h->buf.data + a->sk_off, h->buf.data + b->sk_off, m) : 0;
    return cmp ? cmp : (a->sk_len > b->sk_len) - (a->sk_len < b->sk_len);
}

int weir__held_load(weir__held *h, weir_state *st, const void *ns, size_t ns_len)
{
    h->n = 0;
    weir_buf_clear(&h->buf);
    int rc = weir_list_get(st, ns, ns_len, held_collect, h);
    if (rc)
        return rc;
    /* Stable: rows with equal sort keys keep their arrival order. The rows
     * of one timestamp are few, mostly: an insertion sort, but a merge sort
     * once there are many, so that a burst of rows at one time stays
     * n log n. */
    if (h->n <= 32) {
        for (uint32_t i = 1; i < h->n; i++) {
            weir__held_row x = h->v[i];
            uint32_t j = i;
            while (j > 0 && held_cmp(h, &h->v[j - 1], &x) > 0) {
                h->v[j] = h->v[j - 1];
                j--;
            }
            h->v[j] = x;
        }
        return 0;
    }
    weir__held_row *tmp = weir_malloc((size_t)h->n * sizeof *tmp);
    if (!tmp)
        return WEIR_ENOMEM;
    weir__held_row *src = h->v, *dst = tmp;
    for (uint32_t width = 1; width < h->n; width *= 2) {
        for (uint32_t lo = 0; lo < h->n; lo += 2 * width) {
            uint32_t mid = lo + width < h->n ? lo + width : h->n;
            uint32_t hi = mid + width < h->n ? mid + width : h->n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = held_cmp(h, &src[j], &src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        weir__held_row *t = src;
        src = dst;
        dst = t;
    }
    if (src != h->v)
        memcpy(h->v, src, (size_t)h->n * sizeof *src);
    weir_free(tmp);
    return 0;
}

void weir__held_trim(weir__held *h)
{
    if (h->buf.cap > 1 << 20) {
        weir_buf_fini(&h->buf);
        weir_buf_init(&h->buf);
    }
}

void weir__held_fini(weir__held *h)
{
    weir_buf_fini(&h->buf);
    weir_free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}
