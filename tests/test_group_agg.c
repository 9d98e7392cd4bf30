/*
 * Updating group aggregation with mini-batch (table.exec.mini-batch.enabled):
 * the changelog folds to the same table as without it, at every batch size,
 * with fewer rows; at batch size 1 it is the very same changelog.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/job.h"
#include "weir/planner.h"

typedef struct rows {
    char **v;
    size_t n, cap;
} rows;

static void rows_push(rows *r, char *s)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        cr_assert(r->v);
    }
    r->v[r->n++] = s;
}

static void rows_free(rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
    memset(r, 0, sizeof *r);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static uint64_t test_seed(void)
{
    static uint64_t seed;
    if (!seed) {
        const char *s = getenv("GROUP_AGG_SEED");
        seed = s ? strtoull(s, NULL, 10) : 11;
        fprintf(stderr, "test_group_agg: seed %" PRIu64 " (set GROUP_AGG_SEED to change)\n", seed);
    }
    return seed;
}

/*
 * Three updating aggregations over Nexmark bids: many changes per key per
 * batch (13 keys), an aggregation over an updating input (its groups empty
 * out: -D rows), string keys with COUNT(DISTINCT) and MIN, and
 * COUNT(DISTINCT) over an updating input (values retracted and re-added).
 */
static char *script(void)
{
    static const char *text =
        "CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,\n"
        "  `dateTime` TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid',\n"
        "  'events.num' = '20000', 'first-event.rate' = '10000000', 'next-event.rate' = '10000000',\n"
        "  'seed' = '%" PRIu64 "');\n"
        "SELECT 'a', auction %% 13 AS k, COUNT(*) AS n, SUM(price) AS s, MAX(price) AS m FROM bid GROUP BY auction %% 13;\n"
        "SELECT 'b', n, COUNT(*) AS c FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) GROUP BY n;\n"
        "SELECT 'c', channel, COUNT(DISTINCT bidder) AS d, MIN(price) AS lo FROM bid GROUP BY channel;\n"
        "SELECT 'd', n %% 4 AS k, COUNT(DISTINCT a7) AS d7, COUNT(DISTINCT n) AS dn, COUNT(*) AS c,\n"
        "  COUNT(DISTINCT a7) FILTER (WHERE n > 2) AS d7f, COUNT(*) FILTER (WHERE a7 < 3) AS cf FROM\n"
        "  (SELECT auction %% 7 AS a7, auction, COUNT(*) AS n FROM bid GROUP BY auction %% 7, auction) GROUP BY n %% 4;\n";
    char *s = NULL;
    cr_assert(asprintf(&s, text, test_seed()) > 0);
    return s;
}

/* Runs the script; the printed changelog rows (subtask prefix removed) go to out. */
static void run_ttl(const char *mini, const char *batch, const char *par, const char *ttl, rows *out)
{
    char *buf = NULL, *text = script();
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert(mem);
    const char *keys[] = {"table.exec.mini-batch.enabled", "weir.batch-size", "parallelism.default",
                          "table.exec.state.ttl"};
    const char *vals[] = {mini, batch, par, ttl};
    weir_sql_job_options opt = {.set_keys = keys, .set_values = vals, .n_set = ttl ? 4 : 3, .print_out = mem};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("group_agg.sql", text, strlen(text), &opt, &sj, &err);
    cr_assert_eq(rc, 0, "does not plan: %s", err.message);
    weir_job *job = weir_sql_job_graph(sj);
    cr_assert(job);
    rc = weir_job_run(job);
    cr_assert_eq(rc, 0, "mini-batch %s, batch size %s: %s", mini, batch, weir_job_error(job));
    weir_sql_job_destroy(sj);
    fclose(mem);
    free(text);
    memset(out, 0, sizeof *out);
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        char *s = line, *gt = strstr(s, "> ");
        if (gt && gt > s && strspn(s, "0123456789") == (size_t)(gt - s))
            s = gt + 2;
        if (*s)
            rows_push(out, strdup(s));
    }
    free(buf);
}

static void run(const char *mini, const char *batch, const char *par, rows *out)
{
    run_ttl(mini, batch, par, NULL, out);
}

/* Folds a changelog into its table (sorted): +I/+U add a row, -U/-D remove one that must be there. */
static void fold(const rows *log, rows *table)
{
    memset(table, 0, sizeof *table);
    for (size_t i = 0; i < log->n; i++) {
        const char *r = log->v[i];
        cr_assert(strlen(r) > 2 && (r[0] == '+' || r[0] == '-'), "not a changelog row: %s", r);
        if (r[0] == '+') {
            rows_push(table, strdup(r + 2));
            continue;
        }
        size_t k = table->n;
        while (k > 0 && strcmp(table->v[k - 1], r + 2))
            k--;
        cr_assert(k > 0, "retraction of a row that is not in the table: %s", r);
        free(table->v[k - 1]);
        table->v[k - 1] = table->v[--table->n];
    }
    qsort(table->v, table->n, sizeof *table->v, cmp_str);
}

