/*
 * agg/agg_simple.c - the fixed-size numeric aggregates: COUNT(*),
 * COUNT(col), SUM, SUM0, AVG and the variance family.
 *
 * Every accumulator counts its rows (NULL inputs included) and its non-NULL
 * values separately: SQL says SUM of no non-NULL value is NULL, and a window
 * whose rows are all NULL in the summed column is still a window with rows.
 * A retraction must name a row the accumulator can hold: a NULL needs a
 * NULL row in it, a value a non-NULL one; otherwise WEIR_ESTATE and no
 * change. Integer sums wrap modulo 2^64 like Flink's BIGINT arithmetic, so
 * retraction stays exact even past an overflow; DECIMAL sums are exact in
 * 128 bits and a result that does not fit 18 digits is NULL (Flink's rule
 * for decimal overflow).
 */
#include <math.h>

#include "agg/agg_internal.h"
#include "util/dec128.h"

/* ---- COUNT(*) ---- */

typedef struct cnt_acc {
    int64_t rows;
    int64_t n; /* non-NULL values (COUNT(col) and the sums) */
} cnt_acc;

static size_t star_size(const weir_agg *a)
{
    return sizeof(int64_t);
}
static void star_init(const weir_agg *a, void *acc)
{
    *(int64_t *)acc = 0;
}

static int star_add(const weir_agg *a, void *acc, const weir_batch *b,
                    uint32_t row)
{
    (*(int64_t *)acc)++;
    return 0;
}

static int star_add_rows(const weir_agg *a, void *const *accs,
                         const weir_batch *b, const uint32_t *rows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        (*(int64_t *)accs[i])++;
    return 0;
}

static int star_retract(const weir_agg *a, void *acc, const weir_batch *b,
                        uint32_t row)
{
    int64_t *c = acc;
    if (*c == 0)
        return WEIR_ESTATE;
    (*c)--;
    return 0;
}

static int star_merge(const weir_agg *a, void *acc, const void *other)
{
    *(int64_t *)acc += *(const int64_t *)other;
    return 0;
}

static int star_result(const weir_agg *a, const void *acc, weir_batch *out,
                       uint32_t col, uint32_t row)
{
    int rc = weir__agg_check_out(a, out, col, row);
    return rc ? rc : weir__agg_put_i64(out, col, row, *(const int64_t *)acc);
}

static int star_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return weir__agg_put_header(out, FC_COUNT_STAR, -1, *(const int64_t *)acc);
}

static int star_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    *(int64_t *)acc = 0;
    int64_t rows;
    if (weir__agg_get_header(in, FC_COUNT_STAR, -1, &rows))
        return WEIR_ECORRUPT;
    *(int64_t *)acc = rows;
    return 0;
}

const weir_agg_class weir__agg_count_star = {
    .name = "COUNT",
    .acc_size = star_size,
    .init = star_init,
    .add = star_add,
    .retract = star_retract,
    .merge = star_merge,
    .result = star_result,
    .serialize = star_serialize,
    .deserialize = star_deserialize,
    .is_empty = weir__agg_rows_empty,
    .add_rows = star_add_rows,
};

/* ---- COUNT(col) ---- */

static size_t cnt_size(const weir_agg *a)
{
    return sizeof(cnt_acc);
}
static void cnt_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(cnt_acc));
}

static int cnt_add(const weir_agg *a, void *acc, const weir_batch *b,
                   uint32_t row)
{
    cnt_acc *c = acc;
    c->rows++;
    c->n += aggv_valid(b, a->input_col, row);
    return 0;
}

static int cnt_add_rows(const weir_agg *a, void *const *accs,
                        const weir_batch *b, const uint32_t *rows, uint32_t n)
{
    const weir_column *col = &b->cols[a->input_col];
    if (col->all_valid) {
        for (uint32_t i = 0; i < n; i++) {
            cnt_acc *c = accs[i];
            c->rows++;
            c->n++;
        }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        cnt_acc *c = accs[i];
        c->rows++;
        c->n += (col->valid[rows[i] >> 3] >> (rows[i] & 7)) & 1;
    }
    return 0;
}

/* May a row with this validity be retracted from c? */
static bool can_retract(const cnt_acc *c, bool valid)
{
    return valid ? c->n > 0 : c->rows - c->n > 0;
}

