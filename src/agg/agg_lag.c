/*
 * agg/agg_lag.c - LAG(x, n) in an OVER window: the value of x n rows back
 * in the partition's order, NULL while fewer than n + 1 rows were added
 * (LAG_PRESENT says which: TRUE once the row n back exists, so the
 * planner can put LAG's default there). As in Flink's streaming LAG, the
 * accumulator keeps the last n + 1 values it was given, so rows of one
 * timestamp in a RANGE frame, added together before their results are
 * read, all see the value n rows before the last of them.
 *
 * LAG looks back along the partition, not the frame: a row leaving a
 * bounded frame does not change it, so retract only checks the count.
 * Invariants: rows counts the adds; ring[i % (n + 1)] holds the value of
 * add number i for the last min(rows, n + 1) adds.
 */
#include "agg/agg_internal.h"

typedef struct lag_val {
    uint64_t bits;
    bool valid;
    ostr s; /* VK_STR */
} lag_val;

typedef struct lag_acc {
    int64_t rows;
    lag_val *ring; /* n + 1 entries, NULL until the first add */
} lag_acc;

static uint32_t ring_len(const weir_agg *a)
{
    return (uint32_t)a->param + 1;
}

static size_t lag_size(const weir_agg *a)
{
    (void)a;
    return sizeof(lag_acc);
}

static void lag_init(const weir_agg *a, void *acc)
{
    (void)a;
    memset(acc, 0, sizeof(lag_acc));
}

static void lag_destroy(const weir_agg *a, void *acc)
{
    lag_acc *c = acc;
    if (c->ring) {
        for (uint32_t i = 0; i < ring_len(a); i++)
            weir__ostr_free(&c->ring[i].s);
        weir_free(c->ring);
    }
    memset(c, 0, sizeof *c);
}

static int ensure_ring(const weir_agg *a, lag_acc *c)
{
    if (c->ring)
        return 0;
    c->ring = weir_calloc(ring_len(a), sizeof *c->ring);
    return c->ring ? 0 : WEIR_ENOMEM;
}

/* Appends one value (valid false: NULL). */
static int push(const weir_agg *a, lag_acc *c, bool valid, const aggv *v)
{
    int rc = ensure_ring(a, c);
    if (rc)
        return rc;
    lag_val *e = &c->ring[(uint64_t)c->rows % ring_len(a)];
    if (valid && vk_bytes(weir__agg_vkind(a->input_type)) && (rc = weir__ostr_set(&e->s, v->s, v->len)))
        return rc;
    e->valid = valid;
    e->bits = valid ? v->bits : 0;
    c->rows++;
    return 0;
}

static int lag_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    aggv v = {0};
    bool valid = aggv_valid(b, a->input_col, row);
    if (valid)
        aggv_get(weir__agg_vkind(a->input_type), b, a->input_col, row, &v);
    return push(a, acc, valid, &v);
}

static int lag_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    (void)a, (void)b, (void)row;
    return ((lag_acc *)acc)->rows > 0 ? 0 : WEIR_ESTATE;
}

/* The entry of add number i (i within the last n + 1). */
static const lag_val *entry(const weir_agg *a, const lag_acc *c, int64_t i)
{
    return &c->ring[(uint64_t)i % ring_len(a)];
}

static int lag_merge(const weir_agg *a, void *acc, const void *other)
{
    const lag_acc *o = other;
    int64_t from = o->rows - (int64_t)ring_len(a);
    if (from < 0)
        from = 0;
    /* Number the other's values after this one's (the first `from` of
     * them are gone; the ones pushed overwrite every older slot). */
    ((lag_acc *)acc)->rows += from;
    for (int64_t i = from; i < o->rows; i++) {
        const lag_val *e = entry(a, o, i);
        aggv v = {.bits = e->bits, .s = weir__ostr_data(&e->s), .len = e->s.len};
        int rc = push(a, acc, e->valid, &v);
        if (rc)
            return rc;
    }
    return 0;
}

