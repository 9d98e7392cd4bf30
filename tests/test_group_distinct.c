/*
 * The cache of COUNT(DISTINCT) views (ops/group_distinct.c) against a
 * plain model: random counter changes of (group, view, value), short and
 * long values, drains in and out of order, resets (then values come back
 * from the model's "state" as group_agg reads them: a group with nothing
 * in state is complete, one with values is not and each unknown value is
 * filled from state), and counters that leave the int32 range (the limit
 * lowered so that the int64 path is taken mid-run). Every drain must hand
 * over exactly the values changed since the last one, with their counters
 * (NULL when all zero), and every value read must have the model's
 * counters.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/group_distinct.h"
#include "weir/common.h"
#include "weir/key.h"

#define N_GROUPS 37
#define N_VALS 45
#define MAXW 3

static const uint32_t k_widths[2] = {2, 3};

/* One (group, view, value) of the model. */
typedef struct ment {
    int grp, view, val;
    int64_t cache[MAXW]; /* the truth: state plus changes not drained */
    int64_t state[MAXW]; /* what the drains wrote */
    bool in_state, dirty;
} ment;

static ment model[N_GROUPS * 2 * N_VALS];

static ment *ment_of(int grp, int view, int val) { return &model[(grp * 2 + view) * N_VALS + val]; }

/* Value val's bytes: a BIGINT's 8 or a string of 3..24 bytes. */
static size_t value_bytes(int val, char *buf)
{
    if (val % 3 == 0) {
        int64_t x = (int64_t)val * 1000003;
        memcpy(buf, &x, 8);
        return 8;
    }
    size_t n = 3 + (size_t)(val * 7) % 22;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)('a' + (val + (int)i) % 26);
    buf[0] = (char)('A' + val % 26);
    return n;
}

static size_t group_key(int grp, char *buf) { return (size_t)snprintf(buf, 16, "g%d", grp); }

typedef struct drained {
    int n;
} drained;

static int parse_group(const uint8_t *key, size_t klen)
{
    char b[16] = {0};
    cr_assert(klen < sizeof b);
    memcpy(b, key, klen);
    return atoi(b + 1);
}

static int find_val(int view, const void *val, size_t vlen)
{
    char buf[32];
    (void)view;
    for (int v = 0; v < N_VALS; v++) {
        size_t n = value_bytes(v, buf);
        if (n == vlen && !memcmp(buf, val, n))
            return v;
    }
    cr_assert_fail("drained a value the model never had");
    return -1;
}

static int on_change(void *ud, const uint8_t *key, size_t klen, uint64_t hash, uint32_t v, const void *val,
                     size_t vlen, const int64_t *counters)
{
    drained *d = ud;
    cr_assert_eq(hash, weir_key_hash(key, klen));
    int grp = parse_group(key, klen);
    ment *m = ment_of(grp, (int)v, find_val((int)v, val, vlen));
    cr_assert(m->dirty, "group %d view %u value %d drained but not changed", grp, v, m->val);
    bool zero = true;
    for (uint32_t x = 0; x < k_widths[v]; x++)
        zero = zero && m->cache[x] == 0;
    if (zero) {
        cr_assert_null(counters, "group %d view %u: all-zero counters are handed as NULL", grp, v);
        m->in_state = false;
        memset(m->state, 0, sizeof m->state);
    } else {
        cr_assert_not_null(counters);
        for (uint32_t x = 0; x < k_widths[v]; x++)
            cr_assert_eq(counters[x], m->cache[x], "group %d view %u value %d counter %u: %lld, model %lld", grp,
                         v, m->val, x, (long long)counters[x], (long long)m->cache[x]);
        m->in_state = true;
        memcpy(m->state, m->cache, sizeof m->state);
    }
    m->dirty = false;
    d->n++;
    return 0;
}

static void drain(gd_table *t, bool in_order)
{
    drained d = {0};
    cr_assert_eq(weir__gd_drain(t, in_order, on_change, &d), 0);
    int want = 0;
    for (size_t i = 0; i < sizeof model / sizeof *model; i++)
        want += model[i].dirty;
    cr_assert_eq(want, 0, "%d changed values were not drained", want);
}

