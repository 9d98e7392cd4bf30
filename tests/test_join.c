/*
 * tests/test_join.c - the regular streaming join operator (ops/join.c),
 * driven through the C API.
 *
 * Each side is an unbounded in-memory source whose rows carry their
 * changelog kind in an `op` column (a map turns it into the row kind), so
 * the test decides the order in which the join sees rows: it feeds one
 * row and waits until the sink has the changelog that row must cause.
 * That makes the exact changelog of each join type checkable. A last test
 * runs a random workload at parallelism 1 and 3 and compares the table
 * the changelog leaves with a nested-loop join computed here (seed printed;
 * JOIN_TEST_SEED replaces it).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/ops.h"
#include "ops/top1_hint.h"
#include "runtime/runtime.h"
#include "support/harness.h"
#include "weir/checkpoint.h"
#include "weir/weir.h"

#define GUARD_MS 20000

typedef struct jt {
    weir_schema *in, *side, *out;
    weir_schema *semi_out; /* (lk, lv): a semi or anti join's output */
    th_source *src[2];
    th_collect *sink;
    weir_job *job;
    weir_expr_arena *arena;
    const char *rocksdb_dir; /* state on RocksDB in this folder, or NULL for memory */
    const weir_clock *clock; /* the job's clock, or NULL for the system clock */
    int64_t ttl_ms;          /* state TTL of the join */
    bool insert_only[2];     /* the sides declared insert-only (weir_join_config.insert_only) */
    weir_expr *residual;     /* the residual when set (made in arena), else lv <> residual_ne */
    uint32_t batch_size;     /* the job's; 0: 4 */
    size_t fed;              /* rows fed since the job started */
} jt;

/*
 * A join of two (k BIGINT, v STRING) sides on k; residual over (lk, lv, rk,
 * rv) or NULL. With ckpt_dir the job is checkpointed there and restores its
 * latest checkpoint; t->src and the schemas are kept when already set (a
 * restored job reads on from the same sources).
 */
static void jt_start_ex(jt *t, weir_join_type type, uint32_t parallelism, const char *residual_ne,
                        const char *ckpt_dir)
{
    if (!t->in) {
        t->in = th_schema("op STRING, k BIGINT, v STRING");
        t->side = th_schema("k BIGINT, v STRING");
        t->out = weir_schema_create();
        const char *names[4] = {"lk", "lv", "rk", "rv"};
        for (int i = 0; i < 4; i++)
            weir_schema_add(t->out, names[i], weir_type_make(i % 2 ? WEIR_TYPE_STRING : WEIR_TYPE_BIGINT, true));
        for (int s = 0; s < 2; s++)
            t->src[s] = th_usource_create(t->in, 1);
    }
    t->sink = th_collect_create(TH_KIND);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = parallelism;
    cfg.batch_size = t->batch_size ? t->batch_size : 4;
    if (t->clock)
        cfg.clock = *t->clock;
    if (t->rocksdb_dir) {
        cfg.state_backend = "rocksdb";
        cfg.state_dir = t->rocksdb_dir;
    }
    cr_assert_eq(weir_job_create(&cfg, &t->job), 0);
    weir_stream keyed[2];
    for (int s = 0; s < 2; s++) {
        weir_watermark_spec wm = {.kind = WEIR_WATERMARK_NONE};
        weir_stream m;
        cr_assert_eq(th_changelog_stream(t->job, t->src[s],
                                         s ? "right" : "left", &wm, t->side,
                                         &m),
                     0, "%s", weir_job_error(t->job));
        uint32_t kc = 0;
        keyed[s] = weir_stream_key_by(m, &kc, 1);
    }
    weir_join_config jc = {.type = type,
                           .n_out = {2, 2},
                           .out_schema = t->out,
                           .state_ttl_ms = t->ttl_ms,
                           .insert_only = {t->insert_only[0], t->insert_only[1]}};
    if (type == WEIR_JOIN_SEMI || type == WEIR_JOIN_ANTI) {
        /* the output is the left row; the residual still sees the joined row */
        if (!t->semi_out)
            t->semi_out = th_schema("lk BIGINT, lv STRING");
        jc.out_schema = t->semi_out;
        jc.cand_schema = t->out;
    }
    jc.keys[0].n = jc.keys[1].n = 1;
    if (t->residual) {
        jc.residual = t->residual;
    } else if (residual_ne) {
        /* lv <> residual_ne: a condition on the left row only */
        weir_error err = {0};
        weir_expr *a[2], *e;
        t->arena = weir_expr_arena_create();
        cr_assert_eq(weir_expr_column(t->arena, 1, weir_type_make(WEIR_TYPE_STRING, true), &a[0], &err), 0);
        a[1] = weir_expr_lit_string(t->arena, residual_ne, strlen(residual_ne));
        cr_assert_eq(weir_expr_call(t->arena, "<>", a, 2, &e, &err), 0, "%s", err.message);
        jc.residual = e;
    }
    weir_operator_spec spec;
    cr_assert_eq(weir_join_spec(&jc, &spec), 0);
    weir_stream j;
    cr_assert_eq(weir_job_operator(t->job, keyed, 2, &spec, jc.out_schema, parallelism, &j), 0, "%s",
                 weir_job_error(t->job));
    weir_operator_spec sink = th_collect_spec(t->sink, "collect");
    cr_assert_eq(weir_job_sink(t->job, j, &sink, 1), 0);
    if (ckpt_dir) {
        weir_error err = {0};
        cr_assert_eq(th_enable_checkpoints(t->job, ckpt_dir, &err), 0, "%s", err.message);
    }
    t->fed = 0;
    cr_assert_eq(weir_job_start(t->job), 0, "%s", weir_job_error(t->job));
}

static void jt_start(jt *t, weir_join_type type, uint32_t parallelism, const char *residual_ne)
{
    memset(t, 0, sizeof *t);
    jt_start_ex(t, type, parallelism, residual_ne, NULL);
}

static void sum_join_in(void *ud, const char *name, double value)
{
    size_t n = strlen(name);
    if (strstr(name, ".Join.") && n > 11 && !strcmp(name + n - 11, ".records_in"))
        *(double *)ud += value;
}

/*
 * Waits (a guard against a hang, not a wait for time to pass) until the
 * join has taken in n rows: the two sides arrive on separate channels, so
 * a row is only known to be in the join's state once it has been counted.
 */
static bool join_took(jt *t, size_t n)
{
    for (int waited = 0; waited < GUARD_MS; waited++) {
        double in = 0;
        weir_job_metrics(t->job, sum_join_in, &in);
        if (in >= (double)n)
            return true;
        struct timespec ms = {0, 1000 * 1000};
        nanosleep(&ms, NULL);
    }
    return false;
}

/*
 * Feeds one row to side s ("L" or "R"), waits until the join has taken it
 * in (so rows reach the join in the order they are fed) and until the sink
 * holds `total` lines.
 */
static void feed(jt *t, int s, const char *row, size_t total)
{
    th_source_row_text(t->src[s], 0, 0, row);
    cr_assert(th_source_wait_read(t->src[s], 0, GUARD_MS));
    t->fed++;
    cr_assert(join_took(t, t->fed), "the join did not take in %s %s", s ? "right" : "left", row);
    cr_assert(th_collect_wait_count(t->sink, total, GUARD_MS), "after %s %s: %zu lines, expected %zu:\n%s",
              s ? "right" : "left", row, th_collect_count(t->sink), total, th_collect_text(t->sink, false));
}

static void jt_finish(jt *t, const char *want)
{
    th_source_end_all(t->src[0]);
    th_source_end_all(t->src[1]);
    cr_assert_eq(weir_job_wait(t->job), 0, "%s", weir_job_error(t->job));
    if (want)
        cr_assert_str_eq(th_collect_text(t->sink, false), want);
    weir_job_destroy(t->job);
    th_collect_destroy(t->sink);
    for (int s = 0; s < 2; s++)
        th_source_destroy(t->src[s]);
    weir_schema_destroy(t->in);
    weir_schema_destroy(t->side);
    weir_schema_destroy(t->out);
    weir_schema_destroy(t->semi_out);
    if (t->arena)
        weir_expr_arena_destroy(t->arena);
}

enum { L = 0, R = 1 };

Test(join, inner_join_forwards_row_kinds, .timeout = 60)
{
    jt t;
    jt_start(&t, WEIR_JOIN_INNER, 1, NULL);
    feed(&t, R, "+I,1,x", 0);
    feed(&t, L, "+I,1,a", 1);      /* +I[1,a,1,x] */
    feed(&t, L, "-U,1,a", 2);      /* the update of a joined row keeps its kinds */
    feed(&t, L, "+U,1,b", 3);
    feed(&t, R, "+I,1,y", 4);
    feed(&t, R, "-D,1,x", 5);
    feed(&t, L, "+I,1,b", 6);      /* a duplicate left row joins once more */
    feed(&t, R, "-D,1,y", 8);      /* ... and is retracted once per copy */
    jt_finish(&t, "+I 1,a,1,x\n"
                  "-U 1,a,1,x\n"
                  "+U 1,b,1,x\n"
                  "+I 1,b,1,y\n"
                  "-D 1,b,1,x\n"
                  "+I 1,b,1,y\n"
                  "-D 1,b,1,y\n"
                  "-D 1,b,1,y\n");
}

