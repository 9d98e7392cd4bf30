/*
 * tests/test_window_diff.c - randomized differential test of the window
 * engine against a deliberately simple reference model written here from
 * DESIGN.md section 1: one record at a time, the watermark advanced after
 * each record, every window kept as a plain record of its counts, no
 * slicing, no pooling, linear searches everywhere.
 *
 * Each random stream (out-of-order timestamps, several keys, NULL values,
 * occasional retractions) runs through every window kind and mode, and the
 * engine is driven four ways: one record per batch; batches cut only where
 * the watermark moves (the columnar path); generic aggregates instead of
 * the typed fast path; and per-window state instead of slices. All must
 * equal the reference, row for row per window, and late for late.
 *
 * A second test runs random streams through the runtime (a one-split
 * source, the keyed exchange, the window operator, a sink) at parallelism
 * 1, 2 and 4 and batch sizes 1, 7 and 1024: every run must equal the
 * reference, whatever the grouping into batches and subtasks.
 *
 * WEIR_SEED=<n> replays a run; WEIR_WINDOW_STREAMS=<n> (engine) and
 * WEIR_WINDOW_JOB_STREAMS=<n> (runtime, default 30) set the number of
 * streams (default 1500); WEIR_WINDOW_STREAM=<i> runs only stream i.
 */
#include <criterion/criterion.h>
#include <pthread.h>

#include "support/harness.h"
#include "window_harness.h"

/* ---------------- random ---------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t rnd_range(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

/* ---------------- the configuration and the stream ---------------- */

typedef struct cfg {
    weir_window_assigner a;
    int64_t L, delay;
    weir_window_accumulation m;
    weir_trigger_kind trig;
    uint64_t count;
    bool purging;
} cfg;

typedef struct rec {
    int64_t key, ts, v;
    bool vnull;
    int kind;
    bool retracted;
} rec;

/* A result row as both sides report it. */
typedef struct orow {
    int64_t key, ws, we, ts, cnt, sum;
    bool sumnull;
    int kind;
    int seq;
} orow;

typedef struct olate {
    int64_t key, ts, v, wm, lateness;
} olate;

typedef struct out {
    orow *rows;
    int n, cap;
    olate *late;
    int n_late, cap_late;
} out;

static void out_row(out *o, int64_t key, int64_t ws, int64_t we, int64_t ts, int kind, int64_t cnt, int64_t sum,
                    bool sumnull)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->rows = realloc(o->rows, (size_t)o->cap * sizeof *o->rows);
    }
    o->rows[o->n] = (orow){key, ws, we, ts, cnt, sum, sumnull, kind, o->n};
    o->n++;
}

static void out_late(out *o, int64_t key, int64_t ts, int64_t v, int64_t wm)
{
    if (o->n_late == o->cap_late) {
        o->cap_late = o->cap_late ? o->cap_late * 2 : 16;
        o->late = realloc(o->late, (size_t)o->cap_late * sizeof *o->late);
    }
    o->late[o->n_late++] = (olate){key, ts, v, wm, wm - ts};
}

static void out_free(out *o)
{
    free(o->rows);
    free(o->late);
    memset(o, 0, sizeof *o);
}

/* ---------------- the reference model ---------------- */

static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

typedef struct racc {
    int64_t cnt, sum, nn;
} racc;

typedef struct rretr {
    int64_t s, e;
    racc prev;
} rretr;

typedef struct rwin {
    int64_t key, start, end, maxts;
    bool live;
    racc full, delta;    /* everything / since the last firing */
    uint64_t since;      /* records since the last firing (count trigger) */
    bool dirty;
    bool has_prev;
    racc prev;
    rretr retr[64];
    int n_retr;
    int64_t order;       /* creation order, for sessions with equal starts */
} rwin;

typedef struct ref {
    cfg g;
    rwin *w;
    int n, cap;
    int64_t W;
    int64_t order;
    out *o;
} ref;

static void acc_add(racc *a, const rec *r, int sign)
{
    a->cnt += sign;
    if (!r->vnull) {
        a->sum += sign * r->v;
        a->nn += sign;
    }
}

static void acc_merge(racc *a, const racc *b)
{
    a->cnt += b->cnt;
    a->sum += b->sum;
    a->nn += b->nn;
}

static void ref_emit(ref *R, const rwin *w, int64_t s, int64_t e, int kind, const racc *a)
{
    bool global = R->g.a.kind == WEIR_WINDOW_GLOBAL;
    out_row(R->o, w->key, global ? 0 : s, global ? 0 : e, global ? w->maxts : e - 1, kind, a->cnt, a->sum,
            a->nn == 0);
}

static bool ref_purging(const ref *R) { return R->g.m == WEIR_ACC_DISCARDING || R->g.purging; }