/* Before step long_from only 8-byte values (BIGINTs) come, so the views keep their 16-byte records until then. */
static void run_from(unsigned seed, int64_t narrow_max, int steps, int long_from)
{
    srand(seed);
    memset(model, 0, sizeof model);
    for (int g = 0; g < N_GROUPS; g++)
        for (int v = 0; v < 2; v++)
            for (int x = 0; x < N_VALS; x++)
                *ment_of(g, v, x) = (ment){.grp = g, .view = v, .val = x};
    int64_t saved = weir__gd_narrow_max;
    weir__gd_narrow_max = narrow_max;
    gd_table *t;
    cr_assert_eq(weir__gd_create(2, k_widths, &t), 0);
    uint32_t num[N_GROUPS];
    bool held[N_GROUPS] = {false};
    for (int s = 0; s < steps; s++) {
        int r = rand() % 1000;
        if (r < 8) {
            drain(t, rand() % 2);
            continue;
        }
        if (r < 11) {
            drain(t, rand() % 2);
            cr_assert_eq(weir__gd_reset(t), 0);
            memset(held, 0, sizeof held);
            continue;
        }
        int grp = rand() % N_GROUPS, view = rand() % 2, val = rand() % N_VALS;
        if (s < long_from)
            val -= val % 3;
        if (grp > N_GROUPS / 2 && rand() % 4) /* a few hot groups */
            grp %= 4;
        char key[16], vb[32];
        size_t klen = group_key(grp, key), vlen = value_bytes(val, vb);
        if (!held[grp]) {
            bool fresh;
            cr_assert_eq(weir__gd_group(t, (const uint8_t *)key, klen, weir_key_hash(key, klen), &num[grp], &fresh),
                         0);
            cr_assert(fresh);
            bool any = false;
            for (int v = 0; v < 2; v++)
                for (int x = 0; x < N_VALS; x++)
                    any = any || ment_of(grp, v, x)->in_state;
            if (!any)
                weir__gd_set_complete(t, num[grp]);
            held[grp] = true;
        } else {
            uint32_t again;
            bool fresh;
            cr_assert_eq(weir__gd_group(t, (const uint8_t *)key, klen, weir_key_hash(key, klen), &again, &fresh), 0);
            cr_assert(!fresh);
            cr_assert_eq(again, num[grp]);
        }
        ment *m = ment_of(grp, view, val);
        int64_t *c;
        bool unknown;
        cr_assert_eq(weir__gd_counts(t, num[grp], (uint32_t)view, vb, vlen, &c, &unknown), 0);
        if (unknown) {
            /* not held: nothing the cache was told since the last drain may be lost */
            cr_assert(!m->dirty, "group %d view %d value %d: changed, yet reported unknown", grp, view, val);
            memcpy(c, m->state, k_widths[view] * sizeof *c);
        }
        for (uint32_t x = 0; x < k_widths[view]; x++)
            cr_assert_eq(c[x], m->cache[x], "step %d group %d view %d value %d counter %u: %lld, model %lld", s, grp,
                         view, val, x, (long long)c[x], (long long)m->cache[x]);
        for (uint32_t x = 0; x < k_widths[view]; x++) {
            int d = rand() % 5 - 1; /* -1 .. 3: counters mostly grow */
            if (long_from && rand() % 64 == 0)
                d = 100 + rand() % 200; /* now and then past a 16-byte record's 127 */
            if (m->cache[x] + d < 0 || rand() % 8 == 0)
                d = -(int)m->cache[x] * (rand() % 2); /* down to zero now and then */
            m->cache[x] += d;
            c[x] = m->cache[x];
        }
        m->dirty = true;
        cr_assert_eq(weir__gd_put(t), 0);
    }
    drain(t, true);
    weir__gd_destroy(t);
    weir__gd_narrow_max = saved;
}

static void run(unsigned seed, int64_t narrow_max, int steps) { run_from(seed, narrow_max, steps, 0); }

Test(group_distinct, matches_model_int32_counters) { run(1, INT32_MAX, 60000); }

/* 16-byte records (their counters past 127 held aside) the whole run, or until the first longer value
 * rebuilds the table with int32 counters (int64 with the limit lowered). */
Test(group_distinct, matches_model_small_records)
{
    run_from(10, INT32_MAX, 60000, 60000);
    run_from(11, INT32_MAX, 60000, 30000);
    run_from(12, 200, 60000, 30000);
    run_from(13, 12, 60000, 60000);
}

Test(group_distinct, matches_model_counters_widened_mid_run) { run(2, 12, 60000); }

Test(group_distinct, matches_model_more_seeds)
{
    for (unsigned s = 3; s < 8; s++)
        run(s, s % 2 ? 9 : INT32_MAX, 20000);
}

/*
 * Many values in few groups, so that the tables double past 2 MiB (blocks
 * mapped from the system, doubled by remapping; or, with another
 * allocator, copied) and too many change between drains to list them:
 * every counter read back, every drain hands over each changed value
 * once, in group and byte order when asked.
 */
#define BIG_N 150000
#define BIG_GROUPS 3

