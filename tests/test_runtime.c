/*
 * tests/test_runtime.c - the runtime: graph, chaining, channels, exchanges,
 * watermarks, idleness, timers, backpressure, failures, explain.
 *
 * Jobs run on real threads. Tests that involve processing time drive a
 * manual clock and wait for the effect on a condition variable (with a
 * generous real-time guard against hangs); nothing sleeps to let time pass.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/harness.h"
#include "weir/weir.h"

#define GUARD_MS 20000

static bool keep_even(void *ud, const weir_batch *b, uint32_t row)
{
    (void)ud;
    return WEIR_COL_I64(b, 0)[row] % 2 == 0;
}

Test(runtime, source_filter_sink_end_to_end, .timeout = 30)
{
    weir_schema *s = th_schema("id BIGINT, name STRING");
    th_source *src = th_vsource_create(s, 1);
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        th_source_row(src, 0, i, (int64_t)i, name);
    }
    th_collect *out = th_collect_create(0);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.batch_size = 4;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = th_source_spec(src, "numbers");
    weir_stream st, f;
    cr_assert_eq(weir_job_source(job, &ss, NULL, 1, &st), 0);
    cr_assert_eq(weir_job_filter(job, st, keep_even, NULL, &f), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, f, &sink, 1), 0);
    int rc = weir_job_run(job);
    cr_assert_eq(rc, 0, "run: %s", weir_job_error(job));
    cr_assert_str_eq(th_collect_text(out, false), "0,n0\n2,n2\n4,n4\n6,n6\n8,n8\n");
    cr_assert(th_collect_finished(out));
    cr_assert_eq(th_collect_watermark(out), WEIR_TS_MAX);
    cr_assert_eq(th_metric(job, "task0.numbers.0.records_out"), 10);
    cr_assert_eq(th_metric(job, "task0.filter.0.records_in"), 10);
    cr_assert_eq(th_metric(job, "task0.filter.0.records_out"), 5);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
}

/* ---- a keyed, event-time windowed count written as a process function ---- */

#define WIN 10
#define LATE_TAG 1

typedef struct wc_inst {
    weir_state *count;
    weir_batch *late;          /* late rows, sent to side output LATE_TAG */
    uint64_t *late_counter;
} wc_inst;

static int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

static int wc_open(void *ud, weir_op_ctx *ctx, void **instance)
{
    (void)ud;
    wc_inst *w = calloc(1, sizeof *w);
    weir_state_desc d = {.name = "count", .kind = WEIR_STATE_VALUE};
    int rc = weir_op_get_state(ctx, &d, &w->count);
    if (rc) {
        free(w);
        return rc;
    }
    w->late = weir_batch_create(weir_op_info_of(ctx)->input_schemas[0], 64);
    w->late_counter = weir_op_counter(ctx, "late_records");
    *instance = w;
    return 0;
}

static int wc_process(void *instance, weir_op_ctx *ctx, const weir_batch *in, uint32_t row, weir_batch *out)
{
    (void)out;
    wc_inst *w = instance;
    weir_ts ts = in->ts[row];
    int64_t end = floor_div(ts, WIN) * WIN + WIN;
    if (end <= weir_op_watermark(ctx)) {
        /* Every window of this record has fired: it is late. */
        (*w->late_counter)++;
        weir_batch_copy_row(w->late, in, row);
        if (weir_batch_full(w->late)) {
            int rc = weir_op_emit_side(ctx, LATE_TAG, w->late);
            weir_batch_reset(w->late);
            return rc;
        }
        return 0;
    }
    const void *v;
    size_t len;
    int64_t n = 0;
    if (weir_value_get(w->count, &end, sizeof end, &v, &len) == 0)
        memcpy(&n, v, sizeof n);
    n++;
    int rc = weir_value_put(w->count, &end, sizeof end, &n, sizeof n);
    if (!rc)
        rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, end, end);
    return rc;
}

static int wc_timer(void *instance, weir_op_ctx *ctx, const weir_timer *t, weir_batch *out)
{
    wc_inst *w = instance;
    if (w->late->n_rows) {
        int rc = weir_op_emit_side(ctx, LATE_TAG, w->late);
        weir_batch_reset(w->late);
        if (rc)
            return rc;
    }
    int64_t end = t->ns;
    const void *v;
    size_t len;
    int64_t n = 0;
    if (weir_value_get(w->count, &end, sizeof end, &v, &len) == 0)
        memcpy(&n, v, sizeof n);
    int64_t key;
    memcpy(&key, t->key + 1, sizeof key); /* key bytes: NULL flag, then the BIGINT */
    int r = weir_batch_append_row(out);
    WEIR_COL_I64(out, 0)[r] = key;
    WEIR_COL_I64(out, 1)[r] = end;
    WEIR_COL_I64(out, 2)[r] = n;
    out->ts[r] = end - 1;
    return weir_state_clear(w->count, &end, sizeof end);
}

static void wc_close(void *instance)
{
    wc_inst *w = instance;
    weir_batch_destroy(w->late);
    free(w);
}

static int wc_flush_late(void *instance, weir_op_ctx *ctx)
{
    wc_inst *w = instance;
    int rc = 0;
    if (w->late->n_rows)
        rc = weir_op_emit_side(ctx, LATE_TAG, w->late);
    weir_batch_reset(w->late);
    return rc;
}

typedef struct keyed_run {
    char *result;       /* sorted output lines */
    char *late;         /* sorted late lines */
    double late_count;
} keyed_run;

