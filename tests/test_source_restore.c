/*
 * tests/test_source_restore.c - where a restored source subtask stands.
 *
 * A source that may find more splits (a watched folder) and whose subtask
 * has read all of its splits to the end holds its last watermark: it stays
 * active, so the operators downstream wait for it. Restored from a
 * checkpoint taken then, it must stand in the same place - announced idle
 * instead, the operators downstream would count it out, and the watermark
 * would move past the event time its siblings' rows and the results still
 * to fire behind it have (rows late after a restore that were on time in
 * the run that was not interrupted).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/inspect.h"
#include "support/harness.h"
#include "weir/weir.h"

#define GUARD_MS 20000

typedef struct split_seen {
    const char *id;
    bool finished;
} split_seen;

static void on_split(void *ud, const weir__insp_split *s)
{
    split_seen *w = ud;
    if (!strcmp(s->id, w->id) && s->finished)
        w->finished = true;
}

/* Waits (real time, a guard) until source subtask `sub` has read split id
 * to its end. */
static bool wait_split_finished(weir_job *job, uint32_t sub, const char *id)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        for (uint32_t t = 0; t < weir__insp_n_tasks(job); t++) {
            weir__insp_task task;
            weir__insp_task_get(job, t, &task);
            if (!task.is_source)
                continue;
            split_seen w = {.id = id};
            weir__insp_splits(job, t, sub, on_split, &w);
            if (w.finished)
                return true;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000 +
                (now.tv_nsec - t0.tv_nsec) / 1000000 > GUARD_MS)
            return false;
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
}

/* Source at parallelism 2 (split-0 on subtask 0, split-1 on subtask 1)
 * into one collecting subtask, checkpointing into dir (restoring its
 * latest checkpoint). */
static weir_job *two_split_job(th_source *src, th_collect *out,
                               const char *dir)
{
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 1;
    cfg.batch_size = 16;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 2, &st), 0);
    weir_operator_spec sink = th_collect_spec(out, "collect");
    cr_assert_eq(weir_job_sink(job, st, &sink, 1), 0);
    weir_error err;
    cr_assert_eq(th_enable_checkpoints(job, dir, &err), 0, "%s", err.message);
    return job;
}

Test(source_restore, a_subtask_whose_splits_had_ended_still_holds_the_watermark,
     .timeout = 60)
{
    char dir[] = "/tmp/weir-srcrestore-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    weir_schema *s = th_schema("k BIGINT");

    /* The first run: split-0 read to its end at event time 100, split-1 at
     * 50; the collector's watermark is min(100, 50). Stopped: its final
     * checkpoint has split-0 finished. */
    th_source *src = th_usource_create(s, 2);
    th_source_keep_discovering(src);
    th_collect *out = th_collect_create(0);
    weir_job *job = two_split_job(src, out, dir);
    cr_assert_eq(weir_job_start(job), 0);
    th_source_row(src, 0, 100, (int64_t)1);
    th_source_end(src, 0);
    th_source_row(src, 1, 50, (int64_t)2);
    cr_assert(wait_split_finished(job, 0, "split-0"));
    cr_assert(th_collect_wait_count(out, 2, GUARD_MS));
    cr_assert(th_collect_wait_watermark(out, 50, GUARD_MS));
    weir_job_stop(job);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    size_t n;
    const weir_ts *log = th_collect_watermarks(out, &n);
    for (size_t i = 0; i < n; i++)
        cr_assert_leq(log[i], 50, "the first run's watermark went to %" PRId64,
                      log[i]);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);

    /* Restored: split-1 goes on to 200. Subtask 0 still holds 100, as it
     * would have in a run that was not stopped. */
    src = th_usource_create(s, 2);
    th_source_keep_discovering(src);
    th_source_row(src, 0, 100, (int64_t)1); /* read before: not again */
    th_source_end(src, 0);
    th_source_row(src, 1, 50, (int64_t)2);
    th_source_row(src, 1, 200, (int64_t)3);
    out = th_collect_create(0);
    job = two_split_job(src, out, dir);
    cr_assert_eq(weir_job_start(job), 0);
    cr_assert(th_collect_wait_count(out, 1, GUARD_MS));
    cr_assert(th_collect_wait_watermark(out, 100, GUARD_MS));
    weir_job_stop(job);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(th_collect_count(out), 1, "only the row at 200 is new");
    log = th_collect_watermarks(out, &n);
    cr_assert_gt(n, 0);
    for (size_t i = 0; i < n; i++)
        cr_assert_leq(log[i], 100,
                      "the restored subtask 0 was counted out: the "
                      "watermark went to %" PRId64,
                      log[i]);
    cr_assert_eq(log[n - 1], 100);
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_source_destroy(src);
    weir_schema_destroy(s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
