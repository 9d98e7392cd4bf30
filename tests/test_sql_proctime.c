/*
 * tests/test_sql_proctime.c - processing-time attributes and windows in SQL:
 * PROCTIME() in a SELECT or as a computed column, the window table
 * functions and the legacy GROUP BY windows over it, on a manual clock.
 *
 * A processing-time window takes the clock's time when a row reaches the
 * window operator, so a test must know that the operator has seen a row
 * before it moves the clock. The tables here carry an event-time column as
 * well (ignored by the processing-time windows): once the watermark that
 * follows a batch has passed every task, the window has processed the
 * batch. Nothing sleeps to wait for a window; the tests wait (with a
 * deadline) for conditions the job reports through its metrics.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/harness.h"
#include "weir/checkpoint.h"
#include "weir/planner.h"
#include "weir/weir.h"

#define GUARD_MS 20000

typedef struct job_probe {
    double min_wm;   /* the lowest output watermark over all subtasks */
    double written;  /* rows into sinks */
} job_probe;

static void probe_visit(void *ud, const char *name, double value)
{
    job_probe *p = ud;
    size_t n = strlen(name);
    if (n > 10 && !strcmp(name + n - 10, ".watermark") && value < p->min_wm)
        p->min_wm = value;
    if (!strcmp(name, "job.records_written"))
        p->written = value;
}

static job_probe probe(weir_job *job)
{
    job_probe p = {.min_wm = 1e300, .written = 0};
    weir_job_metrics(job, probe_visit, &p);
    return p;
}

/* Polls (1 ms steps) until every subtask's watermark is >= wm and at least
 * `written` rows reached the sinks; false on timeout. */
