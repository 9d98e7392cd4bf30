/*
 * record/batch.c - columnar batches with reused buffers.
 *
 * All column arrays, bitmaps, ts and kind arrays are allocated once at
 * create time for `capacity` rows. The string heap grows geometrically and
 * is kept across resets, so steady-state use allocates nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "time/timefmt.h"
#include "weir/batch.h"
#include "weir/format.h"
#include "util/dec128.h"
#include "util/cnum.h"

const char *weir_row_kind_name(weir_row_kind k)
{
    static const char *names[] = {"+I", "-U", "+U", "-D"};
    return (unsigned)k < 4 ? names[k] : "?";
}

weir_batch *weir_batch_create(const weir_schema *schema, uint32_t capacity)
{
    if (!schema || capacity == 0)
        return NULL;
    weir_batch *b = weir_calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->schema = schema;
    b->capacity = capacity;
    b->cols = weir_calloc(schema->n_fields ? schema->n_fields : 1, sizeof *b->cols);
    b->ts = weir_malloc(capacity * sizeof *b->ts);
    b->kind = weir_malloc(capacity);
    if (!b->cols || !b->ts || !b->kind)
        goto fail;
    for (uint32_t i = 0; i < schema->n_fields; i++) {
        weir_column *c = &b->cols[i];
        c->type = schema->fields[i].type;
        c->data = weir_calloc(capacity, weir_type_size(c->type));
        c->valid = weir_calloc((capacity + 7) / 8, 1);
        c->all_valid = true;
        if (!c->data || !c->valid)
            goto fail;
    }
    return b;
fail:
    weir_batch_destroy(b);
    return NULL;
}

void weir_batch_destroy(weir_batch *b)
{
    if (!b)
        return;
    if (b->cols && b->schema) {
        for (uint32_t i = 0; i < b->schema->n_fields; i++) {
            weir_free(b->cols[i].data);
            weir_free(b->cols[i].valid);
        }
    }
    weir_free(b->cols);
    weir_free(b->ts);
    weir_free(b->kind);
    weir_free(b->heap);
    weir_free(b->key_hash);
    weir_free(b);
}

void weir_batch_reset(weir_batch *b)
{
    b->n_rows = 0;
    b->key_hash_of = NULL;
    b->heap_len = 0;
    for (uint32_t i = 0; i < b->schema->n_fields; i++)
        b->cols[i].all_valid = true;
}

/* Materialises the bitmap of an all-valid column before the first NULL. */
static void ensure_bitmap(weir_column *c, uint32_t capacity)
{
    if (c->all_valid) {
        memset(c->valid, 0xff, (capacity + 7) / 8);
        c->all_valid = false;
    }
}

void weir_batch_set_null(weir_batch *b, uint32_t col, uint32_t row)
{
    weir_column *c = &b->cols[col];
    ensure_bitmap(c, b->capacity);
    c->valid[row >> 3] &= (uint8_t) ~(1u << (row & 7));
    size_t w = weir_type_size(c->type);
    memset((char *)c->data + (size_t)row * w, 0, w);
}

void weir_batch_set_valid(weir_batch *b, uint32_t col, uint32_t row)
{
    weir_column *c = &b->cols[col];
    if (!c->all_valid)
        c->valid[row >> 3] |= (uint8_t)(1u << (row & 7));
}

int weir_batch_heap_alloc(weir_batch *b, size_t len, char **out, weir_strref *ref)
{
    if (len > UINT32_MAX || b->heap_len + len > UINT32_MAX)
        return WEIR_EINVAL;
    if (b->heap_len + len > b->heap_cap) {
        size_t cap = b->heap_cap ? b->heap_cap : 4096;
        while (cap < b->heap_len + len)
            cap *= 2;
        char *h = weir_realloc(b->heap, cap);
        if (!h)
            return WEIR_ENOMEM;
        b->heap = h;
        b->heap_cap = cap;
    }
    ref->off = (uint32_t)b->heap_len;
    ref->len = (uint32_t)len;
    *out = b->heap ? b->heap + b->heap_len : NULL; /* no heap yet for an empty value: NULL + 0 is undefined */
    b->heap_len += len;
    return 0;
}

