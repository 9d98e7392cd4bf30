/*
 * tests/test_over_agg.c - OVER aggregation against a reference.
 *
 * Random out-of-order streams (a few keys, timestamps with ties and jitter,
 * some rows behind what their partition already processed) go through SQL
 * OVER queries - ROWS n PRECEDING, RANGE INTERVAL PRECEDING, and both
 * unbounded - at parallelism 1 and 2 and batch sizes 1, 7 and 1024. The
 * result must equal, as a multiset of rows, a deliberately simple reference
 * in this file that applies the rules one record at a time: the watermark
 * W = max(ts before the record) - delay; each time W rises, a partition
 * processes every buffered timestamp t < W, its rows in arrival order (a
 * row that arrives behind W waits for the next rise, as Flink's timers
 * wait for the next watermark); a row whose timestamp is not after the last
 * one its partition processed is late and dropped.
 *
 * WEIR_OVER_SEED replays a run (the seed is printed); WEIR_OVER_KEEP=1 keeps
 * the last input file.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weir/planner.h"

#define MAX_ROWS 400
#define N_KEYS 3
#define DELAY_MS 300

typedef struct row {
    int key;
    int64_t v, ms;
} row;

typedef struct frame_kind {
    const char *sql; /* the OVER frame */
    bool rows, unbounded;
    int64_t preceding;
} frame_kind;

static const frame_kind FRAMES[] = {
    {"ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", true, false, 2},
    {"ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", true, true, 0},
    {"RANGE BETWEEN INTERVAL '0.25' SECOND PRECEDING AND CURRENT ROW", false, false, 250},
    {"RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", false, true, 0},
    {"ROWS BETWEEN CURRENT ROW AND CURRENT ROW", true, false, 0},
};

static uint64_t g_rng;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* ---- the reference ---- */

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void add_line(lines *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert_not_null(l->v);
    }
    l->v[l->n++] = strdup(s);
}

