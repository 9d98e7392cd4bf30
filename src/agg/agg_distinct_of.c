/*
 * agg/agg_distinct_of.c - F(DISTINCT x) for any function F that can retract
 * (SUM, AVG, the variance family, ...): the multiset of the non-NULL values
 * seen, each with its number of live occurrences (as COUNT(DISTINCT x)
 * keeps it), beside F's own accumulator, which holds each distinct value
 * exactly once. A value enters F when its first occurrence arrives and
 * leaves F (F's retract) when its last occurrence is retracted, so over an
 * updating input the result follows the live distinct values, as Flink's
 * distinct aggregates count the occurrences of each value.
 *
 * Merging two accumulators merges the multisets and rebuilds F from the
 * merged values (F's own merge would count a value present on both sides
 * twice); deserialising rebuilds F the same way, so F's state is never
 * written. Invariant: F holds exactly the values with a live count.
 */
#include "agg/agg_internal.h"

typedef struct dof_head {
    int64_t rows; /* net rows, NULLs included */
    int64_t n;    /* non-NULL rows */
    vmap *m;      /* NULL until the first value */
} dof_head;

/* F's accumulator follows the head. */
static void *inner_acc(void *acc)
{
    return (char *)acc + sizeof(dof_head);
}
static const void *inner_cacc(const void *acc)
{
    return (const char *)acc + sizeof(dof_head);
}

/* F bound like the wrapper: same column, types and parameter. */
static weir_agg inner_of(const weir_agg *a)
{
    weir_agg f = *a;
    f.cls = a->inner;
    f.inner = NULL;
    return f;
}

static size_t dof_size(const weir_agg *a)
{
    weir_agg f = inner_of(a);
    size_t n = f.cls->acc_size(&f);
    return sizeof(dof_head) + ((n + 7) & ~(size_t)7);
}

static void dof_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(dof_head));
    weir_agg f = inner_of(a);
    f.cls->init(&f, inner_acc(acc));
}

static void dof_destroy(const weir_agg *a, void *acc)
{
    dof_head *h = acc;
    if (h->m) {
        weir__vmap_fini(h->m);
        weir_free(h->m);
    }
    memset(h, 0, sizeof *h);
    weir_agg f = inner_of(a);
    if (f.cls->destroy)
        f.cls->destroy(&f, inner_acc(acc));
    f.cls->init(&f, inner_acc(acc));
}

static int ensure_map(const weir_agg *a, dof_head *h)
{
    if (h->m)
        return 0;
    h->m = weir_malloc(sizeof *h->m);
    if (!h->m)
        return WEIR_ENOMEM;
    weir__vmap_init(h->m, weir__agg_vkind(a->input_type));
    return 0;
}

/*
 * Folds value v into F through a one-row batch of F's input type, for
 * rebuilding F from the multiset (merge, deserialize).
 */
static int inner_add_value(const weir_agg *a, void *facc, const aggv *v)
{
    union {
        uint8_t b;
        int32_t i;
        int64_t l;
        double d;
        weir_strref r;
        __int128 w; /* a DECIMAL of more than 18 digits */
    } cell;
    memset(&cell, 0, sizeof cell);
    uint8_t valid = 1;
    weir_column col = {.type = a->input_type, .data = &cell, .valid = &valid, .all_valid = true};
    weir_batch b = {.n_rows = 1, .capacity = 1, .cols = &col};
    switch (a->input_type.id) {
    case WEIR_TYPE_BOOLEAN: cell.b = v->bits ? 1 : 0; break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT: cell.i = (int32_t)(int64_t)v->bits; break;
    case WEIR_TYPE_DOUBLE: cell.d = aggv_f64(v); break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW:
        cell.r.off = 0;
        cell.r.len = v->len;
        /* The batch is only read: the heap pointer is never written. */
        memcpy(&b.heap, &v->s, sizeof b.heap);
        b.heap_len = v->len;
        break;
    default:
        if (weir_type_is_wide(a->input_type))
            memcpy(&cell.w, v->s, 16);
        else
            cell.l = (int64_t)v->bits;
        break;
    }
    weir_agg f = inner_of(a);
    f.input_col = 0;
    return f.cls->add(&f, facc, &b, 0);
}

/* F over the values of the multiset, from scratch. */
static int rebuild_inner(const weir_agg *a, void *acc)
{
    dof_head *h = acc;
    weir_agg f = inner_of(a);
    if (f.cls->destroy)
        f.cls->destroy(&f, inner_acc(acc));
    f.cls->init(&f, inner_acc(acc));
    if (!h->m)
        return 0;
    /* In value order, so the result does not depend on arrival order. */
    uint32_t *ix = NULL;
    int rc = weir__vmap_sorted(h->m, &ix);
    for (uint32_t i = 0; !rc && i < h->m->n; i++) {
        aggv v;
        vmap_key(h->m, ix[i], &v);
        rc = inner_add_value(a, inner_acc(acc), &v);
    }
    weir_free(ix);
    return rc;
}

static int dof_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    dof_head *h = acc;
    if (aggv_valid(b, a->input_col, row)) {
        int rc = ensure_map(a, h);
        if (rc)
            return rc;
        aggv v;
        aggv_get(h->m->kind, b, a->input_col, row, &v);
        uint64_t hs = weir__agg_hash(h->m->kind, &v);
        int64_t i = weir__vmap_find(h->m, &v, hs);
        if (i < 0) {
            /* A new value: into F first, so a failure leaves both as they were. */
            if ((rc = weir__vmap_reserve(h->m, 1, v.len)))
                return rc;
            weir_agg f = inner_of(a);
            if ((rc = f.cls->add(&f, inner_acc(acc), b, row)))
                return rc;
            i = weir__vmap_insert(h->m, &v, hs);
        }
        h->m->e[i].count++;
        h->n++;
    }
    h->rows++;
    return 0;
}

