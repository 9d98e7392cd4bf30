/*
 * tests/test_window_job.c - the window operator in jobs built with the C
 * API (source -> keyed exchange -> window -> sinks), with the aggregate
 * functions of the agg module: the seed's worked example end to end with
 * its late side output and counter, aggregates over slices against a brute
 * force, the typed COUNT/SUM fast path against the agg module, early and
 * processing-time firings on a manual clock, and checkpoint/restore into a
 * different parallelism.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "runtime/checkpoint.h"
#include "support/harness.h"
#include "window/window_internal.h"

#define GUARD_MS 20000

static weir_agg bind(const char *name, const weir_schema *s, int32_t col, double param)
{
    weir_agg a;
    weir_error err = {0};
    cr_assert_eq(weir_agg_bind(name, s, col, param, &a, &err), 0, "%s: %s", name, err.message);
    return a;
}

Test(window_job, seed_example_end_to_end, .timeout = 60)
{
    weir_schema *s = th_schema("ts TIMESTAMP, v BIGINT");
    s->rowtime = 0;
    th_source *src = th_vsource_create(s, 1);
    const int64_t ev[][2] = {{1000, 10}, {3000, 20}, {2000, 15}, {12000, 50}, {7000, 25}, {15000, 100}, {4000, 999}};
    for (int i = 0; i < 7; i++)
        th_source_row(src, 0, ev[i][0], ev[i][0], ev[i][1]);
    weir_job_config jc;
    weir_job_config_init(&jc);
    weir_job *job;
    cr_assert_eq(weir_job_create(&jc, &job), 0);
    weir_source_spec ss = th_source_spec(src, "rides");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 3000};
    weir_stream st, win;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = weir_window_tumbling(10000, 0);
    weir_agg aggs[2] = {bind("SUM", s, 1, 0), bind("COUNT", s, -1, 0)};
    const char *names[] = {"total", "cnt"};
    spec.aggs = aggs;
    spec.n_aggs = 2;
    spec.agg_names = names;
    spec.window_time = true;
    weir_error err = {0};
    cr_assert_eq(weir_job_window(job, st, s, &spec, 2, &win, &err), 0, "%s", err.message);
    th_collect *out = th_collect_create(TH_KIND | TH_TS), *late = th_collect_create(TH_TS);
    weir_operator_spec k1 = th_collect_spec(out, "results"), k2 = th_collect_spec(late, "late");
    cr_assert_eq(weir_job_sink(job, win, &k1, 1), 0);
    cr_assert_eq(weir_job_sink(job, weir_stream_side(win, WEIR_WINDOW_LATE_TAG), &k2, 1), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    cr_assert_str_eq(th_collect_text(out, false),
                     "+I 1970-01-01 00:00:00.000,1970-01-01 00:00:10.000,1970-01-01 00:00:09.999,70,4@9999\n"
                     "+I 1970-01-01 00:00:10.000,1970-01-01 00:00:20.000,1970-01-01 00:00:19.999,150,2@19999\n");
    cr_assert_str_eq(th_collect_text(late, false),
                     "1970-01-01 00:00:04.000,999,1970-01-01 00:00:12.000,8000@4000\n");
    cr_assert_eq(th_metric(job, "*late_records"), 1.0);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_collect_destroy(late);
    th_source_destroy(src);
    weir_schema_destroy(s);
}

Test(window_job, agg_functions_over_hopping_slices_equal_brute_force, .timeout = 60)
{
    weir_schema *in = th_schema("k BIGINT, x BIGINT, d DOUBLE, s STRING");
    const char *fn[] = {"MIN", "MAX", "AVG", "COUNT_DISTINCT", "FIRST_VALUE", "LAST_VALUE", "SUM", "MAX"};
    const int32_t col[] = {1, 2, 1, 3, 3, 1, 2, 3};
    enum { NA = 8, N = 600 };
    weir_agg aggs[NA];
    for (int i = 0; i < NA; i++)
        aggs[i] = bind(fn[i], in, col[i], 0);
    for (int kind = 0; kind < 3; kind++) {
        weir_window_spec spec;
        weir_window_spec_init(&spec);
        spec.assigner = kind == 0   ? weir_window_hopping(10, 40, 0)
                        : kind == 1 ? weir_window_cumulating(10, 40, 0)
                                    : weir_window_session(7, 0);
        spec.key.n = 1;
        spec.key.cols[0] = 0;
        spec.aggs = aggs;
        spec.n_aggs = NA;
        weir_schema *os, *ls;
        weir_error err = {0};
        cr_assert_eq(weir_window_output_schema(&spec, in, &os, &err), 0, "%s", err.message);
        cr_assert_eq(weir_window_late_schema(in, &ls), 0);
        weir_batch *out = weir_batch_create(os, 64);
        weir__wcore_io io = {.emit = th_append_rows, .ud = &out};
        weir__wcore *core;
        cr_assert_eq(weir__wcore_create(&spec, in, os, ls, 128, &io, &core, &err), 0, "%s", err.message);
        /* in time order (FIRST/LAST_VALUE follow arrival order), three keys, NULLs */
        weir_batch *b = weir_batch_create(in, N);
        srand(7 + kind);
        int64_t t = 0;
        for (int i = 0; i < N; i++) {
            int r = weir_batch_append_row(b);
            t += rand() % 4;
            b->ts[r] = t;
            WEIR_COL_I64(b, 0)[r] = rand() % 3;
            if (rand() % 8 == 0)
                weir_batch_set_null(b, 1, (uint32_t)r);
            else
                WEIR_COL_I64(b, 1)[r] = rand() % 1000 - 500;
            WEIR_COL_F64(b, 2)[r] = (rand() % 1000) / 8.0;
            char sv[8];
            snprintf(sv, sizeof sv, "s%d", rand() % 20);
            weir_batch_set_str(b, 3, (uint32_t)r, sv, strlen(sv));
        }
        cr_assert_eq(weir__wcore_process(core, b, WEIR_TS_MIN, 0), 0);
        cr_assert_eq(weir__wcore_finish(core, 0), 0);
        /* brute force: every result row's window, recomputed from the rows it covers */
        weir_batch *one = weir_batch_create(os, 1);
        for (uint32_t r = 0; r < out->n_rows; r++) {
            int64_t key = WEIR_COL_I64(out, 0)[r];
            int64_t ws = WEIR_COL_I64(out, 1)[r], we = WEIR_COL_I64(out, 2)[r];
            weir_batch_reset(one);
            int orow = weir_batch_append_row(one);
            WEIR_COL_I64(one, 0)[orow] = key;
            WEIR_COL_I64(one, 1)[orow] = ws;
            WEIR_COL_I64(one, 2)[orow] = we;
            for (int a = 0; a < NA; a++) {
                uint64_t acc[64];
                cr_assert_leq(weir_agg_acc_size(&aggs[a]), sizeof acc);
                weir_agg_init(&aggs[a], acc);
                for (uint32_t i = 0; i < b->n_rows; i++)
                    if (WEIR_COL_I64(b, 0)[i] == key && b->ts[i] >= ws && b->ts[i] < we)
                        cr_assert_eq(weir_agg_add(&aggs[a], acc, b, i), 0);
                weir_batch_set_valid(one, 3 + a, 0);
                cr_assert_eq(aggs[a].cls->result(&aggs[a], acc, one, 3 + (uint32_t)a, 0), 0);
                weir_agg_destroy(&aggs[a], acc);
            }
            char want[512], got[512];
            th_format_row(one, 0, want, sizeof want);
            th_format_row(out, r, got, sizeof got);
            cr_assert_str_eq(got, want, "window kind %d row %u", kind, r);
        }
        cr_assert_gt(out->n_rows, 100);
        weir_batch_destroy(one);
        weir_batch_destroy(b);
        weir_batch_destroy(out);
        weir__wcore_destroy(core);
        weir_schema_destroy(os);
        weir_schema_destroy(ls);
    }
    weir_schema_destroy(in);
}