Test(join, left_join_pads_and_retracts_the_padding, .timeout = 60)
{
    jt t;
    jt_start(&t, WEIR_JOIN_LEFT, 1, NULL);
    feed(&t, L, "+I,1,a", 1);      /* no match yet: padded */
    feed(&t, R, "+I,1,x", 3);      /* first match: retract the padded row, emit the pair */
    feed(&t, R, "+I,1,y", 4);      /* another match: just the pair */
    feed(&t, R, "-D,1,x", 5);
    feed(&t, R, "-D,1,y", 7);      /* last match gone: padded again */
    feed(&t, L, "+U,2,b", 8);      /* outer joins emit +I/-D only */
    feed(&t, R, "+I,2,z", 10);
    feed(&t, L, "-D,1,a", 11);
    jt_finish(&t, "+I 1,a,NULL,NULL\n"
                  "-D 1,a,NULL,NULL\n"
                  "+I 1,a,1,x\n"
                  "+I 1,a,1,y\n"
                  "-D 1,a,1,x\n"
                  "-D 1,a,1,y\n"
                  "+I 1,a,NULL,NULL\n"
                  "+I 2,b,NULL,NULL\n"
                  "-D 2,b,NULL,NULL\n"
                  "+I 2,b,2,z\n"
                  "-D 1,a,NULL,NULL\n");
}

/* Flink's semi join: a left row is out while it has a match, with the kinds Flink's operator gives. */
Test(join, semi_join_emits_a_row_while_it_has_a_match, .timeout = 60)
{
    jt t;
    jt_start(&t, WEIR_JOIN_SEMI, 1, NULL);
    feed(&t, L, "+I,1,a", 0);      /* no match: nothing */
    feed(&t, R, "+I,1,x", 1);      /* first match: the left row, with the right row's kind */
    feed(&t, R, "+I,1,y", 1);      /* a second match: nothing more */
    feed(&t, L, "+I,1,a", 2);      /* a duplicate arrives matched: out once more, its own kind */
    feed(&t, R, "-D,1,x", 2);
    feed(&t, R, "-U,1,y", 4);      /* the last match goes: each copy retracted with the right row's kind */
    feed(&t, R, "+U,1,z", 6);      /* and comes back */
    feed(&t, L, "-D,1,a", 7);      /* a matched left row's retraction is forwarded */
    feed(&t, L, "+I,NULL,n", 7);   /* a NULL key matches nothing */
    feed(&t, R, "+I,NULL,m", 7);
    jt_finish(&t, "+I 1,a\n"
                  "+I 1,a\n"
                  "-U 1,a\n"
                  "-U 1,a\n"
                  "+U 1,a\n"
                  "+U 1,a\n"
                  "-D 1,a\n");
}

/* Flink's anti join: a left row is out while it has no match. */
Test(join, anti_join_emits_a_row_while_it_has_no_match, .timeout = 60)
{
    jt t;
    jt_start(&t, WEIR_JOIN_ANTI, 1, "b");
    feed(&t, L, "+I,1,a", 1);      /* no match: out */
    feed(&t, R, "+I,1,x", 2);      /* first match: -D */
    feed(&t, R, "+I,1,y", 2);
    feed(&t, R, "-D,1,x", 2);
    feed(&t, R, "-U,1,y", 3);      /* the last match goes: +I again, whatever the right row's kind */
    feed(&t, L, "+I,1,b", 3);      /* the residual (lv <> 'b') rejects every pair: unmatched, but ... */
    feed(&t, R, "+I,1,z", 5);      /* ... stays out; a matches again */
    feed(&t, L, "-D,1,b", 6);      /* an unmatched row's retraction is forwarded */
    feed(&t, L, "+I,NULL,n", 7);   /* a NULL key matches nothing: out */
    feed(&t, L, "-D,NULL,n", 8);
    jt_finish(&t, "+I 1,a\n"
                  "-D 1,a\n"
                  "+I 1,a\n"
                  "+I 1,b\n"
                  "-D 1,a\n"
                  "-D 1,b\n"
                  "+I NULL,n\n"
                  "-D NULL,n\n");
}

Test(join, right_join_mirrors_left_join, .timeout = 60)
{
    jt t;
    jt_start(&t, WEIR_JOIN_RIGHT, 1, NULL);
    feed(&t, R, "+I,1,x", 1);
    feed(&t, L, "+I,1,a", 3);
    feed(&t, L, "-D,1,a", 5);
    jt_finish(&t, "+I NULL,NULL,1,x\n"
                  "-D NULL,NULL,1,x\n"
                  "+I 1,a,1,x\n"
                  "-D 1,a,1,x\n"
                  "+I NULL,NULL,1,x\n");
}

Test(join, full_join_tracks_matches_on_both_sides, .timeout = 60)
{
    jt t;
    jt_start(&t, WEIR_JOIN_FULL, 1, NULL);
    feed(&t, L, "+I,1,a", 1);
    feed(&t, L, "+I,1,a", 2);      /* two copies: two padded rows */
    feed(&t, R, "+I,1,x", 6);      /* both padded rows retracted, two pairs */
    feed(&t, L, "-D,1,a", 7);      /* one copy goes; x still matched */
    feed(&t, L, "-D,1,a", 9);      /* the last: x padded again */
    feed(&t, R, "-D,1,x", 10);
    feed(&t, L, "+I,NULL,n", 11);      /* a NULL key matches nothing */
    feed(&t, R, "+I,NULL,m", 12);
    jt_finish(&t, "+I 1,a,NULL,NULL\n"
                  "+I 1,a,NULL,NULL\n"
                  "-D 1,a,NULL,NULL\n"
                  "-D 1,a,NULL,NULL\n"
                  "+I 1,a,1,x\n"
                  "+I 1,a,1,x\n"
                  "-D 1,a,1,x\n"
                  "-D 1,a,1,x\n"
                  "+I NULL,NULL,1,x\n"
                  "-D NULL,NULL,1,x\n"
                  "+I NULL,n,NULL,NULL\n"
                  "+I NULL,NULL,NULL,m\n");
}

Test(join, residual_condition_decides_matches, .timeout = 60)
{
    jt t;
    jt_start(&t, WEIR_JOIN_LEFT, 1, "skip");
    feed(&t, R, "+I,1,x", 0);
    feed(&t, L, "+I,1,skip", 1);   /* same key, condition false: padded */
    feed(&t, L, "+I,1,a", 2);
    feed(&t, R, "-D,1,x", 4);
    jt_finish(&t, "+I 1,skip,NULL,NULL\n"
                  "+I 1,a,1,x\n"
                  "-D 1,a,1,x\n"
                  "+I 1,a,NULL,NULL\n");
}

/* table.exec.state.ttl: a row not written for the TTL (processing time) is forgotten. */
Test(join, state_ttl_forgets_old_rows, .timeout = 60)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clock = weir_manual_clock_get(mc);
    jt t;
    memset(&t, 0, sizeof t);
    t.clock = &clock;
    t.ttl_ms = 1000;
    jt_start_ex(&t, WEIR_JOIN_LEFT, 1, NULL, NULL);
    feed(&t, R, "+I,1,x", 0);
    feed(&t, L, "+I,1,a", 1);      /* x is 0 ms old: it matches */
    weir_manual_clock_set(mc, 999);
    feed(&t, L, "+I,1,b", 2);      /* 999 ms: still there */
    weir_manual_clock_set(mc, 1000);
    feed(&t, L, "+I,1,c", 3);      /* 1000 ms: expired, so c is padded */
    jt_finish(&t, "+I 1,a,1,x\n"
                  "+I 1,b,1,x\n"
                  "+I 1,c,NULL,NULL\n");
    weir_manual_clock_destroy(mc);
}

/* table.exec.state.ttl applies to a semi join's state as to any regular join's. */
Test(join, semi_join_state_ttl_forgets_old_rows, .timeout = 60)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clock = weir_manual_clock_get(mc);
    jt t;
    memset(&t, 0, sizeof t);
    t.clock = &clock;
    t.ttl_ms = 1000;
    jt_start_ex(&t, WEIR_JOIN_SEMI, 1, NULL, NULL);
    feed(&t, R, "+I,1,x", 0);
    feed(&t, L, "+I,1,a", 1);      /* x is 0 ms old: a matches */
    weir_manual_clock_set(mc, 999);
    feed(&t, L, "+I,1,b", 2);      /* 999 ms: still there */
    weir_manual_clock_set(mc, 1000);
    feed(&t, L, "+I,1,c", 2);      /* 1000 ms: x expired, c has no match */
    feed(&t, R, "+I,1,y", 3);      /* b is out already (a TTL does not touch match counts, as in Flink): c only */
    jt_finish(&t, "+I 1,a\n"
                  "+I 1,b\n"
                  "+I 1,c\n");
    weir_manual_clock_destroy(mc);
}

