/*
 * tests/test_sink_materialize.c - the upsert materializer before a sink
 * with a PRIMARY KEY (ops/sink_materialize.c), driven through the C API.
 *
 * Input rows (pk BIGINT, uk BIGINT, v STRING) carry their changelog kind in
 * an `op` column; the materializer is keyed by pk, with uk as the upsert key
 * or without one (rows matched by every column). A model written here from
 * the rules (the list of live rows per pk: +I/+U replace the row of the
 * same upsert key or append, and are emitted +I on an empty list, else +U;
 * -U/-D remove the first matching row, if any: -D of the row when the list
 * empties, +U of the new last row when the last was removed) gives the
 * changelog each pk must show. Random workloads (seed printed;
 * SINK_MATERIALIZE_SEED replaces it) at parallelism 1 and 3, and a restore
 * from a checkpoint at another parallelism, compare each pk's changelog
 * with the model's.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "support/harness.h"
#include "weir/checkpoint.h"
#include "weir/weir.h"

#define GUARD_MS 20000
#define N_KEYS 6
#define N_STEPS 600
#define MAX_LIVE N_STEPS

static uint64_t test_seed(void)
{
    static uint64_t seed;
    if (!seed) {
        const char *s = getenv("SINK_MATERIALIZE_SEED");
        seed = s ? strtoull(s, NULL, 10) : 7;
        fprintf(stderr, "test_sink_materialize: seed %" PRIu64 " (set SINK_MATERIALIZE_SEED to change)\n", seed);
    }
    return seed;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ------------------------------------------------------------- the model */

typedef struct mrow {
    int uk;
    char v[8];
} mrow;

typedef struct model {
    bool by_uk;
    mrow live[N_KEYS][MAX_LIVE];
    int n[N_KEYS];
    /* the changelog each pk must show, one line after another */
    char *out[N_KEYS];
    size_t len[N_KEYS];
} model;

static void emit(model *m, int pk, const char *kind, const mrow *r)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%s %d,%d,%s\n", kind, pk, r->uk, r->v);
    m->out[pk] = realloc(m->out[pk], m->len[pk] + (size_t)n + 1);
    memcpy(m->out[pk] + m->len[pk], line, (size_t)n + 1);
    m->len[pk] += (size_t)n;
}

static bool same(const model *m, const mrow *a, const mrow *b)
{
    return a->uk == b->uk && (m->by_uk || !strcmp(a->v, b->v));
}

static void model_apply(model *m, const char *op, int pk, const mrow *r)
{
    mrow *l = m->live[pk];
    int *n = &m->n[pk];
    if (!strcmp(op, "+I") || !strcmp(op, "+U")) {
        emit(m, pk, *n == 0 ? "+I" : "+U", r);
        for (int i = 0; m->by_uk && i < *n; i++)
            if (l[i].uk == r->uk) {
                l[i] = *r;
                return;
            }
        l[(*n)++] = *r;
        return;
    }
    for (int i = 0; i < *n; i++) {
        if (!same(m, &l[i], r))
            continue;
        bool last = i == *n - 1;
        memmove(&l[i], &l[i + 1], (size_t)(*n - i - 1) * sizeof *l);
        (*n)--;
        if (*n == 0)
            emit(m, pk, "-D", r);
        else if (last)
            emit(m, pk, "+U", &l[*n - 1]);
        return;
    }
}

static void model_free(model *m)
{
    for (int k = 0; k < N_KEYS; k++)
        free(m->out[k]);
}

/*
 * A random workload: inserts and updates of (pk, uk, v), and retractions of
 * rows that are live (mostly) or never were. lines[i] is the input row
 * "op,pk,uk,v"; the model takes each in turn.
 */
static void workload(uint64_t seed, model *m, char lines[][48], size_t n)
{
    static const char *const vs[] = {"a", "b", "c"};
    uint64_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        int pk = (int)(rnd(&s) % N_KEYS);
        mrow r = {.uk = (int)(rnd(&s) % 4)};
        snprintf(r.v, sizeof r.v, "%s", vs[rnd(&s) % 3]);
        unsigned x = (unsigned)(rnd(&s) % 100);
        const char *op = x < 45 ? "+I" : x < 60 ? "+U" : x < 80 ? "-U" : "-D";
        if (op[0] == '-' && m->n[pk] && rnd(&s) % 5)
            r = m->live[pk][rnd(&s) % (uint64_t)m->n[pk]]; /* a live row, mostly */
        snprintf(lines[i], 48, "%s,%d,%d,%s", op, pk, r.uk, r.v);
        model_apply(m, op, pk, &r);
    }
}

/* ------------------------------------------------------------- the job */