/* A firing: emits what is new since the window's last firing. */
static void ref_fire(ref *R, rwin *w)
{
    if (!w->dirty && !w->n_retr)
        return;
    w->dirty = false;
    w->since = 0;
    for (int i = 0; i < w->n_retr; i++) {
        out_row(R->o, w->key, w->retr[i].s, w->retr[i].e, w->retr[i].e - 1, WEIR_ROW_DELETE, w->retr[i].prev.cnt,
                w->retr[i].prev.sum, w->retr[i].prev.nn == 0);
    }
    w->n_retr = 0;
    racc *a = ref_purging(R) ? &w->delta : &w->full;
    if (a->cnt == 0) {
        if (w->has_prev) {
            ref_emit(R, w, w->start, w->end, WEIR_ROW_DELETE, &w->prev);
            w->has_prev = false;
        }
        return;
    }
    if (R->g.m == WEIR_ACC_RETRACTING) {
        if (w->has_prev) {
            ref_emit(R, w, w->start, w->end, WEIR_ROW_UPDATE_BEFORE, &w->prev);
            ref_emit(R, w, w->start, w->end, WEIR_ROW_UPDATE_AFTER, a);
        } else {
            ref_emit(R, w, w->start, w->end, WEIR_ROW_INSERT, a);
        }
        w->prev = *a;
        w->has_prev = true;
    } else {
        ref_emit(R, w, w->start, w->end, WEIR_ROW_INSERT, a);
    }
    w->delta = (racc){0, 0, 0};
}

static rwin *ref_new(ref *R, int64_t key, int64_t s, int64_t e)
{
    if (R->n == R->cap) {
        R->cap = R->cap ? R->cap * 2 : 64;
        R->w = realloc(R->w, (size_t)R->cap * sizeof *R->w);
    }
    rwin *w = &R->w[R->n++];
    memset(w, 0, sizeof *w);
    w->key = key;
    w->start = s;
    w->end = e;
    w->maxts = INT64_MIN;
    w->live = true;
    w->order = R->order++;
    return w;
}

static rwin *ref_find(ref *R, int64_t key, int64_t s, int64_t e)
{
    for (int i = 0; i < R->n; i++)
        if (R->w[i].live && R->w[i].key == key && R->w[i].start == s && R->w[i].end == e)
            return &R->w[i];
    return NULL;
}

/* The record joined window w; w->end <= W means a late firing at once. */
static void ref_added(ref *R, rwin *w, const rec *r)
{
    int sign = r->kind == WEIR_ROW_INSERT || r->kind == WEIR_ROW_UPDATE_AFTER ? 1 : -1;
    acc_add(&w->full, r, sign);
    acc_add(&w->delta, r, sign);
    if (r->ts > w->maxts)
        w->maxts = r->ts;
    w->dirty = true;
    w->since++;
    if (R->g.trig == WEIR_TRIGGER_COUNT) {
        if (w->since >= R->g.count)
            ref_fire(R, w);
        if (ref_purging(R) && R->g.m != WEIR_ACC_DISCARDING && w->since == 0)
            w->full = (racc){0, 0, 0};
    } else if (w->end <= R->W) {
        ref_fire(R, w);
    }
}

static void ref_fixed(ref *R, const rec *r)
{
    const weir_window_assigner *a = &R->g.a;
    int64_t ws[64], we[64];
    int nw = 0;
    if (a->kind == WEIR_WINDOW_TUMBLING) {
        ws[0] = fdiv(r->ts - a->offset_ms, a->size_ms) * a->size_ms + a->offset_ms;
        we[0] = ws[0] + a->size_ms;
        nw = 1;
    } else if (a->kind == WEIR_WINDOW_HOPPING) {
        int64_t last = fdiv(r->ts - a->offset_ms, a->slide_ms) * a->slide_ms + a->offset_ms;
        int64_t tmp[64];
        int k = 0;
        for (int64_t s = last; s > r->ts - a->size_ms; s -= a->slide_ms)
            tmp[k++] = s;
        for (int i = k - 1; i >= 0; i--) {
            ws[nw] = tmp[i];
            we[nw++] = tmp[i] + a->size_ms;
        }
    } else {
        int64_t base = fdiv(r->ts - a->offset_ms, a->size_ms) * a->size_ms + a->offset_ms;
        for (int64_t e = base + a->slide_ms; e <= base + a->size_ms; e += a->slide_ms)
            if (e > r->ts) {
                ws[nw] = base;
                we[nw++] = e;
            }
    }
    bool accepted = false;
    for (int i = 0; i < nw; i++) {
        if (we[i] + R->g.L <= R->W)
            continue;
        accepted = true;
        rwin *w = ref_find(R, r->key, ws[i], we[i]);
        if (!w)
            w = ref_new(R, r->key, ws[i], we[i]);
        ref_added(R, w, r);
    }
    if (!accepted)
        out_late(R->o, r->key, r->ts, r->vnull ? 0 : r->v, R->W);
}

static int64_t ref_cap(const ref *R, int64_t start, int64_t end)
{
    int64_t M = R->g.a.max_length_ms;
    return M > 0 && end > start + M ? start + M : end;
}

static bool ref_fits(const ref *R, int64_t start, int64_t maxts)
{
    return R->g.a.max_length_ms <= 0 || maxts < start + R->g.a.max_length_ms;
}

