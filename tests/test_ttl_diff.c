/*
 * tests/test_ttl_diff.c - a randomized differential test of state
 * time-to-live (`table.exec.state.ttl`, or a STATE_TTL hint) on the group
 * aggregation, against a model written here that shares no code with weir.
 *
 * TTL counts processing time, so the test drives the job's clock by hand:
 * a datagen source at R rows a second (its token bucket holds one second
 * of rows, full at the start) gives exactly R rows each time the clock
 * steps by a second or more: batch b is ids [b R, (b + 1) R), all read at
 * clock T_b. The test moves the clock to T_(b+1) only after the source
 * read batch b and the sinks wrote every row the model says it gives, so
 * each row of batch b is aggregated at T_b (a source subtask that is a
 * batch behind would stay behind: its bucket holds no more than a batch).
 * Nothing sleeps to wait for the state to expire.
 *
 * The query, drawn per case, over
 *
 *   t = SELECT id, v, k, PROCTIME() AS pt FROM src [WHERE MOD(id, m) <> r]
 *       -- v = MOD(id, 5) + 1, k = MOD(id * a + c, K), NULL when MOD(id, z) = 0
 *
 * is a group aggregation, SELECT k, COUNT(*), SUM(v), MAX(id) FROM t
 * GROUP BY k (the TTL from the SET or a STATE_TTL hint), or a deduplication
 * on processing time, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt ASC |
 * DESC) = 1 (the first or the last row of each key; the TTL from the SET),
 * or a regular join, SELECT l.id, r.id, l.k FROM t l JOIN t2 r ON l.k =
 * r.k, t2 a second such source with keys of its own (the TTL from the SET,
 * or a STATE_TTL hint with a TTL for each side), on the heap or RocksDB
 * backend, at
 * parallelism 1 or 2 (a key's rows then all come from one source subtask,
 * so their order is the file's), and steps between batches drawn around
 * the TTL: often exactly the TTL after a key's last write, where its
 * state has expired (an entry is gone once now >= its last write + TTL,
 * as in Flink's NeverReturnExpired with OnCreateAndWrite).
 *
 * The model: a key's state holds its aggregates (or its kept row) and the
 * clock of its last write. Group aggregation: a row whose key has live
 * state gives -U[old] and +U[new] (the values always change: v >= 1, ids
 * grow); one whose state is absent or expired starts over and gives
 * +I[new], as Flink's group aggregation does. First row: a row whose key
 * has live state is dropped and writes nothing (the state's clock stays at
 * the kept row's arrival); otherwise it is kept, +I. Last row: a row whose
 * key has live state replaces the kept one, -U[old] +U[new]; otherwise
 * +I[new]; either way it is written. Join: each row is stored at its
 * arrival and never written again (an inner join counts no matches), so a
 * row meets a stored row of the other side while the stored one lives (now
 * < its arrival + its side's TTL), and every row of its own batch: a pair
 * of rows that came at Tl and Tr joins iff Tl = Tr, or the later one came
 * before the earlier one's TTL ran out.
 *
 * WEIR_SEED replays a run (the seed is printed); WEIR_TTL_CASES sets the
 * number of cases (default 12).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/harness.h"
#include "weir/clock.h"
#include "weir/planner.h"
#include "weir/weir.h"

#define GUARD_MS 20000
#define MAX_BATCHES 10
#define MAX_KEYS 16

typedef struct ttl_case {
    uint32_t rate;      /* rows a second: one batch */
    uint32_t n_batches; /* the input is n_batches * rate rows */
    uint32_t par;
    int64_t ttl_ms;
    int64_t clock[MAX_BATCHES]; /* T_b */
    uint32_t mul, add, n_keys, null_mod; /* k = MOD(id * mul + add, n_keys), NULL when MOD(id, null_mod) = 0 */
    uint32_t skip_mod, skip_rem;         /* WHERE MOD(id, skip_mod) <> skip_rem; skip_mod 0: no WHERE */
    bool rocksdb, hint;
    enum { GROUP_AGG, FIRST_ROW, LAST_ROW, JOIN } kind;
    int64_t ttl_right_ms;      /* join: the right side's TTL (a hint may give each its own) */
    uint32_t mul_right, add_right; /* join: the right side's k = MOD(id * mul_right + add_right, n_keys) */
} ttl_case;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

