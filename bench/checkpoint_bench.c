/*
 * bench/checkpoint_bench.c - what checkpoints cost.
 *
 *   bench_checkpoint_bench throughput [ROWS]
 *       The windowed job of tests/ckpt_job.h (generator -> keyed tumbling
 *       window COUNT/SUM at parallelism 2 -> blackhole) without checkpoints
 *       and with a checkpoint every second, on both state backends:
 *       rows/s, the difference, checkpoints taken, their duration and size.
 *   bench_checkpoint_bench state KEYS BACKEND
 *       Builds keyed state of KEYS keys (one open window each), takes one
 *       checkpoint (duration, size), "crashes", and restores it (recovery:
 *       time to load and verify the files, and time until the restored job
 *       completed its first checkpoint, minus that checkpoint's own time).
 *       A second checkpoint follows after every key received one more row
 *       (warm: the backend updates records it already has).
 *   bench_checkpoint_bench            throughput 20 M rows, then state 1 M keys
 *                                     on both backends.
 *   bench_checkpoint_bench incremental [KEYS] [ROUNDS]
 *       RocksDB, full against incremental checkpoints
 *       (state.backend.incremental): a keyed process function keeping a
 *       100-byte value per key (generator -> counter at parallelism 2 ->
 *       blackhole) builds KEYS keys (1 M), checkpoint 1; then ROUNDS (7)
 *       times 1 % of the keys change and a checkpoint follows: medians of
 *       their duration, of the bytes each stored itself and of the full
 *       size; then a crash and the restore (same parallelism).
 *   bench_checkpoint_bench window [KEYS] [ROUNDS] [BACKEND]
 *       The windowed job of `state` (KEYS keys, 1 M, in one day-long
 *       tumbling window) on the memory backend, RocksDB and RocksDB with
 *       incremental checkpoints (or BACKEND only: memory, rocksdb,
 *       rocksdb-incremental): checkpoint 1 (every key new), then ROUNDS (7)
 *       times 1 % of the keys receive a row and a checkpoint follows:
 *       medians of the longest task pause at the barrier, of the duration,
 *       of the bytes each checkpoint stored itself and of the full size.
 *   bench_checkpoint_bench keygroups [ROUNDS] [KEYS]
 *       What the number of key groups costs a small job: the windowed job
 *       with KEYS keys (16, one open window each) at parallelism 2 on the
 *       memory backend, at pipeline.max-parallelism 128, 1024 and 32768:
 *       ROUNDS (15) checkpoints one after the other (median wall time from
 *       trigger to completion, mean CPU time of the process, size), then
 *       ROUNDS restores of the last one (median time until the state is
 *       back in the operators; mean CPU time of the process from the
 *       restored job's creation to its first checkpoint, that included).
 *   CKB_SYNC=1 in the environment: synchronous snapshots (state.backend.async
 *   = false), for before/after comparisons in one session.
 * Results: bench/results/checkpoint.md.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../tests/ckpt_job.h"

static char g_dir[256];
static _Atomic uint64_t g_limit, g_produced;

static double now_s(void)
{
    return (double)weir_monotonic_ns() / 1e9;
}

static void quiet(void *ud, const char *line)
{
    (void)ud;
    (void)line;
}

static uint64_t g_out_rows;
static _Atomic uint64_t g_produced_run;
static uint64_t g_mid_n, g_mid_bytes;
static int64_t g_mid_ms, g_mid_sync_ms, g_mid_pause_us;

static int build(cj_params *p, const cj_gen *g, const char *backend, cj_job **j)
{
    static char state[300]; /* outlives the job: p->state_dir points here */
    snprintf(state, sizeof state, "%s/state", g_dir);
    memset(p, 0, sizeof *p);
    p->gen = g;
    p->state_backend = backend;
    p->state_dir = state;
    p->parallelism = 2;
    p->blackhole = true;
    p->blackhole_rows = &g_out_rows;
    weir_error err;
    int rc = cj_job_build(p, j, &err);
    if (rc)
        fprintf(stderr, "cannot build the job: %s\n", err.message);
    return rc;
}