/* Live sessions of key, ordered by (start, order). */
static int ref_sessions(ref *R, int64_t key, rwin **v)
{
    int n = 0;
    for (int i = 0; i < R->n; i++)
        if (R->w[i].live && R->w[i].key == key)
            v[n++] = &R->w[i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (v[j - 1]->start > v[j]->start ||
                                  (v[j - 1]->start == v[j]->start && v[j - 1]->order > v[j]->order));
             j--) {
            rwin *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n;
}

static void ref_bounds(rwin *w, int64_t s, int64_t e)
{
    if (w->start == s && w->end == e)
        return;
    if (w->has_prev) {
        w->retr[w->n_retr++] = (rretr){w->start, w->end, w->prev};
        w->has_prev = false;
    }
    w->start = s;
    w->end = e;
}

static void ref_session(ref *R, const rec *r)
{
    int64_t gap = R->g.a.gap_ms;
    int64_t ce = ref_cap(R, r->ts, r->ts + gap);
    rwin *v[4096];
    int n = ref_sessions(R, r->key, v);
    rwin *t[4096];
    int nt = 0;
    int64_t us = r->ts, um = r->ts, ue = r->ts + gap;
    for (int i = 0; i < n; i++)
        if (v[i]->start <= ce && v[i]->end >= r->ts) {
            t[nt++] = v[i];
            if (v[i]->start < us)
                us = v[i]->start;
            if (v[i]->maxts > um)
                um = v[i]->maxts;
            if (v[i]->end > ue)
                ue = v[i]->end;
        }
    rwin *dst = NULL;
    if (nt && ref_fits(R, us, um)) {
        dst = t[0];
        for (int i = 1; i < nt; i++) {
            rwin *x = t[i];
            if (x->has_prev)
                dst->retr[dst->n_retr++] = (rretr){x->start, x->end, x->prev};
            for (int j = 0; j < x->n_retr; j++)
                dst->retr[dst->n_retr++] = x->retr[j];
            acc_merge(&dst->full, &x->full);
            acc_merge(&dst->delta, &x->delta);
            dst->dirty |= x->dirty;
            dst->since += x->since;
            if (x->maxts > dst->maxts)
                dst->maxts = x->maxts;
            x->live = false;
        }
        ref_bounds(dst, us, ref_cap(R, us, ue));
    } else if (nt) {
        for (int i = 0; i < nt && !dst; i++) {
            int64_t s = t[i]->start < r->ts ? t[i]->start : r->ts;
            int64_t m = t[i]->maxts > r->ts ? t[i]->maxts : r->ts;
            if (ref_fits(R, s, m)) {
                dst = t[i];
                int64_t e = t[i]->end > r->ts + gap ? t[i]->end : r->ts + gap;
                ref_bounds(dst, s, ref_cap(R, s, e));
            }
        }
    }
    if (!dst) {
        if (ce + R->g.L <= R->W) {
            out_late(R->o, r->key, r->ts, r->vnull ? 0 : r->v, R->W);
            return;
        }
        dst = ref_new(R, r->key, r->ts, ce);
    }
    ref_added(R, dst, r);
}

static void ref_global(ref *R, const rec *r)
{
    rwin *w = NULL;
    for (int i = 0; i < R->n && !w; i++)
        if (R->w[i].live && R->w[i].key == r->key)
            w = &R->w[i];
    if (!w)
        w = ref_new(R, r->key, INT64_MIN, INT64_MAX);
    ref_added(R, w, r);
}

static void ref_advance(ref *R, int64_t W2)
{
    if (W2 <= R->W)
        return;
    int64_t W = R->W;
    R->W = W2;
    for (int i = 0; i < R->n; i++) {
        rwin *w = &R->w[i];
        if (!w->live)
            continue;
        if (R->g.trig == WEIR_TRIGGER_EVENT_TIME && w->end > W && w->end <= W2)
            ref_fire(R, w);
        int64_t clean = w->end > INT64_MAX - R->g.L ? INT64_MAX : w->end + R->g.L;
        if (clean <= W2)
            w->live = false;
    }
}

static void ref_run(const cfg *g, const rec *recs, int n, out *o)
{
    ref R = {.g = *g, .W = INT64_MIN, .o = o};
    int64_t maxts = INT64_MIN;
    for (int i = 0; i < n; i++) {
        if (g->a.kind == WEIR_WINDOW_SESSION)
            ref_session(&R, &recs[i]);
        else if (g->a.kind == WEIR_WINDOW_GLOBAL)
            ref_global(&R, &recs[i]);
        else
            ref_fixed(&R, &recs[i]);
        if (recs[i].ts > maxts)
            maxts = recs[i].ts;
        ref_advance(&R, maxts - g->delay);
    }
    ref_advance(&R, INT64_MAX);
    free(R.w);
}

/* ---------------- the engine, driven four ways ---------------- */

static size_t gc_size(const weir_agg *a) { (void)a; return 24; }
static void gc_init(const weir_agg *a, void *acc) { (void)a; memset(acc, 0, 24); }
static int gsum_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    int64_t *x = acc;
    if (!weir_batch_is_null(b, (uint32_t)a->input_col, row)) {
        x[0] += WEIR_COL_I64(b, a->input_col)[row];
        x[1]++;
    }
    return 0;
}
static int gsum_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    int64_t *x = acc;
    if (!weir_batch_is_null(b, (uint32_t)a->input_col, row)) {
        x[0] -= WEIR_COL_I64(b, a->input_col)[row];
        x[1]--;
    }
    return 0;
}
static int gc_merge(const weir_agg *a, void *acc, const void *other)
{
    (void)a;
    int64_t *x = acc;
    const int64_t *y = other;
    x[0] += y[0];
    x[1] += y[1];
    return 0;
}
static int gsum_result(const weir_agg *a, const void *acc, weir_batch *ob, uint32_t col, uint32_t row)
{
    (void)a;
    const int64_t *x = acc;
    if (!x[1])
        weir_batch_set_null(ob, col, row);
    else
        WEIR_COL_I64(ob, col)[row] = x[0];
    return 0;
}
static int gcnt_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    (void)a, (void)b, (void)row;
    ((int64_t *)acc)[0]++;
    return 0;
}
static int gcnt_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    (void)a, (void)b, (void)row;
    ((int64_t *)acc)[0]--;
    return 0;
}
static int gcnt_result(const weir_agg *a, const void *acc, weir_batch *ob, uint32_t col, uint32_t row)
{
    (void)a;
    WEIR_COL_I64(ob, col)[row] = ((const int64_t *)acc)[0];
    return 0;
}
/* Serialised as raw bytes (the engine length-prefixes them). */
static const weir_agg_class gsum_cls = {.name = "GSUM", .acc_size = gc_size, .init = gc_init, .add = gsum_add,
                                        .retract = gsum_retract, .merge = gc_merge, .result = gsum_result};
