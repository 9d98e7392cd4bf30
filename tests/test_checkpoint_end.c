/*
 * tests/test_checkpoint_end.c - checkpoints at the end of a job: a trigger
 * that meets a subtask just as it ends is still answered, and once the
 * final checkpoint completed nothing more is triggered (the job is over,
 * docs/checkpoints.md, "The end of the job: a final checkpoint").
 *
 * The races are made to happen every time: a test hook holds the trigger
 * between two subtasks until the job ended, and a sink holds the final
 * commit until the test has looked at the coordinator. Nothing sleeps.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_job.h"
#include "runtime/checkpoint.h"
#include "support/harness.h"
#include "weir/weir.h"

#define TRIGGERED_ID 2

/* ---- a trigger that meets the end of a subtask (runtime only) ---- */

typedef struct race {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint32_t final_ready;
    uint32_t acks_of_triggered; /* acks of TRIGGERED_ID */
    bool in_hook, go;
    weir_job *job;
    int trigger_rc;
} race;

static race g_race = {.mu = PTHREAD_MUTEX_INITIALIZER,
                      .cv = PTHREAD_COND_INITIALIZER};

static void race_ack(void *ud, const weir__task_snapshot *snap)
{
    race *r = ud;
    pthread_mutex_lock(&r->mu);
    if (snap->ckpt_id == TRIGGERED_ID)
        r->acks_of_triggered++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void race_decline(void *ud, uint64_t id, int task, uint32_t subtask,
                         int code, const char *why)
{
    (void)ud;
    cr_assert_fail("checkpoint %llu declined by task %d subtask %u: %s (%s)",
                   (unsigned long long)id, task, subtask, why,
                   weir_strerror(code));
}

static void race_final_ready(void *ud, int task, uint32_t subtask)
{
    (void)task;
    (void)subtask;
    race *r = ud;
    pthread_mutex_lock(&r->mu);
    r->final_ready++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Holds the first hand-over of the trigger until the test says go. */
static void race_hook(uint64_t id, int task, uint32_t subtask)
{
    (void)task;
    (void)subtask;
    race *r = &g_race;
    pthread_mutex_lock(&r->mu);
    if (id == TRIGGERED_ID && !r->in_hook) {
        r->in_hook = true;
        pthread_cond_broadcast(&r->cv);
        while (!r->go)
            pthread_cond_wait(&r->cv, &r->mu);
    }
    pthread_mutex_unlock(&r->mu);
}

static void *race_trigger(void *arg)
{
    race *r = arg;
    r->trigger_rc = weir__job_trigger_checkpoint(r->job, TRIGGERED_ID);
    return NULL;
}

static void teardown(void)
{
    weir__set_trigger_test_hook(NULL);
}

TestSuite(checkpoint_end, .fini = teardown, .timeout = 60);

/*
 * Every subtask waits for its final checkpoint; checkpoint 2 is being
 * handed to them when the completion of checkpoint 1 lets them all end and
 * the job is over. The subtask the trigger had not reached yet must still
 * answer it ("finished"), or the checkpoint waits for an answer that never
 * comes and fails when the job ends.
 */
Test(checkpoint_end, a_trigger_that_meets_a_subtask_ending_is_answered)
{
    race *r = &g_race;
    weir_schema *s = th_schema("k BIGINT");
    th_source *src = th_usource_create(s, 2);
    th_collect *out = th_collect_create(0);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 2;
    cfg.batch_size = 8;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 2, &st), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job,
                               weir_stream_partition(st, WEIR_PART_REBALANCE),
                               &sink, 2),
                 0);
    weir__ckpt_hooks hooks = {.ack = race_ack,
                              .decline = race_decline,
                              .ud = r,
                              .final_checkpoint = true,
                              .final_ready = race_final_ready};
    cr_assert_eq(weir__job_set_ckpt_hooks(job, &hooks), 0);
    weir__set_trigger_test_hook(race_hook);
    cr_assert_eq(weir_job_start(job), 0);
    uint32_t n = weir__job_subtask_count(job);
    cr_assert_geq(n, 2);
    th_source_row(src, 0, 1, (int64_t)1);
    th_source_row(src, 1, 2, (int64_t)2);
    th_source_end_all(src);

    pthread_mutex_lock(&r->mu);
    while (r->final_ready < n)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);

    r->job = job;
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, race_trigger, r), 0);
    pthread_mutex_lock(&r->mu);
    while (!r->in_hook)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
    /* Checkpoint 1 completes: every subtask ends, and the job with them. */
    cr_assert_eq(weir__job_notify_checkpoint_complete(job, 1), 0);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    pthread_mutex_lock(&r->mu);
    r->go = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(t, NULL);

    cr_assert_eq(r->trigger_rc, 0);
    cr_assert_eq(r->acks_of_triggered, n,
                 "checkpoint %d: %u of %u subtasks answered", TRIGGERED_ID,
                 r->acks_of_triggered, n);
    cr_assert_eq(th_collect_count(out), 2);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
}