static int cnt_retract(const weir_agg *a, void *acc, const weir_batch *b,
                       uint32_t row)
{
    cnt_acc *c = acc;
    bool v = aggv_valid(b, a->input_col, row);
    if (!can_retract(c, v))
        return WEIR_ESTATE;
    c->rows--;
    c->n -= v;
    return 0;
}

static int cnt_merge(const weir_agg *a, void *acc, const void *other)
{
    cnt_acc *c = acc;
    const cnt_acc *o = other;
    c->rows += o->rows;
    c->n += o->n;
    return 0;
}

static int cnt_result(const weir_agg *a, const void *acc, weir_batch *out,
                      uint32_t col, uint32_t row)
{
    int rc = weir__agg_check_out(a, out, col, row);
    return rc ? rc
              : weir__agg_put_i64(out, col, row, ((const cnt_acc *)acc)->n);
}

static int cnt_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const cnt_acc *c = acc;
    int rc = weir__agg_put_header(out, FC_COUNT, -1, c->rows);
    return rc ? rc : weir_buf_put_varint(out, (uint64_t)c->n);
}

/* Reads the header and the non-NULL count shared by the COUNT/SUM/AVG family.
 */
static int get_counts(weir_cursor *in, uint8_t fc, int kind, cnt_acc *c)
{
    uint64_t n;
    if (weir__agg_get_header(in, fc, kind, &c->rows) ||
        weir_cursor_get_varint(in, &n) || n > (uint64_t)c->rows) {
        c->rows = 0;
        return WEIR_ECORRUPT;
    }
    c->n = (int64_t)n;
    return 0;
}

static int cnt_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    cnt_init(a, acc);
    return get_counts(in, FC_COUNT, -1, acc);
}

const weir_agg_class weir__agg_count = {
    .name = "COUNT",
    .acc_size = cnt_size,
    .init = cnt_init,
    .add = cnt_add,
    .retract = cnt_retract,
    .merge = cnt_merge,
    .result = cnt_result,
    .serialize = cnt_serialize,
    .deserialize = cnt_deserialize,
    .is_empty = weir__agg_rows_empty,
    .add_rows = cnt_add_rows,
};

/* ---- integer SUM / AVG (INT and BIGINT inputs) ---- */

typedef struct isum_acc {
    int64_t rows;
    int64_t n;
    uint64_t sum; /* wraps modulo 2^64 */
} isum_acc;

static size_t isum_size(const weir_agg *a)
{
    return sizeof(isum_acc);
}
static void isum_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(isum_acc));
}

static int i64sum_add(const weir_agg *a, void *acc, const weir_batch *b,
                      uint32_t row)
{
    isum_acc *s = acc;
    const weir_column *c = &b->cols[a->input_col];
    s->rows++;
    if (c->all_valid || ((c->valid[row >> 3] >> (row & 7)) & 1)) {
        s->sum += (uint64_t)((const int64_t *)c->data)[row];
        s->n++;
    }
    return 0;
}

static int i32sum_add(const weir_agg *a, void *acc, const weir_batch *b,
                      uint32_t row)
{
    isum_acc *s = acc;
    const weir_column *c = &b->cols[a->input_col];
    s->rows++;
    if (c->all_valid || ((c->valid[row >> 3] >> (row & 7)) & 1)) {
        s->sum += (uint64_t)(int64_t)((const int32_t *)c->data)[row];
        s->n++;
    }
    return 0;
}

static int i64sum_add_rows(const weir_agg *a, void *const *accs,
                           const weir_batch *b, const uint32_t *rows,
                           uint32_t n)
{
    const weir_column *c = &b->cols[a->input_col];
    const int64_t *d = c->data;
    if (c->all_valid) {
        for (uint32_t i = 0; i < n; i++) {
            isum_acc *s = accs[i];
            s->rows++;
            s->n++;
            s->sum += (uint64_t)d[rows[i]];
        }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        isum_acc *s = accs[i];
        uint32_t r = rows[i];
        uint64_t v = (c->valid[r >> 3] >> (r & 7)) & 1;
        s->rows++;
        s->n += (int64_t)v;
        s->sum += (uint64_t)d[r] & (0 - v); /* a NULL slot may hold anything */
    }
    return 0;
}

