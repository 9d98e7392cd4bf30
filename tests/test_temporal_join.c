/*
 * Event-time temporal join (ops/temporal_join.c) driven through the C API
 * with a versioned side that is a real changelog (+I, -U/+U, -D), which a
 * file source cannot give the SQL tests: the version valid at a probe
 * row's time decides, a deletion means no version, -U rows are skipped
 * (Flink's upsert mode), late rows are dropped and counted,
 * and old versions leave state as the watermark passes them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"
#include "support/harness.h"
#include "weir/weir.h"

#define GUARD_MS 20000

typedef struct tt {
    weir_schema *probe, *vin, *vers, *out;
    th_source *src[2];
    th_collect *sink;
    weir_job *job;
} tt;

static void tt_start(tt *x, bool left_outer, uint32_t parallelism)
{
    memset(x, 0, sizeof *x);
    x->probe = th_schema("k BIGINT, t BIGINT");
    x->vin = th_schema("op STRING, k BIGINT, t BIGINT, v BIGINT");
    x->vers = th_schema("k BIGINT, t BIGINT, v BIGINT");
    x->out = th_schema("pk BIGINT, pt BIGINT, vk BIGINT, vt BIGINT, v BIGINT");
    x->sink = th_collect_create(TH_KIND);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = parallelism;
    cfg.batch_size = 3;
    cr_assert_eq(weir_job_create(&cfg, &x->job), 0);
    weir_stream keyed[2];
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    uint32_t kc = 0;
    x->src[0] = th_usource_create(x->probe, 1);
    x->src[1] = th_usource_create(x->vin, 1);
    weir_source_spec ps = th_source_spec(x->src[0], "probe");
    weir_stream p, m;
    cr_assert_eq(weir_job_source(x->job, &ps, &wm, 1, &p), 0);
    /* the versioned side: (op, k, t, v) -> (k, t, v) with op as the row kind */
    cr_assert_eq(
        th_changelog_stream(x->job, x->src[1], "versions", &wm, x->vers, &m), 0,
        "%s", weir_job_error(x->job));
    keyed[0] = weir_stream_key_by(p, &kc, 1);
    keyed[1] = weir_stream_key_by(m, &kc, 1);
    weir_temporal_join_config tc = {.left_outer = left_outer, .n_out = {2, 3}, .time_col = {1, 1}, .out_schema = x->out};
    tc.keys[0].n = tc.keys[1].n = 1;
    weir_operator_spec spec;
    cr_assert_eq(weir_temporal_join_spec(&tc, &spec), 0);
    cr_assert_str_eq(spec.name, "TemporalJoin");
    weir_stream j;
    cr_assert_eq(weir_job_operator(x->job, keyed, 2, &spec, x->out, parallelism, &j), 0, "%s", weir_job_error(x->job));
    weir_operator_spec sk = th_collect_spec(x->sink, "collect");
    cr_assert_eq(weir_job_sink(x->job, j, &sk, 1), 0);
    cr_assert_eq(weir_job_start(x->job), 0, "%s", weir_job_error(x->job));
}

static void version(tt *x, const char *op, int64_t k, int64_t t, int64_t v)
{
    char line[96];
    snprintf(line, sizeof line, "%s,%lld,%lld,%lld", op, (long long)k, (long long)t, (long long)v);
    th_source_row_text(x->src[1], 0, t, line);
}

static void probe(tt *x, int64_t k, int64_t t) { th_source_row(x->src[0], 0, t, k, t); }

static void tt_finish(tt *x, const char *want)
{
    th_source_end_all(x->src[0]);
    th_source_end_all(x->src[1]);
    cr_assert_eq(weir_job_wait(x->job), 0, "%s", weir_job_error(x->job));
    cr_assert_str_eq(th_collect_text(x->sink, true), want);
}

static void tt_destroy(tt *x)
{
    weir_job_destroy(x->job);
    th_collect_destroy(x->sink);
    for (int s = 0; s < 2; s++)
        th_source_destroy(x->src[s]);
    weir_schema_destroy(x->probe);
    weir_schema_destroy(x->vin);
    weir_schema_destroy(x->vers);
    weir_schema_destroy(x->out);
}

