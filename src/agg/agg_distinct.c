/*
 * agg/agg_distinct.c - COUNT(DISTINCT col), exact, and COLLECT(col): the
 * multiset of the non-NULL values seen, each with its number of live
 * occurrences, so a retraction removes exactly one occurrence and the
 * count of distinct values drops when the last one goes. Values are
 * compared in canonical form: INT and BIGINT numerically, doubles with
 * -0.0 equal to 0.0 and all NaNs equal, strings bytewise. COLLECT's result
 * is that multiset itself, a MULTISET value (record/nested.h), as Flink's
 * COLLECT: {} when every value was NULL. PERCENTILE(col, p) keeps the same
 * multiset and interpolates the exact percentile from it (below).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "agg/agg_internal.h"
#include "agg/distinct.h"
#include "record/nested.h"

typedef struct cd_acc {
    int64_t rows;
    int64_t n; /* non-NULL rows */
    vmap *m;   /* NULL until the first value */
} cd_acc;

static size_t cd_size(const weir_agg *a)
{
    return sizeof(cd_acc);
}
static void cd_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(cd_acc));
}

static void cd_destroy(const weir_agg *a, void *acc)
{
    cd_acc *c = acc;
    if (c->m) {
        weir__vmap_fini(c->m);
        weir_free(c->m);
    }
    memset(c, 0, sizeof *c);
}

static int ensure_map(const weir_agg *a, cd_acc *c)
{
    if (c->m)
        return 0;
    c->m = weir_malloc(sizeof *c->m);
    if (!c->m)
        return WEIR_ENOMEM;
    weir__vmap_init(c->m, weir__agg_vkind(a->input_type.id));
    return 0;
}

/* Adds `times` occurrences of v. */
static int cd_put(const weir_agg *a, cd_acc *c, const aggv *v, int64_t times)
{
    int rc = ensure_map(a, c);
    if (rc)
        return rc;
    uint64_t h = weir__agg_hash(c->m->kind, v);
    int64_t i = weir__vmap_find(c->m, v, h);
    if (i < 0) {
        rc = weir__vmap_reserve(c->m, 1, v->len);
        if (rc)
            return rc;
        i = weir__vmap_insert(c->m, v, h);
    }
    c->m->e[i].count += times;
    return 0;
}

static int cd_add(const weir_agg *a, void *acc, const weir_batch *b,
                  uint32_t row)
{
    cd_acc *c = acc;
    if (aggv_valid(b, a->input_col, row)) {
        aggv v;
        aggv_get(weir__agg_vkind(a->input_type.id), b, a->input_col, row, &v);
        int rc = cd_put(a, c, &v, 1);
        if (rc)
            return rc;
        c->n++;
    }
    c->rows++;
    return 0;
}

static int cd_retract(const weir_agg *a, void *acc, const weir_batch *b,
                      uint32_t row)
{
    cd_acc *c = acc;
    if (aggv_valid(b, a->input_col, row)) {
        if (!c->m)
            return WEIR_ESTATE;
        aggv v;
        aggv_get(c->m->kind, b, a->input_col, row, &v);
        int64_t i = weir__vmap_find(c->m, &v, weir__agg_hash(c->m->kind, &v));
        if (i < 0)
            return WEIR_ESTATE;
        if (--c->m->e[i].count == 0)
            weir__vmap_remove(c->m, (uint32_t)i);
        c->n--;
    } else if (c->rows - c->n == 0) {
        return WEIR_ESTATE;
    }
    if (--c->rows == 0)
        cd_destroy(a, acc);
    return 0;
}

static int cd_merge(const weir_agg *a, void *acc, const void *other)
{
    cd_acc *c = acc;
    const cd_acc *o = other;
    if (o->m && o->m->n) {
        int rc = ensure_map(a, c);
        /* Room for every value of other first, so the merge cannot stop
         * half way. */
        if (!rc)
            rc = weir__vmap_reserve(c->m, o->m->n, o->m->alen);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < o->m->top; i++) {
            if (!vmap_live(o->m, i))
                continue;
            aggv v;
            vmap_key(o->m, i, &v);
            cd_put(a, c, &v, o->m->e[i].count);
        }
    }
    c->rows += o->rows;
    c->n += o->n;
    return 0;
}

static int cd_result(const weir_agg *a, const void *acc, weir_batch *out,
                     uint32_t col, uint32_t row)
{
    const cd_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    return rc ? rc : weir__agg_put_i64(out, col, row, c->m ? c->m->n : 0);
}

/* Serialised form (code fc): the header, the non-NULL rows, the values
 * with their counts. */
