/*
 * tests/test_crash.c - kill -9 at random moments, restart, and the visible
 * output is still exactly that of a run that was never killed.
 *
 * The job (tests/ckpt_job.h): a generated CSV file (2 M rows; 200 k under
 * AddressSanitizer) -> keyed tumbling window (COUNT, SUM) at parallelism 2
 * -> the file sink with two-phase commit, checkpointing every 100 ms, on the
 * memory or the RocksDB state backend. Each attempt runs in a child process
 * that is killed with SIGKILL:
 *   T  by the parent, after a random delay;
 *   M  by itself, just before the rename that makes the k-th _metadata of
 *      the attempt durable (the checkpoint is lost);
 *   A  just after it (the checkpoint is complete; the sinks have not heard);
 *   S  at the k-th commit rename of a sink part file, before or after it
 *      (half of a checkpoint's files committed);
 *   W  at the k-th write of a checkpoint state file.
 * The next attempt resumes from the newest complete checkpoint. When the
 * job reaches its end before all kills are spent, its output is checked and
 * a new round starts from scratch, so every run makes at least
 * WEIR_CRASH_KILLS (24) kills, each at a point drawn from the seed.
 *
 * Replay: WEIR_CRASH_SEED=<seed printed> (and WEIR_CRASH_KILLS,
 * WEIR_CRASH_ROWS) reproduce the same kill schedule. The order of events
 * inside a process still depends on thread timing, so a replay hits the
 * same kind of point, not the same instruction.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ckpt_job.h"
#include "connector/file/fileio.h"
#include "util/io.h"

#if defined(__SANITIZE_ADDRESS__)
#define CRASH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CRASH_ASAN 1
#endif
#endif
#ifndef CRASH_ASAN
#define CRASH_ASAN 0
#endif

#define N_KEYS 100

static char g_dir[256], g_input[300], g_out[300], g_ckpt[300], g_state[300],
    g_ref[300], g_log[300];
static uint64_t g_rows;
/* The killed attempts read the input as byte ranges of this size (0: one
 * split); the reference always reads it whole. */
static uint64_t g_split_size;

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 0) : def;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-crash-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
    snprintf(g_input, sizeof g_input, "%s/input.csv", g_dir);
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    snprintf(g_ckpt, sizeof g_ckpt, "%s/ckpt", g_dir);
    snprintf(g_state, sizeof g_state, "%s/state", g_dir);
    snprintf(g_ref, sizeof g_ref, "%s/ref", g_dir);
    snprintf(g_log, sizeof g_log, "%s/log.txt", g_dir);
    g_rows = env_u64("WEIR_CRASH_ROWS", CRASH_ASAN ? 200000 : 2000000);
    cr_assert_eq(cj_generate(g_input, g_rows, N_KEYS, 11), 0);
}

static void teardown(void)
{
    if (!getenv("WEIR_CRASH_KEEP"))
        cj_rmtree(g_dir);
}

TestSuite(crash, .init = setup, .fini = teardown, .timeout = 900);

/* ---- the child: one attempt ---- */

enum { MODE_T, MODE_M, MODE_A, MODE_S, MODE_W, N_MODES };
static const char MODE_NAMES[] = "TMASW";

typedef struct attempt {
    int mode;
    uint32_t k;       /* M, A, S, W: the k-th event of the attempt */
    bool after;       /* S: after the rename rather than before */
    int64_t delay_ms; /* T */
} attempt;

static attempt g_att;
static _Atomic uint32_t g_events;
static weir__file_io g_fio;

static void die(void)
{
    raise(SIGKILL);
}

static int kill_rename(const char *from, const char *to)
{
    bool meta = strstr(to, "/_metadata") != NULL;
    if (meta && (g_att.mode == MODE_M || g_att.mode == MODE_A)) {
        uint32_t n = atomic_fetch_add(&g_events, 1) + 1;
        if (n == g_att.k && g_att.mode == MODE_M)
            die();
        int rc = rename(from, to) < 0 ? -errno : 0;
        if (n == g_att.k)
            die();
        return rc;
    }
    return rename(from, to) < 0 ? -errno : 0;
}

static ssize_t kill_write(int fd, const void *p, size_t n)
{
    if (g_att.mode == MODE_W && atomic_fetch_add(&g_events, 1) + 1 == g_att.k)
        die();
    ssize_t w = write(fd, p, n);
    return w < 0 ? -errno : w;
}

static int kill_sink_rename(const char *from, const char *to)
{
    uint32_t n = atomic_fetch_add(&g_events, 1) + 1;
    if (n == g_att.k && !g_att.after)
        die();
    int rc = rename(from, to);
    if (n == g_att.k)
        die();
    return rc;
}

/* Runs the job once (restoring from the newest checkpoint); the exit status
 * says how it went. */
