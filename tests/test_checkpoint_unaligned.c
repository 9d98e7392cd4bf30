/*
 * tests/test_checkpoint_unaligned.c - unaligned checkpoints
 * (execution.checkpointing.unaligned).
 *
 * The job: generator sources (tests/ckpt_job.h; one, or two for the
 * two-input case) -> keyed exchange -> "tally", a keyed operator that
 * counts and sums v per key in keyed state and emits (k, cnt, total) for
 * every key at the end of the input (an event-time timer at the final
 * watermark) -> the two-phase-commit file sink. Its output is a multiset
 * that counts every input row exactly once, whatever the timing, so a
 * restored run must produce exactly the lines of an uninterrupted one. One
 * test adds a branch from the keyed exchange to "tap" (a keyed operator
 * that keeps nothing) and a blackhole sink.
 *
 * Backpressure: tally can be gated: each subtask then processes one batch
 * per permit the test grants, so the channels in front of it stay full
 * exactly as long as the test wants. Waits are for effects (a permit taken,
 * a checkpoint completed), never for time.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint/format.h"
#include "runtime/runtime.h"
#include "ckpt_job.h"
#include "weir/state.h"

#define N_ROWS 40000
#define N_KEYS 50
#define BATCH 64
#define CHAN_CAP 8
#define END_TS ((weir_ts)1 << 60)

static char g_dir[256], g_out[300], g_ckpt[300], g_ref[300];
static _Atomic uint64_t g_limit[2], g_produced[2];
static weir_manual_clock *g_mclock; /* the job's clock when set */
static int64_t g_aligned_timeout_ms;
static bool g_tap; /* the job has the tap branch (its last nodes) */
static cj_gen g_gen[2];

/* ---- the gate ---- */

#define MAX_SUB 4
static _Atomic int g_gated;              /* tally waits for permits */
static _Atomic int g_permits[MAX_SUB];   /* per tally subtask */
static _Atomic int g_waiting[MAX_SUB];   /* subtask waits at the gate */
static _Atomic uint64_t g_taken[MAX_SUB];
static _Atomic int g_busy[MAX_SUB];      /* past the gate, in the batch */

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-ua-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
    snprintf(g_ckpt, sizeof g_ckpt, "%s/ckpt", g_dir);
    snprintf(g_ref, sizeof g_ref, "%s/ref", g_dir);
    for (int i = 0; i < 2; i++)
        g_gen[i] = (cj_gen){.n = N_ROWS,
                            .seed = 11 + (uint64_t)i,
                            .n_keys = N_KEYS,
                            .limit = &g_limit[i],
                            .produced = &g_produced[i]};
    atomic_store(&g_gated, 0);
    g_aligned_timeout_ms = 0;
}

static void teardown(void)
{
    atomic_store(&g_gated, 0);
    cj_rmtree(g_dir);
    weir_manual_clock_destroy(g_mclock);
    g_mclock = NULL;
    g_tap = false;
}

TestSuite(unaligned, .init = setup, .fini = teardown, .timeout = 120);