Test(window_job, typed_fast_path_equals_agg_module, .timeout = 60)
{
    weir_schema *in = weir_schema_create();
    weir_schema_add(in, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(in, "i", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(in, "b", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(in, "d", weir_type_make(WEIR_TYPE_DOUBLE, true));
    weir_schema_add(in, "m", weir_type_decimal(10, 2, true));
    weir_agg aggs[6] = {bind("COUNT", in, -1, 0), bind("COUNT", in, 1, 0), bind("SUM", in, 1, 0),
                        bind("SUM", in, 2, 0),    bind("SUM", in, 3, 0),   bind("SUM", in, 4, 0)};
    weir_batch *b = weir_batch_create(in, 1000);
    srand(11);
    for (int i = 0; i < 1000; i++) {
        int r = weir_batch_append_row(b);
        b->ts[r] = i * 3 - rand() % 40;
        WEIR_COL_I64(b, 0)[r] = rand() % 5;
        for (uint32_t c = 1; c <= 4; c++)
            if (rand() % 6 == 0)
                weir_batch_set_null(b, c, (uint32_t)r);
        WEIR_COL_I32(b, 1)[r] = rand() - RAND_MAX / 2; /* large: INT sums must widen */
        WEIR_COL_I64(b, 2)[r] = (int64_t)rand() * 1000;
        WEIR_COL_F64(b, 3)[r] = (rand() % 100000) / 16.0; /* exact in binary: order-independent sums */
        WEIR_COL_I64(b, 4)[r] = rand() % 100000;
        if (r > 0 && rand() % 10 == 0) {
            /* retract an earlier row: same key, time and values */
            int p = rand() % r;
            if (b->kind[p] == WEIR_ROW_INSERT) {
                b->n_rows--;
                cr_assert_eq(weir_batch_copy_row(b, b, (uint32_t)p), 0);
                b->kind[r] = WEIR_ROW_DELETE;
                b->kind[p] = WEIR_ROW_UPDATE_AFTER; /* retracted once only */
            }
        }
    }
    weir_batch *res[2];
    weir_schema *oss[2];
    for (int fast = 0; fast < 2; fast++) {
        weir_window_spec spec;
        weir_window_spec_init(&spec);
        spec.assigner = weir_window_hopping(20, 60, 5);
        spec.key.n = 1;
        spec.key.cols[0] = 0;
        spec.aggs = aggs;
        spec.n_aggs = 6;
        spec.no_fast_path = !fast;
        weir_schema *os, *ls;
        weir_error err = {0};
        cr_assert_eq(weir_window_output_schema(&spec, in, &os, &err), 0);
        cr_assert_eq(weir_window_late_schema(in, &ls), 0);
        weir_batch *out = weir_batch_create(os, 64);
        weir__wcore_io io = {.emit = th_append_rows, .ud = &out};
        weir__wcore *core;
        cr_assert_eq(weir__wcore_create(&spec, in, os, ls, 100, &io, &core, &err), 0, "%s", err.message);
        cr_assert_eq(weir__wcore_process(core, b, WEIR_TS_MIN, 0), 0);
        cr_assert_eq(weir__wcore_finish(core, 0), 0);
        res[fast] = out;
        oss[fast] = os;
        weir__wcore_destroy(core);
        weir_schema_destroy(ls);
        if (fast) {
            cr_assert_eq(res[0]->n_rows, res[1]->n_rows);
            cr_assert_gt(res[0]->n_rows, 100);
            for (uint32_t r = 0; r < res[0]->n_rows; r++) {
                char x[256], y[256];
                th_format_row(res[0], r, x, sizeof x);
                th_format_row(res[1], r, y, sizeof y);
                cr_assert_str_eq(y, x, "row %u: fast path differs from the agg module", r);
            }
            weir_batch_destroy(res[0]);
            weir_batch_destroy(res[1]);
            weir_schema_destroy(oss[0]);
            weir_schema_destroy(oss[1]);
        }
    }
    weir_batch_destroy(b);
    weir_schema_destroy(in);
}

/* ---- processing time on a manual clock, through the runtime ---- */

static weir_job *clock_job(th_source *src, const weir_schema *s, weir_clock *clock, weir_window_spec *spec,
                           th_collect *out)
{
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.clock = *clock;
    weir_job *job;
    cr_assert_eq(weir_job_create(&jc, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st, win;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_error err = {0};
    cr_assert_eq(weir_job_window(job, st, s, spec, 1, &win, &err), 0, "%s", err.message);
    weir_operator_spec k = th_collect_spec(out, "results");
    cr_assert_eq(weir_job_sink(job, win, &k, 1), 0);
    return job;
}

Test(window_job, early_firings_on_the_manual_clock, .timeout = 60)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_agg aggs[2] = {bind("COUNT", s, -1, 0), bind("SUM", s, 1, 0)};
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = weir_window_tumbling(10000, 0);
    spec.key.n = 1;
    spec.aggs = aggs;
    spec.n_aggs = 2;
    spec.trigger.early_interval_ms = 1000;
    spec.accumulation = WEIR_ACC_RETRACTING;
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clock = weir_manual_clock_get(mc);
    th_source *src = th_usource_create(s, 1);
    th_collect *out = th_collect_create(TH_KIND);
    weir_job *job = clock_job(src, s, &clock, &spec, out);
    cr_assert_eq(weir_job_start(job), 0);
    /* each row moves the watermark (delay 0): once the sink sees it, the window processed the row */
    th_source_row(src, 0, 1000, (int64_t)1, (int64_t)5);
    cr_assert(th_collect_wait_watermark(out, 1000, GUARD_MS));
    weir_manual_clock_set(mc, 999);
    cr_assert_eq(th_collect_count(out), 0);
    weir_manual_clock_set(mc, 1000);
    cr_assert(th_collect_wait_count(out, 1, GUARD_MS), "an early firing 1000 ms after the first record");
    cr_assert_str_eq(th_collect_line(out, 0), "+I 1,1970-01-01 00:00:00.000,1970-01-01 00:00:10.000,1,5");
    th_source_row(src, 0, 2000, (int64_t)1, (int64_t)7);
    cr_assert(th_collect_wait_watermark(out, 2000, GUARD_MS));
    weir_manual_clock_set(mc, 2000);
    cr_assert(th_collect_wait_count(out, 3, GUARD_MS));
    cr_assert_str_eq(th_collect_line(out, 1), "-U 1,1970-01-01 00:00:00.000,1970-01-01 00:00:10.000,1,5");
    cr_assert_str_eq(th_collect_line(out, 2), "+U 1,1970-01-01 00:00:00.000,1970-01-01 00:00:10.000,2,12");
    th_source_end_all(src);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(th_collect_count(out), 3, "nothing new when the window ends");
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

/*
 * A stop is not the end of the input: the window whose end the watermark
 * has passed fires, the open one does not (weir_job_stop); a drain
 * (weir_job_stop_drain) makes it an end of input, so the open one fires too.
 */
static void stop_case(bool drain, const char *want)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_agg aggs[2] = {bind("COUNT", s, -1, 0), bind("SUM", s, 1, 0)};
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = weir_window_tumbling(1000, 0);
    spec.key.n = 1;
    spec.aggs = aggs;
    spec.n_aggs = 2;
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clock = weir_manual_clock_get(mc);
    th_source *src = th_usource_create(s, 1);
    th_collect *out = th_collect_create(TH_KIND);
    weir_job *job = clock_job(src, s, &clock, &spec, out);
    cr_assert_eq(weir_job_start(job), 0);
    th_source_row(src, 0, 100, (int64_t)1, (int64_t)5);
    th_source_row(src, 0, 900, (int64_t)1, (int64_t)6);
    th_source_row(src, 0, 1500, (int64_t)1, (int64_t)7); /* W = 1500: [0, 1000) fires */
    cr_assert(th_collect_wait_count(out, 1, GUARD_MS));
    if (drain)
        weir_job_stop_drain(job);
    else
        weir_job_stop(job);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    cr_assert_str_eq(th_collect_text(out, true), want);
    if (drain)
        cr_assert(th_collect_finished(out), "a drain ends the input: finish runs");
    else
        cr_assert(th_collect_stopped(out) && !th_collect_finished(out), "a stop runs stop hooks, not finish");
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

Test(window_job, a_stop_fires_no_open_window, .timeout = 60)
{
    stop_case(false, "+I 1,1970-01-01 00:00:00.000,1970-01-01 00:00:01.000,2,11\n");
}

Test(window_job, a_drain_fires_every_window, .timeout = 60)
{
    stop_case(true, "+I 1,1970-01-01 00:00:00.000,1970-01-01 00:00:01.000,2,11\n"
                    "+I 1,1970-01-01 00:00:01.000,1970-01-01 00:00:02.000,1,7\n");
}

Test(window_job, processing_time_windows_on_the_manual_clock, .timeout = 60)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_agg aggs[2] = {bind("COUNT", s, -1, 0), bind("SUM", s, 1, 0)};
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = weir_window_tumbling(1000, 0);
    spec.time_domain = WEIR_TIME_PROCESSING;
    spec.key.n = 1;
    spec.aggs = aggs;
    spec.n_aggs = 2;
    weir_manual_clock *mc = weir_manual_clock_create(100);
    weir_clock clock = weir_manual_clock_get(mc);
    th_source *src = th_usource_create(s, 1);
    th_collect *out = th_collect_create(0);
    weir_job *job = clock_job(src, s, &clock, &spec, out);
    cr_assert_eq(weir_job_start(job), 0);
    /* event times only move the watermark, so the test knows when the window has seen a row */
    th_source_row(src, 0, 777777, (int64_t)1, (int64_t)5);
    cr_assert(th_collect_wait_watermark(out, 777777, GUARD_MS));
    weir_manual_clock_set(mc, 900);
    th_source_row(src, 0, 777778, (int64_t)1, (int64_t)7);
    cr_assert(th_collect_wait_watermark(out, 777778, GUARD_MS));
    cr_assert_eq(th_collect_count(out), 0);
    weir_manual_clock_set(mc, 1000);
    cr_assert(th_collect_wait_count(out, 1, GUARD_MS));
    cr_assert_str_eq(th_collect_line(out, 0), "1,1970-01-01 00:00:00.000,1970-01-01 00:00:01.000,2,12");
    th_source_end_all(src);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(th_collect_count(out), 1);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

/* ---- checkpoint, then restore into another parallelism ---- */

typedef struct ck {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    weir__snapshot_set *set;
    int acks;
    char **lines;
    size_t n, cap, at_barrier;
} ck;

static void ck_ack(void *ud, const weir__task_snapshot *snap)
{
    ck *t = ud;
    pthread_mutex_lock(&t->mu);
    if (!snap->finished)
        cr_assert_eq(weir__snapshot_set_add(t->set, snap->data, snap->len), 0);
    t->acks++;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

static int ck_create(void *arg, const weir_op_info *info, void **out)
{
    (void)info;
    *out = arg;
    return 0;
}

static int ck_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx, (void)input;
    ck *t = op;
    pthread_mutex_lock(&t->mu);
    for (uint32_t r = 0; r < b->n_rows; r++) {
        char line[256];
        snprintf(line, sizeof line, "%s %lld,%lld,%lld,%lld,%lld", weir_row_kind_name(b->kind[r]),
                 (long long)WEIR_COL_I64(b, 0)[r], (long long)WEIR_COL_I64(b, 1)[r],
                 (long long)WEIR_COL_I64(b, 2)[r], (long long)WEIR_COL_I64(b, 3)[r], (long long)WEIR_COL_I64(b, 4)[r]);
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 64;
            t->lines = realloc(t->lines, t->cap * sizeof *t->lines);
        }
        t->lines[t->n++] = strdup(line);
    }
    pthread_mutex_unlock(&t->mu);
    return 0;
}

static int ck_snapshot(void *op, weir_op_ctx *ctx, uint64_t id, weir_buf *out)
{
    (void)ctx, (void)id;
    ck *t = op;
    pthread_mutex_lock(&t->mu);
    t->at_barrier = t->n;
    pthread_mutex_unlock(&t->mu);
    return weir_buf_put_u64(out, t->n);
}

static void ck_close(void *op) { (void)op; }

static const weir_operator_class ck_cls = {
    .name = "ck_sink", .process = ck_process, .snapshot = ck_snapshot, .close = ck_close};

static weir_job *ck_job(th_source *src, const weir_schema *s, weir_window_spec *spec, uint32_t par, ck *t)
{
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.batch_size = 16;
    weir_job *job;
    cr_assert_eq(weir_job_create(&jc, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 20};
    weir_stream st, win;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_error err = {0};
    cr_assert_eq(weir_job_window(job, st, s, spec, par, &win, &err), 0, "%s", err.message);
    weir_operator_spec sink = {.name = "ck_sink", .cls = &ck_cls, .create = ck_create, .arg = t};
    cr_assert_eq(weir_job_sink(job, win, &sink, 1), 0);
    weir__ckpt_hooks hooks = {.ack = ck_ack, .ud = t};
    cr_assert_eq(weir__job_set_ckpt_hooks(job, &hooks), 0);
    return job;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void restore_rescaled(weir_window_assigner as, weir_window_accumulation m, uint32_t p1, uint32_t p2)
{
    enum { N = 3000, CUT = 1700 };
    static int64_t keys[N], tss[N], vals[N];
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_agg aggs[2] = {bind("COUNT", s, -1, 0), bind("SUM", s, 1, 0)};
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = as;
    spec.key.n = 1;
    spec.aggs = aggs;
    spec.n_aggs = 2;
    spec.allowed_lateness_ms = 30;
    spec.accumulation = m;
    th_source *live = th_usource_create(s, 1), *replay = th_vsource_create(s, 1);
    srand(5);
    for (int i = 0; i < N; i++) {
        keys[i] = rand() % 17;
        tss[i] = i * 3 - rand() % 150;
        vals[i] = rand() % 100;
        th_source_row(replay, 0, tss[i], keys[i], vals[i]);
        if (i < CUT)
            th_source_row(live, 0, tss[i], keys[i], vals[i]);
    }
    ck a = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    cr_assert_eq(weir__snapshot_set_create(&a.set), 0);
    weir_job *job = ck_job(live, s, &spec, p1, &a);
    cr_assert_eq(weir_job_start(job), 0);
    cr_assert(th_source_wait_read(live, 0, GUARD_MS));
    cr_assert_eq(weir__job_trigger_checkpoint(job, 1), 0);
    int subtasks = (int)weir__job_subtask_count(job);
    pthread_mutex_lock(&a.mu);
    while (a.acks < subtasks)
        pthread_cond_wait(&a.cv, &a.mu);
    pthread_mutex_unlock(&a.mu);
    for (int i = CUT; i < N; i++)
        th_source_row(live, 0, tss[i], keys[i], vals[i]);
    th_source_end_all(live);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    double late_a = th_metric(job, "*late_records");
    weir_job_destroy(job);
    cr_assert_gt(a.at_barrier, 0);
    cr_assert_gt(a.n, a.at_barrier);

    ck b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    job = ck_job(replay, s, &spec, p2, &b);
    weir__restore_source rs = weir__snapshot_set_source(a.set);
    cr_assert_eq(weir__job_set_restore(job, &rs), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    cr_assert_gt(late_a, 0);

    size_t n = a.at_barrier + b.n;
    cr_assert_eq(n, a.n, "kind %d mode %d: %zu before the barrier + %zu after restore != %zu", (int)as.kind, (int)m,
                 a.at_barrier, b.n, a.n);
    char **joined = malloc(n * sizeof *joined), **all = malloc(n * sizeof *all);
    memcpy(joined, a.lines, a.at_barrier * sizeof *joined);
    memcpy(joined + a.at_barrier, b.lines, b.n * sizeof *joined);
    memcpy(all, a.lines, n * sizeof *all);
    qsort(joined, n, sizeof *joined, cmp_str);
    qsort(all, n, sizeof *all, cmp_str);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(joined[i], all[i], "line %zu", i);
    free(joined);
    free(all);
    for (size_t i = 0; i < a.n; i++)
        free(a.lines[i]);
    for (size_t i = 0; i < b.n; i++)
        free(b.lines[i]);
    free(a.lines);
    free(b.lines);
    weir__snapshot_set_destroy(a.set);
    th_source_destroy(live);
    th_source_destroy(replay);
    weir_schema_destroy(s);
}

Test(window_job, checkpoint_and_restore_into_another_parallelism, .timeout = 120)
{
    restore_rescaled(weir_window_tumbling(50, 0), WEIR_ACC_ACCUMULATING, 2, 3);
    restore_rescaled(weir_window_hopping(25, 100, 0), WEIR_ACC_RETRACTING, 3, 1);
    restore_rescaled(weir_window_cumulating(20, 80, 0), WEIR_ACC_DISCARDING, 1, 4);
    restore_rescaled(weir_window_session(9, 0), WEIR_ACC_RETRACTING, 2, 2);
}

/*
 * Restore from a later checkpoint, before which most keys did not change:
 * they keep the bytes (and the floor, a watermark) of the checkpoint
 * before, while the watermark moved on across a window end. Keys 1-8 hold
 * a record of a slice that stays live across both checkpoints; between them
 * only key 0 moves the watermark on. After the restore every subtask - also
 * one that a scale-up added and that holds only keys 1-8 - must go on from
 * the second checkpoint's watermark: an older one would fire the hopping
 * window that ended in between again, and judge late rows differently.
 */
static void restore_later_checkpoint(weir_window_assigner as, uint32_t p1, uint32_t p2)
{
    enum { N = 2000, CUT1 = 1100, CUT2 = 1200 };
    static int64_t keys[N], tss[N], vals[N];
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_agg aggs[2] = {bind("COUNT", s, -1, 0), bind("SUM", s, 1, 0)};
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = as;
    spec.key.n = 1;
    spec.aggs = aggs;
    spec.n_aggs = 2;
    th_source *live = th_usource_create(s, 1), *replay = th_vsource_create(s, 1);
    srand(7);
    for (int i = 0; i < N; i++) {
        vals[i] = rand() % 100;
        if (i < 1000) {
            keys[i] = rand() % 17;
            tss[i] = i * 3 - rand() % 150;
        } else if (i < CUT1) {
            /* only key 0: the watermark moves on to 3277, every older slice is released */
            keys[i] = 0;
            tss[i] = 3000 + (i - 1000) * 3;
            if (i >= 1090 && i < 1098) {
                keys[i] = i - 1089; /* keys 1-8: a record in [3250, 3275), live until W >= 3350 */
                tss[i] = 3270;
            }
        } else if (i < CUT2) {
            keys[i] = 0; /* the watermark crosses the window end 3300, to 3310 */
            tss[i] = 3297 + (i - CUT1) / 3;
        } else {
            keys[i] = 1 + rand() % 8;
            tss[i] = 3330 + (i - CUT2) * 3 - rand() % 150;
        }
        th_source_row(replay, 0, tss[i], keys[i], vals[i]);
    }
    ck a = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    weir__snapshot_set *set1;
    cr_assert_eq(weir__snapshot_set_create(&set1), 0);
    a.set = set1;
    weir_job *job = ck_job(live, s, &spec, p1, &a);
    cr_assert_eq(weir_job_start(job), 0);
    int subtasks = (int)weir__job_subtask_count(job);
    weir__snapshot_set *set2 = NULL;
    for (int c = 1; c <= 2; c++) {
        for (int i = c == 1 ? 0 : CUT1; i < (c == 1 ? CUT1 : CUT2); i++)
            th_source_row(live, 0, tss[i], keys[i], vals[i]);
        cr_assert(th_source_wait_read(live, 0, GUARD_MS));
        cr_assert_eq(weir__job_trigger_checkpoint(job, (uint64_t)c), 0);
        pthread_mutex_lock(&a.mu);
        while (a.acks < subtasks)
            pthread_cond_wait(&a.cv, &a.mu);
        if (c == 1) {
            cr_assert_eq(weir__snapshot_set_create(&set2), 0);
            a.set = set2;
            a.acks = 0;
        }
        pthread_mutex_unlock(&a.mu);
    }
    for (int i = CUT2; i < N; i++)
        th_source_row(live, 0, tss[i], keys[i], vals[i]);
    th_source_end_all(live);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    double late_a = th_metric(job, "*late_records");
    weir_job_destroy(job);
    cr_assert_gt(a.n, a.at_barrier);

    ck b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    job = ck_job(replay, s, &spec, p2, &b);
    weir__restore_source rs = weir__snapshot_set_source(set2);
    cr_assert_eq(weir__job_set_restore(job, &rs), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    double late_b = th_metric(job, "*late_records");
    weir_job_destroy(job);
    cr_assert_gt(late_a, 0);

    size_t n = a.at_barrier + b.n;
    cr_assert_eq(n, a.n, "kind %d %u -> %u: %zu before the barrier + %zu after restore != %zu", (int)as.kind, p1, p2,
                 a.at_barrier, b.n, a.n);
    char **joined = malloc(n * sizeof *joined), **all = malloc(n * sizeof *all);
    memcpy(joined, a.lines, a.at_barrier * sizeof *joined);
    memcpy(joined + a.at_barrier, b.lines, b.n * sizeof *joined);
    memcpy(all, a.lines, n * sizeof *all);
    qsort(joined, n, sizeof *joined, cmp_str);
    qsort(all, n, sizeof *all, cmp_str);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(joined[i], all[i], "kind %d %u -> %u: line %zu", (int)as.kind, p1, p2, i);
    cr_assert_gt(late_b, 0, "rows after the restore were late");
    free(joined);
    free(all);
    for (size_t i = 0; i < a.n; i++)
        free(a.lines[i]);
    for (size_t i = 0; i < b.n; i++)
        free(b.lines[i]);
    free(a.lines);
    free(b.lines);
    weir__snapshot_set_destroy(set1);
    weir__snapshot_set_destroy(set2);
    th_source_destroy(live);
    th_source_destroy(replay);
    weir_schema_destroy(s);
}

Test(window_job, restore_a_checkpoint_after_which_most_keys_did_not_change, .timeout = 120)
{
    restore_later_checkpoint(weir_window_hopping(25, 100, 0), 2, 2);
    restore_later_checkpoint(weir_window_hopping(25, 100, 0), 1, 4);
    restore_later_checkpoint(weir_window_hopping(25, 100, 0), 3, 1);
    restore_later_checkpoint(weir_window_tumbling(50, 0), 2, 3);
}