/* Collects late rows at the end of every batch of the process operator too. */
static int wc_process_flush(void *instance, weir_op_ctx *ctx, const weir_batch *in, uint32_t row, weir_batch *out)
{
    int rc = wc_process(instance, ctx, in, row, out);
    if (!rc && row + 1 == in->n_rows)
        rc = wc_flush_late(instance, ctx);
    return rc;
}

static keyed_run run_keyed(th_source *src, const weir_schema *out_schema, uint32_t parallelism,
                           uint32_t batch_size, int64_t delay_ms)
{
    th_collect *out = th_collect_create(0);
    th_collect *late = th_collect_create(0);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.batch_size = batch_size;
    cfg.parallelism = parallelism;
    cfg.channel_capacity = 4;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = delay_ms};
    weir_stream s, counted;
    cr_assert_eq(weir_job_source(job, &ss, &wm, parallelism, &s), 0);
    uint32_t key = 0;
    weir_process_fn fn = {.open = wc_open, .process = wc_process_flush, .timer = wc_timer, .close = wc_close};
    cr_assert_eq(weir_job_process(job, weir_stream_key_by(s, &key, 1), out_schema, &fn, &counted), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, counted, &sink, parallelism), 0);
    weir_operator_spec lsink = th_collect_spec(late, "late");
    cr_assert_eq(weir_job_sink(job, weir_stream_side(counted, LATE_TAG), &lsink, 1), 0);
    int rc = weir_job_run(job);
    cr_assert_eq(rc, 0, "run: %s", weir_job_error(job));
    keyed_run r = {strdup(th_collect_text(out, true)), strdup(th_collect_text(late, true)),
                   th_metric(job, "*.process.*.late_records")};
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_collect_destroy(late);
    return r;
}

static unsigned test_seed(void)
{
    const char *e = getenv("WEIR_TEST_SEED");
    unsigned seed = e ? (unsigned)strtoul(e, NULL, 10) : 12345u;
    fprintf(stderr, "seed %u (set WEIR_TEST_SEED to change)\n", seed);
    return seed;
}

static int cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The sequential reference: records one at a time, watermark advanced after each. */
static void reference(const int64_t *keys, const int64_t *ts, int n, int64_t delay, char **result, int *n_late)
{
    enum { MAXK = 64, MAXW = 16384 };
    static int64_t counts[MAXK][MAXW];
    memset(counts, 0, sizeof counts);
    weir_ts wm = WEIR_TS_MIN, max_ts = WEIR_TS_MIN;
    *n_late = 0;
    for (int i = 0; i < n; i++) {
        int64_t end = floor_div(ts[i], WIN) * WIN + WIN;
        if (end <= wm)
            (*n_late)++;
        else
            counts[keys[i]][end / WIN]++;
        if (ts[i] > max_ts)
            max_ts = ts[i];
        if (max_ts - delay > wm)
            wm = max_ts - delay;
    }
    /* Format like the job's output: key,end,count - sorted as text. */
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    char **lines = malloc(sizeof *lines * MAXK * MAXW);
    int nl = 0;
    for (int k = 0; k < MAXK; k++)
        for (int w = 0; w < MAXW; w++)
            if (counts[k][w]) {
                char l[64];
                snprintf(l, sizeof l, "%d,%d,%" PRId64, k, w * WIN, counts[k][w]);
                lines[nl++] = strdup(l);
            }
    qsort(lines, (size_t)nl, sizeof *lines, cmp_line);
    for (int i = 0; i < nl; i++) {
        len += (size_t)snprintf(buf + len, cap - len, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    *result = buf;
}

Test(runtime, keyed_results_independent_of_parallelism_and_batch_size, .timeout = 120)
{
    enum { N = 3000, KEYS = 17 };
    unsigned seed = test_seed();
    srand(seed);
    static int64_t keys[N], ts[N];
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_schema *os = th_schema("k BIGINT, window_end BIGINT, cnt BIGINT");
    th_source *src = th_vsource_create(s, 1);
    for (int i = 0; i < N; i++) {
        keys[i] = rand() % KEYS;
        /* Mostly ascending with jitter; every 50th record far behind (late). */
        ts[i] = 1000 + i * 3 + rand() % 40 - 20;
        if (i % 50 == 49)
            ts[i] -= 200;
        th_source_row(src, 0, ts[i], keys[i], (int64_t)i);
    }
    char *expect;
    int n_late;
    reference(keys, ts, N, 15, &expect, &n_late);
    cr_assert_gt(n_late, 0, "the data must contain late records");
    uint32_t pars[] = {1, 2, 4}, sizes[] = {1, 7, 1024};
    char *first_late = NULL;
    for (int p = 0; p < 3; p++)
        for (int b = 0; b < 3; b++) {
            keyed_run r = run_keyed(src, os, pars[p], sizes[b], 15);
            cr_assert_str_eq(r.result, expect, "parallelism %u batch %u differs from the sequential result",
                             pars[p], sizes[b]);
            cr_assert_eq((int)r.late_count, n_late, "parallelism %u batch %u: %d late, expected %d", pars[p],
                         sizes[b], (int)r.late_count, n_late);
            if (!first_late)
                first_late = strdup(r.late);
            else
                cr_assert_str_eq(r.late, first_late);
            free(r.result);
            free(r.late);
        }
    free(first_late);
    free(expect);
    th_source_destroy(src);
    weir_schema_destroy(s);
    weir_schema_destroy(os);
}
