/*
 * tests/test_window_merge.c - the global phase of a two-phase window
 * aggregation (MERGE of COUNT, SUM, SUM0, AVG, MIN, MAX, agg/merge.h) in
 * the window engine: its typed kinds against the functions' classes
 * (no_fast_path) over tumbling, hopping, cumulating and session windows.
 * The results are the same, the drained state bytes are the same, and the
 * state written either way restores into the other (a checkpoint of a weir
 * that merged through the classes restores into one with typed kinds).
 *
 * The partial rows are made as the local phase makes them: each is the
 * accumulator of a few raw rows, sent as its leading words in BIGINT
 * columns, or serialised into a BYTES column (MIN/MAX of strings, DECIMAL
 * sums). WEIR_SEED picks another stream (the seed is printed on failure).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "agg/merge.h"
#include "support/harness.h"
#include "window/window_internal.h"

enum { NF = 16, NKEYS = 5, NROWS = 700, MAXSAVED = 64 };

/* The raw functions: name and raw column (-1: COUNT(*)). */
static const char *const fn_name[NF] = {"COUNT", "COUNT", "SUM", "SUM", "SUM0", "AVG", "AVG", "MIN",
                                        "MAX",   "MIN",   "MAX", "MAX", "MIN",  "MIN", "AVG", "MAX"};
static const int32_t fn_col[NF] = {-1, 1, 1, 2, 2, 1, 2, 2, 1, 3, 3, 4, 5, 6, 6, 7};
/* The kind each takes with the fast path on. */
static const weir__acc_kind fn_kind[NF] = {
    WEIR__ACC_MERGE_WORDS,   WEIR__ACC_MERGE_WORDS,   WEIR__ACC_MERGE_WORDS,   WEIR__ACC_MERGE_WORDS,
    WEIR__ACC_MERGE_WORDS,   WEIR__ACC_MERGE_WORDS,   WEIR__ACC_MERGE_WORDS,   WEIR__ACC_MERGE_EXTREME,
    WEIR__ACC_MERGE_EXTREME, WEIR__ACC_MERGE_EXTREME, WEIR__ACC_MERGE_EXTREME, WEIR__ACC_MERGE_EXTREME,
    WEIR__ACC_MERGE_EXTREME, WEIR__ACC_MERGE_EXTREME, WEIR__ACC_GENERIC,       WEIR__ACC_GENERIC,
};

typedef struct fixture {
    weir_schema *raw;     /* k, i INT, l BIGINT, d DOUBLE, t TIMESTAMP, b BOOLEAN, m DECIMAL(10,2), s STRING */
    weir_agg fn[NF];      /* bound over raw */
    weir_schema *part;    /* k, then each function's partial columns */
    weir_agg merge[NF];   /* the global phase's functions over part */
    weir_batch *rows[2];  /* the partial rows: before and after the snapshot */
    weir_ts wm;           /* the watermark after the first (none of the second's rows is behind it) */
} fixture;

static uint64_t g_rng;

static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* One raw row of key 0 at ts 0 into raw batch b: NULLs, large values (sums wrap), NaN and -0.0. */
static void raw_row(weir_batch *b)
{
    static const double dv[] = {-1.5, 0.0, -0.0, 2.25, 1e300, -1e300, NAN, 7.0};
    static const char *const sv[] = {"", "a", "ab", "zz", "b"};
    int r = weir_batch_append_row(b);
    WEIR_COL_I64(b, 0)[r] = 0;
    WEIR_COL_I32(b, 1)[r] = rnd() % 5 == 0 ? INT32_MAX - (int32_t)(rnd() % 3) : (int32_t)(rnd() % 2001) - 1000;
    WEIR_COL_I64(b, 2)[r] = rnd() % 4 == 0 ? INT64_MAX - (int64_t)(rnd() % 100) : (int64_t)(rnd() % 200001) - 100000;
    WEIR_COL_F64(b, 3)[r] = dv[rnd() % 8];
    WEIR_COL_I64(b, 4)[r] = (int64_t)(rnd() % 100000) - 50000;
    WEIR_COL_BOOL(b, 5)[r] = (uint8_t)(rnd() & 1);
    WEIR_COL_I64(b, 6)[r] = (int64_t)(rnd() % 2000001) - 1000000;
    const char *s = sv[rnd() % 5];
    cr_assert_eq(weir_batch_set_str(b, 7, (uint32_t)r, s, (uint32_t)strlen(s)), 0);
    for (uint32_t c = 1; c < 8; c++)
        if (rnd() % 5 == 0)
            weir_batch_set_null(b, c, (uint32_t)r);
}