int weir_batch_set_str(weir_batch *b, uint32_t col, uint32_t row, const char *s, size_t len)
{
    char *dst;
    weir_strref ref;
    int rc = weir_batch_heap_alloc(b, len, &dst, &ref);
    if (rc)
        return rc;
    if (len)
        memcpy(dst, s, len);
    WEIR_COL_STR(b, col)[row] = ref;
    return 0;
}

/* A new row: its columns valid, their values zeroed when zero says so. */
static inline __attribute__((always_inline)) int append_row(weir_batch *b, bool zero)
{
    if (b->n_rows >= b->capacity)
        return WEIR_EINVAL;
    uint32_t r = b->n_rows++;
    b->key_hash_of = NULL;
    for (uint32_t i = 0; i < b->schema->n_fields; i++) {
        weir_column *c = &b->cols[i];
        if (zero) {
            size_t w = weir_type_size(c->type);
            char *p = (char *)c->data + (size_t)r * w;
            if (w == 8) /* the common widths as constants: a store, not a call to memset per column */
                memset(p, 0, 8);
            else if (w == 4)
                memset(p, 0, 4);
            else
                memset(p, 0, w);
        }
        if (!c->all_valid)
            c->valid[r >> 3] |= (uint8_t)(1u << (r & 7));
    }
    b->ts[r] = 0;
    b->kind[r] = WEIR_ROW_INSERT;
    return (int)r;
}

int weir_batch_append_row(weir_batch *b)
{
    return append_row(b, true);
}

int weir_batch_append_row_to_fill(weir_batch *b)
{
    return append_row(b, false);
}

/* Copies the value of (src, scol, srow) into (dst, dcol, drow); strings are re-homed. Inlined: as a call
 * per column q16's -U rows cost 2 % more instructions. */
static inline __attribute__((always_inline)) int copy_value(weir_batch *dst, uint32_t drow, uint32_t dcol,
                                                            const weir_batch *src, uint32_t srow, uint32_t scol)
{
    const weir_column *sc = &src->cols[scol];
    weir_column *dc = &dst->cols[dcol];
    if (!sc->all_valid && !(sc->valid[srow >> 3] & (1u << (srow & 7)))) {
        weir_batch_set_null(dst, dcol, drow);
        return 0;
    }
    if (!dc->all_valid)
        dc->valid[drow >> 3] |= (uint8_t)(1u << (drow & 7));
    if (weir_type_is_varlen(sc->type.id)) {
        uint32_t len;
        const char *s = weir_batch_str(src, scol, srow, &len);
        return weir_batch_set_str(dst, dcol, drow, s, len);
    }
    size_t w = weir_type_size(sc->type);
    char *d = (char *)dc->data + (size_t)drow * w;
    const char *s = (const char *)sc->data + (size_t)srow * w;
    if (w == 8) /* the common widths as constants: a load and a store, not a call to memcpy */
        memcpy(d, s, 8);
    else if (w == 4)
        memcpy(d, s, 4);
    else
        memcpy(d, s, w);
    return 0;
}

int weir_batch_copy_value(weir_batch *dst, uint32_t drow, uint32_t dcol, const weir_batch *src, uint32_t srow,
                          uint32_t scol)
{
    return copy_value(dst, drow, dcol, src, srow, scol);
}

/*
 * One row, as weir_batch_gather copies it, without its loops over a list
 * of rows: an aggregation's -U row (q16: 18 columns) cost half again.
 */
int weir_batch_copy_row(weir_batch *dst, const weir_batch *src, uint32_t row)
{
    if (dst->n_rows >= dst->capacity)
        return WEIR_EINVAL;
    uint32_t r = dst->n_rows;
    for (uint32_t c = 0; c < src->schema->n_fields; c++) {
        int rc = copy_value(dst, r, c, src, row, c);
        if (rc)
            return rc;
    }
    dst->ts[r] = src->ts[row];
    dst->kind[r] = src->kind[row];
    dst->n_rows = r + 1;
    dst->key_hash_of = NULL;
    return 0;
}

