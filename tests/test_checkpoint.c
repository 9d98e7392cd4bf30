/*
 * tests/test_checkpoint.c - checkpoints, recovery and savepoints end to end:
 * a windowed job with a two-phase-commit file sink, "crashed" (destroyed
 * while running: threads canceled, in-progress files left hidden) and
 * restored, must show exactly the output of a run that never failed -
 * after a plain restore, after falling back past a corrupt checkpoint, after
 * a checkpoint failed on ENOSPC, at other parallelisms, on the other state
 * backend, and from savepoints.
 *
 * The input pauses where the test says (the generator source of
 * ckpt_job.h produces rows only below a limit), so checkpoints are taken at
 * chosen points of the input, whatever the thread timing.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint/catalog.h"
#include "runtime/checkpoint.h"
#include "ckpt_job.h"
#include "util/io.h"

#define N_ROWS 60000
#define N_KEYS 40

static char g_dir[256], g_out[300], g_ckpt[300], g_sp[300], g_state[300],
    g_ref[300];
static _Atomic uint64_t g_limit, g_produced;
static cj_gen g_gen;
static cj_lines g_ref_lines;
static cj_log g_log;
static uint32_t g_retain = 1;

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-ckpt-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    snprintf(g_ckpt, sizeof g_ckpt, "%s/ckpt", g_dir);
    snprintf(g_sp, sizeof g_sp, "%s/savepoints", g_dir);
    snprintf(g_state, sizeof g_state, "%s/state", g_dir);
    snprintf(g_ref, sizeof g_ref, "%s/ref", g_dir);
    g_gen = (cj_gen){.n = N_ROWS,
                     .seed = 7,
                     .n_keys = N_KEYS,
                     .limit = &g_limit,
                     .produced = &g_produced};
    g_log.len = 0;
    g_log.text[0] = '\0';
    g_retain = 1;
}

static _Atomic int g_release;
static void teardown(void)
{
    /* A failed assertion must not leave snapshot threads held up. */
    atomic_store(&g_release, 1);
    weir__set_snapshot_test_hook(NULL);
    weir__io_reset();
    cj_lines_free(&g_ref_lines);
    cj_rmtree(g_dir);
}

TestSuite(checkpoint, .init = setup, .fini = teardown, .timeout = 60);

static cj_params params(uint32_t parallelism, const char *backend)
{
    cj_params p = {.gen = &g_gen,
                   .out_dir = g_out,
                   .state_backend = backend,
                   .state_dir = g_state,
                   .parallelism = parallelism,
                   .batch_size = 256};
    return p;
}

static weir_checkpoint_config ckpt_config(weir_restore_mode mode,
                                          const char *path)
{
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    c.dir = g_ckpt;
    c.savepoint_dir = g_sp;
    c.interval_ms = 0; /* the tests trigger checkpoints themselves */
    c.restore = mode;
    c.restore_path = path;
    c.log = cj_log_line;
    c.log_ud = &g_log;
    c.num_retained = g_retain;
    return c;
}

/* The output of an uninterrupted run without checkpoints, into g_ref_lines. */
static void reference(void)
{
    cj_params p = params(1, "memory");
    p.out_dir = g_ref;
    atomic_store(&g_limit, UINT64_MAX);
    cj_job *j;
    weir_error err;
    cr_assert_eq(cj_job_build(&p, &j, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_run(j->job), 0, "%s", weir_job_error(j->job));
    cj_job_destroy(j);
    cr_assert_eq(cj_read_output(g_ref, &g_ref_lines, NULL), 0);
    cr_assert_gt(g_ref_lines.n, 100, "the reference run produced %zu lines",
                 g_ref_lines.n);
}

static void check_output(void)
{
    char why[1024];
    cr_assert_eq(cj_output_matches(g_out, &g_ref_lines, why, sizeof why), 0,
                 "output differs from the uninterrupted run: %s\nlog:\n%s", why,
                 g_log.text);
}

/* Waits (real time, bounded) until the source produced at least n rows. */
static void wait_produced(uint64_t n)
{
    cr_assert(cj_wait_produced(&g_produced, n, 20000),
              "the source did not reach row %llu", (unsigned long long)n);
}

static cj_job *start(uint32_t parallelism, const char *backend,
                     weir_restore_mode mode, const char *path, uint64_t limit)
{
    atomic_store(&g_limit, limit);
    atomic_store(&g_produced, 0);
    cj_params p = params(parallelism, backend);
    cj_job *j;
    weir_error err;
    cr_assert_eq(cj_job_build(&p, &j, &err), 0, "%s", err.message);
    weir_checkpoint_config c = ckpt_config(mode, path);
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(j->job), 0, "%s", weir_job_error(j->job));
    return j;
}

