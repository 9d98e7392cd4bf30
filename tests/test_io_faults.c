/*
 * tests/test_io_faults.c - I/O fault injection, as SQLite's test suite does
 * it: every file-system call weir makes for durable data goes through
 * util/io.h's weir__io_ops (checkpoint storage, the file source and the
 * file sink alike), so the test installs a table that fails the n-th call
 * of one kind, for every n.
 *
 * The cycle under test is a small SQL job (CSV file -> TUMBLE window
 * COUNT/SUM at parallelism 2 -> filesystem sink, exactly-once) run twice
 * with checkpoints on: the first run reads the input, writes its final
 * checkpoint and commits the sink's files; the second restores that
 * checkpoint and finds nothing left to do. A counting run gives the number
 * of calls of each kind (write, fsync, rename, read); then, for every kind,
 * every n and every failure (EIO, ENOSPC, and for write and read a short
 * transfer), the cycle runs again with the n-th call failing once, then the
 * job is rerun with healthy I/O (restoring the newest checkpoint, up to
 * three times, as a restart strategy would) and its visible output must be
 * exactly that of an uninterrupted run without checkpoints, with no hidden
 * file left. Besides: a short transfer is never an error, and a failed
 * write, fsync or rename of a checkpoint file fails that checkpoint, never
 * the job.
 *
 * Besides the sweep: a sink whose part file cannot be synced at a
 * checkpoint barrier must fail the job (whose restart replays), not let it
 * go on without that file's rows.
 *
 * WEIR_IOFAULT_STRIDE=k tries every k-th n, starting at WEIR_IOFAULT_SEED
 * mod k (printed; both replay a run). The default is every n on the heap
 * backend and every 4th on RocksDB, whose cycles are slower, and twice
 * those strides under AddressSanitizer (bounded for CI);
 * WEIR_IOFAULT_STRIDE=1 is the full sweep. WEIR_IOFAULT_VERBOSE prints
 * every run and the checkpoint log.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ckpt_job.h"
#include "util/io.h"
#include "weir/planner.h"

#if defined(__SANITIZE_ADDRESS__)
#define IOFAULT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IOFAULT_ASAN 1
#endif
#endif
#ifndef IOFAULT_ASAN
#define IOFAULT_ASAN 0
#endif

#define N_ROWS 3000
#define N_KEYS 12
#define PARALLELISM "2"

enum { K_WRITE, K_FSYNC, K_RENAME, K_READ, N_KINDS };
enum { F_EIO, F_ENOSPC, F_SHORT, N_FAILS };
static const char *const KIND_NAMES[N_KINDS] = {"write", "fsync", "rename",
                                                "read"};
static const char *const FAIL_NAMES[N_FAILS] = {"EIO", "ENOSPC", "short"};

static char g_dir[256], g_input[300], g_out[300], g_ref[300], g_ckpt[300],
    g_state[300];
static cj_lines g_ref_lines;

/* ---- the failing table ---- */

static _Atomic uint64_t g_calls[N_KINDS];
static _Atomic int g_target_kind = -1; /* -1: count only */
static uint64_t g_target_n;
static int g_target_fail;
static _Atomic int g_fired;
/* The path of each open descriptor (to tell checkpoint files apart). */
#define MAX_FD 4096
static char *_Atomic g_fd_path[MAX_FD];
static _Atomic int g_fired_on_ckpt;

static void note_fd(int fd, const char *path)
{
    if (fd < 0 || fd >= MAX_FD)
        return;
    char *p = strdup(path), *old = atomic_exchange(&g_fd_path[fd], p);
    free(old);
}

static bool is_ckpt_path(const char *path)
{
    return path && strncmp(path, g_ckpt, strlen(g_ckpt)) == 0;
}

/* Whether this call is the one to fail; *fail gets how. */
static bool hit(int kind, int *fail)
{
    uint64_t n = atomic_fetch_add(&g_calls[kind], 1) + 1;
    if (atomic_load(&g_target_kind) != kind || n != g_target_n)
        return false;
    atomic_store(&g_fired, 1);
    *fail = g_target_fail;
    return true;
}