/*
 * d[i] = s[rows[i]] for i < n, four rows a step: the loop's own count,
 * compare and branch cost as much as the load and store of a row, and a
 * keyed exchange runs this for every column of every row it routes. The
 * pointers advance instead of a 32-bit index, whose wrap-around would
 * cost an address computation per element. One per element width.
 */
#define DEFINE_GATHER(name, T)                                                                                 \
    static inline void name(T *restrict d, const T *restrict s, const uint32_t *restrict rows, uint32_t n)  \
    {                                                                                                          \
        for (; n >= 4; n -= 4, d += 4, rows += 4) {                                                            \
            d[0] = s[rows[0]];                                                                                 \
            d[1] = s[rows[1]];                                                                                 \
            d[2] = s[rows[2]];                                                                                 \
            d[3] = s[rows[3]];                                                                                 \
        }                                                                                                      \
        for (; n > 0; n--)                                                                                     \
            *d++ = s[*rows++];                                                                                 \
    }
DEFINE_GATHER(gather_u64, uint64_t)
DEFINE_GATHER(gather_u32, uint32_t)
DEFINE_GATHER(gather_u8, uint8_t)
#undef DEFINE_GATHER

int weir_batch_gather(weir_batch *dst, const weir_batch *src, const uint32_t *rows, uint32_t n)
{
    if (dst->n_rows + n > dst->capacity)
        return WEIR_EINVAL;
    uint32_t base = dst->n_rows;
    uint32_t nf = src->schema->n_fields;
    for (uint32_t c = 0; c < nf; c++) {
        const weir_column *sc = &src->cols[c];
        weir_column *dc = &dst->cols[c];
        if (sc->all_valid && !weir_type_is_varlen(sc->type.id)) {
            /* Fast path: fixed width, no NULLs. */
            size_t w = weir_type_size(sc->type);
            if (!dc->all_valid)
                for (uint32_t i = 0; i < n; i++)
                    dc->valid[(base + i) >> 3] |= (uint8_t)(1u << ((base + i) & 7));
            if (w == 8)
                gather_u64((uint64_t *)dc->data + base, sc->data, rows, n);
            else if (w == 4)
                gather_u32((uint32_t *)dc->data + base, sc->data, rows, n);
            else
                for (uint32_t i = 0; i < n; i++)
                    memcpy((char *)dc->data + (size_t)(base + i) * w, (const char *)sc->data + (size_t)rows[i] * w, w);
            continue;
        }
        for (uint32_t i = 0; i < n; i++) {
            int rc = copy_value(dst, base + i, c, src, rows[i], c);
            if (rc)
                return rc;
        }
    }
    /* weir_ts is int64_t, which may alias uint64_t */
    gather_u64((uint64_t *)(dst->ts + base), (const uint64_t *)src->ts, rows, n);
    gather_u8(dst->kind + base, src->kind, rows, n);
    dst->n_rows += n;
    dst->key_hash_of = NULL;
    return 0;
}

int weir_batch_gather_hashed(weir_batch *dst, const weir_batch *src, const uint32_t *rows, uint32_t n,
                             const uint64_t *hash, const void *key)
{
    /* the stage's hashes stay valid only while every row it holds has one */
    bool keep = dst->n_rows == 0 || dst->key_hash_of == key;
    if (keep && !dst->key_hash && !(dst->key_hash = weir_malloc(dst->capacity * sizeof *dst->key_hash)))
        return WEIR_ENOMEM;
    uint32_t base = dst->n_rows;
    int rc = weir_batch_gather(dst, src, rows, n);
    if (rc || !keep)
        return rc;
    gather_u64(dst->key_hash + base, hash, rows, n);
    dst->key_hash_of = key;
    return 0;
}

