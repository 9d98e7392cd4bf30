/*
 * tests/test_window_join.c - the window join operator (ops/window_join.c)
 * and window assignment (ops/window_assign.c), driven through the C API.
 *
 * Each side is an unbounded in-memory source of (k STRING, v BIGINT,
 * ws TIMESTAMP, we TIMESTAMP) rows: a row of window [ws, we), as a window
 * aggregation emits them. The join key is (k, ws, we), the output (lk, lv,
 * rk, rv). Watermarks are the sources' (W = the largest time read, no
 * delay); rows with v < 0 are dropped by a filter before the join, so they
 * only move the watermark. A test waits until the sink has seen watermark
 * W before it feeds what must be judged against W (a guard, not a wait
 * for time to pass). The random test compares with a nested-loop join per
 * window computed here (seed printed; WINDOW_JOIN_TEST_SEED replaces it).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/ops.h"
#include "support/harness.h"
#include "weir/checkpoint.h"
#include "weir/weir.h"

#define GUARD_MS 20000

enum { L = 0, R = 1 };

typedef struct wj {
    weir_schema *in, *out, *asg;
    th_source *src[2];
    th_collect *sink;
    weir_job *job;
    weir_expr_arena *arena;
    const char *ckpt_dir; /* checkpoints go here and the latest is restored */
} wj;

static bool keep_row(void *ud, const weir_batch *b, uint32_t row)
{
    (void)ud;
    return WEIR_COL_I64(b, 1)[row] >= 0;
}

/*
 * A window join of the two sides; n_keys 3: (k, ws, we), 4: (k, v, ws, we).
 * With residual_lt, the condition lv < rv.
 */
/* A restart (t->in already set) keeps the sources and schemas: the job reads on
 * from them. */
static void wj_start_on(wj *t, weir_join_type type, uint32_t parallelism,
                        uint32_t n_keys, bool residual_lt,
                        const char *rocksdb_dir)
{
    bool restart = t->in != NULL;
    if (!restart) {
        t->in = th_schema("k STRING, v BIGINT, ws TIMESTAMP, we TIMESTAMP");
        t->out = th_schema("lk STRING, lv BIGINT, rk STRING, rv BIGINT");
        for (int s = 0; s < 2; s++)
            t->src[s] = th_usource_create(t->in, 1);
    }
    t->sink = th_collect_create(TH_TS);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = parallelism;
    cfg.batch_size = 4;
    if (rocksdb_dir) {
        cfg.state_backend = "rocksdb";
        cfg.state_dir = rocksdb_dir;
    }
    cr_assert_eq(weir_job_create(&cfg, &t->job), 0);
    weir_window_join_config jc = {
        .type = type, .end_col = {3, 3}, .n_out = {2, 2}, .out_schema = t->out};
    uint32_t cols3[3] = {0, 2, 3}, cols4[4] = {0, 1, 2, 3};
    weir_stream keyed[2];
    for (int s = 0; s < 2; s++) {
        weir_source_spec ss = th_source_spec(t->src[s], s ? "right" : "left");
        weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED,
                                  .delay_ms = 0};
        weir_stream st, f;
        cr_assert_eq(weir_job_source(t->job, &ss, &wm, 1, &st), 0);
        cr_assert_eq(weir_job_filter(t->job, st, keep_row, NULL, &f), 0);
        jc.keys[s].n = n_keys;
        memcpy(jc.keys[s].cols, n_keys == 3 ? cols3 : cols4,
               n_keys * sizeof(uint32_t));
        keyed[s] = weir_stream_key_by(f, jc.keys[s].cols, n_keys);
    }
    if (residual_lt) {
        weir_error err = {0};
        weir_expr *a[2], *e;
        t->arena = weir_expr_arena_create();
        cr_assert_eq(weir_expr_column(t->arena, 1,
                                      weir_type_make(WEIR_TYPE_BIGINT, true),
                                      &a[0], &err),
                     0);
        cr_assert_eq(weir_expr_column(t->arena, 3,
                                      weir_type_make(WEIR_TYPE_BIGINT, true),
                                      &a[1], &err),
                     0);
        cr_assert_eq(weir_expr_call(t->arena, "<", a, 2, &e, &err), 0, "%s",
                     err.message);
        jc.residual = e;
    }
    weir_operator_spec spec;
    cr_assert_eq(weir_window_join_spec(&jc, &spec), 0);
    cr_assert_str_eq(spec.name, "WindowJoin");
    weir_stream j;
    cr_assert_eq(
        weir_job_operator(t->job, keyed, 2, &spec, t->out, parallelism, &j), 0,
        "%s", weir_job_error(t->job));
    weir_operator_spec sink = th_collect_spec(t->sink, "collect");
    cr_assert_eq(weir_job_sink(t->job, j, &sink, 1), 0);
    if (t->ckpt_dir) {
        weir_error err = {0};
        cr_assert_eq(th_enable_checkpoints(t->job, t->ckpt_dir, &err), 0, "%s", err.message);
    }
    cr_assert_eq(weir_job_start(t->job), 0, "%s", weir_job_error(t->job));
}

