/*
 * tests/test_expr_shared.c - common subexpressions of a calc (a filter and
 * its projections, weir_expr_calc): a deterministic subexpression repeated
 * among them is computed once per batch (counted through the calls of a
 * UDF), never for a row none of its occurrences would evaluate, and never
 * shared when it is volatile (RAND, a UDF not marked deterministic) or
 * reads the session. The randomized test compares a calc with the separate
 * evaluation of the same trees (weir_expr_filter, then weir_expr_project
 * over the kept rows), which knows nothing of sharing.
 */
#include "expr_support.h"

TestSuite(expr_shared, .init = setup_expr, .fini = teardown_expr);

static uint32_t g_calls;

/* sq_det(x) = 3 * x, counting its calls; fails for x = 0 (a row no
 * occurrence evaluates must never reach it). */
static int triple_fn(void *ud, const weir_value *args, uint32_t n, weir_value *out, weir_udf_ctx *cx)
{
    (void)ud, (void)n, (void)cx;
    g_calls++;
    if (args[0].v.i64 == 0)
        return WEIR_EINVAL;
    out->v.i64 = 3 * args[0].v.i64;
    return 0;
}

static void register_triple(const char *name, bool deterministic)
{
    weir_type at = weir_type_make(WEIR_TYPE_BIGINT, true);
    weir_udf u = {.name = name, .arg_types = &at, .n_args = 1, .result_type = weir_type_make(WEIR_TYPE_BIGINT, true),
                  .row_fn = triple_fn, .null_on_null = true, .deterministic = deterministic};
    cr_assert_eq(weir_expr_register_udf(&u, &ERR), 0, "%s", ERR.message);
}

typedef struct tb {
    weir_schema *s, *os;
    weir_batch *b, *out;
} tb;

/* x BIGINT: 1..n with x = 0 at every 7th row and NULL at every 10th. */
static tb make(uint32_t n, uint32_t n_out)
{
    tb t;
    t.s = weir_schema_create();
    weir_schema_add(t.s, "x", weir_type_make(WEIR_TYPE_BIGINT, true));
    t.b = weir_batch_create(t.s, n);
    for (uint32_t i = 0; i < n; i++) {
        int r = weir_batch_append_row(t.b);
        WEIR_COL_I64(t.b, 0)[r] = i % 7 == 0 ? 0 : (int64_t)i;
        if (i % 10 == 9)
            weir_batch_set_null(t.b, 0, (uint32_t)r);
        t.b->ts[r] = 1000 + i;
    }
    t.os = weir_schema_create();
    for (uint32_t k = 0; k < n_out; k++) {
        char name[16];
        snprintf(name, sizeof name, "o%u", k);
        weir_schema_add(t.os, name, weir_type_make(WEIR_TYPE_BIGINT, true));
    }
    t.out = weir_batch_create(t.os, n);
    return t;
}

static void free_tb(tb *t)
{
    weir_batch_destroy(t->b);
    weir_batch_destroy(t->out);
    weir_schema_destroy(t->s);
    weir_schema_destroy(t->os);
}

static weir_expr *X(void)
{
    weir_expr *e;
    cr_assert_eq(weir_expr_column(A, 0, weir_type_make(WEIR_TYPE_BIGINT, true), &e, &ERR), 0);
    return e;
}

static weir_expr *CASE1(weir_expr *c, weir_expr *v, weir_expr *els)
{
    weir_expr *e;
    cr_assert_eq(weir_expr_case(A, &c, &v, 1, els, &e, &ERR), 0, "%s", ERR.message);
    return e;
}

/* The expected value of o (3 * x + add, or 6 * x) at output row j. */
static void expect_row(const weir_batch *out, uint32_t j, uint32_t col, bool null, int64_t v)
{
    cr_assert_eq(weir_batch_is_null(out, col, j), null, "row %u col %u", j, col);
    if (!null)
        cr_assert_eq(WEIR_COL_I64(out, col)[j], v, "row %u col %u: %lld, expected %lld", j, col,
                     (long long)WEIR_COL_I64(out, col)[j], (long long)v);
}

/*
 * WHERE x <> 0 AND sq(x) > 30, SELECT sq(x) + 1, sq(x) * 2: with a
 * deterministic sq, one call per row the filter reaches; without, one per
 * occurrence and row.
 */