int weir_batch_copy(weir_batch *dst, const weir_batch *src)
{
    if (src->n_rows > dst->capacity)
        return WEIR_EINVAL;
    weir_batch_reset(dst);
    uint32_t n = src->n_rows;
    for (uint32_t c = 0; c < src->schema->n_fields; c++) {
        const weir_column *sc = &src->cols[c];
        weir_column *dc = &dst->cols[c];
        memcpy(dc->data, sc->data, (size_t)n * weir_type_size(sc->type));
        dc->all_valid = sc->all_valid;
        if (!sc->all_valid)
            memcpy(dc->valid, sc->valid, (n + 7) / 8);
    }
    if (src->heap_len) {
        char *p;
        weir_strref ref;
        int rc = weir_batch_heap_alloc(dst, src->heap_len, &p, &ref);
        if (rc)
            return rc;
        memcpy(p, src->heap, src->heap_len);
    }
    memcpy(dst->ts, src->ts, n * sizeof *dst->ts);
    memcpy(dst->kind, src->kind, n);
    dst->n_rows = n;
    return 0;
}

void weir_batch_filter_inplace(weir_batch *b, const uint8_t *sel)
{
    uint32_t out = 0;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (!sel[r])
            continue;
        if (out != r) {
            for (uint32_t c = 0; c < b->schema->n_fields; c++) {
                weir_column *col = &b->cols[c];
                size_t w = weir_type_size(col->type);
                memcpy((char *)col->data + (size_t)out * w, (char *)col->data + (size_t)r * w, w);
                if (!col->all_valid) {
                    bool v = col->valid[r >> 3] & (1u << (r & 7));
                    if (v)
                        col->valid[out >> 3] |= (uint8_t)(1u << (out & 7));
                    else
                        col->valid[out >> 3] &= (uint8_t) ~(1u << (out & 7));
                }
            }
            b->ts[out] = b->ts[r];
            b->kind[out] = b->kind[r];
        }
        out++;
    }
    b->n_rows = out;
    b->key_hash_of = NULL;
}

size_t weir_batch_format_value(const weir_batch *b, uint32_t col, uint32_t row, char *buf, size_t cap)
{
    int n = 0;
    if (cap == 0)
        return 0;
    if (weir_batch_is_null(b, col, row))
        return (size_t)snprintf(buf, cap, "NULL");
    const weir_column *c = &b->cols[col];
    switch (c->type.id) {
    case WEIR_TYPE_BOOLEAN:
        n = snprintf(buf, cap, "%s", WEIR_COL_BOOL(b, col)[row] ? "true" : "false");
        break;
    case WEIR_TYPE_INT:
        n = snprintf(buf, cap, "%" PRId32, WEIR_COL_I32(b, col)[row]);
        break;
    case WEIR_TYPE_BIGINT:
        n = snprintf(buf, cap, "%" PRId64, WEIR_COL_I64(b, col)[row]);
        break;
    case WEIR_TYPE_DOUBLE:
        n = weir__format_g17_c(buf, cap, WEIR_COL_F64(b, col)[row]);
        break;
    case WEIR_TYPE_DECIMAL: {
        char tmp[48];
        __int128 v;
        if (weir_type_is_wide(c->type))
            memcpy(&v, (const char *)c->data + (size_t)row * 16, 16);
        else
            v = WEIR_COL_I64(b, col)[row];
        weir__dec_format(v, c->type.scale, tmp);
        n = snprintf(buf, cap, "%s", tmp);
        break;
    }
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES: {
        uint32_t len;
        const char *s = weir_batch_str(b, col, row, &len);
        n = snprintf(buf, cap, "%.*s", (int)len, s);
        break;
    }
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        return weir__format_ts(WEIR_COL_I64(b, col)[row], buf, cap);
    case WEIR_TYPE_DATE:
        return weir__format_date(WEIR_COL_I32(b, col)[row], buf, cap);
    case WEIR_TYPE_TIME:
        return weir__format_time(WEIR_COL_I32(b, col)[row], c->type.precision, buf, cap);
    case WEIR_TYPE_NULL:
        n = snprintf(buf, cap, "NULL");
        break;
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: {
        uint32_t len;
        const char *s = weir_batch_str(b, col, row, &len);
        weir_buf t;
        weir_buf_init(&t);
        if (weir_format_nested_text(&t, c->type, s, len)) {
            weir_buf_fini(&t);
            return 0;
        }
        n = snprintf(buf, cap, "%.*s", (int)t.len, t.data ? (const char *)t.data : "");
        weir_buf_fini(&t);
        break;
    }
    }
    if (n < 0)
        return 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}
