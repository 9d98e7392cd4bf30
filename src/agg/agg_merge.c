/*
 * agg/agg_merge.c - the global phase of a two-phase aggregation: a
 * function whose input values are another function's serialised
 * accumulators (made by the local phase, ops/local_agg.c) and whose add is
 * that function's deserialize + merge. Everything else - the accumulator
 * block, result, serialised form, emptiness - is the inner function's, so
 * an operator running the global phase keeps the same state as one that
 * adds the rows itself.
 *
 * The inner class rides in the bound aggregate's udf pointer (a static
 * class, never freed); every call sees the inner function through a copy of
 * the bound aggregate with that class put back.
 */
#include <string.h>

#include "agg/agg_internal.h"
#include "agg/merge.h"

static const weir_agg_class merge_class;

static weir_agg inner_of(const weir_agg *m)
{
    weir_agg a = *m;
    a.cls = m->udf;
    a.udf = NULL;
    return a;
}

bool weir__agg_two_phase_ok(const weir_agg *a)
{
    if (!a->cls || !a->cls->name || !a->cls->merge || !a->cls->serialize || !a->cls->deserialize || a->inner ||
        a->udf)
        return false;
    const char *n = a->cls->name;
    if (!strcmp(n, "COUNT") || !strcmp(n, "MIN") || !strcmp(n, "MAX"))
        return true;
    if (strcmp(n, "SUM") && strcmp(n, "SUM0") && strcmp(n, "AVG"))
        return false;
    weir_type_id t = a->input_type.id;
    return t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT || t == WEIR_TYPE_DECIMAL;
}

void weir__agg_merge_of(const weir_agg *a, int32_t col, weir_agg *out)
{
    *out = *a;
    out->cls = &merge_class;
    out->udf = (void *)a->cls;
    out->input_col = col;
}

const weir_agg_class *weir__agg_merge_inner(const weir_agg *m, bool *star)
{
    const weir_agg_class *c = m->cls == &merge_class ? m->udf : NULL;
    if (star)
        *star = c == &weir__agg_count_star;
    return c;
}

static size_t m_acc_size(const weir_agg *m)
{
    weir_agg a = inner_of(m);
    return a.cls->acc_size(&a);
}

static void m_init(const weir_agg *m, void *acc)
{
    weir_agg a = inner_of(m);
    a.cls->init(&a, acc);
}

/* Folds in the accumulator serialised at (b, m->input_col, row); a NULL there is no rows. */
static int m_add(const weir_agg *m, void *acc, const weir_batch *b, uint32_t row)
{
    if (weir_batch_is_null(b, (uint32_t)m->input_col, row))
        return 0;
    weir_agg a = inner_of(m);
    uint32_t len;
    const char *p = weir_batch_str(b, (uint32_t)m->input_col, row, &len);
    size_t sz = a.cls->acc_size(&a);
    _Alignas(8) unsigned char small[256];
    void *part = sz <= sizeof small ? (void *)small : weir_malloc(sz);
    if (!part)
        return WEIR_ENOMEM;
    weir_cursor cur;
    weir_cursor_init(&cur, p, len);
    int rc = a.cls->deserialize(&a, part, &cur);
    if (!rc && weir_cursor_left(&cur))
        rc = WEIR_ECORRUPT;
    if (!rc)
        rc = a.cls->merge(&a, acc, part);
    if (a.cls->destroy)
        a.cls->destroy(&a, part);
    if (part != small)
        weir_free(part);
    return rc;
}

static int m_merge(const weir_agg *m, void *acc, const void *other)
{
    weir_agg a = inner_of(m);
    return a.cls->merge(&a, acc, other);
}

static int m_result(const weir_agg *m, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    weir_agg a = inner_of(m);
    return a.cls->result(&a, acc, out, col, row);
}

static int m_serialize(const weir_agg *m, const void *acc, weir_buf *out)
{
    weir_agg a = inner_of(m);
    return a.cls->serialize(&a, acc, out);
}

static int m_deserialize(const weir_agg *m, void *acc, weir_cursor *in)
{
    weir_agg a = inner_of(m);
    return a.cls->deserialize(&a, acc, in);
}

static void m_destroy(const weir_agg *m, void *acc)
{
    weir_agg a = inner_of(m);
    if (a.cls->destroy)
        a.cls->destroy(&a, acc);
}

static bool m_is_empty(const weir_agg *m, const void *acc)
{
    weir_agg a = inner_of(m);
    return a.cls->is_empty && a.cls->is_empty(&a, acc);
}

static const weir_agg_class merge_class = {
    .name = "MERGE",
    .acc_size = m_acc_size,
    .init = m_init,
    .add = m_add,
    .merge = m_merge,
    .result = m_result,
    .serialize = m_serialize,
    .deserialize = m_deserialize,
    .destroy = m_destroy,
    .is_empty = m_is_empty,
};
