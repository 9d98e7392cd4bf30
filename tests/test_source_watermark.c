/*
 * tests/test_source_watermark.c - WEIR_WATERMARK_SOURCE: a source whose
 * reader reports its split's watermark (the reader of a repartition topic,
 * cluster/exchange.c) instead of the runtime deriving it from event times.
 *
 * A scripted reader hands out rows and watermarks in a fixed order; a sink
 * records what reaches it, rows and watermarks interleaved. The watermark
 * must arrive right after the rows it follows, rows far ahead in event
 * time must not move it, and a lower report must not pull it back.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "support/harness.h"
#include "weir/job.h"

/* The script: a row (its event time) or, with WM set, a watermark. */
#define WM (1LL << 62)
static const int64_t SCRIPT[] = {100, 5000, WM | 50, 60, 70, WM | 200, WM | 150, 10, WM | 300, 20};
#define N_SCRIPT (sizeof SCRIPT / sizeof *SCRIPT)

typedef struct rd {
    size_t pos;
    weir_ts wm;
} rd;

static int s_create(void *arg, const weir_source_info *info, void **out, weir_error *err)
{
    (void)arg, (void)info, (void)err;
    *out = (void *)1;
    return 0;
}

static int s_discover(void *src, const char ***ids, uint32_t *n, bool *done, weir_error *err)
{
    (void)src, (void)err;
    static const char *one[] = {"s0"};
    static bool given;
    *ids = given ? NULL : one;
    *n = given ? 0 : 1;
    given = true;
    *done = true;
    return 0;
}

static int s_open(void *src, const char *id, const void *pos, size_t len, void **out, weir_error *err)
{
    (void)src, (void)id, (void)pos, (void)len, (void)err;
    rd *r = calloc(1, sizeof *r);
    r->wm = WEIR_TS_MIN;
    *out = r;
    return 0;
}

static int s_read(void *reader, weir_batch *out, uint32_t max_rows, weir_error *err)
{
    (void)err;
    rd *r = reader;
    uint32_t got = 0;
    while (r->pos < N_SCRIPT && got < max_rows) {
        int64_t e = SCRIPT[r->pos];
        if (e & WM) {
            if (got)
                return (int)got; /* the rows before it first */
            r->pos++;
            r->wm = e & ~WM;
            return 0; /* the watermark is asked for now */
        }
        uint32_t i = out->n_rows;
        weir_batch_append_row(out);
        ((int64_t *)out->cols[0].data)[i] = e;
        out->ts[i] = e;
        r->pos++;
        got++;
    }
    return got ? (int)got : WEIR_EOF;
}

static weir_ts s_watermark(void *reader) { return ((rd *)reader)->wm; }

static int s_position(void *reader, weir_buf *out)
{
    return weir_buf_put_u64(out, ((rd *)reader)->pos);
}

static void s_close(void *reader) { free(reader); }
static void s_destroy(void *src) { (void)src; }

static const weir_source_class SCRIPTED = {
    .name = "scripted",
    .create = s_create,
    .discover = s_discover,
    .open_split = s_open,
    .read = s_read,
    .position = s_position,
    .close_split = s_close,
    .destroy = s_destroy,
    .watermark = s_watermark,
};

/* The sink: "r<ts>" per row, "w<wm>" per watermark, in arrival order. */
static char LOG[1024];

static int k_create(void *arg, const weir_op_info *info, void **out)
{
    (void)arg, (void)info;
    *out = (void *)1;
    return 0;
}

static int k_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)op, (void)ctx, (void)input;
    for (uint32_t i = 0; i < b->n_rows; i++)
        snprintf(LOG + strlen(LOG), sizeof LOG - strlen(LOG), "r%lld ", (long long)b->ts[i]);
    return 0;
}

static int k_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    (void)op, (void)ctx;
    if (wm == WEIR_TS_MAX)
        snprintf(LOG + strlen(LOG), sizeof LOG - strlen(LOG), "wMAX");
    else
        snprintf(LOG + strlen(LOG), sizeof LOG - strlen(LOG), "w%lld ", (long long)wm);
    return 0;
}

static void k_close(void *op) { (void)op; }

static const weir_operator_class SINK = {
    .name = "log", .process = k_process, .watermark = k_watermark, .close = k_close};

Test(source_watermark, reader_reported_watermark_follows_its_rows, .timeout = 30)
{
    weir_schema *s = th_schema("v BIGINT");
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.batch_size = 64;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = {.name = "scripted", .cls = &SCRIPTED, .schema = s};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_SOURCE, .idle_timeout_ms = -1};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_operator_spec sink = {.name = "log", .cls = &SINK, .create = k_create};
    /* A rebalance, so the sink is its own task and sees the watermarks as
     * they cross a channel. */
    cr_assert_eq(weir_job_sink(job, weir_stream_partition(st, WEIR_PART_REBALANCE), &sink, 1), 0);
    LOG[0] = 0;
    int rc = weir_job_run(job);
    cr_assert_eq(rc, 0, "run: %s", weir_job_error(job));
    /* 5000 does not move the watermark; 150 after 200 does not pull it back. */
    cr_assert_str_eq(LOG, "r100 r5000 w50 r60 r70 w200 r10 w300 r20 wMAX");
    weir_job_destroy(job);
    weir_schema_destroy(s);
}

Test(source_watermark, the_kind_needs_the_hook)
{
    weir_schema *s = th_schema("v BIGINT");
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_class no_hook = SCRIPTED;
    no_hook.watermark = NULL;
    weir_source_spec ss = {.name = "scripted", .cls = &no_hook, .schema = s};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_SOURCE};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), WEIR_EINVAL);
    cr_assert(strstr(weir_job_error(job), "needs the class's watermark function"));
    weir_job_destroy(job);
    weir_schema_destroy(s);
}
