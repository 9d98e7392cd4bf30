/*
 * agg/agg_percentile.c - APPROX_PERCENTILE(col, p): a DDSketch.
 *
 * Positive values x fall into bucket k = ceil(log_gamma(x)) with
 * gamma = (1 + a) / (1 - a), a = WEIR_DDS_ALPHA = 0.01; bucket k covers
 * (gamma^(k-1), gamma^k] and stands for 2 gamma^k / (gamma + 1), which is
 * within relative error a of every value in it. Negative values use a
 * second store keyed by |x|; zero (and |x| below DBL_MIN) and the two
 * infinities are counted apart. NaN is ignored like NULL.
 *
 * Guarantee: the result for percentile p over n values is within a
 * relative a (1%) of x, the value at 0-based rank floor(p * (n - 1)) of the
 * sorted input - as long as x's bucket has not been collapsed (below).
 *
 * Each store holds at most WEIR_DDS_MAX_BUCKETS = 2048 consecutive keys, a
 * dynamic range of gamma^2048 ~ 6e17 per sign. Past that the lowest keys
 * collapse into the lowest kept one (the "floor"), which only costs
 * accuracy for the smallest magnitudes. The floor depends only on the
 * smallest and largest keys seen, so merging sketches equals sketching
 * everything at once. Buckets are exact counters, so a value can be
 * retracted exactly: it is taken out of the bucket it was put in (clamped
 * to the floor if that moved up since).
 */
#include <float.h>
#include <math.h>

#include "agg/agg_internal.h"
#include "util/dec128.h"

#define N_BUCKETS WEIR_DDS_MAX_BUCKETS
#define NO_FLOOR INT32_MIN

typedef struct dstore {
    uint64_t *c; /* counts of keys [base, base + cap) */
    int32_t base;
    uint32_t cap;
    int32_t lo,
        hi;        /* smallest and largest key ever placed (clamped to floor) */
    int32_t floor; /* NO_FLOOR until the first collapse */
    uint8_t used;
    uint64_t total;
} dstore;

typedef struct dds {
    dstore pos, neg;
    uint64_t zero, pinf, ninf;
} dds;

typedef struct pct_acc {
    int64_t rows;
    int64_t n; /* values in the sketch (not NULL, not NaN) */
    dds *d;
} pct_acc;

static int32_t key_of(double x)
{
    return (int32_t)ceil(log(x) * WEIR_DDS_INV_LN_GAMMA);
}

/* 2 gamma^k / (gamma + 1), without overflowing gamma^k near DBL_MAX. */
static double value_of(int32_t k)
{
    return exp(k * WEIR_DDS_LN_GAMMA + WEIR_DDS_LN_MID);
}

/* ---- stores ---- */

static int32_t clamp_key(const dstore *s, int32_t k)
{
    return k < s->floor ? s->floor : k;
}

/* A planned change of a store's range: computed and allocated first, then
 * committed, so operations touching two stores can fail before either
 * changes. */
typedef struct fitplan {
    int64_t lo, hi, floor, base, cap;
    uint64_t *c; /* new window, or NULL to keep the current one */
} fitplan;

/*
 * Plans for the store to count keys [klo, khi] (other_floor: the floor of a
 * store being merged in): widens the range, collapses when it exceeds
 * N_BUCKETS, and allocates a new window if the current one does not fit.
 */
static int store_plan(const dstore *s, int32_t klo, int32_t khi,
                      int32_t other_floor, fitplan *p)
{
    int64_t lo = s->used ? (klo < s->lo ? klo : s->lo) : klo;
    int64_t hi = s->used ? (khi > s->hi ? khi : s->hi) : khi;
    int64_t floor = s->floor > other_floor ? s->floor : other_floor;
    if (hi - lo + 1 > N_BUCKETS && hi - N_BUCKETS + 1 > floor)
        floor = hi - N_BUCKETS + 1;
    if (lo < floor)
        lo = floor;
    p->lo = lo;
    p->hi = hi;
    p->floor = floor;
    p->c = NULL;
    if (s->c && floor == s->floor && lo >= s->base &&
        hi < (int64_t)s->base + s->cap)
        return 0;
    int64_t need = hi - lo + 1;
    int64_t cap = s->cap * 2 > 16 ? s->cap * 2 : 16;
    if (cap < need)
        cap = need;
    if (cap > N_BUCKETS)
        cap = need > N_BUCKETS ? need : N_BUCKETS;
    /* Slack on the side that grew, so a drifting stream does not rebuild
     * the window for each new key. */
    p->base = (s->c && hi >= (int64_t)s->base + s->cap) ? lo : hi - cap + 1;
    p->cap = cap;
    p->c = weir_calloc((size_t)cap, sizeof *p->c);
    return p->c ? 0 : WEIR_ENOMEM;
}

