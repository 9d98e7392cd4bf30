/*
 * bench/unaligned_bench.c - aligned against unaligned checkpoints on a
 * backpressured job.
 *
 * The job: the generator source of tests/ckpt_job.h (one split, as fast as
 * it can) -> keyed exchange -> a slow keyed map (a fixed amount of CPU work
 * per row, parallelism 2) -> blackhole sink. The source outruns the map, so
 * every channel in front of it stays full: the situation unaligned
 * checkpoints are for.
 *
 * Per mode (aligned, unaligned) and run: the job runs for a warm-up, then
 * K checkpoints are triggered one after the other (each waited for); the
 * figures are the median checkpoint duration (trigger to complete, as the
 * coordinator measures it; and trigger to the last subtask's
 * acknowledgement, before the files are written), the in-flight bytes
 * stored, and the throughput
 * (rows through the sink per second) while checkpointing; a third mode
 * without checkpoints gives the baseline throughput. Medians over RUNS.
 *
 *   bench_unaligned_bench [runs=3] [checkpoints=5] [work=400] [capacity=8]
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tests/ckpt_job.h"

static volatile uint64_t g_sink_work;
static uint32_t g_work = 400;

/* The slow operator: g_work rounds of a hash per row, then a copy. */
static int slow_map(void *ud, const weir_batch *in, weir_batch *out)
{
    (void)ud;
    uint64_t x = 0;
    for (uint32_t r = 0; r < in->n_rows; r++) {
        x ^= (uint64_t)WEIR_COL_I64(in, 1)[r];
        for (uint32_t k = 0; k < g_work; k++)
            x = x * 0x9E3779B97F4A7C15ull + k;
    }
    g_sink_work += x;
    return weir_batch_copy(out, in);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct result {
    double ckpt_ms;        /* median checkpoint duration */
    double ack_ms;         /* median trigger to last acknowledgement */
    double inflight_bytes; /* median in-flight bytes per checkpoint */
    double rows_per_s;
} result;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* mode 0: no checkpoints, 1: aligned, 2: unaligned */
static int run_once(int mode, int n_ckpt, uint32_t capacity, result *res)
{
    char dir[] = "/tmp/weir-ua-bench-XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    char ckpt[64];
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", dir);
    _Atomic uint64_t produced = 0;
    cj_gen gen = {.n = UINT64_MAX, .seed = 3, .n_keys = 1000,
                  .produced = &produced};
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.batch_size = 1024;
    jc.channel_capacity = capacity;
    weir_job *job;
    if (weir_job_create(&jc, &job))
        return -1;
    weir_schema *in = weir_schema_create();
    weir_schema_add(in, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(in, "v", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(in, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    in->rowtime = 2;
    weir_source_spec src = {.name = "gen", .cls = &cj_gen_class, .arg = &gen,
                            .schema = in};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED,
                              .delay_ms = CJ_JITTER_MS};
    weir_stream s, m;
    const uint32_t key = 0;
    uint64_t sunk = 0;
    weir_blackhole_sink_config bc = {.row_counter = &sunk};
    weir_operator_spec sink;
    weir_error err;
    int rc = weir_job_source(job, &src, &wm, 1, &s);
    if (!rc)
        rc = weir_job_map(job, weir_stream_key_by(s, &key, 1), in, slow_map,
                          NULL, &m);
    if (!rc)
        rc = weir_job_set_parallelism(job, m, 2);
    if (!rc)
        rc = weir_blackhole_sink_spec(&bc, &sink, &err);
    if (!rc)
        rc = weir_job_sink(job, m, &sink, 2);
    if (!rc && mode) {
        weir_checkpoint_config c;
        weir_checkpoint_config_init(&c);
        c.dir = ckpt;
        c.restore = WEIR_RESTORE_FRESH;
        c.unaligned = mode == 2;
        c.log = cj_quiet_log;
        rc = weir_job_enable_checkpoints(job, &c, &err);
    }
    if (!rc)
        rc = weir_job_start(job);
    if (rc) {
        fprintf(stderr, "setup failed: %s\n", weir_job_error(job));
        return rc;
    }
    sleep_ms(500); /* warm-up: the channels fill */
    uint64_t sunk0 = __atomic_load_n(&sunk, __ATOMIC_RELAXED);
    int64_t t0 = now_ns();
    double dur[64], ack[64], bytes[64];
    int n = 0;
    if (mode) {
        for (int i = 0; i < n_ckpt && i < 64; i++) {
            uint64_t id;
            if (weir_job_trigger_checkpoint(job, &id) ||
                weir_job_await_checkpoint(job, id, 120000, &err)) {
                fprintf(stderr, "checkpoint failed: %s\n", err.message);
                break;
            }
            weir_checkpoint_stats st;
            weir_job_checkpoint_stats(job, &st);
            dur[n] = (double)st.last_duration_ms;
            ack[n] = (double)st.last_sync_ms;
            if (getenv("UA_BENCH_VERBOSE"))
                fprintf(stderr, "  ckpt %llu: %lld ms (to last ack %lld ms)\n",
                        (unsigned long long)id,
                        (long long)st.last_duration_ms,
                        (long long)st.last_sync_ms);
            bytes[n] = (double)st.last_inflight_bytes;
            n++;
        }
    } else {
        sleep_ms(2000);
    }
    int64_t t1 = now_ns();
    uint64_t sunk1 = __atomic_load_n(&sunk, __ATOMIC_RELAXED);
    weir_job_stop(job);
    weir_job_wait(job);
    weir_job_destroy(job);
    weir_schema_destroy(in);
    cj_rmtree(dir);
    res->ckpt_ms = n ? median(dur, n) : 0;
    res->ack_ms = n ? median(ack, n) : 0;
    res->inflight_bytes = n ? median(bytes, n) : 0;
    res->rows_per_s = (double)(sunk1 - sunk0) / ((double)(t1 - t0) / 1e9);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    int n_ckpt = argc > 2 ? atoi(argv[2]) : 5;
    g_work = argc > 3 ? (uint32_t)atoi(argv[3]) : 400;
    uint32_t cap = argc > 4 ? (uint32_t)atoi(argv[4]) : 8;
    if (runs < 1 || runs > 32)
        runs = 3;
    static const char *const names[] = {"none", "aligned", "unaligned"};
    printf("unaligned_bench: %d runs, %d checkpoints per run, work %u, "
           "channel capacity %u\n",
           runs, n_ckpt, g_work, cap);
    printf("%-10s %14s %14s %18s %14s\n", "mode", "ckpt ms (med)",
           "to-ack ms", "in-flight B (med)", "rows/s (med)");
    for (int mode = 0; mode < 3; mode++) {
        double d[32], a[32], b[32], t[32];
        for (int r = 0; r < runs; r++) {
            result res;
            if (run_once(mode, n_ckpt, cap, &res))
                return 1;
            d[r] = res.ckpt_ms;
            a[r] = res.ack_ms;
            b[r] = res.inflight_bytes;
            t[r] = res.rows_per_s;
        }
        printf("%-10s %14.1f %14.1f %18.0f %14.0f\n", names[mode],
               median(d, runs), median(a, runs), median(b, runs),
               median(t, runs));
        fflush(stdout);
    }
    return 0;
}
