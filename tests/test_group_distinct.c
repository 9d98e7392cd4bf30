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

static void run(unsigned seed, int64_t narrow_max, int steps)
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

Test(group_distinct, matches_model_int32_counters) { run(1, INT32_MAX, 60000); }

Test(group_distinct, matches_model_counters_widened_mid_run) { run(2, 12, 60000); }

Test(group_distinct, matches_model_more_seeds)
{
    for (unsigned s = 3; s < 8; s++)
        run(s, s % 2 ? 9 : INT32_MAX, 20000);
}