static void store_commit(dstore *s, fitplan *p)
{
    if (p->c) {
        /* Counts below the floor collapse into it. */
        for (uint32_t i = 0; s->c && i < s->cap; i++) {
            if (!s->c[i])
                continue;
            int64_t k = (int64_t)s->base + i;
            if (k < p->floor)
                k = p->floor;
            p->c[k - p->base] += s->c[i];
        }
        weir_free(s->c);
        s->c = p->c;
        s->base = (int32_t)p->base;
        s->cap = (uint32_t)p->cap;
        p->c = NULL;
    }
    s->lo = (int32_t)p->lo;
    s->hi = (int32_t)p->hi;
    s->floor = (int32_t)p->floor;
    s->used = 1;
}

static int store_fit(dstore *s, int32_t klo, int32_t khi, int32_t other_floor)
{
    fitplan p;
    int rc = store_plan(s, klo, khi, other_floor, &p);
    if (!rc)
        store_commit(s, &p);
    return rc;
}

static int store_add(dstore *s, int32_t k)
{
    int rc = store_fit(s, k, k, NO_FLOOR);
    if (rc)
        return rc;
    s->c[clamp_key(s, k) - s->base]++;
    s->total++;
    return 0;
}

static int store_retract(dstore *s, int32_t k)
{
    if (!s->used)
        return WEIR_ESTATE;
    k = clamp_key(s, k);
    if (k < s->base || k >= (int64_t)s->base + s->cap || s->c[k - s->base] == 0)
        return WEIR_ESTATE;
    s->c[k - s->base]--;
    s->total--;
    return 0;
}

/* Adds o's counts; s was fitted to o's range. */
static void store_add_counts(dstore *s, const dstore *o)
{
    for (uint32_t i = 0; o->used && i < o->cap; i++)
        if (o->c[i])
            s->c[clamp_key(s, o->base + (int32_t)i) - s->base] += o->c[i];
    s->total += o->total;
}

static void store_init(dstore *s)
{
    memset(s, 0, sizeof *s);
    s->floor = NO_FLOOR;
}

/* ---- the function ---- */

static size_t p_size(const weir_agg *a)
{
    return sizeof(pct_acc);
}
static void p_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(pct_acc));
}

static void p_destroy(const weir_agg *a, void *acc)
{
    pct_acc *x = acc;
    if (x->d) {
        weir_free(x->d->pos.c);
        weir_free(x->d->neg.c);
        weir_free(x->d);
    }
    memset(x, 0, sizeof *x);
}

static int ensure(pct_acc *x)
{
    if (x->d)
        return 0;
    x->d = weir_calloc(1, sizeof *x->d);
    if (!x->d)
        return WEIR_ENOMEM;
    store_init(&x->d->pos);
    store_init(&x->d->neg);
    return 0;
}

/* The input as a double; false for NULL and NaN, which are not counted. */
static bool input(const weir_agg *a, const weir_batch *b, uint32_t row,
                  double *x)
{
    if (!aggv_valid(b, a->input_col, row))
        return false;
    const weir_column *c = &b->cols[a->input_col];
    switch (c->type.id) {
    case WEIR_TYPE_INT:
        *x = ((const int32_t *)c->data)[row];
        return true;
    case WEIR_TYPE_DOUBLE:
        *x = ((const double *)c->data)[row];
        return *x == *x;
    case WEIR_TYPE_DECIMAL:
        *x = weir__dec_to_double(((const int64_t *)c->data)[row], c->type.scale);
        return true;
    default:
        *x = (double)((const int64_t *)c->data)[row];
        return true;
    }
}

/* Adds (dir 1) or retracts (dir -1) x. */
static int sketch_apply(dds *d, double x, int dir)
{
    uint64_t *ctr = NULL;
    if (x == INFINITY)
        ctr = &d->pinf;
    else if (x == -INFINITY)
        ctr = &d->ninf;
    else if (fabs(x) < DBL_MIN)
        ctr = &d->zero;
    if (ctr) {
        if (dir < 0 && *ctr == 0)
            return WEIR_ESTATE;
        *ctr += (uint64_t)(int64_t)dir;
        return 0;
    }
    dstore *s = x > 0 ? &d->pos : &d->neg;
    int32_t k = key_of(fabs(x));
    return dir > 0 ? store_add(s, k) : store_retract(s, k);
}

