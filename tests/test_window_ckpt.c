/*
 * tests/test_window_ckpt.c - what the window engine writes into keyed state
 * at a checkpoint (weir__wcore_drain_changes): only the keys whose windows
 * changed since the previous drain, and, drain after drain, the same keyed
 * state as a full rewrite of every key (the header's floor aside: it is the
 * watermark of the drain that wrote the key). Restoring that state gives the
 * output of an uninterrupted run.
 *
 * WEIR_SEED replays the random part (the seed is printed); WEIR_CKPT_ROUNDS
 * scales it (default 4 streams per configuration).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <time.h>

#include "window_harness.h"

static weir_agg g_aggs[2];

static void spec_for(weir_window_spec *s, weir_window_assigner a)
{
    weir_window_spec_init(s);
    s->assigner = a;
    s->key.n = 1;
    s->key.cols[0] = 0;
    g_aggs[0] = h_count_star();
    g_aggs[1] = h_sum(1);
    s->aggs = g_aggs;
    s->n_aggs = 2;
}

/* ---- keyed state as the runtime keeps it: key -> bytes ---- */

#define NKEYS_MAX 20000

typedef struct kstate {
    uint8_t *val[NKEYS_MAX]; /* by key value; NULL: no entry */
    size_t len[NKEYS_MAX];
    uint64_t puts, clears;   /* of the last drain */
} kstate;

static int key_of(const uint8_t *key, size_t len)
{
    cr_assert_eq(len, 9, "a BIGINT key encodes in 9 bytes");
    cr_assert_eq(key[0], 1, "no NULL keys in these tests");
    int64_t k;
    memcpy(&k, key + 1, 8);
    cr_assert(k >= 0 && k < NKEYS_MAX);
    return (int)k;
}

static int ks_fn(void *ud, const uint8_t *key, size_t len, uint64_t hash, const void *val, size_t vlen,
                 bool removed)
{
    kstate *s = ud;
    cr_assert_eq(hash, weir_key_hash(key, len));
    int k = key_of(key, len);
    free(s->val[k]);
    s->val[k] = NULL;
    s->len[k] = 0;
    if (removed) {
        s->clears++;
        return 0;
    }
    s->puts++;
    s->val[k] = malloc(vlen);
    memcpy(s->val[k], val, vlen);
    s->len[k] = vlen;
    return 0;
}

static void ks_drain(weir__wcore *c, kstate *s)
{
    s->puts = s->clears = 0;
    cr_assert_eq(weir__wcore_drain_changes(c, ks_fn, s), 0);
}

static void ks_fini(kstate *s)
{
    for (int k = 0; k < NKEYS_MAX; k++)
        free(s->val[k]);
    memset(s, 0, sizeof *s);
}

static void ks_copy(kstate *dst, const kstate *src)
{
    for (int k = 0; k < NKEYS_MAX; k++) {
        dst->val[k] = NULL;
        dst->len[k] = src->len[k];
        if (src->val[k]) {
            dst->val[k] = malloc(src->len[k]);
            memcpy(dst->val[k], src->val[k], src->len[k]);
        }
    }
}

static int64_t floor_of(const uint8_t *v)
{
    int64_t f;
    memcpy(&f, v + 1, 8);
    return f;
}

/* Incremental state a equals the full rewrite b, but for the floors (a's never newer). */
static void ks_assert_same(const kstate *a, const kstate *b, const char *what)
{
    for (int k = 0; k < NKEYS_MAX; k++) {
        cr_assert_eq(!!a->val[k], !!b->val[k], "%s: key %d %s only in the %s state", what, k,
                     a->val[k] ? "is" : "is not", a->val[k] ? "incremental" : "full");
        if (!a->val[k])
            continue;
        cr_assert_eq(a->len[k], b->len[k], "%s: key %d: %zu bytes, a full rewrite %zu", what, k, a->len[k],
                     b->len[k]);
        cr_assert_eq(a->val[k][0], b->val[k][0]);
        cr_assert_leq(floor_of(a->val[k]), floor_of(b->val[k]));
        cr_assert(memcmp(a->val[k] + 9, b->val[k] + 9, a->len[k] - 9) == 0,
                  "%s: key %d: its windows differ from a full rewrite's", what, k);
    }
}

/* ---- only the changed keys are written ---- */