/* ---- random workload against a nested-loop join ---- */

typedef struct rrow {
    int side;
    int64_t k;
    int v;
    bool live;
} rrow;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Folds the "+I a" / "-D a" lines of c (after those of c0, if given) into the sorted table they leave. */
static char *fold(th_collect *c, th_collect *c0)
{
    size_t n0 = c0 ? th_collect_count(c0) : 0, n = n0 + th_collect_count(c), m = 0;
    char **rows = calloc(n + 1, sizeof *rows);
    cr_assert(rows);
    for (size_t i = 0; i < n; i++) {
        const char *l = i < n0 ? th_collect_line(c0, i) : th_collect_line(c, i - n0);
        if (l[0] == '+') {
            rows[m++] = strdup(l + 3);
            continue;
        }
        size_t k = m;
        while (k > 0 && strcmp(rows[k - 1], l + 3))
            k--;
        cr_assert(k > 0, "retraction of a row that is not in the table: %s", l);
        free(rows[k - 1]);
        rows[k - 1] = rows[--m];
    }
    qsort(rows, m, sizeof *rows, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < m; i++)
        len += strlen(rows[i]) + 1;
    char *out = calloc(len, 1);
    for (size_t i = 0; i < m; i++) {
        strcat(out, rows[i]);
        strcat(out, "\n");
        free(rows[i]);
    }
    free(rows);
    return out;
}

static char *expected_table(const rrow *rows, size_t n, weir_join_type type)
{
    char **out = NULL;
    size_t m = 0;
    char buf[128];
    for (int s = 0; s < 2; s++) {
        bool outer = s == 0 ? type == WEIR_JOIN_LEFT || type == WEIR_JOIN_FULL
                            : type == WEIR_JOIN_RIGHT || type == WEIR_JOIN_FULL;
        for (size_t i = 0; i < n; i++) {
            if (!rows[i].live || rows[i].side != s)
                continue;
            bool any = false;
            for (size_t k = 0; k < n; k++) {
                if (!rows[k].live || rows[k].side == s || rows[k].k != rows[i].k)
                    continue;
                any = true;
                if (s == 0) {
                    snprintf(buf, sizeof buf, "%" PRId64 ",v%d,%" PRId64 ",v%d", rows[i].k, rows[i].v, rows[k].k,
                             rows[k].v);
                    out = realloc(out, (m + 1) * sizeof *out);
                    out[m++] = strdup(buf);
                }
            }
            if (!any && outer) {
                if (s == 0)
                    snprintf(buf, sizeof buf, "%" PRId64 ",v%d,NULL,NULL", rows[i].k, rows[i].v);
                else
                    snprintf(buf, sizeof buf, "NULL,NULL,%" PRId64 ",v%d", rows[i].k, rows[i].v);
                out = realloc(out, (m + 1) * sizeof *out);
                out[m++] = strdup(buf);
            }
        }
    }
    qsort(out, m, sizeof *out, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < m; i++)
        len += strlen(out[i]) + 1;
    char *txt = calloc(len, 1);
    for (size_t i = 0; i < m; i++) {
        strcat(txt, out[i]);
        strcat(txt, "\n");
        free(out[i]);
    }
    free(out);
    return txt;
}

enum { N_STEPS = 300 };

/* A random workload: mostly inserts; some retract an earlier live row of
 * the same side, unless the side is insert-only (insert_only may be NULL). */
static size_t random_rows(uint64_t seed, rrow *rows, char lines[][64], int *sides, const bool *insert_only)
{
    srand((unsigned)seed);
    size_t n = 0;
    for (int step = 0; step < N_STEPS; step++) {
        int s = rand() % 2;
        size_t victim = n;
        if (n && !(insert_only && insert_only[s]) && rand() % 4 == 0) {
            size_t i = (size_t)rand() % n;
            if (rows[i].live && rows[i].side == s)
                victim = i;
        }
        if (victim < n) {
            rows[victim].live = false;
            snprintf(lines[step], 64, "-D,%" PRId64 ",v%d", rows[victim].k, rows[victim].v);
        } else {
            rows[n] = (rrow){s, rand() % 12, rand() % 3, true};
            snprintf(lines[step], 64, "+I,%" PRId64 ",v%d", rows[n].k, rows[n].v);
            n++;
        }
        sides[step] = s;
    }
    return n;
}

static void jt_destroy(jt *t)
{
    weir_job_destroy(t->job);
    th_collect_destroy(t->sink);
    for (int s = 0; s < 2; s++)
        th_source_destroy(t->src[s]);
    weir_schema_destroy(t->in);
    weir_schema_destroy(t->side);
    weir_schema_destroy(t->out);
}

/* insert_only: the sides that only insert (and are declared so), or NULL. */
static void random_run_io(weir_join_type type, uint32_t parallelism, uint64_t seed, const char *rocksdb_dir,
                          const bool *insert_only)
{
    static rrow rows[N_STEPS];
    static char lines[N_STEPS][64];
    static int sides[N_STEPS];
    size_t n = random_rows(seed, rows, lines, sides, insert_only);
    jt t;
    memset(&t, 0, sizeof t);
    t.rocksdb_dir = rocksdb_dir;
    for (int s = 0; s < 2 && insert_only; s++)
        t.insert_only[s] = insert_only[s];
    jt_start_ex(&t, type, parallelism, NULL, NULL);
    /* A side's rows come from one source in order: a retraction never overtakes its insert. */
    for (int i = 0; i < N_STEPS; i++)
        th_source_row_text(t.src[sides[i]], 0, 0, lines[i]);
    th_source_end_all(t.src[0]);
    th_source_end_all(t.src[1]);
    cr_assert_eq(weir_job_wait(t.job), 0, "%s", weir_job_error(t.job));
    char *got = fold(t.sink, NULL), *want = expected_table(rows, n, type);
    cr_assert_str_eq(got, want, "%s join, parallelism %u, seed %" PRIu64, weir_join_type_name(type), parallelism,
                     seed);
    free(got);
    free(want);
    jt_destroy(&t);
}

static void random_run_on(weir_join_type type, uint32_t parallelism, uint64_t seed, const char *rocksdb_dir)
{
    random_run_io(type, parallelism, seed, rocksdb_dir, NULL);
}

static void random_run(weir_join_type type, uint32_t parallelism, uint64_t seed)
{
    random_run_on(type, parallelism, seed, NULL);
}

static uint64_t test_seed(void)
{
    const char *e = getenv("JOIN_TEST_SEED");
    uint64_t seed = e ? strtoull(e, NULL, 0) : 20261130;
    fprintf(stderr, "test_join: seed %" PRIu64 " (set JOIN_TEST_SEED to change)\n", seed);
    return seed;
}

Test(join, random_changelogs_fold_to_the_nested_loop_join, .timeout = 120)
{
    uint64_t seed = test_seed();
    static const weir_join_type types[] = {WEIR_JOIN_INNER, WEIR_JOIN_LEFT, WEIR_JOIN_RIGHT, WEIR_JOIN_FULL};
    for (int i = 0; i < 4; i++) {
        random_run(types[i], 1, seed + (uint64_t)i);
        random_run(types[i], 3, seed + (uint64_t)i);
    }
}

