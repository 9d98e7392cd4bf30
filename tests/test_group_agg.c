/*
 * Updating group aggregation with mini-batch (table.exec.mini-batch.enabled):
 * the changelog folds to the same table as without it, at every batch size,
 * with fewer rows; at batch size 1 it is the very same changelog. And
 * COUNT(DISTINCT) values in map state (with a bounded cache in front, on
 * the heap and RocksDB) give the changelog of the values kept in the
 * accumulator.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "weir/job.h"
#include "weir/key.h"
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
 * Updating aggregations over Nexmark bids: many changes per key per
 * batch (13 keys), an aggregation over an updating input (its groups empty
 * out: -D rows), string keys with COUNT(DISTINCT) and MIN, COUNT(DISTINCT)
 * over an updating input (values retracted and re-added), and string
 * results over an updating input, long ones and NULLs among them (a
 * group's old result kept beside its int64 ones until its -U is written).
 */
static char *script_n(unsigned events)
{
    static const char *text =
        "CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,\n"
        "  `dateTime` TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid',\n"
        "  'events.num' = '%u', 'first-event.rate' = '10000000', 'next-event.rate' = '10000000',\n"
        "  'seed' = '%" PRIu64 "');\n"
        "SELECT 'a', auction %% 13 AS k, COUNT(*) AS n, SUM(price) AS s, MAX(price) AS m FROM bid GROUP BY auction %% 13;\n"
        "SELECT 'b', n, COUNT(*) AS c FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) GROUP BY n;\n"
        "SELECT 'c', channel, COUNT(DISTINCT bidder) AS d, MIN(price) AS lo FROM bid GROUP BY channel;\n"
        "SELECT 'd', n %% 4 AS k, COUNT(DISTINCT a7) AS d7, COUNT(DISTINCT n) AS dn, COUNT(*) AS c,\n"
        "  COUNT(DISTINCT a7) FILTER (WHERE n > 2) AS d7f, COUNT(*) FILTER (WHERE a7 < 3) AS cf FROM\n"
        "  (SELECT auction %% 7 AS a7, auction, COUNT(*) AS n FROM bid GROUP BY auction %% 7, auction) GROUP BY n %% 4;\n"
        "SELECT 'e', n %% 3 AS k, MAX(ch) AS hi, MIN(ch) FILTER (WHERE n > 3) AS lo, MIN(u) AS u, COUNT(*) AS c FROM\n"
        "  (SELECT auction, MAX(channel) AS ch, MAX(url) AS u, COUNT(*) AS n FROM bid GROUP BY auction) GROUP BY n %% 3;\n";
    char *s = NULL;
    cr_assert(asprintf(&s, text, events, test_seed()) > 0);
    return s;
}

/* The COUNT(DISTINCT) cache's metrics over the job's subtasks: evictions summed, the largest peak. */
typedef struct cache_metrics {
    double evictions, peak;
} cache_metrics;

static void cache_metric(void *ud, const char *name, double value)
{
    cache_metrics *m = ud;
    size_t n = strlen(name);
    if (n > 25 && !strcmp(name + n - 25, ".distinct_cache_evictions"))
        m->evictions += value;
    else if (n > 26 && !strcmp(name + n - 26, ".distinct_cache_peak_bytes") && value > m->peak)
        m->peak = value;
}

/*
 * Runs the script with mini-batch, batch size and parallelism, and the
 * extra SET keys (n_extra); the printed changelog rows (subtask prefix
 * removed) go to out, the cache's metrics to m (when not NULL).
 */