/* Checkpoint now, wait for it, expect rc. */
static uint64_t checkpoint(cj_job *j, int expect)
{
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    int rc = weir_job_await_checkpoint(j->job, id, 20000, &err);
    cr_assert_eq(rc, expect, "checkpoint %llu: %s (expected %s)",
                 (unsigned long long)id, err.message, weir_strerror(expect));
    return id;
}

/* Lets the rest of the input through and waits for the end. */
static void finish(cj_job *j)
{
    atomic_store(&g_limit, UINT64_MAX);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cj_job_destroy(j);
}

/* A crash: threads canceled mid-run, nothing committed that was not. */
static void crash(cj_job *j)
{
    cj_job_destroy(j);
}

static bool dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void find_metric(void *ud, const char *name, double v)
{
    if (!strcmp(name, "checkpoint.last_id"))
        *(double *)ud = v;
}

Test(checkpoint,
     periodic_checkpoints_leave_the_output_unchanged_and_a_final_checkpoint)
{
    reference();
    atomic_store(&g_limit, UINT64_MAX);
    cj_params p = params(2, "memory");
    cj_job *j;
    weir_error err;
    cr_assert_eq(cj_job_build(&p, &j, &err), 0, "%s", err.message);
    weir_checkpoint_config c = ckpt_config(WEIR_RESTORE_LATEST, NULL);
    c.interval_ms = 2;
    c.num_retained = 2;
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_run(j->job), 0, "%s", weir_job_error(j->job));
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_geq(st.completed, 1);
    cr_assert_eq(st.failed, 0, "%s", st.last_failure);
    uint64_t last = st.last_id;
    double metric_last = -1;
    weir_job_metrics(j->job, find_metric, &metric_last);
    cr_assert_eq(metric_last, (double)last,
                 "checkpoint.last_id is in the job's metrics");
    cj_job_destroy(j);
    check_output();

    /* The newest checkpoint is the final one; at most 2 are kept. */
    weir__storage *s;
    cr_assert_eq(weir__storage_local_create(g_ckpt, &s), 0);
    weir__ckpt_info *infos;
    size_t n;
    cr_assert_eq(weir__ckpt_list(s, &infos, &n), 0);
    cr_assert_leq(n, 2);
    cr_assert_eq(infos[n - 1].id, last);
    cr_assert_eq(infos[n - 1].status, WEIR_CKPT_COMPLETE);
    weir__ckpt_meta m;
    cr_assert_eq(weir__ckpt_verify(s, infos[n - 1].name, &m, &err), 0, "%s",
                 err.message);
    cr_assert(m.is_final);
    weir__ckpt_meta_fini(&m);
    weir_free(infos);
    weir__storage_destroy(s);

    /* Running the job again resumes from the end: nothing new, nothing twice.
     */
    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    cr_assert(strstr(g_log.text, "nothing is left to do"), "%s", g_log.text);
    finish(j);
    cr_assert_eq(atomic_load(&g_produced), 0);
    check_output();
}

Test(checkpoint, restore_after_a_crash_equals_an_uninterrupted_run)
{
    reference();
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 23456);
    wait_produced(23456);
    uint64_t id = checkpoint(j, 0);
    atomic_store(&g_limit,
                 41000); /* more output after the checkpoint, never committed */
    wait_produced(41000 - 23456);
    crash(j);

    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    char want[64];
    snprintf(want, sizeof want, "restoring from checkpoint chk-%llu (taken",
             (unsigned long long)id);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    finish(j);
    check_output();
}

/*
 * A checkpoint written before restore compatibility (_metadata version 2:
 * no operator list) still restores, matched by node and name, and the log
 * says that a changed query cannot be detected for it.
 */
Test(checkpoint, a_checkpoint_without_fingerprints_restores_and_says_so)
{
    reference();
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 23456);
    wait_produced(23456);
    uint64_t id = checkpoint(j, 0);
    crash(j);
    /* Rewrite its _metadata as the older format. */
    weir__storage *st;
    cr_assert_eq(weir__storage_local_create(g_ckpt, &st), 0);
    char name[64], path[128];
    weir__ckpt_name(id, false, name, sizeof name);
    snprintf(path, sizeof path, "%s/_metadata", name);
    uint8_t *data;
    size_t len;
    cr_assert_eq(st->ops->get(st, path, &data, &len), 0);
    weir__ckpt_meta m;
    weir_error e;
    cr_assert_eq(weir__ckpt_meta_decode(data, len, &m, &e), 0, "%s", e.message);
    weir_free(data);
    cr_assert(m.has_ops && m.n_ops > 0, "a new checkpoint lists its operators");
    for (uint32_t i = 0; i < m.n_ops; i++) {
        weir_free(m.ops[i].uid);
        weir_free(m.ops[i].name);
        weir_free(m.ops[i].fp);
    }
    weir_free(m.ops);
    m.ops = NULL;
    m.n_ops = 0;
    m.has_ops = false;
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&m, &b), 0);
    cr_assert_eq(st->ops->put(st, path, b.data, b.len), 0);
    weir_buf_fini(&b);
    weir__ckpt_meta_fini(&m);
    weir__storage_destroy(st);

    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    cr_assert(strstr(g_log.text, "records no operator fingerprints"), "%s",
              g_log.text);
    char want[64];
    snprintf(want, sizeof want, "restoring from checkpoint chk-%llu (taken",
             (unsigned long long)id);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    finish(j);
    check_output();
}