/* The same on RocksDB, whose map iteration order differs from the memory backend's. */
Test(join, random_changelogs_on_rocksdb, .timeout = 120)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    uint64_t seed = test_seed();
    char dir[] = "/tmp/weir-join-rocks-XXXXXX";
    cr_assert(mkdtemp(dir));
    random_run_on(WEIR_JOIN_INNER, 2, seed, dir);
    random_run_on(WEIR_JOIN_FULL, 2, seed + 1, dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/*
 * Insert-only sides keep their rows in row logs (a list element per row,
 * repeated rows apart): the same tables, with a side that retracts beside
 * one that logs, on both backends.
 */
Test(join, random_insert_only_sides_fold_to_the_nested_loop_join, .timeout = 120)
{
    uint64_t seed = test_seed();
    static const struct {
        weir_join_type type;
        bool io[2];
    } cases[] = {{WEIR_JOIN_INNER, {true, true}},
                 {WEIR_JOIN_INNER, {true, false}},
                 {WEIR_JOIN_LEFT, {false, true}},
                 {WEIR_JOIN_RIGHT, {true, true}}};
    for (int i = 0; i < 4; i++) {
        random_run_io(cases[i].type, 1, seed + (uint64_t)i, NULL, cases[i].io);
        random_run_io(cases[i].type, 3, seed + (uint64_t)i, NULL, cases[i].io);
    }
#ifdef WEIR_HAVE_ROCKSDB
    char dir[] = "/tmp/weir-join-rocks-XXXXXX";
    cr_assert(mkdtemp(dir));
    random_run_io(WEIR_JOIN_INNER, 2, seed, dir, cases[0].io);
    random_run_io(WEIR_JOIN_LEFT, 2, seed + 2, dir, cases[2].io);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
#endif
}

/* A row log keeps repeated rows as elements of their own and joins them in arrival order. */
Test(join, row_log_joins_rows_in_arrival_order, .timeout = 60)
{
    jt t;
    memset(&t, 0, sizeof t);
    t.insert_only[L] = t.insert_only[R] = true;
    jt_start_ex(&t, WEIR_JOIN_INNER, 1, NULL, NULL);
    feed(&t, L, "+I,1,b", 0);
    feed(&t, L, "+I,1,a", 0);
    feed(&t, L, "+I,1,b", 0); /* a repeated row: another element */
    feed(&t, R, "+I,1,x", 3);
    feed(&t, R, "+I,1,x", 6);
    feed(&t, L, "+I,1,c", 8);
    jt_finish(&t, "+I 1,b,1,x\n"
                  "+I 1,a,1,x\n"
                  "+I 1,b,1,x\n"
                  "+I 1,b,1,x\n"
                  "+I 1,a,1,x\n"
                  "+I 1,b,1,x\n"
                  "+I 1,c,1,x\n"
                  "+I 1,c,1,x\n");
}

/* A retraction that reaches a side declared insert-only fails the job, naming the side. */
Test(join, retraction_on_an_insert_only_side_fails_the_job, .timeout = 60)
{
    jt t;
    memset(&t, 0, sizeof t);
    t.insert_only[R] = true;
    jt_start_ex(&t, WEIR_JOIN_INNER, 1, NULL, NULL);
    th_source_row_text(t.src[R], 0, 0, "+I,1,x");
    th_source_row_text(t.src[R], 0, 0, "-D,1,x");
    th_source_end_all(t.src[L]);
    th_source_end_all(t.src[R]);
    cr_assert_neq(weir_job_wait(t.job), 0);
    cr_assert(strstr(weir_job_error(t.job), "a -D row reached the insert-only right input"), "%s",
              weir_job_error(t.job));
    jt_destroy(&t);
}

Test(join, spec_rejects_bad_configs)
{
    weir_schema *out = th_schema("a BIGINT, b BIGINT");
    weir_join_config jc = {.type = WEIR_JOIN_INNER, .n_out = {1, 1}, .out_schema = out};
    weir_operator_spec spec;
    cr_assert_eq(weir_join_spec(&jc, &spec), WEIR_EINVAL, "a join without key columns");
    jc.keys[0].n = 1;
    jc.keys[1].n = 2;
    cr_assert_eq(weir_join_spec(&jc, &spec), WEIR_EINVAL, "key column counts differ");
    jc.keys[1].n = 1;
    jc.n_out[1] = 2;
    cr_assert_eq(weir_join_spec(&jc, &spec), WEIR_EINVAL, "output columns do not add up");
    weir_schema_destroy(out);
}

/*
 * A checkpoint taken at parallelism 1 after half the rows, restored at
 * parallelism 3 for the other half: the output of both runs folds to the
 * table of the whole workload (the join's rows and match counts moved with
 * their key groups).
 */
Test(join, restore_at_another_parallelism_continues_the_changelog, .timeout = 120)
{
    static rrow rows[N_STEPS];
    static char lines[N_STEPS][64];
    static int sides[N_STEPS];
    uint64_t seed = test_seed();
    size_t n = random_rows(seed, rows, lines, sides, NULL);
    char dir[] = "/tmp/weir-join-ckpt-XXXXXX";
    cr_assert(mkdtemp(dir));
    jt t;
    memset(&t, 0, sizeof t);
    jt_start_ex(&t, WEIR_JOIN_FULL, 1, NULL, dir);
    for (int i = 0; i < N_STEPS / 2; i++)
        th_source_row_text(t.src[sides[i]], 0, 0, lines[i]);
    for (int s = 0; s < 2; s++)
        cr_assert(th_source_wait_read(t.src[s], 0, GUARD_MS));
    /* Every row read is before the barrier: once the checkpoint completes, the sink has all their output. */
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(t.job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(t.job, id, GUARD_MS, &err), 0, "%s", err.message);
    weir_job_stop(t.job);
    weir_job_wait(t.job);
    weir_job_destroy(t.job);
    th_collect *first = t.sink;

    jt_start_ex(&t, WEIR_JOIN_FULL, 3, NULL, dir);
    cr_assert(strstr(weir_job_restored_from(t.job), "chk-"), "restored from '%s'", weir_job_restored_from(t.job));
    for (int i = N_STEPS / 2; i < N_STEPS; i++)
        th_source_row_text(t.src[sides[i]], 0, 0, lines[i]);
    th_source_end_all(t.src[0]);
    th_source_end_all(t.src[1]);
    cr_assert_eq(weir_job_wait(t.job), 0, "%s", weir_job_error(t.job));
    char *got = fold(t.sink, first), *want = expected_table(rows, n, WEIR_JOIN_FULL);
    cr_assert_str_eq(got, want, "seed %" PRIu64, seed);
    free(got);
    free(want);
    th_collect_destroy(first);
    jt_destroy(&t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/*
 * Interval join: a row is dropped once the watermark passes the last time a
 * row of the other side could match it; a row that arrives after that point
 * is joined with what is stored but not stored. No residual here, so the
 * state alone decides the matches and the cleanup shows in the output.
 */

typedef struct ij {
    weir_schema *in, *out;
    th_collect *sink;
    weir_job *job;
    th_source *src[2];
} ij;

/*
 * A join of two (k BIGINT, t BIGINT) inputs on k, configured by jc (out_schema and keys are set here), at
 * `parallelism`. With ckpt_dir the job is checkpointed there and restores its latest checkpoint; the sources
 * and schemas are kept when already set (a restored job reads on from the same sources).
 */
static void ij_start_ex(ij *x, weir_join_config jc, const char *name, uint32_t parallelism, const char *ckpt_dir)
{
    if (!x->in) {
        x->in = th_schema("k BIGINT, t BIGINT");
        x->out = th_schema("lk BIGINT, lt BIGINT, rk BIGINT, rt BIGINT");
        for (int s = 0; s < 2; s++)
            x->src[s] = th_usource_create(x->in, 1);
    }
    x->sink = th_collect_create(TH_KIND);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = parallelism;
    cr_assert_eq(weir_job_create(&cfg, &x->job), 0);
    weir_stream keyed[2];
    for (int s = 0; s < 2; s++) {
        weir_source_spec ss = th_source_spec(x->src[s], s ? "right" : "left");
        weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
        weir_stream st;
        cr_assert_eq(weir_job_source(x->job, &ss, &wm, 1, &st), 0);
        uint32_t kc = 0;
        keyed[s] = weir_stream_key_by(st, &kc, 1);
    }
    jc.n_out[0] = jc.n_out[1] = 2;
    jc.out_schema = x->out;
    jc.keys[0].n = jc.keys[1].n = 1;
    weir_operator_spec spec;
    cr_assert_eq(weir_join_spec(&jc, &spec), 0);
    cr_assert_str_eq(spec.name, name);
    weir_stream j;
    cr_assert_eq(weir_job_operator(x->job, keyed, 2, &spec, x->out, parallelism, &j), 0, "%s",
                 weir_job_error(x->job));
    weir_operator_spec sk = th_collect_spec(x->sink, "collect");
    cr_assert_eq(weir_job_sink(x->job, j, &sk, 1), 0);
    if (ckpt_dir) {
        weir_checkpoint_config cc;
        weir_checkpoint_config_init(&cc);
        cc.dir = ckpt_dir;
        weir_error err = {0};
        cr_assert_eq(weir_job_enable_checkpoints(x->job, &cc, &err), 0, "%s", err.message);
    }
    cr_assert_eq(weir_job_start(x->job), 0, "%s", weir_job_error(x->job));
}

static void ij_start_cfg(ij *x, weir_join_config jc, const char *name)
{
    memset(x, 0, sizeof *x);
    ij_start_ex(x, jc, name, 1, NULL);
}

/* An interval join of two (k BIGINT, t BIGINT) inputs on k with |left.t - right.t| <= 10. */
static void ij_start(ij *x, weir_join_type type)
{
    weir_join_config jc = {.type = type, .interval = true, .time_col = {1, 1}, .lo_ms = -10, .hi_ms = 10};
    ij_start_cfg(x, jc, "IntervalJoin");
}

static void ij_row(ij *x, int s, int64_t k, int64_t t) { th_source_row(x->src[s], 0, t, k, t); }

static void ij_finish(ij *x, const char *want)
{
    th_source_end_all(x->src[L]);
    th_source_end_all(x->src[R]);
    cr_assert_eq(weir_job_wait(x->job), 0, "%s", weir_job_error(x->job));
    cr_assert_str_eq(th_collect_text(x->sink, false), want);
}

static void ij_destroy(ij *x)
{
    weir_job_destroy(x->job);
    th_collect_destroy(x->sink);
    for (int s = 0; s < 2; s++)
        th_source_destroy(x->src[s]);
    weir_schema_destroy(x->in);
    weir_schema_destroy(x->out);
}

/*
 * Interval join: a row is dropped once the watermark passes the last time a
 * row of the other side could match it; a row behind its own side's
 * watermark is late: neither joined nor stored. No residual here, so the
 * state alone decides the matches and the cleanup shows in the output.
 */
Test(join, interval_join_drops_rows_behind_the_watermark, .timeout = 60)
{
    ij x;
    ij_start(&x, WEIR_JOIN_INNER);
    ij_row(&x, L, 1, 100);
    ij_row(&x, R, 1, 105);
    cr_assert(th_collect_wait_count(x.sink, 1, GUARD_MS));
    ij_row(&x, L, 2, 200);
    ij_row(&x, R, 2, 200);
    cr_assert(th_collect_wait_count(x.sink, 2, GUARD_MS));
    /* The join held its watermark back by 11 ms (a pair's left time can be 10 ms below W). */
    cr_assert(th_collect_wait_watermark(x.sink, 189, GUARD_MS));
    cr_assert_eq(th_collect_watermark(x.sink), 189);
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 2, "both rows of key 1 are gone at W = 200");
    /* A right row of key 1 finds nothing; the pair of key 3 after it (same channel) proves it was processed. */
    ij_row(&x, R, 1, 300);
    ij_row(&x, R, 3, 400);
    ij_row(&x, L, 3, 400);
    cr_assert(th_collect_wait_count(x.sink, 3, GUARD_MS));
    cr_assert(th_collect_wait_watermark(x.sink, 389, GUARD_MS));
    /* Key 1's right row (300) expired at W = 400 too; a late left row of key 1 is neither joined nor kept. */
    ij_row(&x, L, 1, 50);
    ij_row(&x, L, 4, 500);
    ij_row(&x, R, 4, 500);
    cr_assert(th_collect_wait_count(x.sink, 4, GUARD_MS));
    ij_finish(&x, "+I 1,100,1,105\n"
                  "+I 2,200,2,200\n"
                  "+I 3,400,3,400\n"
                  "+I 4,500,4,500\n");
    cr_assert_eq(th_metric(x.job, "*late_rows"), 1);
    ij_destroy(&x);
}

/* An outer interval join pads a row when it expires unmatched, never earlier: append-only output. */
Test(join, outer_interval_join_pads_rows_when_they_expire, .timeout = 60)
{
    ij x;
    ij_start(&x, WEIR_JOIN_FULL);
    ij_row(&x, L, 1, 100);
    ij_row(&x, R, 2, 100);
    cr_assert(th_collect_wait_watermark(x.sink, 100, GUARD_MS));
    cr_assert_eq(th_collect_count(x.sink), 0, "nothing is padded while a match may come");
    ij_row(&x, R, 1, 108);         /* matches left 100 */
    cr_assert(th_collect_wait_count(x.sink, 1, GUARD_MS));
    ij_row(&x, L, 3, 111);
    ij_row(&x, R, 3, 111);         /* W = 111: left 1@100 and right 2@100 expire; 1@100 was matched */
    cr_assert(th_collect_wait_count(x.sink, 3, GUARD_MS));
    ij_row(&x, L, 7, 150);
    ij_row(&x, R, 7, 150);         /* W = 150: right 1@108 (matched) and both 3@111 (matched) expire */
    cr_assert(th_collect_wait_count(x.sink, 4, GUARD_MS));
    ij_row(&x, L, 5, 20);          /* late (behind the left watermark 150): dropped, counted */
    ij_row(&x, L, 8, 300);
    ij_row(&x, R, 8, 300);
    cr_assert(th_collect_wait_count(x.sink, 5, GUARD_MS));
    ij_finish(&x, "+I 1,100,1,108\n"
                  "+I 3,111,3,111\n"
                  "+I NULL,NULL,2,100\n"
                  "+I 7,150,7,150\n"
                  "+I 8,300,8,300\n");
    cr_assert_eq(th_metric(x.job, "*late_rows"), 1);
    ij_destroy(&x);
}

/* A row stays until its last possible match: removed neither early nor with a neighbour's timer. */
Test(join, interval_join_keeps_rows_until_their_last_match, .timeout = 60)
{
    ij x;
    ij_start(&x, WEIR_JOIN_INNER);
    ij_row(&x, R, 1, 90);          /* expires at W = 101 */
    ij_row(&x, R, 1, 100);         /* expires at W = 111 */
    ij_row(&x, L, 2, 109);
    ij_row(&x, R, 2, 109);
    cr_assert(th_collect_wait_count(x.sink, 1, GUARD_MS));
    cr_assert(th_collect_wait_watermark(x.sink, 98, GUARD_MS)); /* 109 held back by 11 */
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 1, "only 1@90 has expired at W = 109");
    ij_row(&x, L, 1, 110);         /* 110 - 100 = 10: still a match */
    cr_assert(th_collect_wait_count(x.sink, 2, GUARD_MS));
    ij_finish(&x, "+I 2,109,2,109\n"
                  "+I 1,110,1,100\n");
    ij_destroy(&x);
}

/*
 * Bounded regular join (Nexmark q7's shape: the right side's rows all have
 * a time above its watermark, and a left row at t can only match right
 * times up to t + 10): a left row is dropped once the watermark reaches
 * t + 10, one that arrives past that is joined but not stored, and right
 * rows stay (nothing is late: a left row behind the watermark still finds
 * them). No residual here, so the state alone decides the matches and the
 * cleanup shows in the output.
 */
Test(join, bounded_join_drops_rows_the_other_side_can_no_longer_reach, .timeout = 60)
{
    ij x;
    /* inputs not declared insert-only: map entries (the next tests: row logs) */
    weir_join_config jc = {.type = WEIR_JOIN_INNER, .bounded = {true, false}, .bound_col = {1, 0},
                           .bound_off = {10, 0}};
    ij_start_cfg(&x, jc, "Join");
    ij_row(&x, L, 1, 100);
    ij_row(&x, R, 1, 105);
    cr_assert(th_collect_wait_count(x.sink, 1, GUARD_MS));
    ij_row(&x, L, 2, 200);
    ij_row(&x, R, 2, 200);
    cr_assert(th_collect_wait_count(x.sink, 2, GUARD_MS));
    /* A regular join: the watermark is not held back; its timers ran before it went on. */
    cr_assert(th_collect_wait_watermark(x.sink, 200, GUARD_MS));
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 1, "left 1@100 is gone at W = 200 (its bound was 110)");
    /* Right 1@300 finds no left row; the pair of key 3 after it (same channel) proves it was processed. */
    ij_row(&x, R, 1, 300);
    ij_row(&x, R, 3, 400);
    ij_row(&x, L, 3, 400);
    cr_assert(th_collect_wait_count(x.sink, 3, GUARD_MS));
    /* Left 1@50 is behind the watermark: joined with both stored right rows of key 1, not stored. */
    ij_row(&x, L, 1, 50);
    cr_assert(th_collect_wait_count(x.sink, 5, GUARD_MS));
    /* At W = 400: 1@100, 2@200 (bound 210) and 1@50 (never stored); 3@400 stays until 410. */
    cr_assert(th_collect_wait_watermark(x.sink, 400, GUARD_MS));
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 3);
    cr_assert_eq(th_metric(x.job, "*late_rows"), 0, "a regular join has no late rows");
    th_source_end_all(x.src[L]);
    th_source_end_all(x.src[R]);
    cr_assert_eq(weir_job_wait(x.job), 0, "%s", weir_job_error(x.job));
    /* sorted: the two rows of left 1@50 come in the state's order */
    cr_assert_str_eq(th_collect_text(x.sink, true), "+I 1,100,1,105\n"
                                                    "+I 1,50,1,105\n"
                                                    "+I 1,50,1,300\n"
                                                    "+I 2,200,2,200\n"
                                                    "+I 3,400,3,400\n");
    ij_destroy(&x);
}

