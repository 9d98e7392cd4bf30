/*
 * The cache of COUNT(DISTINCT) views (ops/group_distinct.c) at its corners,
 * against a plain model, where SQL cannot drive it: counters set straight
 * to the edges of each way a record holds them (0, 127, 128 of a 16-byte
 * record's 7 bits; the int32 limit, weir__gd_narrow_max, at its default
 * INT32_MAX and lowered; far past it), in views of 1, 4 (the most a
 * 16-byte record holds) and 5 counters; values of 0 to 9 bytes, zero bytes
 * among them and at their ends (an inline value is zero-padded: "ab" and
 * "ab\0" differ only by their length), and longer ones, the 8-byte ones
 * alone until a random step (the 16-byte records rebuilt while some
 * counters are held aside); drains in and out of order, some failing part
 * way (the values not handed over come at the next one), values drained
 * at zero (tombstones) and taken again; resets, after which a group comes
 * back complete (its values loaded from the model's "state", as the group
 * aggregation does for a group with few) or not (each value read from
 * state when the cache says it is unknown).
 *
 * WEIR_SEED replays a run (the seed is printed); each of the cases of a
 * run draws its knob and steps from it.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops/group_distinct.h"
#include "weir/common.h"
#include "weir/key.h"

#define N_G 48
#define N_V 3
#define MAXW 5
#define N_X 26

static const uint32_t k_widths[N_V] = {1, 4, 5};

/* The values: their bytes and lengths (0 - 9 bytes, zero bytes inside and at
 * the end, and longer ones). */
static const struct {
    const char *b;
    size_t n;
} k_vals[N_X] = {
    {"", 0},
    {"\0", 1},
    {"a", 1},
    {"ab", 2},
    {"ab\0", 3},
    {"abcdefg", 7},
    {"\0\0\0\0\0\0\0", 7},
    {"abcdefg\0", 8},
    {"abcdefgh", 8},
    {"\0\0\0\0\0\0\0\0", 8},
    {"\1\0\0\0\0\0\0\0", 8},
    {"\377\377\377\377\377\377\377\377", 8},
    {"\0\0\0\0\0\0\0\200", 8},
    {"ab\0\0\0\0\0\0", 8},
    {"zzzzzzzz", 8},
    {"abcdefgh\0", 9},
    {"abcdefghi", 9},
    {"\0\0\0\0\0\0\0\0\0", 9},
    {"abcdefghij", 10},
    {"abcdefghijklmnop", 16},
    {"abcdefghijklmnoq", 16},
    {"abcdefghijklmnop\0", 17},
    {"12345678", 8},
    {"87654321", 8},
    {"1234567", 7},
    {"123456789", 9},
};

typedef struct ment {
    int64_t cache[MAXW]; /* the truth: state plus the changes not drained */
    int64_t state[MAXW]; /* what the drains wrote */
    bool in_state, dirty;
} ment;

/* Values N_X.. are many more, of 8 bytes (a BIGINT's) or 12: the tables double
 * and list many changes. */
#define N_BULK 420
#define N_ALL (N_X + N_BULK)

static ment model[N_G][N_V][N_ALL];

/* Value x's bytes into buf (at least 12 bytes); its length. */
static size_t value_of(int x, char *buf)
{
    if (x < N_X) {
        memcpy(buf, k_vals[x].b, k_vals[x].n);
        return k_vals[x].n;
    }
    int64_t n = (int64_t)x * 2654435761;
    memcpy(buf, &n, 8);
    if (x % 4)
        return 8;
    memcpy(buf + 8, "long", 4);
    return 12;
}
static uint64_t rng_s;