typedef struct big_drained {
    int64_t *want; /* per value: the counter a drain must hand over, -1 when not changed */
    int n;
    bool in_order;
    int last_grp; /* in order: the last group and value handed over */
    uint8_t last_val[8];
} big_drained;

static int64_t big_key(int grp, int x) { return (int64_t)x * 2654435761u + grp; }

static int on_big_change(void *ud, const uint8_t *key, size_t klen, uint64_t hash, uint32_t v, const void *val,
                         size_t vlen, const int64_t *counters)
{
    big_drained *d = ud;
    (void)hash;
    (void)v;
    cr_assert_eq(vlen, 8);
    int grp = parse_group(key, klen);
    int64_t x;
    memcpy(&x, val, 8);
    int i = (int)((x - grp) / 2654435761u);
    cr_assert(i >= 0 && i < BIG_N && big_key(grp, i) == x);
    if (d->in_order && d->n) {
        cr_assert(grp > d->last_grp || (grp == d->last_grp && memcmp(val, d->last_val, 8) > 0),
                  "drained out of group and byte order");
        cr_assert(grp >= d->last_grp);
    }
    d->last_grp = grp;
    memcpy(d->last_val, val, 8);
    int64_t *w = &d->want[grp * BIG_N + i];
    cr_assert_neq(*w, -1, "group %d value %d handed over but not changed (or twice)", grp, i);
    cr_assert_not_null(counters);
    cr_assert_eq(counters[0], *w);
    cr_assert_eq(counters[1], 1);
    *w = -1;
    d->n++;
    return 0;
}

static void big_run(bool in_order)
{
    static const uint32_t widths[1] = {2};
    gd_table *t;
    cr_assert_eq(weir__gd_create(1, widths, &t), 0);
    uint32_t num[BIG_GROUPS];
    for (int g = 0; g < BIG_GROUPS; g++) {
        char key[16];
        size_t klen = group_key(g, key);
        bool fresh;
        cr_assert_eq(weir__gd_group(t, (const uint8_t *)key, klen, weir_key_hash(key, klen), &num[g], &fresh), 0);
        weir__gd_set_complete(t, num[g]);
    }
    big_drained d = {.want = malloc(sizeof(int64_t) * BIG_GROUPS * BIG_N), .in_order = in_order};
    cr_assert_not_null(d.want);
    for (int i = 0; i < BIG_GROUPS * BIG_N; i++)
        d.want[i] = -1;
    int64_t *held = calloc((size_t)BIG_GROUPS * BIG_N, sizeof *held);
    cr_assert_not_null(held);
    for (int round = 0; round < 3; round++) {
        /* round 0 fills; later rounds change every third value of each group and add none */
        for (int i = 0; i < BIG_N; i++)
            for (int g = 0; g < BIG_GROUPS; g++) {
                if (round && (i + round) % 3)
                    continue;
                int64_t x = big_key(g, i), *c;
                bool unknown;
                cr_assert_eq(weir__gd_counts(t, num[g], 0, &x, 8, &c, &unknown), 0);
                cr_assert(!unknown);
                cr_assert_eq(c[0], held[g * BIG_N + i]);
                cr_assert_eq(c[1], round ? 1 : 0);
                c[0] = held[g * BIG_N + i] += 1 + i % 5;
                c[1] = 1;
                cr_assert_eq(weir__gd_put(t), 0);
                d.want[g * BIG_N + i] = c[0];
            }
        d.n = 0;
        cr_assert_eq(weir__gd_drain(t, in_order, on_big_change, &d), 0);
        cr_assert_eq(d.n, round ? BIG_GROUPS * (BIG_N / 3) : BIG_GROUPS * BIG_N);
    }
    free(held);
    free(d.want);
    weir__gd_destroy(t);
}

Test(group_distinct, tables_grow_past_huge_pages) { big_run(false); }

Test(group_distinct, tables_grow_past_huge_pages_drained_in_order) { big_run(true); }

static void *plain_realloc(void *ud, void *ptr, size_t size)
{
    (void)ud;
    return realloc(ptr, size);
}

Test(group_distinct, tables_grow_past_huge_pages_other_allocator)
{
    weir_set_allocator(&(weir_allocator){plain_realloc, NULL});
    big_run(false);
    weir_set_allocator(NULL);
}

/*
 * Many small tables doubled several times each: now and then a record's
 * place in the doubled table lies past its end (the probe wraps to the
 * start), the case the doubling sets aside and puts back last. Every value
 * must still be found with its counters.
 */