Test(checkpoint, a_corrupt_newest_checkpoint_falls_back_to_the_one_before)
{
    reference();
    g_retain =
        2; /* with the default of 1, B's completion would have removed A */
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 21000);
    wait_produced(21000);
    uint64_t a = checkpoint(j, 0);
    /* B covers more input but no new output: no window ends between the two. */
    atomic_store(&g_limit, 25000);
    wait_produced(4000);
    uint64_t b = checkpoint(j, 0);
    crash(j);

    /* Flip one byte of one state file of B. */
    char path[600];
    snprintf(path, sizeof path, "%s/chk-%llu/t0-s0.snap", g_ckpt,
             (unsigned long long)b);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 9, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, 9, SEEK_SET);
    fputc(ch ^ 0x10, f);
    fclose(f);

    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    char want[128];
    snprintf(want, sizeof want, "checkpoint chk-%llu is unusable",
             (unsigned long long)b);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    cr_assert(strstr(g_log.text, "checksum or size mismatch"), "%s",
              g_log.text);
    snprintf(want, sizeof want, "restoring from checkpoint chk-%llu",
             (unsigned long long)a);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    snprintf(want, sizeof want, "chk-%llu", (unsigned long long)a);
    cr_assert(strstr(weir_job_restored_from(j->job), want));
    finish(j);
    check_output();
}

/* ---- injected storage failures ---- */

static _Atomic int g_fail_writes, g_fail_meta_renames;

/*
 * Which descriptors are checkpoint files: the injected ENOSPC is meant for
 * checkpoint storage, and the file sink's writes go through the same table.
 */
static _Atomic bool g_is_ckpt_fd[4096];

static int tracking_open(const char *path, int flags, int mode)
{
    int fd = open(path, flags | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    if (fd < 4096)
        atomic_store(&g_is_ckpt_fd[fd],
                     strncmp(path, g_ckpt, strlen(g_ckpt)) == 0);
    return fd;
}

static bool is_ckpt_fd(int fd)
{
    return fd >= 0 && fd < 4096 && atomic_load(&g_is_ckpt_fd[fd]);
}

static ssize_t enospc_write(int fd, const void *p, size_t n)
{
    if (is_ckpt_fd(fd) && atomic_load(&g_fail_writes) > 0) {
        atomic_fetch_sub(&g_fail_writes, 1);
        return -ENOSPC;
    }
    ssize_t w = write(fd, p, n > 7 ? n / 2 : n); /* short writes, always */
    return w < 0 ? -errno : w;
}

static int failing_rename(const char *from, const char *to)
{
    if (strstr(to, "_metadata") && atomic_load(&g_fail_meta_renames) > 0) {
        atomic_fetch_sub(&g_fail_meta_renames, 1);
        return -EIO;
    }
    return rename(from, to) < 0 ? -errno : 0;
}

Test(checkpoint,
     enospc_or_a_failed_metadata_write_fails_one_checkpoint_and_the_job_goes_on)
{
    reference();
    weir__io_ops.open = tracking_open;
    weir__io_ops.write = enospc_write;
    weir__io_ops.rename = failing_rename;
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 15000);
    wait_produced(15000);
    atomic_store(&g_fail_writes, 1);
    uint64_t a = checkpoint(j, WEIR_ENOSPC);
    atomic_store(&g_limit, 30000);
    wait_produced(15000);
    atomic_store(&g_fail_meta_renames, 1);
    uint64_t b = checkpoint(j, WEIR_EIO);
    atomic_store(&g_limit, 45000);
    wait_produced(15000);
    uint64_t c = checkpoint(j, 0);
    cr_assert(a < b && b < c);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.failed, 2);
    cr_assert_eq(st.last_id, c);
    cr_assert(strstr(g_log.text, "the job goes on"), "%s", g_log.text);
    finish(j);
    check_output();
    /* The failed ones left nothing behind. */
    char path[600];
    snprintf(path, sizeof path, "%s/chk-%llu", g_ckpt, (unsigned long long)a);
    cr_assert_not(dir_exists(path), "%s still exists", path);
    snprintf(path, sizeof path, "%s/chk-%llu", g_ckpt, (unsigned long long)b);
    cr_assert_not(dir_exists(path), "%s still exists", path);
}

