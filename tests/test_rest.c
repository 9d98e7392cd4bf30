/*
 * tests/test_rest.c - who holds the watermark back (rest/monitor.c), on a
 * job built with the C API and a manual clock.
 *
 * One source subtask reads two splits; split-0 goes on producing, split-1
 * delivers one row and then nothing. The sink behind a keyed exchange
 * therefore holds its watermark at split-1's. After 42 s of processing time
 * (the manual clock), the watch must name split-1, say it has been silent
 * for 42 s and that no idle timeout is set, in the REST JSON and as one log
 * line. With an idle timeout the split turns idle, the watermark moves on,
 * and split-1 no longer holds anything. The HTTP server stays off here (the
 * HTTP side is tests/test_rest_http.sh); the monitor runs alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rest/rest.h"
#include "rest/rest_internal.h"
#include "support/harness.h"

#define GUARD_MS 20000

typedef struct fixture {
    weir_schema *s;
    th_source *src;
    th_collect *out;
    weir_manual_clock *mc;
    weir_job *job;
} fixture;

static void start_job(fixture *f, int64_t idle_timeout_ms)
{
    f->s = th_schema("k BIGINT, v BIGINT");
    f->src = th_usource_create(f->s, 2);
    f->out = th_collect_create(0);
    f->mc = weir_manual_clock_create(1000);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.clock = weir_manual_clock_get(f->mc);
    cfg.idle_timeout_ms = idle_timeout_ms;
    cr_assert_eq(weir_job_create(&cfg, &f->job), 0);
    weir_source_spec ss = th_source_spec(f->src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream st;
    cr_assert_eq(weir_job_source(f->job, &ss, &wm, 1, &st), 0);
    uint32_t key = 0;
    weir_operator_spec sink = th_collect_spec(f->out, "collect");
    cr_assert_eq(weir_job_sink(f->job, weir_stream_key_by(st, &key, 1), &sink, 1), 0);
    cr_assert_eq(weir_job_start(f->job), 0);
    /* split-1: one row at 3; split-0: rows up to 100. */
    th_source_row(f->src, 1, 3, (int64_t)1, (int64_t)0);
    cr_assert(th_source_wait_read(f->src, 1, GUARD_MS));
    for (int64_t ts = 5; ts <= 100; ts += 5)
        th_source_row(f->src, 0, ts, (int64_t)2, (int64_t)0);
    cr_assert(th_source_wait_read(f->src, 0, GUARD_MS));
    cr_assert(th_collect_wait_watermark(f->out, 3, GUARD_MS));
    /* Every row reached the sink: the source stamped its splits' last-row
     * time with this clock (1000) before the tests move the clock on. */
    cr_assert(th_collect_wait_count(f->out, 21, GUARD_MS));
    /* The sink subtask stamps when its watermark moved after the sink saw
     * it: wait for that too, or the tests' clock move may race it. */
    weir__insp_subtask sub = {0};
    for (int i = 0; i < GUARD_MS / 10; i++) {
        cr_assert_eq(weir__insp_subtask_get(f->job, 1, 0, &sub), 0);
        if (sub.out_wm >= 3)
            break;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    cr_assert_eq(sub.out_wm, 3, "the sink subtask's watermark is %lld", (long long)sub.out_wm);
}

static void stop_job(fixture *f)
{
    th_source_end_all(f->src);
    cr_assert_eq(weir_job_wait(f->job), 0, "%s", weir_job_error(f->job));
    weir_job_destroy(f->job);
    weir_manual_clock_destroy(f->mc);
    th_collect_destroy(f->out);
    th_source_destroy(f->src);
    weir_schema_destroy(f->s);
}

static weir_rest *start_monitor(fixture *f, FILE *log, int64_t stall_warn_ms)
{
    weir_rest_config cfg = {.enabled = false, .sample_ms = 10, .stall_warn_ms = stall_warn_ms, .log = log};
    snprintf(cfg.job_name, sizeof cfg.job_name, "test");
    weir_rest *r = NULL;
    weir_error err = {0};
    cr_assert_eq(weir_rest_start(f->job, &cfg, &r, &err), 0, "%s", err.message);
    return r;
}