/* ---- the model ---- */

typedef struct model_key {
    bool live;
    int64_t written; /* clock of the last write */
    int64_t count, sum, max; /* group aggregation */
    int64_t id, v;           /* deduplication: the kept row */
} model_key;

static bool row_kept(const ttl_case *c, int64_t id)
{
    return !c->skip_mod || id % c->skip_mod != c->skip_rem;
}

/* The key's slot: 0..n_keys-1, n_keys for NULL. */
static uint32_t key_of(const ttl_case *c, int64_t id)
{
    if (c->null_mod && id % c->null_mod == 0)
        return c->n_keys;
    return (uint32_t)((id * c->mul + c->add) % c->n_keys);
}

static void key_text(const ttl_case *c, uint32_t k, char *out, size_t cap)
{
    if (k == c->n_keys)
        snprintf(out, cap, "null");
    else
        snprintf(out, cap, "%u", k);
}

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void lines_add(lines *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert(l->v);
    }
    l->v[l->n] = strdup(s);
    cr_assert(l->v[l->n]);
    l->n++;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static void add_row(lines *out, const ttl_case *c, const char *kind, const char *k, const model_key *s)
{
    char line[128];
    if (c->kind == GROUP_AGG)
        snprintf(line, sizeof line, "%s[%s, %" PRId64 ", %" PRId64 ", %" PRId64 "]", kind, k, s->count, s->sum,
                 s->max);
    else
        snprintf(line, sizeof line, "%s[%s, %" PRId64 ", %" PRId64 "]", kind, k, s->id, s->v);
    lines_add(out, line);
}

/* The join's rows (see the top), as model() gives them. */
static void model_join(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    size_t n_kept = 0;
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        /* Pairs with a row of batch b, the other from batch a <= b. */
        for (uint32_t a = 0; a <= b; a++)
            for (int64_t x = (int64_t)a * c->rate; x < (int64_t)(a + 1) * c->rate; x++)
                for (int64_t y = (int64_t)b * c->rate; y < (int64_t)(b + 1) * c->rate; y++)
                    for (int side = 0; side < 2; side++) {
                        /* side 0: l from batch a, r from b; side 1: r from a, l from b */
                        if (a == b && side == 1)
                            continue;
                        int64_t lid = side ? y : x, rid = side ? x : y;
                        uint32_t kl = key_of(c, lid);
                        uint32_t kr = c->null_mod && rid % c->null_mod == 0
                                          ? c->n_keys
                                          : (uint32_t)((rid * c->mul_right + c->add_right) % c->n_keys);
                        if (!row_kept(c, lid) || kl == c->n_keys || kl != kr)
                            continue;
                        int64_t stored_ttl = side ? c->ttl_right_ms : c->ttl_ms;
                        if (a < b && now >= c->clock[a] + stored_ttl)
                            continue;
                        char line[96];
                        snprintf(line, sizeof line, "+I[%" PRId64 ", %" PRId64 ", %u]", lid, rid, kl);
                        lines_add(out, line);
                    }
        for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++)
            n_kept += row_kept(c, id) + 1u;
        after[b] = out->n;
        kept[b] = n_kept;
    }
}

/* The rows the job writes, batch after batch; after[b]: how many once
 * batch b is aggregated, kept[b]: how many rows of batches 0..b the
 * stateful operator processes (those that pass the WHERE). */
static void model(const ttl_case *c, lines *out, size_t *after, size_t *kept)
{
    if (c->kind == JOIN) {
        model_join(c, out, after, kept);
        return;
    }
    size_t n_kept = 0;
    model_key keys[MAX_KEYS + 1] = {{0}};
    for (uint32_t b = 0; b < c->n_batches; b++) {
        int64_t now = c->clock[b];
        for (int64_t id = (int64_t)b * c->rate; id < (int64_t)(b + 1) * c->rate; id++) {
            if (!row_kept(c, id))
                continue;
            n_kept++;
            uint32_t k = key_of(c, id);
            model_key *s = &keys[k];
            char kt[16];
            key_text(c, k, kt, sizeof kt);
            bool live = s->live && now < s->written + c->ttl_ms;
            if (live && c->kind == FIRST_ROW)
                continue;
            if (live)
                add_row(out, c, "-U", kt, s);
            if (!live)
                *s = (model_key){.live = true};
            s->count++;
            s->sum += id % 5 + 1;
            s->max = id;
            s->id = id;
            s->v = id % 5 + 1;
            add_row(out, c, live ? "+U" : "+I", kt, s);
            s->written = now;
        }
        after[b] = out->n;
        kept[b] = n_kept;
    }
}