Test(checkpoint, too_many_failures_fail_the_job_when_asked_to)
{
    weir__io_ops.open = tracking_open;
    weir__io_ops.write = enospc_write;
    atomic_store(&g_fail_writes, 1000000);
    atomic_store(&g_limit, 10000);
    atomic_store(&g_produced, 0);
    cj_params p = params(1, "memory");
    cj_job *j;
    weir_error err;
    cr_assert_eq(cj_job_build(&p, &j, &err), 0, "%s", err.message);
    weir_checkpoint_config c = ckpt_config(WEIR_RESTORE_LATEST, NULL);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.tolerable-failed-checkpoints",
                     "1", &err),
                 0);
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(j->job), 0);
    wait_produced(10000);
    checkpoint(j, WEIR_ENOSPC);
    checkpoint(j, WEIR_ENOSPC);
    int rc = weir_job_wait(j->job);
    cr_assert_eq(rc, WEIR_ENOSPC, "%s", weir_strerror(rc));
    cr_assert(
        strstr(weir_job_error(j->job), "2 consecutive checkpoints failed"),
        "%s", weir_job_error(j->job));
    cj_job_destroy(j);
}

/* ---- rescaling, backends, savepoints ---- */

Test(checkpoint, stop_and_restore_at_parallelism_1_then_4_then_2)
{
    reference();
    cj_job *j = start(1, "memory", WEIR_RESTORE_LATEST, NULL, 17000);
    wait_produced(17000);
    weir_job_stop(j->job);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cj_job_destroy(j);

    j = start(4, "memory", WEIR_RESTORE_LATEST, NULL, 38000);
    cr_assert(strstr(g_log.text, "restoring from checkpoint"), "%s",
              g_log.text);
    wait_produced(38000 - 17000);
    weir_job_stop(j->job);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cj_job_destroy(j);

    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    finish(j);
    cr_assert_eq(atomic_load(&g_produced), N_ROWS - 38000,
                 "the last run read from row 38000 on");
    check_output();
}

Test(checkpoint, crash_and_restore_at_parallelism_1_then_4_then_2)
{
    reference();
    cj_job *j = start(1, "memory", WEIR_RESTORE_LATEST, NULL, 17000);
    wait_produced(17000);
    checkpoint(j, 0);
    crash(j);
    j = start(4, "memory", WEIR_RESTORE_LATEST, NULL, 38000);
    wait_produced(38000 - 17000);
    checkpoint(j, 0);
    crash(j);
    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    finish(j);
    check_output();
}

Test(checkpoint, restore_across_state_backends)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    reference();
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 16000);
    wait_produced(16000);
    checkpoint(j, 0);
    crash(j);
    j = start(2, "rocksdb", WEIR_RESTORE_LATEST, NULL, 33000);
    wait_produced(33000 - 16000);
    checkpoint(j, 0);
    crash(j);
    j = start(3, "memory", WEIR_RESTORE_LATEST, NULL, 47000);
    wait_produced(47000 - 33000);
    checkpoint(j, 0);
    crash(j);
    j = start(1, "rocksdb", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    finish(j);
    check_output();
}

Test(checkpoint, savepoint_then_change_parallelism_and_restore)
{
    reference();
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 26000);
    wait_produced(26000);
    char path[700];
    weir_error err;
    cr_assert_eq(weir_job_savepoint(j->job, NULL, path, sizeof path, &err), 0,
                 "%s", err.message);
    cr_assert(strstr(path, "/savepoints/savepoint-"), "%s", path);
    /* The job goes on past the savepoint, then dies. */
    atomic_store(&g_limit, 40000);
    wait_produced(14000);
    crash(j);

    j = start(3, "memory", WEIR_RESTORE_PATH, path, UINT64_MAX);
    char want[800];
    snprintf(want, sizeof want, "restoring from savepoint %s", path);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    finish(j);
    check_output();
}

Test(checkpoint, stop_with_savepoint_then_scale_down_and_restore)
{
    reference();
    cj_job *j = start(3, "memory", WEIR_RESTORE_LATEST, NULL, 29000);
    wait_produced(29000);
    char path[700];
    weir_error err;
    cr_assert_eq(
        weir_job_stop_with_savepoint(j->job, NULL, path, sizeof path, &err), 0,
        "%s", err.message);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cj_job_destroy(j);
    /* Output up to the savepoint is visible already; a savepoint is never
     * pruned. */
    cr_assert(dir_exists(path), "%s", path);

    j = start(1, "memory", WEIR_RESTORE_PATH, path, UINT64_MAX);
    finish(j);
    cr_assert_eq(atomic_load(&g_produced), N_ROWS - 29000);
    check_output();
}