static void run_filter_project(const char *fn, bool deterministic)
{
    register_triple(fn, deterministic);
    tb t = make(100, 2);
    weir_expr *filter = F("AND", F("<>", X(), L(0), NULL), F(">", F(fn, X(), NULL), L(30), NULL), NULL);
    weir_expr *ex[2] = {F("+", F(fn, X(), NULL), L(1), NULL), F("*", F(fn, X(), NULL), L(2), NULL)};
    weir_expr_calc *c;
    cr_assert_eq(weir_expr_calc_create(A, filter, ex, 2, &c, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(weir_expr_calc_shared(c), deterministic ? 1u : 0u);
    g_calls = 0;
    cr_assert_eq(weir_expr_calc_run(c, t.b, ENV, t.out, &ERR), 0, "%s", ERR.message);
    /* Rows reaching sq in the WHERE: x not 0 (AND decided) and not NULL (strict, not called). */
    uint32_t reach = 0, kept = 0;
    for (uint32_t i = 0; i < 100; i++) {
        if (i % 7 == 0 || i % 10 == 9)
            continue;
        reach++;
        if (3 * (int64_t)i > 30) {
            expect_row(t.out, kept, 0, false, 3 * (int64_t)i + 1);
            expect_row(t.out, kept, 1, false, 6 * (int64_t)i);
            cr_assert_eq(t.out->ts[kept], 1000 + (int64_t)i);
            kept++;
        }
    }
    cr_assert_eq(t.out->n_rows, kept);
    cr_assert_eq(g_calls, deterministic ? reach : reach + 2 * kept, "%u calls", g_calls);
    free_tb(&t);
    cr_assert_eq(weir_expr_unregister_udf(fn), 0);
}

Test(expr_shared, deterministic_udf_called_once_per_row)
{
    run_filter_project("sq_det", true);
}

Test(expr_shared, volatile_udf_called_per_occurrence)
{
    run_filter_project("sq_vol", false);
}

/*
 * Occurrences under different branches: the first computes the rows with
 * x > 50, the second needs x < 20 as well: only those rows are added, and
 * the rows with x = 0 (which would fail) are never computed.
 */
Test(expr_shared, each_row_computed_once_where_some_occurrence_needs_it)
{
    register_triple("sq_br", true);
    tb t = make(100, 3);
    weir_expr *ex[3] = {
        CASE1(F(">", X(), L(50), NULL), F("sq_br", X(), NULL), NULL),
        CASE1(F("AND", F("<", X(), L(20), NULL), F("<>", X(), L(0), NULL), NULL), F("sq_br", X(), NULL), L(-1)),
        F("COALESCE", CASE1(F(">", X(), L(50), NULL), F("sq_br", X(), NULL), NULL), L(-2), NULL),
    };
    weir_expr_calc *c;
    cr_assert_eq(weir_expr_calc_create(A, NULL, ex, 3, &c, &ERR), 0, "%s", ERR.message);
    /* The whole first CASE repeats in the third projection: it is shared, and sq_br(x) with it. */
    cr_assert_eq(weir_expr_calc_shared(c), 2u);
    g_calls = 0;
    cr_assert_eq(weir_expr_calc_run(c, t.b, ENV, t.out, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(t.out->n_rows, 100u);
    uint32_t want_calls = 0;
    for (uint32_t i = 0; i < 100; i++) {
        bool null = i % 10 == 9;
        int64_t x = i % 7 == 0 ? 0 : (int64_t)i;
        want_calls += !null && (x > 50 || (x < 20 && x != 0));
        expect_row(t.out, i, 0, null || x <= 50, 3 * x);
        expect_row(t.out, i, 1, false, !null && x < 20 && x != 0 ? 3 * x : -1);
        expect_row(t.out, i, 2, false, !null && x > 50 ? 3 * x : -2);
    }
    cr_assert_eq(g_calls, want_calls, "%u calls, expected %u", g_calls, want_calls);
    free_tb(&t);
    cr_assert_eq(weir_expr_unregister_udf("sq_br"), 0);
}

Test(expr_shared, rand_and_session_reads_are_never_shared)
{
    tb t = make(200, 2);
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "a", weir_type_make(WEIR_TYPE_DOUBLE, false));
    weir_schema_add(os, "b", weir_type_make(WEIR_TYPE_DOUBLE, false));
    weir_batch *out = weir_batch_create(os, 200);
    weir_expr *ex[2] = {F("+", F("RAND", NULL), D(1), NULL), F("+", F("RAND", NULL), D(1), NULL)};
    weir_expr_calc *c;
    cr_assert_eq(weir_expr_calc_create(A, NULL, ex, 2, &c, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(weir_expr_calc_shared(c), 0u);
    cr_assert_eq(weir_expr_calc_run(c, t.b, ENV, out, &ERR), 0, "%s", ERR.message);
    uint32_t same = 0;
    for (uint32_t i = 0; i < 200; i++)
        same += WEIR_COL_F64(out, 0)[i] == WEIR_COL_F64(out, 1)[i];
    cr_assert_lt(same, 5u, "%u of 200 rows drew the same number twice", same);
    /* The clock and the watermark: read per evaluation, not shared either. */
    weir_expr *now[2] = {F("UNIX_TIMESTAMP", NULL), F("UNIX_TIMESTAMP", NULL)};
    cr_assert_eq(weir_expr_calc_create(A, NULL, now, 2, &c, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(weir_expr_calc_shared(c), 0u);
    /* A deterministic subexpression over the same input is. */
    weir_expr *det[2] = {F("+", F("ABS", X(), NULL), L(1), NULL), F("-", F("ABS", X(), NULL), L(1), NULL)};
    cr_assert_eq(weir_expr_calc_create(A, NULL, det, 2, &c, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(weir_expr_calc_shared(c), 1u);
    weir_batch_destroy(out);
    weir_schema_destroy(os);
    free_tb(&t);
}

/* ---- randomized: a calc against the separate evaluation of its trees ---- */

static uint64_t rng_s;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}

/*
 * A random BIGINT expression over x (column 0) and y (column 1). Subtrees
 * come from a few seeds, each rebuilt from scratch wherever it is used, so
 * equal subtrees are distinct nodes (as the planner binds them).
 */
static weir_expr *gen(uint64_t seed, int depth);

static weir_expr *leaf(uint64_t r)
{
    weir_expr *e;
    switch (r % 4) {
    case 0: return X();
    case 1: cr_assert_eq(weir_expr_column(A, 1, weir_type_make(WEIR_TYPE_BIGINT, true), &e, &ERR), 0); return e;
    case 2: return L((int64_t)(r >> 8) % 7 - 3);
    default: return NULT(WEIR_TYPE_BIGINT);
    }
}

static weir_expr *cond(uint64_t seed, int depth)
{
    uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
    static const char *cmp[] = {"<", ">", "=", "<>"};
    weir_expr *c = F(cmp[s % 4], gen(s >> 3, depth - 1), gen((s >> 11) % 5, depth - 1), NULL);
    if ((s >> 20) % 3 == 0)
        c = F((s >> 24) & 1 ? "AND" : "OR", c, F("IS NULL", gen((s >> 27) % 5, depth - 1), NULL), NULL);
    return c;
}

static weir_expr *gen(uint64_t seed, int depth)
{
    uint64_t s = seed * 2862933555777941757ull + 3037000493ull;
    s ^= s >> 29;
    if (depth <= 0 || s % 6 == 0)
        return leaf(s >> 4);
    switch ((s >> 4) % 7) {
    case 0: return F("+", gen(s >> 9, depth - 1), gen((s >> 17) % 6, depth - 1), NULL);
    case 1: return F("*", gen((s >> 9) % 6, depth - 1), gen(s >> 17, depth - 1), NULL);
    case 2: /* divides only where the divisor is not 0: an unguarded row fails the test */
    {
        weir_expr *d = gen((s >> 13) % 6, depth - 1);
        weir_expr *c = F("<>", gen((s >> 13) % 6, depth - 1), L(0), NULL);
        return CASE1(c, F("/", gen(s >> 21, depth - 1), d, NULL), L(7));
    }
    case 3: return CASE1(cond(s >> 9, depth), gen((s >> 15) % 6, depth - 1), gen(s >> 23, depth - 1));
    case 4: return F("COALESCE", gen((s >> 9) % 6, depth - 1), gen(s >> 19, depth - 1), NULL);
    case 5: return F("ABS", gen((s >> 9) % 6, depth - 1), NULL);
    default: return F("-", gen((s >> 9) % 6, depth - 1), gen((s >> 19) % 6, depth - 1), NULL);
    }
}

Test(expr_shared, calc_equals_separate_evaluation_on_random_trees)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "x", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "y", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema *os = weir_schema_create();
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "o%d", k);
        weir_schema_add(os, name, weir_type_make(WEIR_TYPE_BIGINT, true));
    }
    const uint32_t n = 64;
    weir_batch *in = weir_batch_create(s, n), *kept = weir_batch_create(s, n);
    weir_batch *o1 = weir_batch_create(os, n), *o2 = weir_batch_create(os, n);
    weir_expr_env *env2 = weir_expr_env_create();
    uint8_t sel[64];
    uint32_t rows[64];
    uint32_t shared_total = 0;
    rng_s = 0x9e3779b97f4a7c15ull;
    for (int iter = 0; iter < 400; iter++) {
        weir_batch_reset(in);
        for (uint32_t i = 0; i < n; i++) {
            int r = weir_batch_append_row(in);
            WEIR_COL_I64(in, 0)[r] = (int64_t)(rnd() % 9) - 4;
            WEIR_COL_I64(in, 1)[r] = (int64_t)(rnd() % 9) - 4;
            if (rnd() % 8 == 0)
                weir_batch_set_null(in, rnd() & 1, (uint32_t)r);
            in->ts[r] = (weir_ts)i;
        }
        /* The trees draw from few seeds so that they repeat one another. */
        uint64_t base = rnd() % 40;
        int depth = 2 + (int)(rnd() % 3);
        weir_expr *filter = rnd() % 4 ? cond(base + rnd() % 3, depth) : NULL;
        weir_expr *ex[4];
        for (int k = 0; k < 4; k++)
            ex[k] = gen(base + rnd() % 4, depth);
        weir_expr_calc *c;
        cr_assert_eq(weir_expr_calc_create(A, filter, ex, 4, &c, &ERR), 0, "%s", ERR.message);
        shared_total += weir_expr_calc_shared(c);
        weir_error e1, e2;
        weir_error_clear(&e1);
        weir_error_clear(&e2);
        int rc1 = weir_expr_calc_run(c, in, ENV, o1, &e1);
        /* The reference: filter, gather, project - no sharing. */
        int rc2 = 0;
        const weir_batch *src = in;
        if (filter) {
            rc2 = weir_expr_filter(filter, in, env2, sel, &e2);
            uint32_t m = 0;
            for (uint32_t i = 0; i < n; i++)
                if (sel[i])
                    rows[m++] = i;
            weir_batch_reset(kept);
            if (!rc2 && m)
                cr_assert_eq(weir_batch_gather(kept, in, rows, m), 0);
            src = kept;
        }
        weir_batch_reset(o2);
        if (!rc2 && src->n_rows)
            rc2 = weir_expr_project(ex, 4, src, env2, o2, &e2);
        cr_assert_eq(rc1 != 0, rc2 != 0, "iteration %d: calc %d (%s), reference %d (%s)", iter, rc1, e1.message,
                     rc2, e2.message);
        if (rc1) {
            cr_assert_str_eq(e1.message, e2.message, "iteration %d", iter);
            continue;
        }
        cr_assert_eq(o1->n_rows, o2->n_rows, "iteration %d", iter);
        for (uint32_t j = 0; j < o1->n_rows; j++) {
            cr_assert_eq(o1->ts[j], o2->ts[j]);
            for (uint32_t k = 0; k < 4; k++) {
                bool n1 = weir_batch_is_null(o1, k, j), n2 = weir_batch_is_null(o2, k, j);
                cr_assert_eq(n1, n2, "iteration %d row %u col %u", iter, j, k);
                if (!n1)
                    cr_assert_eq(WEIR_COL_I64(o1, k)[j], WEIR_COL_I64(o2, k)[j], "iteration %d row %u col %u",
                                 iter, j, k);
            }
        }
    }
    /* The generator must actually produce shared subexpressions. */
    cr_assert_gt(shared_total, 200u, "only %u shared subexpressions in 400 calcs", shared_total);
    weir_expr_env_destroy(env2);
    weir_batch_destroy(in);
    weir_batch_destroy(kept);
    weir_batch_destroy(o1);
    weir_batch_destroy(o2);
    weir_schema_destroy(s);
    weir_schema_destroy(os);
}