static int lag_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const lag_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (c->rows <= (int64_t)a->param)
        return weir__agg_put_null(out, col, row);
    const lag_val *e = entry(a, c, c->rows - 1 - (int64_t)a->param);
    if (!e->valid)
        return weir__agg_put_null(out, col, row);
    aggv v = {.bits = e->bits, .s = weir__ostr_data(&e->s), .len = e->s.len};
    return weir__agg_put_value_out(out, col, row, weir__agg_vkind(a->input_type), &v);
}

static int lag_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const lag_acc *c = acc;
    vkind k = weir__agg_vkind(a->input_type);
    int rc = weir__agg_put_header(out, FC_LAG, k, c->rows);
    int64_t from = c->rows - (int64_t)ring_len(a);
    for (int64_t i = from < 0 ? 0 : from; !rc && i < c->rows; i++) {
        const lag_val *e = entry(a, c, i);
        aggv v = {.bits = e->bits, .s = weir__ostr_data(&e->s), .len = e->s.len};
        rc = weir_buf_put_u8(out, e->valid);
        if (!rc && e->valid)
            rc = weir__agg_put_value(out, k, &v);
    }
    return rc;
}

static int lag_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    lag_acc *c = acc;
    lag_init(a, acc);
    vkind k = weir__agg_vkind(a->input_type);
    int64_t rows;
    if (weir__agg_get_header(in, FC_LAG, k, &rows))
        return WEIR_ECORRUPT;
    int64_t from = rows - (int64_t)ring_len(a);
    if (from < 0)
        from = 0;
    c->rows = from;
    for (int64_t i = from; i < rows; i++) {
        uint8_t valid;
        aggv v = {0};
        int rc = weir_cursor_get_u8(in, &valid) || valid > 1 ? WEIR_ECORRUPT : 0;
        if (!rc && valid)
            rc = weir__agg_get_value(in, k, &v);
        if (!rc)
            rc = push(a, c, valid, &v);
        if (rc) {
            lag_destroy(a, acc);
            return rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT;
        }
    }
    return 0;
}

const weir_agg_class weir__agg_lag = {
    .name = "LAG",
    .acc_size = lag_size,
    .init = lag_init,
    .add = lag_add,
    .retract = lag_retract,
    .merge = lag_merge,
    .result = lag_result,
    .serialize = lag_serialize,
    .deserialize = lag_deserialize,
    .destroy = lag_destroy,
    .is_empty = weir__agg_rows_empty,
};

/* ---- LAG_PRESENT: whether the row n back exists ---- */

static int lp_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    (void)a, (void)b, (void)row;
    ((lag_acc *)acc)->rows++;
    return 0;
}

static int lp_merge(const weir_agg *a, void *acc, const void *other)
{
    (void)a;
    ((lag_acc *)acc)->rows += ((const lag_acc *)other)->rows;
    return 0;
}

static int lp_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    int rc = weir__agg_check_out(a, out, col, row);
    return rc ? rc : weir__agg_put_i64(out, col, row, ((const lag_acc *)acc)->rows > (int64_t)a->param);
}

static int lp_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    (void)a;
    return weir__agg_put_header(out, FC_LAG_PRESENT, -1, ((const lag_acc *)acc)->rows);
}

static int lp_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    lag_init(a, acc);
    return weir__agg_get_header(in, FC_LAG_PRESENT, -1, &((lag_acc *)acc)->rows) ? WEIR_ECORRUPT : 0;
}

static void lp_destroy(const weir_agg *a, void *acc)
{
    lag_init(a, acc);
}

const weir_agg_class weir__agg_lag_present = {
    .name = "LAG_PRESENT",
    .acc_size = lag_size,
    .init = lag_init,
    .add = lp_add,
    .retract = lag_retract,
    .merge = lp_merge,
    .result = lp_result,
    .serialize = lp_serialize,
    .deserialize = lp_deserialize,
    .destroy = lp_destroy,
    .is_empty = weir__agg_rows_empty,
};
