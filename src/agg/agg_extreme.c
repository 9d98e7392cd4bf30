/*
 * agg/agg_extreme.c - MIN, MAX, FIRST_VALUE and LAST_VALUE: one kept value.
 *
 * The value is held in the block (integers, doubles) or copied into a
 * buffer the accumulator owns (strings), so it never points into a batch
 * that will be reset. NULL inputs are ignored (FIRST/LAST included, as
 * Flink's default). FIRST/LAST go by arrival order; merge(acc, other)
 * treats every row of acc as arriving before every row of other. These
 * cannot retract: updating aggregations use the _RETRACT variants.
 */
#include "agg/agg_internal.h"

typedef enum xmode { X_MIN, X_MAX, X_FIRST, X_LAST } xmode;

typedef struct x_acc {
    int64_t rows;
    int64_t has; /* 0 or 1: a non-NULL value is kept */
    uint64_t bits;
    ostr str;
} x_acc;

static size_t x_size(const weir_agg *a)
{
    return sizeof(x_acc);
}
static void x_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(x_acc));
}

static void x_destroy(const weir_agg *a, void *acc)
{
    x_acc *x = acc;
    weir__ostr_free(&x->str);
    memset(x, 0, sizeof *x);
}

static xmode mode_of(const weir_agg *a)
{
    const weir_agg_class *c = a->cls;
    return c == &weir__agg_min     ? X_MIN
           : c == &weir__agg_max   ? X_MAX
           : c == &weir__agg_first ? X_FIRST
                                   : X_LAST;
}

static void cur_value(const x_acc *x, aggv *v)
{
    v->bits = x->bits;
    v->s = weir__ostr_data(&x->str);
    v->len = x->str.len;
}

/* Keeps v as the current value. */
static int keep(vkind k, x_acc *x, const aggv *v)
{
    if (vk_bytes(k)) {
        int rc = weir__ostr_set(&x->str, v->s, v->len);
        if (rc)
            return rc;
    }
    x->bits = v->bits;
    x->has = 1;
    return 0;
}

/* Keeps v if it wins against the current value; v arrives after it. */
static int offer(xmode m, vkind k, x_acc *x, const aggv *v)
{
    bool take;
    if (!x->has) {
        take = true;
    } else {
        aggv cur;
        cur_value(x, &cur);
        switch (m) {
        case X_MIN:
            take = weir__agg_cmp(k, v, &cur) < 0;
            break;
        case X_MAX:
            take = weir__agg_cmp(k, v, &cur) > 0;
            break;
        case X_FIRST:
            take = false;
            break;
        default:
            take = true;
            break;
        }
    }
    return take ? keep(k, x, v) : 0;
}

/* Does fixed-width value v beat the kept one? The hot path of MIN/MAX. */
static inline bool beats_fixed(xmode m, vkind k, uint64_t v, const x_acc *x)
{
    if (!x->has || m == X_LAST)
        return true;
    if (m == X_FIRST)
        return false;
    int c;
    if (k == VK_I64) {
        int64_t p = (int64_t)v, q = (int64_t)x->bits;
        c = (p > q) - (p < q);
    } else {
        aggv av = {.bits = v}, bv = {.bits = x->bits};
        c = weir__agg_cmp(VK_F64, &av, &bv);
    }
    return m == X_MIN ? c < 0 : c > 0;
}

/* Does string v beat the kept one? The hot path of a string MIN/MAX: most rows lose (q16's MAX of the minute),
 * compared where the kept bytes lie, without offer's calls. */
static inline bool beats_str(xmode m, const aggv *v, const x_acc *x)
{
    if (!x->has || m == X_LAST)
        return true;
    if (m == X_FIRST)
        return false;
    int c = weir__agg_cmp_str(v->s, v->len, weir__ostr_data(&x->str), x->str.len);
    return m == X_MIN ? c < 0 : c > 0;
}

static inline int x_add_mode(const weir_agg *a, void *acc, const weir_batch *b,
                             uint32_t row, xmode m)
{
    x_acc *x = acc;
    if (aggv_valid(b, a->input_col, row)) {
        vkind k = weir__agg_vkind(a->input_type);
        aggv v = {0};
        aggv_get(k, b, a->input_col, row, &v);
        int rc = 0;
        if (!vk_bytes(k)) {
            if (beats_fixed(m, k, v.bits, x)) {
                x->bits = v.bits;
                x->has = 1;
            }
        } else if (k == VK_STR) {
            if (beats_str(m, &v, x))
                rc = keep(k, x, &v);
        } else {
            rc = offer(m, k, x, &v);
        }
        if (rc)
            return rc;
    }
    x->rows++;
    return 0;
}