static int i32sum_add_rows(const weir_agg *a, void *const *accs,
                           const weir_batch *b, const uint32_t *rows,
                           uint32_t n)
{
    const weir_column *c = &b->cols[a->input_col];
    const int32_t *d = c->data;
    for (uint32_t i = 0; i < n; i++) {
        isum_acc *s = accs[i];
        uint32_t r = rows[i];
        uint64_t v = c->all_valid ? 1 : (c->valid[r >> 3] >> (r & 7)) & 1;
        s->rows++;
        s->n += (int64_t)v;
        s->sum += (uint64_t)(int64_t)d[r] & (0 - v);
    }
    return 0;
}

static int64_t int_input(const weir_batch *b, int32_t col, uint32_t row)
{
    const weir_column *c = &b->cols[col];
    if (c->type.id == WEIR_TYPE_INT)
        return ((const int32_t *)c->data)[row];
    return ((const int64_t *)c->data)[row];
}

static int isum_retract(const weir_agg *a, void *acc, const weir_batch *b,
                        uint32_t row)
{
    isum_acc *s = acc;
    bool v = aggv_valid(b, a->input_col, row);
    if (!can_retract((const cnt_acc *)s, v))
        return WEIR_ESTATE;
    s->rows--;
    if (v) {
        s->n--;
        s->sum -= (uint64_t)int_input(b, a->input_col, row);
    }
    return 0;
}

static int isum_merge(const weir_agg *a, void *acc, const void *other)
{
    isum_acc *s = acc;
    const isum_acc *o = other;
    s->rows += o->rows;
    s->n += o->n;
    s->sum += o->sum;
    return 0;
}

static int isum_result_common(const weir_agg *a, const void *acc,
                              weir_batch *out, uint32_t col, uint32_t row,
                              bool zero_if_none)
{
    const isum_acc *s = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (s->n == 0 && !zero_if_none)
        return weir__agg_put_null(out, col, row);
    return weir__agg_put_i64(out, col, row, (int64_t)s->sum);
}

static int isum_result(const weir_agg *a, const void *acc, weir_batch *out,
                       uint32_t col, uint32_t row)
{
    return isum_result_common(a, acc, out, col, row, false);
}

static int isum0_result(const weir_agg *a, const void *acc, weir_batch *out,
                        uint32_t col, uint32_t row)
{
    return isum_result_common(a, acc, out, col, row, true);
}

static int iavg_result(const weir_agg *a, const void *acc, weir_batch *out,
                       uint32_t col, uint32_t row)
{
    const isum_acc *s = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (s->n == 0)
        return weir__agg_put_null(out, col, row);
    /* Integer division truncates toward zero, as Flink's AVG does. */
    return weir__agg_put_i64(out, col, row, (int64_t)s->sum / s->n);
}

static int isum_ser(const void *acc, weir_buf *out, uint8_t fc)
{
    const isum_acc *s = acc;
    int rc = weir__agg_put_header(out, fc, VK_I64, s->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)s->n);
    return rc ? rc : weir_buf_put_u64(out, s->sum);
}

static int isum_de(void *acc, weir_cursor *in, uint8_t fc)
{
    isum_acc *s = acc;
    memset(s, 0, sizeof *s);
    uint64_t sum;
    if (get_counts(in, fc, VK_I64, (cnt_acc *)s) ||
        weir_cursor_get_u64(in, &sum) || (s->n == 0 && sum != 0)) {
        memset(s, 0, sizeof *s);
        return WEIR_ECORRUPT;
    }
    s->sum = sum;
    return 0;
}

static int isum_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return isum_ser(acc, out, FC_SUM);
}
static int isum_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return isum_de(acc, in, FC_SUM);
}
static int iavg_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return isum_ser(acc, out, FC_AVG);
}
static int iavg_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return isum_de(acc, in, FC_AVG);
}

#define ISUM_CLASS(cname, fname, addf, addrowsf, resultf, serf, def)           \
    const weir_agg_class cname = {                                             \
        .name = fname,                                                         \
        .acc_size = isum_size,                                                 \
        .init = isum_init,                                                     \
        .add = addf,                                                           \
        .retract = isum_retract,                                               \
        .merge = isum_merge,                                                   \
        .result = resultf,                                                     \
        .serialize = serf,                                                     \
        .deserialize = def,                                                    \
        .is_empty = weir__agg_rows_empty,                                      \
        .add_rows = addrowsf,                                                  \
    }