static void nap(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* ---- tally: a keyed operator with one or two inputs ---- */

typedef struct tally {
    weir_state *acc;
    weir_batch *out;
    uint32_t subtask;
} tally;

typedef struct tally_acc {
    int64_t cnt, total;
} tally_acc;

static weir_schema *g_out_schema;

static int tally_create(void *arg, const weir_op_info *info, void **out)
{
    (void)arg;
    tally *t = calloc(1, sizeof *t);
    if (!t)
        return WEIR_ENOMEM;
    t->subtask = info->subtask;
    *out = t;
    return 0;
}

static int tally_open(void *op, weir_op_ctx *ctx)
{
    tally *t = op;
    weir_state_desc d = {.name = "acc", .kind = WEIR_STATE_VALUE};
    if (!(t->out = weir_batch_create(g_out_schema, 1)))
        return WEIR_ENOMEM;
    return weir_op_get_state(ctx, &d, &t->acc);
}

static int tally_process(void *op, weir_op_ctx *ctx, int input,
                         const weir_batch *b)
{
    (void)input;
    tally *t = op;
    uint32_t s = t->subtask % MAX_SUB;
    if (atomic_load(&g_gated)) {
        atomic_store(&g_waiting[s], 1);
        while (atomic_load(&g_gated) && atomic_load(&g_permits[s]) <= 0)
            nap(); /* a slow operator: the channels in front of it fill */
        atomic_store(&g_busy[s], 1);
        atomic_fetch_sub(&g_permits[s], 1);
        atomic_store(&g_waiting[s], 0);
    }
    atomic_fetch_add(&g_taken[s], 1);
    weir_keyspec ks = {.n = 1, .cols = {0}};
    for (uint32_t r = 0; r < b->n_rows; r++) {
        uint8_t k[64];
        size_t kl = weir_key_encode(b, &ks, r, k, sizeof k);
        if (kl > sizeof k)
            return WEIR_EINVAL;
        int rc = weir_op_set_key(ctx, k, kl);
        if (rc)
            return rc;
        tally_acc a = {0, 0};
        const void *v;
        size_t len;
        if (weir_value_get(t->acc, NULL, 0, &v, &len) == 0 &&
            len == sizeof a)
            memcpy(&a, v, sizeof a);
        a.cnt++;
        a.total += WEIR_COL_I64(b, 1)[r];
        if ((rc = weir_value_put(t->acc, NULL, 0, &a, sizeof a)) ||
            (rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, END_TS, 0)))
            return rc;
    }
    atomic_store(&g_busy[s], 0);
    return 0;
}

static int tally_timer(void *op, weir_op_ctx *ctx, const weir_timer *tm)
{
    tally *t = op;
    tally_acc a = {0, 0};
    const void *v;
    size_t len;
    if (weir_value_get(t->acc, NULL, 0, &v, &len) == 0 && len == sizeof a)
        memcpy(&a, v, sizeof a);
    weir_batch_reset(t->out);
    int r = weir_batch_append_row(t->out);
    if (r < 0)
        return WEIR_ENOMEM;
    /* The encoded key: a NULL flag, a u32 length, the bytes. */
    if (tm->key_len < 5)
        return WEIR_ECORRUPT;
    weir_batch_set_str(t->out, 0, (uint32_t)r, (const char *)tm->key + 5,
                       tm->key_len - 5);
    WEIR_COL_I64(t->out, 1)[r] = a.cnt;
    WEIR_COL_I64(t->out, 2)[r] = a.total;
    t->out->ts[r] = tm->ts;
    return weir_op_emit(ctx, t->out);
}

static void tally_close(void *op)
{
    tally *t = op;
    if (t)
        weir_batch_destroy(t->out);
    free(t);
}

static const weir_operator_class tally_class = {
    .name = "tally",
    .open = tally_open,
    .process = tally_process,
    .timer = tally_timer,
    .close = tally_close,
};

/* "tap": a keyed operator on a branch that keeps nothing (its state in a
 * checkpoint is empty). */
static int tap_create(void *arg, const weir_op_info *info, void **out)
{
    (void)arg;
    (void)info;
    *out = NULL;
    return 0;
}

static int tap_process(void *op, weir_op_ctx *ctx, int input,
                       const weir_batch *b)
{
    (void)op;
    (void)ctx;
    (void)input;
    (void)b;
    return 0;
}

static void tap_close(void *op)
{
    (void)op;
}

static const weir_operator_class tap_class = {
    .name = "tap",
    .process = tap_process,
    .close = tap_close,
};


/* ---- the job ---- */

typedef struct ua_job {
    weir_job *job;
    weir_schema *in;
} ua_job;

static void ua_job_destroy(ua_job *j)
{
    if (!j)
        return;
    /* The gate does not see the job being canceled: open it. */
    atomic_store(&g_gated, 0);
    weir_job_destroy(j->job);
    weir_schema_destroy(j->in);
    weir_schema_destroy(g_out_schema);
    g_out_schema = NULL;
    free(j);
}