static void child(const char *backend, const char *out_dir, bool checkpoints)
{
    FILE *log = fopen(g_log, "a");
    if (g_att.mode == MODE_M || g_att.mode == MODE_A)
        weir__io_ops.rename = kill_rename;
    if (g_att.mode == MODE_W)
        weir__io_ops.write = kill_write;
    if (g_att.mode == MODE_S) {
        g_fio = weir__fio_posix;
        g_fio.rename = kill_sink_rename;
        weir__fio = &g_fio;
    }
    cj_params p = {.input = g_input,
                   .out_dir = out_dir,
                   .state_backend = backend,
                   .state_dir = g_state,
                   .parallelism = 2,
                   .read_buffer_bytes = 64 << 10,
                   .split_size = checkpoints ? g_split_size : 0,
                   .roll_bytes = 64 << 10};
    cj_job *j = NULL;
    weir_error err;
    int rc = cj_job_build(&p, &j, &err);
    if (!rc && checkpoints) {
        weir_checkpoint_config c;
        weir_checkpoint_config_init(&c);
        c.dir = g_ckpt;
        c.interval_ms = 100;
        c.log = cj_quiet_log;
        c.log_ud = log;
        rc = weir_job_enable_checkpoints(j->job, &c, &err);
    }
    if (!rc && (rc = weir_job_run(j->job)))
        snprintf(err.message, sizeof err.message, "%s", weir_job_error(j->job));
    if (rc && log)
        fprintf(log, "attempt failed: %s: %s\n", weir_strerror(rc),
                err.message);
    if (log)
        fclose(log);
    _exit(rc ? 3 : 0);
}

/* Forks an attempt; returns its wait status. Kills it after a.delay_ms for
 * MODE_T; any attempt after 120 s. */
static int run_attempt(const char *backend, const char *out_dir,
                       bool checkpoints, attempt a)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        g_att = a;
        child(backend, out_dir, checkpoints);
    }
    int64_t t0 = mono_ms();
    bool sent = false;
    for (;;) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return status;
        int64_t el = mono_ms() - t0;
        if (!sent && ((a.mode == MODE_T && el >= a.delay_ms) || el > 120000)) {
            kill(pid, SIGKILL);
            sent = true;
            cr_assert(a.mode == MODE_T, "an attempt ran for more than 120 s");
        }
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
}

/*
 * Visible part files are final: once a reader can see a file, no later
 * attempt may change or remove it (an output rewritten by a replay would
 * otherwise hide a file that was made visible too early).
 */
typedef struct seen_file {
    char name[128];
    uint64_t size;
    uint32_t crc;
} seen_file;

static seen_file *g_seen;
static size_t g_n_seen, g_cap_seen;

static uint32_t file_crc(const char *path, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    uint32_t crc = 0;
    *size = 0;
    if (!f)
        return 0;
    char buf[1 << 14];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        crc = weir_crc32c(crc, buf, n);
        *size += n;
    }
    fclose(f);
    return crc;
}

/* Checks the visible files against what earlier attempts saw; "" if fine, else
 * why. */
static void check_visible_files(char *why, size_t cap)
{
    why[0] = '\0';
    for (size_t i = 0; i < g_n_seen; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", g_out, g_seen[i].name);
        uint64_t size;
        uint32_t crc = file_crc(path, &size);
        if (access(path, F_OK) != 0) {
            snprintf(why, cap, "visible file %s disappeared", g_seen[i].name);
            return;
        }
        if (size != g_seen[i].size || crc != g_seen[i].crc) {
            snprintf(why, cap, "visible file %s changed (%llu -> %llu bytes)",
                     g_seen[i].name, (unsigned long long)g_seen[i].size,
                     (unsigned long long)size);
            return;
        }
    }
    DIR *d = opendir(g_out);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof g_seen->name)
            continue;
        bool known = false;
        for (size_t i = 0; i < g_n_seen && !known; i++)
            known = strcmp(g_seen[i].name, e->d_name) == 0;
        if (known)
            continue;
        if (g_n_seen == g_cap_seen) {
            g_cap_seen = g_cap_seen ? g_cap_seen * 2 : 256;
            g_seen = realloc(g_seen, g_cap_seen * sizeof *g_seen);
        }
        seen_file *sf = &g_seen[g_n_seen++];
        snprintf(sf->name, sizeof sf->name, "%.127s", e->d_name);
        char path[700];
        snprintf(path, sizeof path, "%s/%s", g_out, sf->name);
        sf->crc = file_crc(path, &sf->size);
    }
    closedir(d);
}

static void dump_log(void)
{
    FILE *f = fopen(g_log, "r");
    if (!f)
        return;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f) && n++ < 200)
        fprintf(stderr, "  | %s", line);
    fclose(f);
}

