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
#include <time.h>

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

/* ---- watermarks ---- */

static weir_job *new_job(uint32_t parallelism, uint32_t batch_size, weir_clock *clock, int64_t idle_timeout_ms)
{
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = parallelism;
    cfg.batch_size = batch_size;
    cfg.idle_timeout_ms = idle_timeout_ms;
    if (clock)
        cfg.clock = *clock;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    return job;
}

Test(runtime, watermark_is_min_over_input_channels, .timeout = 60)
{
    weir_schema *s = th_schema("k BIGINT");
    th_source *src = th_usource_create(s, 2);
    th_collect *out = th_collect_create(0);
    weir_job *job = new_job(1, 16, NULL, 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 2, &st), 0); /* split i on source subtask i */
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, st, &sink, 1), 0);       /* two channels into one subtask */
    cr_assert_eq(weir_job_start(job), 0);

    th_source_row(src, 0, 100, (int64_t)1);
    cr_assert(th_source_wait_read(src, 0, GUARD_MS));
    cr_assert(th_collect_wait_count(out, 1, GUARD_MS));
    th_source_row(src, 1, 50, (int64_t)2);
    cr_assert(th_collect_wait_watermark(out, 50, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), 50, "min(100, 50) expected, got %" PRId64, th_collect_watermark(out));
    th_source_row(src, 1, 200, (int64_t)3);
    cr_assert(th_collect_wait_watermark(out, 100, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), 100);
    th_source_row(src, 0, 300, (int64_t)4);
    cr_assert(th_collect_wait_watermark(out, 200, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), 200);
    th_source_end_all(src);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    size_t n;
    const weir_ts *log = th_collect_watermarks(out, &n);
    weir_ts prev = WEIR_TS_MIN;
    for (size_t i = 0; i < n; i++) {
        cr_assert_gt(log[i], prev, "watermarks must increase");
        cr_assert(log[i] == 50 || log[i] == 100 || log[i] == 200 || log[i] == 300 || log[i] == WEIR_TS_MAX, "unexpected %" PRId64,
                  log[i]);
        prev = log[i];
    }
    cr_assert_eq(prev, WEIR_TS_MAX);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
}

static weir_job *windowed_job(th_source *src, th_collect *out, const weir_schema *os, weir_clock *clock,
                              int64_t idle_ms, int64_t delay_ms, uint32_t src_par)
{
    weir_job *job = new_job(1, 16, clock, idle_ms);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = delay_ms};
    weir_stream st, counted;
    cr_assert_eq(weir_job_source(job, &ss, &wm, src_par, &st), 0);
    uint32_t key = 0;
    weir_process_fn fn = {.open = wc_open, .process = wc_process_flush, .timer = wc_timer, .close = wc_close};
    cr_assert_eq(weir_job_process(job, weir_stream_key_by(st, &key, 1), os, &fn, &counted), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, counted, &sink, 1), 0);
    return job;
}

Test(runtime, idle_split_releases_then_holds_the_watermark, .timeout = 60)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_schema *os = th_schema("k BIGINT, window_end BIGINT, cnt BIGINT");
    th_source *src = th_usource_create(s, 2); /* both splits on the one source subtask */
    th_collect *out = th_collect_create(0);
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clock = weir_manual_clock_get(mc);
    weir_job *job = windowed_job(src, out, os, &clock, 1000, 0, 1);
    cr_assert_eq(weir_job_start(job), 0);

    th_source_row(src, 0, 5, (int64_t)1, (int64_t)0);
    th_source_row(src, 0, 15, (int64_t)1, (int64_t)0);
    cr_assert(th_source_wait_read(src, 0, GUARD_MS));
    weir_manual_clock_set(mc, 600);
    th_source_row(src, 0, 25, (int64_t)1, (int64_t)0); /* split 0 was active at 600 */
    cr_assert(th_source_wait_read(src, 0, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), WEIR_TS_MIN, "split 1 has said nothing: it holds the watermark");
    cr_assert_eq(th_collect_count(out), 0);

    /* Split 1 silent for the idle timeout: it stops holding the watermark back. */
    weir_manual_clock_set(mc, 1000);
    cr_assert(th_collect_wait_count(out, 2, GUARD_MS), "windows must fire once split 1 is idle");
    cr_assert(th_collect_wait_watermark(out, 25, GUARD_MS));
    cr_assert_str_eq(th_collect_text(out, true), "1,10,1\n1,20,1\n");

    /* Split 1 returns at 30: from now on it holds the watermark again (no going back). */
    th_source_row(src, 1, 30, (int64_t)2, (int64_t)0);
    cr_assert(th_source_wait_read(src, 1, GUARD_MS));
    th_source_row(src, 0, 45, (int64_t)1, (int64_t)0);
    cr_assert(th_collect_wait_watermark(out, 30, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), 30, "split 1 at 30 must hold the watermark, got %" PRId64,
                 th_collect_watermark(out));
    cr_assert(th_collect_wait_count(out, 3, GUARD_MS));
    cr_assert_str_eq(th_collect_text(out, true), "1,10,1\n1,20,1\n1,30,1\n");
    th_source_row(src, 1, 50, (int64_t)2, (int64_t)0);
    cr_assert(th_collect_wait_watermark(out, 45, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), 45);
    cr_assert(th_collect_wait_count(out, 4, GUARD_MS));
    cr_assert_str_eq(th_collect_text(out, true), "1,10,1\n1,20,1\n1,30,1\n2,40,1\n");

    th_source_end_all(src);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    cr_assert_str_eq(th_collect_text(out, true), "1,10,1\n1,20,1\n1,30,1\n1,50,1\n2,40,1\n2,60,1\n");
    weir_job_destroy(job);
    weir_manual_clock_destroy(mc);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
    weir_schema_destroy(os);
}