/* ---- the draw ---- */

static void draw(ttl_case *c, uint64_t *rng)
{
    memset(c, 0, sizeof *c);
    c->par = 1 + rng_below(rng, 2);
    c->rate = c->par * (3 + rng_below(rng, 10));
    c->n_batches = 4 + rng_below(rng, MAX_BATCHES - 3);
    c->ttl_ms = 1000 + 500 * (int64_t)rng_below(rng, 15);
    /* Keys of one parity come from one source subtask at parallelism 2. */
    c->n_keys = c->par * (1 + rng_below(rng, MAX_KEYS / 2));
    c->mul = 2 * rng_below(rng, 50) + 1;
    c->add = c->par == 2 ? 2 * rng_below(rng, 20) : rng_below(rng, 40);
    c->null_mod = rng_below(rng, 3) ? 0 : c->par * (2 + rng_below(rng, 4));
    if (rng_below(rng, 2)) {
        c->skip_mod = 2 + rng_below(rng, 5);
        c->skip_rem = rng_below(rng, c->skip_mod);
    }
    c->rocksdb = rng_below(rng, 3) == 0;
    uint32_t k = rng_below(rng, 6);
    c->kind = k < 2 ? GROUP_AGG : k < 4 ? JOIN : k == 4 ? FIRST_ROW : LAST_ROW;
    /* a STATE_TTL hint is for joins and aggregations; a join's gives each side its own */
    c->hint = (c->kind == GROUP_AGG || c->kind == JOIN) && rng_below(rng, 2);
    c->ttl_right_ms = c->hint && c->kind == JOIN ? 1000 + 500 * (int64_t)rng_below(rng, 15) : c->ttl_ms;
    c->mul_right = 2 * rng_below(rng, 50) + 1;
    c->add_right = c->par == 2 ? 2 * rng_below(rng, 20) : rng_below(rng, 40);
    /* Steps: at least a second (a full bucket); often exactly the TTL, or
     * a millisecond either side of it, so that the boundary is crossed. */
    c->clock[0] = 1000;
    for (uint32_t b = 1; b < c->n_batches; b++) {
        int64_t step;
        int64_t ttl = rng_below(rng, 2) ? c->ttl_ms : c->ttl_right_ms;
        switch (rng_below(rng, 5)) {
        case 0: step = ttl; break;
        case 1: step = ttl - 1; break;
        case 2: step = ttl + 1; break;
        case 3: step = 1000 + (int64_t)rng_below(rng, 3) * 500; break;
        default: step = 1000 + (int64_t)rng_below(rng, (uint32_t)(2 * ttl)); break;
        }
        c->clock[b] = c->clock[b - 1] + (step < 1000 ? 1000 : step);
    }
}

