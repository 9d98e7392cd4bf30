/*
 * tests/test_kafka_split.c - the parts of the Kafka source that need no
 * broker: which subtask owns a partition (as Flink's Kafka source assigns
 * them), lag-aware idleness in the source loop (a split that knows it has
 * unread data is never idle; driven by a manual clock), and the option
 * errors of the kafka and stdin connectors.
 *
 * End to end against a Kafka cluster: tests/test_kafka_source.sh.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "support/harness.h"
#include "weir/checkpoint.h"
#include "weir/weir.h"
#ifdef WEIR_HAVE_KAFKA
#include "connector/kafka/source_internal.h"
#endif

#define GUARD_MS 20000

/* ---- assignment ---- */

#ifdef WEIR_HAVE_KAFKA
Test(kafka_source, java_string_hash)
{
    /* Values of java.lang.String#hashCode. */
    cr_assert_eq(weir__kafka_java_string_hash(""), 0u);
    cr_assert_eq(weir__kafka_java_string_hash("a"), 97u);
    cr_assert_eq(weir__kafka_java_string_hash("abc"), 96354u);
    cr_assert_eq(weir__kafka_java_string_hash("hello"), 99162322u);
    /* "orders": overflows int32 as Java does: -1008770331 */
    cr_assert_eq((int32_t)weir__kafka_java_string_hash("orders"), -1008770331);
    /* "é" is one UTF-16 unit 0xE9; U+1F600 is the surrogate pair
     * D83D DE00: 31 * 0xD83D + 0xDE00 */
    cr_assert_eq(weir__kafka_java_string_hash("\xc3\xa9"), 0xE9u);
    cr_assert_eq(weir__kafka_java_string_hash("\xf0\x9f\x98\x80"),
                 31u * 0xD83Du + 0xDE00u);
}

Test(kafka_source, partition_owner_follows_flink)
{
    /* start = ((hash * 31) & 0x7FFFFFFF) % p; partition i -> (start + i) % p */
    uint32_t start = ((96354u * 31u) & 0x7FFFFFFFu) % 4u; /* "abc" */
    cr_assert_eq(start, 2u);
    cr_assert_eq(weir__kafka_split_owner("abc", 0, 4), 2u);
    cr_assert_eq(weir__kafka_split_owner("abc", 1, 4), 3u);
    cr_assert_eq(weir__kafka_split_owner("abc", 2, 4), 0u);
    cr_assert_eq(weir__kafka_split_owner("abc", 5, 4), 3u);
    /* negative hash: the mask keeps the low 31 bits */
    uint32_t h = weir__kafka_java_string_hash("orders");
    uint32_t s3 = ((h * 31u) & 0x7FFFFFFFu) % 3u;
    for (int32_t p = 0; p < 7; p++)
        cr_assert_eq(weir__kafka_split_owner("orders", p, 3),
                     (s3 + (uint32_t)p) % 3u);
    /* p consecutive partitions: one per subtask */
    for (uint32_t par = 1; par <= 8; par++) {
        uint32_t seen = 0;
        for (int32_t p = 0; p < (int32_t)par; p++)
            seen |= 1u << weir__kafka_split_owner("events", p, par);
        cr_assert_eq(seen, (1u << par) - 1, "parallelism %u", par);
    }
    cr_assert_eq(weir__kafka_split_owner("x", 3, 1), 0u);
}
#endif

/* ---- lag-aware idleness ---- */

/*
 * A source of two splits on one subtask. Split 0 hands out the rows the test
 * queues; split 1 never has a row, and says it has a backlog while the test
 * says so (a partition behind its high watermark whose records have not
 * arrived yet).
 */
typedef struct lag_src {
    _Atomic int64_t queued[64];
    atomic_uint n_queued, n_read;
    atomic_bool backlog;
    atomic_uint backlog_calls;
    atomic_bool end;
    atomic_bool given;
    weir_schema *schema;
} lag_src;

typedef struct lag_reader {
    lag_src *src;
    int split;
} lag_reader;

static int lag_create(void *arg, const weir_source_info *info, void **out,
                      weir_error *err)
{
    (void)info;
    (void)err;
    *out = arg;
    return 0;
}