ISUM_CLASS(weir__agg_sum_int, "SUM", i32sum_add, i32sum_add_rows, isum_result,
           isum_serialize, isum_deserialize);
ISUM_CLASS(weir__agg_sum_bigint, "SUM", i64sum_add, i64sum_add_rows,
           isum_result, isum_serialize, isum_deserialize);
ISUM_CLASS(weir__agg_sum0_int, "SUM0", i32sum_add, i32sum_add_rows,
           isum0_result, isum_serialize, isum_deserialize);
ISUM_CLASS(weir__agg_sum0_bigint, "SUM0", i64sum_add, i64sum_add_rows,
           isum0_result, isum_serialize, isum_deserialize);
ISUM_CLASS(weir__agg_avg_int, "AVG", i32sum_add, i32sum_add_rows, iavg_result,
           iavg_serialize, iavg_deserialize);
ISUM_CLASS(weir__agg_avg_bigint, "AVG", i64sum_add, i64sum_add_rows,
           iavg_result, iavg_serialize, iavg_deserialize);

/* ---- DOUBLE SUM / AVG ---- */

typedef struct fsum_acc {
    int64_t rows;
    int64_t n;
    double sum;
} fsum_acc;

static size_t fsum_size(const weir_agg *a)
{
    return sizeof(fsum_acc);
}
static void fsum_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(fsum_acc));
}

static int fsum_add(const weir_agg *a, void *acc, const weir_batch *b,
                    uint32_t row)
{
    fsum_acc *s = acc;
    const weir_column *c = &b->cols[a->input_col];
    s->rows++;
    if (c->all_valid || ((c->valid[row >> 3] >> (row & 7)) & 1)) {
        s->sum += ((const double *)c->data)[row];
        s->n++;
    }
    return 0;
}

static int fsum_add_rows(const weir_agg *a, void *const *accs,
                         const weir_batch *b, const uint32_t *rows, uint32_t n)
{
    const weir_column *c = &b->cols[a->input_col];
    const double *d = c->data;
    for (uint32_t i = 0; i < n; i++) {
        fsum_acc *s = accs[i];
        uint32_t r = rows[i];
        s->rows++;
        if (c->all_valid || ((c->valid[r >> 3] >> (r & 7)) & 1)) {
            s->sum += d[r];
            s->n++;
        }
    }
    return 0;
}

static int fsum_retract(const weir_agg *a, void *acc, const weir_batch *b,
                        uint32_t row)
{
    fsum_acc *s = acc;
    bool v = aggv_valid(b, a->input_col, row);
    if (!can_retract((const cnt_acc *)s, v))
        return WEIR_ESTATE;
    s->rows--;
    if (v) {
        /* Floating subtraction is not an exact inverse; with no value left
         * the sum is exactly zero again. */
        if (--s->n == 0)
            s->sum = 0;
        else
            s->sum -= WEIR_COL_F64(b, a->input_col)[row];
    }
    return 0;
}

static int fsum_merge(const weir_agg *a, void *acc, const void *other)
{
    fsum_acc *s = acc;
    const fsum_acc *o = other;
    s->rows += o->rows;
    s->n += o->n;
    s->sum += o->sum;
    return 0;
}

static int fsum_result_common(const weir_agg *a, const void *acc,
                              weir_batch *out, uint32_t col, uint32_t row,
                              int mode)
{
    const fsum_acc *s = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (s->n == 0 && mode != 1)
        return weir__agg_put_null(out, col, row);
    return weir__agg_put_f64(out, col, row,
                             mode == 2 ? s->sum / (double)s->n : s->sum);
}

static int fsum_result(const weir_agg *a, const void *acc, weir_batch *out,
                       uint32_t col, uint32_t row)
{
    return fsum_result_common(a, acc, out, col, row, 0);
}
static int fsum0_result(const weir_agg *a, const void *acc, weir_batch *out,
                        uint32_t col, uint32_t row)
{
    return fsum_result_common(a, acc, out, col, row, 1);
}
static int favg_result(const weir_agg *a, const void *acc, weir_batch *out,
                       uint32_t col, uint32_t row)
{
    return fsum_result_common(a, acc, out, col, row, 2);
}