static int put_acc(const weir_agg *a, const cd_acc *c, uint8_t fc, weir_buf *out)
{
    int rc = weir__agg_put_header(out, fc, weir__agg_vkind(a->input_type.id), c->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)c->n);
    return rc ? rc : weir__vmap_put_counts(out, c->m);
}

static int cd_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return put_acc(a, acc, FC_COUNT_DISTINCT, out);
}

static int get_acc(const weir_agg *a, cd_acc *c, uint8_t fc, weir_cursor *in)
{
    cd_init(a, c);
    int64_t rows, total;
    uint64_t n;
    if (weir__agg_get_header(in, fc, weir__agg_vkind(a->input_type.id), &rows) ||
        weir_cursor_get_varint(in, &n) || n > (uint64_t)rows)
        return WEIR_ECORRUPT;
    int rc = ensure_map(a, c);
    if (!rc)
        rc = weir__vmap_get_counts(in, c->m, (int64_t)n, &total);
    if (!rc && total != (int64_t)n)
        rc = WEIR_ECORRUPT;
    if (rc) {
        cd_destroy(a, c);
        return rc;
    }
    c->rows = rows;
    c->n = (int64_t)n;
    return 0;
}

static int cd_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return get_acc(a, acc, FC_COUNT_DISTINCT, in);
}

const weir_agg_class weir__agg_count_distinct = {
    .name = "COUNT_DISTINCT",
    .acc_size = cd_size,
    .init = cd_init,
    .add = cd_add,
    .retract = cd_retract,
    .merge = cd_merge,
    .result = cd_result,
    .serialize = cd_serialize,
    .deserialize = cd_deserialize,
    .destroy = cd_destroy,
    .is_empty = weir__agg_rows_empty,
};

/* ---- COLLECT ---- */

/* Appends value v of the element type et as a MULTISET entry. */
static int put_elem(weir_buf *b, weir_type et, const aggv *v)
{
    switch (et.id) {
    case WEIR_TYPE_BOOLEAN: {
        uint8_t x = v->bits != 0;
        return weir_nv_put(b, et, &x, 1);
    }
    case WEIR_TYPE_INT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: {
        int32_t x = (int32_t)(int64_t)v->bits;
        return weir_nv_put(b, et, &x, 4);
    }
    default:
        if (weir_type_is_varlen(et.id))
            return weir_nv_put(b, et, v->s, v->len);
        return weir_nv_put(b, et, &v->bits, 8);
    }
}

static int collect_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const cd_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    weir_type et = a->input_type, ct = weir_type_make(WEIR_TYPE_INT, false);
    weir_buf b;
    weir_buf_init(&b);
    rc = weir_nv_put_count(&b, c->m ? c->m->n : 0);
    for (uint32_t i = 0; !rc && c->m && i < c->m->top; i++) {
        if (!vmap_live(c->m, i))
            continue;
        if (c->m->e[i].count > INT32_MAX) {
            rc = WEIR_EUNSUPPORTED; /* a MULTISET count is an INT */
            break;
        }
        aggv v;
        vmap_key(c->m, i, &v);
        int32_t n = (int32_t)c->m->e[i].count;
        rc = put_elem(&b, et, &v);
        if (!rc)
            rc = weir_nv_put(&b, ct, &n, 4);
    }
    if (!rc)
        rc = weir_nv_map_canon(&b, 0, a->result_type);
    if (!rc)
        rc = weir__agg_put_str(out, col, row, (const char *)b.data, (uint32_t)b.len);
    weir_buf_fini(&b);
    return rc;
}

static int collect_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return put_acc(a, acc, FC_COLLECT, out);
}

static int collect_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return get_acc(a, acc, FC_COLLECT, in);
}

const weir_agg_class weir__agg_collect = {
    .name = "COLLECT",
    .acc_size = cd_size,
    .init = cd_init,
    .add = cd_add,
    .retract = cd_retract,
    .merge = cd_merge,
    .result = collect_result,
    .serialize = collect_serialize,
    .deserialize = collect_deserialize,
    .destroy = cd_destroy,
    .is_empty = weir__agg_rows_empty,
};

/* ---- PERCENTILE ---- */

/*
 * PERCENTILE(x, p), as Flink 2's (and Spark's and Hive's): the values as
 * DOUBLEs in ascending order, n of them counting repeats; the position
 * pos = p * (n - 1) lies between the ranks lo = floor(pos) and
 * hi = ceil(pos) (0-based); the result is the value at lo when the two
 * ranks hold the same value, else (hi - pos) * v(lo) + (pos - lo) * v(hi).
 * NULL when there is no value. The order is Java's Double.compare: NaN
 * above everything.
 */