static void assert_same(const rows *a, const rows *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: %zu rows, expected %zu", what, a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        cr_assert_str_eq(a->v[i], b->v[i], "%s: row %zu differs", what, i);
}

static size_t count_kind(const rows *log, char sign, char kind, char tag)
{
    size_t n = 0;
    for (size_t i = 0; i < log->n; i++)
        n += log->v[i][0] == sign && log->v[i][1] == kind && log->v[i][3] == tag;
    return n;
}

Test(group_agg, mini_batch_folds_to_the_same_table_with_fewer_updates)
{
    rows ref_log, ref;
    run("false", "1024", "1", &ref_log);
    fold(&ref_log, &ref);
    cr_assert_gt(ref.n, 13, "the expected table is too small to prove anything");
    /* the test covers deletions: groups of the second query empty out */
    cr_assert_gt(count_kind(&ref_log, '-', 'D', 'b'), 0);
    static const char *sizes[] = {"1", "7", "1024"};
    for (size_t i = 0; i < 3; i++) {
        for (const char *par = "1"; par; par = !strcmp(par, "1") ? "2" : NULL) {
            rows log, table;
            char what[64];
            snprintf(what, sizeof what, "mini-batch, batch size %s, parallelism %s", sizes[i], par);
            run("true", sizes[i], par, &log);
            fold(&log, &table);
            assert_same(&table, &ref, what);
            if (!strcmp(sizes[i], "1024") && !strcmp(par, "1")) {
                /* 20000 events in batches of 1024 rows: the 13 groups of the first query change
                 * once per batch at most, instead of once per bid */
                size_t with = count_kind(&log, '+', 'U', 'a'), without = count_kind(&ref_log, '+', 'U', 'a');
                cr_assert_lt(with * 10, without, "%s: %zu updates of query a, %zu without mini-batch", what, with,
                             without);
                cr_assert_lt(log.n, ref_log.n);
            }
            rows_free(&log);
            rows_free(&table);
        }
    }
    rows_free(&ref_log);
    rows_free(&ref);
}

/* With one row per batch there is nothing to fold: the same changelog, row for row. */
Test(group_agg, mini_batch_of_one_row_is_the_plain_changelog)
{
    rows a, b;
    run("false", "1", "1", &a);
    run("true", "1", "1", &b);
    qsort(a.v, a.n, sizeof *a.v, cmp_str);
    qsort(b.v, b.n, sizeof *b.v, cmp_str);
    assert_same(&b, &a, "batch size 1");
    rows_free(&a);
    rows_free(&b);
}

Test(group_agg, mini_batch_option_is_checked)
{
    const char *text = "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');\n"
                       "SELECT a, COUNT(*) FROM t GROUP BY a;\n";
    const char *keys[] = {"table.exec.mini-batch.enabled"}, *vals[] = {"maybe"};
    weir_sql_job_options opt = {.set_keys = keys, .set_values = vals, .n_set = 1};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("bad.sql", text, strlen(text), &opt, &sj, &err);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err.message, "table.exec.mini-batch.enabled"), "%s", err.message);
    weir_sql_job_destroy(sj);
}

/*
 * Without state TTL a COUNT(DISTINCT)'s values live in map state, one entry
 * per value; with TTL they stay inside the accumulator. Both must give the
 * same changelog, row for row, over inputs that retract values (query d:
 * an auction moving from one count to the next retracts its old n and a7),
 * also where two COUNT(DISTINCT a7)s, one with a FILTER, share a view.
 */
Test(group_agg, distinct_values_in_map_state_give_the_accumulator_changelog)
{
    static const char *sizes[] = {"1", "64"};
    for (size_t i = 0; i < 2; i++) {
        rows a, b;
        run_ttl("false", sizes[i], "1", NULL, &a);
        run_ttl("false", sizes[i], "1", "1000 d", &b);
        cr_assert_gt(count_kind(&a, '-', 'U', 'd'), 100, "query d does not retract enough to prove anything");
        qsort(a.v, a.n, sizeof *a.v, cmp_str);
        qsort(b.v, b.n, sizeof *b.v, cmp_str);
        assert_same(&a, &b, sizes[i]);
        rows_free(&a);
        rows_free(&b);
    }
}