static const weir_agg_class gcnt_cls = {.name = "GCOUNT", .acc_size = gc_size, .init = gc_init, .add = gcnt_add,
                                        .retract = gcnt_retract, .merge = gc_merge, .result = gcnt_result};

enum { DRIVE_ROW, DRIVE_BATCH, DRIVE_GENERIC, DRIVE_PERWINDOW, N_DRIVES };
static const char *drive_name[] = {"row-at-a-time", "batched", "generic aggregates", "per-window state"};

static void spec_of(const cfg *g, int drive, weir_window_spec *s, weir_agg *aggs)
{
    weir_window_spec_init(s);
    s->assigner = g->a;
    s->allowed_lateness_ms = g->L;
    s->accumulation = g->m;
    s->trigger.kind = g->trig;
    s->trigger.count = g->count;
    s->trigger.purging = g->purging;
    s->key.n = 1;
    s->key.cols[0] = 0;
    if (drive == DRIVE_GENERIC) {
        aggs[0] = (weir_agg){.cls = &gcnt_cls, .input_col = -1};
        aggs[1] = (weir_agg){.cls = &gsum_cls, .input_col = 1};
    } else {
        aggs[0] = h_count_star();
        aggs[1] = h_sum(1);
    }
    aggs[0].result_type = weir_type_make(WEIR_TYPE_BIGINT, false);
    aggs[1].result_type = weir_type_make(WEIR_TYPE_BIGINT, true);
    s->aggs = aggs;
    s->n_aggs = 2;
    if (drive == DRIVE_PERWINDOW && g->trig == WEIR_TRIGGER_EVENT_TIME)
        s->trigger.early_count = UINT64_MAX; /* never reached: same results, no slices */
}

static void engine_run(const cfg *g, int drive, const rec *recs, int n, out *o)
{
    weir_window_spec s;
    weir_agg aggs[2];
    spec_of(g, drive, &s, aggs);
    harness h;
    cr_assert_eq(h_init(&h, &s, g->delay, drive == DRIVE_BATCH ? 64 : 7), 0);
    uint32_t cap = drive == DRIVE_ROW ? 1 : 256;
    weir_batch *b = weir_batch_create(h.in, cap);
    int64_t W = INT64_MIN, maxts = INT64_MIN;
    for (int i = 0; i < n; i++) {
        int r = weir_batch_append_row(b);
        WEIR_COL_I64(b, 0)[r] = recs[i].key;
        if (recs[i].vnull)
            weir_batch_set_null(b, 1, (uint32_t)r);
        else
            WEIR_COL_I64(b, 1)[r] = recs[i].v;
        b->ts[r] = recs[i].ts;
        b->kind[r] = (uint8_t)recs[i].kind;
        if (recs[i].ts > maxts)
            maxts = recs[i].ts;
        int64_t W2 = maxts - g->delay;
        /* A batch ends where the watermark moves: the watermark takes effect after its record. */
        if (W2 > W || weir_batch_full(b) || i == n - 1) {
            cr_assert_eq(weir__wcore_process(h.core, b, W, 0), 0);
            weir_batch_reset(b);
            if (W2 > W) {
                W = W2;
                cr_assert_eq(weir__wcore_advance(h.core, W, 0), 0);
            }
            cr_assert_eq(weir__wcore_flush(h.core), 0);
        }
    }
    cr_assert_eq(h_end(&h), 0);
    weir_batch_destroy(b);
    for (size_t i = 0; i < h.n; i++) {
        const hrow *x = &h.rows[i];
        out_row(o, x->key, x->global ? 0 : x->ws, x->global ? 0 : x->we, x->ts, x->kind, x->v[0], x->null[1] ? 0 : x->v[1],
                x->null[1]);
    }
    for (size_t i = 0; i < h.n_late; i++)
        out_late(o, h.lates[i].key, h.lates[i].ts, h.lates[i].v, h.lates[i].wm);
    cr_assert_eq(h.late_counter, h.n_late);
    weir__wcore_stats st;
    weir__wcore_stats_get(h.core, &st);
    cr_assert_eq(st.nodes, 0, "all window state released at the end of input");
    h_fini(&h);
}