typedef struct mt {
    weir_schema *in, *rows;
    th_source *src;
    th_collect *sink;
    weir_job *job;
    const char *rocksdb_dir; /* state on RocksDB in this folder, or NULL for memory */
} mt;

static void mt_start(mt *t, bool by_uk, uint32_t parallelism, const char *ckpt_dir)
{
    if (!t->in) {
        t->in = th_schema("op STRING, pk BIGINT, uk BIGINT, v STRING");
        t->rows = th_schema("pk BIGINT, uk BIGINT, v STRING");
        t->src = th_usource_create(t->in, 1);
    }
    t->sink = th_collect_create(TH_KIND);
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = parallelism;
    cfg.batch_size = 5;
    if (t->rocksdb_dir) {
        cfg.state_backend = "rocksdb";
        cfg.state_dir = t->rocksdb_dir;
    }
    cr_assert_eq(weir_job_create(&cfg, &t->job), 0);
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_NONE};
    weir_stream m;
    cr_assert_eq(th_changelog_stream(t->job, t->src, "in", &wm, t->rows, &m), 0, "%s", weir_job_error(t->job));
    uint32_t kc = 0;
    weir_stream keyed = weir_stream_key_by(m, &kc, 1);
    weir_upsert_materialize_config c = {.primary_key = {.n = 1, .cols = {0}}, .schema = t->rows};
    if (by_uk) {
        c.has_upsert_key = true;
        c.upsert_key = (weir_keyspec){.n = 1, .cols = {1}};
    }
    weir_operator_spec spec;
    cr_assert_eq(weir_upsert_materialize_spec(&c, &spec), 0);
    weir_stream out;
    cr_assert_eq(weir_job_operator(t->job, &keyed, 1, &spec, t->rows, parallelism, &out), 0, "%s",
                 weir_job_error(t->job));
    weir_operator_spec sink = th_collect_spec(t->sink, "collect");
    cr_assert_eq(weir_job_sink(t->job, out, &sink, 1), 0);
    if (ckpt_dir) {
        weir_error err = {0};
        cr_assert_eq(th_enable_checkpoints(t->job, ckpt_dir, &err), 0, "%s", err.message);
    }
    cr_assert_eq(weir_job_start(t->job), 0, "%s", weir_job_error(t->job));
}

/* Appends pk's lines of c (in arrival order: one pk's rows come through one subtask) to *s. */
static void lines_of(th_collect *c, int pk, char **s, size_t *len)
{
    char want[24];
    snprintf(want, sizeof want, "%d,", pk);
    for (size_t i = 0; i < th_collect_count(c); i++) {
        const char *l = th_collect_line(c, i);
        const char *sp = strchr(l, ' ');
        cr_assert(sp, "line '%s'", l);
        if (strncmp(sp + 1, want, strlen(want)))
            continue;
        size_t n = strlen(l);
        *s = realloc(*s, *len + n + 2);
        memcpy(*s + *len, l, n);
        (*s)[*len + n] = '\n';
        *len += n + 1;
        (*s)[*len] = 0;
    }
}

static void check(const model *m, th_collect *first, th_collect *second, uint64_t seed)
{
    for (int pk = 0; pk < N_KEYS; pk++) {
        char *got = NULL;
        size_t len = 0;
        if (first)
            lines_of(first, pk, &got, &len);
        lines_of(second, pk, &got, &len);
        cr_assert_str_eq(got ? got : "", m->out[pk] ? m->out[pk] : "", "pk %d (seed %" PRIu64 ")", pk, seed);
        free(got);
    }
}

static void mt_destroy(mt *t)
{
    weir_job_destroy(t->job);
    th_collect_destroy(t->sink);
    th_source_destroy(t->src);
    weir_schema_destroy(t->in);
    weir_schema_destroy(t->rows);
}

static void run_random(bool by_uk, uint32_t parallelism)
{
    static char lines[N_STEPS][48];
    static model m;
    model_free(&m);
    memset(&m, 0, sizeof m);
    m.by_uk = by_uk;
    uint64_t seed = test_seed() + parallelism + (by_uk ? 100 : 0);
    workload(seed, &m, lines, N_STEPS);
    mt t = {0};
    mt_start(&t, by_uk, parallelism, NULL);
    for (size_t i = 0; i < N_STEPS; i++)
        th_source_row_text(t.src, 0, 0, lines[i]);
    th_source_end_all(t.src);
    cr_assert_eq(weir_job_wait(t.job), 0, "%s", weir_job_error(t.job));
    check(&m, NULL, t.sink, seed);
    mt_destroy(&t);
    model_free(&m);
    memset(&m, 0, sizeof m);
}