static void case_sql(const ttl_case *c, const char *state_dir, char *sql, size_t cap)
{
    char where[64] = "", keyexpr[160], keyright[160], ttl[64] = "", hint[128] = "", backend[1200] = "";
    if (c->skip_mod)
        snprintf(where, sizeof where, " WHERE MOD(id, %u) <> %u", c->skip_mod, c->skip_rem);
    if (c->null_mod)
        snprintf(keyexpr, sizeof keyexpr, "CASE WHEN MOD(id, %u) = 0 THEN NULL ELSE MOD(id * %u + %u, %u) END",
                 c->null_mod, c->mul, c->add, c->n_keys);
    else
        snprintf(keyexpr, sizeof keyexpr, "MOD(id * %u + %u, %u)", c->mul, c->add, c->n_keys);
    if (c->null_mod)
        snprintf(keyright, sizeof keyright, "CASE WHEN MOD(id, %u) = 0 THEN NULL ELSE MOD(id * %u + %u, %u) END",
                 c->null_mod, c->mul_right, c->add_right, c->n_keys);
    else
        snprintf(keyright, sizeof keyright, "MOD(id * %u + %u, %u)", c->mul_right, c->add_right, c->n_keys);
    if (c->hint && c->kind == JOIN)
        snprintf(hint, sizeof hint, "/*+ STATE_TTL('l' = '%" PRId64 " ms', 'r' = '%" PRId64 " ms') */ ", c->ttl_ms,
                 c->ttl_right_ms);
    else if (c->hint)
        snprintf(hint, sizeof hint, "/*+ STATE_TTL('t' = '%" PRId64 " ms') */ ", c->ttl_ms);
    else
        snprintf(ttl, sizeof ttl, "SET 'table.exec.state.ttl' = '%" PRId64 " ms';\n", c->ttl_ms);
    if (c->rocksdb)
        snprintf(backend, sizeof backend, "SET 'state.backend.type' = 'rocksdb';\nSET 'weir.state.dir' = '%s';\n",
                 state_dir);
    uint64_t rows = (uint64_t)c->rate * c->n_batches;
    snprintf(sql, cap,
             "%s%s"
             "CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '%u',\n"
             "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '%" PRIu64 "');\n"
             "CREATE VIEW t AS SELECT id, MOD(id, 5) + 1 AS v, %s AS k, PROCTIME() AS pt FROM src%s;\n",
             ttl, backend, c->rate, rows - 1, keyexpr, where);
    size_t n = strlen(sql);
    if (c->kind == JOIN)
        snprintf(sql + n, cap - n,
                 "CREATE TABLE src2 (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '%u',\n"
                 "  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '%" PRIu64 "');\n"
                 "CREATE VIEW t2 AS SELECT id, %s AS k FROM src2;\n"
                 "SELECT %sl.id, r.id, l.k FROM t l JOIN t2 r ON l.k = r.k;\n",
                 c->rate, rows - 1, keyright, hint);
    else if (c->kind == GROUP_AGG)
        snprintf(sql + n, cap - n, "SELECT %sk, COUNT(*), SUM(v), MAX(id) FROM t GROUP BY k;\n", hint);
    else
        snprintf(sql + n, cap - n,
                 "SELECT k, id, v FROM (SELECT k, id, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt %s) AS rn "
                 "FROM t) WHERE rn = 1;\n",
                 c->kind == FIRST_ROW ? "ASC" : "DESC");
}

/* ---- the run ---- */

typedef struct counts {
    double read, written; /* rows out of the source, into the sink */
    double stateful;      /* rows the stateful operator processed */
} counts;

static counts job_counts(weir_job *job)
{
    /* an operator counts a batch's rows once it processed them */
    return (counts){.read = th_metric(job, "job.records_read"),
                    .written = th_metric(job, "job.records_written"),
                    .stateful = th_metric(job, "task*.GroupAggregate.*.records_in") +
                                th_metric(job, "task*.Deduplicate.*.records_in") +
                                th_metric(job, "task*.Join.*.records_in")};
}

/* Polls until the source read `read` rows, the stateful operator processed
 * `kept` (a row is counted once processed) and the sinks wrote `written`:
 * all three, since a subtask whose rows the WHERE removes, or a row that
 * deduplication drops, writes nothing. */