static uint64_t rnd(void)
{
    rng_s += 0x9E3779B97F4A7C15ull;
    uint64_t z = rng_s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int find_val(const void *val, size_t vlen)
{
    char buf[32];
    for (int x = 0; x < N_ALL; x++)
        if (value_of(x, buf) == vlen && (!vlen || !memcmp(buf, val, vlen)))
            return x;
    cr_assert_fail("drained a value of %zu bytes the model never had", vlen);
    return -1;
}

typedef struct drain_ud {
    int left; /* calls before the one that fails (-1: none fails) */
    bool failed;
    const char *what;
} drain_ud;

static int on_change(void *ud, const uint8_t *key, size_t klen, uint64_t hash,
                     uint32_t v, const void *val, size_t vlen,
                     const int64_t *counters)
{
    drain_ud *d = ud;
    if (d->left == 0) {
        d->failed = true;
        return 1; /* this one is not written: it comes again at the next drain
                   */
    }
    if (d->left > 0)
        d->left--;
    cr_assert_eq(klen, 2);
    cr_assert_eq(hash, weir_key_hash(key, klen));
    int g = key[1] - 'a', x = find_val(val, vlen);
    cr_assert(g >= 0 && g < N_G && v < N_V);
    ment *m = &model[g][v][x];
    cr_assert(m->dirty, "%s: group %d view %u value %d drained but not changed",
              d->what, g, v, x);
    bool zero = true;
    for (uint32_t k = 0; k < k_widths[v]; k++)
        zero = zero && m->cache[k] == 0;
    if (zero) {
        cr_assert_null(counters,
                       "%s: group %d view %u value %d: all-zero counters are "
                       "handed as NULL",
                       d->what, g, v, x);
        memset(m->state, 0, sizeof m->state);
    } else {
        cr_assert_not_null(counters,
                           "%s: group %d view %u value %d handed as gone",
                           d->what, g, v, x);
        for (uint32_t k = 0; k < k_widths[v]; k++)
            cr_assert_eq(counters[k], m->cache[k],
                         "%s: group %d view %u value %d counter %u: %" PRId64
                         ", model %" PRId64,
                         d->what, g, v, x, k, counters[k], m->cache[k]);
        memcpy(m->state, m->cache, sizeof m->state);
    }
    m->in_state = !zero;
    m->dirty = false;
    return 0;
}

/* A counter's next value: an edge of a 16-byte record's bits or of the int32
 * limit, a step, or zero. */
static int64_t next_counter(int64_t was, int64_t nm)
{
    static const int64_t fixed[] = {0,   1,   2,   126, 127,
                                    128, 129, 255, 256, INT64_MAX / 2};
    switch (rnd() % 6) {
    case 0:
        return fixed[rnd() % (sizeof fixed / sizeof *fixed)];
    case 1:
        return nm - 1 +
               (int64_t)(rnd() % 3); /* the int32 limit and either side */
    case 2:
        return was > 0 ? was - 1 : 0;
    case 3:
        return was + 1;
    case 4:
        return 0;
    default:
        return was;
    }
}

static void run_case(uint64_t seed, uint32_t i)
{
    char what[96];
    rng_s = seed * 1000003 + i;
    static const int64_t knobs[] = {INT32_MAX, INT32_MAX, 127, 128,
                                    126,       200,       1,   40000};
    int64_t nm = knobs[rnd() % (sizeof knobs / sizeof *knobs)];
    int steps = 3000 + (int)(rnd() % 40000),
        only8 = (int)(rnd() % (uint64_t)steps) * (int)(rnd() % 2);
    /* per 100000 steps: drains, and resets (rare in some cases: the tables then
     * double, tombstones and all) */
    uint64_t drains = 200 + rnd() % 1200, resets = rnd() % 2 ? 20 : 400;
    snprintf(what, sizeof what,
             "WEIR_SEED=%" PRIu64 " case %u (narrow max %" PRId64 ", %d steps)",
             seed, i, nm, steps);
    memset(model, 0, sizeof model);
    int64_t saved = weir__gd_narrow_max;
    weir__gd_narrow_max = nm;
    gd_table *t;
    cr_assert_eq(weir__gd_create(N_V, k_widths, &t), 0);
    uint32_t num[N_G];
    bool held[N_G] = {false};
    for (int s = 0; s < steps; s++) {
        uint64_t r = rnd() % 100000;
        if (r < drains) { /* a drain, now and then failing part way */
            drain_ud d = {rnd() % 3 ? -1 : (int)(rnd() % 8), false, what};
            int rc = weir__gd_drain(t, rnd() % 2, on_change, &d);
            cr_assert_eq(rc, d.failed ? 1 : 0, "%s: a drain returned %d", what,
                         rc);
            continue;
        }
        if (r < drains + resets) {
            drain_ud d = {-1, false, what};
            cr_assert_eq(weir__gd_drain(t, rnd() % 2, on_change, &d), 0);
            for (int g = 0; g < N_G; g++)
                for (int v = 0; v < N_V; v++)
                    for (int x = 0; x < N_ALL; x++)
                        cr_assert(!model[g][v][x].dirty,
                                  "%s: step %d: group %d view %d value %d not "
                                  "drained",
                                  what, s, g, v, x);
            cr_assert_eq(weir__gd_reset(t), 0);
            memset(held, 0, sizeof held);
            continue;
        }
        int g = (int)(rnd() % N_G), v = (int)(rnd() % N_V),
            x = (int)(rnd() % 2 ? rnd() % N_X : rnd() % N_ALL);
        char vb[32];
        size_t vlen = value_of(x, vb);
        while (s < only8 && vlen != 8)
            vlen = value_of(x = (x + 1) % N_ALL, vb);
        char key[2] = {'g', (char)('a' + g)};
        bool fresh;
        uint32_t grp;
        cr_assert_eq(weir__gd_group(t, (const uint8_t *)key, 2,
                                    weir_key_hash(key, 2), &grp, &fresh),
                     0);
        cr_assert_eq(fresh, !held[g], "%s: step %d: group %d fresh %d", what, s,
                     g, fresh);
        if (fresh) {
            num[g] = grp;
            held[g] = true;
            /* complete: nothing in state, or everything loaded from it (after
             * the 8-byte-only steps) */
            bool any = false;
            for (int w = 0; w < N_V; w++)
                for (int y = 0; y < N_ALL; y++)
                    any = any || model[g][w][y].in_state;
            if (any && s >= only8 && rnd() % 2) {
                for (int w = 0; w < N_V; w++)
                    for (int y = 0; y < N_ALL; y++)
                        if (model[g][w][y].in_state) {
                            char yb[32];
                            size_t ylen = value_of(y, yb);
                            cr_assert_eq(weir__gd_load(t, grp, (uint32_t)w, yb,
                                                       ylen,
                                                       model[g][w][y].state),
                                         0);
                        }
                any = false;
            }
            if (!any)
                weir__gd_set_complete(t, grp);
        }
        cr_assert_eq(grp, num[g]);
        ment *m = &model[g][v][x];
        int64_t *c;
        bool unknown;
        cr_assert_eq(
            weir__gd_counts(t, grp, (uint32_t)v, vb, vlen, &c, &unknown), 0);
        if (unknown) {
            cr_assert(
                !m->dirty,
                "%s: step %d: group %d view %d value %d changed, yet unknown",
                what, s, g, v, x);
            memcpy(c, m->state, k_widths[v] * sizeof *c);
        }
        for (uint32_t k = 0; k < k_widths[v]; k++)
            cr_assert_eq(
                c[k], m->cache[k],
                "%s: step %d: group %d view %d value %d counter %u: %" PRId64
                ", model %" PRId64,
                what, s, g, v, x, k, c[k], m->cache[k]);
        for (uint32_t k = 0; k < k_widths[v]; k++)
            c[k] = m->cache[k] = next_counter(m->cache[k], nm);
        m->dirty = true;
        cr_assert_eq(weir__gd_put(t), 0);
    }
    drain_ud d = {-1, false, what};
    cr_assert_eq(weir__gd_drain(t, true, on_change, &d), 0);
    weir__gd_destroy(t);
    weir__gd_narrow_max = saved;
}

Test(group_distinct_corners, counters_and_values_at_their_edges)
{
    const char *s = getenv("WEIR_SEED"), *n = getenv("WEIR_GDC_CASES");
    uint64_t seed = s && *s ? strtoull(s, NULL, 0)
                            : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    uint32_t cases = n && *n ? (uint32_t)strtoul(n, NULL, 0) : 60;
    fprintf(stderr, "group_distinct_corners: WEIR_SEED=%" PRIu64 ", %u cases\n",
            seed, cases);
    for (uint32_t i = 0; i < cases; i++)
        run_case(seed, i);
}