static bool wait_for(weir_job *job, double wm, double written)
{
    for (int i = 0; i < GUARD_MS; i++) {
        job_probe p = probe(job);
        if (p.min_wm >= wm && p.written >= written)
            return true;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

typedef struct sql_run {
    weir_sql_job *sj;
    weir_job *job;
    FILE *mem;
    char *buf;
    size_t len;
} sql_run;

/* ck (may be NULL): checkpoints of the job, and what it restores. */
static void run_start_ck(sql_run *r, const char *sql, weir_clock clock, uint32_t par,
                         const weir_checkpoint_config *ck)
{
    memset(r, 0, sizeof *r);
    r->mem = open_memstream(&r->buf, &r->len);
    cr_assert(r->mem);
    char p[16];
    snprintf(p, sizeof p, "%u", par);
    const char *keys[] = {"parallelism.default"}, *vals[] = {p};
    weir_sql_job_options opt = {
        .set_keys = keys, .set_values = vals, .n_set = 1, .clock = clock, .print_out = r->mem};
    weir_error err = {0};
    int rc = weir_sql_job_create("proctime.sql", sql, strlen(sql), &opt, &r->sj, &err);
    cr_assert_eq(rc, 0, "does not plan: %s", err.message);
    r->job = weir_sql_job_graph(r->sj);
    cr_assert(r->job);
    if (ck)
        cr_assert_eq(weir_job_enable_checkpoints(r->job, ck, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_start(r->job), 0);
}

static void run_start(sql_run *r, const char *sql, weir_manual_clock *mc, uint32_t par)
{
    run_start_ck(r, sql, weir_manual_clock_get(mc), par, NULL);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Waits for the end of the job; returns the printed rows, sorted (or in the
 * order they came), without the "N> " subtask prefix, as one string of lines. */
static char *run_finish_lines(sql_run *r, bool sorted)
{
    int rc = weir_job_wait(r->job);
    cr_assert_eq(rc, 0, "the job failed: %s", weir_job_error(r->job));
    weir_sql_job_destroy(r->sj);
    fclose(r->mem);
    char *rows[256];
    size_t n = 0, total = 0;
    for (char *line = r->buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        line = th_print_row(line);
        cr_assert_lt(n, 256);
        rows[n++] = line;
        total += strlen(line) + 1;
    }
    if (sorted)
        qsort(rows, n, sizeof *rows, cmp_str);
    char *out = calloc(1, total + 1);
    cr_assert(out);
    for (size_t i = 0; i < n; i++) {
        strcat(out, rows[i]);
        strcat(out, "\n");
    }
    free(r->buf);
    return out;
}

static char *run_finish(sql_run *r) { return run_finish_lines(r, true); }

/*
 * 30 rows, 10 per second of the clock (the datagen source's token bucket
 * starts full): ids 0-9 at 1 s, 10-19 once the clock is at 10 s, 20-29 at
 * 25 s. Each row's event time is id seconds, so the watermark tells when
 * the window has seen a batch.
 */
#define SOURCE_DDL                                                                                                 \
    "CREATE TABLE src (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3), WATERMARK FOR ts AS ts) WITH (\n"       \
    "  'connector' = 'datagen', 'rows-per-second' = '10',\n"                                                     \
    "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '29');\n"

/* Steps the clock 1 s -> 10 s -> 25 s as above, checking that a window
 * fires when the clock passes its end and not before (first_rows: how many
 * rows the step to 10 s brings out). */
static char *stepped_run_n(const char *sql, uint32_t par, double first_rows)
{
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    sql_run r;
    run_start(&r, sql, mc, par);
    /* at parallelism 2 each source subtask makes every other id: the last one of subtask 0 is 8 */
    double last = par == 1 ? 0 : 1000;
    cr_assert(wait_for(r.job, 9000 - last, 0), "ids 0-9 did not reach the window");
    cr_assert_eq(probe(r.job).written, 0, "a window fired before the clock reached its end");
    weir_manual_clock_set(mc, 10000); /* [0 s, 10 s) ends; ids 10-19 come */
    cr_assert(wait_for(r.job, 19000 - last, first_rows), "the first window did not fire at its end");
    cr_assert_eq(probe(r.job).written, first_rows);
    weir_manual_clock_set(mc, 25000); /* [10 s, 20 s) ends; ids 20-29 come, then the end of input */
    char *out = run_finish(&r);
    weir_manual_clock_destroy(mc);
    return out;
}

static char *stepped_run(const char *sql, uint32_t par) { return stepped_run_n(sql, par, 2); }

static const char *const STEPPED_TUMBLE =
    "[0, 5, 120, 1970-01-01T00:00:20, 1970-01-01T00:00:30]\n" /* sorted as strings */
    "[0, 5, 20, 1970-01-01T00:00, 1970-01-01T00:00:10]\n"
    "[0, 5, 70, 1970-01-01T00:00:10, 1970-01-01T00:00:20]\n"
    "[1, 5, 125, 1970-01-01T00:00:20, 1970-01-01T00:00:30]\n"
    "[1, 5, 25, 1970-01-01T00:00, 1970-01-01T00:00:10]\n"
    "[1, 5, 75, 1970-01-01T00:00:10, 1970-01-01T00:00:20]\n";

static void with_kind(const char *rows, char *out, size_t cap)
{
    size_t k = 0;
    for (const char *p = rows; *p; p++) {
        if (p == rows || p[-1] == '\n')
            k += (size_t)snprintf(out + k, cap - k, "+I");
        out[k++] = *p;
    }
    out[k] = 0;
}

Test(sql_proctime, tumble_tvf_over_proctime_in_a_view_fires_by_the_clock, .timeout = 120)
{
    const char *sql = SOURCE_DDL
        "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
        "SELECT id % 2 AS k, COUNT(*), SUM(id), window_start, window_end\n"
        "FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(pt), INTERVAL '10' SECOND))\n"
        "GROUP BY id % 2, window_start, window_end;\n";
    char want[1024];
    with_kind(STEPPED_TUMBLE, want, sizeof want);
    for (uint32_t p = 1; p <= 2; p++) {
        char *got = stepped_run(sql, p);
        cr_assert_str_eq(got, want, "parallelism %u", p);
        free(got);
    }
}

Test(sql_proctime, legacy_group_window_over_a_proctime_computed_column, .timeout = 120)
{
    /* The attribute declared in the table; TUMBLE_START / TUMBLE_END / TUMBLE_PROCTIME */
    const char *sql =
        "CREATE TABLE src (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3), pt AS PROCTIME(),\n"
        "  WATERMARK FOR ts AS ts) WITH (\n"
        "  'connector' = 'datagen', 'rows-per-second' = '10',\n"
        "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '29');\n"
        "SELECT id % 2, COUNT(*), SUM(id), TUMBLE_START(pt, INTERVAL '10' SECOND),\n"
        "       TUMBLE_END(pt, INTERVAL '10' SECOND)\n"
        "FROM src GROUP BY id % 2, TUMBLE(pt, INTERVAL '10' SECOND);\n";
    char want[1024];
    with_kind(STEPPED_TUMBLE, want, sizeof want);
    char *got = stepped_run(sql, 1);
    cr_assert_str_eq(got, want);
    free(got);
}

/* With the clock frozen, every row falls in the windows that contain the
 * clock's time, whatever the rows' own times. */
static char *frozen_run(const char *sql, int64_t now, uint32_t par)
{
    weir_manual_clock *mc = weir_manual_clock_create(now);
    sql_run r;
    run_start(&r, sql, mc, par);
    char *out = run_finish(&r);
    weir_manual_clock_destroy(mc);
    return out;
}

Test(sql_proctime, hop_cumulate_session_take_the_clock_not_the_rows_time, .timeout = 120)
{
    const char *hop =
        "CREATE TABLE src (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3), WATERMARK FOR ts AS ts) WITH (\n"
        "  'connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',\n"
        "  'fields.id.end' = '99');\n"
        "CREATE VIEW v AS SELECT id, PROCTIME() AS pt FROM src;\n"
        "SELECT COUNT(*), SUM(id), window_start, window_end\n"
        "FROM TABLE(HOP(TABLE v, DESCRIPTOR(pt), INTERVAL '5' SECOND, INTERVAL '10' SECOND))\n"
        "GROUP BY window_start, window_end;\n";
    for (uint32_t p = 1; p <= 2; p++) {
        char *got = frozen_run(hop, 12345, p);
        cr_assert_str_eq(got,
                         "+I[100, 4950, 1970-01-01T00:00:05, 1970-01-01T00:00:15]\n"
                         "+I[100, 4950, 1970-01-01T00:00:10, 1970-01-01T00:00:20]\n",
                         "parallelism %u", p);
        free(got);
    }
    const char *cum =
        "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',\n"
        "  'fields.id.start' = '1', 'fields.id.end' = '10');\n"
        "CREATE VIEW v AS SELECT id, PROCTIME() AS pt FROM src;\n"
        "SELECT MAX(id), window_start, window_end\n"
        "FROM TABLE(CUMULATE(TABLE v, DESCRIPTOR(pt), INTERVAL '5' SECOND, INTERVAL '20' SECOND))\n"
        "GROUP BY window_start, window_end;\n";
    char *got = frozen_run(cum, 12345, 1);
    cr_assert_str_eq(got,
                     "+I[10, 1970-01-01T00:00, 1970-01-01T00:00:15]\n"
                     "+I[10, 1970-01-01T00:00, 1970-01-01T00:00:20]\n");
    free(got);
    /* a session per key, opened at the clock's time */
    const char *sess =
        "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',\n"
        "  'fields.id.start' = '1', 'fields.id.end' = '10');\n"
        "CREATE VIEW v AS SELECT id, PROCTIME() AS pt FROM src;\n"
        "SELECT id % 2, COUNT(*), window_start, window_end\n"
        "FROM TABLE(SESSION(TABLE v PARTITION BY id % 2, DESCRIPTOR(pt), INTERVAL '5' SECOND))\n"
        "GROUP BY id % 2, window_start, window_end;\n";
    for (uint32_t p = 1; p <= 2; p++) {
        got = frozen_run(sess, 12345, p);
        cr_assert_str_eq(got,
                         "+I[0, 5, 1970-01-01T00:00:12.345, 1970-01-01T00:00:17.345]\n"
                         "+I[1, 5, 1970-01-01T00:00:12.345, 1970-01-01T00:00:17.345]\n",
                         "parallelism %u", p);
        free(got);
    }
}

Test(sql_proctime, window_time_of_a_proctime_window_is_a_proctime_attribute, .timeout = 120)
{
    /* a second processing-time window over the first one's window_time */
    const char *sql =
        "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',\n"
        "  'fields.id.start' = '1', 'fields.id.end' = '10');\n"
        "CREATE VIEW v AS SELECT id, PROCTIME() AS pt FROM src;\n"
        "CREATE VIEW w AS SELECT id % 3 AS k, COUNT(*) AS c, window_time FROM\n"
        "  TABLE(TUMBLE(TABLE v, DESCRIPTOR(pt), INTERVAL '1' SECOND)) GROUP BY id % 3, window_start, window_end;\n"
        "SELECT SUM(c), window_start FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(window_time), INTERVAL '1' MINUTE))\n"
        "GROUP BY window_start, window_end;\n";
    char *got = frozen_run(sql, 61500, 1);
    cr_assert_str_eq(got, "+I[10, 1970-01-01T00:01]\n");
    free(got);
}

/*
 * OVER ... ORDER BY a processing-time attribute, RANGE BETWEEN 10 s
 * PRECEDING: the rows that arrive in one millisecond of the clock are peers
 * and come out together once the clock has passed it; the frame is the rows
 * that arrived in [t - 10 s, t]. Ids 0-9 arrive at 1 s (out when the clock
 * reaches 10 s), 10-19 at 10 s (their frame holds ids 0-19: 1 s is within
 * 10 s of it), 20-29 at 25 s (frame: only themselves; out at the end of the
 * input, which processes the rows still waiting).
 */
Test(sql_proctime, over_range_by_processing_time_groups_rows_by_arrival, .timeout = 120)
{
    const char *sql = SOURCE_DDL
        "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
        "SELECT id % 2 AS k, id, COUNT(*) OVER w, SUM(id) OVER w, MIN(id) OVER w FROM v\n"
        "WINDOW w AS (PARTITION BY id % 2 ORDER BY pt RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW);\n";
    char want[4096];
    size_t k = 0;
    char *rows[30];
    for (int id = 0; id < 30; id++) {
        int par = id % 2, n = 5, sum, mn;
        if (id < 10) {
            sum = par ? 25 : 20; /* 1+3+5+7+9, 0+2+4+6+8 */
            mn = par;
        } else if (id < 20) {
            n = 10, sum = par ? 100 : 90; /* odd/even ids 0-19 */
            mn = par;
        } else {
            sum = par ? 125 : 120; /* odd/even ids 20-29 */
            mn = 20 + par;
        }
        char line[64];
        snprintf(line, sizeof line, "+I[%d, %d, %d, %d, %d]", par, id, n, sum, mn);
        rows[id] = strdup(line);
    }
    qsort(rows, 30, sizeof *rows, cmp_str);
    for (int i = 0; i < 30; i++) {
        k += (size_t)snprintf(want + k, sizeof want - k, "%s\n", rows[i]);
        free(rows[i]);
    }
    for (uint32_t p = 1; p <= 2; p++) {
        char *got = stepped_run_n(sql, p, 10);
        cr_assert_str_eq(got, want, "parallelism %u", p);
        free(got);
    }
}

/*
 * The same query stopped with a savepoint and restored: the state holds
 * rows already out that are still in the frame, and rows that wait for the
 * clock, both under the clock's millisecond of their arrival. Ids 0-9
 * arrive at 1 s and come out when the clock reaches 2 s (frame: themselves),
 * when ids 10-19 arrive; the job stops with a savepoint, 10-19 still
 * waiting. The restored job starts with the clock at 11.5 s: 10-19 come out
 * (frame: arrivals in [-8 s, 2 s], ids 0-19), ids 20-29 arrive at 11.5 s and
 * come out at the end of the input with the arrivals in [1.5 s, 11.5 s]:
 * ids 10-29, not 0-9. A restore that lost the waiting rows, the frame's
 * rows or their arrival times (taking the restore's time for them) gives
 * other counts.
 */
static char *restore_run(const char *sql, uint32_t par, const char *dir)
{
    weir_checkpoint_config ck;
    weir_checkpoint_config_init(&ck);
    char ck_dir[512];
    snprintf(ck_dir, sizeof ck_dir, "%s/checkpoints", dir);
    ck.dir = ck_dir;
    ck.restore = WEIR_RESTORE_FRESH;
    double last = par == 1 ? 0 : 1000; /* the last id of source subtask 0 is even (stepped_run_n) */
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    sql_run r;
    run_start_ck(&r, sql, weir_manual_clock_get(mc), par, &ck);
    cr_assert(wait_for(r.job, 9000 - last, 0), "ids 0-9 did not reach the OVER aggregation");
    cr_assert_eq(probe(r.job).written, 0, "rows came out before the clock passed their millisecond");
    weir_manual_clock_set(mc, 2000);
    cr_assert(wait_for(r.job, 19000 - last, 10), "ids 0-9 did not come out at 2 s");
    char sp_dir[512], sp[512];
    snprintf(sp_dir, sizeof sp_dir, "%s/savepoints", dir);
    weir_error err = {0};
    cr_assert_eq(weir_job_stop_with_savepoint(r.job, sp_dir, sp, sizeof sp, &err), 0, "%s", err.message);
    cr_assert_eq(probe(r.job).written, 10, "ids 10-19 came out before the savepoint");
    char *before = run_finish(&r);

    weir_manual_clock_set(mc, 11500);
    ck.restore = WEIR_RESTORE_PATH;
    ck.restore_path = sp;
    run_start_ck(&r, sql, weir_manual_clock_get(mc), par, &ck);
    cr_assert_str_neq(weir_job_restored_from(r.job), "", "the job did not restore %s", sp);
    char *after = run_finish(&r);
    weir_manual_clock_destroy(mc);
    char *both = malloc(strlen(before) + strlen(after) + 1);
    cr_assert(both);
    strcpy(both, before);
    strcat(both, after);
    free(before);
    free(after);
    return both;
}

Test(sql_proctime, over_range_by_processing_time_restores_its_frame_and_waiting_rows, .timeout = 120)
{
    const char *sql = SOURCE_DDL
        "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
        "SELECT id % 2 AS k, id, COUNT(*) OVER w, SUM(id) OVER w, MIN(id) OVER w FROM v\n"
        "WINDOW w AS (PARTITION BY id % 2 ORDER BY pt RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW);\n";
    /* the expected rows in the order the runs print them, sorted per run */
    char *rows[30];
    for (int id = 0; id < 30; id++) {
        int par = id % 2, n, sum, mn;
        if (id < 10) { /* ids 0-9 of the parity */
            n = 5, sum = par ? 25 : 20, mn = par;
        } else if (id < 20) { /* ids 0-19 */
            n = 10, sum = par ? 100 : 90, mn = par;
        } else { /* ids 10-29 */
            n = 10, sum = par ? 200 : 190, mn = 10 + par;
        }
        char line[64];
        snprintf(line, sizeof line, "+I[%d, %d, %d, %d, %d]", par, id, n, sum, mn);
        rows[id] = strdup(line);
    }
    qsort(rows, 10, sizeof *rows, cmp_str);
    qsort(rows + 10, 20, sizeof *rows, cmp_str);
    char want[4096];
    size_t k = 0;
    for (int i = 0; i < 30; i++) {
        k += (size_t)snprintf(want + k, sizeof want - k, "%s\n", rows[i]);
        free(rows[i]);
    }
    for (uint32_t p = 1; p <= 2; p++) {
        char dir[] = "/tmp/weir-proctime-ckpt-XXXXXX";
        cr_assert(mkdtemp(dir));
        char *got = restore_run(sql, p, dir);
        cr_assert_str_eq(got, want, "parallelism %u", p);
        free(got);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        cr_assert_eq(system(cmd), 0);
    }
}

/* ROWS and RANGE UNBOUNDED by processing time: each row at once, by arrival (the clock plays no part). */
Test(sql_proctime, over_rows_by_processing_time_emit_each_row_at_once, .timeout = 120)
{
    const char *sql = SOURCE_DDL
        "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
        "SELECT id, SUM(id) OVER (ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),\n"
        "  COUNT(*) OVER (ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM v WHERE id < 10;\n";
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    sql_run r;
    run_start(&r, sql, mc, 1);
    cr_assert(wait_for(r.job, 9000, 10), "rows did not come out before the clock moved");
    weir_manual_clock_set(mc, 10000); /* the source's token bucket holds a second's rows: two steps */
    cr_assert(wait_for(r.job, 19000, 10));
    weir_manual_clock_set(mc, 25000);
    char *got = run_finish(&r);
    weir_manual_clock_destroy(mc);
    cr_assert_str_eq(got,
                     "+I[0, 0, 1]\n+I[1, 1, 2]\n+I[2, 3, 3]\n+I[3, 6, 3]\n+I[4, 9, 3]\n"
                     "+I[5, 12, 3]\n+I[6, 15, 3]\n+I[7, 18, 3]\n+I[8, 21, 3]\n+I[9, 24, 3]\n");
    free(got);
}

/*
 * ORDER BY a processing-time attribute, then other columns: the rows of one
 * millisecond of the clock come out when the clock passes it, ordered by
 * the other columns. Ids 0-9 arrive at 1 s (one millisecond), 10-19 at 10 s,
 * 20-29 at 25 s (the end of input brings the last ones out); each batch
 * comes out by id % 3, then id descending. At parallelism 2 the two source
 * subtasks interleave their rows, which one millisecond's sort hides.
 */
Test(sql_proctime, order_by_processing_time_then_columns_sorts_each_millisecond, .timeout = 120)
{
    const char *sql = SOURCE_DDL
        "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
        "SELECT id FROM v ORDER BY pt, id % 3, id DESC;\n";
    char want[512];
    size_t k = 0;
    for (int base = 0; base < 30; base += 10)
        for (int m = 0; m < 3; m++)
            for (int id = base + 9; id >= base; id--)
                if (id % 3 == m)
                    k += (size_t)snprintf(want + k, sizeof want - k, "+I[%d]\n", id);
    for (uint32_t par = 1; par <= 2; par++) {
        double last = par == 1 ? 0 : 1000; /* the last id of source subtask 0 is even (stepped_run_n) */
        weir_manual_clock *mc = weir_manual_clock_create(1000);
        sql_run r;
        run_start(&r, sql, mc, par);
        cr_assert(wait_for(r.job, 9000 - last, 0), "ids 0-9 did not reach the sort");
        cr_assert_eq(probe(r.job).written, 0, "rows came out before the clock passed their millisecond");
        weir_manual_clock_set(mc, 10000);
        cr_assert(wait_for(r.job, 19000 - last, 10), "ids 0-9 did not come out when the clock passed 1 s");
        cr_assert_eq(probe(r.job).written, 10, "ids 10-19 came out before the clock passed 10 s");
        weir_manual_clock_set(mc, 25000);
        char *got = run_finish_lines(&r, false);
        weir_manual_clock_destroy(mc);
        cr_assert_str_eq(got, want, "parallelism %u", par);
        free(got);
    }
}

static void expect_plan_error(const char *sql, const char *msg)
{
    weir_sql_job_options opt = {0};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("bad.sql", sql, strlen(sql), &opt, &sj, &err);
    weir_sql_job_destroy(sj);
    cr_assert_neq(rc, 0, "plans: %s", sql);
    cr_assert(strstr(err.message, msg), "unexpected error: %s", err.message);
}

Test(sql_proctime, errors)
{
    expect_plan_error("CREATE TABLE t (a BIGINT, pt AS PROCTIME(), WATERMARK FOR pt AS pt)\n"
                      "  WITH ('connector' = 'datagen', 'number-of-rows' = '1');\n"
                      "SELECT a FROM t;\n",
                      "bad.sql:1:59: error: column 'pt' is a processing-time attribute");
    /* an expression over PROCTIME() is a plain timestamp */
    expect_plan_error("CREATE TABLE t (a BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');\n"
                      "CREATE VIEW v AS SELECT a, PROCTIME() + INTERVAL '1' SECOND AS pt FROM t;\n"
                      "SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(pt), INTERVAL '1' SECOND))\n"
                      "GROUP BY window_start, window_end;\n",
                      "column 'pt' is not a time attribute");
}

/*
 * Processing-time windows over PROCTIME() (a TIMESTAMP_LTZ) align to
 * table.local-time-zone, as in Flink. In Asia/Kolkata (+05:30) an hour
 * window is a local hour: the clock at 00:00:12.345Z is 05:30:12.345 there,
 * in [05:00, 06:00), not in the UTC hour [00:00, 01:00).
 */
Test(sql_proctime, windows_align_to_the_local_time_zone, .timeout = 120)
{
    const char *sql =
        "SET 'table.local-time-zone' = 'Asia/Kolkata';\n"
        "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',\n"
        "  'fields.id.start' = '1', 'fields.id.end' = '10');\n"
        "CREATE VIEW v AS SELECT id, PROCTIME() AS pt FROM src;\n"
        "SELECT COUNT(*), window_start, window_end\n"
        "FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(pt), INTERVAL '1' HOUR))\n"
        "GROUP BY window_start, window_end;\n";
    for (uint32_t p = 1; p <= 2; p++) {
        char *got = frozen_run(sql, 12345, p);
        cr_assert_str_eq(got, "+I[10, 1970-01-01T05:00, 1970-01-01T06:00]\n", "parallelism %u", p);
        free(got);
    }
    /* a local day in New York: sessions too are shown in the zone */
    const char *day =
        "SET 'table.local-time-zone' = 'America/New_York';\n"
        "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',\n"
        "  'fields.id.start' = '1', 'fields.id.end' = '10');\n"
        "CREATE VIEW v AS SELECT id, PROCTIME() AS pt FROM src;\n"
        "SELECT COUNT(*), window_start, window_end FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(pt), INTERVAL '1' DAY))\n"
        "GROUP BY window_start, window_end\n"
        "UNION ALL\n"
        "SELECT COUNT(*), window_start, window_end FROM TABLE(SESSION(TABLE v, DESCRIPTOR(pt), INTERVAL '1' MINUTE))\n"
        "GROUP BY window_start, window_end;\n";
    /* 2024-03-10T06:30Z is 01:30 EST, the day DST starts (23 hours) */
    char *got = frozen_run(day, 1710052200000LL, 1);
    cr_assert_str_eq(got,
                     "+I[10, 2024-03-10T00:00, 2024-03-11T00:00]\n"
                     "+I[10, 2024-03-10T01:30, 2024-03-10T01:31]\n");
    free(got);
}

/*
 * The clock in New York's repeated hour of 2024-11-03 (01:00-02:00 EDT,
 * then again EST from 06:00Z). Half-hour processing-time windows of local
 * time, 10 rows per clock step: ids 0-9 arrive at 05:20Z (01:20 EDT) into
 * [01:00, 01:30). At 05:45Z (01:45 EDT) that window has not ended: the
 * hour's second pass, 06:00Z to 07:00Z, shows 01:00-01:30 again, and Flink
 * registers the later instant of an ambiguous end; ids 10-19 arrive into
 * [01:30, 02:00). At 06:31Z (01:31 EST) [01:00, 01:30) fires; ids 20-29
 * arrive into [01:30, 02:00), which the end of the input fires.
 */
Test(sql_proctime, a_window_ending_in_a_repeated_hour_fires_after_its_second_pass, .timeout = 120)
{
    const char *sql = "SET 'table.local-time-zone' = 'America/New_York';\n" SOURCE_DDL
        "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
        "SELECT COUNT(*), MIN(id), window_start, window_end\n"
        "FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(pt), INTERVAL '30' MINUTE))\n"
        "GROUP BY window_start, window_end;\n";
    const int64_t t0 = 1730611200000LL; /* 2024-11-03T05:20Z */
    weir_manual_clock *mc = weir_manual_clock_create(t0);
    sql_run r;
    run_start(&r, sql, mc, 1);
    cr_assert(wait_for(r.job, 9000, 0), "ids 0-9 did not reach the window");
    weir_manual_clock_set(mc, t0 + 25 * 60000); /* 01:45 EDT */
    cr_assert(wait_for(r.job, 19000, 0), "ids 10-19 did not reach the window");
    cr_assert_eq(probe(r.job).written, 0, "[01:00, 01:30) fired in the first pass of the repeated hour");
    weir_manual_clock_set(mc, t0 + 71 * 60000); /* 06:31Z, 01:31 EST */
    cr_assert(wait_for(r.job, 29000, 1), "[01:00, 01:30) did not fire after the second pass of its end");
    char *got = run_finish(&r);
    weir_manual_clock_destroy(mc);
    cr_assert_str_eq(got,
                     "+I[10, 0, 2024-11-03T01:00, 2024-11-03T01:30]\n"
                     "+I[20, 10, 2024-11-03T01:30, 2024-11-03T02:00]\n");
    free(got);
}

/*
 * CURRENT_TIMESTAMP & co. read the job's clock once per record, as Flink's
 * streaming mode (not once per batch): on a clock that moves a second at
 * every reading, every row of a batch gets its own time, and the functions
 * of one row agree on it.
 */
static int64_t ticking_now(void *ud)
{
    return atomic_fetch_add((_Atomic int64_t *)ud, 1000);
}

/* "YYYY-MM-DD", "HH:MM[:SS[.mmm]]" or both joined by 'T' (an optional 'Z' after): ms since the epoch / midnight. */
static int64_t parse_ms(const char *s)
{
    int y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, ms = 0, n = 0;
    if (strlen(s) >= 10 && s[4] == '-') {
        cr_assert_eq(sscanf(s, "%d-%d-%d%n", &y, &mo, &d, &n), 3, "%s", s);
        s += n;
        if (*s == 'T')
            s++;
    }
    if (*s && *s != 'Z') {
        cr_assert_geq(sscanf(s, "%d:%d%n", &h, &mi, &n), 2, "%s", s);
        s += n;
        if (*s == ':' && sscanf(s, ":%d%n", &sec, &n) == 1)
            s += n;
        if (*s == '.' && sscanf(s, ".%d%n", &ms, &n) == 1)
            s += n;
    }
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = sec};
    return (int64_t)timegm(&tm) * 1000 + ms;
}

Test(sql_proctime, current_timestamp_is_read_per_record, .timeout = 120)
{
    const char *sql =
        "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',\n"
        "  'fields.id.start' = '1', 'fields.id.end' = '20');\n"
        "SELECT id, CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIME,\n"
        "       UNIX_TIMESTAMP() FROM src WHERE id > 0;\n";
    static _Atomic int64_t now = 1700000000000LL; /* 2023-11-14T22:13:20Z */
    sql_run r;
    run_start_ck(&r, sql, (weir_clock){ticking_now, (void *)&now}, 1, NULL);
    char *got = run_finish(&r);
    int64_t at[21] = {0};
    int n = 0;
    for (char *line = got, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        int id;
        char a[40], b[40], c[40], d[40], e[40], f[40];
        long long unix_s;
        cr_assert_eq(sscanf(line, "+I[%d, %39[^,], %39[^,], %39[^,], %39[^,], %39[^,], %39[^,], %lld]", &id, a, b, c,
                            d, e, f, &unix_s),
                     8, "unexpected row %.80s", line);
        cr_assert(id >= 1 && id <= 20 && !at[id]);
        /* one reading per row: CURRENT_TIMESTAMP = NOW(); in UTC LOCALTIMESTAMP shows it, and the date, the
         * time of day and the Unix seconds are its parts */
        int64_t t = parse_ms(a);
        cr_assert_eq(parse_ms(b), t, "row %d: %s vs %s", id, a, b);
        cr_assert_eq(parse_ms(c), t, "row %d: %s vs %s", id, a, c);
        cr_assert_eq(parse_ms(d), t / 86400000 * 86400000, "row %d: %s vs date %s", id, a, d);
        cr_assert_eq(parse_ms(e), t % 86400000 / 1000 * 1000, "row %d: %s vs time %s", id, a, e);
        cr_assert_eq(parse_ms(f), t % 86400000 / 1000 * 1000, "row %d: %s vs time %s", id, a, f);
        cr_assert_eq(unix_s, t / 1000, "row %d: %s vs %lld", id, a, unix_s);
        at[id] = t;
        n++;
    }
    cr_assert_eq(n, 20);
    for (int id = 2; id <= 20; id++)
        cr_assert_lt(at[id - 1], at[id], "rows %d and %d share one reading of the clock", id - 1, id);
    free(got);
}

/* ---- lookup joins: the table is read again once it is lookup.join.cache.ttl old ---- */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* The rows "+I[id, v]" for ids [lo, hi), v the table's value for id % 2 (v0 or v1). */
static size_t lookup_rows(char **rows, size_t n, int lo, int hi, const char *v0, const char *v1)
{
    for (int id = lo; id < hi; id++) {
        char line[64];
        snprintf(line, sizeof line, "+I[%d, %s]", id, id % 2 ? v1 : v0);
        rows[n++] = strdup(line);
    }
    return n;
}

static char *sorted_lines(char **rows, size_t n)
{
    qsort(rows, n, sizeof *rows, cmp_str);
    char *out = calloc(1, n * 64 + 1);
    cr_assert(out);
    for (size_t i = 0; i < n; i++) {
        strcat(out, rows[i]);
        strcat(out, "\n");
        free(rows[i]);
    }
    return out;
}

/*
 * ids 0-9 come at 1 s and are joined with the table as the job read it when
 * it started; the file is rewritten; ids 10-19 come at 10 s. With a TTL of
 * 5 s the table is 9 s old then and is read again, so ids 10-29 see the new
 * values; with the default (60 min, as Flink's filesystem lookup source)
 * every row sees the old ones.
 */
/* hint: an OPTIONS hint after the lookup table's name, or "". */
static char *lookup_run_hinted(const char *ttl_option, const char *hint)
{
    char dir[] = "/tmp/weir-lookup-XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[256], sql[2048];
    snprintf(path, sizeof path, "%s/rates.csv", dir);
    write_text(path, "0,old0\n1,old1\n");
    snprintf(sql, sizeof sql,
             "CREATE TABLE rates (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = '%s',\n"
             "  'format' = 'csv'%s);\n" SOURCE_DDL
             "SELECT s.id, r.v FROM (SELECT id, PROCTIME() AS pt FROM src) s\n"
             "JOIN rates %s FOR SYSTEM_TIME AS OF s.pt AS r ON s.id %% 2 = r.k;\n",
             path, ttl_option, hint);
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    sql_run r;
    run_start(&r, sql, mc, 1);
    cr_assert(wait_for(r.job, 9000, 10), "ids 0-9 were not joined");
    write_text(path, "0,new0\n1,new1\n");
    weir_manual_clock_set(mc, 10000);
    cr_assert(wait_for(r.job, 19000, 20), "ids 10-19 were not joined");
    weir_manual_clock_set(mc, 25000);
    char *out = run_finish(&r);
    weir_manual_clock_destroy(mc);
    unlink(path);
    rmdir(dir);
    return out;
}

static char *lookup_run(const char *ttl_option) { return lookup_run_hinted(ttl_option, ""); }

Test(sql_proctime, lookup_table_is_read_again_after_its_ttl, .timeout = 120)
{
    char *rows[32];
    size_t n = lookup_rows(rows, 0, 0, 10, "old0", "old1");
    n = lookup_rows(rows, n, 10, 30, "new0", "new1");
    char *want = sorted_lines(rows, n);
    char *got = lookup_run(", 'lookup.join.cache.ttl' = '5 s'");
    cr_assert_str_eq(got, want);
    free(got);
    free(want);

    n = lookup_rows(rows, 0, 0, 30, "old0", "old1");
    want = sorted_lines(rows, n);
    got = lookup_run("");
    cr_assert_str_eq(got, want, "the default TTL is an hour");
    free(got);
    free(want);

    /* the TTL from an OPTIONS hint on the lookup table, replacing the table's own */
    n = lookup_rows(rows, 0, 0, 10, "old0", "old1");
    n = lookup_rows(rows, n, 10, 30, "new0", "new1");
    want = sorted_lines(rows, n);
    got = lookup_run_hinted(", 'lookup.join.cache.ttl' = '1 h'", "/*+ OPTIONS('lookup.join.cache.ttl' = '5 s') */");
    cr_assert_str_eq(got, want, "the hinted TTL applies");
    free(got);
    free(want);

    expect_plan_error("CREATE TABLE t (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'x.csv',\n"
                      "  'format' = 'csv', 'lookup.join.cache.ttl' = 'soon');\n"
                      "CREATE TABLE s (id BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen', "
                      "'number-of-rows' = '1');\n"
                      "SELECT s.id, t.v FROM s JOIN t FOR SYSTEM_TIME AS OF s.pt ON s.id = t.k;\n",
                      "bad.sql:2:47: error: invalid lookup.join.cache.ttl 'soon'");
}

/* ---- STATE_TTL hints: per input of a regular join, and of a group aggregation ---- */

/*
 * Two copies of src (a and b), joined on id % 10: each batch (ids 0-9 at
 * 1 s, 10-19 at 10 s, 20-29 at 25 s) holds one row of each key per side.
 * Without a TTL every pair of a key joins (90 rows). With the rows of a
 * living 5 s, a row of a is gone when the next batch comes (9 s and 15 s
 * later), while b's rows stay: a pair joins when a's row came in the same
 * batch as b's or later (60 rows). The hint wins over table.exec.state.ttl
 * for the input it names.
 */
static char *join_ttl_run(const char *set, const char *hint, double first, double second)
{
    char sql[2048];
    snprintf(sql, sizeof sql,
             "%s" SOURCE_DDL
             "CREATE TABLE src2 (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3), WATERMARK FOR ts AS ts) WITH (\n"
             "  'connector' = 'datagen', 'rows-per-second' = '10',\n"
             "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '29');\n"
             "SELECT %s a.id, b.id FROM src a JOIN src2 b ON a.id %% 10 = b.id %% 10;\n",
             set, hint);
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    sql_run r;
    run_start(&r, sql, mc, 1);
    cr_assert(wait_for(r.job, -1e300, first), "the first batch did not join");
    weir_manual_clock_set(mc, 10000);
    cr_assert(wait_for(r.job, -1e300, second), "the second batch did not join");
    weir_manual_clock_set(mc, 25000);
    char *out = run_finish(&r);
    weir_manual_clock_destroy(mc);
    return out;
}

/* The pairs (a, b) of a key whose batches satisfy keep(batch of a, batch of b), as sorted lines. */
static char *join_pairs(bool a_expires)
{
    char *rows[128];
    size_t n = 0;
    for (int a = 0; a < 30; a++)
        for (int b = a % 10; b < 30; b += 10)
            if (!a_expires || a / 10 >= b / 10) {
                char line[64];
                snprintf(line, sizeof line, "+I[%d, %d]", a, b);
                rows[n++] = strdup(line);
            }
    return sorted_lines(rows, n);
}

Test(sql_proctime, state_ttl_hint_per_join_input, .timeout = 120)
{
    char *all = join_pairs(false), *kept = join_pairs(true);
    char *got = join_ttl_run("", "", 10, 40);
    cr_assert_str_eq(got, all, "without a TTL every pair joins");
    free(got);
    got = join_ttl_run("", "/*+ STATE_TTL('a' = '5 s') */", 10, 30);
    cr_assert_str_eq(got, kept, "a's rows expire");
    free(got);
    got = join_ttl_run("SET 'table.exec.state.ttl' = '5 s';\n", "/*+ STATE_TTL('B' = '1 h') */", 10, 30);
    cr_assert_str_eq(got, kept, "b's hinted TTL replaces table.exec.state.ttl, a keeps it");
    free(got);
    free(all);
    free(kept);
}

/* Runs sql at parallelism 1 over the three batches (1 s, 10 s, 25 s), each
 * step once `per_batch` rows per batch reached the sink; the rows, sorted. */
static char *three_batches(const char *sql, double per_batch)
{
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    sql_run r;
    run_start(&r, sql, mc, 1);
    cr_assert(wait_for(r.job, -1e300, per_batch), "the first batch was not counted");
    weir_manual_clock_set(mc, 10000);
    cr_assert(wait_for(r.job, -1e300, 2 * per_batch), "the second batch was not counted");
    weir_manual_clock_set(mc, 25000);
    char *got = run_finish(&r);
    weir_manual_clock_destroy(mc);
    return got;
}

/*
 * COUNT(*) per id % 10 over the three batches: with the aggregation's state
 * living 5 s each batch finds its key's count gone and starts again (+I 1),
 * as Flink's group aggregation does when its state expired.
 */
Test(sql_proctime, state_ttl_hint_on_group_aggregation, .timeout = 120)
{
    const char *sql = SOURCE_DDL "SELECT /*+ STATE_TTL('src' = '5 s') */ id % 10, COUNT(*) FROM src GROUP BY id % 10;\n";
    char *got = three_batches(sql, 10);
    char *rows[32];
    size_t n = 0;
    for (int b = 0; b < 3; b++)
        for (int k = 0; k < 10; k++) {
            char line[64];
            snprintf(line, sizeof line, "+I[%d, 1]", k);
            rows[n++] = strdup(line);
        }
    char *want = sorted_lines(rows, n);
    cr_assert_str_eq(got, want);
    free(got);
    free(want);

    expect_plan_error(SOURCE_DDL "SELECT /*+ STATE_TTL('x' = '1 d') */ id % 10, COUNT(*) FROM src GROUP BY id % 10;\n",
                      "STATE_TTL names 'x', which is not an input table or view");
}

/*
 * COUNT(DISTINCT id % 3) and COUNT(*) of one group over the three batches,
 * with a 5 s TTL, on the heap and on RocksDB: the group's state expires
 * between batches, its distinct values with it, so each batch counts the
 * values 0, 1, 2 again from an insert (+I[0, 1, 1] up to [0, 3, 10]) -
 * none of the previous batch's values is still counted.
 */
Test(sql_proctime, state_ttl_drops_a_groups_distinct_values_with_it, .timeout = 120)
{
    char want_rows[3 * 19][40];
    char *rows[3 * 19];
    size_t n = 0;
    for (int b = 0; b < 3; b++) {
        snprintf(want_rows[n], sizeof want_rows[n], "+I[0, 1, 1]");
        rows[n] = want_rows[n];
        n++;
        for (int k = 2; k <= 10; k++) {
            snprintf(want_rows[n], sizeof want_rows[n], "-U[0, %d, %d]", k - 1 < 3 ? k - 1 : 3, k - 1);
            rows[n] = want_rows[n];
            n++;
            snprintf(want_rows[n], sizeof want_rows[n], "+U[0, %d, %d]", k < 3 ? k : 3, k);
            rows[n] = want_rows[n];
            n++;
        }
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = strdup(rows[i]);
    char *want = sorted_lines(rows, n);
    for (int rocks = 0; rocks < 2; rocks++) {
        char dir[] = "/tmp/weir-ttl-distinct-XXXXXX", sql[1024];
        cr_assert(mkdtemp(dir));
        snprintf(sql, sizeof sql,
                 "%s%s%s" SOURCE_DDL "SET 'table.exec.state.ttl' = '5 s';\n"
                 "SELECT id / 100, COUNT(DISTINCT id %% 3), COUNT(*) FROM src GROUP BY id / 100;\n",
                 rocks ? "SET 'state.backend.type' = 'rocksdb';\nSET 'weir.state.dir' = '" : "", rocks ? dir : "",
                 rocks ? "';\n" : "");
        char *got = three_batches(sql, 19);
        cr_assert_str_eq(got, want, "%s", rocks ? "rocksdb" : "heap");
        free(got);
        char cmd[64];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        cr_assert_eq(system(cmd), 0);
    }
    free(want);
}

/* Visits the records_in metric of the Rank operator (ud: a double). */
static void rank_in_visit(void *ud, const char *name, double value)
{
    size_t n = strlen(name);
    if (n > 18 && !strcmp(name + n - 18, ".Rank.0.records_in"))
        *(double *)ud = value;
}

/* Polls (1 ms steps) until the Rank operator took at least n rows; false on timeout. */
static bool wait_rank_in(weir_job *job, double n)
{
    for (int i = 0; i < GUARD_MS; i++) {
        double in = 0;
        weir_job_metrics(job, rank_in_visit, &in);
        if (in >= n)
            return true;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

/* The whole file at path (NUL-terminated), or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    char chunk[4096];
    size_t got;
    while (mem && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, got, mem);
    fclose(f);
    if (mem)
        fclose(mem);
    return buf;
}

/*
 * A Top-1 per id % 2 with a 1 h state TTL, restored from a checkpoint of a
 * weir that kept every Top-N row whole (tests/data/rank_ttl_whole_rows:
 * its rows written between `from` and `to` of the wall clock, the source
 * at `pos`). The restore re-encodes the kept rows; they keep the stamps of
 * their last write, so they expire 1 h after it, not 1 h after the
 * restore. On a manual clock, 10 rows per step: at to + 30 min (ids pos..)
 * and at from + 1 h - 1 ms (ids pos + 10..) every new row is larger than
 * the kept one of its parity, which is still live: nothing comes out. At
 * to + 1 h the restored rows have expired: the first row of each parity of
 * the third step (ids pos + 20.., 1 s after the second at least) ranks
 * first again (+I). A restore that
 * took its re-encoding for a write keeps them until to + 1 h 30 min and
 * prints nothing. On the heap and on RocksDB.
 */
Test(sql_proctime, rank_rows_reencoded_after_a_restore_keep_their_ttl, .timeout = 180)
{
    const char *fix = WEIR_SOURCE_DIR "/tests/data/rank_ttl_whole_rows";
    char path[1024];
    snprintf(path, sizeof path, "%s/job.sql", fix);
    char *job = read_text(path);
    snprintf(path, sizeof path, "%s/taken", fix);
    char *taken = read_text(path);
    cr_assert(job && taken, "the fixture is not in %s", fix);
    long long from, to, pos;
    cr_assert_eq(sscanf(taken, "%lld %lld %lld", &from, &to, &pos), 3, "taken: %s", taken);
    const int64_t min = 60 * 1000, hour = 60 * min;
    char want[128];
    int64_t third = pos + 20; /* the first id of the third step */
    snprintf(want, sizeof want, "+I[0, %lld]\n+I[1, %lld]\n", (long long)(third + third % 2),
             (long long)(third + 1 - third % 2)); /* sorted */
    for (int rocks = 0; rocks < 2; rocks++) {
        char dir[] = "/tmp/weir-rank-ttl-XXXXXX", cmd[2048], ck_dir[512], restore[512];
        cr_assert(mkdtemp(dir));
        snprintf(cmd, sizeof cmd, "cp -r '%s/ckpt' '%s/fixture'", fix, dir);
        cr_assert_eq(system(cmd), 0);
        snprintf(ck_dir, sizeof ck_dir, "%s/checkpoints", dir);
        snprintf(restore, sizeof restore, "%s/fixture", dir);
        weir_checkpoint_config ck;
        weir_checkpoint_config_init(&ck);
        ck.dir = ck_dir;
        ck.restore = WEIR_RESTORE_PATH;
        ck.restore_path = restore;
        char *sql = malloc(strlen(job) + 1024);
        cr_assert(sql);
        sprintf(sql, "%s%s%s%s", rocks ? "SET 'state.backend.type' = 'rocksdb';\nSET 'weir.state.dir' = '" : "",
                rocks ? dir : "", rocks ? "/state';\n" : "", job);
        weir_manual_clock *mc = weir_manual_clock_create(to + 30 * min);
        sql_run r;
        run_start_ck(&r, sql, weir_manual_clock_get(mc), 1, &ck);
        cr_assert_str_neq(weir_job_restored_from(r.job), "", "the job did not restore the fixture");
        cr_assert(wait_rank_in(r.job, 10), "the first step's rows did not reach the Top-N");
        weir_manual_clock_set(mc, from + hour - 1);
        cr_assert(wait_rank_in(r.job, 20), "the second step's rows did not reach the Top-N");
        weir_manual_clock_set(mc, (to > from + 1000 ? to : from + 1000) + hour); /* a second's rows after the second step */
        cr_assert(wait_rank_in(r.job, 30), "the third step's rows did not reach the Top-N");
        weir_job_stop(r.job);
        char *got = run_finish(&r);
        cr_assert_str_eq(got, want, "%s: the restored rows did not expire 1 h after their last write:\n%s",
                         rocks ? "rocksdb" : "heap", got);
        free(got);
        free(sql);
        weir_manual_clock_destroy(mc);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        cr_assert_eq(system(cmd), 0);
    }
    free(job);
    free(taken);
}

/*
 * A Top-1 per id % 2 (the smallest id) checkpointed without a TTL and
 * restored with one (table.exec.state.ttl 1 h) at a restore time R long
 * after: its kept rows have no stamp, so they live 1 h from R (docs/state.md)
 * - not for ever, and not 1 h from their write. On a manual clock, 10 rows
 * per step: ids 0-9 before the stop; after the restore ids 10-19 (at R)
 * and 20-29 (at R + 1 h - 1 s) rank below the kept rows and print nothing;
 * at R + 1 h the kept rows have expired and ids 30 and 31 rank first (+I).
 * On the heap, on RocksDB and on RocksDB with native (incremental)
 * checkpoints, whose values a state without TTL writes without a stamp
 * (those lived for ever).
 */
Test(sql_proctime, rank_rows_restored_into_a_new_ttl_live_a_ttl_from_the_restore, .timeout = 180)
{
    const char *job = "CREATE TABLE src (id BIGINT) WITH (\n"
                      "  'connector' = 'datagen', 'rows-per-second' = '10', 'scan.parallelism' = '1',\n"
                      "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '999');\n"
                      "SELECT k, id FROM (\n"
                      "  SELECT id % 2 AS k, id, ROW_NUMBER() OVER (PARTITION BY id % 2 ORDER BY id) AS rn\n"
                      "  FROM src) WHERE rn = 1;\n";
    const int64_t hour = 60 * 60 * 1000, restored = 10 * hour;
    const char *backends[] = {"heap", "rocksdb", "rocksdb-incremental"};
    for (int b = 0; b < 3; b++) {
        char dir[] = "/tmp/weir-rank-new-ttl-XXXXXX", cmd[600], ck_dir[512];
        cr_assert(mkdtemp(dir));
        snprintf(ck_dir, sizeof ck_dir, "%s/checkpoints", dir);
        char head[1024] = "";
        if (b)
            snprintf(head, sizeof head, "SET 'state.backend.type' = 'rocksdb';\nSET 'weir.state.dir' = '%s/state';\n",
                     dir);
        char *sql = malloc(strlen(job) + 2048);
        cr_assert(sql);
        weir_checkpoint_config ck;
        weir_checkpoint_config_init(&ck);
        ck.dir = ck_dir;
        ck.restore = WEIR_RESTORE_FRESH;
        ck.incremental = b == 2;
        weir_manual_clock *mc = weir_manual_clock_create(1000);
        sql_run r;
        sprintf(sql, "%s%s", head, job);
        run_start_ck(&r, sql, weir_manual_clock_get(mc), 1, &ck);
        cr_assert(wait_rank_in(r.job, 10), "%s: ids 0-9 did not reach the Top-N", backends[b]);
        /* A checkpoint of the running job (a final one is canonical), then
         * a cancel: the restore reads that checkpoint. */
        uint64_t id = 0;
        cr_assert_eq(weir_job_trigger_checkpoint(r.job, &id), 0);
        cr_assert_eq(weir_job_await_checkpoint(r.job, id, 60000, NULL), 0, "%s: the checkpoint failed",
                     backends[b]);
        weir_job_cancel(r.job);
        char *got = run_finish(&r);
        cr_assert_str_eq(got, "+I[0, 0]\n+I[1, 1]\n", "%s: before the stop:\n%s", backends[b], got);
        free(got);
        sprintf(sql, "%sSET 'table.exec.state.ttl' = '1 h';\n%s", head, job);
        ck.restore = WEIR_RESTORE_LATEST;
        weir_manual_clock_set(mc, restored);
        run_start_ck(&r, sql, weir_manual_clock_get(mc), 1, &ck);
        cr_assert_str_neq(weir_job_restored_from(r.job), "", "%s: the job did not restore", backends[b]);
        cr_assert(wait_rank_in(r.job, 10), "%s: ids 10-19 did not reach the Top-N", backends[b]);
        weir_manual_clock_set(mc, restored + hour - 1000); /* a second's rows before R + 1 h */
        cr_assert(wait_rank_in(r.job, 20), "%s: ids 20-29 did not reach the Top-N", backends[b]);
        weir_manual_clock_set(mc, restored + hour);
        cr_assert(wait_rank_in(r.job, 30), "%s: ids 30-39 did not reach the Top-N", backends[b]);
        weir_job_stop(r.job);
        got = run_finish(&r);
        cr_assert_str_eq(got, "+I[0, 30]\n+I[1, 31]\n",
                         "%s: the restored rows did not expire 1 h after the restore:\n%s", backends[b], got);
        free(got);
        free(sql);
        weir_manual_clock_destroy(mc);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        cr_assert_eq(system(cmd), 0);
    }
}

/*
 * MATCH_RECOGNIZE ordered by a processing-time attribute: rows are matched
 * in the order they arrive, and WITHIN measures the job clock. Ids 0-9
 * arrive at 1 s, 10-19 at 10 s, 20-29 at 25 s. A is an id ending in 3 or
 * 8, C one ending in 5 or 2, B*? whatever lies between: without WITHIN
 * every A meets the next C - (3, 5), (8, 12), (13, 15), (18, 22), (23, 25);
 * WITHIN 5 s drops (8, 12) (9 s of the clock apart) and (18, 22) (15 s),
 * though their event times (id seconds) are 4 s apart.
 */
Test(sql_proctime, match_recognize_by_processing_time_takes_arrival_order_and_the_clock, .timeout = 120)
{
    static const char *const within[2] = {"", " WITHIN INTERVAL '5' SECOND"};
    static const char *const want[2] = {
        "+I[13, 15]\n+I[18, 22]\n+I[23, 25]\n+I[3, 5]\n+I[8, 12]\n", /* sorted as strings */
        "+I[13, 15]\n+I[23, 25]\n+I[3, 5]\n"};
    for (int w = 0; w < 2; w++) {
        char sql[2048];
        snprintf(sql, sizeof sql,
                 SOURCE_DDL "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
                            "SELECT * FROM v MATCH_RECOGNIZE (ORDER BY pt MEASURES FIRST(A.id) AS a, LAST(C.id) AS c\n"
                            "  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B*? C)%s\n"
                            "  DEFINE A AS A.id %% 10 IN (3, 8), C AS C.id %% 10 IN (5, 2));\n",
                 within[w]);
        weir_manual_clock *mc = weir_manual_clock_create(1000);
        sql_run r;
        run_start(&r, sql, mc, 1);
        cr_assert(wait_for(r.job, 9000, 1), "ids 0-9 did not reach the match");
        weir_manual_clock_set(mc, 10000);
        cr_assert(wait_for(r.job, 19000, w ? 2 : 3), "ids 10-19 did not reach the match");
        weir_manual_clock_set(mc, 25000);
        char *got = run_finish(&r);
        weir_manual_clock_destroy(mc);
        cr_assert_str_eq(got, want[w], "%s", within[w]);
        free(got);
    }
}

/* MATCH_PROCTIME(): the job clock's time when the match is emitted, a
 * processing-time attribute that a window over the result takes. Pairs
 * (0, 1), (2, 3), ... of ids that arrive at 1 s, 10 s and 25 s, matched by
 * event time: a row comes out once the watermark (the last id's) passes
 * it, so at 1 s the pairs up to (6, 7), at 10 s (8, 9) to (16, 17), at 25
 * s the rest. */
Test(sql_proctime, match_proctime_is_the_clock_when_the_match_comes_out, .timeout = 120)
{
    const char *sql = SOURCE_DDL
        "CREATE VIEW v AS SELECT *, PROCTIME() AS pt FROM src;\n"
        "CREATE VIEW m AS SELECT * FROM v MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a, MATCH_PROCTIME() AS mpt\n"
        "  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) DEFINE B AS B.id = A.id + 1);\n"
        "SELECT COUNT(*), MIN(a), window_start FROM TABLE(TUMBLE(TABLE m, DESCRIPTOR(mpt), INTERVAL '5' SECOND))\n"
        "GROUP BY window_start, window_end;\n";
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    sql_run r;
    run_start(&r, sql, mc, 1);
    cr_assert(wait_for(r.job, 9000, 0), "ids 0-9 did not reach the match");
    weir_manual_clock_set(mc, 10000);
    cr_assert(wait_for(r.job, 19000, 1), "the window of the first matches did not fire");
    weir_manual_clock_set(mc, 25000);
    char *got = run_finish(&r);
    weir_manual_clock_destroy(mc);
    cr_assert_str_eq(got, "+I[4, 0, 1970-01-01T00:00]\n+I[5, 8, 1970-01-01T00:00:10]\n"
                          "+I[6, 18, 1970-01-01T00:00:25]\n");
    free(got);
}