static void run_with(unsigned events, const char *mini, const char *batch, const char *par,
                     const char *const *extra_keys, const char *const *extra_vals, size_t n_extra, rows *out,
                     cache_metrics *m)
{
    char *buf = NULL, *text = script_n(events);
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert(mem);
    const char *keys[8] = {"table.exec.mini-batch.enabled", "weir.batch-size", "parallelism.default"};
    const char *vals[8] = {mini, batch, par};
    cr_assert(n_extra <= 5);
    for (size_t i = 0; i < n_extra; i++) {
        keys[3 + i] = extra_keys[i];
        vals[3 + i] = extra_vals[i];
    }
    weir_sql_job_options opt = {.set_keys = keys, .set_values = vals, .n_set = 3 + n_extra, .print_out = mem};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("group_agg.sql", text, strlen(text), &opt, &sj, &err);
    cr_assert_eq(rc, 0, "does not plan: %s", err.message);
    weir_job *job = weir_sql_job_graph(sj);
    cr_assert(job);
    rc = weir_job_run(job);
    cr_assert_eq(rc, 0, "mini-batch %s, batch size %s: %s", mini, batch, weir_job_error(job));
    if (m) {
        memset(m, 0, sizeof *m);
        weir_job_metrics(job, cache_metric, m);
    }
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

static void run_ttl(const char *mini, const char *batch, const char *par, const char *ttl, rows *out)
{
    const char *key = "table.exec.state.ttl";
    /* GROUP_AGG_EVENTS: fewer events (the sanitizer run: 8000) */
    const char *events = getenv("GROUP_AGG_EVENTS");
    run_with(events ? (unsigned)strtoul(events, NULL, 10) : 20000, mini, batch, par, &key, &ttl, ttl ? 1 : 0,
             out, NULL);
}

static void run(const char *mini, const char *batch, const char *par, rows *out)
{
    run_ttl(mini, batch, par, NULL, out);
}

/*
 * Folds a changelog into its table (sorted): +I/+U add a row, -U/-D remove
 * one that must be there. A row and how many times the table holds it sit
 * in an open-addressing hash (a changelog has tens of thousands of rows: a
 * scan of the table per retraction made the sanitizer run take minutes).
 */
typedef struct held {
    const char *row; /* NULL: a free slot */
    size_t n;
} held;

static void fold(const rows *log, rows *table)
{
    memset(table, 0, sizeof *table);
    size_t cap = 16;
    while (cap < 2 * log->n)
        cap *= 2;
    held *h = calloc(cap, sizeof *h);
    cr_assert(h);
    for (size_t i = 0; i < log->n; i++) {
        const char *r = log->v[i];
        cr_assert(strlen(r) > 2 && (r[0] == '+' || r[0] == '-'), "not a changelog row: %s", r);
        size_t k = weir_key_hash(r + 2, strlen(r + 2)) & (cap - 1);
        while (h[k].row && strcmp(h[k].row, r + 2))
            k = (k + 1) & (cap - 1);
        if (r[0] == '+') {
            h[k].row = r + 2;
            h[k].n++;
            continue;
        }
        cr_assert(h[k].row && h[k].n > 0, "retraction of a row that is not in the table: %s", r);
        h[k].n--;
    }
    for (size_t k = 0; k < cap; k++)
        for (size_t j = 0; j < h[k].n; j++)
            rows_push(table, strdup(h[k].row));
    free(h);
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

/*
 * An unchanged result emits nothing: no query's -U is followed by its own
 * +U of the same row (one sink subtask: a query's rows in order). Returns
 * the -U rows seen, to show there were updates to judge.
 */
static size_t assert_no_idle_updates(const rows *log, const char *what)
{
    /* next[i]: the next row of row i's query (log->n: none) */
    size_t *next = malloc((log->n + 1) * sizeof *next), last[256];
    cr_assert(next);
    for (size_t t = 0; t < 256; t++)
        last[t] = log->n;
    for (size_t i = log->n; i-- > 0;) {
        unsigned char tag = (unsigned char)log->v[i][3];
        next[i] = last[tag];
        last[tag] = i;
    }
    size_t n = 0;
    for (size_t i = 0; i < log->n; i++) {
        const char *r = log->v[i];
        if (r[0] != '-' || r[1] != 'U')
            continue;
        n++;
        size_t j = next[i];
        cr_assert(j == log->n || strcmp(log->v[j] + 2, r + 2) || log->v[j][0] != '+',
                  "%s: an update that changes nothing: %s", what, r);
    }
    free(next);
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
    cr_assert_gt(assert_no_idle_updates(&ref_log, "without mini-batch"), 100);
    static const char *sizes[] = {"1", "7", "1024"};
    for (size_t i = 0; i < 3; i++) {
        for (const char *par = "1"; par; par = !strcmp(par, "1") ? "2" : NULL) {
            rows log, table;
            char what[64];
            snprintf(what, sizeof what, "mini-batch, batch size %s, parallelism %s", sizes[i], par);
            run("true", sizes[i], par, &log);
            fold(&log, &table);
            assert_same(&table, &ref, what);
            if (!strcmp(par, "1"))
                cr_assert_gt(assert_no_idle_updates(&log, what), 10);
            if (!strcmp(sizes[i], "1024") && !strcmp(par, "1")) {
                /* 20000 events (8000) in batches of 1024 rows: the 13 groups of the first query change
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

/*
 * The cache of COUNT(DISTINCT) values in front of map state is bounded
 * (weir.distinct-cache.size): a job whose values outgrow it writes them to
 * map state and forgets them, then reads each back when a row brings it
 * again (query c's groups hold hundreds of bidders: read value by value;
 * query d's a handful: loaded whole) - on the heap and on RocksDB, where
 * the values then live on disk. The changelog is the accumulator's, row
 * for row, and the cache never held much more than its bound plus one
 * batch.
 */
/* Without weir.distinct-cache.size the bound depends on the backend: none on
 * the in-memory one (its state is in memory too), the default on RocksDB.
 * The default is lowered to 2 KiB here so that a small job outgrows it. */
Test(group_agg, the_default_distinct_cache_bound_depends_on_the_backend)
{
    rows ref;
    run_with(8000, "false", "16", "1", NULL, NULL, 0, &ref, NULL);
    qsort(ref.v, ref.n, sizeof *ref.v, cmp_str);
    uint64_t saved = weir__distinct_cache_default;
    weir__distinct_cache_default = 2048;
    static const char *backends[] = {"hashmap", "rocksdb"};
    for (size_t b = 0; b < 2; b++) {
        char dir[] = "/tmp/weir-group-agg-XXXXXX";
        cr_assert(mkdtemp(dir));
        const char *keys[] = {"state.backend.type", "weir.state.dir"};
        const char *vals[] = {backends[b], dir};
        rows a;
        cache_metrics m;
        run_with(8000, "false", "16", "1", keys, vals, 2, &a, &m);
        qsort(a.v, a.n, sizeof *a.v, cmp_str);
        assert_same(&a, &ref, backends[b]);
        if (b == 0) {
            cr_assert_eq(m.evictions, 0, "in memory: the cache was emptied %.0f times", m.evictions);
            cr_assert_gt(m.peak, 16 * 2048.0, "in memory: the cache held %.0f bytes", m.peak);
        } else {
            cr_assert_gt(m.evictions, 10, "RocksDB: the cache was emptied %.0f times", m.evictions);
        }
        rows_free(&a);
        char cmd[64];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        cr_assert_eq(system(cmd), 0);
    }
    weir__distinct_cache_default = saved;
    rows_free(&ref);
}

Test(group_agg, distinct_values_outgrowing_the_cache_live_in_state)
{
    static const char *sizes[] = {"16"};
    static const char *backends[] = {"hashmap", "rocksdb"};
    for (size_t i = 0; i < 1; i++) {
        rows ref;
        double peak[2];
        const char *ttl_key = "table.exec.state.ttl", *ttl = "1000 d";
        run_with(8000, "false", sizes[i], "1", &ttl_key, &ttl, 1, &ref, NULL);
        qsort(ref.v, ref.n, sizeof *ref.v, cmp_str);
        for (size_t b = 0; b < 2; b++) {
            char dir[] = "/tmp/weir-group-agg-XXXXXX";
            cr_assert(mkdtemp(dir));
            const char *keys[] = {"weir.distinct-cache.size", "state.backend.type", "weir.state.dir"};
            const char *vals[] = {"2 kb", backends[b], dir};
            rows a;
            cache_metrics m;
            char what[96];
            snprintf(what, sizeof what, "batch size %s, %s, a 2 kb cache", sizes[i], backends[b]);
            run_with(8000, "false", sizes[i], "1", keys, vals, 3, &a, &m);
            qsort(a.v, a.n, sizeof *a.v, cmp_str);
            assert_same(&a, &ref, what);
            cr_assert_gt(m.evictions, 10, "%s: the cache was emptied %.0f times", what, m.evictions);
            /* over the bound by one batch at most: a row adds a group and a value in each view
             * (~200 bytes), or a group with up to 64 values, loaded whole (~60 bytes each) */
            double bound = 2048 + (256.0 + 64 * 64) * atoi(sizes[i]);
            cr_assert_leq(m.peak, bound, "%s: the cache held %.0f bytes", what, m.peak);
            peak[b] = m.peak;
            rows_free(&a);
            char cmd[64];
            snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
            cr_assert_eq(system(cmd), 0);
        }
        /* the default bound holds this job: no eviction, the same changelog */
        rows a;
        cache_metrics m;
        run_with(8000, "false", sizes[i], "1", NULL, NULL, 0, &a, &m);
        qsort(a.v, a.n, sizeof *a.v, cmp_str);
        assert_same(&a, &ref, "the default cache");
        cr_assert_eq(m.evictions, 0);
        cr_assert_gt(m.peak, 10 * peak[0], "unbounded, the cache held %.0f bytes; bounded, %.0f", m.peak, peak[0]);
        cr_assert_gt(m.peak, 10 * peak[1]);
        rows_free(&a);
        rows_free(&ref);
    }
}