static int f_open(const char *path, int flags, int mode)
{
    int fd = open(path, flags | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    note_fd(fd, path);
    return fd;
}

static void fired_on(int fd)
{
    if (fd >= 0 && fd < MAX_FD && is_ckpt_path(atomic_load(&g_fd_path[fd])))
        atomic_store(&g_fired_on_ckpt, 1);
}

static ssize_t f_write(int fd, const void *p, size_t n)
{
    int fail;
    if (hit(K_WRITE, &fail)) {
        fired_on(fd);
        if (fail == F_EIO)
            return -EIO;
        if (fail == F_ENOSPC)
            return -ENOSPC;
        n = n > 1 ? n / 2 : n;
    }
    ssize_t w = write(fd, p, n);
    return w < 0 ? -errno : w;
}

static ssize_t f_read(int fd, void *p, size_t n)
{
    int fail;
    if (hit(K_READ, &fail)) {
        if (fail == F_EIO)
            return -EIO;
        if (fail == F_ENOSPC)
            return -ENOSPC;
        n = n > 1 ? n / 2 : n;
    }
    ssize_t r = read(fd, p, n);
    return r < 0 ? -errno : r;
}

static ssize_t f_pread(int fd, void *p, size_t n, off_t off)
{
    int fail;
    if (hit(K_READ, &fail)) {
        if (fail == F_EIO)
            return -EIO;
        if (fail == F_ENOSPC)
            return -ENOSPC;
        n = n > 1 ? n / 2 : n;
    }
    ssize_t r = pread(fd, p, n, off);
    return r < 0 ? -errno : r;
}

static int f_fsync(int fd)
{
    int fail;
    if (hit(K_FSYNC, &fail)) {
        fired_on(fd);
        return fail == F_ENOSPC ? -ENOSPC : -EIO;
    }
    return fsync(fd) < 0 ? -errno : 0;
}

static int f_rename(const char *from, const char *to)
{
    int fail;
    if (hit(K_RENAME, &fail)) {
        if (is_ckpt_path(to))
            atomic_store(&g_fired_on_ckpt, 1);
        return fail == F_ENOSPC ? -ENOSPC : -EIO;
    }
    return rename(from, to) < 0 ? -errno : 0;
}

static void install(int kind, uint64_t n, int fail)
{
    for (int k = 0; k < N_KINDS; k++)
        atomic_store(&g_calls[k], 0);
    g_target_n = n;
    g_target_fail = fail;
    atomic_store(&g_fired, 0);
    atomic_store(&g_fired_on_ckpt, 0);
    atomic_store(&g_target_kind, kind);
    weir__io_ops.open = f_open;
    weir__io_ops.write = f_write;
    weir__io_ops.read = f_read;
    weir__io_ops.pread = f_pread;
    weir__io_ops.fsync = f_fsync;
    weir__io_ops.rename = f_rename;
}

/* ---- the job ---- */

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-iofault-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
    snprintf(g_input, sizeof g_input, "%s/in.csv", g_dir);
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    snprintf(g_ref, sizeof g_ref, "%s/ref", g_dir);
    snprintf(g_ckpt, sizeof g_ckpt, "%s/ckpt", g_dir);
    snprintf(g_state, sizeof g_state, "%s/state", g_dir);
    cr_assert_eq(cj_generate(g_input, N_ROWS, N_KEYS, 5), 0);
}

static void teardown(void)
{
    weir__io_reset();
    cj_lines_free(&g_ref_lines);
    for (int i = 0; i < MAX_FD; i++)
        free(atomic_exchange(&g_fd_path[i], NULL));
    if (!getenv("WEIR_IOFAULT_KEEP"))
        cj_rmtree(g_dir);
}

TestSuite(io_faults, .init = setup, .fini = teardown, .timeout = 900);

/*
 * Runs the job once: with checkpoints (restoring the newest) unless
 * checkpoints is false; *msg gets the error. Returns weir_job_run's code (or
 * the code of whatever failed before it).
 */