static int p_add(const weir_agg *a, void *acc, const weir_batch *b,
                 uint32_t row)
{
    pct_acc *x = acc;
    double v;
    if (input(a, b, row, &v)) {
        int rc = ensure(x);
        if (!rc)
            rc = sketch_apply(x->d, v, 1);
        if (rc)
            return rc;
        x->n++;
    }
    x->rows++;
    return 0;
}

static int p_retract(const weir_agg *a, void *acc, const weir_batch *b,
                     uint32_t row)
{
    pct_acc *x = acc;
    double v;
    if (input(a, b, row, &v)) {
        if (!x->d)
            return WEIR_ESTATE;
        int rc = sketch_apply(x->d, v, -1);
        if (rc)
            return rc;
        x->n--;
    } else if (x->rows - x->n == 0) {
        return WEIR_ESTATE;
    }
    if (--x->rows == 0)
        p_destroy(a, acc);
    return 0;
}

static int p_merge(const weir_agg *a, void *acc, const void *other)
{
    pct_acc *x = acc;
    const pct_acc *o = other;
    if (o->d) {
        int rc = ensure(x);
        if (rc)
            return rc;
        dds *d = x->d;
        const dds *od = o->d;
        fitplan pp = {0}, pn = {0};
        if (od->pos.used && (rc = store_plan(&d->pos, od->pos.lo, od->pos.hi,
                                             od->pos.floor, &pp)) != 0)
            return rc;
        if (od->neg.used && (rc = store_plan(&d->neg, od->neg.lo, od->neg.hi,
                                             od->neg.floor, &pn)) != 0) {
            weir_free(pp.c);
            return rc;
        }
        if (od->pos.used) {
            store_commit(&d->pos, &pp);
            store_add_counts(&d->pos, &od->pos);
        }
        if (od->neg.used) {
            store_commit(&d->neg, &pn);
            store_add_counts(&d->neg, &od->neg);
        }
        d->zero += od->zero;
        d->pinf += od->pinf;
        d->ninf += od->ninf;
    }
    x->rows += o->rows;
    x->n += o->n;
    return 0;
}

static double quantile(const dds *d, int64_t n, double q)
{
    double rank = q * (double)(n - 1);
    uint64_t cum = d->ninf;
    if ((double)cum > rank)
        return -INFINITY;
    const dstore *s = &d->neg;
    for (int64_t k = s->used ? s->hi : 0; s->used && k >= s->lo; k--) {
        cum += s->c[k - s->base];
        if ((double)cum > rank)
            return -value_of((int32_t)k);
    }
    cum += d->zero;
    if ((double)cum > rank)
        return 0;
    s = &d->pos;
    for (int64_t k = s->used ? s->lo : 0; s->used && k <= s->hi; k++) {
        cum += s->c[k - s->base];
        if ((double)cum > rank)
            return value_of((int32_t)k);
    }
    return INFINITY;
}

static int p_result(const weir_agg *a, const void *acc, weir_batch *out,
                    uint32_t col, uint32_t row)
{
    const pct_acc *x = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (x->n == 0)
        return weir__agg_put_null(out, col, row);
    return weir__agg_put_f64(out, col, row, quantile(x->d, x->n, a->param));
}

/* ---- serialisation ---- */