static int fsum_ser(const void *acc, weir_buf *out, uint8_t fc)
{
    const fsum_acc *s = acc;
    int rc = weir__agg_put_header(out, fc, VK_F64, s->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)s->n);
    return rc ? rc : weir_buf_put_f64(out, s->sum);
}

static int fsum_de(void *acc, weir_cursor *in, uint8_t fc)
{
    fsum_acc *s = acc;
    memset(s, 0, sizeof *s);
    uint64_t bits;
    if (get_counts(in, fc, VK_F64, (cnt_acc *)s) ||
        weir_cursor_get_u64(in, &bits) || (s->n == 0 && bits != 0)) {
        memset(s, 0, sizeof *s);
        return WEIR_ECORRUPT;
    }
    memcpy(&s->sum, &bits, 8);
    return 0;
}

static int fsum_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return fsum_ser(acc, out, FC_SUM);
}
static int fsum_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return fsum_de(acc, in, FC_SUM);
}
static int favg_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return fsum_ser(acc, out, FC_AVG);
}
static int favg_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return fsum_de(acc, in, FC_AVG);
}

#define FSUM_CLASS(cname, fname, resultf, serf, def)                           \
    const weir_agg_class cname = {                                             \
        .name = fname,                                                         \
        .acc_size = fsum_size,                                                 \
        .init = fsum_init,                                                     \
        .add = fsum_add,                                                       \
        .retract = fsum_retract,                                               \
        .merge = fsum_merge,                                                   \
        .result = resultf,                                                     \
        .serialize = serf,                                                     \
        .deserialize = def,                                                    \
        .is_empty = weir__agg_rows_empty,                                      \
        .add_rows = fsum_add_rows,                                             \
    }

FSUM_CLASS(weir__agg_sum_double, "SUM", fsum_result, fsum_serialize,
           fsum_deserialize);
FSUM_CLASS(weir__agg_sum0_double, "SUM0", fsum0_result, fsum_serialize,
           fsum_deserialize);
FSUM_CLASS(weir__agg_avg_double, "AVG", favg_result, favg_serialize,
           favg_deserialize);

/* ---- DECIMAL SUM / AVG: exact 128-bit sums of the unscaled values ---- */

typedef struct dsum_acc {
    int64_t rows;
    int64_t n;
    uint64_t lo, hi; /* the low 128 bits of the sum, two's complement */
    int64_t top;     /* bits 128..191: a 38-digit input cannot overflow 192 bits */
} dsum_acc;

static unsigned __int128 dsum_bits(const dsum_acc *s)
{
    return ((unsigned __int128)s->hi << 64) | s->lo;
}

/* The sum when it fits 128 bits (top is the sign extension of bit 127). */
static bool dsum_get(const dsum_acc *s, __int128 *v)
{
    *v = (__int128)dsum_bits(s);
    return s->top == (*v < 0 ? -1 : 0);
}

/* Adds the 192-bit number (top:v). */
static void dsum_add192(dsum_acc *s, unsigned __int128 v, int64_t top)
{
    unsigned __int128 old = dsum_bits(s), u = old + v;
    s->lo = (uint64_t)u;
    s->hi = (uint64_t)(u >> 64);
    s->top = (int64_t)((uint64_t)s->top + (uint64_t)top + (u < old));
}

static void dsum_add_to(dsum_acc *s, __int128 v)
{
    dsum_add192(s, (unsigned __int128)v, v < 0 ? -1 : 0);
}

static __int128 dsum_input(const weir_agg *a, const weir_batch *b, uint32_t row)
{
    const weir_column *c = &b->cols[a->input_col];
    if (weir_type_is_wide(c->type)) {
        __int128 v;
        memcpy(&v, (const char *)c->data + (size_t)row * 16, 16);
        return v;
    }
    return ((const int64_t *)c->data)[row];
}

static size_t dsum_size(const weir_agg *a)
{
    return sizeof(dsum_acc);
}
static void dsum_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(dsum_acc));
}

