/*
 * tests/test_restore_unclaimed.c - keyed state of a checkpoint that the
 * restored operator does not register (docs/checkpoints.md, "Restore
 * compatibility"): the operator's id and fingerprint match, so the
 * checkpoint restores, but one of its named states is no longer asked for
 * (renamed, or dropped from the operator's code). The restore says so - a
 * line naming the operator, the subtask, the state and its entries and key
 * groups, and a count in the checkpoint stats - and keeps that state in the
 * job's checkpoints, so a later job that registers it again finds it.
 *
 * The job: the generator source of ckpt_job.h (keys k0..k<N_KEYS-1> in
 * turn) -> a keyed process function, "counter", with a value state "acc"
 * and, in the runs that keep it, a value state "seen" set on a key's first
 * row -> a blackhole sink. Three runs over one checkpoint folder: with
 * "seen"; without it (restored from the first: the line, the count); with
 * it again (restored from the second: no line, and every key finds its
 * "seen" of the first run).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ckpt_job.h"

#define N_ROWS 6000
#define N_KEYS 50
#define PAR 2

static char g_dir[256], g_ckpt[300], g_state[300];
static _Atomic uint64_t g_limit, g_produced;
static _Atomic uint64_t g_unseen; /* rows whose key had no "seen" yet */
static cj_gen g_gen;
static cj_log g_log;

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-unclaimed-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
    snprintf(g_ckpt, sizeof g_ckpt, "%s/ckpt", g_dir);
    snprintf(g_state, sizeof g_state, "%s/state", g_dir);
    g_gen = (cj_gen){.n = N_ROWS,
                     .seed = 5,
                     .n_keys = N_KEYS,
                     .sequential_keys = true,
                     .limit = &g_limit,
                     .produced = &g_produced};
}

static void teardown(void)
{
    cj_rmtree(g_dir);
}

TestSuite(unclaimed, .init = setup, .fini = teardown, .timeout = 120);

/* ---- the job ---- */

typedef struct counter {
    weir_state *acc, *seen; /* seen: NULL in the runs without it */
} counter;

static int counter_open(void *ud, weir_op_ctx *ctx, void **instance)
{
    bool with_seen = *(const bool *)ud;
    counter *c = calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *instance = c;
    weir_state_desc acc = {.name = "acc", .kind = WEIR_STATE_VALUE};
    weir_state_desc seen = {.name = "seen", .kind = WEIR_STATE_VALUE};
    int rc = weir_op_get_state(ctx, &acc, &c->acc);
    if (!rc && with_seen)
        rc = weir_op_get_state(ctx, &seen, &c->seen);
    return rc;
}

static int counter_process(void *instance, weir_op_ctx *ctx, const weir_batch *in, uint32_t row,
                           weir_batch *out)
{
    (void)ctx;
    (void)out;
    counter *c = instance;
    int64_t n = 0;
    const void *v;
    size_t len;
    if (weir_value_get(c->acc, NULL, 0, &v, &len) == 0 && len == sizeof n)
        memcpy(&n, v, sizeof n);
    n += WEIR_COL_I64(in, 1)[row];
    int rc = weir_value_put(c->acc, NULL, 0, &n, sizeof n);
    if (rc || !c->seen)
        return rc;
    if (weir_value_get(c->seen, NULL, 0, &v, &len) == 0)
        return 0;
    atomic_fetch_add(&g_unseen, 1);
    const uint8_t one = 1;
    return weir_value_put(c->seen, NULL, 0, &one, 1);
}

static void counter_close(void *instance)
{
    free(instance);
}

typedef struct ujob {
    weir_job *job;
    weir_schema *in;
    bool with_seen;
} ujob;

static void ujob_destroy(ujob *j)
{
    weir_job_destroy(j->job);
    weir_schema_destroy(j->in);
    free(j);
}

/* Builds the job, with or without "seen", and starts it from the latest
 * checkpoint of g_ckpt (none: empty), its input stopping at row limit. */