static int x_add_rows_mode(const weir_agg *a, void *const *accs,
                           const weir_batch *b, const uint32_t *rows,
                           uint32_t n, xmode m)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = x_add_mode(a, accs[i], b, rows[i], m);
        if (rc)
            return rc;
    }
    return 0;
}

#define X_MODE_FNS(suffix, mode)                                               \
    static int x_add_##suffix(const weir_agg *a, void *acc,                    \
                              const weir_batch *b, uint32_t row)               \
    {                                                                          \
        return x_add_mode(a, acc, b, row, mode);                               \
    }                                                                          \
    static int x_add_rows_##suffix(const weir_agg *a, void *const *accs,       \
                                   const weir_batch *b, const uint32_t *rows,  \
                                   uint32_t n)                                 \
    {                                                                          \
        return x_add_rows_mode(a, accs, b, rows, n, mode);                     \
    }

X_MODE_FNS(min, X_MIN)
X_MODE_FNS(max, X_MAX)
X_MODE_FNS(first, X_FIRST)
X_MODE_FNS(last, X_LAST)

static int x_merge(const weir_agg *a, void *acc, const void *other)
{
    x_acc *x = acc;
    const x_acc *o = other;
    if (o->has) {
        aggv v;
        cur_value(o, &v);
        int rc = offer(mode_of(a), weir__agg_vkind(a->input_type), x, &v);
        if (rc)
            return rc;
    }
    x->rows += o->rows;
    return 0;
}

static int x_result(const weir_agg *a, const void *acc, weir_batch *out,
                    uint32_t col, uint32_t row)
{
    const x_acc *x = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (!x->has)
        return weir__agg_put_null(out, col, row);
    aggv v;
    cur_value(x, &v);
    return weir__agg_put_value_out(out, col, row,
                                   weir__agg_vkind(a->input_type), &v);
}

static uint8_t fc_of(xmode m)
{
    static const uint8_t fc[] = {FC_MIN, FC_MAX, FC_FIRST, FC_LAST};
    return fc[m];
}

static int x_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const x_acc *x = acc;
    vkind k = weir__agg_vkind(a->input_type);
    int rc = weir__agg_put_header(out, fc_of(mode_of(a)), k, x->rows);
    if (!rc)
        rc = weir_buf_put_u8(out, (uint8_t)x->has);
    if (!rc && x->has) {
        aggv v;
        cur_value(x, &v);
        rc = weir__agg_put_value(out, k, &v);
    }
    return rc;
}

static int x_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    x_acc *x = acc;
    vkind k = weir__agg_vkind(a->input_type);
    int64_t rows;
    uint8_t has;
    x_init(a, acc);
    if (weir__agg_get_header(in, fc_of(mode_of(a)), k, &rows) ||
        weir_cursor_get_u8(in, &has) || has > 1 || (has && rows == 0))
        return WEIR_ECORRUPT;
    if (has) {
        aggv v;
        if (weir__agg_get_value(in, k, &v))
            return WEIR_ECORRUPT;
        int rc = offer(X_LAST, k, x, &v);
        if (rc)
            return rc;
    }
    x->rows = rows;
    return 0;
}

#define X_CLASS(cname, fname, suffix)                                          \
    const weir_agg_class cname = {                                             \
        .name = fname,                                                         \
        .acc_size = x_size,                                                    \
        .init = x_init,                                                        \
        .add = x_add_##suffix,                                                 \
        .merge = x_merge,                                                      \
        .result = x_result,                                                    \
        .serialize = x_serialize,                                              \
        .deserialize = x_deserialize,                                          \
        .destroy = x_destroy,                                                  \
        .is_empty = weir__agg_rows_empty,                                      \
        .add_rows = x_add_rows_##suffix,                                       \
    }

X_CLASS(weir__agg_min, "MIN", min);
X_CLASS(weir__agg_max, "MAX", max);
X_CLASS(weir__agg_first, "FIRST_VALUE", first);
X_CLASS(weir__agg_last, "LAST_VALUE", last);