static int lag_discover(void *p, const char ***ids, uint32_t *n, bool *done,
                        weir_error *err)
{
    static const char *two[] = {"p-0", "p-1"};
    lag_src *s = p;
    (void)err;
    bool given = atomic_exchange(&s->given, true);
    *ids = given ? NULL : two;
    *n = given ? 0 : 2;
    *done = true;
    return 0;
}

static int lag_open(void *p, const char *id, const void *pos, size_t len,
                    void **out, weir_error *err)
{
    (void)pos;
    (void)len;
    (void)err;
    lag_reader *r = calloc(1, sizeof *r);
    r->src = p;
    r->split = id[2] - '0';
    *out = r;
    return 0;
}

static int lag_read(void *p, weir_batch *out, uint32_t max, weir_error *err)
{
    lag_reader *r = p;
    lag_src *s = r->src;
    (void)err;
    if (atomic_load(&s->end))
        return WEIR_EOF;
    if (r->split == 1)
        return 0;
    uint32_t got = 0;
    while (got < max && atomic_load(&s->n_read) < atomic_load(&s->n_queued)) {
        int row = weir_batch_append_row(out);
        int64_t ts = atomic_load(&s->queued[atomic_load(&s->n_read)]);
        WEIR_COL_I64(out, 0)[row] = ts;
        out->ts[row] = ts;
        atomic_fetch_add(&s->n_read, 1);
        got++;
    }
    return (int)got;
}

static int lag_position(void *p, weir_buf *out)
{
    (void)p;
    (void)out;
    return 0;
}

static void lag_close(void *p) { free(p); }
static void lag_destroy(void *p) { (void)p; }

static bool lag_backlog(void *p)
{
    lag_reader *r = p;
    atomic_fetch_add(&r->src->backlog_calls, 1);
    return r->split == 1 && atomic_load(&r->src->backlog);
}

static const weir_source_class lag_class = {
    .name = "lag",
    .create = lag_create,
    .discover = lag_discover,
    .open_split = lag_open,
    .read = lag_read,
    .position = lag_position,
    .close_split = lag_close,
    .destroy = lag_destroy,
    .has_backlog = lag_backlog,
};

static void lag_push(lag_src *s, int64_t ts)
{
    unsigned i = atomic_load(&s->n_queued);
    atomic_store(&s->queued[i], ts);
    atomic_store(&s->n_queued, i + 1);
}

