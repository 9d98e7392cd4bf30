/*
 * agg/agg_distinct.c - COUNT(DISTINCT col), exact, and COLLECT(col): the
 * multiset of the non-NULL values seen, each with its number of live
 * occurrences, so a retraction removes exactly one occurrence and the
 * count of distinct values drops when the last one goes. Values are
 * compared in canonical form: INT and BIGINT numerically, doubles with
 * -0.0 equal to 0.0 and all NaNs equal, strings bytewise. COLLECT's result
 * is that multiset itself, a MULTISET value (record/nested.h), as Flink's
 * COLLECT: {} when every value was NULL. PERCENTILE(col, p) keeps the same
 * multiset and interpolates the exact percentile from it (below), also at
 * an ARRAY of percentages and with a frequency per row.
 */
#include <math.h>
#include <stdlib.h>

#include "agg/agg_internal.h"
#include "util/dec128.h"
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

static bool is_freq(const weir_agg *a);

/* How the multiset holds values: as the input's, but PERCENTILE with a
 * frequency (input ROW(value, frequency)) keeps the values as DOUBLEs. */
static vkind acc_kind(const weir_agg *a)
{
    return is_freq(a) ? VK_F64 : weir__agg_vkind(a->input_type);
}

static int ensure_map(const weir_agg *a, cd_acc *c)
{
    if (c->m)
        return 0;
    c->m = weir_malloc(sizeof *c->m);
    if (!c->m)
        return WEIR_ENOMEM;
    weir__vmap_init(c->m, acc_kind(a));
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
        aggv_get(weir__agg_vkind(a->input_type), b, a->input_col, row, &v);
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
    int rc = weir__agg_put_header(out, fc, acc_kind(a), c->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)c->n);
    return rc ? rc : weir__vmap_put_counts(out, c->m);
}

static int cd_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return put_acc(a, acc, FC_COUNT_DISTINCT, out);
}

/* The values may count more than the rows only with a frequency per row. */
static int get_acc(const weir_agg *a, cd_acc *c, uint8_t fc, weir_cursor *in)
{
    cd_init(a, c);
    int64_t rows, total;
    uint64_t n;
    if (weir__agg_get_header(in, fc, acc_kind(a), &rows) || weir_cursor_get_varint(in, &n) ||
        n > (is_freq(a) ? (uint64_t)INT64_MAX : (uint64_t)rows))
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
    if (a->input_type.id == WEIR_TYPE_DECIMAL && a->input_type.scale)
        return weir__dec_to_double(i, (int)a->input_type.scale);
    return (double)i;
}

/* The value at position pos (0-based, counting repeats) of the n values
 * of the sorted entries e[0..m), interpolated between the two nearest. */
static double pct_at(const pct_ent *e, uint32_t m, int64_t n, double p)
{
    double pos = p * (double)(n - 1);
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
    return lo == hi || vlo == vhi ? vlo : ((double)hi - pos) * vlo + (pos - (double)lo) * vhi;
}

/* The entries of c in ascending order (*out, weir_free), *m of them, and
 * the number of values *n. */
static int pct_sorted(const weir_agg *a, const cd_acc *c, pct_ent **out, uint32_t *m, int64_t *n)
{
    pct_ent *e = weir_malloc(sizeof *e * c->m->n);
    if (!e)
        return WEIR_ENOMEM;
    bool dbl = c->m->kind == VK_F64;
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->m->top; i++) {
        if (!vmap_live(c->m, i))
            continue;
        aggv v;
        vmap_key(c->m, i, &v);
        e[k++] = (pct_ent){dbl ? aggv_f64(&v) : pct_value(a, &v), c->m->e[i].count};
    }
    if (k > 1)
        qsort(e, k, sizeof *e, cmp_pct);
    *n = 0;
    for (uint32_t i = 0; i < k; i++)
        *n += e[i].count;
    *out = e;
    *m = k;
    return 0;
}