Test(checkpoint, a_checkpoint_of_another_job_is_refused)
{
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 5000);
    wait_produced(5000);
    checkpoint(j, 0);
    crash(j);
    /* Another job: same folder, an extra operator shifts the ids. */
    weir_job_config jc;
    weir_job_config_init(&jc);
    weir_job *other;
    cr_assert_eq(weir_job_create(&jc, &other), 0);
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "x", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_source_spec src = {
        .name = "other", .cls = &cj_gen_class, .arg = &g_gen, .schema = s};
    weir_stream st;
    cr_assert_eq(weir_job_source(other, &src, NULL, 1, &st), 0);
    weir_checkpoint_config c = ckpt_config(WEIR_RESTORE_LATEST, NULL);
    weir_error err;
    int rc = weir_job_enable_checkpoints(other, &c, &err);
    cr_assert_eq(rc, WEIR_EINVAL, "%s", weir_strerror(rc));
    cr_assert(strstr(err.message, "does not fit this job"), "%s", err.message);
    weir_job_destroy(other);
    weir_schema_destroy(s);
}

Test(checkpoint, fresh_ignores_and_from_rejects_a_missing_path)
{
    reference();
    cj_job *j = start(1, "memory", WEIR_RESTORE_LATEST, NULL, 20000);
    wait_produced(20000);
    checkpoint(j, 0);
    crash(j);
    cj_rmtree(g_out);
    j = start(1, "memory", WEIR_RESTORE_FRESH, NULL, UINT64_MAX);
    cr_assert(strstr(g_log.text, "starting fresh"), "%s", g_log.text);
    cr_assert_str_eq(weir_job_restored_from(j->job), "");
    finish(j);
    cr_assert_eq(atomic_load(&g_produced), N_ROWS);
    check_output();

    cj_params p = params(1, "memory");
    cr_assert_eq(cj_job_build(&p, &j, &(weir_error){0}), 0);
    weir_checkpoint_config c =
        ckpt_config(WEIR_RESTORE_PATH, "/nonexistent/chk-3");
    weir_error err;
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), WEIR_ENOTFOUND);
    cr_assert(strstr(err.message, "no such checkpoint or savepoint"), "%s",
              err.message);
    cj_job_destroy(j);
}

Test(checkpoint, options_by_flink_key)
{
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    weir_error err;
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.interval", "100 ms", &err),
                 0);
    cr_assert_eq(c.interval_ms, 100);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.timeout", "1 min", &err),
                 0);
    cr_assert_eq(c.timeout_ms, 60000);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.min-pause", "2s", &err),
                 0);
    cr_assert_eq(c.min_pause_ms, 2000);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.max-concurrent-checkpoints",
                     "3", &err),
                 0);
    cr_assert_eq(c.max_concurrent, 3);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "state.checkpoints.num-retained", "4", &err),
                 0);
    cr_assert_eq(c.num_retained, 4);
    cr_assert_eq(weir_checkpoint_config_set(&c, "state.checkpoints.dir",
                                            "file:///tmp/x", &err),
                 0);
    cr_assert_str_eq(c.dir, "/tmp/x");
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "state.checkpoints.num-retained", "0", &err),
                 WEIR_EINVAL);
    cr_assert(strstr(err.message, "state.checkpoints.num-retained"), "%s",
              err.message);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.interval", "soon", &err),
                 WEIR_EINVAL);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.unaligned", "true", &err),
                 0);
    cr_assert(c.unaligned);
    cr_assert_eq(weir_checkpoint_config_set(&c, "execution.checkpointing.mode",
                                            "EXACTLY_ONCE", &err),
                 0);
    cr_assert_eq(weir_checkpoint_config_set(&c, "no.such.key", "1", &err),
                 WEIR_ENOTFOUND);
    weir_restart_strategy rs;
    weir_restart_strategy_init(&rs);
    cr_assert_eq(weir_restart_strategy_set(&rs, "restart-strategy.type",
                                           "fixed-delay", &err),
                 0);
    cr_assert_eq(weir_restart_strategy_set(
                     &rs, "restart-strategy.fixed-delay.attempts", "3", &err),
                 0);
    cr_assert_eq(weir_restart_strategy_set(
                     &rs, "restart-strategy.fixed-delay.delay", "10 ms", &err),
                 0);
    cr_assert_eq(rs.attempts, 3);
    cr_assert_eq(rs.delay_ms, 10);
    cr_assert_eq(weir_restart_strategy_set(&rs, "restart-strategy.type",
                                           "exponential-delay", &err),
                 WEIR_EUNSUPPORTED);
}

/* ---- restarts ---- */

static _Atomic int g_failed_once;
static weir_job *_Atomic g_current;
static _Atomic int g_builds;

static cj_job *g_prev;

/* The runner destroys each job it ran; the rest of the instance is ours. */
static void free_prev(void)
{
    if (g_prev) {
        g_prev->job = NULL;
        cj_job_destroy(g_prev);
        g_prev = NULL;
    }
}