static void push_keys(harness *h, int k0, int k1, int step, int64_t ts)
{
    weir_batch *b = weir_batch_create(h->in, 1024);
    for (int k = k0; k < k1; k += step) {
        if (weir_batch_full(b)) {
            cr_assert_eq(weir__wcore_process(h->core, b, h->wm, 0), 0);
            weir_batch_reset(b);
        }
        int r = weir_batch_append_row(b);
        WEIR_COL_I64(b, 0)[r] = k;
        WEIR_COL_I64(b, 1)[r] = k % 7;
        b->ts[r] = ts + k % 50;
        b->kind[r] = WEIR_ROW_INSERT;
    }
    cr_assert_eq(weir__wcore_process(h->core, b, h->wm, 0), 0);
    weir_batch_destroy(b);
}

static void dirty_case(weir_window_assigner a, int64_t L)
{
    const int n = 10000;
    weir_window_spec s;
    spec_for(&s, a);
    s.allowed_lateness_ms = L;
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    static kstate st;
    cr_assert_eq(h_watermark(&h, 1000), 0);
    push_keys(&h, 0, n, 1, 1000);
    ks_drain(h.core, &st);
    cr_assert_eq(st.puts, (uint64_t)n, "checkpoint 1 writes every key (%" PRIu64 ")", st.puts);
    /* nothing happened: nothing is written */
    ks_drain(h.core, &st);
    cr_assert_eq(st.puts + st.clears, 0, "an idle drain wrote %" PRIu64 " keys", st.puts);
    /* 1 % of the keys receive records (some twice, into another slice for hopping and cumulating) */
    push_keys(&h, 0, n, 100, 1010);
    push_keys(&h, 0, n, 200, 1100);
    cr_assert_eq(h_watermark(&h, 1040), 0);
    weir__wcore_stats st0, st1;
    weir__wcore_stats_get(h.core, &st0);
    ks_drain(h.core, &st);
    weir__wcore_stats_get(h.core, &st1);
    cr_assert_eq(st.puts, (uint64_t)n / 100, "kind %d: checkpoint 2 wrote %" PRIu64 " keys, not the %d changed",
                 (int)a.kind, st.puts, n / 100);
    cr_assert_eq(st1.drain_written - st0.drain_written, (uint64_t)n / 100);
    cr_assert_eq(st.clears, 0);
    for (int k = 0; k < n; k += 100)
        cr_assert_not_null(st.val[k]);
    /* the state equals a full rewrite's */
    static kstate full;
    ks_copy(&full, &st);
    weir__wcore_mark_all(h.core);
    ks_drain(h.core, &full);
    cr_assert_eq(full.puts, (uint64_t)n);
    ks_assert_same(&st, &full, "after checkpoint 2");
    ks_fini(&full);
    ks_fini(&st);
    h_fini(&h);
}

Test(window_ckpt, only_changed_keys_are_written)
{
    /* windows long enough that nothing fires between the checkpoints */
    dirty_case(weir_window_tumbling(100000, 0), 0);
    dirty_case(weir_window_tumbling(100000, 0), 5000);
    dirty_case(weir_window_hopping(50, 100000, 0), 0);
    dirty_case(weir_window_cumulating(50, 100000, 0), 0);
}