static weir_checkpoint_config ckpt_cfg(int64_t interval_ms,
                                       weir_restore_mode mode)
{
    static char dir[300];
    snprintf(dir, sizeof dir, "%s/ckpt", g_dir);
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    c.dir = dir;
    c.interval_ms = interval_ms;
    c.restore = mode;
    c.log = quiet;
    /* CKB_SYNC=1: serialize on the subtasks' threads (state.backend.async =
     * false), the behaviour before asynchronous snapshots. */
    c.sync_snapshots = getenv("CKB_SYNC") && atoi(getenv("CKB_SYNC"));
    return c;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* One run; returns rows/s (wall time); *cpu gets CPU seconds per million rows.
 */
static double run_once(const cj_gen *g, const char *backend, bool with,
                       weir_checkpoint_stats *st, double *cpu)
{
    cj_rmtree(g_dir);
    mkdir(g_dir, 0755);
    atomic_store(&g_produced_run, 0);
    cj_params p;
    cj_job *j;
    if (build(&p, g, backend, &j))
        exit(1);
    weir_error err;
    weir_checkpoint_config c =
        ckpt_cfg(getenv("CKB_INTERVAL") ? atoll(getenv("CKB_INTERVAL")) : 1000,
                 WEIR_RESTORE_FRESH);
    if (with && weir_job_enable_checkpoints(j->job, &c, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    double t0 = now_s(), c0 = cpu_s();
    if (weir_job_start(j->job)) {
        fprintf(stderr, "job failed: %s\n", weir_job_error(j->job));
        exit(1);
    }
    /* Watch the checkpoints taken while the input flows (not the final one). */
    uint64_t seen = 0;
    while (with) {
        weir_checkpoint_stats cs;
        weir_job_checkpoint_stats(j->job, &cs);
        if (cs.last_id != seen && cs.last_id) {
            seen = cs.last_id;
            g_mid_n++;
            g_mid_ms += cs.last_duration_ms;
            g_mid_sync_ms += cs.last_sync_ms;
            g_mid_pause_us += cs.last_pause_us;
            g_mid_bytes += cs.last_size_bytes;
        }
        if (atomic_load(&g_produced_run) >= g->n || now_s() - t0 > 600)
            break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (weir_job_wait(j->job)) {
        fprintf(stderr, "job failed: %s\n", weir_job_error(j->job));
        exit(1);
    }
    double t = now_s() - t0;
    *cpu = (cpu_s() - c0) / ((double)g->n / 1e6);
    if (with)
        weir_job_checkpoint_stats(j->job, st);
    cj_job_destroy(j);
    return (double)g->n / t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of 5 alternating runs each way, after a warm-up run (first touch of
 * memory). */
static void throughput(uint64_t rows, const char *backend)
{
    cj_gen g = {
        .n = rows, .seed = 3, .n_keys = 10000, .produced = &g_produced_run};
    weir_checkpoint_stats st = {0};
    g_mid_n = g_mid_bytes = 0;
    g_mid_ms = g_mid_sync_ms = g_mid_pause_us = 0;
    double cpu[2][5];
    run_once(&g, backend, false, &st, &cpu[0][0]);
    double r[2][5];
    for (int i = 0; i < 5; i++)
        for (int with = 0; with < 2; with++)
            r[with][i] = run_once(&g, backend, with, &st, &cpu[with][i]);
    qsort(r[0], 5, sizeof r[0][0], cmp_double);
    qsort(r[1], 5, sizeof r[1][0], cmp_double);
    qsort(cpu[0], 5, sizeof cpu[0][0], cmp_double);
    qsort(cpu[1], 5, sizeof cpu[1][0], cmp_double);
    printf("  %-8s no checkpoints:        median %10.0f rows/s (min %.0f, max "
           "%.0f)\n",
           backend, r[0][2], r[0][0], r[0][4]);
    printf("  %-8s checkpoint every 1 s:  median %10.0f rows/s (min %.0f, max "
           "%.0f)\n",
           backend, r[1][2], r[1][0], r[1][4]);
    printf("  %-8s CPU per million rows: median %.3f s without, %.3f s with "
           "checkpoints (%+.1f%%)\n",
           backend, cpu[0][2], cpu[1][2],
           100.0 * (cpu[1][2] - cpu[0][2]) / cpu[0][2]);
    if (g_mid_n)
        printf("  %-8s checkpoints while the input flowed: %llu, average %.0f "
               "ms (%.0f ms to the last "
               "acknowledgement, longest task pause %.2f ms), %.0f bytes\n",
               backend, (unsigned long long)g_mid_n,
               (double)g_mid_ms / (double)g_mid_n,
               (double)g_mid_sync_ms / (double)g_mid_n,
               (double)g_mid_pause_us / 1e3 / (double)g_mid_n,
               (double)g_mid_bytes / (double)g_mid_n);
    printf("  %-8s difference of the medians: %.1f%%; last run: %llu "
           "checkpoints (incl. the final one), last %lld ms "
           "(%lld ms to the last acknowledgement), %llu bytes\n",
           backend, 100.0 * (r[0][2] - r[1][2]) / r[0][2],
           (unsigned long long)st.completed, (long long)st.last_duration_ms,
           (long long)st.last_sync_ms, (unsigned long long)st.last_size_bytes);
}

static void wait_produced(uint64_t n)
{
    cj_wait_produced(&g_produced, n, 0);
}

static void state_bench(uint64_t keys, const char *backend)
{
    cj_rmtree(g_dir);
    mkdir(g_dir, 0755);
    /* One row per key, all in one day-long window: keys x one window of state.
     */
    cj_gen g = {.n = 2 * keys + 1,
                .seed = 5,
                .n_keys = (uint32_t)keys,
                .sequential_keys = true,
                .limit = &g_limit,
                .produced = &g_produced};
    atomic_store(&g_limit, keys);
    atomic_store(&g_produced, 0);
    cj_params p;
    cj_job *j;
    if (build(&p, &g, backend, &j))
        exit(1);
    p.window_ms = 86400000;
    cj_job_destroy(j);
    weir_error err;
    if (cj_job_build(&p, &j, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    weir_checkpoint_config c = ckpt_cfg(0, WEIR_RESTORE_FRESH);
    if (weir_job_enable_checkpoints(j->job, &c, &err) ||
        weir_job_start(j->job)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    double t0 = now_s();
    wait_produced(keys);
    double t_fill = now_s() - t0;
    uint64_t id;
    double t1 = now_s();
    if (weir_job_trigger_checkpoint(j->job, &id) ||
        weir_job_await_checkpoint(j->job, id, -1, &err)) {
        fprintf(stderr, "checkpoint failed: %s\n", err.message);
        exit(1);
    }
    double t_ck = now_s() - t1;
    weir_checkpoint_stats st;
    weir_job_checkpoint_stats(j->job, &st);
    printf("  %-8s %9llu keys: state built in %.2f s; checkpoint %llu: %.3f s "
           "(%lld ms to the last "
           "acknowledgement: barrier and serialization; %lld ms writing), %.1f "
           "MB; longest task pause %.1f ms\n",
           backend, (unsigned long long)keys, t_fill, (unsigned long long)id,
           t_ck, (long long)st.last_sync_ms, (long long)st.last_async_ms,
           (double)st.last_size_bytes / 1e6, (double)st.last_pause_us / 1e3);
    /* Warm: one more row per key, then a second checkpoint. */
    atomic_store(&g_limit, 2 * keys);
    wait_produced(2 * keys);
    t1 = now_s();
    if (weir_job_trigger_checkpoint(j->job, &id) ||
        weir_job_await_checkpoint(j->job, id, -1, &err)) {
        fprintf(stderr, "checkpoint failed: %s\n", err.message);
        exit(1);
    }
    t_ck = now_s() - t1;
    weir_job_checkpoint_stats(j->job, &st);
    printf("  %-8s %9llu keys: every key changed again; checkpoint %llu: %.3f "
           "s (%lld ms to the last acknowledgement; %lld ms writing); longest "
           "task pause %.1f ms\n",
           backend, (unsigned long long)keys, (unsigned long long)id, t_ck,
           (long long)st.last_sync_ms, (long long)st.last_async_ms,
           (double)st.last_pause_us / 1e3);
    cj_job_destroy(j); /* a crash: canceled mid-run */

    /* Recovery. */
    atomic_store(&g_produced, 0);
    if (cj_job_build(&p, &j, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    c = ckpt_cfg(0, WEIR_RESTORE_LATEST);
    double r0 = now_s();
    if (weir_job_enable_checkpoints(j->job, &c, &err)) {
        fprintf(stderr, "restore: %s\n", err.message);
        exit(1);
    }
    double t_load = now_s() - r0;
    if (weir_job_start(j->job) || weir_job_trigger_checkpoint(j->job, &id) ||
        weir_job_await_checkpoint(j->job, id, -1, &err)) {
        fprintf(stderr, "restored job: %s\n", err.message);
        exit(1);
    }
    weir_job_checkpoint_stats(j->job, &st);
    printf("  %-8s %9llu keys: recovery: files loaded and verified in %.3f s, "
           "state back in the operators "
           "%.3f s after the start\n",
           backend, (unsigned long long)keys,
           (double)st.restore_load_ms / 1000.0,
           (double)st.restore_done_ms / 1000.0);
    (void)t_load;
    atomic_store(&g_limit, UINT64_MAX);
    weir_job_wait(j->job);
    cj_job_destroy(j);
    /* Of the whole process so far: run one backend per process to compare. */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("  %-8s %9llu keys: peak RSS of the process so far %.0f MB\n",
           backend, (unsigned long long)keys, (double)ru.ru_maxrss / 1024.0);
}

/* ---- full against incremental checkpoints ---- */

typedef struct kv_acc {
    int64_t cnt, total;
    uint8_t pad[84]; /* a 100-byte value, incompressible */
} kv_acc;

static int kv_open(void *ud, weir_op_ctx *ctx, void **instance)
{
    (void)ud;
    weir_state_desc d = {.name = "acc", .kind = WEIR_STATE_VALUE};
    return weir_op_get_state(ctx, &d, (weir_state **)instance);
}

static int kv_process(void *instance, weir_op_ctx *ctx, const weir_batch *in,
                      uint32_t row, weir_batch *out)
{
    (void)ctx;
    (void)out;
    weir_state *st = instance;
    kv_acc a;
    memset(&a, 0, sizeof a);
    const void *v;
    size_t len;
    if (weir_value_get(st, NULL, 0, &v, &len) == 0 && len == sizeof a)
        memcpy(&a, v, sizeof a);
    a.cnt++;
    a.total += WEIR_COL_I64(in, 1)[row];
    uint64_t x = (uint64_t)a.total * 0x9E3779B97F4A7C15ull + (uint64_t)a.cnt;
    for (size_t i = 0; i < sizeof a.pad; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a.pad[i] = (uint8_t)x;
    }
    return weir_value_put(st, NULL, 0, &a, sizeof a);
}

static void kv_close(void *instance)
{
    (void)instance;
}

typedef struct kv_job {
    weir_job *job;
    weir_schema *in;
} kv_job;

static void kv_job_destroy(kv_job *j)
{
    weir_job_destroy(j->job);
    weir_schema_destroy(j->in);
}

static int kv_build(const cj_gen *g, kv_job *j)
{
    static char state[300];
    snprintf(state, sizeof state, "%s/state", g_dir);
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.state_backend = "rocksdb";
    jc.state_dir = state;
    int rc = weir_job_create(&jc, &j->job);
    if (rc)
        return rc;
    j->in = weir_schema_create();
    weir_schema_add(j->in, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(j->in, "v", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(j->in, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    j->in->rowtime = 2;
    weir_source_spec src = {
        .name = "gen", .cls = &cj_gen_class, .arg = (void *)g, .schema = j->in};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED,
                              .delay_ms = CJ_JITTER_MS};
    weir_stream s, o;
    uint32_t key = 0;
    weir_process_fn fn = {.open = kv_open,
                          .process = kv_process,
                          .close = kv_close,
                          .name = "counter"};
    weir_blackhole_sink_config bc = {.row_counter = &g_out_rows};
    weir_operator_spec sink;
    weir_error err;
    if ((rc = weir_job_source(j->job, &src, &wm, 1, &s)) ||
        (rc = weir_job_process(j->job, weir_stream_key_by(s, &key, 1), j->in,
                               &fn, &o)) ||
        (rc = weir_job_set_parallelism(j->job, o, 2)) ||
        (rc = weir_blackhole_sink_spec(&bc, &sink, &err)) ||
        (rc = weir_job_sink(j->job, o, &sink, 2)))
        fprintf(stderr, "cannot build the job: %s\n", weir_job_error(j->job));
    return rc;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void incremental_bench(uint64_t keys, int rounds, bool incremental)
{
    cj_rmtree(g_dir);
    mkdir(g_dir, 0755);
    uint64_t step = keys / 100; /* 1 % of the keys per round */
    cj_gen g = {.n = keys + (uint64_t)rounds * step + 1,
                .seed = 5,
                .n_keys = (uint32_t)keys,
                .sequential_keys = true,
                .limit = &g_limit,
                .produced = &g_produced};
    atomic_store(&g_limit, keys);
    atomic_store(&g_produced, 0);
    kv_job j;
    if (kv_build(&g, &j))
        exit(1);
    weir_checkpoint_config c = ckpt_cfg(0, WEIR_RESTORE_FRESH);
    c.incremental = incremental;
    weir_error err;
    if (weir_job_enable_checkpoints(j.job, &c, &err) ||
        weir_job_start(j.job)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    const char *name = incremental ? "incremental" : "full";
    double dur[64], own[64], full[64], pause[64];
    int n = 0;
    for (int r = 0; r <= rounds && n < 64; r++) {
        uint64_t upto = keys + (uint64_t)r * step;
        atomic_store(&g_limit, upto);
        wait_produced(upto);
        uint64_t id;
        double t1 = now_s();
        if (weir_job_trigger_checkpoint(j.job, &id) ||
            weir_job_await_checkpoint(j.job, id, -1, &err)) {
            fprintf(stderr, "checkpoint failed: %s\n", err.message);
            exit(1);
        }
        double t = now_s() - t1;
        weir_checkpoint_stats st;
        weir_job_checkpoint_stats(j.job, &st);
        if (r == 0) {
            printf("  %-11s %llu keys, checkpoint 1 (every key new): %.3f s, "
                   "stored %.1f MB, full size %.1f MB, longest pause %.1f "
                   "ms\n",
                   name, (unsigned long long)keys, t,
                   (double)st.last_checkpointed_bytes / 1e6,
                   (double)st.last_size_bytes / 1e6,
                   (double)st.last_pause_us / 1e3);
            continue;
        }
        dur[n] = t;
        own[n] = (double)st.last_checkpointed_bytes;
        full[n] = (double)st.last_size_bytes;
        pause[n] = (double)st.last_pause_us / 1e3;
        n++;
    }
    printf("  %-11s then %d checkpoints after 1 %% of the keys changed, "
           "medians: %.3f s, stored %.2f MB (full size %.1f MB), longest "
           "pause %.1f ms\n",
           name, n, median(dur, n), median(own, n) / 1e6,
           median(full, n) / 1e6, median(pause, n));
    kv_job_destroy(&j); /* a crash */

    atomic_store(&g_produced, 0);
    if (kv_build(&g, &j))
        exit(1);
    c = ckpt_cfg(0, WEIR_RESTORE_LATEST);
    c.incremental = incremental;
    uint64_t id;
    if (weir_job_enable_checkpoints(j.job, &c, &err) ||
        weir_job_start(j.job) || weir_job_trigger_checkpoint(j.job, &id) ||
        weir_job_await_checkpoint(j.job, id, -1, &err)) {
        fprintf(stderr, "restore: %s\n", err.message);
        exit(1);
    }
    weir_checkpoint_stats st;
    weir_job_checkpoint_stats(j.job, &st);
    printf("  %-11s restore at the same parallelism: files loaded and "
           "verified in %.3f s, state back in the operators %.3f s after the "
           "start\n",
           name, (double)st.restore_load_ms / 1000.0,
           (double)st.restore_done_ms / 1000.0);
    atomic_store(&g_limit, UINT64_MAX);
    weir_job_wait(j.job);
    kv_job_destroy(&j);
}

/* ---- the windowed job: checkpoints after 1 % of the keys changed ---- */

static void window_ckpt_bench(uint64_t keys, int rounds, const char *backend, bool incremental)
{
    cj_rmtree(g_dir);
    mkdir(g_dir, 0755);
    uint64_t step = keys / 100; /* 1 % of the keys per round, other keys each round */
    cj_gen g = {.n = keys + (uint64_t)rounds * step + 1,
                .seed = 5,
                .n_keys = (uint32_t)keys,
                .sequential_keys = true,
                .limit = &g_limit,
                .produced = &g_produced};
    atomic_store(&g_limit, keys);
    atomic_store(&g_produced, 0);
    cj_params p;
    cj_job *j;
    if (build(&p, &g, backend, &j))
        exit(1);
    p.window_ms = 86400000; /* nothing fires: the state only grows */
    cj_job_destroy(j);
    weir_error err;
    if (cj_job_build(&p, &j, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    weir_checkpoint_config c = ckpt_cfg(0, WEIR_RESTORE_FRESH);
    c.incremental = incremental;
    if (weir_job_enable_checkpoints(j->job, &c, &err) || weir_job_start(j->job)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    char name[40];
    snprintf(name, sizeof name, "%s%s", backend, incremental ? "-incr" : "");
    double dur[64], pause[64], own[64], full[64];
    int n = 0;
    for (int r = 0; r <= rounds && n < 64; r++) {
        uint64_t upto = keys + (uint64_t)r * step;
        atomic_store(&g_limit, upto);
        wait_produced(upto);
        uint64_t id;
        double t1 = now_s();
        if (weir_job_trigger_checkpoint(j->job, &id) || weir_job_await_checkpoint(j->job, id, -1, &err)) {
            fprintf(stderr, "checkpoint failed: %s\n", err.message);
            exit(1);
        }
        double t = now_s() - t1;
        weir_checkpoint_stats st;
        weir_job_checkpoint_stats(j->job, &st);
        if (r == 0) {
            printf("  %-13s %llu keys, checkpoint 1 (every key new): %.3f s, longest pause %.1f ms, stored %.1f MB, "
                   "full size %.1f MB\n",
                   name, (unsigned long long)keys, t, (double)st.last_pause_us / 1e3,
                   (double)st.last_checkpointed_bytes / 1e6, (double)st.last_size_bytes / 1e6);
            continue;
        }
        dur[n] = t;
        pause[n] = (double)st.last_pause_us / 1e3;
        own[n] = (double)st.last_checkpointed_bytes;
        full[n] = (double)st.last_size_bytes;
        n++;
    }
    printf("  %-13s then %d checkpoints after 1 %% of the keys changed, medians: longest pause %.1f ms, %.3f s, "
           "stored %.2f MB (full size %.1f MB)\n",
           name, n, median(pause, n), median(dur, n), median(own, n) / 1e6, median(full, n) / 1e6);
    fflush(stdout);
    atomic_store(&g_limit, UINT64_MAX);
    cj_job_destroy(j); /* canceled mid-run */
}

/* ---- what the number of key groups costs ---- */

/* The job at max parallelism m (memory backend, parallelism 2, one day-long
 * window: every key keeps its state). */
static cj_job *kg_job(cj_params *p, const cj_gen *g, uint32_t m)
{
    cj_job *j;
    if (build(p, g, "memory", &j))
        exit(1);
    cj_job_destroy(j);
    p->window_ms = 86400000;
    p->max_parallelism = m;
    weir_error err;
    if (cj_job_build(p, &j, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    return j;
}

static void kg_checkpoint(cj_job *j, double *secs)
{
    weir_error err;
    uint64_t id;
    double t0 = now_s();
    if (weir_job_trigger_checkpoint(j->job, &id) ||
        weir_job_await_checkpoint(j->job, id, -1, &err)) {
        fprintf(stderr, "checkpoint failed: %s\n", err.message);
        exit(1);
    }
    *secs = now_s() - t0;
}

static void keygroups_bench(uint32_t m, int rounds, uint32_t keys)
{
    cj_rmtree(g_dir);
    mkdir(g_dir, 0755);
    cj_gen g = {.n = UINT64_MAX,
                .seed = 5,
                .n_keys = keys,
                .sequential_keys = true,
                .limit = &g_limit,
                .produced = &g_produced};
    atomic_store(&g_limit, 10 * (uint64_t)keys);
    atomic_store(&g_produced, 0);
    cj_params p;
    cj_job *j = kg_job(&p, &g, m);
    weir_error err;
    weir_checkpoint_config c = ckpt_cfg(0, WEIR_RESTORE_FRESH);
    if (weir_job_enable_checkpoints(j->job, &c, &err) ||
        weir_job_start(j->job)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    wait_produced(10 * (uint64_t)keys);
    double *ck = calloc((size_t)rounds, sizeof *ck);
    double *rs = calloc((size_t)rounds, sizeof *rs);
    double c0 = cpu_s();
    for (int r = 0; r < rounds; r++)
        kg_checkpoint(j, &ck[r]);
    double ck_cpu = (cpu_s() - c0) / rounds;
    weir_checkpoint_stats st;
    weir_job_checkpoint_stats(j->job, &st);
    uint64_t size = st.last_size_bytes;
    cj_job_destroy(j); /* a crash */
    c0 = cpu_s();
    for (int r = 0; r < rounds; r++) {
        j = kg_job(&p, &g, m);
        c = ckpt_cfg(0, WEIR_RESTORE_LATEST);
        if (weir_job_enable_checkpoints(j->job, &c, &err) ||
            weir_job_start(j->job)) {
            fprintf(stderr, "restore: %s\n", err.message);
            exit(1);
        }
        /* The state is back once the restored job completed a checkpoint. */
        double t_ck;
        kg_checkpoint(j, &t_ck);
        weir_job_checkpoint_stats(j->job, &st);
        rs[r] = (double)st.restore_done_ms / 1e3;
        cj_job_destroy(j);
    }
    double rs_cpu = (cpu_s() - c0) / rounds;
    printf("  max parallelism %5u: checkpoint %8llu bytes, %6.1f ms, CPU "
           "%6.1f ms; restore %6.1f ms, CPU %6.1f ms (%d rounds)\n",
           m, (unsigned long long)size, median(ck, rounds) * 1e3,
           ck_cpu * 1e3, median(rs, rounds) * 1e3, rs_cpu * 1e3, rounds);
    free(ck);
    free(rs);
}

int main(int argc, char **argv)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-ckpt-bench-%ld", (long)getpid());
    const char *mode = argc > 1 ? argv[1] : "all";
#ifdef WEIR_HAVE_ROCKSDB
    static const char *const backends[] = {"memory", "rocksdb"};
    int n_backends = 2;
#else
    static const char *const backends[] = {"memory"};
    int n_backends = 1;
#endif
    if (!strcmp(mode, "once")) { /* one run, for profiling: once ROWS
                                    with|without BACKEND */
        cj_gen g = {.n = strtoull(argv[2], NULL, 0),
                    .seed = 3,
                    .n_keys = 10000,
                    .produced = &g_produced_run};
        weir_checkpoint_stats st;
        double cpu;
        double r = run_once(&g, argc > 4 ? argv[4] : "memory",
                            !strcmp(argv[3], "with"), &st, &cpu);
        printf("%.0f rows/s, %.3f CPU s per million rows, %llu rows out\n", r,
               cpu, (unsigned long long)g_out_rows);
        cj_rmtree(g_dir);
        return 0;
    }
    if (!strcmp(mode, "throughput") || !strcmp(mode, "all")) {
        uint64_t rows = argc > 2 && strcmp(mode, "all")
                            ? strtoull(argv[2], NULL, 0)
                            : 20000000;
        printf(
            "throughput, %llu rows, 10000 keys, window 10 s, parallelism 2:\n",
            (unsigned long long)rows);
        for (int b = 0; b < n_backends; b++)
            throughput(rows, backends[b]);
    }
#ifdef WEIR_HAVE_ROCKSDB
    if (!strcmp(mode, "incremental")) {
        uint64_t keys = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
        int rounds = argc > 3 ? atoi(argv[3]) : 7;
        printf("RocksDB, full and incremental checkpoints, %llu keys:\n",
               (unsigned long long)keys);
        incremental_bench(keys, rounds, false);
        incremental_bench(keys, rounds, true);
        cj_rmtree(g_dir);
        return 0;
    }
#endif
    if (!strcmp(mode, "keygroups")) {
        int rounds = argc > 2 ? atoi(argv[2]) : 15;
        uint32_t keys = argc > 3 ? (uint32_t)atoi(argv[3]) : 16;
        static const uint32_t ms[] = {128, 1024, 32768};
        printf("windowed job, %u keys, parallelism 2, memory backend:\n",
               keys);
        for (int i = 0; i < 3; i++)
            keygroups_bench(ms[i], rounds, keys);
        cj_rmtree(g_dir);
        return 0;
    }
    if (!strcmp(mode, "window")) {
        uint64_t keys = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
        int rounds = argc > 3 ? atoi(argv[3]) : 7;
        const char *only = argc > 4 ? argv[4] : NULL;
        printf("windowed job, %llu keys, checkpoints after 1 %% of the keys changed:\n", (unsigned long long)keys);
        for (int b = 0; b < n_backends; b++)
            if (!only || !strcmp(only, backends[b]))
                window_ckpt_bench(keys, rounds, backends[b], false);
#ifdef WEIR_HAVE_ROCKSDB
        if (!only || !strcmp(only, "rocksdb-incremental"))
            window_ckpt_bench(keys, rounds, "rocksdb", true);
#endif
        cj_rmtree(g_dir);
        return 0;
    }
    if (!strcmp(mode, "state") || !strcmp(mode, "all")) {
        uint64_t keys = argc > 2 && strcmp(mode, "all")
                            ? strtoull(argv[2], NULL, 0)
                            : 1000000;
        printf("checkpoint size and duration, recovery:\n");
        for (int b = 0; b < n_backends; b++)
            if (argc <= 3 || !strcmp(argv[3], backends[b]))
                state_bench(keys, backends[b]);
    }
    cj_rmtree(g_dir);
    return 0;
}