/*
 * A bounded join lists a key in an expiry bucket once per stored row, and
 * drains each key once per bucket: 600 keys with three rows each,
 * interleaved (so no listing repeats the one before it), all expire at
 * W = 1000; the even keys also have a row of the next bucket (2000), which
 * must survive the first drain. Every left row gone is counted once, and
 * the right rows that come after a drain find only what must be left.
 */
Test(join, bounded_join_drains_each_listed_key_once_per_bucket, .timeout = 120)
{
    ij x;
    /* insert-only inputs (as the planner declares q7's): both sides keep row logs */
    weir_join_config jc = {.type = WEIR_JOIN_INNER, .bounded = {true, false}, .bound_col = {1, 0},
                           .bound_off = {10, 0}, .bound_step_ms = 1000, .insert_only = {true, true}};
    ij_start_cfg(&x, jc, "Join");
    for (int64_t rep = 0; rep < 3; rep++)
        for (int64_t k = 1; k <= 600; k++)
            ij_row(&x, L, k, 100 + rep);
    for (int64_t k = 2; k <= 600; k += 2)
        ij_row(&x, L, k, 1500);
    ij_row(&x, R, 9999, 1200); /* W = 1200: bucket 1000 (bounds 110..112) is drained */
    cr_assert(th_collect_wait_watermark(x.sink, 1200, GUARD_MS));
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 1800);
    for (int64_t k = 1; k <= 600; k++)
        ij_row(&x, R, k, 1300); /* only the even keys' rows at 1500 are left to match */
    cr_assert(th_collect_wait_count(x.sink, 300, GUARD_MS));
    ij_row(&x, L, 9998, 3000);
    ij_row(&x, R, 9998, 3000); /* W = 3000: bucket 2000 (bound 1510) is drained */
    cr_assert(th_collect_wait_count(x.sink, 301, GUARD_MS));
    cr_assert(th_collect_wait_watermark(x.sink, 3000, GUARD_MS));
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 2100);
    for (int64_t k = 1; k <= 600; k++)
        ij_row(&x, R, k, 3100); /* no left row of these keys is left */
    th_source_end_all(x.src[L]);
    th_source_end_all(x.src[R]);
    cr_assert_eq(weir_job_wait(x.job), 0, "%s", weir_job_error(x.job));
    cr_assert_eq(th_collect_count(x.sink), 301);
    const char *out = th_collect_text(x.sink, true);
    cr_assert(strstr(out, "+I 2,1500,2,1300\n") && strstr(out, "+I 600,1500,600,1300\n") &&
                  strstr(out, "+I 9998,3000,9998,3000\n") && !strstr(out, ",3100\n"),
              "%s", out);
    ij_destroy(&x);
}