/* ---------------- comparison ---------------- */

static int cmp_row(const void *pa, const void *pb)
{
    const orow *a = pa, *b = pb;
#define C(f)            \
    if (a->f != b->f)   \
        return a->f < b->f ? -1 : 1;
    C(key) C(ws) C(we) C(seq)
#undef C
    return 0;
}

static int cmp_late(const void *pa, const void *pb)
{
    const olate *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return a->wm < b->wm ? -1 : a->wm > b->wm;
}

static void describe(const cfg *g, char *buf, size_t cap)
{
    static const char *kinds[] = {"tumbling", "hopping", "cumulating", "session", "global"};
    snprintf(buf, cap,
             "%s size=%lld slide=%lld offset=%lld gap=%lld maxlen=%lld L=%lld delay=%lld mode=%d trigger=%d count=%llu purging=%d",
             kinds[g->a.kind], (long long)g->a.size_ms, (long long)g->a.slide_ms, (long long)g->a.offset_ms,
             (long long)g->a.gap_ms, (long long)g->a.max_length_ms, (long long)g->L, (long long)g->delay, (int)g->m,
             (int)g->trig, (unsigned long long)g->count, g->purging);
}

static void dump_stream(const rec *recs, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(stderr, "  (%lld, %lld, %s%lld)%s\n", (long long)recs[i].key, (long long)recs[i].ts,
                recs[i].vnull ? "NULL:" : "", (long long)recs[i].v, recs[i].kind ? " retract" : "");
}

static void compare(const cfg *g, const rec *recs, int n, out *want, out *got, const char *how, uint64_t seed,
                    int stream)
{
    if (want->n)
        qsort(want->rows, (size_t)want->n, sizeof *want->rows, cmp_row);
    if (got->n)
        qsort(got->rows, (size_t)got->n, sizeof *got->rows, cmp_row);
    if (want->n_late)
        qsort(want->late, (size_t)want->n_late, sizeof *want->late, cmp_late);
    if (got->n_late)
        qsort(got->late, (size_t)got->n_late, sizeof *got->late, cmp_late);
    char d[256];
    describe(g, d, sizeof d);
    bool ok = want->n == got->n && want->n_late == got->n_late;
    int bad = -1;
    for (int i = 0; ok && i < want->n; i++) {
        const orow *a = &want->rows[i], *b = &got->rows[i];
        if (a->key != b->key || a->ws != b->ws || a->we != b->we || a->kind != b->kind || a->cnt != b->cnt ||
            a->sumnull != b->sumnull || (!a->sumnull && a->sum != b->sum) || a->ts != b->ts) {
            ok = false;
            bad = i;
        }
    }
    for (int i = 0; ok && i < want->n_late; i++)
        if (cmp_late(&want->late[i], &got->late[i]) || want->late[i].lateness != got->late[i].lateness)
            ok = false;
    if (!ok) {
        fprintf(stderr, "MISMATCH (%s) seed=%llu stream=%d: %s\n", how, (unsigned long long)seed, stream, d);
        dump_stream(recs, n);
        fprintf(stderr, "want %d rows, %d late; got %d rows, %d late\n", want->n, want->n_late, got->n, got->n_late);
        for (int i = 0; i < want->n || i < got->n; i++) {
            const orow *a = i < want->n ? &want->rows[i] : NULL, *b = i < got->n ? &got->rows[i] : NULL;
            fprintf(stderr, "%s %3d want ", i == bad ? ">>" : "  ", i);
            if (a)
                fprintf(stderr, "k%lld [%lld,%lld) %s c=%lld s=%lld  ", (long long)a->key, (long long)a->ws,
                        (long long)a->we, weir_row_kind_name(a->kind), (long long)a->cnt, (long long)a->sum);
            fprintf(stderr, " got ");
            if (b)
                fprintf(stderr, "k%lld [%lld,%lld) %s c=%lld s=%lld", (long long)b->key, (long long)b->ws,
                        (long long)b->we, weir_row_kind_name(b->kind), (long long)b->cnt, (long long)b->sum);
            fprintf(stderr, "\n");
        }
    }
    cr_assert(ok, "engine (%s) differs from the reference; replay with WEIR_SEED=%llu (stream %d): %s", how,
              (unsigned long long)seed, stream, d);
}

/* ---------------- random configurations and streams ---------------- */