static int pct_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const cd_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (!c->m || !c->m->n)
        return weir__agg_put_null(out, col, row);
    pct_ent *e;
    uint32_t m;
    int64_t n;
    if ((rc = pct_sorted(a, c, &e, &m, &n)))
        return rc;
    double r = pct_at(e, m, n, a->param);
    weir_free(e);
    return weir__agg_put_f64(out, col, row, r);
}

/* PERCENTILE(x, ARRAY[p, ...]): ARRAY<DOUBLE>, one element per percentage. */
static int pcts_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const cd_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (!a->params || !a->n_params)
        return WEIR_EINVAL; /* the caller did not set the percentages */
    if (!c->m || !c->m->n)
        return weir__agg_put_null(out, col, row);
    pct_ent *e;
    uint32_t m;
    int64_t n;
    if ((rc = pct_sorted(a, c, &e, &m, &n)))
        return rc;
    weir_type dt = weir_type_make(WEIR_TYPE_DOUBLE, true);
    weir_buf b;
    weir_buf_init(&b);
    rc = weir_nv_put_count(&b, a->n_params);
    for (uint32_t i = 0; !rc && i < a->n_params; i++) {
        double r = pct_at(e, m, n, a->params[i]);
        rc = weir_nv_put(&b, dt, &r, 8);
    }
    weir_free(e);
    if (!rc)
        rc = b.len > UINT32_MAX ? WEIR_ENOMEM : weir__agg_put_str(out, col, row, (const char *)b.data, (uint32_t)b.len);
    weir_buf_fini(&b);
    return rc;
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

const weir_agg_class weir__agg_percentiles = {
    .name = "PERCENTILES",
    .acc_size = cd_size,
    .init = cd_init,
    .add = cd_add,
    .retract = cd_retract,
    .merge = cd_merge,
    .result = pcts_result,
    .serialize = pct_serialize,
    .deserialize = pct_deserialize,
    .destroy = cd_destroy,
    .is_empty = weir__agg_rows_empty,
};

/*
 * PERCENTILE(x, p, frequency): the input is ROW(x, frequency); x counts
 * frequency times (Flink 2, as Spark and Hive). A row whose x or frequency
 * is NULL, or whose frequency is 0, adds no value; a negative frequency
 * fails the row. The values are kept as DOUBLEs; n counts every occurrence.
 */
static int freq_get(const weir_agg *a, const weir_batch *b, uint32_t row, aggv *v, int64_t *times)
{
    *times = 0;
    if (!aggv_valid(b, a->input_col, row))
        return 0;
    const weir_nested_type *nt = weir_type_nested(a->input_type);
    weir_strref r = ((const weir_strref *)b->cols[a->input_col].data)[row];
    weir_nv_iter it;
    if (!nt || nt->n != 2 || weir_nv_open(a->input_type, b->heap + r.off, r.len, &it) != 2)
        return WEIR_EINVAL;
    bool null[2];
    const uint8_t *val[2];
    uint32_t len[2];
    for (int i = 0; i < 2; i++)
        if (!weir_nv_next(&it, nt->elems[i], &null[i], &val[i], &len[i]))
            return WEIR_EINVAL;
    if (null[0] || null[1])
        return 0;
    int64_t f;
    if (nt->elems[1].id == WEIR_TYPE_INT) {
        int32_t f32;
        memcpy(&f32, val[1], 4);
        f = f32;
    } else {
        memcpy(&f, val[1], 8);
    }
    if (f < 0)
        return WEIR_EINVAL; /* the operator reports a->label */
    double d;
    switch (nt->elems[0].id) {
    case WEIR_TYPE_INT: {
        int32_t x;
        memcpy(&x, val[0], 4);
        d = x;
        break;
    }
    case WEIR_TYPE_DOUBLE:
        memcpy(&d, val[0], 8);
        break;
    default: { /* BIGINT, DECIMAL(p <= 18) */
        int64_t x;
        memcpy(&x, val[0], 8);
        d = nt->elems[0].id == WEIR_TYPE_DECIMAL && nt->elems[0].scale ? weir__dec_to_double(x, nt->elems[0].scale)
                                                                        : (double)x;
    }
    }
    v->bits = weir__agg_canon_f64(d);
    v->s = NULL;
    v->len = 0;
    *times = f;
    return 0;
}