static uint64_t zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static int64_t unzz(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* u8 flags (1 used, 2 floored); if used: zigzag lo, hi, [floor]; varint
 * number of non-empty keys; then (key delta, count) ascending. */
static int store_put(weir_buf *out, const dstore *s)
{
    uint8_t flags =
        (uint8_t)((s->used ? 1 : 0) | (s->floor != NO_FLOOR ? 2 : 0));
    int rc = weir_buf_put_u8(out, flags);
    if (rc || !s->used)
        return rc;
    rc = weir_buf_put_varint(out, zz(s->lo));
    if (!rc)
        rc = weir_buf_put_varint(out, zz(s->hi));
    if (!rc && (flags & 2))
        rc = weir_buf_put_varint(out, zz(s->floor));
    uint64_t nnz = 0;
    for (uint32_t i = 0; i < s->cap; i++)
        nnz += s->c[i] != 0;
    if (!rc)
        rc = weir_buf_put_varint(out, nnz);
    int64_t prev = s->lo;
    for (uint32_t i = 0; i < s->cap && !rc; i++) {
        if (!s->c[i])
            continue;
        int64_t k = (int64_t)s->base + i;
        rc = weir_buf_put_varint(out, (uint64_t)(k - prev));
        if (!rc)
            rc = weir_buf_put_varint(out, s->c[i]);
        prev = k + 1;
    }
    return rc;
}

static int store_get(weir_cursor *in, dstore *s, uint64_t max_total)
{
    uint8_t flags;
    if (weir_cursor_get_u8(in, &flags) || flags > 3 || flags == 2)
        return WEIR_ECORRUPT;
    if (!flags)
        return 0;
    uint64_t u, nnz;
    int64_t lo, hi, floor = NO_FLOOR;
    const int64_t kmax = 1 << 20; /* far beyond any key of a finite double */
    if (weir_cursor_get_varint(in, &u))
        return WEIR_ECORRUPT;
    lo = unzz(u);
    if (weir_cursor_get_varint(in, &u))
        return WEIR_ECORRUPT;
    hi = unzz(u);
    if (lo < -kmax || hi > kmax || lo > hi || hi - lo + 1 > N_BUCKETS)
        return WEIR_ECORRUPT;
    if (flags & 2) {
        if (weir_cursor_get_varint(in, &u))
            return WEIR_ECORRUPT;
        floor = unzz(u);
        if (floor > lo || floor < -kmax)
            return WEIR_ECORRUPT;
    }
    if (weir_cursor_get_varint(in, &nnz) || nnz > (uint64_t)(hi - lo + 1))
        return WEIR_ECORRUPT;
    s->floor = (int32_t)floor;
    int rc = store_fit(s, (int32_t)lo, (int32_t)hi, (int32_t)floor);
    if (rc)
        return rc;
    if (s->lo != lo || s->hi != hi || s->floor != floor)
        return WEIR_ECORRUPT;
    int64_t next = lo;
    for (uint64_t i = 0; i < nnz; i++) {
        uint64_t d, c;
        if (weir_cursor_get_varint(in, &d) || next > hi ||
            d > (uint64_t)(hi - next) || weir_cursor_get_varint(in, &c) ||
            c == 0 || c > max_total - s->total)
            return WEIR_ECORRUPT;
        int64_t k = next + (int64_t)d;
        s->c[k - s->base] = c;
        s->total += c;
        next = k + 1;
    }
    return 0;
}

static int p_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const pct_acc *x = acc;
    int rc = weir__agg_put_header(out, FC_PERCENTILE, -1, x->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)x->n);
    if (!rc)
        rc = weir_buf_put_f64(out, WEIR_DDS_ALPHA);
    if (rc || x->n == 0)
        return rc;
    const dds *d = x->d;
    rc = weir_buf_put_varint(out, d->zero);
    if (!rc)
        rc = weir_buf_put_varint(out, d->pinf);
    if (!rc)
        rc = weir_buf_put_varint(out, d->ninf);
    if (!rc)
        rc = store_put(out, &d->pos);
    return rc ? rc : store_put(out, &d->neg);
}

static int p_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    pct_acc *x = acc;
    p_init(a, acc);
    int64_t rows;
    uint64_t n;
    double alpha;
    if (weir__agg_get_header(in, FC_PERCENTILE, -1, &rows) ||
        weir_cursor_get_varint(in, &n) || n > (uint64_t)rows ||
        weir_cursor_get_f64(in, &alpha) || alpha != WEIR_DDS_ALPHA)
        return WEIR_ECORRUPT;
    int rc;
    if (n > 0) {
        if ((rc = ensure(x)) != 0)
            return rc;
        dds *d = x->d;
        rc = WEIR_ECORRUPT;
        if (weir_cursor_get_varint(in, &d->zero) ||
            weir_cursor_get_varint(in, &d->pinf) ||
            weir_cursor_get_varint(in, &d->ninf) || d->zero > n ||
            d->pinf > n - d->zero || d->ninf > n - d->zero - d->pinf)
            goto fail;
        uint64_t left = n - d->zero - d->pinf - d->ninf;
        if ((rc = store_get(in, &d->pos, left)) != 0 ||
            (rc = store_get(in, &d->neg, left - d->pos.total)) != 0)
            goto fail;
        if (d->pos.total + d->neg.total != left) {
            rc = WEIR_ECORRUPT;
            goto fail;
        }
    }
    x->rows = rows;
    x->n = (int64_t)n;
    return 0;
fail:
    p_destroy(a, acc);
    return rc;
}

const weir_agg_class weir__agg_percentile = {
    .name = "APPROX_PERCENTILE",
    .acc_size = p_size,
    .init = p_init,
    .add = p_add,
    .retract = p_retract,
    .merge = p_merge,
    .result = p_result,
    .serialize = p_serialize,
    .deserialize = p_deserialize,
    .destroy = p_destroy,
    .is_empty = weir__agg_rows_empty,
};