/* Key i of the long-key test: 150 bytes or more (their listings' length takes two bytes) when long, else short. */
static void lk_key(char *buf, size_t n, int i, bool long_key)
{
    if (long_key)
        snprintf(buf, n, "%0150d", i);
    else
        snprintf(buf, n, "s%d", i);
}

/*
 * A bounded join lists keys of any length in its expiry buckets: 40 keys of
 * 150 bytes and more (a listing's length in two bytes) between 40 short
 * ones, two rows each at 100 and 101, interleaved; the even keys also have
 * a row at 1500. At W = 1200 the first bucket drops the 160 rows of 100
 * and 101 of every key (a length read wrong names keys that do not exist
 * or loses the listings after it), and right rows at 1300 find only the
 * even keys' rows at 1500. A bucket opened after that drain takes the
 * drained one's block, and its rows go at W = 3100 as well (right rows at
 * 3200 find nothing).
 */
Test(join, bounded_join_drains_long_keys, .timeout = 120)
{
    weir_join_config jc = {.type = WEIR_JOIN_INNER, .bounded = {true, false}, .bound_col = {1, 0},
                           .bound_off = {10, 0}, .bound_step_ms = 1000, .insert_only = {true, true}};
    ij x;
    memset(&x, 0, sizeof x);
    x.in = th_schema("k STRING, t BIGINT");
    x.out = th_schema("lk STRING, lt BIGINT, rk STRING, rt BIGINT");
    for (int s = 0; s < 2; s++)
        x.src[s] = th_usource_create(x.in, 1);
    ij_start_ex(&x, jc, "Join", 1, NULL);
    char key[200];
    for (int64_t t = 100; t <= 101; t++)
        for (int i = 0; i < 80; i++) {
            lk_key(key, sizeof key, i, i % 4 < 2);
            th_source_row(x.src[L], 0, t, key, t);
        }
    for (int i = 0; i < 80; i += 2) {
        lk_key(key, sizeof key, i, i % 4 < 2);
        th_source_row(x.src[L], 0, 1500, key, (int64_t)1500);
    }
    th_source_row(x.src[R], 0, 1200, "none", (int64_t)1200); /* W = 1200: bucket 1000 (bounds 110, 111) */
    cr_assert(th_collect_wait_watermark(x.sink, 1200, GUARD_MS));
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 160);
    for (int i = 0; i < 80; i++) {
        lk_key(key, sizeof key, i, i % 4 < 2);
        th_source_row(x.src[R], 0, 1300, key, (int64_t)1300);
    }
    /* A bucket opened after a drain (its block the drained one's): the long keys again at 2500 */
    for (int i = 0; i < 80; i += 4) {
        lk_key(key, sizeof key, i, true);
        th_source_row(x.src[L], 0, 2500, key, (int64_t)2500);
    }
    th_source_row(x.src[L], 0, 3100, "end", (int64_t)3100);
    th_source_row(x.src[R], 0, 3100, "none", (int64_t)3100); /* W = 3100: buckets 2000 and 3000 */
    cr_assert(th_collect_wait_watermark(x.sink, 3100, GUARD_MS));
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 160 + 40 + 20);
    for (int i = 0; i < 80; i++) {
        lk_key(key, sizeof key, i, i % 4 < 2);
        th_source_row(x.src[R], 0, 3200, key, (int64_t)3200); /* nothing left to match */
    }
    th_source_end_all(x.src[L]);
    th_source_end_all(x.src[R]);
    cr_assert_eq(weir_job_wait(x.job), 0, "%s", weir_job_error(x.job));
    /* 40 pairs with the 1500 rows, 20 of the 2500 rows with the right rows at 1300; none at 3200 */
    cr_assert_eq(th_collect_count(x.sink), 60, "%s", th_collect_text(x.sink, true));
    const char *out = th_collect_text(x.sink, true);
    cr_assert(!strstr(out, ",100,") && !strstr(out, ",101,") && !strstr(out, ",3200\n"), "%s", out);
    lk_key(key, sizeof key, 76, true);
    char want[512];
    snprintf(want, sizeof want, "+I %s,1500,%s,1300\n", key, key);
    cr_assert(strstr(out, want) && strstr(out, "+I s78,1500,s78,1300\n"), "%s", out);
    ij_destroy(&x);
}

/*
 * A bounded join's rows survive a checkpoint and are still dropped after a
 * restore at another parallelism: eight left rows of distinct keys (bound
 * 110, the shape of q7's distinct prices) are stored when the checkpoint is
 * taken at parallelism 1; restored at parallelism 3, the first watermark
 * past 110 drops all eight (every subtask finds the ones of its key groups),
 * so right rows of those keys that come later match nothing.
 */
Test(join, bounded_join_drops_restored_rows_at_another_parallelism, .timeout = 120)
{
    char dir[] = "/tmp/weir-join-bounded-XXXXXX";
    cr_assert(mkdtemp(dir));
    /* insert-only inputs (as the planner declares q7's): both sides keep row logs */
    weir_join_config jc = {.type = WEIR_JOIN_INNER, .bounded = {true, false}, .bound_col = {1, 0},
                           .bound_off = {10, 0}, .bound_step_ms = 1000, .insert_only = {true, true}};
    ij x;
    memset(&x, 0, sizeof x);
    ij_start_ex(&x, jc, "Join", 1, dir);
    for (int64_t k = 1; k <= 8; k++)
        ij_row(&x, L, k, 100);
    ij_row(&x, L, 20, 105);
    ij_row(&x, R, 20, 105); /* a pair: both sides at W = 105 before the checkpoint */
    cr_assert(th_collect_wait_count(x.sink, 1, GUARD_MS));
    for (int s = 0; s < 2; s++)
        cr_assert(th_source_wait_read(x.src[s], 0, GUARD_MS));
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(x.job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(x.job, id, GUARD_MS, &err), 0, "%s", err.message);
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 0, "nothing expires before W = 1000 (110 rounded up)");
    weir_job_stop(x.job);
    weir_job_wait(x.job);
    weir_job_destroy(x.job);
    th_collect_destroy(x.sink);

    ij_start_ex(&x, jc, "Join", 3, dir);
    cr_assert(strstr(weir_job_restored_from(x.job), "chk-"), "restored from '%s'", weir_job_restored_from(x.job));
    ij_row(&x, L, 30, 2000);
    ij_row(&x, R, 30, 2000);
    cr_assert(th_collect_wait_count(x.sink, 1, GUARD_MS));
    cr_assert(th_collect_wait_watermark(x.sink, 2000, GUARD_MS));
    /* 1..8@100 and 20@105 (bound 115): all gone at W = 2000 */
    cr_assert_eq(th_metric(x.job, "*expired_rows"), 9);
    for (int64_t k = 1; k <= 8; k++)
        ij_row(&x, R, k, 2100);
    ij_row(&x, R, 40, 2200);
    ij_row(&x, L, 40, 2200);
    cr_assert(th_collect_wait_count(x.sink, 2, GUARD_MS));
    th_source_end_all(x.src[L]);
    th_source_end_all(x.src[R]);
    cr_assert_eq(weir_job_wait(x.job), 0, "%s", weir_job_error(x.job));
    cr_assert_str_eq(th_collect_text(x.sink, true), "+I 30,2000,30,2000\n"
                                                    "+I 40,2200,40,2200\n");
    ij_destroy(&x);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(join, bounded_join_spec_needs_an_inner_regular_join)
{
    weir_schema *out = th_schema("lk BIGINT, lt BIGINT, rk BIGINT, rt BIGINT");
    weir_join_config jc = {.type = WEIR_JOIN_LEFT, .n_out = {2, 2}, .out_schema = out, .bounded = {true, false},
                           .bound_col = {1, 0}, .bound_off = {10, 0}};
    jc.keys[0].n = jc.keys[1].n = 1;
    weir_operator_spec spec;
    cr_assert_eq(weir_join_spec(&jc, &spec), WEIR_EINVAL, "an outer side's padding needs every row");
    jc.type = WEIR_JOIN_INNER;
    jc.interval = true;
    jc.time_col[0] = jc.time_col[1] = 1;
    cr_assert_eq(weir_join_spec(&jc, &spec), WEIR_EINVAL, "an interval join has its own bounds");
    jc.interval = false;
    cr_assert_eq(weir_join_spec(&jc, &spec), 0);
    spec.free_arg(spec.arg);
    weir_schema_destroy(out);
}