static ua_job *build(uint32_t n_sources, uint32_t parallelism,
                     const char *out_dir)
{
    ua_job *j = calloc(1, sizeof *j);
    cr_assert_not_null(j);
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.batch_size = BATCH;
    jc.channel_capacity = CHAN_CAP;
    if (g_mclock)
        jc.clock = weir_manual_clock_get(g_mclock);
    cr_assert_eq(weir_job_create(&jc, &j->job), 0);
    j->in = weir_schema_create();
    weir_schema_add(j->in, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(j->in, "v", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(j->in, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));
    j->in->rowtime = 2;
    g_out_schema = weir_schema_create();
    weir_schema_add(g_out_schema, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(g_out_schema, "cnt",
                    weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(g_out_schema, "total",
                    weir_type_make(WEIR_TYPE_BIGINT, false));

    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED,
                              .delay_ms = CJ_JITTER_MS};
    weir_stream in[2];
    const uint32_t key = 0;
    for (uint32_t i = 0; i < n_sources; i++) {
        char name[16];
        snprintf(name, sizeof name, "gen%u", i);
        weir_source_spec src = {.name = name,
                                .cls = &cj_gen_class,
                                .arg = &g_gen[i],
                                .schema = j->in};
        weir_stream s;
        cr_assert_eq(weir_job_source(j->job, &src, &wm, 1, &s), 0, "%s",
                     weir_job_error(j->job));
        in[i] = weir_stream_key_by(s, &key, 1);
    }
    weir_operator_spec op = {.name = "tally",
                             .cls = &tally_class,
                             .create = tally_create};
    weir_stream t;
    cr_assert_eq(weir_job_operator(j->job, in, n_sources, &op, g_out_schema,
                                   parallelism, &t),
                 0, "%s", weir_job_error(j->job));
    weir_file_sink_config sc;
    weir_file_sink_config_init(&sc);
    sc.path = out_dir;
    weir_format_options_init(&sc.format, WEIR_FORMAT_JSON);
    sc.commit_on_checkpoint = true;
    sc.rollover_interval_ms = -1;
    weir_operator_spec sink;
    weir_error err;
    cr_assert_eq(weir_file_sink_spec(&sc, &sink, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_sink(j->job, t, &sink, parallelism), 0, "%s",
                 weir_job_error(j->job));
    if (g_tap) {
        weir_operator_spec tap = {.name = "tap",
                                  .cls = &tap_class,
                                  .create = tap_create};
        weir_stream ts;
        cr_assert_eq(weir_job_operator(j->job, in, 1, &tap, j->in,
                                       parallelism, &ts),
                     0, "%s", weir_job_error(j->job));
        weir_blackhole_sink_config bc = {0};
        weir_operator_spec bh;
        cr_assert_eq(weir_blackhole_sink_spec(&bc, &bh, &err), 0, "%s",
                     err.message);
        cr_assert_eq(weir_job_sink(j->job, ts, &bh, parallelism), 0, "%s",
                     weir_job_error(j->job));
    }
    return j;
}

static weir_checkpoint_config ckpt_config(bool unaligned, weir_restore_mode m)
{
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    c.dir = g_ckpt;
    c.interval_ms = 0; /* the tests trigger checkpoints */
    c.restore = m;
    c.unaligned = unaligned;
    c.aligned_timeout_ms = g_aligned_timeout_ms;
    c.log = cj_quiet_log;
    c.log_ud = NULL;
    return c;
}

static ua_job *start(uint32_t n_sources, uint32_t parallelism, bool unaligned,
                     weir_restore_mode mode, uint64_t limit)
{
    for (int i = 0; i < 2; i++) {
        atomic_store(&g_limit[i], limit);
        atomic_store(&g_produced[i], 0);
    }
    for (int s = 0; s < MAX_SUB; s++) {
        atomic_store(&g_permits[s], 0);
        atomic_store(&g_waiting[s], 0);
        atomic_store(&g_taken[s], 0);
        atomic_store(&g_busy[s], 0);
    }
    ua_job *j = build(n_sources, parallelism, g_out);
    weir_checkpoint_config c = ckpt_config(unaligned, mode);
    weir_error err;
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(j->job), 0, "%s", weir_job_error(j->job));
    return j;
}

/* The output of an uninterrupted run without checkpoints. */
static void reference(uint32_t n_sources, cj_lines *ref)
{
    for (int i = 0; i < 2; i++)
        atomic_store(&g_limit[i], UINT64_MAX);
    atomic_store(&g_gated, 0);
    ua_job *j = build(n_sources, 2, g_ref);
    cr_assert_eq(weir_job_run(j->job), 0, "%s", weir_job_error(j->job));
    ua_job_destroy(j);
    cr_assert_eq(cj_read_output(g_ref, ref, NULL), 0);
    cr_assert_eq(ref->n, N_KEYS,
                 "the reference has %zu lines", ref->n);
}

static void check_output(const cj_lines *ref)
{
    char why[1024];
    cr_assert_eq(cj_output_matches(g_out, ref, why, sizeof why), 0,
                 "output differs from the uninterrupted run: %s", why);
}

typedef struct metric_sum {
    const char *suffix;
    double sum;
} metric_sum;

static void metric_visit(void *ud, const char *name, double v)
{
    metric_sum *m = ud;
    size_t n = strlen(name), k = strlen(m->suffix);
    if (n >= k && !strcmp(name + n - k, m->suffix))
        m->sum += v;
}

/* Sums the metrics whose name ends with suffix. */
static double metric(weir_job *job, const char *suffix)
{
    metric_sum m = {suffix, 0};
    weir_job_metrics(job, metric_visit, &m);
    return m.sum;
}

/* Waits until some gated subtask waits at the gate. */
static void wait_gated(ua_job *j)
{
    for (int i = 0; i < 20000; i++) {
        for (uint32_t s = 0; s < MAX_SUB; s++)
            if (atomic_load(&g_waiting[s]))
                return;
        nap();
    }
    /* (seen once under load in a plain suite run: what the job was doing) */
    const char *e = weir_job_error(j->job);
    uint64_t taken = 0;
    for (uint32_t s = 0; s < MAX_SUB; s++)
        taken += atomic_load(&g_taken[s]);
    cr_assert_fail("the gated operator never waited at the gate: rows produced %llu, batches taken %llu, job error: %s",
                   (unsigned long long)(atomic_load(&g_produced[0]) + atomic_load(&g_produced[1])),
                   (unsigned long long)taken, e && *e ? e : "none");
}

/* Fills the job's channels: the sources are blocked behind a gated tally. */
static void fill(ua_job *j)
{
    wait_gated(j);
    /* Until the channels into tally hold messages and the sources stopped
     * producing. Without unaligned checkpoints a blocked source resumes only
     * once its channel is down to a quarter, so the channel of a tally that
     * took messages before the gate closed may stay anywhere above that (its
     * source, blocked, cannot inject a barrier either). */
    uint64_t last = UINT64_MAX;
    for (int i = 0; i < 20000; i++) {
        uint64_t p = atomic_load(&g_produced[0]) + atomic_load(&g_produced[1]);
        double q = metric(j->job, ".input_queued");
        if (p == last && q > CHAN_CAP / 4)
            return;
        last = p;
        for (int k = 0; k < 20; k++)
            nap();
    }
    cr_assert_fail("the channels did not fill");
}

/*
 * Starts a fresh job whose tally is gated from its first batch, and fills
 * its channels. The gate closes before the start: under load a job closed
 * only after weir_job_start had run through all its rows before the gate
 * (the test then failed, "never waited at the gate").
 */
static ua_job *start_filled(uint32_t n_sources, bool unaligned)
{
    atomic_store(&g_gated, 1);
    ua_job *j = start(n_sources, 2, unaligned, WEIR_RESTORE_FRESH, UINT64_MAX);
    fill(j);
    return j;
}

/*
 * One batch more for each subtask waiting at the gate, and wait until they
 * took it (a subtask with nothing queued is not waiting: it gets none).
 */
static void one_step(uint32_t parallelism)
{
    bool granted[MAX_SUB] = {false};
    for (uint32_t s = 0; s < parallelism; s++)
        if (atomic_load(&g_waiting[s])) {
            granted[s] = true;
            atomic_fetch_add(&g_permits[s], 1);
        }
    for (int i = 0; i < 20000; i++) {
        bool all = true;
        for (uint32_t s = 0; s < parallelism; s++)
            all = all && (!granted[s] || (atomic_load(&g_permits[s]) <= 0 &&
                                          !atomic_load(&g_busy[s])));
        if (all)
            return;
        nap();
    }
    cr_assert_fail("the gated operator did not take its batch");
}

/*
 * Triggers a checkpoint while the channels are full and lets tally take at
 * most max_steps batches per subtask, waiting step_ms after each for the
 * checkpoint; then, with the gate still closed, up to final_ms more (the
 * barriers passed the gate by then if they ever will: what is left is
 * writing the files). Returns whether it completed.
 */
static bool checkpoint_under_backpressure(ua_job *j, uint32_t parallelism,
                                          int max_steps, int64_t step_ms,
                                          int64_t final_ms, uint64_t *id)
{
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, id), 0);
    for (int steps = 0; steps <= max_steps; steps++) {
        if (steps > 0)
            one_step(parallelism);
        int64_t wait = steps == max_steps ? final_ms : step_ms;
        int rc = wait ? weir_job_await_checkpoint(j->job, *id, wait, &err)
                      : WEIR_ETIMEDOUT;
        if (rc == 0)
            return true;
        cr_assert_eq(rc, WEIR_ETIMEDOUT, "checkpoint failed: %s",
                     err.message);
    }
    return false;
}