static int freq_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    cd_acc *c = acc;
    aggv v;
    int64_t f;
    int rc = freq_get(a, b, row, &v, &f);
    if (rc)
        return rc;
    if (f > INT64_MAX - c->n)
        return WEIR_EUNSUPPORTED; /* more than 2^63 values */
    if (f && (rc = cd_put(a, c, &v, f)))
        return rc;
    c->n += f;
    c->rows++;
    return 0;
}

static int freq_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    cd_acc *c = acc;
    aggv v;
    int64_t f;
    int rc = freq_get(a, b, row, &v, &f);
    if (rc)
        return rc;
    if (c->rows == 0)
        return WEIR_ESTATE;
    if (f) {
        int64_t i = c->m ? weir__vmap_find(c->m, &v, weir__agg_hash(c->m->kind, &v)) : -1;
        if (i < 0 || c->m->e[i].count < f)
            return WEIR_ESTATE;
        if ((c->m->e[i].count -= f) == 0)
            weir__vmap_remove(c->m, (uint32_t)i);
        c->n -= f;
    }
    if (--c->rows == 0)
        cd_destroy(a, acc);
    return 0;
}

/* As COLLECT's form, code PERCENTILE_FREQ: the frequencies' sum may exceed the rows. */
static int freq_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    return put_acc(a, acc, FC_PERCENTILE_FREQ, out);
}

static int freq_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    return get_acc(a, acc, FC_PERCENTILE_FREQ, in);
}

const weir_agg_class weir__agg_percentile_freq = {
    .name = "PERCENTILE_FREQ",
    .acc_size = cd_size,
    .init = cd_init,
    .add = freq_add,
    .retract = freq_retract,
    .merge = cd_merge,
    .result = pct_result,
    .serialize = freq_serialize,
    .deserialize = freq_deserialize,
    .destroy = cd_destroy,
    .is_empty = weir__agg_rows_empty,
};

const weir_agg_class weir__agg_percentiles_freq = {
    .name = "PERCENTILES_FREQ",
    .acc_size = cd_size,
    .init = cd_init,
    .add = freq_add,
    .retract = freq_retract,
    .merge = cd_merge,
    .result = pcts_result,
    .serialize = freq_serialize,
    .deserialize = freq_deserialize,
    .destroy = cd_destroy,
    .is_empty = weir__agg_rows_empty,
};

static bool is_freq(const weir_agg *a)
{
    return a->cls == &weir__agg_percentile_freq || a->cls == &weir__agg_percentiles_freq;
}

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
    const weir_column *c = &b->cols[a->input_col];
    /* a BIGINT, the common case: its int64, as aggv_get reads it, without the kind's lookup and switch */
    if (c->type.id == WEIR_TYPE_BIGINT && a->input_type.id == WEIR_TYPE_BIGINT)
        return weir_buf_put_u64(out, (uint64_t)((const int64_t *)c->data)[row]);
    vkind k = weir__agg_vkind(a->input_type);
    aggv v = {0};
    aggv_get(k, b, a->input_col, row, &v);
    if (vk_bytes(k))
        return weir_buf_put(out, v.s, v.len);
    return weir_buf_put_u64(out, v.bits);
}

int weir__agg_distinct_result(const weir_agg *a, int64_t n, weir_batch *out, uint32_t col, uint32_t row)
{
    int rc = weir__agg_check_out(a, out, col, row);
    return rc ? rc : weir__agg_put_i64(out, col, row, n);
}