static int dsum_add(const weir_agg *a, void *acc, const weir_batch *b,
                    uint32_t row)
{
    dsum_acc *s = acc;
    s->rows++;
    if (aggv_valid(b, a->input_col, row)) {
        dsum_add_to(s, dsum_input(a, b, row));
        s->n++;
    }
    return 0;
}

static int dsum_retract(const weir_agg *a, void *acc, const weir_batch *b,
                        uint32_t row)
{
    dsum_acc *s = acc;
    bool v = aggv_valid(b, a->input_col, row);
    if (!can_retract((const cnt_acc *)s, v))
        return WEIR_ESTATE;
    s->rows--;
    if (v) {
        s->n--;
        dsum_add_to(s, -dsum_input(a, b, row)); /* |input| < 10^38: no overflow */
    }
    return 0;
}

static int dsum_merge(const weir_agg *a, void *acc, const void *other)
{
    dsum_acc *s = acc;
    const dsum_acc *o = other;
    s->rows += o->rows;
    s->n += o->n;
    dsum_add192(s, dsum_bits(o), o->top);
    return 0;
}

/* Writes v into a DECIMAL result column of either width, or NULL when v has
 * more digits than its precision (Flink's overflow rule). */
static int dsum_put(weir_batch *out, uint32_t col, uint32_t row, __int128 v)
{
    weir_column *c = &out->cols[col];
    if (!weir__dec_fits(v, c->type.precision))
        return weir__agg_put_null(out, col, row);
    if (!weir_type_is_wide(c->type))
        return weir__agg_put_i64(out, col, row, (int64_t)v);
    memcpy((char *)c->data + (size_t)row * 16, &v, 16);
    weir_batch_set_valid(out, col, row);
    return 0;
}

static int dsum_result_common(const weir_agg *a, const void *acc,
                              weir_batch *out, uint32_t col, uint32_t row,
                              bool zero_if_none)
{
    const dsum_acc *s = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    __int128 v;
    if ((s->n == 0 && !zero_if_none) || !dsum_get(s, &v))
        return weir__agg_put_null(out, col, row);
    return dsum_put(out, col, row, v);
}

static int dsum_result(const weir_agg *a, const void *acc, weir_batch *out,
                       uint32_t col, uint32_t row)
{
    return dsum_result_common(a, acc, out, col, row, false);
}
static int dsum0_result(const weir_agg *a, const void *acc, weir_batch *out,
                        uint32_t col, uint32_t row)
{
    return dsum_result_common(a, acc, out, col, row, true);
}

static int davg_result(const weir_agg *a, const void *acc, weir_batch *out,
                       uint32_t col, uint32_t row)
{
    const dsum_acc *s = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    __int128 sum, q;
    /* NULL when the sum does not fit its DECIMAL(38, s), as SUM's value would be (Flink keeps AVG's sum in
     * that type, and a decimal overflow is NULL there) */
    if (s->n == 0 || !dsum_get(s, &sum) || !weir__dec_fits(sum, WEIR_DEC_MAX_PRECISION))
        return weir__agg_put_null(out, col, row);
    int up = a->result_type.scale - a->input_type.scale; /* 0..6, set by bind */
    /* sum * 10^up / n, HALF_UP (Java's RoundingMode.HALF_UP, which Flink uses). */
    if (!weir__dec_div(sum, up, s->n, &q))
        return weir__agg_put_null(out, col, row);
    return dsum_put(out, col, row, q);
}

/* SUM over DECIMAL keeps another state than SUM over integers, so its
 * header carries its own kind byte (16 is no vkind). */
#define DEC_KIND 16

/* Sums past 128 bits (possible with 38-digit inputs) carry their top word
 * under kind 17; kind 16 (no top word) is what every other sum writes, as
 * before, so older checkpoints restore unchanged. */
#define DEC_KIND_WIDE 17

static int dsum_ser(const void *acc, weir_buf *out, uint8_t fc)
{
    const dsum_acc *s = acc;
    __int128 v;
    bool fits = dsum_get(s, &v);
    int rc = weir__agg_put_header(out, fc, fits ? DEC_KIND : DEC_KIND_WIDE, s->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)s->n);
    if (!rc)
        rc = weir_buf_put_u64(out, s->lo);
    if (!rc)
        rc = weir_buf_put_u64(out, s->hi);
    if (!rc && !fits)
        rc = weir_buf_put_u64(out, (uint64_t)s->top);
    return rc;
}