/* ---- nothing after the final checkpoint (the coordinator) ---- */

/* A sink that holds the commit of the first checkpoint completed after its
 * input ended (the final one: no other is triggered in the test) until the
 * test releases it. */
typedef struct hold_sink {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool ended;
    uint64_t held; /* the checkpoint whose commit waits (0: none yet) */
    bool release;
} hold_sink;

static int hold_create(void *arg, const weir_op_info *info, void **out)
{
    (void)info;
    *out = arg;
    return 0;
}

static int hold_process(void *op, weir_op_ctx *ctx, int input,
                        const weir_batch *b)
{
    (void)op;
    (void)ctx;
    (void)input;
    (void)b;
    return 0;
}

static int hold_finish(void *op, weir_op_ctx *ctx)
{
    (void)ctx;
    hold_sink *h = op;
    pthread_mutex_lock(&h->mu);
    h->ended = true;
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int hold_complete(void *op, weir_op_ctx *ctx, uint64_t id)
{
    (void)ctx;
    hold_sink *h = op;
    pthread_mutex_lock(&h->mu);
    if (h->ended && !h->held) {
        h->held = id;
        pthread_cond_broadcast(&h->cv);
        while (!h->release)
            pthread_cond_wait(&h->cv, &h->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static void hold_close(void *op)
{
    (void)op;
}

static const weir_operator_class hold_cls = {
    .name = "hold",
    .process = hold_process,
    .checkpoint_complete = hold_complete,
    .finish = hold_finish,
    .close = hold_close,
};

/*
 * The final checkpoint completed and the sink is committing it; the
 * subtasks are about to end. A checkpoint triggered now (by hand, or by
 * the coordinator, which used to take "the final checkpoint" again while
 * every subtask still counted as waiting for it) races their end for its
 * answers; when the job ended first it counted as a failed checkpoint.
 * Nothing is triggered any more: the final checkpoint is the job's last.
 */
Test(checkpoint_end, nothing_is_triggered_after_the_final_checkpoint)
{
    char dir[] = "/tmp/weir-ckend-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char ckpt[64];
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", dir);
    hold_sink h = {.mu = PTHREAD_MUTEX_INITIALIZER,
                   .cv = PTHREAD_COND_INITIALIZER};
    weir_schema *s = th_schema("k BIGINT");
    th_source *src = th_usource_create(s, 2);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 2;
    cfg.batch_size = 8;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 2, &st), 0);
    weir_operator_spec sink = {
        .name = "hold", .cls = &hold_cls, .create = hold_create, .arg = &h};
    cr_assert_eq(weir_job_sink(job, st, &sink, 1), 0);
    cj_log log = {.len = 0};
    weir_checkpoint_config c;
    weir_checkpoint_config_init(&c);
    c.dir = ckpt;
    c.interval_ms = 0; /* only the final checkpoint */
    c.log = cj_log_line;
    c.log_ud = &log;
    weir_error err;
    cr_assert_eq(weir_job_enable_checkpoints(job, &c, &err), 0, "%s",
                 err.message);
    cr_assert_eq(weir_job_start(job), 0, "%s", weir_job_error(job));
    th_source_row(src, 0, 1, (int64_t)1);
    th_source_row(src, 1, 2, (int64_t)2);
    th_source_end_all(src);

    pthread_mutex_lock(&h.mu);
    while (!h.held)
        pthread_cond_wait(&h.cv, &h.mu);
    pthread_mutex_unlock(&h.mu);
    uint64_t id = 0;
    int rc = weir_job_trigger_checkpoint(job, &id);
    cr_assert_eq(rc, WEIR_ESTATE,
                 "checkpoint %llu was triggered after the final checkpoint "
                 "%llu (%s)\nlog:\n%s",
                 (unsigned long long)id, (unsigned long long)h.held,
                 weir_strerror(rc), log.text);
    pthread_mutex_lock(&h.mu);
    h.release = true;
    pthread_cond_broadcast(&h.cv);
    pthread_mutex_unlock(&h.mu);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));

    weir_checkpoint_stats stats;
    cr_assert_eq(weir_job_checkpoint_stats(job, &stats), 0);
    cr_assert_eq(stats.failed, 0, "%s", stats.last_failure);
    cr_assert_eq(stats.completed, 1, "log:\n%s", log.text);
    cr_assert_eq(stats.last_id, h.held);
    weir_job_destroy(job);
    th_source_destroy(src);
    weir_schema_destroy(s);
    cj_rmtree(dir);
}