static int dof_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    dof_head *h = acc;
    if (aggv_valid(b, a->input_col, row)) {
        if (!h->m)
            return WEIR_ESTATE;
        aggv v;
        aggv_get(h->m->kind, b, a->input_col, row, &v);
        int64_t i = weir__vmap_find(h->m, &v, weir__agg_hash(h->m->kind, &v));
        if (i < 0)
            return WEIR_ESTATE;
        if (h->m->e[i].count == 1) {
            weir_agg f = inner_of(a);
            int rc = f.cls->retract(&f, inner_acc(acc), b, row);
            if (rc)
                return rc;
            weir__vmap_remove(h->m, (uint32_t)i);
        } else {
            h->m->e[i].count--;
        }
        h->n--;
    } else if (h->rows - h->n == 0) {
        return WEIR_ESTATE;
    }
    if (--h->rows == 0)
        dof_destroy(a, acc);
    return 0;
}

static int dof_merge(const weir_agg *a, void *acc, const void *other)
{
    dof_head *h = acc;
    const dof_head *o = other;
    if (o->m && o->m->n) {
        int rc = ensure_map(a, h);
        if (!rc)
            rc = weir__vmap_reserve(h->m, o->m->n, o->m->alen);
        if (rc)
            return rc;
        bool grew = false;
        for (uint32_t i = 0; i < o->m->top; i++) {
            if (!vmap_live(o->m, i))
                continue;
            aggv v;
            vmap_key(o->m, i, &v);
            uint64_t hs = weir__agg_hash(h->m->kind, &v);
            int64_t j = weir__vmap_find(h->m, &v, hs);
            if (j < 0) {
                j = weir__vmap_insert(h->m, &v, hs);
                grew = true;
            }
            h->m->e[j].count += o->m->e[i].count;
        }
        if (grew && (rc = rebuild_inner(a, acc)))
            return rc;
    }
    h->rows += o->rows;
    h->n += o->n;
    return 0;
}

/*
 * Whether F's result depends on the order values are folded in (floating
 * point: a DOUBLE input, or the variance family's DOUBLE result). Such a
 * result is computed from the values in value order, so one multiset
 * always gives the same bits - whether F was built row by row, merged or
 * restored - and a retraction (-U) repeats exactly the row emitted before.
 */
static bool order_sensitive(const weir_agg *a)
{
    return a->input_type.id == WEIR_TYPE_DOUBLE || a->result_type.id == WEIR_TYPE_DOUBLE;
}

static int dof_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    weir_agg f = inner_of(a);
    const dof_head *h = acc;
    if (!order_sensitive(a) || !h->m || h->m->n == 0)
        return f.cls->result(&f, inner_cacc(acc), out, col, row);
    uint64_t local[16];
    size_t sz = f.cls->acc_size(&f);
    void *tmp = sz <= sizeof local ? local : weir_malloc(sz);
    if (!tmp)
        return WEIR_ENOMEM;
    f.cls->init(&f, tmp);
    uint32_t *ix = NULL;
    int rc = weir__vmap_sorted(h->m, &ix);
    for (uint32_t i = 0; !rc && i < h->m->n; i++) {
        aggv v;
        vmap_key(h->m, ix[i], &v);
        rc = inner_add_value(a, tmp, &v);
    }
    weir_free(ix);
    if (!rc)
        rc = f.cls->result(&f, tmp, out, col, row);
    if (f.cls->destroy)
        f.cls->destroy(&f, tmp);
    if (tmp != local)
        weir_free(tmp);
    return rc;
}

static int dof_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const dof_head *h = acc;
    int rc = weir__agg_put_header(out, FC_DISTINCT_OF, weir__agg_vkind(a->input_type), h->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)h->n);
    return rc ? rc : weir__vmap_put_counts(out, h->m);
}

static int dof_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    dof_head *h = acc;
    dof_init(a, acc);
    int64_t rows, total;
    uint64_t n;
    if (weir__agg_get_header(in, FC_DISTINCT_OF, weir__agg_vkind(a->input_type), &rows) ||
        weir_cursor_get_varint(in, &n) || n > (uint64_t)rows)
        return WEIR_ECORRUPT;
    int rc = ensure_map(a, h);
    if (!rc)
        rc = weir__vmap_get_counts(in, h->m, (int64_t)n, &total);
    if (!rc && total != (int64_t)n)
        rc = WEIR_ECORRUPT;
    if (!rc) {
        h->rows = rows;
        h->n = (int64_t)n;
        rc = rebuild_inner(a, acc);
    }
    if (rc) {
        dof_destroy(a, acc);
        return rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT;
    }
    return 0;
}

const weir_agg_class weir__agg_distinct_of = {
    .name = "DISTINCT",
    .acc_size = dof_size,
    .init = dof_init,
    .add = dof_add,
    .retract = dof_retract,
    .merge = dof_merge,
    .result = dof_result,
    .serialize = dof_serialize,
    .deserialize = dof_deserialize,
    .destroy = dof_destroy,
    .is_empty = weir__agg_rows_empty,
};