static void wj_start(wj *t, weir_join_type type, uint32_t parallelism,
                     uint32_t n_keys, bool residual_lt)
{
    memset(t, 0, sizeof *t);
    wj_start_on(t, type, parallelism, n_keys, residual_lt, NULL);
}

/* A row of window [ws, ws + 10) at time ts (k NULL for a NULL key). */
static void wj_row(wj *t, int s, const char *k, int64_t v, int64_t ws,
                   int64_t ts)
{
    th_source_row(t->src[s], 0, ts, k, v, ws, ws + 10);
}

/* Moves both sides' watermarks to w and waits until the join has passed it on.
 */
static void wj_watermark(wj *t, int64_t w)
{
    for (int s = 0; s < 2; s++)
        th_source_row(t->src[s], 0, w, "", (int64_t)-1, (int64_t)0, (int64_t)0);
    cr_assert(th_collect_wait_watermark(t->sink, w, GUARD_MS),
              "the watermark did not reach %" PRId64, w);
}

/* The sink's lines, sorted, without the last newline (valid until the next
 * call). */
static const char *wj_text(wj *t)
{
    static char buf[1 << 16];
    snprintf(buf, sizeof buf, "%s", th_collect_text(t->sink, true));
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    return buf;
}

static void wj_finish(wj *t)
{
    th_source_end_all(t->src[L]);
    th_source_end_all(t->src[R]);
    cr_assert_eq(weir_job_wait(t->job), 0, "%s", weir_job_error(t->job));
}

static void wj_destroy(wj *t)
{
    weir_job_destroy(t->job);
    th_collect_destroy(t->sink);
    for (int s = 0; s < 2; s++)
        th_source_destroy(t->src[s]);
    weir_schema_destroy(t->in);
    weir_schema_destroy(t->out);
    if (t->arena)
        weir_expr_arena_destroy(t->arena);
}

/*
 * Window [0, 10): W = 9 (end - 1) fires nothing, W = 10 (exactly the end)
 * fires it. Every pair of a key is emitted once, duplicates
 * count twice, keys and windows do not mix, rows carry time end - 1.
 */
Test(window_join, inner_join_fires_when_the_watermark_reaches_the_end,
     .timeout = 60)
{
    wj t;
    wj_start(&t, WEIR_JOIN_INNER, 1, 3, false);
    /* rows before time 9, so that only the watermark rows below move W to 9
     * (else W = 9 could overtake a row) */
    wj_row(&t, L, "a", 1, 0, 0);
    wj_row(&t, L, "a", 1, 0, 3); /* a duplicate row */
    wj_row(&t, L, "b", 2, 0, 8);
    wj_row(&t, R, "a", 10, 0, 8);
    wj_row(&t, R, "b", 20, 0, 5);
    wj_row(&t, R, "b", 21, 0, 6);
    wj_row(&t, R, "c", 30, 0, 7);
    wj_row(&t, R, "a", 11, 10,
           8); /* next window: not joined with window [0, 10) */
    wj_row(&t, L, "a", 12, 10,
           8); /* a row of the next window that arrives early */
    wj_watermark(&t, 9);
    cr_assert_eq(th_collect_count(t.sink), 0,
                 "W = 9 < end 10: nothing fires\n%s", wj_text(&t));
    cr_assert_eq(th_metric(t.job, "*rows_in_state"), 9);
    wj_watermark(&t, 10);
    cr_assert_str_eq(wj_text(&t), "a,1,a,10@9\n"
                                  "a,1,a,10@9\n"
                                  "b,2,b,20@9\n"
                                  "b,2,b,21@9");
    cr_assert_eq(th_metric(t.job, "*rows_in_state"), 2,
                 "window [0, 10) is dropped, [10, 20) is kept");
    wj_watermark(&t, 20);
    wj_finish(&t);
    cr_assert_str_eq(wj_text(&t), "a,1,a,10@9\n"
                                  "a,1,a,10@9\n"
                                  "a,12,a,11@19\n"
                                  "b,2,b,20@9\n"
                                  "b,2,b,21@9");
    cr_assert_eq(th_metric(t.job, "*late_rows"), 0);
    cr_assert_eq(
        th_metric(t.job, "*windows_fired"), 4,
        "one firing per key and window: a, b, c of [0, 10), a of [10, 20)");
    wj_destroy(&t);
}

