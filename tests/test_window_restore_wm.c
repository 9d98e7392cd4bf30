/*
 * tests/test_window_restore_wm.c - the watermark a window operator goes on
 * from after a restore (docs/windows.md, "Floors and the restored
 * watermark"), when the old subtasks stopped at DIFFERENT watermarks (a
 * source split far behind another, data in flight): each new subtask
 * takes the smallest watermark of the old subtasks that owned any of its
 * key groups - at the same parallelism, after a scale-up and after a
 * scale-down - and, with no operator state of the window in the
 * checkpoint (an operator the job did not have, or whose subtasks wrote
 * none), the smallest floor of its restored keys, or no watermark at all
 * when it restored none.
 *
 * The checkpoint is real: a first run at the old parallelism leaves one
 * window of some keys pending at watermark REAL_WM. The restore source
 * serves it, but the window's operator state with a watermark per old
 * subtask that the case sets, every one below REAL_WM (no window had
 * fired in the first run, so a lower watermark is still true of the
 * state), and no source split: the second run's source starts afresh and
 * reads its rows in time order, group after group, so its own watermark
 * stays below every group's windows and only the restored watermark can
 * make a row late. A key shows its subtask's watermark in which groups are
 * late (and in the `watermark` column of its late rows); every window
 * fires once, the pending one with the rows of both runs.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>

#include "runtime/checkpoint.h"
#include "support/harness.h"
#include "weir/key.h"
#include "window/window_internal.h"

#define GUARD_MS 20000
#define MAX_PAR 128
#define NKEYS 40
#define SIZE_MS 1000
/* The first run's rows (window [10000, 11000)) and the watermark they
 * leave: their largest time less the delay. */
#define PENDING_TS 10499
#define DELAY_MS 20
#define REAL_WM (PENDING_TS - DELAY_MS)
#define NO_WM INT64_MIN

/* The second run's rows: one per key at each time, in this order. */
static const int64_t group_ts[] = {1500, 3500, 5500, 7500, 9500, 10700, 11500};
#define NGROUPS (sizeof group_ts / sizeof group_ts[0])

static uint32_t key_group_of(int64_t k)
{
    uint8_t enc[9] = {1}; /* weir_key_encode of a BIGINT: not NULL, little-endian */
    for (int i = 0; i < 8; i++)
        enc[1 + i] = (uint8_t)((uint64_t)k >> (8 * i));
    return weir_key_group(weir_key_hash(enc, sizeof enc), MAX_PAR);
}

/* ms within the first minute, as the collector writes a TIMESTAMP(3) */
static void fmt_ts(int64_t ms, char *buf, size_t cap)
{
    cr_assert(ms >= 0 && ms < 60000);
    snprintf(buf, cap, "1970-01-01 00:00:%02d.%03d", (int)(ms / 1000), (int)(ms % 1000));
}

static weir_agg bind(const char *name, const weir_schema *s, int32_t col)
{
    weir_agg a;
    weir_error err = {0};
    cr_assert_eq(weir_agg_bind(name, s, col, 0, &a, &err), 0, "%s: %s", name, err.message);
    return a;
}

/* ---- the restore source: the checkpoint, with the window's watermarks of the case ---- */

typedef struct fake_ckpt {
    weir__restore_source real;
    int window_node;
    const int64_t *old_wms; /* one per old subtask; NULL: no operator state of the window */
    uint32_t n_old;
    bool listed;            /* without old_wms: the window is listed at n_old subtasks, with no bytes */
} fake_ckpt;

static uint32_t fake_op_parallelism(void *ud, int node, const char *name)
{
    fake_ckpt *f = ud;
    if (node == f->window_node)
        return f->old_wms || f->listed ? f->n_old : 0;
    return f->real.op_parallelism(f->real.ud, node, name);
}

/* The window's operator state as it writes it: version 1, the watermark. */
static int fake_op_state(void *ud, int node, const char *name, uint32_t subtask, uint32_t parallelism,
                         weir_buf *out)
{
    fake_ckpt *f = ud;
    if (node != f->window_node)
        return f->real.op_state(f->real.ud, node, name, subtask, parallelism, out);
    if (!f->old_wms || subtask >= f->n_old)
        return 0;
    int rc = weir_buf_put_u8(out, 1);
    return rc ? rc : weir_buf_put_i64(out, f->old_wms[subtask]);
}