typedef struct pct_ent {
    double v;
    int64_t count;
} pct_ent;

static int cmp_pct(const void *x, const void *y)
{
    double a = ((const pct_ent *)x)->v, b = ((const pct_ent *)y)->v;
    bool na = a != a, nb = b != b;
    if (na || nb)
        return na - nb;
    return (a > b) - (a < b);
}

static double pct_value(const weir_agg *a, const aggv *v)
{
    if (a->input_type.id == WEIR_TYPE_DOUBLE) {
        double d;
        memcpy(&d, &v->bits, 8);
        return d;
    }
    int64_t i = (int64_t)v->bits;
    if (a->input_type.id == WEIR_TYPE_DECIMAL && a->input_type.scale) {
        /* exact below 2^53 (one correctly rounded division); above, the
         * decimal's text read once, as Java's BigDecimal.doubleValue() */
        if (i > -(INT64_C(1) << 53) && i < (INT64_C(1) << 53))
            return (double)i / (double)weir__pow10[a->input_type.scale];
        char t[48];
        snprintf(t, sizeof t, "%" PRId64 "e-%d", i, (int)a->input_type.scale);
        return strtod(t, NULL);
    }
    return (double)i;
}

static int pct_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const cd_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (!c->m || !c->m->n)
        return weir__agg_put_null(out, col, row);
    pct_ent *e = weir_malloc(sizeof *e * c->m->n);
    if (!e)
        return WEIR_ENOMEM;
    uint32_t m = 0;
    for (uint32_t i = 0; i < c->m->top; i++) {
        if (!vmap_live(c->m, i))
            continue;
        aggv v;
        vmap_key(c->m, i, &v);
        e[m++] = (pct_ent){pct_value(a, &v), c->m->e[i].count};
    }
    qsort(e, m, sizeof *e, cmp_pct);
    int64_t n = 0;
    for (uint32_t i = 0; i < m; i++)
        n += e[i].count;
    double pos = a->param * (double)(n - 1);
    int64_t lo = (int64_t)floor(pos), hi = (int64_t)ceil(pos);
    /* the values at ranks lo and hi */
    double vlo = e[m - 1].v, vhi = e[m - 1].v;
    int64_t seen = 0;
    bool got_lo = false;
    for (uint32_t i = 0; i < m; i++) {
        seen += e[i].count;
        if (!got_lo && lo < seen) {
            vlo = e[i].v;
            got_lo = true;
        }
        if (hi < seen) {
            vhi = e[i].v;
            break;
        }
    }
    weir_free(e);
    double r = lo == hi || vlo == vhi ? vlo : ((double)hi - pos) * vlo + (pos - (double)lo) * vhi;
    return weir__agg_put_f64(out, col, row, r);
}

static int pct_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return put_acc(a, acc, FC_PERCENTILE_EXACT, out);
}

static int pct_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return get_acc(a, acc, FC_PERCENTILE_EXACT, in);
}

const weir_agg_class weir__agg_percentile_exact = {
    .name = "PERCENTILE",
    .acc_size = cd_size,
    .init = cd_init,
    .add = cd_add,
    .retract = cd_retract,
    .merge = cd_merge,
    .result = pct_result,
    .serialize = pct_serialize,
    .deserialize = pct_deserialize,
    .destroy = cd_destroy,
    .is_empty = weir__agg_rows_empty,
};

/* ---- values kept by the caller (agg/distinct.h) ---- */

bool weir__agg_is_count_distinct(const weir_agg *a)
{
    return a->cls == &weir__agg_count_distinct;
}

int weir__agg_distinct_key(const weir_agg *a, const weir_batch *b, uint32_t row, weir_buf *out,
                           bool *present)
{
    weir_buf_clear(out);
    *present = aggv_valid(b, a->input_col, row);
    if (!*present)
        return 0;
    vkind k = weir__agg_vkind(a->input_type.id);
    aggv v = {0};
    aggv_get(k, b, a->input_col, row, &v);
    if (k == VK_STR)
        return weir_buf_put(out, v.s, v.len);
    return weir_buf_put_u64(out, v.bits);
}

int weir__agg_distinct_result(const weir_agg *a, int64_t n, weir_batch *out, uint32_t col, uint32_t row)
{
    int rc = weir__agg_check_out(a, out, col, row);
    return rc ? rc : weir__agg_put_i64(out, col, row, n);
}