/* Outer joins pad what did not match when the window fires; a NULL key matches
 * nothing (also not NULL). */
static void outer_case(weir_join_type type, const char *want)
{
    wj t;
    wj_start(&t, type, 1, 3, false);
    wj_row(&t, L, "a", 1, 0, 1);
    wj_row(&t, L, "b", 2, 0, 2);
    wj_row(&t, L, NULL, 3, 0, 3);
    wj_row(&t, R, "a", 10, 0, 1);
    wj_row(&t, R, "c", 30, 0, 2);
    wj_row(&t, R, NULL, 40, 0, 3);
    wj_watermark(&t, 9);
    cr_assert_eq(th_collect_count(t.sink), 0,
                 "nothing is padded before the window ends");
    wj_watermark(&t, 10);
    cr_assert_str_eq(wj_text(&t), want);
    wj_finish(&t);
    cr_assert_str_eq(wj_text(&t), want,
                     "nothing more at the end of input: the state was dropped");
    cr_assert_eq(th_metric(t.job, "*rows_in_state"), 0);
    wj_destroy(&t);
}

Test(window_join, left_join_pads_unmatched_left_rows, .timeout = 60)
{
    outer_case(WEIR_JOIN_LEFT, "NULL,3,NULL,NULL@9\n"
                               "a,1,a,10@9\n"
                               "b,2,NULL,NULL@9");
}

Test(window_join, right_join_pads_unmatched_right_rows, .timeout = 60)
{
    outer_case(WEIR_JOIN_RIGHT, "NULL,NULL,NULL,40@9\n"
                                "NULL,NULL,c,30@9\n"
                                "a,1,a,10@9");
}

Test(window_join, full_join_pads_both_sides, .timeout = 60)
{
    outer_case(WEIR_JOIN_FULL, "NULL,3,NULL,NULL@9\n"
                               "NULL,NULL,NULL,40@9\n"
                               "NULL,NULL,c,30@9\n"
                               "a,1,a,10@9\n"
                               "b,2,NULL,NULL@9");
}

/* The residual decides the pairs; an outer row whose pairs all fail it is
 * padded. */
Test(window_join, residual_condition_decides_the_pairs, .timeout = 60)
{
    wj t;
    wj_start(&t, WEIR_JOIN_LEFT, 1, 3, true);
    wj_row(&t, L, "a", 5, 0, 1);
    wj_row(&t, L, "a", 50, 0, 1);
    wj_row(&t, R, "a", 10, 0, 1);
    wj_row(&t, R, "a", 20, 0, 1);
    wj_row(&t, R, "a", 3, 0, 1);
    wj_watermark(&t, 10);
    wj_finish(&t);
    cr_assert_str_eq(wj_text(&t), "a,5,a,10@9\n"
                                  "a,5,a,20@9\n"
                                  "a,50,NULL,NULL@9");
    wj_destroy(&t);
}

/* A key of several columns: (k, v) must both be equal. */
Test(window_join, several_key_columns, .timeout = 60)
{
    wj t;
    wj_start(&t, WEIR_JOIN_INNER, 2, 4, false);
    wj_row(&t, L, "a", 1, 0, 1);
    wj_row(&t, L, "a", 2, 0, 1);
    wj_row(&t, L, "b", 1, 0, 1);
    wj_row(&t, R, "a", 1, 0, 1);
    wj_row(&t, R, "b", 2, 0, 1);
    wj_row(&t, R, "b", 1, 10, 11);
    wj_finish(&t);
    cr_assert_str_eq(wj_text(&t), "a,1,a,1@9");
    wj_destroy(&t);
}

/* Once W >= end, a row of that window is late: dropped and counted, on either
 * side, also for outer joins. */