static int dsum_de(void *acc, weir_cursor *in, uint8_t fc)
{
    dsum_acc *s = acc;
    memset(s, 0, sizeof *s);
    uint64_t lo, hi, top = 0;
    /* The header's third byte is the kind + 1: 17 without, 18 with the top word. */
    bool wide = weir_cursor_left(in) >= 3 && in->p[2] == DEC_KIND_WIDE + 1;
    __int128 v;
    if (get_counts(in, fc, wide ? DEC_KIND_WIDE : DEC_KIND, (cnt_acc *)s) ||
        weir_cursor_get_u64(in, &lo) || weir_cursor_get_u64(in, &hi) ||
        (wide && weir_cursor_get_u64(in, &top)) ||
        (s->n == 0 && (lo | hi))) {
        memset(s, 0, sizeof *s);
        return WEIR_ECORRUPT;
    }
    s->lo = lo;
    s->hi = hi;
    /* Kind 16 leaves out the top word: the sign extension of bit 127. */
    s->top = wide ? (int64_t)top : (hi >> 63 ? -1 : 0);
    if (wide == dsum_get(s, &v)) { /* kind 17 exactly when the sum needs it */
        memset(s, 0, sizeof *s);
        return WEIR_ECORRUPT;
    }
    return 0;
}

static int dsum_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return dsum_ser(acc, out, FC_SUM);
}
static int dsum_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return dsum_de(acc, in, FC_SUM);
}
static int davg_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return dsum_ser(acc, out, FC_AVG);
}
static int davg_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return dsum_de(acc, in, FC_AVG);
}

#define DSUM_CLASS(cname, fname, resultf, serf, def)                           \
    const weir_agg_class cname = {                                             \
        .name = fname,                                                         \
        .acc_size = dsum_size,                                                 \
        .init = dsum_init,                                                     \
        .add = dsum_add,                                                       \
        .retract = dsum_retract,                                               \
        .merge = dsum_merge,                                                   \
        .result = resultf,                                                     \
        .serialize = serf,                                                     \
        .deserialize = def,                                                    \
        .is_empty = weir__agg_rows_empty,                                      \
    }

DSUM_CLASS(weir__agg_sum_decimal, "SUM", dsum_result, dsum_serialize,
           dsum_deserialize);
DSUM_CLASS(weir__agg_sum0_decimal, "SUM0", dsum0_result, dsum_serialize,
           dsum_deserialize);
DSUM_CLASS(weir__agg_avg_decimal, "AVG", davg_result, davg_serialize,
           davg_deserialize);

/* ---- VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP (Welford) ---- */

typedef struct var_acc {
    int64_t rows;
    int64_t n;
    double mean;
    double m2; /* sum of squared deviations from the mean */
} var_acc;

static size_t var_size(const weir_agg *a)
{
    return sizeof(var_acc);
}
static void var_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(var_acc));
}

static double num_input(const weir_agg *a, const weir_batch *b, uint32_t row)
{
    const weir_column *c = &b->cols[a->input_col];
    switch (c->type.id) {
    case WEIR_TYPE_INT:
        return ((const int32_t *)c->data)[row];
    case WEIR_TYPE_DOUBLE:
        return ((const double *)c->data)[row];
    case WEIR_TYPE_DECIMAL:
        return weir__dec_to_double(((const int64_t *)c->data)[row], c->type.scale);
    default:
        return (double)((const int64_t *)c->data)[row];
    }
}

static int var_add(const weir_agg *a, void *acc, const weir_batch *b,
                   uint32_t row)
{
    var_acc *s = acc;
    s->rows++;
    if (!aggv_valid(b, a->input_col, row))
        return 0;
    double x = num_input(a, b, row);
    s->n++;
    double d = x - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (x - s->mean);
    return 0;
}