Test(sink_materialize, small_changelog_by_hand)
{
    /* pk 1 without an upsert key: two equal rows are two rows; the last one removed shows the one before */
    mt t = {0};
    mt_start(&t, false, 1, NULL);
    static const char *const in[] = {"+I,1,1,a", "+I,1,1,a", "+I,1,2,b", "-D,1,2,b", "-U,1,1,a",
                                     "-D,1,9,z", "-D,1,1,a", "+U,1,3,c"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        th_source_row_text(t.src, 0, 0, in[i]);
    th_source_end_all(t.src);
    cr_assert_eq(weir_job_wait(t.job), 0, "%s", weir_job_error(t.job));
    cr_assert_str_eq(th_collect_text(t.sink, false), "+I 1,1,a\n+U 1,1,a\n+U 1,2,b\n+U 1,1,a\n-D 1,1,a\n+I 1,3,c\n");
    cr_assert_eq(th_metric(t.job, "*upsert_materialize_missing*"), 1.0);
    mt_destroy(&t);
}

Test(sink_materialize, upsert_key_replaces_in_place)
{
    mt t = {0};
    mt_start(&t, true, 1, NULL);
    /* uk 1 then uk 2 live; uk 1 replaced keeps its place (before uk 2): removing uk 2 shows uk 1's new row */
    static const char *const in[] = {"+I,1,1,a", "+I,1,2,b", "+U,1,1,c", "-U,1,2,x", "-D,1,1,zz"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        th_source_row_text(t.src, 0, 0, in[i]);
    th_source_end_all(t.src);
    cr_assert_eq(weir_job_wait(t.job), 0, "%s", weir_job_error(t.job));
    cr_assert_str_eq(th_collect_text(t.sink, false), "+I 1,1,a\n+U 1,2,b\n+U 1,1,c\n+U 1,1,c\n-D 1,1,zz\n");
    mt_destroy(&t);
}

Test(sink_materialize, random_whole_rows_match_the_model, .timeout = 120)
{
    run_random(false, 1);
    run_random(false, 3);
}

Test(sink_materialize, random_upsert_keys_match_the_model, .timeout = 120)
{
    run_random(true, 1);
    run_random(true, 3);
}

/*
 * A checkpoint taken at parallelism 1 after half the rows, restored at
 * parallelism 3 for the other half: each pk's changelog over both runs is
 * the model's (the live rows moved with their key groups).
 */
static void restore_case(bool by_uk, bool rocksdb)
{
    static char lines[N_STEPS][48];
    static model m;
    memset(&m, 0, sizeof m);
    m.by_uk = by_uk;
    uint64_t seed = test_seed() + 7 + (by_uk ? 100 : 0);
    workload(seed, &m, lines, N_STEPS);
    char dir[] = "/tmp/weir-upm-ckpt-XXXXXX", sdir[] = "/tmp/weir-upm-state-XXXXXX";
    cr_assert(mkdtemp(dir));
    cr_assert(mkdtemp(sdir));
    mt t = {.rocksdb_dir = rocksdb ? sdir : NULL};
    mt_start(&t, by_uk, 1, dir);
    for (int i = 0; i < N_STEPS / 2; i++)
        th_source_row_text(t.src, 0, 0, lines[i]);
    cr_assert(th_source_wait_read(t.src, 0, GUARD_MS));
    uint64_t id;
    weir_error err = {0};
    cr_assert_eq(weir_job_trigger_checkpoint(t.job, &id), 0);
    cr_assert_eq(weir_job_await_checkpoint(t.job, id, GUARD_MS, &err), 0, "%s", err.message);
    weir_job_stop(t.job);
    weir_job_wait(t.job);
    weir_job_destroy(t.job);
    th_collect *first = t.sink;

    mt_start(&t, by_uk, 3, dir);
    cr_assert(strstr(weir_job_restored_from(t.job), "chk-"), "restored from '%s'", weir_job_restored_from(t.job));
    for (int i = N_STEPS / 2; i < N_STEPS; i++)
        th_source_row_text(t.src, 0, 0, lines[i]);
    th_source_end_all(t.src);
    cr_assert_eq(weir_job_wait(t.job), 0, "%s", weir_job_error(t.job));
    check(&m, first, t.sink, seed);
    th_collect_destroy(first);
    mt_destroy(&t);
    model_free(&m);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir, sdir);
    cr_assert_eq(system(cmd), 0);
}

Test(sink_materialize, restore_at_another_parallelism_continues_each_key, .timeout = 120)
{
    restore_case(false, false);
    restore_case(true, false);
}

#ifdef WEIR_HAVE_ROCKSDB
Test(sink_materialize, restore_on_rocksdb_continues_each_key, .timeout = 120)
{
    restore_case(false, true);
    restore_case(true, true);
}
#endif