Test(window_join, late_rows_are_dropped_and_counted, .timeout = 60)
{
    wj t;
    wj_start(&t, WEIR_JOIN_FULL, 1, 3, false);
    wj_row(&t, L, "a", 1, 0, 1);
    wj_watermark(&t, 10);
    cr_assert_str_eq(wj_text(&t), "a,1,NULL,NULL@9");
    wj_row(&t, R, "a", 10, 0, 9); /* window [0, 10): late */
    wj_row(&t, L, "b", 2, 0, 9);  /* late */
    wj_row(&t, R, "a", 11, 10, 10);
    wj_row(&t, L, "a", 3, 10, 19); /* window [10, 20): on time (W = 10) */
    wj_watermark(&t, 20);
    wj_finish(&t);
    cr_assert_str_eq(wj_text(&t), "a,1,NULL,NULL@9\n"
                                  "a,3,a,11@19");
    cr_assert_eq(th_metric(t.job, "*late_rows"), 2);
    wj_destroy(&t);
}

/* The state holds the open windows only: each window's rows go when it fires.
 */
Test(window_join, state_is_released_when_the_window_fires, .timeout = 60)
{
    wj t;
    wj_start(&t, WEIR_JOIN_INNER, 1, 3, false);
    for (int64_t w = 0; w < 20; w++) {
        for (int i = 0; i < 5; i++) {
            char k[16];
            snprintf(k, sizeof k, "k%d", i);
            wj_row(&t, L, k, i, w * 10, w * 10 + i);
            wj_row(&t, R, k, i, w * 10, w * 10 + i);
        }
        wj_watermark(&t, w * 10 + 5);
        cr_assert_eq(th_metric(t.job, "*rows_in_state"), 10,
                     "window %" PRId64 " open: its 10 rows", w);
        wj_watermark(&t, w * 10 + 10);
        cr_assert_eq(th_metric(t.job, "*rows_in_state"), 0,
                     "window %" PRId64 " fired: nothing held", w);
        cr_assert_eq(th_collect_count(t.sink), (size_t)(w + 1) * 5);
    }
    wj_finish(&t);
    cr_assert_eq(th_metric(t.job, "*windows_fired"), 100);
    wj_destroy(&t);
}

/* ---- random workloads against a nested-loop join per window ---- */

typedef struct rrow {
    int side;
    int key; /* -1: NULL */
    int64_t v;
    int64_t ws;
    bool late; /* fed after W reached its window end */
} rrow;

static uint64_t rnd_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void key_text(int key, char *buf, size_t cap)
{
    if (key < 0)
        snprintf(buf, cap, "NULL");
    else
        snprintf(buf, cap, "k%d", key);
}