static uint64_t inflight_msgs_on_disk(uint64_t id)
{
    char path[400];
    uint64_t msgs = 0;
    for (uint32_t t = 0; t < 8; t++)
        for (uint32_t s = 0; s < 4; s++) {
            snprintf(path, sizeof path, "%s/chk-%llu/t%u-s%u.snap", g_ckpt,
                     (unsigned long long)id, t, s);
            FILE *f = fopen(path, "rb");
            if (!f)
                continue;
            static uint8_t buf[1 << 22];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            weir__snap_view v;
            weir_error err;
            cr_assert_eq(weir__snap_view_decode(buf, n, &v, &err), 0, "%s: %s",
                         path, err.message);
            msgs += v.inflight_msgs;
            weir__snap_view_fini(&v);
        }
    return msgs;
}

Test(unaligned, aligned_waits_for_the_queues_unaligned_does_not)
{
    /* Aligned: the barrier waits behind the queued batches (and behind a source blocked until they drain). */
    ua_job *j = start_filled(1, false);
    uint64_t id;
    /* The barrier cannot get through in three steps. */
    bool done = checkpoint_under_backpressure(j, 2, 3, 100, 300, &id);
    cr_assert_not(done, "an aligned checkpoint completed before the queues "
                        "drained");
    atomic_store(&g_gated, 0);
    weir_error err;
    cr_assert_eq(weir_job_await_checkpoint(j->job, id, 20000, &err), 0, "%s",
                 err.message);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.last_inflight_bytes, 0);
    ua_job_destroy(j);

    /* Unaligned: complete while the channels are still full. */
    cj_rmtree(g_ckpt);
    cj_rmtree(g_out);
    j = start_filled(1, true);
    done = checkpoint_under_backpressure(j, 2, 3, 500, 20000, &id);
    cr_assert(done, "an unaligned checkpoint did not complete under "
                    "backpressure");
    cr_assert_geq(metric(j->job, ".input_queued"), CHAN_CAP,
                  "the channels drained: the test shows nothing");
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_gt(st.last_inflight_bytes, 1000,
                 "in-flight bytes: %llu",
                 (unsigned long long)st.last_inflight_bytes);
    cr_assert_gt(inflight_msgs_on_disk(id), CHAN_CAP);
    ua_job_destroy(j);
    /* weir inspect says which subtasks hold in-flight data */
    char out[65536], args[700];
    snprintf(args, sizeof args, "inspect %s/chk-%llu", g_ckpt, (unsigned long long)id);
    cr_assert_eq(cj_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "in-flight data (unaligned checkpoint): "), "%s", out);
}