/* Appends one partial row of key k at ts: the accumulators of 0-3 raw rows (0: an empty accumulator). */
static void partial_row(fixture *fx, weir_batch *raw, weir_batch *out, int64_t k, weir_ts ts)
{
    weir_batch_reset(raw);
    uint32_t n = (uint32_t)(rnd() % 4);
    for (uint32_t i = 0; i < n; i++)
        raw_row(raw);
    int r = weir_batch_append_row(out);
    out->ts[r] = ts;
    WEIR_COL_I64(out, 0)[r] = k;
    uint32_t col = 1;
    for (int f = 0; f < NF; f++) {
        weir_agg *a = &fx->fn[f];
        _Alignas(16) uint64_t acc[16];
        cr_assert_leq(weir_agg_acc_size(a), sizeof acc);
        weir_agg_init(a, acc);
        for (uint32_t i = 0; i < n; i++)
            cr_assert_eq(weir_agg_add(a, acc, raw, i), 0);
        uint32_t w = weir__agg_partial_cols(a, NULL);
        if (w) {
            for (uint32_t j = 0; j < w; j++)
                WEIR_COL_I64(out, col + j)[r] = (int64_t)acc[j];
            col += w;
        } else {
            weir_buf buf;
            weir_buf_init(&buf);
            cr_assert_eq(a->cls->serialize(a, acc, &buf), 0);
            cr_assert_eq(weir_batch_set_str(out, col, (uint32_t)r, (const char *)buf.data, (uint32_t)buf.len), 0);
            weir_buf_fini(&buf);
            col++;
        }
        weir_agg_destroy(a, acc);
    }
}

static void fixture_init(fixture *fx, uint64_t seed)
{
    g_rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    fx->raw = th_schema("k BIGINT, i INT, l BIGINT, d DOUBLE, t TIMESTAMP, b BOOLEAN");
    weir_schema_add(fx->raw, "m", weir_type_decimal(10, 2, true));
    weir_schema_add(fx->raw, "s", weir_type_make(WEIR_TYPE_STRING, true));
    fx->part = weir_schema_create();
    weir_schema_add(fx->part, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    uint32_t col = 1;
    for (int f = 0; f < NF; f++) {
        weir_error err = {0};
        cr_assert_eq(weir_agg_bind(fn_name[f], fx->raw, fn_col[f], 0, &fx->fn[f], &err), 0, "%s", err.message);
        cr_assert(weir__agg_two_phase_ok(&fx->fn[f]), "%s runs in two phases", fn_name[f]);
        uint32_t w = weir__agg_partial_cols(&fx->fn[f], NULL);
        weir__agg_merge_of(&fx->fn[f], (int32_t)col, &fx->merge[f]);
        for (uint32_t j = 0; j < (w ? w : 1); j++) {
            char name[16];
            snprintf(name, sizeof name, "p%u", col + j);
            weir_schema_add(fx->part, name, weir_type_make(w ? WEIR_TYPE_BIGINT : WEIR_TYPE_BYTES, false));
        }
        col += w ? w : 1;
    }
    weir_batch *raw = weir_batch_create(fx->raw, 4);
    weir_ts t = 0;
    for (int h = 0; h < 2; h++) {
        fx->rows[h] = weir_batch_create(fx->part, NROWS);
        for (int i = 0; i < NROWS; i++) {
            t += (weir_ts)(rnd() % 3);
            /* a little out of order, never behind the watermark below */
            partial_row(fx, raw, fx->rows[h], (int64_t)(rnd() % NKEYS), t + (weir_ts)(rnd() % 8));
        }
        if (!h)
            fx->wm = t;
    }
    weir_batch_destroy(raw);
}

static void fixture_fini(fixture *fx)
{
    weir_batch_destroy(fx->rows[0]);
    weir_batch_destroy(fx->rows[1]);
    weir_schema_destroy(fx->part);
    weir_schema_destroy(fx->raw);
}

typedef struct saved {
    uint8_t key[MAXSAVED][64];
    size_t klen[MAXSAVED];
    uint64_t hash[MAXSAVED];
    uint8_t *val[MAXSAVED];
    size_t vlen[MAXSAVED];
    int n;
} saved;

static int save_fn(void *ud, const uint8_t *key, size_t len, uint64_t hash, const void *val, size_t vlen,
                   bool removed)
{
    saved *s = ud;
    if (removed)
        return 0;
    cr_assert_lt(s->n, MAXSAVED);
    cr_assert_leq(len, sizeof s->key[0]);
    memcpy(s->key[s->n], key, len);
    s->klen[s->n] = len;
    s->hash[s->n] = hash;
    s->val[s->n] = malloc(vlen);
    memcpy(s->val[s->n], val, vlen);
    s->vlen[s->n] = vlen;
    s->n++;
    return 0;
}

static void saved_fini(saved *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->val[i]);
    s->n = 0;
}