static void random_case(weir_join_type type, uint32_t parallelism,
                        uint64_t seed, const char *rocksdb_dir)
{
    enum { WINDOWS = 12, MAX_ROWS = 12 * 2 * 10 };
    uint64_t st = seed * 2654435761u + 1 + (uint64_t)type * 7919 + parallelism;
    rrow *rows = calloc(MAX_ROWS, sizeof *rows);
    size_t n = 0;
    wj t;
    memset(&t, 0, sizeof t);
    wj_start_on(&t, type, parallelism, 3, true, rocksdb_dir);
    for (int64_t w = 0; w < WINDOWS; w++) {
        /* rows of window w, some of window w + 1 early, some of window w - 1
         * late */
        for (int s = 0; s < 2; s++) {
            int m = (int)(rnd_next(&st) % 10);
            for (int i = 0; i < m && n < MAX_ROWS; i++) {
                uint64_t r = rnd_next(&st);
                rrow *x = &rows[n++];
                x->side = s;
                x->key = (int)(r % 5) - 1;
                x->v = (int64_t)((r >> 8) % 20);
                int64_t win = w;
                if ((r >> 16) % 8 == 0)
                    win = w + 1;
                else if ((r >> 16) % 8 == 1 && w > 0)
                    win = w - 1;
                x->ws = win * 10;
                x->late = win < w;
                char k[16];
                key_text(x->key, k, sizeof k);
                /* in the current window whatever the row's window: an early row
                 * must not move W past window w */
                int64_t ts = w * 10 + (int64_t)((r >> 24) % 10);
                th_source_row(t.src[s], 0, ts, x->key < 0 ? NULL : k, x->v,
                              x->ws, x->ws + 10);
            }
        }
        wj_watermark(&t, w * 10 + 10);
    }
    wj_finish(&t);
    /* the reference: per window and key, the pairs with lv < rv; unmatched rows
     * of an outer side padded */
    bool outer[2] = {type == WEIR_JOIN_LEFT || type == WEIR_JOIN_FULL,
                     type == WEIR_JOIN_RIGHT || type == WEIR_JOIN_FULL};
    char **want = NULL;
    size_t n_want = 0, cap = 0;
    bool *matched = calloc(n + 1, sizeof *matched);
    size_t n_late = 0;
    for (size_t a = 0; a < n; a++) {
        n_late += rows[a].late;
        if (rows[a].side != L || rows[a].late)
            continue;
        for (size_t b = 0; b < n; b++) {
            const rrow *x = &rows[a], *y = &rows[b];
            if (y->side != R || y->late || x->ws != y->ws || x->key < 0 ||
                x->key != y->key || !(x->v < y->v))
                continue;
            matched[a] = matched[b] = true;
            if (n_want == cap) {
                cap = cap ? cap * 2 : 64;
                want = realloc(want, cap * sizeof *want);
            }
            char line[128];
            snprintf(line, sizeof line,
                     "k%d,%" PRId64 ",k%d,%" PRId64 "@%" PRId64, x->key, x->v,
                     y->key, y->v, x->ws + 9);
            want[n_want++] = strdup(line);
        }
    }
    for (size_t a = 0; a < n; a++) {
        const rrow *x = &rows[a];
        if (x->late || matched[a] || !outer[x->side])
            continue;
        if (n_want == cap) {
            cap = cap ? cap * 2 : 64;
            want = realloc(want, cap * sizeof *want);
        }
        char k[16], line[128];
        key_text(x->key, k, sizeof k);
        if (x->side == L)
            snprintf(line, sizeof line, "%s,%" PRId64 ",NULL,NULL@%" PRId64, k,
                     x->v, x->ws + 9);
        else
            snprintf(line, sizeof line, "NULL,NULL,%s,%" PRId64 "@%" PRId64, k,
                     x->v, x->ws + 9);
        want[n_want++] = strdup(line);
    }
    qsort(want, n_want, sizeof *want, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n_want; i++)
        len += strlen(want[i]) + 1;
    char *text = calloc(1, len);
    for (size_t i = 0; i < n_want; i++) {
        strcat(text, want[i]);
        if (i + 1 < n_want)
            strcat(text, "\n");
        free(want[i]);
    }
    /* the collector sorts with strcmp too */
    cr_assert_str_eq(
        wj_text(&t), text,
        "%s join, parallelism %u, seed %" PRIu64 "\ngot:\n%s\nwant:\n%s",
        weir_join_type_name(type), parallelism, seed, wj_text(&t), text);
    cr_assert_eq(th_metric(t.job, "*late_rows"), (double)n_late,
                 "seed %" PRIu64, seed);
    cr_assert_eq(th_metric(t.job, "*rows_in_state"), 0, "seed %" PRIu64, seed);
    free(text);
    free(want);
    free(matched);
    free(rows);
    wj_destroy(&t);
}