static int run_job(const char *out, const char *backend, bool checkpoints,
                   char *msg, size_t cap)
{
    char sql[4096];
    snprintf(sql, sizeof sql,
             "CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT,\n"
             "  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),\n"
             "  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)\n"
             "WITH ('connector' = 'filesystem', 'path' = '%s',\n"
             "      'format' = 'csv');\n"
             "CREATE TABLE dst (k STRING, window_start TIMESTAMP(3),\n"
             "  window_end TIMESTAMP(3), cnt BIGINT, total BIGINT)\n"
             "WITH ('connector' = 'filesystem', 'path' = '%s',\n"
             "      'format' = 'json', 'sink.rolling-policy.file-size' = "
             "'1kb');\n"
             "INSERT INTO dst\n"
             "SELECT k, window_start, window_end, COUNT(*), SUM(v)\n"
             "FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts),\n"
             "                  INTERVAL '1' SECOND))\n"
             "GROUP BY k, window_start, window_end;\n",
             g_input, out);
    /* state.checkpoints.dir makes the planner choose the exactly-once
     * sink (commit on checkpoint), as `weir run -D` would. */
    const char *keys[] = {"parallelism.default", "state.backend.type",
                          "weir.state.dir", "state.checkpoints.dir"};
    const char *vals[] = {PARALLELISM, backend, g_state, g_ckpt};
    weir_sql_job_options opt = {
        .set_keys = keys, .set_values = vals, .n_set = checkpoints ? 4 : 3};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("job.sql", sql, strlen(sql), &opt, &sj, &err);
    cr_assert_eq(rc, 0, "%s", err.message);
    weir_job *job = weir_sql_job_graph(sj);
    cr_assert_not_null(job);
    if (checkpoints) {
        weir_checkpoint_config c;
        weir_checkpoint_config_init(&c);
        c.dir = g_ckpt;
        c.interval_ms = 0; /* the final checkpoint only */
        c.restore = WEIR_RESTORE_LATEST;
        c.log = cj_quiet_log; /* to stderr with WEIR_IOFAULT_VERBOSE */
        c.log_ud = getenv("WEIR_IOFAULT_VERBOSE") ? stderr : NULL;
        rc = weir_job_enable_checkpoints(job, &c, &err);
    }
    if (!rc && (rc = weir_job_run(job)))
        snprintf(err.message, sizeof err.message, "%s", weir_job_error(job));
    snprintf(msg, cap, "%s", rc ? err.message : "");
    if (getenv("WEIR_IOFAULT_VERBOSE"))
        fprintf(stderr, "  run (%s): %s %s\n", checkpoints ? "ckpt" : "ref",
                weir_strerror(rc), msg);
    weir_sql_job_destroy(sj);
    return rc;
}

/* 0 if out holds exactly the reference's lines and no hidden part file. */
static int compare_output(char *why, size_t cap)
{
    cj_lines got;
    size_t hidden;
    cr_assert_eq(cj_read_output(g_out, &got, &hidden), 0);
    int d = cj_lines_diff(&g_ref_lines, &got, why, cap);
    cj_lines_free(&got);
    if (!d && hidden) {
        snprintf(why, cap, "%zu hidden part files left behind", hidden);
        d = 1;
    }
    return d;
}