static int build_failing(void *ud, weir_job **out, weir_error *err)
{
    free_prev();
    cj_job *prev = NULL;
    cj_params p = params(2, "memory");
    p.fail_after_rows = 40000;
    p.failed_once = &g_failed_once;
    atomic_store(&g_produced, 0);
    int rc = cj_job_build(&p, &prev, err);
    if (!rc) {
        g_prev = prev;
        *out = prev->job;
        atomic_store(&g_current, prev->job);
        atomic_fetch_add(&g_builds, 1);
    }
    (void)ud;
    return rc;
}

typedef struct restart_run {
    int rc;
    uint32_t restarts;
    weir_error err;
} restart_run;

static void *run_restartable(void *arg)
{
    restart_run *r = arg;
    weir_checkpoint_config c = ckpt_config(WEIR_RESTORE_LATEST, NULL);
    weir_restart_strategy rs;
    weir_restart_strategy_init(&rs);
    rs.attempts = 2;
    rs.delay_ms = 1;
    r->rc = weir_job_run_restartable(build_failing, NULL, &c, &rs, &r->restarts,
                                     &r->err);
    free_prev();
    return NULL;
}

Test(checkpoint, a_failing_task_restarts_from_the_last_checkpoint)
{
    reference();
    atomic_store(&g_limit, 30000);
    atomic_store(&g_produced, 0);
    atomic_store(&g_current, NULL);
    pthread_t t;
    restart_run r = {0};
    cr_assert_eq(pthread_create(&t, NULL, run_restartable, &r), 0);
    wait_produced(30000);
    weir_job *job = atomic_load(&g_current);
    uint64_t id;
    weir_error err;
    int rc = weir_job_trigger_checkpoint(job, &id);
    cr_assert_eq(rc, 0, "%s", weir_strerror(rc));
    cr_assert_eq(weir_job_await_checkpoint(job, id, 20000, &err), 0, "%s",
                 err.message);
    atomic_store(&g_limit,
                 UINT64_MAX); /* on to row 40000, where the map fails once */
    pthread_join(t, NULL);
    cr_assert_eq(r.rc, 0, "%s", r.err.message);
    cr_assert_eq(r.restarts, 1);
    cr_assert(strstr(g_log.text, "restarting in 1 ms (restart 1 of 2)"), "%s",
              g_log.text);
    char want[512];
    snprintf(want, sizeof want, "restoring from checkpoint %s/chk-%llu", g_ckpt,
             (unsigned long long)id);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    cr_assert_eq(atomic_load(&g_produced), N_ROWS - 30000,
                 "the restarted job read from row 30000 on, not %llu rows",
                 (unsigned long long)atomic_load(&g_produced));
    check_output();
}

/* ---- the CLI: weir checkpoints, weir inspect ---- */

Test(checkpoint, cli_lists_and_inspects_checkpoints)
{
    g_retain = 3;
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 23456);
    wait_produced(23456);
    uint64_t a = checkpoint(j, 0);
    uint64_t b = checkpoint(j, 0);
    crash(j);
    char path[600];
    snprintf(path, sizeof path, "%s/chk-%llu/_metadata", g_ckpt,
             (unsigned long long)b);
    truncate(path, 10);

    char out[16384], args[700];
    snprintf(args, sizeof args, "checkpoints %s", g_ckpt);
    cr_assert_eq(cj_run_cli(args, out, sizeof out), 0, "%s", out);
    char want[128];
    snprintf(want, sizeof want, "chk-%llu", (unsigned long long)a);
    cr_assert(strstr(out, want), "%s", out);
    cr_assert(strstr(out, "complete"), "%s", out);
    cr_assert(strstr(out, "corrupt"), "the truncated one is reported: %s", out);

    snprintf(args, sizeof args, "inspect %s/chk-%llu", g_ckpt,
             (unsigned long long)a);
    cr_assert_eq(cj_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "checkpoint chk-"), "%s", out);
    cr_assert(strstr(out, "source split gen: position 23456"), "%s", out);
    cr_assert(strstr(out, "key groups [0, 63]"),
              "subtask 0 of 2 owns key groups 0..63: %s", out);
    cr_assert(strstr(out, "operator 2 'filesystem'"), "%s", out);
    cr_assert(strstr(out, "keyed state"), "%s", out);

    snprintf(args, sizeof args, "inspect %s/chk-%llu", g_ckpt,
             (unsigned long long)b);
    cr_assert_neq(cj_run_cli(args, out, sizeof out), 0,
                  "a corrupt checkpoint is an error: %s", out);
    cr_assert(strstr(out, "_metadata"), "%s", out);
}

/* ---- timing: interval, timeout, min pause, on the job's (manual) clock ----
 */

static _Atomic int g_hold;