/* Crash after an unaligned checkpoint under backpressure, then restore. */
static void crash_and_restore(uint32_t n_sources)
{
    cj_lines ref;
    reference(n_sources, &ref);
    ua_job *j = start_filled(n_sources, true);
    uint64_t id;
    /* With two inputs a subtask takes from each channel every other step,
     * so a source blocked on one of them waits twice as long. */
    cr_assert(checkpoint_under_backpressure(j, 2, 3 * (int)n_sources, 500,
                                            20000, &id));
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_gt(st.last_inflight_bytes, 0);
    /* Some more progress past the checkpoint, then the crash. */
    one_step(2);
    one_step(2);
    ua_job_destroy(j); /* threads canceled mid-run */

    atomic_store(&g_gated, 0);
    j = start(n_sources, 2, true, WEIR_RESTORE_LATEST, UINT64_MAX);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.restored_id, id);
    ua_job_destroy(j);
    check_output(&ref);
    cj_lines_free(&ref);
}

Test(unaligned, crash_and_restore_keyed_exchange_at_parallelism_2)
{
    crash_and_restore(1);
}

Test(unaligned, crash_and_restore_two_input_operator)
{
    crash_and_restore(2);
}

Test(unaligned, aligned_checkpoint_timeout_turns_unaligned_when_it_passes)
{
    /* Aligned first: with the clock standing still the checkpoint behaves
     * like an aligned one; once the job's clock passes the timeout, the
     * barriers still queued behind data overtake it. */
    g_mclock = weir_manual_clock_create(1000000);
    g_aligned_timeout_ms = 5000;
    cj_lines ref;
    reference(1, &ref);
    ua_job *j = start_filled(1, true);
    uint64_t id;
    cr_assert_not(checkpoint_under_backpressure(j, 2, 3, 100, 300, &id),
                  "completed before its alignment timed out");
    weir_manual_clock_advance(g_mclock, 6000);
    weir_error err = {0};
    bool done = false;
    for (int steps = 0; steps < 3 && !done; steps++) {
        one_step(2);
        done = weir_job_await_checkpoint(j->job, id, 500, &err) == 0;
    }
    if (!done)
        done = weir_job_await_checkpoint(j->job, id, 20000, &err) == 0;
    cr_assert(done, "did not turn unaligned: %s", err.message);
    cr_assert_geq(metric(j->job, ".input_queued"), CHAN_CAP);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_gt(st.last_inflight_bytes, 0);
    ua_job_destroy(j); /* a crash */
    /* The restore replays what the switch stored. */
    j = start(1, 2, true, WEIR_RESTORE_LATEST, UINT64_MAX);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.restored_id, id);
    ua_job_destroy(j);
    check_output(&ref);
    cj_lines_free(&ref);
}