/*
 * Feeds the left input nl rows of key 1 (lv "l<i>", "skip" for every
 * skip-th from the 4th, which the residual rejects) and waits until the
 * join took them all.
 */
static void feed_nested_left(jt *t, int nl, int skip)
{
    char row[64];
    for (int i = 0; i < nl; i++) {
        if (i % skip == 3)
            snprintf(row, sizeof row, "+I,1,skip");
        else
            snprintf(row, sizeof row, "+I,1,l%d", i);
        th_source_row_text(t->src[L], 0, 0, row);
    }
    cr_assert(th_source_wait_read(t->src[L], 0, GUARD_MS));
    t->fed = (size_t)nl;
    cr_assert(join_took(t, t->fed));
}

/*
 * Ends the job and checks its output against the nested-loop join of nl
 * left rows (key 1, lv "l<i>", the residual rejecting every skip-th from
 * the 4th) and nr right rows (rv "r<r>") in arrival order: each right
 * row's pairs in the left rows' order.
 */
static void finish_nested(jt *t, int nl, int nr, int skip)
{
    char row[64];
    weir_buf want;
    weir_buf_init(&want);
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < nl; i++) {
            if (i % skip == 3)
                continue;
            int n = snprintf(row, sizeof row, "+I 1,l%d,1,r%d\n", i, r);
            cr_assert_eq(weir_buf_put(&want, row, (size_t)n), 0);
        }
    cr_assert_eq(weir_buf_put(&want, "", 1), 0);
    jt_finish(t, (const char *)want.data);
    weir_buf_fini(&want);
}
/*
 * An inner join evaluates its residual once over the candidates of many
 * input rows of a batch (at most 4 096 waiting, then they are evaluated
 * and emitted before the next row is gathered): 1 200 left rows of one
 * key, then right rows in a burst (batches of up to 4, 4 800 candidates:
 * whether a batch is that full depends on how the rows arrive, the output
 * does not). Each right row's pairs come in the left rows' arrival order,
 * those the residual (lv <> 'skip') rejects left out.
 */
Test(join, batched_residual_keeps_row_order, .timeout = 120)
{
    jt t;
    memset(&t, 0, sizeof t);
    t.insert_only[L] = t.insert_only[R] = true;
    jt_start_ex(&t, WEIR_JOIN_INNER, 1, "skip", NULL);
    enum { NL = 1200, NR = 6 };
    feed_nested_left(&t, NL, 5);
    char row[64];
    for (int r = 0; r < NR; r++) {
        snprintf(row, sizeof row, "+I,1,r%d", r);
        th_source_row_text(t.src[R], 0, 0, row);
    }
    finish_nested(&t, NL, NR, 5);
}

/*
 * One input batch meets more than 4 096 candidates, at a fixed shape: 1 100
 * left rows of one key (lv 'skip' for every 7th from the 4th), then eight
 * right rows given at once to a job of batch size 8, so that one batch of
 * them reaches the join. After its fourth row 4 400 candidates wait: they
 * are evaluated and emitted before the fifth row is gathered, the other
 * four rows' at the batch's end. The output is the nested-loop join's in
 * arrival order: each right row's pairs in the left rows' order, those the
 * residual (lv <> 'skip') rejects left out.
 */
Test(join, batched_residual_over_more_than_4096_candidates_of_one_batch, .timeout = 120)
{
    jt t;
    memset(&t, 0, sizeof t);
    t.insert_only[L] = t.insert_only[R] = true;
    t.batch_size = 8;
    jt_start_ex(&t, WEIR_JOIN_INNER, 1, "skip", NULL);
    enum { NL = 1100, NR = 8 };
    feed_nested_left(&t, NL, 7);
    char rights[NR][24];
    const char *rp[NR];
    for (int r = 0; r < NR; r++) {
        snprintf(rights[r], sizeof rights[r], "+I,1,r%d", r);
        rp[r] = rights[r];
    }
    th_source_rows_text(t.src[R], 0, 0, rp, NR);
    finish_nested(&t, NL, NR, 7);
}

/*
 * A run-time error of an inner join's residual names the input row and
 * which of its key's rows on the other input it met, though the residual
 * ran over the candidates of several input rows at once: 10 / (lv - rv)
 * <> 0 (both as BIGINT) divides by zero where they are equal. 1 000 left
 * rows (lv 0 to 999) of one key, then four right rows in a burst (rv 5000,
 * 5001, 5002, 37), up to 4 000 candidates evaluated together: the error
 * names the fourth right row (its place in its input batch: 3 when the
 * burst came as one batch) and left row 37 of the 1 000, not the pair's
 * place among the pooled candidates (3 037).
 */
Test(join, residual_error_names_the_input_row_and_its_match, .timeout = 120)
{
    jt t;
    memset(&t, 0, sizeof t);
    t.insert_only[L] = t.insert_only[R] = true;
    weir_error err = {0};
    weir_expr *lv, *rv, *d, *q, *e, *a[2];
    t.arena = weir_expr_arena_create();
    cr_assert(t.arena);
    cr_assert_eq(weir_expr_column(t.arena, 1, weir_type_make(WEIR_TYPE_STRING, true), &a[0], &err), 0);
    cr_assert_eq(weir_expr_cast(t.arena, a[0], weir_type_make(WEIR_TYPE_BIGINT, true), false, &lv, &err), 0);
    cr_assert_eq(weir_expr_column(t.arena, 3, weir_type_make(WEIR_TYPE_STRING, true), &a[0], &err), 0);
    cr_assert_eq(weir_expr_cast(t.arena, a[0], weir_type_make(WEIR_TYPE_BIGINT, true), false, &rv, &err), 0);
    a[0] = lv, a[1] = rv;
    cr_assert_eq(weir_expr_call(t.arena, "-", a, 2, &d, &err), 0, "%s", err.message);
    a[0] = weir_expr_lit_bigint(t.arena, 10), a[1] = d;
    cr_assert_eq(weir_expr_call(t.arena, "/", a, 2, &q, &err), 0, "%s", err.message);
    a[0] = q, a[1] = weir_expr_lit_bigint(t.arena, 0);
    cr_assert_eq(weir_expr_call(t.arena, "<>", a, 2, &e, &err), 0, "%s", err.message);
    t.residual = e;
    jt_start_ex(&t, WEIR_JOIN_INNER, 1, NULL, NULL);
    enum { NL = 1000 };
    char row[64];
    for (int i = 0; i < NL; i++) {
        snprintf(row, sizeof row, "+I,1,%d", i);
        th_source_row_text(t.src[L], 0, 0, row);
    }
    cr_assert(th_source_wait_read(t.src[L], 0, GUARD_MS));
    t.fed = NL;
    cr_assert(join_took(&t, t.fed));
    const char *right[] = {"+I,1,5000", "+I,1,5001", "+I,1,5002", "+I,1,37"};
    for (int r = 0; r < 4; r++)
        th_source_row_text(t.src[R], 0, 0, right[r]);
    th_source_end_all(t.src[L]);
    th_source_end_all(t.src[R]);
    cr_assert_neq(weir_job_wait(t.job), 0, "the division by zero did not fail the job");
    const char *msg = weir_job_error(t.job), *at = strstr(msg, "join condition: ");
    cr_assert(at, "%s", msg);
    const char *tail = " (row %u, with the other input's row 37 of the 1000 under its key)";
    const char *open = strstr(at, " (row ");
    unsigned rn = 99;
    int end = 0;
    cr_assert(open && sscanf(open, " (row %u, with the other input's row 37 of the 1000 under its key)%n", &rn, &end) == 1 &&
                  end > 0,
              "the error does not name the input row and its match as%s: %s", tail, msg);
    cr_assert_leq(rn, 3, "row %u is past the burst of four: %s", rn, msg);
    weir_job_destroy(t.job);
    th_collect_destroy(t.sink);
    for (int s = 0; s < 2; s++)
        th_source_destroy(t.src[s]);
    weir_schema_destroy(t.in);
    weir_schema_destroy(t.side);
    weir_schema_destroy(t.out);
    weir_expr_arena_destroy(t.arena);
}