/* key 1: 10 from 100, 11 from 200 (an update), deleted at 300, 12 from 400; key 2 never has a version */
static void changelog(tt *x)
{
    version(x, "+I", 1, 100, 10);
    version(x, "+I", 3, 100, 30);
    version(x, "-U", 1, 200, 10);
    version(x, "+U", 1, 200, 11);
    version(x, "-D", 1, 300, 11);
    version(x, "+I", 1, 400, 12);
    version(x, "-U", 1, 400, 99); /* a -U carrying an existing version's time does not touch it */
    version(x, "-U", 3, 500, 30); /* a -U is skipped (upsert mode): 30 stays valid */
}

static void probes(tt *x)
{
    probe(x, 1, 99);  /* before any version */
    probe(x, 1, 150); /* 10 */
    probe(x, 1, 200); /* 11: the +U replaced the -U of the same time */
    probe(x, 1, 250); /* 11 */
    probe(x, 1, 300); /* deleted */
    probe(x, 1, 350); /* deleted */
    probe(x, 1, 450); /* 12 */
    probe(x, 2, 450); /* no version */
    probe(x, 3, 450); /* 30 */
    probe(x, 3, 500); /* 30: the -U was skipped */
    probe(x, 1, 40);  /* late: behind the probe watermark 500 */
    probe(x, 1, 600); /* 12 */
}

Test(temporal_join, inner_join_takes_the_version_valid_at_the_row_time, .timeout = 60)
{
    for (uint32_t p = 1; p <= 4; p *= 2) {
        tt x;
        tt_start(&x, false, p);
        changelog(&x);
        probes(&x);
        tt_finish(&x, "+I 1,150,1,100,10\n"
                      "+I 1,200,1,200,11\n"
                      "+I 1,250,1,200,11\n"
                      "+I 1,450,1,400,12\n"
                      "+I 1,600,1,400,12\n"
                      "+I 3,450,3,100,30\n"
                      "+I 3,500,3,100,30\n");
        cr_assert_eq(th_metric(x.job, "*late_rows"), 1, "parallelism %u", p);
        tt_destroy(&x);
    }
}

Test(temporal_join, left_join_pads_rows_without_a_valid_version, .timeout = 60)
{
    tt x;
    tt_start(&x, true, 2);
    changelog(&x);
    probes(&x);
    tt_finish(&x, "+I 1,150,1,100,10\n"
                  "+I 1,200,1,200,11\n"
                  "+I 1,250,1,200,11\n"
                  "+I 1,300,NULL,NULL,NULL\n"
                  "+I 1,350,NULL,NULL,NULL\n"
                  "+I 1,450,1,400,12\n"
                  "+I 1,600,1,400,12\n"
                  "+I 1,99,NULL,NULL,NULL\n"
                  "+I 2,450,NULL,NULL,NULL\n"
                  "+I 3,450,3,100,30\n"
                  "+I 3,500,3,100,30\n");
    tt_destroy(&x);
}

/* Rows wait for the watermark; versions the watermark has passed leave state. */
Test(temporal_join, rows_wait_for_the_watermark_and_old_versions_go, .timeout = 60)
{
    tt x;
    tt_start(&x, false, 1);
    version(&x, "+I", 1, 100, 10);
    probe(&x, 1, 150);
    version(&x, "+U", 1, 140, 11); /* on time (>= the versions' watermark 100): valid at 150 */
    version(&x, "+U", 1, 160, 12);
    probe(&x, 1, 170);
    /* the probe watermark is 170 and the versions' 160: the join's is 160, so the row at 150 is joined */
    cr_assert(th_collect_wait_count(x.sink, 1, GUARD_MS));
    cr_assert_str_eq(th_collect_text(x.sink, true), "+I 1,150,1,140,11\n");
    /* versions at 100 (older than 140, the latest <= 151) are gone; 140 stays until a row can no longer need it */
    cr_assert_geq(th_metric(x.job, "*expired_versions"), 1);
    version(&x, "+I", 2, 1000, 1);
    tt_finish(&x, "+I 1,150,1,140,11\n"
                  "+I 1,170,1,160,12\n");
    cr_assert_eq(th_metric(x.job, "*late_rows"), 0);
    tt_destroy(&x);
}