Test(runtime, end_of_input_fires_every_timer, .timeout = 60)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_schema *os = th_schema("k BIGINT, window_end BIGINT, cnt BIGINT");
    th_source *src = th_vsource_create(s, 1);
    for (int i = 0; i < 100; i++)
        th_source_row(src, 0, i, (int64_t)(i % 3), (int64_t)i);
    th_collect *out = th_collect_create(0);
    /* A delay larger than the data: no window can fire before the end of input. */
    weir_job *job = windowed_job(src, out, os, NULL, 0, 1000000, 1);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(th_collect_count(out), 30, "3 keys x 10 windows, got %zu", th_collect_count(out));
    cr_assert_eq(th_collect_watermark(out), WEIR_TS_MAX);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
    weir_schema_destroy(os);
}

/* ---- failures ---- */

static int fail_process(void *instance, weir_op_ctx *ctx, const weir_batch *in, uint32_t row, weir_batch *out)
{
    (void)instance;
    (void)out;
    int64_t v = WEIR_COL_I64(in, 1)[row];
    if (v == 77)
        return weir_op_fail(ctx, WEIR_EUSER, "boom at value %lld", (long long)v);
    return 0;
}

Test(runtime, operator_failure_fails_the_job_with_its_message, .timeout = 60)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    /* Unbounded input that never ends: the failure alone must stop every thread. */
    th_source *src = th_usource_create(s, 2);
    for (int i = 0; i < 100; i++)
        th_source_row(src, (uint32_t)(i % 2), i, (int64_t)(i % 5), (int64_t)i);
    th_collect *out = th_collect_create(0);
    weir_job *job = new_job(2, 8, NULL, 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_stream st, p;
    cr_assert_eq(weir_job_source(job, &ss, NULL, 2, &st), 0);
    uint32_t key = 0;
    weir_process_fn fn = {.process = fail_process};
    weir_schema *os = th_schema("k BIGINT");
    cr_assert_eq(weir_job_process(job, weir_stream_key_by(st, &key, 1), os, &fn, &p), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, p, &sink, 2), 0);
    int rc = weir_job_run(job);
    cr_assert_eq(rc, WEIR_EUSER);
    cr_assert(strstr(weir_job_error(job), "boom at value 77") != NULL, "error: %s", weir_job_error(job));
    cr_assert(strstr(weir_job_error(job), "process") != NULL, "names the operator: %s", weir_job_error(job));
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
    weir_schema_destroy(os);
}

Test(runtime, source_failure_fails_the_job_with_its_message, .timeout = 60)
{
    weir_schema *s = th_schema("k BIGINT");
    th_source *src = th_vsource_create(s, 1);
    for (int i = 0; i < 50; i++)
        th_source_row(src, 0, i, (int64_t)i);
    th_source_fail_at(src, 0, 20, "events.json:21:5: expected a number");
    th_collect *out = th_collect_create(0);
    weir_job *job = new_job(1, 8, NULL, 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, NULL, 1, &st), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, weir_stream_partition(st, WEIR_PART_REBALANCE), &sink, 2), 0);
    cr_assert_eq(weir_job_run(job), WEIR_EPARSE);
    cr_assert(strstr(weir_job_error(job), "events.json:21:5: expected a number") != NULL, "error: %s",
              weir_job_error(job));
    cr_assert_not(th_collect_finished(out), "a failed job does not finish its sinks");
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
}