/*
 * A join decodes a stored row once per output batch: a later output row
 * of a row with the same bytes takes the earlier output row's values
 * (strings shared). 300 keys hold a right row each: rv "same" (the same
 * bytes under every such key: the key column is not stored), NULL, or
 * "v<k>" of three digits (bytes of the same length that differ), a third
 * of the keys each; rows of different keys meet in the memo's 64 slots;
 * then 600 left rows (each key twice, and a "skip" row every 7th, which
 * residual_ne rejects when set) come in batches of 256. Each pair must
 * carry its own key and its own right row, NULL included.
 */
/* reuse_decoded's right row of key k (its rv, written into v when it is made). */
static const char *right_v(int k, char *v)
{
    if (k % 3 == 1)
        return "NULL";
    if (k % 3 == 2)
        return "same";
    snprintf(v, 8, "v%03d", k);
    return v;
}

static void reuse_decoded(weir_join_type type, const char *residual_ne, const char *rocksdb_dir)
{
    jt t;
    memset(&t, 0, sizeof t);
    t.rocksdb_dir = rocksdb_dir;
    t.insert_only[L] = t.insert_only[R] = true;
    t.batch_size = 256;
    jt_start_ex(&t, type, 1, residual_ne, NULL);
    enum { NK = 300 };
    static char rights[NK][32], lefts[2 * NK][32];
    const char *rp[NK], *lp[2 * NK];
    char row[64], v[8];
    for (int k = 0; k < NK; k++) {
        snprintf(rights[k], sizeof rights[k], "+I,%d,%s", k + 1, right_v(k + 1, v));
        rp[k] = rights[k];
    }
    th_source_rows_text(t.src[R], 0, 0, rp, NK);
    cr_assert(th_source_wait_read(t.src[R], 0, GUARD_MS));
    cr_assert(join_took(&t, NK));
    weir_buf want;
    weir_buf_init(&want);
    for (int i = 0; i < 2 * NK; i++) {
        int k = (i * 7919) % NK + 1; /* every key twice, in a scattered order */
        const char *lv = i % 7 == 3 ? "skip" : "l";
        snprintf(lefts[i], sizeof lefts[i], "+I,%d,%s", k, lv);
        lp[i] = lefts[i];
        if (residual_ne && !strcmp(lv, residual_ne))
            continue;
        int n = snprintf(row, sizeof row, "+I %d,%s,%d,%s\n", k, lv, k, right_v(k, v));
        cr_assert_eq(weir_buf_put(&want, row, (size_t)n), 0);
    }
    cr_assert_eq(weir_buf_put(&want, "", 1), 0);
    th_source_rows_text(t.src[L], 0, 0, lp, 2 * NK);
    jt_finish(&t, (const char *)want.data);
    weir_buf_fini(&want);
}

/* An inner join with a residual: its output rows wait for the residual in batches. */
Test(join, batched_pairs_reuse_decoded_rows_only_of_equal_bytes_and_key, .timeout = 120)
{
    reuse_decoded(WEIR_JOIN_INNER, "skip", NULL);
}

/* A left join without one: each output row goes out as it is written. */
Test(join, pairs_reuse_decoded_rows_only_of_equal_bytes_and_key, .timeout = 120)
{
    reuse_decoded(WEIR_JOIN_LEFT, NULL, NULL);
}

/* On RocksDB the rows a scan meets lie in the backend's buffers, often at
 * one address: the slot's hint finds other rows' bytes there, and only
 * the compare keeps them apart. */
Test(join, pairs_reuse_decoded_rows_on_rocksdb, .timeout = 120)
{
#ifndef WEIR_HAVE_ROCKSDB
    cr_skip_test("built without RocksDB");
#endif
    char dir[] = "/tmp/weir-join-rocks-XXXXXX";
    cr_assert(mkdtemp(dir));
    reuse_decoded(WEIR_JOIN_INNER, "skip", dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

static void sum_skipped(void *ud, const char *name, double value)
{
    if (strstr(name, ".rows_skipped_for_top1"))
        *(double *)ud += value;
}

/*
 * A join chained to a deduplication that keeps the last of equal rows
 * (ties_newer_first: an equal row replaces the kept one), linked so that
 * the join skips the rows it would drop (ops/top1_hint.h): a strictly
 * worse right row is skipped (counted, nothing emitted), an equal one is
 * joined and replaces the kept row, a better one too. SQL plans no such
 * deduplication after a regular join (its rows have no time attribute),
 * so only this test reaches the rule that ties are never skipped.
 */
Test(join, top1_skip_joins_rows_that_tie_with_a_keep_last_deduplication, .timeout = 60)
{
    jt t;
    memset(&t, 0, sizeof t);
    t.in = th_schema("op STRING, k BIGINT, v STRING");
    t.side = th_schema("k BIGINT, v STRING");
    t.out = th_schema("lk BIGINT, lv STRING, rk BIGINT, rv STRING");
    for (int s = 0; s < 2; s++)
        t.src[s] = th_usource_create(t.in, 1);
    t.sink = th_collect_create(TH_KIND);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.batch_size = 4;
    cr_assert_eq(weir_job_create(&cfg, &t.job), 0);
    weir_stream keyed[2];
    for (int s = 0; s < 2; s++) {
        weir_watermark_spec wm = {.kind = WEIR_WATERMARK_NONE};
        weir_stream m;
        cr_assert_eq(th_changelog_stream(t.job, t.src[s], s ? "right" : "left", &wm, t.side, &m), 0);
        uint32_t kc = 0;
        keyed[s] = weir_stream_key_by(m, &kc, 1);
    }
    weir_join_config jc = {.type = WEIR_JOIN_INNER, .n_out = {2, 2}, .out_schema = t.out, .insert_only = {true, true}};
    jc.keys[0].n = jc.keys[1].n = 1;
    weir_operator_spec js, rs;
    cr_assert_eq(weir_join_spec(&jc, &js), 0);
    weir__top1_link *l = weir__top1_link_new();
    cr_assert(l);
    *l = (weir__top1_link){.refs = 1, .side = R, .n_order = 1, .cols = {1}, .desc = {true}, .nulls_last = {true}};
    cr_assert_eq(weir__join_set_top1(&js, l), 0);
    weir_rank_config rk = {.partition = {.n = 1, .cols = {0}}, .n_order = 1, .order_cols = {3},
                           .order_desc = {true}, .nulls_last = {true}, .rank_start = 1, .rank_end = 1,
                           .dedup = true, .ties_newer_first = true, .out_schema = t.out, .window_end_col = -1,
                           .top1_link = l};
    cr_assert_eq(weir_rank_spec(&rk, &rs), 0);
    weir__top1_link_unref(l);
    weir_stream j, r;
    cr_assert_eq(weir_job_operator(t.job, keyed, 2, &js, t.out, 1, &j), 0, "%s", weir_job_error(t.job));
    /* the join's rows lie by its left key: the keyed edge to the deduplication is chained */
    weir_keyspec lk = {.n = 1, .cols = {0}};
    cr_assert_eq(weir__job_keyed_output(t.job, j.node, &lk, 0), 0);
    weir_stream kj = weir_stream_key_by(j, lk.cols, 1);
    cr_assert_eq(weir_job_operator(t.job, &kj, 1, &rs, t.out, 1, &r), 0, "%s", weir_job_error(t.job));
    weir_operator_spec sink = th_collect_spec(t.sink, "collect");
    cr_assert_eq(weir_job_sink(t.job, r, &sink, 1), 0);
    cr_assert_eq(weir_job_start(t.job), 0, "%s", weir_job_error(t.job));
    feed(&t, L, "+I,1,a", 0);
    feed(&t, R, "+I,1,5", 1);
    feed(&t, R, "+I,1,3", 1); /* below the kept 5: skipped */
    feed(&t, R, "+I,1,5", 3); /* equal: the last one is kept */
    feed(&t, R, "+I,1,4", 3); /* below: skipped */
    feed(&t, R, "+I,1,7", 5);
    feed(&t, R, "+I,2,9", 5); /* no left row: stored */
    feed(&t, L, "+I,2,b", 6);
    double skipped = 0;
    weir_job_metrics(t.job, sum_skipped, &skipped);
    cr_assert_eq(skipped, 2, "skipped %g rows", skipped);
    jt_finish(&t, "+I 1,a,1,5\n-U 1,a,1,5\n+U 1,a,1,5\n-U 1,a,1,5\n+U 1,a,1,7\n+I 2,b,2,9\n");
}