static uint64_t wait_completed(cj_job *j, uint64_t n)
{
    weir_checkpoint_stats st = {0};
    for (int i = 0; i < 20000; i++) {
        weir_job_checkpoint_stats(j->job, &st);
        if (st.completed + st.failed >= n)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return st.completed + st.failed;
}

/* Real time for the coordinator to look at the clock (it does every 10 ms). */
static void settle(void)
{
    struct timespec ts = {0, 60000000};
    nanosleep(&ts, NULL);
}

Test(checkpoint, interval_timeout_and_min_pause_follow_the_jobs_clock)
{
    reference();
    weir_manual_clock *mc = weir_manual_clock_create(1000000);
    atomic_store(&g_limit, 20000);
    atomic_store(&g_produced, 0);
    atomic_store(&g_hold, 0);
    cj_params p = params(2, "memory");
    p.clock = weir_manual_clock_get(mc);
    p.hold = &g_hold;
    cj_job *j;
    weir_error err;
    cr_assert_eq(cj_job_build(&p, &j, &err), 0, "%s", err.message);
    weir_checkpoint_config c = ckpt_config(WEIR_RESTORE_LATEST, NULL);
    c.interval_ms = 1000;
    c.timeout_ms = 5000;
    c.min_pause_ms = 3000;
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(j->job), 0);
    wait_produced(20000);

    /* Nothing before the interval has passed on the job's clock. */
    settle();
    weir_checkpoint_stats st;
    weir_job_checkpoint_stats(j->job, &st);
    cr_assert_eq(st.completed + st.failed + st.in_progress, 0);
    weir_manual_clock_advance(mc, 1000);
    cr_assert_eq(wait_completed(j, 1), 1);
    weir_job_checkpoint_stats(j->job, &st);
    cr_assert_eq(st.completed, 1);

    /* Min pause: one interval later is too early, the pause after it is not. */
    weir_manual_clock_advance(mc, 1000);
    settle();
    weir_job_checkpoint_stats(j->job, &st);
    cr_assert_eq(st.completed + st.in_progress, 1, "min pause not respected");
    weir_manual_clock_advance(mc, 2000);
    cr_assert_eq(wait_completed(j, 2), 2);

    /* A stuck operator holds the barrier: the checkpoint times out, the job
     * goes on. */
    atomic_store(&g_hold, 1);
    atomic_store(&g_limit, 30000);
    for (int i = 0; i < 20000 && atomic_load(&g_hold) != 2; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cr_assert_eq(atomic_load(&g_hold), 2, "the map never held a batch");
    weir_manual_clock_advance(mc, 3000);
    settle();
    weir_job_checkpoint_stats(j->job, &st);
    cr_assert_eq(st.in_progress, 1);
    weir_manual_clock_advance(mc, 5000);
    cr_assert_eq(wait_completed(j, 3), 3);
    weir_job_checkpoint_stats(j->job, &st);
    cr_assert_eq(st.failed, 1);
    cr_assert(strstr(st.last_failure, "expired after 5000 ms"), "%s",
              st.last_failure);
    atomic_store(&g_hold, 0);
    weir_manual_clock_advance(mc, 3000);
    cr_assert_eq(wait_completed(j, 4), 4);
    weir_job_checkpoint_stats(j->job, &st);
    cr_assert_eq(st.completed, 3, "%s", st.last_failure);
    finish(j);
    check_output();
    weir_manual_clock_destroy(mc);
}

/* ---- asynchronous snapshots ---- */

static _Atomic uint64_t g_block_id;  /* snapshots of this checkpoint and
                                        later ones block (or fail) */
static _Atomic int g_blocked;        /* snapshot threads waiting in the hook */

/* The snapshot thread of every subtask waits here for checkpoint g_block_id
 * until the test releases it: a slow or stuck state write. */
static int blocking_hook(uint64_t id, int task, uint32_t subtask)
{
    (void)task;
    (void)subtask;
    if (id < atomic_load(&g_block_id))
        return 0;
    atomic_fetch_add(&g_blocked, 1);
    while (!atomic_load(&g_release)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* The asynchronous part of subtask 1 of each task fails. */
static int failing_hook(uint64_t id, int task, uint32_t subtask)
{
    (void)task;
    return id >= atomic_load(&g_block_id) && subtask == 1 ? WEIR_EIO : 0;
}

/*
 * A failure of a snapshot's asynchronous part fails that checkpoint only:
 * the job goes on, the next checkpoint completes, and restoring it gives
 * the output of an uninterrupted run.
 */
Test(checkpoint, a_failed_asynchronous_part_fails_that_checkpoint_only)
{
    reference();
    cj_job *j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, 23456);
    wait_produced(23456);
    uint64_t id;
    atomic_store(&g_block_id, 0); /* every checkpoint while installed */
    weir__set_snapshot_test_hook(failing_hook);
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    weir_error err = {0};
    cr_assert_eq(weir_job_await_checkpoint(j->job, id, 20000, &err), WEIR_EIO,
                 "%s", err.message);
    cr_assert(strstr(err.message, "serializing the keyed state failed"), "%s",
              err.message);
    atomic_store(&g_limit, 30000);
    wait_produced(30000 - 23456);
    weir__set_snapshot_test_hook(NULL);
    uint64_t next = checkpoint(j, 0);
    cr_assert_gt(next, id);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.failed, 1);
    atomic_store(&g_limit, 41000);
    wait_produced(41000 - 30000);
    crash(j);
    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    finish(j);
    check_output();
}

static void sum_window_out(void *ud, const char *name, double v)
{
    size_t n = strlen(name);
    if (strstr(name, "window") && n > 12 &&
        !strcmp(name + n - 12, ".records_out"))
        *(double *)ud += v;
}

static double window_rows_out(cj_job *j)
{
    double out = 0;
    weir_job_metrics(j->job, sum_window_out, &out);
    return out;
}

/*
 * While a checkpoint's keyed state is being serialized (held up here), the
 * job keeps reading records and firing windows; the checkpoint then
 * completes and holds exactly the state at its barrier: restoring it and
 * replaying the input from the barrier's position gives the output of an
 * uninterrupted run (records processed after the barrier would be counted
 * twice if they had leaked into the snapshot).
 */
static void async_snapshot_case(const char *backend)
{
    reference();
    cj_job *j = start(2, backend, WEIR_RESTORE_LATEST, NULL, 23456);
    wait_produced(23456);
    atomic_store(&g_blocked, 0);
    atomic_store(&g_release, 0);
    atomic_store(&g_block_id, 0); /* no other checkpoint is triggered */
    weir__set_snapshot_test_hook(blocking_hook);
    uint64_t id;
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    for (int i = 0; i < 20000 && atomic_load(&g_blocked) < 2; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cr_assert_geq(atomic_load(&g_blocked), 2,
                  "the window subtasks' snapshots did not start");
    double fired_before = window_rows_out(j);
    /* Records after the barrier: read, aggregated, windows fired. */
    atomic_store(&g_limit, 41000);
    wait_produced(41000 - 23456);
    double fired_after = 0;
    for (int i = 0; i < 20000; i++) {
        fired_after = window_rows_out(j);
        if (fired_after > fired_before)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cr_assert_gt(fired_after, fired_before,
                 "no window fired while the snapshot was held up");
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_neq(st.last_id, id, "the checkpoint completed while held up");
    cr_assert_eq(st.in_progress, 1);
    atomic_store(&g_release, 1);
    weir_error err = {0};
    cr_assert_eq(weir_job_await_checkpoint(j->job, id, 20000, &err), 0, "%s",
                 err.message);
    weir__set_snapshot_test_hook(NULL);
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.last_id, id);
    crash(j);

    j = start(2, backend, WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    char want[64];
    snprintf(want, sizeof want, "restoring from checkpoint chk-%llu (taken",
             (unsigned long long)id);
    cr_assert(strstr(g_log.text, want), "%s", g_log.text);
    finish(j);
    check_output();
}

Test(checkpoint, the_job_goes_on_while_a_snapshot_is_written_memory)
{
    async_snapshot_case("memory");
}

#ifdef WEIR_HAVE_ROCKSDB
Test(checkpoint, the_job_goes_on_while_a_snapshot_is_written_rocksdb)
{
    async_snapshot_case("rocksdb");
}
#endif

/* state.backend.async = false: the same job, serialized at the barrier. */
Test(checkpoint, synchronous_snapshots_on_request)
{
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    weir_error err;
    cr_assert_eq(weir_checkpoint_config_set(&c, "state.backend.async", "false",
                                            &err),
                 0);
    cr_assert(c.sync_snapshots);
    cr_assert_eq(weir_checkpoint_config_set(&c, "state.backend.async", "maybe",
                                            &err),
                 WEIR_EINVAL);
    reference();
    atomic_store(&g_limit, 23456);
    atomic_store(&g_produced, 0);
    cj_params p = params(2, "memory");
    cj_job *j;
    cr_assert_eq(cj_job_build(&p, &j, &err), 0, "%s", err.message);
    c = ckpt_config(WEIR_RESTORE_LATEST, NULL);
    c.sync_snapshots = true;
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(j->job), 0, "%s", weir_job_error(j->job));
    wait_produced(23456);
    uint64_t id = checkpoint(j, 0);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.last_id, id);
    cr_assert_gt(st.last_pause_us, 0);
    atomic_store(&g_limit, 41000);
    wait_produced(41000 - 23456);
    crash(j);
    j = start(2, "memory", WEIR_RESTORE_LATEST, NULL, UINT64_MAX);
    finish(j);
    check_output();
}