Test(window_ckpt, a_fired_slice_rewrites_only_its_keys)
{
    /* tumbling 100 ms: keys 0..999 in [0, 100), keys 1000..1999 in [100, 200) */
    weir_window_spec s;
    spec_for(&s, weir_window_tumbling(100, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    static kstate st;
    push_keys(&h, 0, 1000, 1, 10);
    push_keys(&h, 1000, 2000, 1, 110);
    ks_drain(h.core, &st);
    cr_assert_eq(st.puts, 2000);
    cr_assert_eq(h_watermark(&h, 100), 0); /* [0, 100) fires: its keys hold nothing now */
    ks_drain(h.core, &st);
    cr_assert_eq(st.puts, 0);
    cr_assert_eq(st.clears, 1000, "the fired window's keys are cleared (%" PRIu64 ")", st.clears);
    for (int k = 0; k < 2000; k++)
        cr_assert_eq(!!st.val[k], k >= 1000);
    ks_fini(&st);
    h_fini(&h);
}

Test(window_ckpt, cumulating_step_rewrites_the_period_keys)
{
    /* the period table's records carry the last fired step's end: a step firing changes them */
    weir_window_spec s;
    spec_for(&s, weir_window_cumulating(10, 100, 0));
    harness h;
    cr_assert_eq(h_init(&h, &s, 0, 1024), 0);
    static kstate st, full;
    for (int k = 0; k < 50; k++)
        cr_assert_eq(h_push(&h, k, 5, 1), 0);
    cr_assert_eq(h_watermark(&h, 10), 0);
    ks_drain(h.core, &st);
    cr_assert_eq(st.puts, 50);
    cr_assert_eq(h_watermark(&h, 20), 0); /* a step with no records: the period table's end moves */
    ks_drain(h.core, &st);
    cr_assert_eq(st.puts, 50);
    ks_drain(h.core, &st);
    cr_assert_eq(st.puts, 0);
    ks_copy(&full, &st);
    weir__wcore_mark_all(h.core);
    ks_drain(h.core, &full);
    ks_assert_same(&st, &full, "cumulating");
    ks_fini(&st);
    ks_fini(&full);
    h_fini(&h);
}

/* ---- random workloads: incremental state == full rewrite; restore == uninterrupted run ---- */

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

typedef struct ev {
    int64_t key, ts, v;
    uint8_t kind;
    bool wm_after; /* the watermark follows after this row's batch */
} ev;

/* One stream: batches of rows out of order, some late, some retractions of earlier rows. */
static ev *gen_stream(uint64_t *x, int n, int n_keys, int64_t span, int *out_n)
{
    ev *v = calloc((size_t)n, sizeof *v);
    int64_t t = 0;
    for (int i = 0; i < n; i++) {
        t += (int64_t)(rnd(x) % 4);
        ev *e = &v[i];
        e->key = (int64_t)(rnd(x) % (uint64_t)n_keys);
        e->ts = t - (int64_t)(rnd(x) % (uint64_t)span);
        if (rnd(x) % 40 == 0)
            e->ts -= (int64_t)(rnd(x) % (uint64_t)(4 * span)); /* late, maybe within lateness */
        e->v = (int64_t)(rnd(x) % 100);
        e->kind = WEIR_ROW_INSERT;
        if (i > 10 && rnd(x) % 12 == 0) {
            /* retract an earlier row */
            const ev *p = &v[rnd(x) % (uint64_t)i];
            if (p->kind == WEIR_ROW_INSERT) {
                e->key = p->key, e->ts = p->ts, e->v = p->v;
                e->kind = WEIR_ROW_DELETE;
            }
        }
        e->wm_after = rnd(x) % 5 == 0;
    }
    *out_n = n;
    return v;
}

/* Feeds events [i0, i1) into h (batches end where the watermark moves). */
static void feed(harness *h, const ev *v, int i0, int i1, int64_t delay, weir_batch *b)
{
    weir_batch_reset(b);
    for (int i = i0; i < i1; i++) {
        int r = weir_batch_append_row(b);
        WEIR_COL_I64(b, 0)[r] = v[i].key;
        WEIR_COL_I64(b, 1)[r] = v[i].v;
        b->ts[r] = v[i].ts;
        b->kind[r] = v[i].kind;
        if (v[i].ts > h->max_ts)
            h->max_ts = v[i].ts;
        if (v[i].wm_after || weir_batch_full(b) || i + 1 == i1) {
            cr_assert_eq(weir__wcore_process(h->core, b, h->wm, 0), 0);
            weir_batch_reset(b);
            if (v[i].wm_after && h->max_ts - delay > h->wm)
                cr_assert_eq(h_watermark(h, h->max_ts - delay), 0);
        }
    }
    cr_assert_eq(weir__wcore_flush(h->core), 0);
}

static int cmp_row(const void *pa, const void *pb)
{
    const hrow *a = pa, *b = pb;
    int64_t x[] = {a->key, a->ws, a->we, a->kind, a->v[0], a->v[1]};
    int64_t y[] = {b->key, b->ws, b->we, b->kind, b->v[0], b->v[1]};
    for (int i = 0; i < 6; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Rows [from, h->n) of h, sorted (a restored slice emits its keys in another order). */
static hrow *rows_sorted(const harness *h, size_t from, size_t *n)
{
    *n = h->n - from;
    hrow *r = malloc((*n ? *n : 1) * sizeof *r);
    memcpy(r, h->rows + from, *n * sizeof *r);
    qsort(r, *n, sizeof *r, cmp_row);
    return r;
}

static void random_case(uint64_t seed, weir_window_assigner a, weir_window_accumulation m, int64_t L)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    const int64_t delay = 5, span = 30;
    int n;
    ev *v = gen_stream(&x, 1500 + (int)(rnd(&x) % 1500), 1 + (int)(rnd(&x) % 400), span, &n);
    weir_window_spec s;
    spec_for(&s, a);
    s.accumulation = m;
    s.allowed_lateness_ms = L;
    harness ha, hb;
    cr_assert_eq(h_init(&ha, &s, delay, 64), 0);
    cr_assert_eq(h_init(&hb, &s, delay, 64), 0);
    static kstate inc, full, saved;
    weir_batch *b = weir_batch_create(ha.in, 64);
    /* checkpoints at random points; the state of one of them is restored later */
    int i = 0, n_ck = 0, restore_ck = 1 + (int)(rnd(&x) % 4), restore_at = -1;
    size_t rows_at = 0;
    uint64_t late_at = 0;
    weir_ts wm_at = WEIR_TS_MIN, max_at = WEIR_TS_MIN;
    while (i < n) {
        int j = i + 1 + (int)(rnd(&x) % 300);
        if (j > n)
            j = n;
        feed(&ha, v, i, j, delay, b);
        feed(&hb, v, i, j, delay, b);
        i = j;
        ks_drain(ha.core, &inc);
        weir__wcore_mark_all(hb.core);
        ks_drain(hb.core, &full);
        char what[160];
        snprintf(what, sizeof what, "seed %" PRIu64 " kind %d mode %d L %lld checkpoint %d", seed, (int)a.kind,
                 (int)m, (long long)L, n_ck + 1);
        ks_assert_same(&inc, &full, what);
        if (++n_ck == restore_ck) {
            ks_copy(&saved, &inc);
            restore_at = i;
            rows_at = ha.n;
            late_at = ha.late_counter;
            wm_at = ha.wm;
            max_at = ha.max_ts;
        }
    }
    cr_assert_eq(h_end(&ha), 0);
    cr_assert_eq(h_end(&hb), 0);
    cr_assert_eq(ha.n, hb.n, "the marks change nothing in the results");
    if (restore_at >= 0) {
        /* restore the incremental state at that checkpoint into a new engine; feed the rest */
        harness hc;
        cr_assert_eq(h_init(&hc, &s, delay, 64), 0);
        for (int k = 0; k < NKEYS_MAX; k++)
            if (saved.val[k]) {
                uint8_t key[9] = {1};
                int64_t kv = k;
                memcpy(key + 1, &kv, 8);
                cr_assert_eq(weir__wcore_load_entry(hc.core, key, 9, weir_key_hash(key, 9), saved.val[k],
                                                    saved.len[k], 0),
                             0);
            }
        /* as the operator does: the watermark its snapshot recorded */
        weir__wcore_restore_watermark(hc.core, wm_at);
        hc.wm = wm_at;
        hc.max_ts = max_at;
        feed(&hc, v, restore_at, n, delay, b);
        cr_assert_eq(h_end(&hc), 0);
        size_t na, nc;
        hrow *ra = rows_sorted(&ha, rows_at, &na), *rc = rows_sorted(&hc, 0, &nc);
        cr_assert_eq(na, nc, "seed %" PRIu64 " kind %d mode %d L %lld: %zu rows after the restore, %zu uninterrupted",
                     seed, (int)a.kind, (int)m, (long long)L, nc, na);
        for (size_t r = 0; r < na; r++)
            cr_assert(cmp_row(&ra[r], &rc[r]) == 0, "seed %" PRIu64 " kind %d mode %d L %lld: row %zu differs", seed,
                      (int)a.kind, (int)m, (long long)L, r);
        cr_assert_eq(hc.late_counter, ha.late_counter - late_at);
        free(ra);
        free(rc);
        h_fini(&hc);
    }
    weir_batch_destroy(b);
    ks_fini(&inc);
    ks_fini(&full);
    ks_fini(&saved);
    free(v);
    h_fini(&ha);
    h_fini(&hb);
}

Test(window_ckpt, incremental_state_equals_full_rewrite, .timeout = 120)
{
    uint64_t seed = getenv("WEIR_SEED") ? strtoull(getenv("WEIR_SEED"), NULL, 0) : (uint64_t)time(NULL);
    int rounds = getenv("WEIR_CKPT_ROUNDS") ? atoi(getenv("WEIR_CKPT_ROUNDS")) : 4;
    fprintf(stderr, "window_ckpt: WEIR_SEED=%" PRIu64 "\n", seed);
    weir_window_assigner as[] = {weir_window_tumbling(20, 0), weir_window_hopping(10, 40, 0),
                                 weir_window_hopping(15, 40, 3), weir_window_cumulating(10, 40, 0)};
    const int64_t Ls[] = {0, 25};
    for (int r = 0; r < rounds; r++)
        for (size_t k = 0; k < sizeof as / sizeof *as; k++)
            for (int m = 0; m < 3; m++)
                for (int l = 0; l < 2; l++)
                    random_case(seed + (uint64_t)r * 1000 + k * 10 + (uint64_t)m * 2 + (uint64_t)l, as[k],
                                (weir_window_accumulation)m, Ls[l]);
}