/* One engine over the partial rows: fast (typed kinds) or through the classes. */
typedef struct engine {
    weir__wcore *core;
    weir_schema *os, *ls;
    weir_batch *out; /* every result row */
} engine;

static void engine_init(engine *e, fixture *fx, weir_window_assigner a, bool fast)
{
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = a;
    spec.key.n = 1;
    spec.key.cols[0] = 0;
    spec.aggs = fx->merge;
    spec.n_aggs = NF;
    spec.no_fast_path = !fast;
    weir_error err = {0};
    cr_assert_eq(weir_window_output_schema(&spec, fx->part, &e->os, &err), 0, "%s", err.message);
    cr_assert_eq(weir_window_late_schema(fx->part, &e->ls), 0);
    e->out = weir_batch_create(e->os, 64);
    weir__wcore_io io = {.emit = th_append_rows, .ud = &e->out};
    cr_assert_eq(weir__wcore_create(&spec, fx->part, e->os, e->ls, 100, &io, &e->core, &err), 0, "%s",
                 err.message);
}

static void engine_fini(engine *e)
{
    weir__wcore_destroy(e->core);
    weir_batch_destroy(e->out);
    weir_schema_destroy(e->os);
    weir_schema_destroy(e->ls);
}

/* The rows before the snapshot, and the watermark after them: windows fire. */
static void first_half(engine *e, const fixture *fx)
{
    cr_assert_eq(weir__wcore_process(e->core, fx->rows[0], WEIR_TS_MIN, 0), 0);
    cr_assert_eq(weir__wcore_advance(e->core, fx->wm, 0), 0);
    cr_assert_eq(weir__wcore_flush(e->core), 0);
}

static void load(engine *e, const saved *s, weir_ts wm)
{
    for (int i = 0; i < s->n; i++)
        cr_assert_eq(weir__wcore_load_entry(e->core, s->key[i], s->klen[i], s->hash[i], s->val[i], s->vlen[i], wm), 0);
    weir__wcore_restore_watermark(e->core, wm);
}

/* The rows of a, then of b (may be NULL), as text, one per line. */
static char *rows_text(const weir_batch *a, const weir_batch *b)
{
    size_t cap = 1 << 16, len = 0;
    char *t = malloc(cap);
    t[0] = 0;
    for (int h = 0; h < 2; h++) {
        const weir_batch *x = h ? b : a;
        for (uint32_t r = 0; x && r < x->n_rows; r++) {
            char line[2048];
            th_format_row(x, r, line, sizeof line);
            size_t l = strlen(line);
            if (len + l + 2 > cap)
                t = realloc(t, cap = 2 * cap + l);
            memcpy(t + len, line, l);
            t[len + l] = '\n';
            t[len += l + 1] = 0;
        }
    }
    return t;
}

static int find_idx(const saved *s, const uint8_t *key, size_t len)
{
    for (int i = 0; i < s->n; i++)
        if (s->klen[i] == len && !memcmp(s->key[i], key, len))
            return i;
    return -1;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of t (each ending in a newline) sorted, in place; returns t. */
static char *sorted_lines(char *t)
{
    size_t n = 0, len = strlen(t);
    for (size_t i = 0; i < len; i++)
        n += t[i] == '\n';
    char **line = malloc((n ? n : 1) * sizeof *line), *copy = strdup(t);
    size_t k = 0;
    for (char *p = copy; k < n;) {
        char *end = strchr(p, '\n');
        *end = 0;
        line[k++] = p;
        p = end + 1;
    }
    qsort(line, n, sizeof *line, cmp_line);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(line[i]);
        memcpy(t + at, line[i], l);
        t[at + l] = '\n';
        at += l + 1;
    }
    t[at] = 0;
    free(line);
    free(copy);
    return t;
}