Test(unaligned, aligned_checkpoint_timeout_stores_nothing_without_backpressure)
{
    g_mclock = weir_manual_clock_create(1000000);
    g_aligned_timeout_ms = 5000;
    cj_lines ref;
    reference(1, &ref);
    ua_job *j = start(1, 2, true, WEIR_RESTORE_FRESH, 5000);
    for (int i = 0; i < 20000; i++) {
        if (atomic_load(&g_produced[0]) == 5000 &&
            metric(j->job, "tally.0.records_in") +
                    metric(j->job, "tally.1.records_in") ==
                5000)
            break;
        nap();
    }
    uint64_t id;
    weir_error err;
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(j->job, id, 20000, &err), 0, "%s",
                 err.message);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.last_inflight_bytes, 0);
    ua_job_destroy(j);
    /* And a restore from it is exact. */
    j = start(1, 2, true, WEIR_RESTORE_LATEST, UINT64_MAX);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    ua_job_destroy(j);
    check_output(&ref);
    cj_lines_free(&ref);
}

Test(unaligned, empty_channels_store_no_inflight_data)
{
    ua_job *j = start(1, 2, true, WEIR_RESTORE_FRESH, 5000);
    /* Everything produced is processed: nothing is queued anywhere. */
    for (int i = 0; i < 20000; i++) {
        if (atomic_load(&g_produced[0]) == 5000 &&
            metric(j->job, "tally.0.records_in") +
                    metric(j->job, "tally.1.records_in") ==
                5000 &&
            metric(j->job, ".input_queued") == 0)
            break;
        nap();
    }
    uint64_t id;
    weir_error err;
    cr_assert_eq(weir_job_trigger_checkpoint(j->job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(j->job, id, 20000, &err), 0, "%s",
                 err.message);
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_eq(st.last_inflight_bytes, 0);
    cr_assert_eq(inflight_msgs_on_disk(id), 0);
    atomic_store(&g_limit[0], UINT64_MAX);
    cr_assert_eq(weir_job_wait(j->job), 0, "%s", weir_job_error(j->job));
    ua_job_destroy(j);
}

Test(unaligned, restoring_inflight_data_at_another_parallelism_is_refused)
{
    ua_job *j = start_filled(1, true);
    uint64_t id;
    cr_assert(checkpoint_under_backpressure(j, 2, 3, 500, 20000, &id));
    ua_job_destroy(j);
    atomic_store(&g_gated, 0);

    for (int i = 0; i < 2; i++)
        atomic_store(&g_limit[i], UINT64_MAX);
    j = build(1, 3, g_out);
    weir_checkpoint_config c = ckpt_config(true, WEIR_RESTORE_LATEST);
    weir_error err;
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), 0, "%s",
                 err.message);
    int rc = weir_job_run(j->job);
    cr_assert_eq(rc, WEIR_EUNSUPPORTED, "rc %d: %s", rc,
                 weir_job_error(j->job));
    cr_assert(strstr(weir_job_error(j->job), "another parallelism"), "%s",
              weir_job_error(j->job));
    ua_job_destroy(j);
}