static bool wait_calls(lag_src *s, unsigned more)
{
    unsigned target = atomic_load(&s->backlog_calls) + more;
    for (int i = 0; i < GUARD_MS; i++) {
        if (atomic_load(&s->backlog_calls) >= target)
            return true;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

/* A job of the lag source into a collecting sink, on a manual clock. */
typedef struct lag_run {
    weir_job *job;
    th_collect *out;
    weir_manual_clock *mc;
} lag_run;

/*
 * Starts source -> sink on src at parallelism 1, idle timeout 1000 ms of
 * the manual clock's time (at 0), watermark = the largest time read, and
 * waits until split 0's first rows, 100 and 200, are through.
 */
static lag_run lag_job_start(lag_src *src)
{
    lag_run run = {.out = th_collect_create(0),
                   .mc = weir_manual_clock_create(0)};
    src->schema = th_schema("ts BIGINT");
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 1;
    cfg.batch_size = 16;
    cfg.idle_timeout_ms = 1000;
    cfg.clock = weir_manual_clock_get(run.mc);
    cr_assert_eq(weir_job_create(&cfg, &run.job), 0);
    weir_source_spec ss = {.name = "lag", .cls = &lag_class, .arg = src,
                           .schema = src->schema};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st;
    cr_assert_eq(weir_job_source(run.job, &ss, &wm, 1, &st), 0);
    weir_operator_spec sink = th_collect_spec(run.out, "collect");
    cr_assert_eq(weir_job_sink(run.job, st, &sink, 1), 0);
    cr_assert_eq(weir_job_start(run.job), 0);
    lag_push(src, 100);
    lag_push(src, 200);
    cr_assert(th_collect_wait_count(run.out, 2, GUARD_MS));
    return run;
}

/* Ends the lag source's splits, waits for the job and frees it all. */
static void lag_job_end(lag_src *src, lag_run *run)
{
    atomic_store(&src->end, true);
    cr_assert_eq(weir_job_wait(run->job), 0, "%s", weir_job_error(run->job));
    weir_job_destroy(run->job);
    th_collect_destroy(run->out);
    weir_manual_clock_destroy(run->mc);
    weir_schema_destroy(src->schema);
}

Test(kafka_source, split_with_backlog_is_never_idle, .timeout = 60)
{
    lag_src src = {0};
    atomic_store(&src.backlog, true);
    lag_run run = lag_job_start(&src);
    th_collect *out = run.out;
    weir_manual_clock *mc = run.mc;
    /* Far past the idle timeout, split 1 still has a backlog: it holds the
     * watermark, however long it has been silent. */
    weir_manual_clock_set(mc, 5000);
    cr_assert(wait_calls(&src, 20));
    weir_manual_clock_set(mc, 50000);
    cr_assert(wait_calls(&src, 20));
    cr_assert_eq(th_collect_watermark(out), WEIR_TS_MIN,
                 "a split with a backlog must not be idle (watermark %" PRId64
                 ")",
                 th_collect_watermark(out));

    /* Caught up: silent for the idle timeout from now on, then idle. */
    atomic_store(&src.backlog, false);
    cr_assert(wait_calls(&src, 20));
    weir_manual_clock_set(mc, 50999);
    cr_assert(wait_calls(&src, 20));
    cr_assert_eq(th_collect_watermark(out), WEIR_TS_MIN,
                 "idle only a full timeout after the backlog was read");
    weir_manual_clock_set(mc, 51000);
    cr_assert(th_collect_wait_watermark(out, 200, GUARD_MS),
              "a caught-up silent split becomes idle");

    lag_job_end(&src, &run);
}

/*
 * A split that went idle and then learns of records it has not read yet
 * (the partition's high watermark moved, the records are still on their
 * way) is not caught up any more: it holds the watermark again before its
 * records arrive, or the other splits would carry the watermark past them
 * and they would come late.
 */
Test(kafka_source, idle_split_with_backlog_is_active_again, .timeout = 60)
{
    lag_src src = {0};
    lag_run run = lag_job_start(&src);
    th_collect *out = run.out;
    weir_manual_clock *mc = run.mc;
    /* Both splits silent past the timeout: idle, the watermark at 200. */
    weir_manual_clock_set(mc, 5000);
    cr_assert(th_collect_wait_watermark(out, 200, GUARD_MS));

    /* Split 1 knows of unread records: active again, at no watermark yet,
     * so split 0's next row does not move the watermark. */
    atomic_store(&src.backlog, true);
    cr_assert(wait_calls(&src, 20));
    lag_push(&src, 300);
    cr_assert(th_collect_wait_count(out, 3, GUARD_MS));
    cr_assert(wait_calls(&src, 20));
    cr_assert_eq(th_collect_watermark(out), 200,
                 "an idle split with a backlog must hold the watermark "
                 "(watermark %" PRId64 ")",
                 th_collect_watermark(out));

    /* Caught up and silent for the timeout again: idle. */
    atomic_store(&src.backlog, false);
    cr_assert(wait_calls(&src, 20));
    weir_manual_clock_set(mc, 7000);
    cr_assert(th_collect_wait_watermark(out, 300, GUARD_MS));

    lag_job_end(&src, &run);
}

/* ---- option errors ---- */

static int source_error(const char *const *kv, weir_schema *schema,
                        weir_error *err, int *bad)
{
    weir_option opts[32];
    size_t n = 0;
    for (; kv[2 * n]; n++)
        opts[n] = (weir_option){kv[2 * n], kv[2 * n + 1]};
    weir_connector_env env = {0};
    env.bad_option_index = bad;
    weir_source_spec spec;
    weir_error_clear(err);
    int rc = weir_connector_source_spec(NULL, opts, n, schema, &env, &spec, err);
    if (!rc)
        weir_source_spec_release(&spec);
    return rc;
}

#define EXPECT_ERROR(schema, needle, ...)                                     \
    do {                                                                       \
        const char *kv_[] = {__VA_ARGS__, NULL};                               \
        weir_error e_;                                                         \
        int bad_ = -2;                                                         \
        int rc_ = source_error(kv_, schema, &e_, &bad_);                       \
        cr_assert_neq(rc_, 0, "expected an error containing '%s'", needle);    \
        cr_assert(strstr(e_.message, needle), "'%s' does not contain '%s'",    \
                  e_.message, needle);                                         \
    } while (0)

Test(kafka_source, option_errors)
{
    weir_schema *s = th_schema("id BIGINT, name STRING");
#ifdef WEIR_HAVE_KAFKA
    EXPECT_ERROR(s, "needs option 'topic'", "connector", "kafka",
                 "properties.bootstrap.servers", "x:1", "format", "json",
                 "scan.startup.mode", "earliest-offset");
    EXPECT_ERROR(s, "expected 'earliest-offset', 'latest-offset'", "connector",
                 "kafka", "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "json", "scan.startup.mode", "earliest");
    EXPECT_ERROR(s, "did you mean 'scan.startup.mode'", "connector", "kafka",
                 "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "json", "scan.startup.mod", "earliest-offset",
                 "properties.group.id", "g");
    EXPECT_ERROR(s, "needs option 'properties.bootstrap.servers'",
                 "connector", "kafka", "topic", "t", "format", "json",
                 "scan.startup.mode", "earliest-offset");
    EXPECT_ERROR(s, "needs option 'properties.group.id'", "connector",
                 "kafka", "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "json");
    EXPECT_ERROR(s, "'scan.startup.timestamp-millis'", "connector", "kafka",
                 "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "json", "scan.startup.mode", "timestamp");
    EXPECT_ERROR(s, "expected 'partition:0,offset:42", "connector", "kafka",
                 "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "json", "scan.startup.mode", "specific-offsets",
                 "scan.startup.specific-offsets", "partition:0;offset:1");
    EXPECT_ERROR(s, "option 'properties.fetch.wait.max.mss'", "connector",
                 "kafka", "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "json", "scan.startup.mode", "earliest-offset",
                 "properties.fetch.wait.max.mss", "10");
    EXPECT_ERROR(s, "exclude each other", "connector", "kafka", "topic", "t",
                 "topic-pattern", "t.*", "properties.bootstrap.servers",
                 "x:1", "format", "json", "scan.startup.mode",
                 "earliest-offset");
    EXPECT_ERROR(s, "exactly one STRING or BYTES", "connector", "kafka",
                 "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "raw", "scan.startup.mode", "earliest-offset");
    EXPECT_ERROR(s, "'key.fields': 'nope' is not", "connector", "kafka",
                 "topic", "t", "properties.bootstrap.servers", "x:1",
                 "key.format", "json", "key.fields", "nope", "value.format",
                 "json", "scan.startup.mode", "earliest-offset");
    EXPECT_ERROR(s, "expected 'unbounded', 'latest-offset'", "connector",
                 "kafka", "topic", "t", "properties.bootstrap.servers", "x:1",
                 "format", "json", "scan.startup.mode", "earliest-offset",
                 "scan.bounded.mode", "latest");
    /* every option valid: accepted */
    {
        const char *kv[] = {"connector", "kafka", "topic", "a; b",
                            "properties.bootstrap.servers", "x:1",
                            "properties.group.id", "g", "key.format", "raw",
                            "key.fields", "name", "value.format", "json",
                            "value.fields-include", "EXCEPT_KEY",
                            "value.json.ignore-parse-errors", "true",
                            "scan.bounded.mode", "specific-offsets",
                            "scan.bounded.specific-offsets",
                            "partition:0,offset:5;partition:3,offset:7",
                            NULL};
        weir_error e;
        int bad;
        cr_assert_eq(source_error(kv, s, &e, &bad), 0, "%s", e.message);
    }
#else
    EXPECT_ERROR(s, "needs librdkafka", "connector", "kafka", "topic", "t");
#endif
    EXPECT_ERROR(s, "'source.bad-input': expected", "connector", "stdin",
                 "format", "json", "source.bad-input", "ignore");
    EXPECT_ERROR(s, "did you mean 'format'", "connector", "stdin", "formt",
                 "json");
    EXPECT_ERROR(s, "exactly one STRING or BYTES", "connector", "stdin",
                 "format", "raw");
    weir_schema_destroy(s);
}

/* ---- per-partition lag metrics, against an in-process mock cluster ---- */

#ifdef WEIR_HAVE_KAFKA
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static void produce(const char *boot, const char *topic, int32_t part, int n)
{
    char why[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    cr_assert_eq(rd_kafka_conf_set(conf, "bootstrap.servers", boot, why,
                                   sizeof why),
                 RD_KAFKA_CONF_OK);
    rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    cr_assert_not_null(p, "%s", why);
    for (int i = 0; i < n; i++) {
        char v[64];
        int len = snprintf(v, sizeof v, "{\"v\":%d}", i);
        cr_assert_eq(rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic),
                                       RD_KAFKA_V_PARTITION(part),
                                       RD_KAFKA_V_VALUE(v, (size_t)len),
                                       RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                       RD_KAFKA_V_END),
                     RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    cr_assert_eq(rd_kafka_flush(p, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_destroy(p);
}

static void count_lag_names(void *ud, const char *name, double v)
{
    (void)v;
    if (strstr(name, ".kafka.lagt.0.lag_") || strstr(name, ".kafka.lagt.1.lag_"))
        (*(int *)ud)++;
}

Test(kafka_source, lag_metrics_per_partition, .timeout = 120)
{
    char why[256];
    rd_kafka_conf_t *mconf = rd_kafka_conf_new();
    rd_kafka_conf_set(mconf, "log_level", "0", why, sizeof why);
    rd_kafka_t *mrk = rd_kafka_new(RD_KAFKA_PRODUCER, mconf, why, sizeof why);
    cr_assert_not_null(mrk);
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(mrk, 1);
    cr_assert_not_null(mc);
    cr_assert_eq(rd_kafka_mock_topic_create(mc, "lagt", 2, 1), 0);
    const char *boot = rd_kafka_mock_cluster_bootstraps(mc);
    produce(boot, "lagt", 0, 7);
    produce(boot, "lagt", 1, 3);

    weir_schema *s = th_schema("v BIGINT");
    weir_option opts[] = {
        {"connector", "kafka"},
        {"topic", "lagt"},
        {"properties.bootstrap.servers", boot},
        {"scan.startup.mode", "earliest-offset"},
        {"format", "json"},
    };
    weir_source_spec spec;
    weir_error err;
    weir_error_clear(&err);
    cr_assert_eq(weir_connector_source_spec(NULL, opts, 5, s, NULL, &spec,
                                            &err),
                 0, "%s", err.message);
    th_collect *out = th_collect_create(0);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 1;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_NONE};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &spec, &wm, 1, &st), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, st, &sink, 1), 0);
    cr_assert_eq(weir_job_start(job), 0);
    cr_assert(th_collect_wait_count(out, 10, GUARD_MS));
    /* The metrics are polled every 64 batches and when the source is quiet:
     * wait until they show every record read. */
    bool seen = false;
    for (int i = 0; i < GUARD_MS / 10 && !seen; i++) {
        seen = th_metric(job, "task*.kafka.*.records_read") == 10 &&
               th_metric(job, "*.kafka.lagt.0.lag_records") == 0;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    cr_assert(seen, "records_read %g, lag %g",
              th_metric(job, "task*.kafka.*.records_read"),
              th_metric(job, "*.kafka.lagt.0.lag_records"));
    /* both partitions have their own counters */
    int names = 0;
    weir_job_metrics(job, count_lag_names, &names);
    cr_assert_eq(names, 4, "lag_records and lag_ms of partitions 0 and 1");
    weir_job_stop(job);
    weir_job_wait(job);
    weir_job_destroy(job);
    th_collect_destroy(out);
    weir_schema_destroy(s);
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(mrk);
}
#endif

/* ---- restored splits and the watermark valve ---- */

/*
 * Two splits on one subtask: "r-0" returns rows from a list, "r-1" returns
 * nothing until told to. A checkpoint taken once r-0 is read holds r-0 with
 * a high event time and r-1 with none. Restored, r-1 must still hold the
 * watermark back: the restored r-0 once moved the valve before r-1 was even
 * added (and a valve never goes back), so r-1's records came late.
 */
typedef struct rs_src {
    _Atomic int64_t rows[2][8];
    atomic_uint n_rows[2];
    atomic_uint n_read[2];
    atomic_bool end;
    atomic_bool given;
} rs_src;

typedef struct rs_reader {
    rs_src *src;
    int split;
    uint64_t pos;
} rs_reader;

static int rs_create(void *arg, const weir_source_info *info, void **out,
                     weir_error *err)
{
    (void)info;
    (void)err;
    atomic_store(&((rs_src *)arg)->given, false);
    *out = arg;
    return 0;
}

static int rs_discover(void *p, const char ***ids, uint32_t *n, bool *done,
                       weir_error *err)
{
    static const char *two[] = {"r-0", "r-1"};
    rs_src *s = p;
    (void)err;
    bool given = atomic_exchange(&s->given, true);
    *ids = given ? NULL : two;
    *n = given ? 0 : 2;
    *done = true;
    return 0;
}

static int rs_open(void *p, const char *id, const void *pos, size_t len,
                   void **out, weir_error *err)
{
    (void)err;
    rs_reader *r = calloc(1, sizeof *r);
    r->src = p;
    r->split = id[2] - '0';
    if (pos) {
        weir_cursor c;
        weir_cursor_init(&c, pos, len);
        cr_assert_eq(weir_cursor_get_u64(&c, &r->pos), 0);
    }
    *out = r;
    return 0;
}

static int rs_read(void *p, weir_batch *out, uint32_t max, weir_error *err)
{
    rs_reader *r = p;
    rs_src *s = r->src;
    (void)err;
    uint32_t got = 0;
    while (got < max && r->pos < atomic_load(&s->n_rows[r->split])) {
        int row = weir_batch_append_row(out);
        int64_t ts = atomic_load(&s->rows[r->split][r->pos++]);
        WEIR_COL_I64(out, 0)[row] = ts;
        out->ts[row] = ts;
        got++;
    }
    atomic_store(&s->n_read[r->split], (unsigned)r->pos);
    if (got)
        return (int)got;
    return atomic_load(&s->end) ? WEIR_EOF : 0;
}

static int rs_position(void *p, weir_buf *out)
{
    return weir_buf_put_u64(out, ((rs_reader *)p)->pos);
}

static const weir_source_class rs_class = {
    .name = "rs",
    .create = rs_create,
    .discover = rs_discover,
    .open_split = rs_open,
    .read = rs_read,
    .position = rs_position,
    .close_split = lag_close,
    .destroy = lag_destroy,
};

static void rs_push(rs_src *s, int split, int64_t ts)
{
    unsigned i = atomic_load(&s->n_rows[split]);
    atomic_store(&s->rows[split][i], ts);
    atomic_store(&s->n_rows[split], i + 1);
}

static weir_job *rs_job(rs_src *src, weir_schema *schema, th_collect *out,
                        const char *dir)
{
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 1;
    cfg.batch_size = 16;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = {
        .name = "rs", .cls = &rs_class, .arg = src, .schema = schema};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, st, &sink, 1), 0);
    weir_checkpoint_config ck;
    weir_checkpoint_config_init(&ck);
    ck.dir = dir;
    weir_error err;
    cr_assert_eq(weir_job_enable_checkpoints(job, &ck, &err), 0, "%s",
                 err.message);
    return job;
}

Test(kafka_source, restored_split_without_rows_still_holds_the_watermark,
     .timeout = 60)
{
    char dir[] = "/tmp/weir-rs-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    weir_schema *schema = th_schema("ts BIGINT");
    rs_src src = {0};
    rs_push(&src, 0, 100);
    rs_push(&src, 0, 5000);

    th_collect *out = th_collect_create(0);
    weir_job *job = rs_job(&src, schema, out, dir);
    cr_assert_eq(weir_job_start(job), 0);
    cr_assert(th_collect_wait_count(out, 2, GUARD_MS));
    uint64_t id;
    weir_error err;
    cr_assert_eq(weir_job_trigger_checkpoint(job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(job, id, GUARD_MS, &err), 0, "%s",
                 err.message);
    weir_job_cancel(job);
    weir_job_wait(job);
    weir_job_destroy(job);
    th_collect_destroy(out);

    /* Restored: r-0 is at 5000, r-1 has said nothing. */
    out = th_collect_create(0);
    rs_push(&src, 0, 6000);
    job = rs_job(&src, schema, out, dir);
    cr_assert_eq(weir_job_start(job), 0);
    cr_assert(strstr(weir_job_restored_from(job), "chk-"));
    cr_assert(th_collect_wait_count(out, 1, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), WEIR_TS_MIN,
                 "split r-1 has no record yet: it must hold the watermark "
                 "(got %" PRId64 ")",
                 th_collect_watermark(out));
    rs_push(&src, 1, 200);
    cr_assert(th_collect_wait_watermark(out, 200, GUARD_MS));
    cr_assert_eq(th_collect_watermark(out), 200);
    atomic_store(&src.end, true);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    th_collect_destroy(out);
    weir_schema_destroy(schema);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