/* The JSON of path for the job (path after "/jobs/<id>"). */
static char *get_json(weir_rest *r, const char *path)
{
    char url[256];
    snprintf(url, sizeof url, "/jobs/%s%s", r->job_id, path);
    weir_buf b;
    weir_buf_init(&b);
    int status = rest_route_get(r, url, &b);
    cr_assert_eq(status, 200, "GET %s: %d", url, status);
    weir_buf_put(&b, "", 1);
    return (char *)b.data; /* freed by the caller with weir_free */
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Polls (real time, bounded) until path's JSON contains want. */
static bool wait_json(weir_rest *r, const char *path, const char *want, char **last)
{
    for (int i = 0; i < GUARD_MS / 10; i++) {
        weir_free(*last);
        *last = get_json(r, path);
        if (strstr(*last, want))
            return true;
        sleep_ms(10);
    }
    return false;
}

Test(rest_watch, silent_split_is_named_with_its_reason)
{
    fixture f;
    start_job(&f, 0);
    cr_assert_eq(th_collect_watermark(f.out), 3, "split-1 holds the watermark at its only row");
    char *logbuf = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logbuf, &loglen);
    cr_assert(log);
    weir_rest *r = start_monitor(&f, log, 30000);
    weir_manual_clock_set(f.mc, 43000); /* 42 s after the last row of split-1 */
    char *json = NULL;
    const char *want = "\"text\":\"collect[0] watermark held by events[0] split split-1: no record for 42 s; "
                       "table.exec.source.idle-timeout is not set\"";
    cr_assert(wait_json(r, "/watermarks", want, &json), "the sink's holder is not named: %s", json);
    /* The source subtask itself names the same split; split-0 is active,
     * silent for 0 s, and further on. */
    cr_assert(strstr(json, "\"by\":\"events[0] split split-1\""), "%s", json);
    cr_assert(strstr(json, "{\"id\":\"split-1\",\"watermark\":3,\"max-event-time\":3,\"status\":\"ACTIVE\","
                           "\"records\":1,\"last-record-time\":1000,\"silent-ms\":42000}"),
              "%s", json);
    cr_assert(strstr(json, "{\"id\":\"split-0\",\"watermark\":100,"), "%s", json);
    /* The sink's only input channel holds it: nothing to be behind of. */
    cr_assert(strstr(json, "\"input-channel\":0,\"from-vertex\":0,\"from-subtask\":0,\"watermark\":3,"
                           "\"behind-others-ms\":null,\"since\":1000,\"stalled-ms\":42000"),
              "%s", json);
    weir_free(json);
    /* Not yet 30 s without a move when the monitor started?  It was 42 s:
     * one warning line, naming the same split and reason. */
    for (int i = 0; i < GUARD_MS / 10; i++) {
        fflush(log);
        if (loglen && strstr(logbuf, "collect[0] watermark held by"))
            break;
        sleep_ms(10);
    }
    fflush(log);
    cr_assert(logbuf && strstr(logbuf, "weir: collect[0] watermark held by events[0] split split-1: no record for 42 "
                                       "s; table.exec.source.idle-timeout is not set (not moved for 42 s)\n"),
              "log: %s", logbuf ? logbuf : "");
    /* Once per stall: more samples add no second line. */
    sleep_ms(100);
    fflush(log);
    const char *first = strstr(logbuf, "collect[0] watermark held by");
    cr_assert(first && !strstr(first + 1, "collect[0] watermark held by"), "log: %s", logbuf);
    weir_rest_stop(r);
    stop_job(&f);
    fclose(log);
    free(logbuf);
}

Test(rest_watch, idle_split_no_longer_holds)
{
    fixture f;
    start_job(&f, 5000);
    weir_rest *r = start_monitor(&f, NULL, 0);
    weir_manual_clock_set(f.mc, 43000);
    /* Both splits are silent for 42 s > 5 s: both turn idle, the
     * watermark moves up to the furthest of them (split-0's 100), and
     * nothing holds anyone. */
    cr_assert(th_collect_wait_watermark(f.out, 100, GUARD_MS), "watermark %lld",
              (long long)th_collect_watermark(f.out));
    char *json = NULL;
    cr_assert(wait_json(r, "/watermarks", "{\"id\":\"split-1\",\"watermark\":3,\"max-event-time\":3,\"status\":\"IDLE\"",
                        &json),
              "%s", json);
    cr_assert(wait_json(r, "/watermarks", "\"held-by\":{\"held\":false,\"since\":43000,\"stalled-ms\":0,\"by\":\"\","
                        "\"reason\":\"every input is idle\",\"text\":null}", &json),
              "%s", json);
    cr_assert_null(strstr(json, "held by events[0] split split-1"), "%s", json);
    weir_free(json);
    weir_rest_stop(r);
    stop_job(&f);
}

Test(rest_routes, vertices_plan_and_unknown_paths)
{
    fixture f;
    start_job(&f, 0);
    weir_rest *r = start_monitor(&f, NULL, 0);
    char *json = get_json(r, "/plan");
    cr_assert(strstr(json, "\"inputs\":[{\"num\":0,\"id\":0,\"ship_strategy\":\"HASH\""), "%s", json);
    weir_free(json);
    /* The sink has seen the 21 rows (start_job); its counter moves once its
     * call returns, so a loaded machine may show it a moment later. */
    json = NULL;
    cr_assert(wait_json(r, "/vertices/1", "\"name\":\"collect\",\"numRecordsIn\":21,", &json), "%s", json);
    cr_assert(wait_json(r, "", "\"read-records\":21,\"write-records\":21,", &json), "the source read 21 rows: %s",
              json);
    cr_assert(strstr(json, "\"state\":\"RUNNING\""), "%s", json);
    weir_free(json);
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(rest_route_get(r, "/jobs/nosuchjob", &b), 404);
    weir_buf_clear(&b);
    char url[128];
    snprintf(url, sizeof url, "/jobs/%s/vertices/7", r->job_id);
    cr_assert_eq(rest_route_get(r, url, &b), 404, "there are 2 vertices");
    weir_buf_clear(&b);
    snprintf(url, sizeof url, "/jobs/%s/vertices/1x", r->job_id);
    cr_assert_eq(rest_route_get(r, url, &b), 404);
    weir_buf_fini(&b);
    weir_rest_stop(r);
    stop_job(&f);
}