static void random_cfg(cfg *g, int kind)
{
    memset(g, 0, sizeof *g);
    g->a.kind = (weir_window_kind)kind;
    g->trig = WEIR_TRIGGER_EVENT_TIME;
    switch (kind) {
    case WEIR_WINDOW_TUMBLING:
        g->a.size_ms = g->a.slide_ms = rnd_range(1, 25);
        break;
    case WEIR_WINDOW_HOPPING:
        g->a.slide_ms = rnd_range(1, 12);
        g->a.size_ms = rnd() % 2 ? g->a.slide_ms * rnd_range(1, 5) : rnd_range(g->a.slide_ms, 40);
        break;
    case WEIR_WINDOW_CUMULATING:
        g->a.slide_ms = rnd_range(1, 10);
        g->a.size_ms = g->a.slide_ms * rnd_range(1, 6);
        break;
    case WEIR_WINDOW_SESSION:
        g->a.gap_ms = rnd_range(1, 15);
        g->a.max_length_ms = rnd() % 3 == 0 ? rnd_range(1, 60) : 0;
        break;
    default:
        g->trig = rnd() % 4 == 0 ? WEIR_TRIGGER_EVENT_TIME : WEIR_TRIGGER_COUNT;
        g->count = (uint64_t)rnd_range(1, 5);
        break;
    }
    if (kind != WEIR_WINDOW_SESSION && kind != WEIR_WINDOW_GLOBAL && rnd() % 3 == 0)
        g->a.offset_ms = rnd_range(-30, 30);
    g->L = rnd() % 2 ? 0 : rnd_range(1, 40);
    g->delay = rnd() % 4 == 0 ? 0 : rnd_range(0, 30);
    g->m = (weir_window_accumulation)(rnd() % 3);
    if (g->trig == WEIR_TRIGGER_COUNT && g->m != WEIR_ACC_RETRACTING)
        g->purging = rnd() % 2;
}

static int random_stream(rec *recs, int max, bool retractions)
{
    int n = (int)rnd_range(1, max);
    int nkeys = (int)rnd_range(1, 5);
    int64_t t = rnd_range(-200, 200);
    int64_t jitter = rnd_range(0, 40);
    for (int i = 0; i < n; i++) {
        t += rnd_range(0, 8);
        if (rnd() % 40 == 0)
            t += rnd_range(20, 120); /* a pause: sessions close, windows fire */
        rec *r = &recs[i];
        r->key = rnd_range(1, nkeys);
        r->ts = t - rnd_range(0, jitter);
        if (rnd() % 25 == 0)
            r->ts -= rnd_range(20, 100); /* very late */
        r->vnull = rnd() % 10 == 0;
        r->v = r->vnull ? 0 : rnd_range(-50, 100);
        r->kind = WEIR_ROW_INSERT;
        r->retracted = false;
        if (retractions && i > 0 && rnd() % 30 == 0) {
            /* retract an earlier record of the stream, once */
            rec *p = &recs[rnd() % (uint64_t)i];
            if (p->kind == WEIR_ROW_INSERT && !p->retracted) {
                p->retracted = true;
                *r = *p;
                r->kind = WEIR_ROW_DELETE;
            }
        }
    }
    return n;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 10) : def;
}

Test(window_diff, random_streams_match_reference, .timeout = 600)
{
    uint64_t seed = env_u64("WEIR_SEED", 0);
    if (!seed) {
        /* an arbitrary but printed seed: derived from the address space layout and a counter */
        seed = ((uint64_t)(uintptr_t)&seed ^ (uint64_t)(uintptr_t)malloc) * 0x9E3779B97F4A7C15ull;
        seed = (seed ^ (seed >> 29)) | 1;
    }
    uint64_t streams = env_u64("WEIR_WINDOW_STREAMS", 1500);
    uint64_t only = env_u64("WEIR_WINDOW_STREAM", UINT64_MAX); /* replay one stream of the seed */
    fprintf(stderr, "window_diff: WEIR_SEED=%llu streams=%llu\n", (unsigned long long)seed,
            (unsigned long long)streams);
    rng_state = seed;
    rec *recs = malloc(400 * sizeof *recs);
    for (uint64_t s = 0; s < streams; s++) {
        int n = random_stream(recs, s % 10 == 0 ? 400 : 120, true);
        int kind = (int)(s % 5);
        cfg g;
        random_cfg(&g, kind);
        if (only != UINT64_MAX && s != only)
            continue;
        out want = {0};
        ref_run(&g, recs, n, &want);
        for (int d = 0; d < N_DRIVES; d++) {
            out got = {0}, w2 = {0};
            engine_run(&g, d, recs, n, &got);
            /* compare sorts in place: give each drive its own copy of the reference */
            w2.rows = malloc(sizeof *w2.rows * (size_t)(want.n + 1));
            if (want.n)
                memcpy(w2.rows, want.rows, sizeof *w2.rows * (size_t)want.n);
            w2.n = want.n;
            w2.late = malloc(sizeof *w2.late * (size_t)(want.n_late + 1));
            if (want.n_late)
                memcpy(w2.late, want.late, sizeof *w2.late * (size_t)want.n_late);
            w2.n_late = want.n_late;
            compare(&g, recs, n, &w2, &got, drive_name[d], seed, (int)s);
            out_free(&got);
            out_free(&w2);
        }
        out_free(&want);
    }
    free(recs);
}

/* ---------------- through the runtime ---------------- */

typedef struct rsink {
    pthread_mutex_t *mu;
    out *o;
    bool late;
} rsink;

static int rs_create(void *arg, const weir_op_info *info, void **op)
{
    (void)info;
    *op = arg;
    return 0;
}