Test(unaligned, options_round_trip)
{
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    weir_error err;
    cr_assert_not(c.unaligned);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.unaligned", "true", &err),
                 0);
    cr_assert(c.unaligned);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.unaligned.enabled", "FALSE",
                     &err),
                 0);
    cr_assert_not(c.unaligned);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.unaligned", "yes", &err),
                 WEIR_EINVAL);
    cr_assert(strstr(err.message, "execution.checkpointing.unaligned"));
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.aligned-checkpoint-timeout",
                     "30 s", &err),
                 0);
    cr_assert_eq(c.aligned_timeout_ms, 30000);
    cr_assert_eq(weir_checkpoint_config_set(
                     &c, "execution.checkpointing.alignment-timeout", "soon",
                     &err),
                 WEIR_EINVAL);

    /* As in Flink: unaligned checkpoints one at a time. */
    ua_job *j = build(1, 1, g_out);
    c = ckpt_config(true, WEIR_RESTORE_FRESH);
    c.max_concurrent = 2;
    cr_assert_eq(weir_job_enable_checkpoints(j->job, &c, &err), WEIR_EINVAL);
    cr_assert(strstr(err.message, "max-concurrent-checkpoints"), "%s",
              err.message);
    ua_job_destroy(j);
}

/*
 * An unaligned checkpoint with in-flight data restores only into the same
 * graph: a job that lost an operator refuses it even when that operator's
 * state was empty (its channels' data would have nowhere to go).
 */
Test(unaligned, inflight_data_refused_when_an_empty_operator_is_gone)
{
    g_tap = true;
    ua_job *j = start_filled(1, true);
    uint64_t id;
    cr_assert(checkpoint_under_backpressure(j, 2, 3, 500, 20000, &id));
    weir_checkpoint_stats st;
    cr_assert_eq(weir_job_checkpoint_stats(j->job, &st), 0);
    cr_assert_gt(st.last_inflight_bytes, 0);
    ua_job_destroy(j);

    atomic_store(&g_gated, 0);
    g_tap = false;
    j = build(1, 2, g_out);
    weir_checkpoint_config c = ckpt_config(true, WEIR_RESTORE_LATEST);
    weir_error err;
    weir_error_clear(&err);
    int rc = weir_job_enable_checkpoints(j->job, &c, &err);
    if (rc == 0 && weir_job_start(j->job) == 0)
        weir_job_wait(j->job);
    cr_assert_eq(rc, WEIR_EINVAL,
                 "the job without the tap took the checkpoint: %d %s", rc,
                 err.message);
    cr_assert(strstr(err.message, "holds in-flight data"), "%s", err.message);
    ua_job_destroy(j);
}