static void merge_case(fixture *fx, weir_window_assigner a, uint64_t seed)
{
    /* uninterrupted, each way; and the state of each after the first half */
    engine full[2];
    static saved st[2];
    for (int fast = 0; fast < 2; fast++) {
        engine *e = &full[fast];
        engine_init(e, fx, a, fast);
        first_half(e, fx);
        cr_assert_eq(weir__wcore_drain_changes(e->core, save_fn, &st[fast]), 0);
        cr_assert_eq(weir__wcore_process(e->core, fx->rows[1], fx->wm, 0), 0);
        cr_assert_eq(weir__wcore_advance(e->core, WEIR_TS_MAX, 0), 0);
        cr_assert_eq(weir__wcore_finish(e->core, 0), 0);
    }
    char *want = rows_text(full[0].out, NULL), *got = rows_text(full[1].out, NULL);
    cr_assert_gt(full[0].out->n_rows, 50, "seed %" PRIu64 " kind %d: %u rows", seed, (int)a.kind, full[0].out->n_rows);
    cr_assert_str_eq(got, want, "seed %" PRIu64 " kind %d: the typed kinds' results differ", seed, (int)a.kind);
    free(got);

    /* the same state bytes, key by key */
    cr_assert_eq(st[1].n, st[0].n, "seed %" PRIu64 " kind %d: keys drained", seed, (int)a.kind);
    cr_assert_gt(st[0].n, 0);
    for (int i = 0; i < st[1].n; i++) {
        int j = find_idx(&st[0], st[1].key[i], st[1].klen[i]);
        cr_assert(j >= 0, "seed %" PRIu64 " kind %d: a key only the typed kinds drained", seed, (int)a.kind);
        cr_assert(st[1].vlen[i] == st[0].vlen[j] && !memcmp(st[1].val[i], st[0].val[j], st[0].vlen[j]),
                  "seed %" PRIu64 " kind %d: the typed kinds' state differs", seed, (int)a.kind);
    }

    char *want_sorted = sorted_lines(strdup(want));

    /* the first half's rows, then a restore of the other way's state and the second half */
    for (int fast = 0; fast < 2; fast++) {
        engine e;
        engine_init(&e, fx, a, fast);
        load(&e, &st[!fast], fx->wm);
        cr_assert_eq(weir__wcore_process(e.core, fx->rows[1], fx->wm, 0), 0);
        cr_assert_eq(weir__wcore_advance(e.core, WEIR_TS_MAX, 0), 0);
        cr_assert_eq(weir__wcore_finish(e.core, 0), 0);
        /* the rows fired before the snapshot come from the run that wrote it */
        engine first;
        engine_init(&first, fx, a, !fast);
        first_half(&first, fx);
        /* a restored engine visits its keys in another order: the rows of one firing may come in another order */
        char *t = sorted_lines(rows_text(first.out, e.out));
        cr_assert_str_eq(t, want_sorted, "seed %" PRIu64 " kind %d: state written %s restores differently", seed,
                         (int)a.kind, fast ? "through the classes" : "by the typed kinds");
        free(t);
        engine_fini(&first);
        engine_fini(&e);
    }
    free(want);
    free(want_sorted);
    saved_fini(&st[0]);
    saved_fini(&st[1]);
    engine_fini(&full[0]);
    engine_fini(&full[1]);
}

Test(window_merge, picks_the_typed_kinds)
{
    fixture fx;
    fixture_init(&fx, 1);
    weir__accset as;
    weir_error err = {0};
    cr_assert_eq(weir__accset_init(&as, fx.merge, NF, fx.part, false, &err), 0, "%s", err.message);
    for (int f = 0; f < NF; f++)
        cr_assert_eq(as.f[f].kind, fn_kind[f], "%s(col %d)", fn_name[f], fn_col[f]);
    cr_assert(!as.retractable && !as.all_int);
    weir__accset_fini(&as);
    cr_assert_eq(weir__accset_init(&as, fx.merge, NF, fx.part, true, &err), 0, "%s", err.message);
    for (int f = 0; f < NF; f++)
        cr_assert_eq(as.f[f].kind, WEIR__ACC_GENERIC);
    weir__accset_fini(&as);
    fixture_fini(&fx);
}

Test(window_merge, typed_kinds_equal_the_classes_results_and_state, .timeout = 120)
{
    const char *env = getenv("WEIR_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : 2301;
    for (uint64_t s = seed; s < seed + 3; s++) {
        fixture fx;
        fixture_init(&fx, s);
        merge_case(&fx, weir_window_tumbling(10, 0), s);
        merge_case(&fx, weir_window_hopping(5, 20, 0), s);
        merge_case(&fx, weir_window_cumulating(5, 20, 0), s);
        merge_case(&fx, weir_window_session(3, 0), s);
        fixture_fini(&fx);
    }
}