static int rs_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx, (void)input;
    rsink *k = op;
    pthread_mutex_lock(k->mu);
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (k->late) {
            out_late(k->o, WEIR_COL_I64(b, 0)[r], b->ts[r], weir_batch_is_null(b, 1, r) ? 0 : WEIR_COL_I64(b, 1)[r],
                     WEIR_COL_I64(b, 2)[r]);
            continue;
        }
        bool global = weir_batch_is_null(b, 1, r);
        bool sumnull = weir_batch_is_null(b, 4, r);
        out_row(k->o, WEIR_COL_I64(b, 0)[r], global ? 0 : WEIR_COL_I64(b, 1)[r], global ? 0 : WEIR_COL_I64(b, 2)[r],
                b->ts[r], b->kind[r], WEIR_COL_I64(b, 3)[r], sumnull ? 0 : WEIR_COL_I64(b, 4)[r], sumnull);
    }
    pthread_mutex_unlock(k->mu);
    return 0;
}

static void rs_close(void *op) { (void)op; }

static const weir_operator_class rs_cls = {.name = "rsink", .process = rs_process, .close = rs_close};

static void job_run(const cfg *g, const rec *recs, int n, uint32_t parallelism, uint32_t batch, out *o)
{
    weir_schema *in = h_input_schema();
    th_source *src = th_vsource_create(in, 1);
    for (int i = 0; i < n; i++) {
        char f[64];
        if (recs[i].vnull)
            snprintf(f, sizeof f, "%lld,NULL", (long long)recs[i].key);
        else
            snprintf(f, sizeof f, "%lld,%lld", (long long)recs[i].key, (long long)recs[i].v);
        th_source_row_text(src, 0, recs[i].ts, f);
    }
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.parallelism = 1;
    jc.batch_size = batch;
    weir_job *job;
    cr_assert_eq(weir_job_create(&jc, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = g->delay};
    weir_stream st, win;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_window_spec s;
    weir_agg aggs[2];
    spec_of(g, DRIVE_ROW, &s, aggs);
    weir_error err = {0};
    cr_assert_eq(weir_job_window(job, st, in, &s, parallelism, &win, &err), 0, "%s", err.message);
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    rsink main_sink = {&mu, o, false}, late_sink = {&mu, o, true};
    weir_operator_spec k1 = {.name = "results", .cls = &rs_cls, .create = rs_create, .arg = &main_sink};
    weir_operator_spec k2 = {.name = "late", .cls = &rs_cls, .create = rs_create, .arg = &late_sink};
    cr_assert_eq(weir_job_sink(job, win, &k1, 1), 0);
    cr_assert_eq(weir_job_sink(job, weir_stream_side(win, WEIR_WINDOW_LATE_TAG), &k2, 1), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    double late = th_metric(job, "*late_records");
    cr_assert_eq((int)late, o->n_late, "the late_records counter counts every late record");
    weir_job_destroy(job);
    th_source_destroy(src);
    weir_schema_destroy(in);
}

Test(window_diff, parallelism_and_batch_size_do_not_change_results, .timeout = 600)
{
    uint64_t seed = env_u64("WEIR_SEED", 0);
    if (!seed) {
        seed = ((uint64_t)(uintptr_t)&seed ^ (uint64_t)(uintptr_t)free) * 0xD6E8FEB86659FD93ull;
        seed = (seed ^ (seed >> 31)) | 1;
    }
    uint64_t streams = env_u64("WEIR_WINDOW_JOB_STREAMS", 30);
    fprintf(stderr, "window_diff (runtime): WEIR_SEED=%llu streams=%llu\n", (unsigned long long)seed,
            (unsigned long long)streams);
    rng_state = seed;
    rec *recs = malloc(300 * sizeof *recs);
    static const uint32_t pars[] = {1, 2, 4}, batches[] = {1, 7, 1024};
    for (uint64_t s = 0; s < streams; s++) {
        int n = random_stream(recs, 300, false);
        cfg g;
        random_cfg(&g, (int)(s % 5));
        out want = {0};
        ref_run(&g, recs, n, &want);
        for (int pi = 0; pi < 3; pi++)
            for (int bi = 0; bi < 3; bi++) {
                out got = {0}, w2 = {0};
                job_run(&g, recs, n, pars[pi], batches[bi], &got);
                w2.rows = malloc(sizeof *w2.rows * (size_t)(want.n + 1));
                if (want.n)
                memcpy(w2.rows, want.rows, sizeof *w2.rows * (size_t)want.n);
                w2.n = want.n;
                w2.late = malloc(sizeof *w2.late * (size_t)(want.n_late + 1));
                if (want.n_late)
                memcpy(w2.late, want.late, sizeof *w2.late * (size_t)want.n_late);
                w2.n_late = want.n_late;
                char how[64];
                snprintf(how, sizeof how, "job parallelism %u batch %u", pars[pi], batches[bi]);
                compare(&g, recs, n, &w2, &got, how, seed, (int)s);
                out_free(&got);
                out_free(&w2);
            }
        out_free(&want);
    }
    free(recs);
}

/* ---------------- hopping's running sum under key churn ---------------- */

typedef struct kw {
    int64_t key, ws, cnt, sum;
} kw;

static int cmp_kw(const void *pa, const void *pb)
{
    const kw *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->ws < b->ws ? -1 : a->ws > b->ws;
}

/*
 * Hopping COUNT/SUM keeps a running sum per key whose zero records stay
 * until compacted, and key entries that went idle are swept. Here tens of
 * thousands of keys each live briefly (so zero records pile up, compaction
 * runs and the key table is swept), then old keys come back. Every window
 * must still equal a sort-and-count reference.
 */
Test(window_diff, hopping_running_sum_survives_key_churn, .timeout = 120)
{
    uint64_t seed = env_u64("WEIR_SEED", 0x5eed1234);
    fprintf(stderr, "window_diff churn: WEIR_SEED=%llu\n", (unsigned long long)seed);
    rng_state = seed;
    const int n = 90000, churn = 70000;
    const int64_t slide = 10, size = 40, delay = 8;
    int64_t *key = malloc(n * sizeof *key), *ts = malloc(n * sizeof *ts), *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++) {
        /* first a moving range of keys (each seen for a few ms), then keys of that range again */
        key[i] = i < churn ? (int64_t)(i / 3) + rnd_range(0, 5) : rnd_range(0, churn / 3);
        ts[i] = i - rnd_range(0, delay);
        v[i] = rnd_range(-20, 50);
    }
    kw *want = malloc((size_t)n * (size / slide) * sizeof *want);
    int nw = 0;
    for (int i = 0; i < n; i++)
        for (int64_t s = fdiv(ts[i], slide) * slide; s > ts[i] - size; s -= slide)
            want[nw++] = (kw){key[i], s, 1, v[i]};
    qsort(want, (size_t)nw, sizeof *want, cmp_kw);
    int m = 0;
    for (int i = 0; i < nw; i++) {
        if (m && want[m - 1].key == want[i].key && want[m - 1].ws == want[i].ws) {
            want[m - 1].cnt++;
            want[m - 1].sum += want[i].sum;
        } else {
            want[m++] = want[i];
        }
    }

    weir_window_spec s;
    weir_window_spec_init(&s);
    s.assigner = weir_window_hopping(slide, size, 0);
    s.key.n = 1;
    s.key.cols[0] = 0;
    weir_agg aggs[2] = {h_count_star(), h_sum(1)};
    s.aggs = aggs;
    s.n_aggs = 2;
    harness h;
    cr_assert_eq(h_init(&h, &s, delay, 256), 0);
    weir_batch *b = weir_batch_create(h.in, 200);
    int64_t maxts = INT64_MIN;
    uint64_t most_entries = 0;
    for (int i = 0; i < n; i += 200) {
        weir_batch_reset(b);
        for (int j = i; j < i + 200 && j < n; j++) {
            int r = weir_batch_append_row(b);
            WEIR_COL_I64(b, 0)[r] = key[j];
            WEIR_COL_I64(b, 1)[r] = v[j];
            b->ts[r] = ts[j];
            b->kind[r] = WEIR_ROW_INSERT;
        }
        /* no record of a batch is late at the watermark before it (jitter <= delay) */
        cr_assert_eq(weir__wcore_process(h.core, b, maxts == INT64_MIN ? INT64_MIN : maxts - delay, 0), 0);
        for (uint32_t r = 0; r < b->n_rows; r++)
            if (b->ts[r] > maxts)
                maxts = b->ts[r];
        cr_assert_eq(weir__wcore_advance(h.core, maxts - delay, 0), 0);
        cr_assert_eq(weir__wcore_flush(h.core), 0);
        weir__wcore_stats st;
        weir__wcore_stats_get(h.core, &st);
        if (st.entries > most_entries)
            most_entries = st.entries;
    }
    weir__wcore_stats st;
    weir__wcore_stats_get(h.core, &st);
    cr_assert_lt(st.entries, most_entries, "idle key entries were swept (%llu of at most %llu left)",
                 (unsigned long long)st.entries, (unsigned long long)most_entries);
    /* compacted more often than the sweeps alone would (zero records outnumbered live ones) */
    cr_assert_gt(st.run_compactions, 10, "the running sum was compacted %llu times",
                 (unsigned long long)st.run_compactions);
    cr_assert_eq(h_end(&h), 0);
    cr_assert_eq(h.late_counter, 0);
    cr_assert_eq(h.n, (size_t)m, "result rows: got %zu, want %d", h.n, m);
    kw *got = malloc(h.n * sizeof *got);
    for (size_t i = 0; i < h.n; i++) {
        cr_assert_eq(h.rows[i].we, h.rows[i].ws + size);
        got[i] = (kw){h.rows[i].key, h.rows[i].ws, h.rows[i].v[0], h.rows[i].v[1]};
    }
    qsort(got, h.n, sizeof *got, cmp_kw);
    for (int i = 0; i < m; i++)
        cr_assert(got[i].key == want[i].key && got[i].ws == want[i].ws && got[i].cnt == want[i].cnt &&
                      got[i].sum == want[i].sum,
                  "row %d: got k%lld [%lld) c=%lld s=%lld, want k%lld [%lld) c=%lld s=%lld", i,
                  (long long)got[i].key, (long long)got[i].ws, (long long)got[i].cnt, (long long)got[i].sum,
                  (long long)want[i].key, (long long)want[i].ws, (long long)want[i].cnt, (long long)want[i].sum);
    free(got);
    weir_batch_destroy(b);
    h_fini(&h);
    free(want);
    free(key);
    free(ts);
    free(v);
}