/*
 * In-flight batches of every column type read back: DATE, TIME and
 * MULTISET come after ROW in the type list, and a reader that took ROW for
 * the last id found a complete checkpoint "malformed" when data of those
 * types was in flight.
 */
Test(unaligned, inflight_batches_of_every_type_read_back)
{
    weir_schema *s = weir_schema_create();
    cr_assert_not_null(s);
    weir_type nested[4];
    weir_type elem = weir_type_make(WEIR_TYPE_INT, true);
    const char *names[1] = {"f"};
    cr_assert_eq(weir_type_array(elem, true, &nested[0]), 0);
    cr_assert_eq(weir_type_map(weir_type_make(WEIR_TYPE_STRING, false), elem, true, &nested[1]), 0);
    cr_assert_eq(weir_type_row(&elem, names, 1, true, &nested[2]), 0);
    cr_assert_eq(weir_type_multiset(elem, true, &nested[3]), 0);
    uint32_t n_cols = 0;
    for (int id = 0; id <= WEIR__TYPE_ID_LAST; id++) {
        weir_type t;
        char name[16];
        snprintf(name, sizeof name, "c%d", id);
        switch ((weir_type_id)id) {
        case WEIR_TYPE_NULL: continue; /* the planner's type of a NULL literal: never a column */
        case WEIR_TYPE_ARRAY: t = nested[0]; break;
        case WEIR_TYPE_MAP: t = nested[1]; break;
        case WEIR_TYPE_ROW: t = nested[2]; break;
        case WEIR_TYPE_MULTISET: t = nested[3]; break;
        case WEIR_TYPE_DECIMAL: t = weir_type_decimal(10, 2, true); break;
        default: t = weir_type_make((weir_type_id)id, true); break;
        }
        cr_assert_geq(weir_schema_add(s, name, t), 0, "type %d", id);
        n_cols++;
    }
    weir_batch *b = weir_batch_create(s, 4);
    weir_batch *back = weir_batch_create(s, 4);
    cr_assert(b && back);
    cr_assert_eq(weir_batch_append_row(b), 0);
    for (uint32_t c = 0; c < n_cols; c++) {
        weir_type_id id = s->fields[c].type.id;
        if (id == WEIR_TYPE_DATE || id == WEIR_TYPE_TIME)
            WEIR_COL_I32(b, c)[0] = 1234 + (int32_t)c;
        else
            weir_batch_set_null(b, c, 0); /* the other types are read back by other tests */
    }
    weir__msg m = {.type = WEIR__MSG_BATCH, .wm = WEIR_TS_MIN, .batch = b};
    weir_buf out;
    weir_buf_init(&out);
    cr_assert_eq(weir__inflight_put_msg(&out, &m), 0);
    weir_cursor cur;
    weir_cursor_init(&cur, out.data, out.len);
    weir__msg got;
    cr_assert_eq(weir__inflight_get_msg(&cur, &got, NULL), 0, "a batch of every type refused when checked");
    weir_cursor_init(&cur, out.data, out.len);
    cr_assert_eq(weir__inflight_get_msg(&cur, &got, back), 0, "a batch of every type refused when read");
    cr_assert_eq(back->n_rows, 1);
    for (uint32_t c = 0; c < n_cols; c++) {
        weir_type_id id = s->fields[c].type.id;
        if (id == WEIR_TYPE_DATE || id == WEIR_TYPE_TIME) {
            cr_assert(!weir_batch_is_null(back, c, 0));
            cr_assert_eq(WEIR_COL_I32(back, c)[0], 1234 + (int32_t)c);
        } else {
            cr_assert(weir_batch_is_null(back, c, 0), "column %u", c);
        }
    }
    weir_buf_fini(&out);
    weir_batch_destroy(b);
    weir_batch_destroy(back);
    weir_schema_destroy(s);
}