static ujob *start(bool with_seen, const char *backend, uint64_t limit)
{
    atomic_store(&g_limit, limit);
    atomic_store(&g_produced, 0);
    atomic_store(&g_unseen, 0);
    g_log.len = 0;
    g_log.text[0] = '\0';
    ujob *j = calloc(1, sizeof *j);
    cr_assert_not_null(j);
    j->with_seen = with_seen;
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.batch_size = 128;
    jc.state_backend = backend;
    jc.state_dir = g_state;
    cr_assert_eq(weir_job_create(&jc, &j->job), 0);
    j->in = weir_schema_create();
    weir_schema_add(j->in, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(j->in, "v", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(j->in, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    j->in->rowtime = 2;
    weir_source_spec src = {.name = "gen", .cls = &cj_gen_class, .arg = &g_gen, .schema = j->in};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = CJ_JITTER_MS};
    weir_stream s, p;
    cr_assert_eq(weir_job_source(j->job, &src, &wm, 1, &s), 0);
    uint32_t key = 0;
    weir_process_fn fn = {.open = counter_open,
                          .process = counter_process,
                          .close = counter_close,
                          .ud = &j->with_seen,
                          .name = "counter"};
    cr_assert_eq(weir_job_process(j->job, weir_stream_key_by(s, &key, 1), j->in, &fn, &p), 0, "%s",
                 weir_job_error(j->job));
    cr_assert_eq(weir_job_set_parallelism(j->job, p, PAR), 0);
    weir_blackhole_sink_config bc = {0};
    weir_operator_spec sink;
    weir_error err;
    cr_assert_eq(weir_blackhole_sink_spec(&bc, &sink, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_sink(j->job, p, &sink, PAR), 0);
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    c.dir = g_ckpt;
    c.log = cj_log_line;
    c.log_ud = &g_log;
    bool incremental = !strcmp(backend, "rocksdb");
    cr_assert_eq(weir_checkpoint_config_set(&c, "state.backend.incremental", incremental ? "true" : "false",
                                            &err),
                 0, "%s", err.message);
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_start(j->job), 0, "%s", weir_job_error(j->job));
    return j;
}

/* Lets the job read n rows (its limit), checkpoints and cancels it;
 * returns its stats at the end. */
static weir_checkpoint_stats checkpoint_and_cancel(ujob *j, uint64_t n)
{
    cr_assert(cj_wait_produced(&g_produced, n, 20000));
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(j->job, id, 30000, &err), 0, "%s\n%s", err.message, g_log.text);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    weir_job_cancel(j->job);
    weir_job_wait(j->job);
    ujob_destroy(j);
    return st;
}

/* The entries the log's unclaimed lines name for state, summed; *lines
 * their number. */
static uint64_t unclaimed_entries(const char *state, int *lines)
{
    char want[64];
    snprintf(want, sizeof want, "keyed state '%s' (", state);
    uint64_t sum = 0;
    *lines = 0;
    for (const char *p = strstr(g_log.text, want); p; p = strstr(p + 1, want)) {
        const char *line = p;
        while (line > g_log.text && line[-1] != '\n')
            line--;
        cr_assert(!strncmp(line, "counter[0] (subtask ", 20), "the line names no operator:\n%s", g_log.text);
        cr_assert(strstr(p, "key groups) is not registered by the operator: it is kept, unread"), "%s",
                  g_log.text);
        sum += strtoull(p + strlen(want), NULL, 10);
        (*lines)++;
    }
    return sum;
}

static void unclaimed_case(const char *backend)
{
    /* 1: with "seen"; every key gets it on its first row */
    ujob *j = start(true, backend, 1000);
    checkpoint_and_cancel(j, 1000);
    cr_assert_eq(atomic_load(&g_unseen), N_KEYS);
    /* 2: without it: the restore names what it did not claim */
    j = start(false, backend, 2000);
    weir_checkpoint_stats st = checkpoint_and_cancel(j, 1000);
    int lines;
    cr_assert_eq(unclaimed_entries("seen", &lines), N_KEYS, "log:\n%s", g_log.text);
    cr_assert_eq(lines, PAR, "log:\n%s", g_log.text);
    cr_assert_eq(st.restore_unclaimed_states, PAR);
    cr_assert_null(strstr(g_log.text, "keyed state 'acc'"), "log:\n%s", g_log.text);
    /* 3: with it again: claimed, and kept through run 2's checkpoint */
    j = start(true, backend, N_ROWS);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    ujob_destroy(j);
    cr_assert_eq(unclaimed_entries("seen", &lines), 0, "log:\n%s", g_log.text);
    cr_assert_eq(st.restore_unclaimed_states, 0);
    cr_assert_eq(atomic_load(&g_unseen), 0, "keys lost their 'seen' through the run that did not claim it");
}

Test(unclaimed, memory)
{
    unclaimed_case("memory");
}

Test(unclaimed, rocksdb_incremental)
{
    unclaimed_case("rocksdb");
}