Test(group_distinct, doubling_keeps_every_value)
{
    static const uint32_t widths[1] = {1};
    for (int rep = 0; rep < 300; rep++) {
        gd_table *t;
        cr_assert_eq(weir__gd_create(1, widths, &t), 0);
        uint32_t grp;
        bool fresh;
        cr_assert_eq(weir__gd_group(t, (const uint8_t *)"g0", 2, weir_key_hash("g0", 2), &grp, &fresh), 0);
        weir__gd_set_complete(t, grp);
        int n = 3000 + rep * 7;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < n; i++) {
                int64_t x = (int64_t)rep * 1000003 + i, *c;
                bool unknown;
                cr_assert_eq(weir__gd_counts(t, grp, 0, &x, 8, &c, &unknown), 0);
                cr_assert(!unknown);
                cr_assert_eq(c[0], pass ? i + 1 : 0, "table %d value %d: %lld", rep, i, (long long)c[0]);
                c[0] = i + 1;
                cr_assert_eq(weir__gd_put(t), 0);
            }
        weir__gd_destroy(t);
    }
}

/* Every allocation that can fail while tables grow (past 2 MiB too): the call says so, nothing leaks or crashes. */
Test(group_distinct, allocation_failures_reported)
{
    static const uint32_t widths[1] = {1};
    for (uint64_t n = 1; n < 40; n++) {
        gd_table *t;
        cr_assert_eq(weir__gd_create(1, widths, &t), 0);
        uint32_t grp;
        bool fresh;
        cr_assert_eq(weir__gd_group(t, (const uint8_t *)"g0", 2, weir_key_hash("g0", 2), &grp, &fresh), 0);
        weir__gd_set_complete(t, grp);
        weir_alloc_fail_after(n);
        int rc = 0;
        for (int64_t i = 0; i < 120000 && !rc; i++) {
            int64_t *c;
            bool unknown;
            rc = weir__gd_counts(t, grp, 0, &i, 8, &c, &unknown);
            if (!rc) {
                c[0] = 1;
                rc = weir__gd_put(t);
            }
        }
        weir_alloc_fail_after(0);
        cr_assert(rc == 0 || rc == WEIR_ENOMEM, "allocation %llu: %d", (unsigned long long)n, rc);
        weir__gd_destroy(t);
    }
}

/* Sets the counter of BIGINT value x of group grp (view 0, width 1) to n; checks that it was `was`. */
static void set_count(gd_table *t, uint32_t grp, int64_t x, int64_t was, int64_t n)
{
    int64_t *c;
    bool unknown;
    cr_assert_eq(weir__gd_counts(t, grp, 0, &x, 8, &c, &unknown), 0);
    cr_assert_eq(c[0], was, "value %lld: %lld, expected %lld", (long long)x, (long long)c[0], (long long)was);
    c[0] = n;
    cr_assert_eq(weir__gd_put(t), 0);
}

/*
 * A 16-byte record whose counter passes 127 holds it aside; once it is
 * back within 0..127 the place aside is free for the next record. 300
 * values in turn go up to 200 and back to 3, two at a time; a second
 * table gets the same values with their last counters at once (the last
 * two at 200). Both then hold two places aside and the same memory (before,
 * each value of the first kept its place until the cache reset: 300).
 * Every counter reads back, across the table's doublings too.
 */
Test(group_distinct, counters_back_within_a_small_record_free_their_place_aside)
{
    static const uint32_t widths[1] = {1};
    enum { N = 300 };
    size_t bytes[2];
    for (int direct = 0; direct < 2; direct++) {
        gd_table *t;
        cr_assert_eq(weir__gd_create(1, widths, &t), 0);
        uint32_t grp;
        bool fresh;
        cr_assert_eq(weir__gd_group(t, (const uint8_t *)"g0", 2, weir_key_hash("g0", 2), &grp, &fresh), 0);
        weir__gd_set_complete(t, grp);
        for (int64_t x = 0; x < N; x++) {
            if (direct) {
                set_count(t, grp, x, 0, x < N - 2 ? 3 : 200);
                continue;
            }
            if (x >= 2)
                set_count(t, grp, x - 2, 200, 3); /* back within: its place aside is free */
            set_count(t, grp, x, 0, 150);         /* takes one */
            set_count(t, grp, x, 150, 200);
        }
        for (int64_t x = 0; x < N; x++)
            set_count(t, grp, x, x < N - 2 ? 3 : 200, x < N - 2 ? 3 : 200);
        bytes[direct] = weir__gd_bytes(t);
        weir__gd_destroy(t);
    }
    cr_assert_eq(bytes[0], bytes[1], "%zu bytes after the values went up and back, %zu without", bytes[0], bytes[1]);
}