static int fake_kg_state(void *ud, int node, const char *name, uint32_t kg, weir_buf *state, weir_buf *timers)
{
    fake_ckpt *f = ud;
    return f->real.kg_state(f->real.ud, node, name, kg, state, timers);
}

static int fake_split(void *ud, int node, const char *id, weir__restored_split *out)
{
    (void)ud, (void)node, (void)id, (void)out;
    return WEIR_ENOTFOUND;
}

static uint32_t fake_task_parallelism(void *ud, int task)
{
    fake_ckpt *f = ud;
    return f->real.task_parallelism(f->real.ud, task);
}

/* ---- the two runs ---- */

typedef struct acks {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    weir__snapshot_set *set;
    int n;
} acks;

static void on_ack(void *ud, const weir__task_snapshot *snap)
{
    acks *a = ud;
    pthread_mutex_lock(&a->mu);
    if (!snap->finished)
        cr_assert_eq(weir__snapshot_set_add(a->set, snap->data, snap->len), 0);
    a->n++;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

/* source -> keyed exchange -> TUMBLE(1 s) COUNT(*), SUM(v) -> results, late rows */
static weir_job *window_job(th_source *src, weir_schema *s, weir_agg *aggs, int64_t lateness_ms, uint32_t par,
                            th_collect *out, th_collect *late, int *window_node)
{
    weir_job_config jc;
    weir_job_config_init(&jc);
    jc.batch_size = 16;
    cr_assert_eq(jc.max_parallelism, MAX_PAR);
    weir_job *job;
    cr_assert_eq(weir_job_create(&jc, &job), 0);
    weir_source_spec ss = th_source_spec(src, "events");
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = DELAY_MS};
    weir_stream st, win;
    cr_assert_eq(weir_job_source(job, &ss, &wm, 1, &st), 0);
    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = weir_window_tumbling(SIZE_MS, 0);
    spec.key.n = 1;
    spec.key.cols[0] = 0;
    spec.aggs = aggs;
    spec.n_aggs = 2;
    spec.allowed_lateness_ms = lateness_ms;
    weir_error err = {0};
    cr_assert_eq(weir_job_window(job, st, s, &spec, par, &win, &err), 0, "%s", err.message);
    *window_node = win.node;
    weir_operator_spec k1 = th_collect_spec(out, "results"), k2 = th_collect_spec(late, "late");
    cr_assert_eq(weir_job_sink(job, win, &k1, 1), 0);
    cr_assert_eq(weir_job_sink(job, weir_stream_side(win, WEIR_WINDOW_LATE_TAG), &k2, 1), 0);
    return job;
}

static bool pending_key(uint64_t pending_mask, int64_t k) { return (pending_mask >> k) & 1; }