static void free_lines(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

typedef struct part {
    int64_t last;           /* last processed timestamp */
    row pending[MAX_ROWS];  /* arrival order */
    int n_pending;
    row done[MAX_ROWS];     /* processed rows, in processing order */
    int n_done;
} part;

static void emit_ref(lines *out, const row *r, const row *frame, int n)
{
    int64_t sum = 0, mn = INT64_MAX, mx = INT64_MIN;
    for (int i = 0; i < n; i++) {
        sum += frame[i].v;
        mn = frame[i].v < mn ? frame[i].v : mn;
        mx = frame[i].v > mx ? frame[i].v : mx;
    }
    char s[160];
    snprintf(s, sizeof s, "+I[k%d, %" PRId64 ", %" PRId64 ", %" PRId64 ", %d, %" PRId64 ", %" PRId64 "]", r->key, r->v,
             r->ms, sum, n, mn, mx);
    add_line(out, s);
}

/* Processes every pending timestamp t < wm of partition p, oldest first. */
static void fire(part *p, const frame_kind *f, int64_t wm, lines *out)
{
    for (;;) {
        int64_t t = INT64_MAX;
        for (int i = 0; i < p->n_pending; i++)
            t = p->pending[i].ms < t ? p->pending[i].ms : t;
        if (t == INT64_MAX || t >= wm)
            return;
        int first = p->n_done;
        int k = 0;
        for (int i = 0; i < p->n_pending; i++) {
            if (p->pending[i].ms == t)
                p->done[p->n_done++] = p->pending[i];
            else
                p->pending[k++] = p->pending[i];
        }
        p->n_pending = k;
        for (int i = first; i < p->n_done; i++) {
            const row *r = &p->done[i];
            if (f->rows) {
                int lo = f->unbounded ? 0 : i - (int)f->preceding;
                lo = lo < 0 ? 0 : lo;
                emit_ref(out, r, &p->done[lo], i - lo + 1);
            } else {
                int lo = 0;
                while (!f->unbounded && p->done[lo].ms < t - f->preceding)
                    lo++;
                emit_ref(out, r, &p->done[lo], p->n_done - lo);
            }
        }
        p->last = t;
    }
}

static void reference(const row *rows, int n, const frame_kind *f, lines *out)
{
    static part parts[N_KEYS];
    for (int k = 0; k < N_KEYS; k++) {
        parts[k].last = INT64_MIN;
        parts[k].n_pending = parts[k].n_done = 0;
    }
    int64_t max = INT64_MIN, fired = INT64_MIN;
    for (int i = 0; i < n; i++) {
        /* the watermark before record i; timestamps behind it are processed when it rises */
        if (max != INT64_MIN && max - DELAY_MS > fired) {
            fired = max - DELAY_MS;
            for (int k = 0; k < N_KEYS; k++)
                fire(&parts[k], f, fired, out);
        }
        part *p = &parts[rows[i].key];
        if (rows[i].ms > p->last)
            p->pending[p->n_pending++] = rows[i];
        if (rows[i].ms > max)
            max = rows[i].ms;
    }
    for (int k = 0; k < N_KEYS; k++)
        fire(&parts[k], f, INT64_MAX, out);
}

/* ---- weir ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void run_weir(const char *dir, const frame_kind *f, uint32_t par, uint32_t batch, lines *out)
{
    char sql[2048];
    snprintf(sql, sizeof sql,
             "CREATE TABLE t (k STRING, v BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),\n"
             "  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)\n"
             "  WITH ('connector' = 'filesystem', 'path' = '%s/rows.csv', 'format' = 'csv');\n"
             "SELECT k, v, ms, SUM(v) OVER w, COUNT(*) OVER w, MIN(v) OVER w, MAX(v) OVER w\n"
             "FROM t WINDOW w AS (PARTITION BY k ORDER BY ts %s);\n",
             dir, f->sql);
    char p[16], b[16];
    snprintf(p, sizeof p, "%u", par);
    snprintf(b, sizeof b, "%u", batch);
    const char *keys[] = {"parallelism.default", "weir.batch-size"};
    const char *vals[] = {p, b};
    FILE *o = tmpfile();
    cr_assert_not_null(o);
    weir_sql_job_options opt = {.set_keys = keys, .set_values = vals, .n_set = 2, .print_out = o};
    weir_sql_job *j;
    weir_error err = {0};
    cr_assert_eq(weir_sql_job_create("over.sql", sql, strlen(sql), &opt, &j, &err), 0, "%s", err.message);
    cr_assert_eq(weir_job_run(weir_sql_job_graph(j)), 0, "%s", weir_job_error(weir_sql_job_graph(j)));
    weir_sql_job_destroy(j);
    rewind(o);
    char line[512];
    while (fgets(line, sizeof line, o)) {
        line[strcspn(line, "\n")] = '\0';
        const char *s = strstr(line, "+I[");
        cr_assert_not_null(s, "unexpected output line: %s", line);
        add_line(out, s);
    }
    fclose(o);
}

Test(over_agg, random_streams_match_the_reference, .timeout = 300)
{
    const char *env = getenv("WEIR_OVER_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 16;
    fprintf(stderr, "over_agg: WEIR_OVER_SEED=%" PRIu64 "\n", seed);
    g_rng = seed | 1;
    char dir[] = "/tmp/weir-over-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/rows.csv", dir);
    static const uint32_t batches[] = {1, 7, 1024};
    for (int round = 0; round < 10; round++) {
        row rows[MAX_ROWS];
        int n = 50 + (int)(rnd() % 250);
        int64_t clock = (int64_t)(rnd() % 2000) - 1000; /* negative times too */
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        for (int i = 0; i < n; i++) {
            clock += (int64_t)(rnd() % 40);
            rows[i].key = (int)(rnd() % N_KEYS);
            rows[i].v = (int64_t)(rnd() % 100) - 20;
            /* jitter up to 450 ms behind the clock: some rows are late (delay 300 ms) */
            rows[i].ms = clock - (rnd() % 4 ? (int64_t)(rnd() % 60) : (int64_t)(rnd() % 450));
            if (round % 2) /* coarse timestamps: many peers, and the same timestamps in every key */
                rows[i].ms -= ((rows[i].ms % 50) + 50) % 50;
            fprintf(f, "k%d,%" PRId64 ",%" PRId64 "\n", rows[i].key, rows[i].v, rows[i].ms);
        }
        fclose(f);
        const frame_kind *fk = &FRAMES[round % (sizeof FRAMES / sizeof *FRAMES)];
        lines want = {0};
        reference(rows, n, fk, &want);
        qsort(want.v, want.n, sizeof *want.v, cmp_str);
        for (uint32_t par = 1; par <= 2; par++) {
            for (size_t bi = 0; bi < sizeof batches / sizeof *batches; bi++) {
                lines got = {0};
                run_weir(dir, fk, par, batches[bi], &got);
                qsort(got.v, got.n, sizeof *got.v, cmp_str);
                size_t i = 0;
                while (i < got.n && i < want.n && !strcmp(got.v[i], want.v[i]))
                    i++;
                cr_assert(i == got.n && i == want.n,
                          "seed %" PRIu64 " round %d (%s) parallelism %u batch %u: %zu rows, expected %zu; first "
                          "difference: got %s, expected %s",
                          seed, round, fk->sql, par, batches[bi], got.n, want.n, i < got.n ? got.v[i] : "(end)",
                          i < want.n ? want.v[i] : "(end)");
                free_lines(&got);
            }
        }
        free_lines(&want);
    }
    if (!getenv("WEIR_OVER_KEEP")) {
        unlink(path);
        rmdir(dir);
    }
}