static uint64_t test_seed(void)
{
    const char *s = getenv("WINDOW_JOIN_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
    fprintf(stderr,
            "window_join random test: seed %" PRIu64
            " (WINDOW_JOIN_TEST_SEED=%" PRIu64 " replays it)\n",
            seed, seed);
    return seed;
}

Test(window_join, random_workloads_match_a_nested_loop_join, .timeout = 120)
{
    uint64_t seed = test_seed();
    for (int type = WEIR_JOIN_INNER; type <= WEIR_JOIN_FULL; type++)
        for (uint32_t p = 1; p <= 2; p++)
            random_case((weir_join_type)type, p, seed, NULL);
}

/* The same on RocksDB: list state, its namespaces, clears and timers. */
Test(window_join, random_workloads_on_rocksdb, .timeout = 120)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    uint64_t seed = test_seed();
    char dir[] = "/tmp/weir-wjoin-rocks-XXXXXX";
    cr_assert(mkdtemp(dir));
    random_case(WEIR_JOIN_INNER, 2, seed, dir);
    random_case(WEIR_JOIN_FULL, 1, seed + 1, dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(window_join, spec_rejects_bad_configs)
{
    weir_schema *out = th_schema("a BIGINT, b BIGINT");
    weir_window_join_config c = {
        .type = WEIR_JOIN_INNER, .n_out = {1, 1}, .out_schema = out};
    weir_operator_spec spec;
    cr_assert_eq(weir_window_join_spec(&c, &spec), WEIR_EINVAL, "no key");
    c.keys[0].n = 1;
    c.keys[1].n = 2;
    cr_assert_eq(weir_window_join_spec(&c, &spec), WEIR_EINVAL,
                 "keys of different widths");
    c.keys[1].n = 1;
    c.n_out[1] = 2;
    cr_assert_eq(weir_window_join_spec(&c, &spec), WEIR_EINVAL,
                 "output columns do not add up");
    c.n_out[1] = 1;
    cr_assert_eq(weir_window_join_spec(&c, &spec), 0);
    spec.free_arg(spec.arg);
    weir_window_assign_config ac = {.assigner = weir_window_session(10, 0),
                                    .out_schema = out};
    cr_assert_eq(weir_window_assign_spec(&ac, &spec), WEIR_EINVAL,
                 "session windows are not assigned per row");
    weir_schema_destroy(out);
}

/* Window assignment: one row per HOP window containing the row's time, bounds
 * appended, kind and time kept. */
Test(window_join, window_assign_emits_a_row_per_window, .timeout = 60)
{
    weir_schema *in = th_schema("k BIGINT");
    weir_schema *out = th_schema("k BIGINT, window_start TIMESTAMP, window_end "
                                 "TIMESTAMP, window_time TIMESTAMP");
    th_source *src = th_vsource_create(in, 1);
    th_collect *sink = th_collect_create(TH_TS);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = th_source_spec(src, "src");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED};
    weir_stream st, a;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_window_assign_config ac = {.assigner = weir_window_hopping(5, 10, 0),
                                    .out_schema = out};
    weir_operator_spec spec;
    cr_assert_eq(weir_window_assign_spec(&ac, &spec), 0);
    cr_assert_eq(weir_job_operator(job, &st, 1, &spec, out, 1, &a), 0, "%s",
                 weir_job_error(job));
    weir_operator_spec sk = th_collect_spec(sink, "collect");
    cr_assert_eq(weir_job_sink(job, a, &sk, 1), 0);
    th_source_row(src, 0, 4, (int64_t)1);
    th_source_row(src, 0, 5, (int64_t)2);
    th_source_end_all(src);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    const char *got = th_collect_text(sink, true);
    cr_assert(strstr(got, "@4") && strstr(got, "@5"), "%s", got);
    cr_assert_eq(th_collect_count(sink), 4,
                 "two HOP(5, 10) windows per row:\n%s", got);
    weir_job_destroy(job);
    th_collect_destroy(sink);
    th_source_destroy(src);
    weir_schema_destroy(in);
    weir_schema_destroy(out);
}

/*
 * Open windows survive a checkpoint: rows of two windows are in state when
 * the job stops after a checkpoint; the job restored at parallelism 2 (key
 * groups move) gets the rest and joins both windows with the restored rows
 * (list state and timers come back from the checkpoint).
 */
Test(window_join, open_windows_are_restored_at_another_parallelism,
     .timeout = 120)
{
    char dir[] = "/tmp/weir-wjoin-ckpt-XXXXXX";
    cr_assert(mkdtemp(dir));
    wj t;
    memset(&t, 0, sizeof t);
    t.ckpt_dir = dir;
    wj_start_on(&t, WEIR_JOIN_FULL, 1, 3, false, NULL);
    wj_row(&t, L, "a", 1, 0, 1);
    wj_row(&t, L, "b", 2, 0, 2);
    wj_row(&t, R, "a", 10, 0, 3);
    wj_row(&t, L, "c", 3, 10, 4);
    wj_watermark(&t, 5);
    cr_assert_eq(th_metric(t.job, "*rows_in_state"), 4);
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(t.job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(t.job, id, GUARD_MS, &err), 0, "%s",
                 err.message);
    weir_job_stop(t.job);
    weir_job_wait(t.job);
    weir_job_destroy(t.job);
    cr_assert_eq(th_collect_count(t.sink), 0,
                 "no window fired before the stop");
    th_collect_destroy(t.sink);

    wj_start_on(&t, WEIR_JOIN_FULL, 2, 3, false, NULL);
    cr_assert(strstr(weir_job_restored_from(t.job), "chk-"),
              "restored from '%s'", weir_job_restored_from(t.job));
    wj_row(&t, R, "b", 20, 0, 6);
    wj_row(&t, R, "c", 30, 10, 7);
    wj_row(&t, R, "d", 40, 10, 8);
    wj_watermark(&t, 20);
    wj_finish(&t);
    cr_assert_str_eq(wj_text(&t), "NULL,NULL,d,40@19\n"
                                  "a,1,a,10@9\n"
                                  "b,2,b,20@9\n"
                                  "c,3,c,30@19");
    wj_destroy(&t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