Test(runtime, graph_errors_are_reported, .timeout = 30)
{
    weir_schema *s = th_schema("k BIGINT");
    th_source *src = th_vsource_create(s, 1);
    weir_job *job = new_job(1, 8, NULL, 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_stream st, p;
    cr_assert_eq(weir_job_source(job, &ss, NULL, 1, &st), 0);
    weir_process_fn fn = {.process = fail_process};
    cr_assert_eq(weir_job_process(job, st, s, &fn, &p), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "keyed stream") != NULL, "%s", weir_job_error(job));
    cr_assert_eq(weir_job_run(job), WEIR_EINVAL, "a broken graph does not run");
    weir_job_destroy(job);
    th_source_destroy(src);
    weir_schema_destroy(s);
}

/* ---- backpressure ---- */

typedef struct slow_sink {
    th_source *src;
    uint64_t received;
    uint64_t max_in_flight;
} slow_sink;

static int slow_create(void *arg, const weir_op_info *info, void **out)
{
    (void)info;
    *out = arg;
    return 0;
}

static int slow_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx;
    (void)input;
    slow_sink *s = op;
    uint64_t in_flight = th_source_rows_read(s->src) - s->received;
    if (in_flight > s->max_in_flight)
        s->max_in_flight = in_flight;
    s->received += b->n_rows;
    struct timespec ts = {0, 100000}; /* a deliberately slow sink: 100 us per batch */
    nanosleep(&ts, NULL);
    return 0;
}

static void slow_close(void *op) { (void)op; }

static const weir_operator_class slow_cls = {.name = "slow", .process = slow_process, .close = slow_close};

Test(runtime, backpressure_bounds_rows_in_flight, .timeout = 120)
{
    enum { N = 40000, BATCH = 32, CAP = 2 };
    weir_schema *s = th_schema("k BIGINT");
    th_source *src = th_vsource_create(s, 1);
    for (int i = 0; i < N; i++)
        th_source_row(src, 0, i, (int64_t)i);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.batch_size = BATCH;
    cfg.channel_capacity = CAP;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = th_source_spec(src, "fast");
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, NULL, 1, &st), 0);
    slow_sink sk = {.src = src};
    weir_operator_spec sink = {.name = "slow", .cls = &slow_cls, .create = slow_create, .arg = &sk};
    uint32_t key = 0;
    cr_assert_eq(weir_job_sink(job, weir_stream_key_by(st, &key, 1), &sink, 1), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(sk.received, N);
    /*
     * What may be in flight: the source's read batch, the producer's staging
     * batch, CAP queued batches and the batch the sink holds - independent of N.
     */
    uint64_t bound = (uint64_t)(CAP + 3) * BATCH;
    cr_assert_leq(sk.max_in_flight, bound, "%llu rows in flight, bound %llu", (unsigned long long)sk.max_in_flight,
                  (unsigned long long)bound);
    cr_assert_leq(th_metric(job, "task1.0.input_batches_allocated"), CAP + 2);
    cr_assert_gt(th_metric(job, "task0.0.backpressured_ns"), 0, "the source must have waited for the sink");
    weir_job_destroy(job);
    th_source_destroy(src);
    weir_schema_destroy(s);
}

/* ---- explain ---- */

static int identity_map(void *ud, const weir_batch *in, weir_batch *out)
{
    (void)ud;
    return weir_batch_copy(out, in);
}

Test(runtime, explain_shows_tasks_chaining_and_exchanges, .timeout = 30)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    th_source *src = th_vsource_create(s, 1);
    th_collect *out = th_collect_create(0);
    weir_job *job = new_job(2, 8, NULL, 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_stream st, f, m, p;
    cr_assert_eq(weir_job_source(job, &ss, NULL, 2, &st), 0);
    cr_assert_eq(weir_job_filter(job, st, keep_even, NULL, &f), 0);
    cr_assert_eq(weir_job_map(job, f, s, identity_map, NULL, &m), 0);
    uint32_t key = 0;
    weir_process_fn fn = {.process = fail_process};
    cr_assert_eq(weir_job_process(job, weir_stream_key_by(m, &key, 1), s, &fn, &p), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, p, &sink, 1), 0);
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir_job_explain(job, &b), 0);
    const char *text = (const char *)b.data;
    cr_assert(strstr(text, "task 0 (parallelism 2): Source[events] -> filter -> map  (chained)"), "%s", text);
    cr_assert(strstr(text, "-> KEYED(k) max_parallelism=128 to task 1 (process, input 0)"), "%s", text);
    cr_assert(strstr(text, "task 1 (parallelism 2): process\n"), "%s", text);
    cr_assert(strstr(text, "-> REBALANCE to task 2 (collect, input 0)"), "%s", text);
    cr_assert(strstr(text, "task 2 (parallelism 1): Sink[collect]"), "%s", text);
    weir_buf_fini(&b);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
}
