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

static size_t x_size(const weir_agg *a) { return sizeof(x_acc); }
static void x_init(const weir_agg *a, void *acc) { memset(acc, 0, sizeof(x_acc)); }

static void x_destroy(const weir_agg *a, void *acc)
{
    x_acc *x = acc;
    weir__ostr_free(&x->str);
    memset(x, 0, sizeof *x);
}

static xmode mode_of(const weir_agg *a)
{
    const weir_agg_class *c = a->cls;
    return c == &weir__agg_min ? X_MIN : c == &weir__agg_max ? X_MAX : c == &weir__agg_first ? X_FIRST : X_LAST;
}

static void cur_value(const x_acc *x, aggv *v)
{
    v->bits = x->bits;
    v->s = x->str.p;
    v->len = x->str.len;
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
    if (!take)
        return 0;
    if (k == VK_STR) {
        int rc = weir__ostr_set(&x->str, v->s, v->len);
        if (rc)
            return rc;
    }
    x->bits = v->bits;
    x->has = 1;
    return 0;
}

static int x_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    x_acc *x = acc;
    if (aggv_valid(b, a->input_col, row)) {
        vkind k = weir__agg_vkind(a->input_type.id);
        aggv v;
        aggv_get(k, b, a->input_col, row, &v);
        int rc = offer(mode_of(a), k, x, &v);
        if (rc)
            return rc;
    }
    x->rows++;
    return 0;
}

/* The numeric MIN/MAX fast path: no string, no call per row. */
static int x_add_rows(const weir_agg *a, void *const *accs, const weir_batch *b, const uint32_t *rows,
                      uint32_t n)
{
    vkind k = weir__agg_vkind(a->input_type.id);
    xmode m = mode_of(a);
    if (k == VK_I64 && a->input_type.id == WEIR_TYPE_BIGINT && (m == X_MIN || m == X_MAX)) {
        const weir_column *c = &b->cols[a->input_col];
        const int64_t *d = c->data;
        for (uint32_t i = 0; i < n; i++) {
            x_acc *x = accs[i];
            uint32_t r = rows[i];
            x->rows++;
            if (!c->all_valid && !((c->valid[r >> 3] >> (r & 7)) & 1))
                continue;
            int64_t v = d[r];
            if (!x->has || (m == X_MIN ? v < (int64_t)x->bits : v > (int64_t)x->bits)) {
                x->bits = (uint64_t)v;
                x->has = 1;
            }
        }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc = x_add(a, accs[i], b, rows[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int x_merge(const weir_agg *a, void *acc, const void *other)
{
    x_acc *x = acc;
    const x_acc *o = other;
    if (o->has) {
        aggv v;
        cur_value(o, &v);
        int rc = offer(mode_of(a), weir__agg_vkind(a->input_type.id), x, &v);
        if (rc)
            return rc;
    }
    x->rows += o->rows;
    return 0;
}

static int x_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const x_acc *x = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (!x->has)
        return weir__agg_put_null(out, col, row);
    aggv v;
    cur_value(x, &v);
    return weir__agg_put_value_out(out, col, row, weir__agg_vkind(a->input_type.id), &v);
}

static uint8_t fc_of(xmode m)
{
    static const uint8_t fc[] = {FC_MIN, FC_MAX, FC_FIRST, FC_LAST};
    return fc[m];
}

static int x_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const x_acc *x = acc;
    vkind k = weir__agg_vkind(a->input_type.id);
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
    vkind k = weir__agg_vkind(a->input_type.id);
    int64_t rows;
    uint8_t has;
    x_init(a, acc);
    if (weir__agg_get_header(in, fc_of(mode_of(a)), k, &rows) || weir_cursor_get_u8(in, &has) || has > 1 ||
        (has && rows == 0))
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

#define X_CLASS(cname, fname)                                                                               \
    const weir_agg_class cname = {                                                                          \
        .name = fname,                                                                                      \
        .acc_size = x_size,                                                                                 \
        .init = x_init,                                                                                     \
        .add = x_add,                                                                                       \
        .merge = x_merge,                                                                                   \
        .result = x_result,                                                                                 \
        .serialize = x_serialize,                                                                           \
        .deserialize = x_deserialize,                                                                       \
        .destroy = x_destroy,                                                                               \
        .is_empty = weir__agg_rows_empty,                                                                   \
        .add_rows = x_add_rows,                                                                             \
    }

X_CLASS(weir__agg_min, "MIN");
X_CLASS(weir__agg_max, "MAX");
X_CLASS(weir__agg_first, "FIRST_VALUE");
X_CLASS(weir__agg_last, "LAST_VALUE");