static void crash_test(const char *backend, uint64_t kills_default)
{
    uint64_t seed = env_u64("WEIR_CRASH_SEED",
                            env_u64("WEIR_SEED", (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)));
    uint64_t target = env_u64("WEIR_CRASH_KILLS", kills_default);
    fprintf(stderr,
            "crash test (%s backend, %llu rows, split size %llu): seed %llu "
            "(WEIR_CRASH_SEED=%llu replays it)\n",
            backend, (unsigned long long)g_rows,
            (unsigned long long)g_split_size, (unsigned long long)seed,
            (unsigned long long)seed);

    /* The reference: one uninterrupted run without checkpoints. */
    int64_t t0 = mono_ms();
    int st = run_attempt("memory", g_ref, false,
                         (attempt){.mode = MODE_M, .k = UINT32_MAX});
    int64_t ref_ms = mono_ms() - t0;
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the reference run failed");
    cj_lines ref;
    cr_assert_eq(cj_read_output(g_ref, &ref, NULL), 0);
    cr_assert_gt(ref.n, 0);
    fprintf(stderr, "  reference: %zu output lines in %lld ms\n", ref.n,
            (long long)ref_ms);
    int64_t max_delay = ref_ms / 6 > 60 ? ref_ms / 6 : 60;

    uint64_t kills = 0, attempts = 0;
    for (uint32_t round = 1; kills < target; round++) {
        cj_rmtree(g_out);
        cj_rmtree(g_ckpt);
        cj_rmtree(g_state);
        g_n_seen = 0;
        bool done = false;
        char why_files[600];
        while (!done && kills < target) {
            uint64_t r = mix(seed ^ (kills + 1) * 0x2545F4914F6CDD1Dull);
            attempt a = {.mode = (int)(r % N_MODES)};
            r = mix(r);
            a.delay_ms = 1 + (int64_t)(r % (uint64_t)max_delay);
            a.k = a.mode == MODE_W   ? 1 + (uint32_t)(r % 12)
                  : a.mode == MODE_S ? 1 + (uint32_t)(r % 6)
                                     : 1 + (uint32_t)(r % 3);
            a.after = (r >> 32) & 1;
            st = run_attempt(backend, g_out, true, a);
            attempts++;
            check_visible_files(why_files, sizeof why_files);
            if (why_files[0])
                dump_log();
            cr_assert_eq(why_files[0], '\0',
                         "round %u after kill %llu (%c k=%u, seed %llu): %s",
                         round, (unsigned long long)kills + 1,
                         MODE_NAMES[a.mode], a.k, (unsigned long long)seed,
                         why_files);
            if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
                kills++;
                fprintf(
                    stderr, "  round %u kill %llu: %c k=%u%s delay=%lld ms\n",
                    round, (unsigned long long)kills, MODE_NAMES[a.mode], a.k,
                    a.mode == MODE_S ? (a.after ? " after" : " before") : "",
                    (long long)(a.mode == MODE_T ? a.delay_ms : 0));
            } else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
                done =
                    true; /* the job reached its end before this kill point */
            } else {
                dump_log();
                cr_assert_fail("attempt %llu failed (status %#x)",
                               (unsigned long long)attempts, st);
            }
        }
        /* The last attempt is never killed. */
        if (!done) {
            st = run_attempt(backend, g_out, true,
                             (attempt){.mode = MODE_M, .k = UINT32_MAX});
            attempts++;
            check_visible_files(why_files, sizeof why_files);
            cr_assert_eq(why_files[0], '\0',
                         "round %u, last attempt (seed %llu): %s", round,
                         (unsigned long long)seed, why_files);
            if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
                dump_log();
                cr_assert_fail("the final attempt failed (status %#x)", st);
            }
        }
        cj_lines got;
        size_t hidden;
        cr_assert_eq(cj_read_output(g_out, &got, &hidden), 0);
        char why[1024];
        int d = cj_lines_diff(&ref, &got, why, sizeof why);
        cj_lines_free(&got);
        if (d || hidden)
            dump_log();
        cr_assert_eq(d, 0,
                     "round %u (seed %llu): the output differs from the "
                     "uninterrupted run: %s",
                     round, (unsigned long long)seed, why);
        cr_assert_eq(hidden, 0,
                     "round %u (seed %llu): %zu hidden part files left", round,
                     (unsigned long long)seed, hidden);
        fprintf(stderr, "  round %u: output equals the reference (%zu lines)\n",
                round, ref.n);
    }
    fprintf(stderr, "  %llu kills in %llu attempts\n",
            (unsigned long long)kills, (unsigned long long)attempts);
    cr_assert_geq(kills, target);
    cj_lines_free(&ref);
    free(g_seen);
    g_seen = NULL;
    g_n_seen = g_cap_seen = 0;
}

Test(crash, kill9_memory_backend)
{
    crash_test("memory", 24);
}

/*
 * The input read as 13 byte ranges by the one source subtask: it reads them
 * one after the other, each range going on with the watermark generator of
 * the one before, so the output (late records dropped included) is exactly
 * that of the file read whole, and a restore resumes the range that was
 * being read and those still waiting. Read side by side, each range with
 * its own generator, the late records of the later ranges counted.
 */
Test(crash, kill9_memory_backend_byte_ranges)
{
    struct stat st;
    cr_assert_eq(stat(g_input, &st), 0);
    g_split_size = (uint64_t)st.st_size / 13 + 1;
    crash_test("memory", 8);
}

Test(crash, kill9_rocksdb_backend)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    crash_test("rocksdb", 24);
}