static int var_retract(const weir_agg *a, void *acc, const weir_batch *b,
                       uint32_t row)
{
    var_acc *s = acc;
    bool v = aggv_valid(b, a->input_col, row);
    if (!can_retract((const cnt_acc *)s, v))
        return WEIR_ESTATE;
    s->rows--;
    if (!v)
        return 0;
    if (s->n == 1) {
        s->n = 0;
        s->mean = s->m2 = 0;
        return 0;
    }
    /* Welford's update run backwards. */
    double x = num_input(a, b, row);
    double mean = ((double)s->n * s->mean - x) / (double)(s->n - 1);
    s->m2 -= (x - s->mean) * (x - mean);
    if (s->m2 < 0)
        s->m2 = 0;
    s->mean = mean;
    s->n--;
    return 0;
}

static int var_merge(const weir_agg *a, void *acc, const void *other)
{
    var_acc *s = acc;
    const var_acc *o = other;
    s->rows += o->rows;
    if (o->n == 0)
        return 0;
    if (s->n == 0) {
        s->n = o->n;
        s->mean = o->mean;
        s->m2 = o->m2;
        return 0;
    }
    double n = (double)(s->n + o->n);
    double d = o->mean - s->mean;
    s->mean += d * (double)o->n / n;
    s->m2 += o->m2 + d * d * (double)s->n * (double)o->n / n;
    s->n += o->n;
    return 0;
}

/* mode bit 0: sample (else population); bit 1: square root. */
static int var_result_common(const weir_agg *a, const void *acc,
                             weir_batch *out, uint32_t col, uint32_t row,
                             int mode)
{
    const var_acc *s = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    bool samp = mode & 1;
    if (s->n == 0 || (samp && s->n == 1))
        return weir__agg_put_null(out, col, row);
    double v = s->m2 / (double)(samp ? s->n - 1 : s->n);
    return weir__agg_put_f64(out, col, row, (mode & 2) ? sqrt(v) : v);
}

static int varpop_result(const weir_agg *a, const void *acc, weir_batch *out,
                         uint32_t col, uint32_t row)
{
    return var_result_common(a, acc, out, col, row, 0);
}
static int varsamp_result(const weir_agg *a, const void *acc, weir_batch *out,
                          uint32_t col, uint32_t row)
{
    return var_result_common(a, acc, out, col, row, 1);
}
static int stdpop_result(const weir_agg *a, const void *acc, weir_batch *out,
                         uint32_t col, uint32_t row)
{
    return var_result_common(a, acc, out, col, row, 2);
}
static int stdsamp_result(const weir_agg *a, const void *acc, weir_batch *out,
                          uint32_t col, uint32_t row)
{
    return var_result_common(a, acc, out, col, row, 3);
}

static int var_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const var_acc *s = acc;
    int rc = weir__agg_put_header(out, FC_VARIANCE, VK_F64, s->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)s->n);
    if (!rc)
        rc = weir_buf_put_f64(out, s->mean);
    return rc ? rc : weir_buf_put_f64(out, s->m2);
}

static int var_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    var_acc *s = acc;
    var_init(a, acc);
    double mean, m2;
    if (get_counts(in, FC_VARIANCE, VK_F64, (cnt_acc *)s) ||
        weir_cursor_get_f64(in, &mean) || weir_cursor_get_f64(in, &m2) ||
        m2 < 0 || (s->n == 0 && (mean != 0 || m2 != 0))) {
        var_init(a, acc);
        return WEIR_ECORRUPT;
    }
    s->mean = mean;
    s->m2 = m2;
    return 0;
}

#define VAR_CLASS(cname, fname, resultf)                                       \
    const weir_agg_class cname = {                                             \
        .name = fname,                                                         \
        .acc_size = var_size,                                                  \
        .init = var_init,                                                      \
        .add = var_add,                                                        \
        .retract = var_retract,                                                \
        .merge = var_merge,                                                    \
        .result = resultf,                                                     \
        .serialize = var_serialize,                                            \
        .deserialize = var_deserialize,                                        \
        .is_empty = weir__agg_rows_empty,                                      \
    }

VAR_CLASS(weir__agg_var_pop, "VAR_POP", varpop_result);
VAR_CLASS(weir__agg_var_samp, "VAR_SAMP", varsamp_result);
VAR_CLASS(weir__agg_stddev_pop, "STDDEV_POP", stdpop_result);
VAR_CLASS(weir__agg_stddev_samp, "STDDEV_SAMP", stdsamp_result);
