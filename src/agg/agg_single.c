/*
 * agg/agg_single.c - SINGLE_VALUE: the value of a group's only row.
 *
 * The aggregate a scalar subquery that may give more than one row is
 * planned with (SQL's SINGLE_VALUE, as Flink plans such subqueries): while
 * the group holds at most one row its result is that row's value (NULL
 * when the value is NULL or the group is empty); a second row fails the
 * add (and merge) with WEIR_EINVAL and leaves the accumulator as it was, and the
 * operator fails the job with weir_agg.label, which names the subquery.
 * Since a group never holds two rows, a retraction removes its one row.
 */
#include "agg/agg_internal.h"

typedef struct sv_acc {
    int64_t rows; /* 0 or 1 */
    int64_t has;  /* the row's value is not NULL */
    uint64_t bits;
    ostr str;
} sv_acc;

static size_t sv_size(const weir_agg *a)
{
    (void)a;
    return sizeof(sv_acc);
}

static void sv_init(const weir_agg *a, void *acc)
{
    (void)a;
    memset(acc, 0, sizeof(sv_acc));
}

static void sv_destroy(const weir_agg *a, void *acc)
{
    sv_acc *x = acc;
    (void)a;
    weir__ostr_free(&x->str);
    memset(x, 0, sizeof *x);
}

/* Keeps v (NULL: no value) as the group's one row. */
static int sv_keep(const weir_agg *a, sv_acc *x, const aggv *v)
{
    if (v && vk_bytes(weir__agg_vkind(a->input_type))) {
        int rc = weir__ostr_set(&x->str, v->s, v->len);
        if (rc)
            return rc;
    }
    x->rows = 1;
    x->has = v != NULL;
    x->bits = v ? v->bits : 0;
    return 0;
}

static int sv_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    sv_acc *x = acc;
    if (x->rows)
        return WEIR_EINVAL;
    if (!aggv_valid(b, a->input_col, row))
        return sv_keep(a, x, NULL);
    aggv v = {0};
    aggv_get(weir__agg_vkind(a->input_type), b, a->input_col, row, &v);
    return sv_keep(a, x, &v);
}

static int sv_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    sv_acc *x = acc;
    (void)a;
    (void)b;
    (void)row;
    if (!x->rows)
        return WEIR_ESTATE;
    x->rows = 0;
    x->has = 0;
    x->bits = 0;
    return 0;
}

static void sv_value(const sv_acc *x, aggv *v)
{
    v->bits = x->bits;
    v->s = weir__ostr_data(&x->str);
    v->len = x->str.len;
}

static int sv_merge(const weir_agg *a, void *acc, const void *other)
{
    sv_acc *x = acc;
    const sv_acc *o = other;
    if (!o->rows)
        return 0;
    if (x->rows)
        return WEIR_EINVAL;
    aggv v;
    sv_value(o, &v);
    return sv_keep(a, x, o->has ? &v : NULL);
}

static int sv_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const sv_acc *x = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (!x->has)
        return weir__agg_put_null(out, col, row);
    aggv v;
    sv_value(x, &v);
    return weir__agg_put_value_out(out, col, row, weir__agg_vkind(a->input_type), &v);
}

static int sv_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const sv_acc *x = acc;
    vkind k = weir__agg_vkind(a->input_type);
    int rc = weir__agg_put_header(out, FC_SINGLE_VALUE, k, x->rows);
    if (!rc)
        rc = weir_buf_put_u8(out, (uint8_t)x->has);
    if (!rc && x->has) {
        aggv v;
        sv_value(x, &v);
        rc = weir__agg_put_value(out, k, &v);
    }
    return rc;
}

static int sv_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    sv_acc *x = acc;
    vkind k = weir__agg_vkind(a->input_type);
    int64_t rows;
    uint8_t has;
    sv_init(a, acc);
    if (weir__agg_get_header(in, FC_SINGLE_VALUE, k, &rows) || rows < 0 || rows > 1 ||
        weir_cursor_get_u8(in, &has) || has > 1 || (has && !rows))
        return WEIR_ECORRUPT;
    if (!rows)
        return 0;
    if (!has)
        return sv_keep(a, x, NULL);
    aggv v;
    if (weir__agg_get_value(in, k, &v))
        return WEIR_ECORRUPT;
    return sv_keep(a, x, &v);
}

const weir_agg_class weir__agg_single_value = {
    .name = "SINGLE_VALUE",
    .acc_size = sv_size,
    .init = sv_init,
    .add = sv_add,
    .retract = sv_retract,
    .merge = sv_merge,
    .result = sv_result,
    .serialize = sv_serialize,
    .deserialize = sv_deserialize,
    .destroy = sv_destroy,
    .is_empty = weir__agg_rows_empty,
};
