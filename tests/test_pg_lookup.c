/*
 * tests/test_pg_lookup.c - the lookup join against a 'connector' = 'jdbc'
 * table queried by key, on a manual clock, against a PostgreSQL server each
 * test starts (tests/support/pg_server.sh) and stops.
 *
 * The stream is a datagen sequence at 10 rows per second of the manual
 * clock: ids 0-9 at 1 s, 10-19 at 3 s, 20-29 at 7 s (one second of rows
 * at most per step). Each id looks up key id % 3. Between the steps the
 * test changes the dimension table; whether a batch sees the change says
 * whether the cache served it. The test waits for rows to reach the sink
 * (the job's metrics) before it moves the clock; nothing sleeps to wait
 * for a result.
 */
#include <criterion/criterion.h>
#ifdef WEIR_HAVE_POSTGRES
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/harness.h"
#include "weir/planner.h"
#include "weir/weir.h"

static char g_dir[256];
static char g_port[16];

static void pg_up(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-pg-lookup-XXXXXX");
    cr_assert(mkdtemp(g_dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "bash -c '. %s/tests/support/pg_server.sh && pg_start %s > %s/start.log 2>&1 "
             "&& echo $PGPORT > %s/port'",
             WEIR_SOURCE_DIR, g_dir, g_dir, g_dir);
    cr_assert_eq(system(cmd), 0, "cannot start PostgreSQL (see %s/start.log)", g_dir);
    char path[300];
    snprintf(path, sizeof path, "%s/port", g_dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    cr_assert(fgets(g_port, sizeof g_port, f));
    fclose(f);
    g_port[strcspn(g_port, "\n")] = 0;
}

static void pg_down(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "bash -c '. %s/tests/support/pg_server.sh && PG_DIR=%s && pg_stop'; rm -rf %s",
             WEIR_SOURCE_DIR, g_dir, g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_pg_lookup: stopping PostgreSQL in %s failed\n", g_dir);
}

static void sql(const char *q)
{
    char ci[128];
    snprintf(ci, sizeof ci, "host=127.0.0.1 port=%s user=postgres dbname=postgres", g_port);
    PGconn *c = PQconnectdb(ci);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, q);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", q,
              PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
}

typedef struct probe_t {
    double written;
    double queries;
} probe_t;

static void visit(void *ud, const char *name, double value)
{
    probe_t *p = ud;
    size_t n = strlen(name);
    if (!strcmp(name, "job.records_written"))
        p->written = value;
    if (n > 14 && !strcmp(name + n - 14, "lookup_queries"))
        p->queries += value;
}

static probe_t probe(weir_job *job)
{
    probe_t p = {0, 0};
    weir_job_metrics(job, visit, &p);
    return p;
}

static bool wait_written(weir_job *job, double n)
{
    for (int i = 0; i < 30000; i++) {
        if (probe(job).written >= n)
            return true;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/*
 * Runs the job over the clock steps 1 s, 3 s, 7 s; before each of the last
 * two steps runs the SQL in change[0] / change[1] on the server. Returns the
 * printed rows sorted, one a line; *queries gets the lookups made.
 */
static char *stepped(const char *with, const char *join, const char *change[2], double *queries)
{
    char text[4096];
    snprintf(text, sizeof text,
             "CREATE TABLE src (id BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen',\n"
             "  'rows-per-second' = '10', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',\n"
             "  'fields.id.end' = '29');\n"
             "CREATE TABLE dim (k BIGINT, name STRING) WITH ('connector' = 'jdbc',\n"
             "  'url' = 'jdbc:postgresql://127.0.0.1:%s/postgres', 'table-name' = 'public.dim',\n"
             "  'username' = 'postgres'%s);\n"
             "SELECT s.id, d.name FROM src AS s %s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d\n"
             "  ON s.id %% 3 = d.k;\n",
             g_port, with, join);
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert(mem);
    const char *keys[] = {"parallelism.default"}, *vals[] = {"1"};
    weir_sql_job_options opt = {
        .set_keys = keys, .set_values = vals, .n_set = 1, .clock = weir_manual_clock_get(mc), .print_out = mem};
    weir_error err = {0};
    weir_sql_job *sj;
    int rc = weir_sql_job_create("lookup.sql", text, strlen(text), &opt, &sj, &err);
    cr_assert_eq(rc, 0, "does not plan: %s", err.message);
    weir_job *job = weir_sql_job_graph(sj);
    cr_assert_eq(weir_job_start(job), 0);
    bool inner = !strcmp(join, "INNER");
    /* an inner join drops the ids of key 2 while it is missing: 3 of each 10 */
    cr_assert(wait_written(job, inner ? 6 : 10), "ids 0-9 did not reach the sink");
    sql(change[0]);
    weir_manual_clock_set(mc, 3000);
    cr_assert(wait_written(job, inner ? 12 : 20), "ids 10-19 did not reach the sink");
    sql(change[1]);
    weir_manual_clock_set(mc, 7000);
    cr_assert_eq(weir_job_wait(job), 0, "the job failed: %s", weir_job_error(job));
    *queries = probe(job).queries;
    weir_sql_job_destroy(sj);
    fclose(mem);
    weir_manual_clock_destroy(mc);
    char *rows[64];
    size_t n = 0;
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        line = th_print_row(line);
        cr_assert_lt(n, 64);
        rows[n++] = line;
    }
    qsort(rows, n, sizeof *rows, cmp_str);
    char *out = calloc(1, len + 2);
    cr_assert(out);
    for (size_t i = 0; i < n; i++) {
        strcat(out, rows[i]);
        strcat(out, "\n");
    }
    free(buf);
    return out;
}

/* The rows expected: id with the name its key had at its step. */
static char *expected(const char *names[3][3], bool inner)
{
    char *rows[30];
    size_t n = 0;
    for (int id = 0; id < 30; id++) {
        const char *nm = names[id / 10][id % 3];
        if (!nm && inner)
            continue;
        char *r = malloc(64);
        snprintf(r, 64, "+I[%d, %s]", id, nm ? nm : "null");
        rows[n++] = r;
    }
    qsort(rows, n, sizeof *rows, cmp_str);
    char *out = calloc(1, 64 * 30);
    for (size_t i = 0; i < n; i++) {
        strcat(out, rows[i]);
        strcat(out, "\n");
        free(rows[i]);
    }
    return out;
}

static const char *SETUP = "CREATE TABLE dim (k BIGINT PRIMARY KEY, name TEXT);"
                           "INSERT INTO dim VALUES (0, 'a0'), (1, 'a1')";
static const char *CHANGES[2] = {"UPDATE dim SET name = 'b0' WHERE k = 0; INSERT INTO dim VALUES (2, 'b2')",
                                 "UPDATE dim SET name = 'c1' WHERE k = 1"};

Test(pg_lookup, partial_cache_serves_until_expire_after_write, .timeout = 180)
{
    pg_up();
    sql(SETUP);
    double q;
    /* cached at 1 s, expired at 6 s: the step at 3 s still sees a0 and no
     * key 2 (a missing key is cached too), the step at 7 s the changes */
    char *got = stepped(",\n  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-write' = '5 s',\n"
                        "  'lookup.partial-cache.max-rows' = '100'",
                        "LEFT", CHANGES, &q);
    const char *names[3][3] = {{"a0", "a1", NULL}, {"a0", "a1", NULL}, {"b0", "c1", "b2"}};
    char *want = expected(names, false);
    cr_expect_str_eq(got, want);
    cr_expect_eq(q, 2, "one query per batch that missed the cache: %g", q);
    free(got);
    free(want);
    pg_down();
}

Test(pg_lookup, no_cache_sees_every_change_and_inner_drops_missing_keys, .timeout = 180)
{
    pg_up();
    sql(SETUP);
    double q;
    char *got = stepped("", "INNER", CHANGES, &q);
    const char *names[3][3] = {{"a0", "a1", NULL}, {"b0", "a1", "b2"}, {"b0", "c1", "b2"}};
    char *want = expected(names, true);
    cr_expect_str_eq(got, want);
    cr_expect_eq(q, 3, "one query per batch: %g", q);
    free(got);
    free(want);
    pg_down();
}

Test(pg_lookup, missing_keys_not_cached_and_the_older_ttl_options, .timeout = 180)
{
    pg_up();
    sql(SETUP);
    double q;
    /* lookup.cache.max-rows + lookup.cache.ttl turn the cache on (10 s: never
     * expires here); a missing key is asked again when not cached */
    char *got = stepped(",\n  'lookup.cache.max-rows' = '100', 'lookup.cache.ttl' = '10 s',\n"
                        "  'lookup.partial-cache.cache-missing-key' = 'false'",
                        "LEFT", CHANGES, &q);
    const char *names[3][3] = {{"a0", "a1", NULL}, {"a0", "a1", "b2"}, {"a0", "a1", "b2"}};
    char *want = expected(names, false);
    cr_expect_str_eq(got, want);
    cr_expect_eq(q, 2, "key 2 asked again at 3 s, nothing at 7 s: %g", q);
    free(got);
    free(want);
    pg_down();
}
#else
Test(pg_lookup, needs_libpq) { cr_skip("weir is built without libpq"); }
#endif