static bool wait_counts(weir_job *job, double read, double kept, double written)
{
    for (int i = 0; i < GUARD_MS; i++) {
        counts c = job_counts(job);
        if (c.read >= read && c.stateful >= kept && c.written >= written)
            return true;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Runs case c; its rows (without the subtask prefix) into got. */
static void run(const ttl_case *c, const size_t *after, const size_t *kept, const char *sql, lines *got,
                const char *what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert(mem);
    char p[16];
    snprintf(p, sizeof p, "%u", c->par);
    const char *keys[] = {"parallelism.default"}, *vals[] = {p};
    weir_manual_clock *mc = weir_manual_clock_create(c->clock[0]);
    weir_sql_job_options opt = {.set_keys = keys,
                                .set_values = vals,
                                .n_set = 1,
                                .clock = weir_manual_clock_get(mc),
                                .print_out = mem};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("ttl.sql", sql, strlen(sql), &opt, &sj, &err);
    cr_assert_eq(rc, 0, "%s: does not plan: %s\n%s", what, err.message, sql);
    weir_job *job = weir_sql_job_graph(sj);
    cr_assert_eq(weir_job_start(job), 0, "%s", what);
    /* A batch that gives fewer rows than the model's is reported, and the
     * run goes on: the rows compared below say which differ. */
    for (uint32_t b = 0; b < c->n_batches; b++) {
        if (b)
            weir_manual_clock_set(mc, c->clock[b]);
        uint32_t read = (b + 1) * c->rate * (c->kind == JOIN ? 2 : 1);
        bool reached = wait_counts(job, (double)read, (double)kept[b], (double)after[b]);
        counts n = job_counts(job);
        if (!reached || n.written != (double)after[b])
            fprintf(stderr,
                    "%s: batch %u (clock %" PRId64 "): %.0f rows read, %.0f processed, %.0f written; %u, %zu and "
                    "%zu expected\n",
                    what, b, c->clock[b], n.read, n.stateful, n.written, read, kept[b], after[b]);
    }
    cr_assert_eq(weir_job_wait(job), 0, "%s: the job failed: %s", what, weir_job_error(job));
    weir_sql_job_destroy(sj);
    weir_manual_clock_destroy(mc);
    fclose(mem);
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        lines_add(got, th_print_row(line));
    }
    free(buf);
}

static void check_case(uint64_t seed, uint32_t i)
{
    uint64_t rng = seed ^ (0x5851F42D4C957F2Dull * (i + 1));
    ttl_case c;
    draw(&c, &rng);
    char dir[] = "/tmp/weir-ttl-diff-XXXXXX", sql[4096], what[200];
    cr_assert(mkdtemp(dir));
    case_sql(&c, dir, sql, sizeof sql);
    snprintf(what, sizeof what,
             "WEIR_SEED=%" PRIu64 " case %u (%s, ttl %" PRId64 " ms, right %" PRId64 " ms, %u batches of %u, p %u)",
             seed, i,
             c.kind == GROUP_AGG   ? "group aggregation"
             : c.kind == JOIN      ? "join"
             : c.kind == FIRST_ROW ? "first row"
                                   : "last row",
             c.ttl_ms, c.ttl_right_ms, c.n_batches, c.rate, c.par);
    lines want = {0}, got = {0};
    size_t after[MAX_BATCHES], kept[MAX_BATCHES];
    model(&c, &want, after, kept);
    run(&c, after, kept, sql, &got, what);
    if (want.n) /* a case may give no row at all: qsort takes no NULL */
        qsort(want.v, want.n, sizeof *want.v, cmp_str);
    if (got.n)
        qsort(got.v, got.n, sizeof *got.v, cmp_str);
    size_t n = want.n < got.n ? want.n : got.n, d = 0;
    while (d < n && !strcmp(want.v[d], got.v[d]))
        d++;
    cr_assert(d == want.n && d == got.n,
              "%s: %zu rows, %zu expected; first difference (sorted) at %zu: got %s, expected %s\n%s", what, got.n,
              want.n, d, d < got.n ? got.v[d] : "(none)", d < want.n ? want.v[d] : "(none)", sql);
    lines_free(&want);
    lines_free(&got);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    cr_assert_eq(system(rm), 0);
}

Test(ttl_diff, state_expires_exactly_at_its_ttl, .timeout = 600)
{
    const char *s = getenv("WEIR_SEED"), *n = getenv("WEIR_TTL_CASES"), *one = getenv("WEIR_TTL_CASE");
    uint64_t seed = s && *s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    uint32_t cases = n && *n ? (uint32_t)strtoul(n, NULL, 0) : 12;
    fprintf(stderr, "ttl_diff: WEIR_SEED=%" PRIu64 ", %u cases (WEIR_TTL_CASE=i runs one)\n", seed, cases);
    for (uint32_t i = 0; i < cases; i++)
        if (!one || !*one || strtoul(one, NULL, 0) == i)
            check_case(seed, i);
}