/* A checkpoint of the first run at parallelism p: keys of pending_mask hold a row of [10000, 11000). */
static weir__snapshot_set *first_run(weir_schema *s, weir_agg *aggs, int64_t lateness_ms, uint32_t p,
                                     uint64_t pending_mask)
{
    th_source *live = th_usource_create(s, 1);
    th_collect *out = th_collect_create(0), *late = th_collect_create(0);
    acks a = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    cr_assert_eq(weir__snapshot_set_create(&a.set), 0);
    int node;
    weir_job *job = window_job(live, s, aggs, lateness_ms, p, out, late, &node);
    weir__ckpt_hooks hooks = {.ack = on_ack, .ud = &a};
    cr_assert_eq(weir__job_set_ckpt_hooks(job, &hooks), 0);
    cr_assert_eq(weir_job_start(job), 0);
    for (int64_t k = 0; k < NKEYS; k++)
        if (pending_key(pending_mask, k))
            th_source_row(live, 0, PENDING_TS, k, (int64_t)1000000);
    cr_assert(th_source_wait_read(live, 0, GUARD_MS));
    if (pending_mask)
        cr_assert(th_collect_wait_watermark(out, REAL_WM, GUARD_MS));
    cr_assert_eq(weir__job_trigger_checkpoint(job, 1), 0);
    int subtasks = (int)weir__job_subtask_count(job);
    pthread_mutex_lock(&a.mu);
    while (a.n < subtasks)
        pthread_cond_wait(&a.cv, &a.mu);
    pthread_mutex_unlock(&a.mu);
    weir_job_stop(job);
    cr_assert_eq(weir_job_wait(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(th_collect_count(out), 0, "no window fired before the checkpoint");
    weir_job_destroy(job);
    th_collect_destroy(out);
    th_collect_destroy(late);
    th_source_destroy(live);
    return a.set;
}

/*
 * The rule, from key group ownership (weir_key_group_owner, not the ranges
 * the operator compares): the watermark new subtask i of p_new restores.
 */
static int64_t expected_wm(uint32_t i, uint32_t p_new, const int64_t *old_wms, uint32_t p_old, uint64_t pending_mask)
{
    int64_t wm = NO_WM;
    for (uint32_t kg = 0; kg < MAX_PAR; kg++) {
        if (weir_key_group_owner(kg, MAX_PAR, p_new) != i)
            continue;
        if (old_wms) {
            int64_t w = old_wms[weir_key_group_owner(kg, MAX_PAR, p_old)];
            if (wm == NO_WM || w < wm)
                wm = w;
        }
    }
    if (old_wms)
        return wm;
    /* no operator state: the smallest floor of its keys, all REAL_WM */
    for (int64_t k = 0; k < NKEYS; k++)
        if (pending_key(pending_mask, k) && weir_key_group_owner(key_group_of(k), MAX_PAR, p_new) == i)
            return REAL_WM;
    return NO_WM;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* lines (n of them, freed here) sorted, one a line, as th_collect_text(, true) */
static char *sorted_text(char **lines, size_t n)
{
    qsort(lines, n, sizeof *lines, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *t = malloc(len), *p = t;
    *p = 0;
    for (size_t i = 0; i < n; i++) {
        p += sprintf(p, "%s\n", lines[i]);
        free(lines[i]);
    }
    return t;
}

static void restore_case(const char *name, uint32_t p_old, const int64_t *old_wms, bool listed, uint32_t p_new,
                         uint64_t pending_mask, int64_t lateness_ms)
{
    weir_schema *s = th_schema("k BIGINT, v BIGINT");
    weir_agg aggs[2] = {bind("COUNT", s, -1), bind("SUM", s, 1)};
    weir__snapshot_set *set = first_run(s, aggs, lateness_ms, p_old, pending_mask);

    /* The expected results and late rows, by the rule. */
    int64_t wm_of[8];
    bool seen[8] = {false};
    cr_assert_leq(p_new, 8);
    for (uint32_t i = 0; i < p_new; i++)
        wm_of[i] = expected_wm(i, p_new, old_wms, p_old, pending_mask);
    enum { CAP = NKEYS * NGROUPS };
    char *want_out[CAP], *want_late[CAP];
    size_t n_out = 0, n_late = 0;
    th_source *src = th_vsource_create(s, 1);
    for (size_t g = 0; g < NGROUPS; g++) {
        for (int64_t k = 0; k < NKEYS; k++) {
            int64_t t = group_ts[g], v = k * 100 + (int64_t)g;
            th_source_row(src, 0, t, k, v);
            uint32_t i = weir_key_group_owner(key_group_of(k), MAX_PAR, p_new);
            seen[i] = true;
            int64_t start = t - t % SIZE_MS, end = start + SIZE_MS;
            char a[64], b[64], line[256];
            /* late: no window takes it (end + L <= W); else one firing, at once when end <= W */
            if (wm_of[i] != NO_WM && end + lateness_ms <= wm_of[i]) {
                fmt_ts(wm_of[i], a, sizeof a);
                snprintf(line, sizeof line, "%lld,%lld,%s,%lld", (long long)k, (long long)v, a,
                         (long long)(wm_of[i] - t));
                want_late[n_late++] = strdup(line);
                continue;
            }
            bool pending = start == PENDING_TS - PENDING_TS % SIZE_MS && pending_key(pending_mask, k);
            fmt_ts(start, a, sizeof a);
            fmt_ts(end, b, sizeof b);
            snprintf(line, sizeof line, "+I %lld,%s,%s,%d,%lld", (long long)k, a, b, pending ? 2 : 1,
                     (long long)(pending ? v + 1000000 : v));
            want_out[n_out++] = strdup(line);
        }
    }
    th_source_end_all(src);
    for (uint32_t i = 0; i < p_new; i++)
        cr_assert(seen[i], "%s: no key at new subtask %u", name, i);
    if (old_wms)
        cr_assert_gt(n_late, 0, "%s: the case judges no row late", name);
    char *want_out_text = sorted_text(want_out, n_out), *want_late_text = sorted_text(want_late, n_late);

    th_collect *out = th_collect_create(TH_KIND), *late = th_collect_create(0);
    fake_ckpt f = {.old_wms = old_wms, .n_old = p_old, .listed = listed};
    weir_job *job = window_job(src, s, aggs, lateness_ms, p_new, out, late, &f.window_node);
    f.real = weir__snapshot_set_source(set);
    cr_assert_null(f.real.open_backend);
    cr_assert_null(f.real.inflight);
    weir__restore_source rs = {.op_parallelism = fake_op_parallelism,
                               .op_state = fake_op_state,
                               .kg_state = fake_kg_state,
                               .split = fake_split,
                               .task_parallelism = fake_task_parallelism,
                               .ud = &f};
    cr_assert_eq(weir__job_set_restore(job, &rs), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s: %s", name, weir_job_error(job));
    cr_assert_str_eq(th_collect_text(late, true), want_late_text, "%s: late rows", name);
    cr_assert_str_eq(th_collect_text(out, true), want_out_text, "%s: results", name);
    cr_assert_eq(th_metric(job, "*late_records"), (double)n_late, "%s", name);
    weir_job_destroy(job);
    free(want_out_text);
    free(want_late_text);
    th_collect_destroy(out);
    th_collect_destroy(late);
    th_source_destroy(src);
    weir__snapshot_set_destroy(set);
    weir_schema_destroy(s);
}

#define ALL_KEYS ((UINT64_C(1) << NKEYS) - 1)
#define EVEN_KEYS (ALL_KEYS & UINT64_C(0x5555555555555555))

/* Watermarks at and around the groups' window ends (2000, 4000, ... 10000). */
Test(window_restore_wm, each_new_subtask_takes_the_smallest_of_the_old_subtasks_that_owned_its_key_groups,
     .timeout = 120)
{
    const int64_t same3[] = {7000, 2500, 9980};
    restore_case("3 -> 3", 3, same3, false, 3, ALL_KEYS, 0);
    const int64_t up2[] = {4000, 9980};
    restore_case("2 -> 4", 2, up2, false, 4, ALL_KEYS, 0);
    const int64_t up23[] = {7000, 2500};
    restore_case("2 -> 3", 2, up23, false, 3, EVEN_KEYS, 0);
    const int64_t down4[] = {9980, 2500, 7000, 5999};
    restore_case("4 -> 2", 4, down4, false, 2, ALL_KEYS, 0);
    const int64_t down3[] = {4000, 9980, 7000};
    restore_case("3 -> 2", 3, down3, false, 2, EVEN_KEYS, 0);
    const int64_t one[] = {5999};
    restore_case("1 -> 3", 1, one, false, 3, ALL_KEYS, 0);
    /* allowed lateness 1.5 s: a row late only 1.5 s after its window's end, on time before (fired at once) */
    restore_case("3 -> 2, lateness 1.5 s", 3, down3, false, 2, ALL_KEYS, 1500);
    restore_case("2 -> 3, lateness 1.5 s", 2, up23, false, 3, EVEN_KEYS, 1500);
}

/*
 * No operator state of the window in the checkpoint (the job had no such
 * operator, or its subtasks wrote none): no watermark where no key was
 * restored (nothing late), the smallest floor of the keys where some were;
 * the restore does not fail.
 */
Test(window_restore_wm, without_operator_state_no_watermark_or_the_floor_of_the_keys, .timeout = 120)
{
    restore_case("no state, no keys, 2 -> 3", 2, NULL, false, 3, 0, 0);
    restore_case("no state, even keys, 2 -> 2", 2, NULL, false, 2, EVEN_KEYS, 0);
    restore_case("no state, key 3, 3 -> 1", 3, NULL, false, 1, UINT64_C(1) << 3, 0);
    /* the window listed at its old parallelism, but none of its subtasks wrote any bytes */
    restore_case("empty state, even keys, 3 -> 2", 3, NULL, true, 2, EVEN_KEYS, 0);
    restore_case("empty state, no keys, 2 -> 4", 2, NULL, true, 4, 0, 0);
}