static void reference(const char *backend)
{
    char msg[1024];
    cr_assert_eq(run_job(g_ref, backend, false, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(cj_read_output(g_ref, &g_ref_lines, NULL), 0);
    cr_assert_gt(g_ref_lines.n, 40, "the reference run produced %zu lines",
                 g_ref_lines.n);
}

static void clean(void)
{
    cj_rmtree(g_out);
    cj_rmtree(g_ckpt);
    cj_rmtree(g_state);
}

/* The cycle: a run from scratch to its final checkpoint, then a rerun that
 * restores it. */
static void cycle(const char *backend, int *rc1, int *rc2, char *msg,
                  size_t cap)
{
    char m2[1024];
    *rc1 = run_job(g_out, backend, true, msg, cap);
    *rc2 = run_job(g_out, backend, true, m2, sizeof m2);
    if (!*rc1 && *rc2)
        snprintf(msg, cap, "%s", m2);
}

typedef struct sweep_stats {
    unsigned tried, fired, failed_runs, recovered_after;
} sweep_stats;

static void sweep(const char *backend, uint64_t default_stride)
{
    reference(backend);
    char msg[1024], why[1024];

    /* Count the calls of an uninterrupted cycle, and check that it gives
     * the reference output. */
    clean();
    install(-1, 0, 0);
    int rc1, rc2;
    cycle(backend, &rc1, &rc2, msg, sizeof msg);
    weir__io_reset();
    cr_assert(rc1 == 0 && rc2 == 0, "the cycle failed without a fault: %s",
              msg);
    cr_assert_eq(compare_output(why, sizeof why), 0,
                 "the cycle without a fault: %s", why);
    uint64_t count[N_KINDS];
    for (int k = 0; k < N_KINDS; k++) {
        count[k] = atomic_load(&g_calls[k]);
        cr_assert_gt(count[k], 0, "no %s call in the cycle", KIND_NAMES[k]);
    }
    fprintf(stderr,
            "io_faults %s: a cycle makes %llu writes, %llu fsyncs, %llu "
            "renames, %llu reads\n",
            backend, (unsigned long long)count[K_WRITE],
            (unsigned long long)count[K_FSYNC],
            (unsigned long long)count[K_RENAME],
            (unsigned long long)count[K_READ]);

    const char *sv = getenv("WEIR_IOFAULT_STRIDE");
    uint64_t stride = sv && *sv ? strtoull(sv, NULL, 10)
                                : default_stride * (IOFAULT_ASAN ? 2 : 1);
    if (stride == 0)
        stride = 1;
    const char *seedv = getenv("WEIR_IOFAULT_SEED");
    uint64_t seed =
        seedv && *seedv ? strtoull(seedv, NULL, 10) : (uint64_t)time(NULL);
    fprintf(stderr,
            "io_faults %s: stride %llu, seed %llu (WEIR_IOFAULT_STRIDE, "
            "WEIR_IOFAULT_SEED)\n",
            backend, (unsigned long long)stride, (unsigned long long)seed);

    sweep_stats st = {0};
    for (int k = 0; k < N_KINDS; k++) {
        /* A little slack: the count may vary with thread timing. */
        uint64_t last = count[k] + 2;
        for (int f = 0; f < N_FAILS; f++) {
            if (f == F_SHORT && (k == K_FSYNC || k == K_RENAME))
                continue;
            for (uint64_t n =
                     1 + (seed + (uint64_t)k * 7 + (uint64_t)f) % stride;
                 n <= last; n += stride) {
                clean();
                install(k, n, f);
                cycle(backend, &rc1, &rc2, msg, sizeof msg);
                bool fired = atomic_load(&g_fired),
                     on_ckpt = atomic_load(&g_fired_on_ckpt);
                weir__io_reset();
                st.tried++;
                st.fired += fired;
                const char *what = KIND_NAMES[k];
                if (f == F_SHORT || !fired)
                    cr_assert(rc1 == 0 && rc2 == 0,
                              "a short %s (call %llu) failed the job: %s", what,
                              (unsigned long long)n, msg);
                if (fired && on_ckpt && k != K_READ)
                    cr_assert_eq(rc1, 0,
                                 "%s of a checkpoint file failing with %s "
                                 "(call %llu) failed the job, not the "
                                 "checkpoint: %s",
                                 what, FAIL_NAMES[f], (unsigned long long)n,
                                 msg);
                if (rc1 || rc2) {
                    st.failed_runs++;
                    cr_assert(msg[0], "a failed run says nothing");
                }
                /* Recovery: healthy I/O, restore the newest checkpoint. */
                int rc = rc2;
                for (int attempt = 0; attempt < 3 && (rc1 || rc2 || rc);
                     attempt++) {
                    rc = run_job(g_out, backend, true, msg, sizeof msg);
                    st.recovered_after++;
                    if (!rc)
                        break;
                }
                cr_assert_eq(rc, 0,
                             "%s %s at call %llu: the job does not recover: "
                             "%s",
                             what, FAIL_NAMES[f], (unsigned long long)n, msg);
                cr_assert_eq(compare_output(why, sizeof why), 0,
                             "%s %s at call %llu (%s): the output differs "
                             "from an uninterrupted run: %s",
                             what, FAIL_NAMES[f], (unsigned long long)n,
                             fired ? "fired" : "not reached", why);
            }
        }
    }
    fprintf(stderr,
            "io_faults %s: %u faulty cycles, %u faults fired, %u failed runs, "
            "%u recovery runs; every output exact\n",
            backend, st.tried, st.fired, st.failed_runs, st.recovered_after);
    cr_assert_gt(st.fired, st.tried / 2, "most faults must fire");
}

Test(io_faults, every_nth_call_failing_keeps_the_output_exact_memory)
{
    sweep("memory", 1);
}

#ifdef WEIR_HAVE_ROCKSDB
Test(io_faults, every_nth_call_failing_keeps_the_output_exact_rocksdb)
{
    sweep("rocksdb", 4);
}
#endif

/* ---- a sink failing at a barrier ---- */

static _Atomic uint64_t g_limit, g_produced;
static _Atomic int g_sink_fsync_fails;

static int f_sink_fsync(int fd)
{
    const char *path =
        fd >= 0 && fd < MAX_FD ? atomic_load(&g_fd_path[fd]) : NULL;
    if (path && strncmp(path, g_out, strlen(g_out)) == 0 &&
        atomic_load(&g_sink_fsync_fails) > 0) {
        atomic_fetch_sub(&g_sink_fsync_fails, 1);
        return -EIO;
    }
    return fsync(fd) < 0 ? -errno : 0;
}

static cj_job *start_gen(const cj_gen *gen, const char *out, bool checkpoints)
{
    cj_params p = {.gen = gen,
                   .out_dir = out,
                   .job_id = g_ckpt,
                   .state_backend = "memory",
                   .parallelism = 2,
                   .batch_size = 256};
    cj_job *j = NULL;
    weir_error err;
    cr_assert_eq(cj_job_build(&p, &j, &err), 0, "%s", err.message);
    if (checkpoints) {
        weir_checkpoint_config c;
        weir_checkpoint_config_init(&c);
        c.dir = g_ckpt;
        c.restore = WEIR_RESTORE_LATEST;
        c.log = cj_quiet_log;
        c.log_ud = getenv("WEIR_IOFAULT_VERBOSE") ? stderr : NULL;
        cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                     err.message);
    }
    cr_assert_eq(weir_job_start(j->job), 0, "%s", weir_job_error(j->job));
    return j;
}

Test(io_faults, a_sink_sync_failing_at_a_barrier_fails_the_job_not_its_rows)
{
    cj_gen gen = {.n = 40000,
                  .seed = 9,
                  .n_keys = 20,
                  .limit = &g_limit,
                  .produced = &g_produced};
    atomic_store(&g_limit, UINT64_MAX);
    cj_job *j = start_gen(&gen, g_ref, false);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cj_job_destroy(j);
    cr_assert_eq(cj_read_output(g_ref, &g_ref_lines, NULL), 0);
    cr_assert_gt(g_ref_lines.n, 40);

    /* 25 000 rows in: windows have fired, the sinks hold rows in their
     * in-progress files. */
    install(-1, 0, 0);
    weir__io_ops.fsync = f_sink_fsync;
    atomic_store(&g_limit, 25000);
    atomic_store(&g_produced, 0);
    j = start_gen(&gen, g_out, true);
    for (int i = 0; i < 20000 && atomic_load(&g_produced) < 25000; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cr_assert_eq(atomic_load(&g_produced), 25000);
    /* The barrier rolls the sinks' files: the first sync fails. */
    atomic_store(&g_sink_fsync_fails, 1);
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    int crc = weir_job_await_checkpoint(j->job, id, 20000, &err);
    cr_assert_neq(crc, 0, "the checkpoint whose sink file failed completed");
    cr_assert_eq(atomic_load(&g_sink_fsync_fails), 0);
    atomic_store(&g_limit, UINT64_MAX);
    int rc = weir_job_wait(j->job);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", weir_job_error(j->job));
    cj_job_destroy(j);
    weir__io_reset();
    cr_assert_neq(rc, 0,
                  "the job went on after its sink lost a part file's data");
    cr_assert(strstr(msg, "cannot sync"), "%s", msg);

    /* The restart replays from the last checkpoint (none: the start). */
    j = start_gen(&gen, g_out, true);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cj_job_destroy(j);
    char why[1024];
    cr_assert_eq(compare_output(why, sizeof why), 0, "%s", why);
}
