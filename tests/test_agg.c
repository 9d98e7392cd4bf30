/*
 * tests/test_agg.c - the aggregate functions of src/agg.
 *
 * Deterministic tests of each function on each accepted type, then
 * randomised property tests against reference implementations written
 * here (merge equals one accumulator, serialisation round trips, retraction
 * exactness). Random tests print their seed; WEIR_TEST_SEED replays one.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/agg.h"

/* ---- helpers ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rnd_unit(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

static uint64_t seed_from_env(const char *test, uint64_t dflt)
{
    const char *e = getenv("WEIR_TEST_SEED");
    uint64_t s = e ? strtoull(e, NULL, 0) : dflt;
    fprintf(stderr,
            "%s: seed %" PRIu64 " (replay with WEIR_TEST_SEED=%" PRIu64 ")\n",
            test, s, s);
    return s;
}

/* Columns of the test schema, one per accepted type. */
enum {
    C_BOOL,
    C_INT,
    C_BIGINT,
    C_DOUBLE,
    C_DEC,
    C_STR,
    C_BYTES,
    C_TS,
    C_TSLTZ,
    N_COLS
};

static weir_schema *all_types(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "b", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    weir_schema_add(s, "i", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "l", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "d", weir_type_make(WEIR_TYPE_DOUBLE, true));
    weir_schema_add(s, "m", weir_type_decimal(10, 2, true));
    weir_schema_add(s, "s", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "y", weir_type_make(WEIR_TYPE_BYTES, true));
    weir_schema_add(s, "t", weir_type_make(WEIR_TYPE_TIMESTAMP, true));
    weir_schema_add(s, "z", weir_type_make(WEIR_TYPE_TIMESTAMP_LTZ, true));
    return s;
}

/* A test-side value: what a row holds in one column. */
typedef struct tval {
    bool null;
    int64_t i; /* BOOLEAN, INT, BIGINT, DECIMAL unscaled, timestamps */
    double d;
    char s[16];
    uint32_t len;
} tval;

static void put_tval(weir_batch *b, int col, uint32_t row, const tval *v)
{
    if (v->null) {
        weir_batch_set_null(b, col, row);
        return;
    }
    weir_batch_set_valid(b, col, row);
    switch (b->cols[col].type.id) {
    case WEIR_TYPE_BOOLEAN:
        WEIR_COL_BOOL(b, col)[row] = (uint8_t)v->i;
        break;
    case WEIR_TYPE_INT:
        WEIR_COL_I32(b, col)[row] = (int32_t)v->i;
        break;
    case WEIR_TYPE_DOUBLE:
        WEIR_COL_F64(b, col)[row] = v->d;
        break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
        cr_assert_eq(weir_batch_set_str(b, col, row, v->s, v->len), 0);
        break;
    default:
        WEIR_COL_I64(b, col)[row] = v->i;
        break;
    }
}

static tval tv_i(int64_t i)
{
    return (tval){.i = i};
}
static tval tv_d(double d)
{
    return (tval){.d = d};
}
static tval tv_null(void)
{
    return (tval){.null = true};
}

static tval tv_s(const char *s, uint32_t len)
{
    tval v = {.len = len};
    memcpy(v.s, s, len);
    return v;
}

static tval tv_str(const char *s)
{
    return tv_s(s, (uint32_t)strlen(s));
}

/* A one-column batch holding vals. */
static weir_batch *col_batch(const weir_schema *s, int col, const tval *vals,
                             uint32_t n)
{
    weir_batch *b = weir_batch_create(s, n ? n : 1);
    for (uint32_t r = 0; r < n; r++) {
        cr_assert_eq(weir_batch_append_row(b), (int)r);
        put_tval(b, col, r, &vals[r]);
    }
    return b;
}

/* A result read back from a one-row output batch. */
typedef struct res {
    int rc;
    bool null;
    int64_t i;
    double d;
    char s[256];
    uint32_t len;
} res;

static res result_of(const weir_agg *a, const void *acc)
{
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", a->result_type);
    weir_batch *out = weir_batch_create(os, 1);
    weir_batch_append_row(out);
    res r = {0};
    r.rc = a->cls->result(a, acc, out, 0, 0);
    if (r.rc == 0) {
        r.null = weir_batch_is_null(out, 0, 0);
        switch (a->result_type.id) {
        case WEIR_TYPE_BOOLEAN:
            r.i = WEIR_COL_BOOL(out, 0)[0];
            break;
        case WEIR_TYPE_INT:
            r.i = WEIR_COL_I32(out, 0)[0];
            break;
        case WEIR_TYPE_DOUBLE:
            r.d = WEIR_COL_F64(out, 0)[0];
            break;
        case WEIR_TYPE_STRING:
        case WEIR_TYPE_BYTES: {
            uint32_t len;
            const char *p = weir_batch_str(out, 0, 0, &len);
            cr_assert_lt(len, sizeof r.s);
            if (len)
                memcpy(r.s, p, len);
            r.len = len;
            break;
        }
        default:
            if (weir_type_is_wide(a->result_type)) { /* the tests' sums fit 64 bits */
                __int128 w;
                memcpy(&w, out->cols[0].data, 16);
                r.i = (int64_t)w;
                break;
            }
            r.i = WEIR_COL_I64(out, 0)[0];
            break;
        }
    }
    weir_batch_destroy(out);
    weir_schema_destroy(os);
    return r;
}

static void *acc_new(const weir_agg *a)
{
    void *acc = weir_malloc(weir_agg_acc_size(a));
    cr_assert_not_null(acc);
    weir_agg_init(a, acc);
    return acc;
}

static void acc_free(const weir_agg *a, void *acc)
{
    weir_agg_destroy(a, acc);
    weir_free(acc);
}

static void bind_ok(const char *name, const weir_schema *s, int col,
                    double param, weir_agg *a)
{
    weir_error err = {0};
    int rc = weir_agg_bind(name, s, col, param, a, &err);
    cr_assert_eq(rc, 0, "bind %s col %d: %s", name, col, err.message);
}

/* Binds name to col and folds vals in; returns the result. */
static res run(const char *name, int col, double param, const tval *vals,
               uint32_t n, weir_agg *aout)
{
    weir_schema *s = all_types();
    weir_agg a;
    bind_ok(name, s, col, param, &a);
    weir_batch *b = col_batch(s, col >= 0 ? col : 0, vals, n);
    void *acc = acc_new(&a);
    for (uint32_t r = 0; r < n; r++)
        cr_assert_eq(a.cls->add(&a, acc, b, r), 0);
    res out = result_of(&a, acc);
    cr_assert_eq(out.rc, 0);
    if (aout)
        *aout = a;
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
    return out;
}

static int serialize(const weir_agg *a, const void *acc, weir_buf *buf)
{
    weir_buf_clear(buf);
    return a->cls->serialize(a, acc, buf);
}

/* ---- binding ---- */

/* Every proper prefix of the state x is refused as corrupt by a's reader. */
static void expect_every_cut_corrupt(weir_agg *a, void *back, const weir_buf *x)
{
    for (size_t c = 0; c < x->len; c++) {
        weir_cursor cur;
        weir_agg_destroy(a, back);
        weir_cursor_init(&cur, x->data, c);
        cr_assert_eq(a->cls->deserialize(a, back, &cur), WEIR_ECORRUPT, "cut %zu/%zu", c, x->len);
    }
}

Test(agg_bind, names_types_and_errors)
{
    weir_schema *s = all_types();
    weir_agg a;
    weir_error err = {0};
    cr_assert_eq(weir_agg_bind("MEDIAN", s, C_INT, 0, &a, &err),
                 WEIR_ENOTFOUND);
    cr_assert(strstr(err.message, "MEDIAN"));
    cr_assert_eq(weir_agg_bind("sum", s, C_STR, 0, &a, &err), WEIR_EINVAL);
    cr_assert(strstr(err.message, "SUM") && strstr(err.message, "STRING"), "%s",
              err.message);
    cr_assert_eq(weir_agg_bind("SUM", s, -1, 0, &a, &err), WEIR_EINVAL);
    cr_assert_eq(weir_agg_bind("MIN", s, N_COLS, 0, &a, &err), WEIR_EINVAL);
    cr_assert_eq(weir_agg_bind("APPROX_PERCENTILE", s, C_INT, 1.5, &a, &err),
                 WEIR_EINVAL);
    cr_assert_eq(weir_agg_bind("APPROX_PERCENTILE", s, C_STR, 0.5, &a, &err),
                 WEIR_EINVAL);
    cr_assert_eq(weir_agg_bind("APPROX_COUNT_DISTINCT", s, C_INT, 3, &a, &err),
                 WEIR_EINVAL);
    cr_assert_eq(
        weir_agg_bind("APPROX_COUNT_DISTINCT", s, C_INT, 12.5, &a, &err),
        WEIR_EINVAL);

    bind_ok("count", s, -1, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_BIGINT);
    cr_assert_not(a.result_type.nullable);
    bind_ok("Sum", s, C_INT, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_BIGINT);
    cr_assert(a.result_type.nullable);
    bind_ok("SUM", s, C_DOUBLE, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_DOUBLE);
    bind_ok("SUM", s, C_DEC, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_DECIMAL);
    cr_assert_eq(a.result_type.precision, 38); /* Flink: DECIMAL(38, s) */
    cr_assert_eq(a.result_type.scale, 2);
    bind_ok("AVG", s, C_INT, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_INT);
    bind_ok("AVG", s, C_BIGINT, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_BIGINT);
    bind_ok("AVG", s, C_DEC, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_DECIMAL);
    cr_assert_eq(a.result_type.scale, 6);
    bind_ok("MIN", s, C_STR, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_STRING);
    bind_ok("MAX_RETRACT", s, C_TSLTZ, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_TIMESTAMP_LTZ);
    bind_ok("stddev", s, C_INT, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_DOUBLE);
    bind_ok("APPROX_COUNT_DISTINCT", s, C_STR, 0, &a);
    cr_assert_eq(a.param, 14);
    cr_assert_not(weir_agg_can_retract(&a));
    bind_ok("COUNT_DISTINCT", s, C_STR, 0, &a);
    cr_assert(weir_agg_can_retract(&a));

    /* PERCENTILE with a frequency reads ROW(value, frequency) */
    weir_type rt, ft[2] = {weir_type_make(WEIR_TYPE_DOUBLE, true), weir_type_make(WEIR_TYPE_BIGINT, true)};
    const char *fnames[2] = {"v", "f"};
    cr_assert_eq(weir_type_row(ft, fnames, 2, true, &rt), 0);
    int32_t c_row = weir_schema_add(s, "vf", rt);
    cr_assert_geq(c_row, 0);
    bind_ok("PERCENTILES_FREQ", s, c_row, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_ARRAY);
    cr_assert_eq(weir_agg_bind("PERCENTILE_FREQ", s, C_INT, 0.5, &a, &err), WEIR_EINVAL);

    size_t n;
    const char *const *names = weir_agg_builtin_names(&n);
    cr_assert_geq(n, 15);
    for (size_t i = 0; i < n; i++)
        bind_ok(names[i], s, strstr(names[i], "_FREQ") ? c_row : strcmp(names[i], "LISTAGG") ? C_INT : C_STR,
                strstr(names[i], "PERCENTILE") ? 0.5 : 0, &a);
    weir_schema_destroy(s);
}

Test(agg_bind, avg_decimal_is_decimal_38_max_6_s)
{
    /* Flink: AVG of DECIMAL(p, s) is DECIMAL(38, max(6, s)). */
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "a", weir_type_decimal(18, 0, true));
    weir_schema_add(s, "b", weir_type_decimal(15, 2, true));
    weir_schema_add(s, "c", weir_type_decimal(12, 8, true));
    weir_agg a;
    bind_ok("AVG", s, 0, 0, &a);
    cr_assert_eq(a.result_type.precision, 38);
    cr_assert_eq(a.result_type.scale, 6);
    bind_ok("AVG", s, 1, 0, &a);
    cr_assert_eq(a.result_type.scale, 6);
    bind_ok("AVG", s, 2, 0, &a);
    cr_assert_eq(a.result_type.scale, 8);
    weir_schema_destroy(s);
}

/* ---- COUNT ---- */

Test(agg_count, star_counts_rows_col_counts_values)
{
    tval v[] = {tv_i(1), tv_null(), tv_i(3), tv_null()};
    cr_assert_eq(run("COUNT", -1, 0, v, 4, NULL).i, 4);
    cr_assert_eq(run("COUNT", C_BIGINT, 0, v, 4, NULL).i, 2);
    res r = run("COUNT", C_BIGINT, 0, v, 0, NULL);
    cr_assert_not(r.null);
    cr_assert_eq(r.i, 0);
    r = run("COUNT", -1, 0, v, 0, NULL);
    cr_assert_not(r.null);
    cr_assert_eq(r.i, 0);
    tval sv[] = {tv_str(""), tv_null(), tv_str("x")};
    cr_assert_eq(run("COUNT", C_STR, 0, sv, 3, NULL).i, 2);
}

/* ---- SUM / SUM0 / AVG ---- */

Test(agg_sum, every_numeric_type_and_nulls)
{
    tval iv[] = {tv_i(5), tv_null(), tv_i(-2), tv_i(2147483647),
                 tv_i(2147483647)};
    cr_assert_eq(run("SUM", C_INT, 0, iv, 5, NULL).i, 3 + 2LL * 2147483647);
    cr_assert_eq(run("SUM", C_BIGINT, 0, iv, 5, NULL).i, 3 + 2LL * 2147483647);
    tval dv[] = {tv_d(0.5), tv_null(), tv_d(1.25)};
    cr_assert_eq(run("SUM", C_DOUBLE, 0, dv, 3, NULL).d, 1.75);
    tval mv[] = {tv_i(1999), tv_i(1), tv_null()}; /* 19.99 + 0.01 */
    weir_agg a;
    res r = run("SUM", C_DEC, 0, mv, 3, &a);
    cr_assert_eq(r.i, 2000);
    cr_assert_eq(a.result_type.scale, 2);

    tval nulls[] = {tv_null(), tv_null()};
    for (int c = C_INT; c <= C_DEC; c++) {
        cr_assert(run("SUM", c, 0, nulls, 2, NULL).null,
                  "SUM of NULLs is NULL (col %d)", c);
        cr_assert(run("SUM", c, 0, nulls, 0, NULL).null,
                  "SUM of nothing is NULL (col %d)", c);
        cr_assert(run("AVG", c, 0, nulls, 2, NULL).null);
        res z = run("SUM0", c, 0, nulls, 2, NULL);
        cr_assert_not(z.null);
        cr_assert_eq(z.i, 0);
        cr_assert_eq(z.d, 0);
    }
}

Test(agg_sum, bigint_wraps_like_flink_and_retracts_exactly)
{
    weir_schema *s = all_types();
    weir_agg a;
    bind_ok("SUM", s, C_BIGINT, 0, &a);
    tval v[] = {tv_i(INT64_MAX), tv_i(2), tv_i(-5)};
    weir_batch *b = col_batch(s, C_BIGINT, v, 3);
    void *acc = acc_new(&a);
    for (uint32_t r = 0; r < 3; r++)
        cr_assert_eq(a.cls->add(&a, acc, b, r), 0);
    cr_assert_eq(result_of(&a, acc).i, (int64_t)((uint64_t)INT64_MAX + 2 - 5));
    cr_assert_eq(a.cls->retract(&a, acc, b, 1), 0);
    cr_assert_eq(result_of(&a, acc).i, INT64_MAX - 5);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_sum, decimal_is_exact_past_18_digits)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "m", weir_type_decimal(18, 2, true));
    weir_agg a;
    bind_ok("SUM", s, 0, 0, &a);
    const int64_t big = 999999999999999999LL; /* 9999999999999999.99 */
    weir_batch *b = weir_batch_create(s, 4);
    int64_t vals[] = {big, big, 1, -big};
    for (int r = 0; r < 4; r++) {
        weir_batch_append_row(b);
        WEIR_COL_I64(b, 0)[r] = vals[r];
    }
    void *acc = acc_new(&a);
    /* 0.01 added 100000 times is exactly 1000.00, not 999.99999... */
    for (int k = 0; k < 100000; k++)
        cr_assert_eq(a.cls->add(&a, acc, b, 2), 0);
    cr_assert_eq(result_of(&a, acc).i, 100000);
    /* Past 18 digits the DECIMAL(38, 2) sum stays exact. */
    cr_assert_eq(a.cls->add(&a, acc, b, 0), 0);
    cr_assert_eq(a.cls->add(&a, acc, b, 0), 0);
    cr_assert_eq(result_of(&a, acc).i, 2 * big + 100000);
    cr_assert_eq(a.cls->add(&a, acc, b, 3), 0);
    cr_assert_eq(result_of(&a, acc).i, big + 100000);
    cr_assert_eq(a.cls->retract(&a, acc, b, 0), 0);
    cr_assert_eq(result_of(&a, acc).i, 100000);
    cr_assert_eq(a.cls->retract(&a, acc, b, 3), 0);
    cr_assert_eq(result_of(&a, acc).i, big + 100000);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_avg, integers_truncate_toward_zero_like_flink)
{
    tval v[] = {tv_i(-3), tv_i(-4), tv_null()};
    cr_assert_eq(run("AVG", C_INT, 0, v, 3, NULL).i, -3); /* -3.5 -> -3 */
    tval w[] = {tv_i(3), tv_i(4), tv_i(4)};
    cr_assert_eq(run("AVG", C_BIGINT, 0, w, 3, NULL).i, 3); /* 3.67 -> 3 */
    tval d[] = {tv_d(3), tv_d(4)};
    cr_assert_eq(run("AVG", C_DOUBLE, 0, d, 2, NULL).d, 3.5);
}

Test(agg_avg, decimal_rounds_half_up_at_result_scale)
{
    /* DECIMAL(10,2) -> DECIMAL(18,6) */
    tval v[] = {tv_i(100), tv_i(200),
                tv_i(200)}; /* (1 + 2 + 2) / 3 = 1.6666666.. */
    cr_assert_eq(run("AVG", C_DEC, 0, v, 3, NULL).i, 1666667);
    tval w[] = {tv_i(-100), tv_i(-200), tv_i(-200)};
    cr_assert_eq(run("AVG", C_DEC, 0, w, 3, NULL).i, -1666667);
    tval h[] = {tv_i(1), tv_i(0), tv_i(0), tv_i(0),
                tv_i(0), tv_i(0), tv_i(0), tv_i(0)}; /* 0.01 / 8 = 0.00125 */
    cr_assert_eq(run("AVG", C_DEC, 0, h, 8, NULL).i, 1250);
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "m", weir_type_decimal(18, 6, true));
    weir_agg a;
    bind_ok("AVG", s, 0, 0, &a);
    weir_batch *b = weir_batch_create(s, 2);
    weir_batch_append_row(b);
    weir_batch_append_row(b);
    WEIR_COL_I64(b, 0)[0] = 1; /* 0.000001 */
    WEIR_COL_I64(b, 0)[1] = 0;
    void *acc = acc_new(&a);
    a.cls->add(&a, acc, b, 0);
    a.cls->add(&a, acc, b, 1);
    cr_assert_eq(result_of(&a, acc).i, 1,
                 "0.0000005 rounds half up to 0.000001");
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- variance ---- */

Test(agg_var, population_sample_and_stddev)
{
    tval v[] = {tv_i(2), tv_i(4), tv_i(4), tv_i(4), tv_null(),
                tv_i(5), tv_i(5), tv_i(7), tv_i(9)};
    cr_assert_float_eq(run("VAR_POP", C_INT, 0, v, 9, NULL).d, 4.0, 1e-12);
    cr_assert_float_eq(run("STDDEV_POP", C_BIGINT, 0, v, 9, NULL).d, 2.0,
                       1e-12);
    cr_assert_float_eq(run("VAR_SAMP", C_INT, 0, v, 9, NULL).d, 32.0 / 7,
                       1e-12);
    cr_assert_float_eq(run("STDDEV_SAMP", C_INT, 0, v, 9, NULL).d,
                       sqrt(32.0 / 7), 1e-12);
    cr_assert_float_eq(run("VARIANCE", C_DEC, 0, v, 9, NULL).d,
                       32.0 / 7 / 10000, 1e-15);
    tval one[] = {tv_i(3)};
    cr_assert(run("VAR_SAMP", C_INT, 0, one, 1, NULL).null,
              "sample variance of one value is NULL");
    cr_assert_eq(run("VAR_POP", C_INT, 0, one, 1, NULL).d, 0);
    cr_assert(run("STDDEV_POP", C_DOUBLE, 0, one, 0, NULL).null);
}

/* ---- MIN / MAX / FIRST / LAST on every type ---- */

Test(agg_minmax, every_ordered_type)
{
    tval b[] = {tv_i(1), tv_null(), tv_i(0)};
    cr_assert_eq(run("MIN", C_BOOL, 0, b, 3, NULL).i, 0);
    cr_assert_eq(run("MAX", C_BOOL, 0, b, 3, NULL).i, 1);
    tval i[] = {tv_i(5), tv_null(), tv_i(-7), tv_i(3)};
    for (int c = C_INT; c <= C_TSLTZ; c++) {
        if (c == C_DOUBLE || c == C_STR || c == C_BYTES)
            continue;
        cr_assert_eq(run("MIN", c, 0, i, 4, NULL).i, -7, "col %d", c);
        cr_assert_eq(run("MAX", c, 0, i, 4, NULL).i, 5, "col %d", c);
        cr_assert_eq(run("MIN_RETRACT", c, 0, i, 4, NULL).i, -7, "col %d", c);
        cr_assert_eq(run("MAX_RETRACT", c, 0, i, 4, NULL).i, 5, "col %d", c);
    }
    tval ts[] = {tv_i(-86400000LL * 365),
                 tv_i(1700000000000LL)}; /* timestamps before 1970 order too */
    cr_assert_eq(run("MIN", C_TS, 0, ts, 2, NULL).i, -86400000LL * 365);
    tval d[] = {tv_d(1.5), tv_d(-0.0), tv_d(-2.25), tv_null()};
    cr_assert_eq(run("MIN", C_DOUBLE, 0, d, 4, NULL).d, -2.25);
    cr_assert_eq(run("MAX", C_DOUBLE, 0, d, 4, NULL).d, 1.5);
    tval dn[] = {tv_d(1.5), tv_d(NAN), tv_d(-1)};
    cr_assert(isnan(run("MAX", C_DOUBLE, 0, dn, 3, NULL).d),
              "NaN sorts above every number");
    cr_assert_eq(run("MIN", C_DOUBLE, 0, dn, 3, NULL).d, -1);
    cr_assert(isnan(run("MAX_RETRACT", C_DOUBLE, 0, dn, 3, NULL).d));

    /* Strings: bytewise, unsigned, a prefix first. */
    tval s[] = {tv_str("pear"),
                tv_null(),
                tv_str("apple"),
                tv_str("app"),
                tv_s("\xc3\xa9t\xc3\xa9", 5),
                tv_str("zebra")};
    for (int c = C_STR; c <= C_BYTES; c++) {
        res r = run("MIN", c, 0, s, 6, NULL);
        cr_assert_eq(r.len, 3);
        cr_assert_eq(memcmp(r.s, "app", 3), 0);
        r = run("MAX", c, 0, s, 6, NULL);
        cr_assert_eq(r.len, 5);
        cr_assert_eq(memcmp(r.s, "\xc3\xa9t\xc3\xa9", 5), 0,
                     "UTF-8 bytes above ASCII");
        r = run("MIN_RETRACT", c, 0, s, 6, NULL);
        cr_assert_eq(memcmp(r.s, "app", 3), 0);
    }
    tval e[] = {tv_str(""), tv_str("a")};
    res r = run("MIN", C_STR, 0, e, 2, NULL);
    cr_assert_not(r.null);
    cr_assert_eq(r.len, 0, "the empty string is a value, not NULL");

    tval nulls[] = {tv_null(), tv_null()};
    const char *fns[] = {"MIN",
                         "MAX",
                         "FIRST_VALUE",
                         "LAST_VALUE",
                         "MIN_RETRACT",
                         "MAX_RETRACT",
                         "FIRST_VALUE_RETRACT",
                         "LAST_VALUE_RETRACT"};
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
        for (int c = 0; c < N_COLS; c++) {
            cr_assert(run(fns[f], c, 0, nulls, 2, NULL).null, "%s of NULLs",
                      fns[f]);
            cr_assert(run(fns[f], c, 0, nulls, 0, NULL).null, "%s of nothing",
                      fns[f]);
        }
}

Test(agg_firstlast, arrival_order_skipping_nulls)
{
    tval v[] = {tv_null(), tv_i(7), tv_i(3), tv_i(9), tv_null()};
    for (int c = 0; c < N_COLS; c++) {
        if (c == C_DOUBLE || c == C_STR || c == C_BYTES || c == C_BOOL)
            continue;
        cr_assert_eq(run("FIRST_VALUE", c, 0, v, 5, NULL).i, 7);
        cr_assert_eq(run("LAST_VALUE", c, 0, v, 5, NULL).i, 9);
        cr_assert_eq(run("FIRST_VALUE_RETRACT", c, 0, v, 5, NULL).i, 7);
        cr_assert_eq(run("LAST_VALUE_RETRACT", c, 0, v, 5, NULL).i, 9);
    }
    tval bv[] = {tv_i(0), tv_i(1)};
    cr_assert_eq(run("FIRST_VALUE", C_BOOL, 0, bv, 2, NULL).i, 0);
    tval d[] = {tv_d(2.5), tv_d(-1)};
    cr_assert_eq(run("LAST_VALUE", C_DOUBLE, 0, d, 2, NULL).d, -1);
    tval s[] = {tv_str("b"), tv_str("a"), tv_null()};
    cr_assert_eq(run("FIRST_VALUE", C_STR, 0, s, 3, NULL).s[0], 'b');
    cr_assert_eq(run("LAST_VALUE", C_BYTES, 0, s, 3, NULL).s[0], 'a');
}

Test(agg_minmax, strings_are_owned_by_the_accumulator)
{
    /* The batch is reset, overwritten and freed; the kept values must
     * survive (ASan reports any read of the freed heap). */
    weir_schema *s = all_types();
    const char *fns[] = {"MIN",
                         "MAX",
                         "FIRST_VALUE",
                         "LAST_VALUE",
                         "MIN_RETRACT",
                         "MAX_RETRACT",
                         "FIRST_VALUE_RETRACT",
                         "LAST_VALUE_RETRACT",
                         "COUNT_DISTINCT"};
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        weir_agg a;
        bind_ok(fns[f], s, C_STR, 0, &a);
        void *acc = acc_new(&a);
        void *acc2 = acc_new(&a);
        const char *words[] = {"mango", "kiwi",
                               "a-rather-long-string-value-beyond-sixteen",
                               "kiwi"};
        for (int w = 0; w < 4; w++) {
            weir_batch *b = weir_batch_create(s, 1);
            weir_batch_append_row(b);
            weir_batch_set_str(b, C_STR, 0, words[w], strlen(words[w]));
            cr_assert_eq(a.cls->add(&a, w < 2 ? acc : acc2, b, 0), 0);
            memset(b->heap, 'X', b->heap_cap);
            weir_batch_destroy(b);
        }
        cr_assert_eq(a.cls->merge(&a, acc, acc2), 0);
        acc_free(&a, acc2);
        res r = result_of(&a, acc);
        const char *want = f == 8 ? NULL
                           : (f == 0 || f == 4)
                               ? "a-rather-long-string-value-beyond-sixteen"
                           : (f == 1 || f == 5) ? "mango"
                           : (f == 2 || f == 6) ? "mango"
                                                : "kiwi";
        if (want) {
            cr_assert_eq(r.len, strlen(want), "%s", fns[f]);
            cr_assert_eq(memcmp(r.s, want, r.len), 0, "%s", fns[f]);
        } else {
            cr_assert_eq(r.i, 3);
        }
        acc_free(&a, acc);
    }
    weir_schema_destroy(s);
}

Test(agg_minmax, short_strings_kept_in_place_survive_moves)
{
    /* A string of up to 8 bytes lies in the accumulator itself, a longer
     * one in its own allocation: values crossing between the two (either
     * way, the empty string included) stay right while the accumulator is
     * moved by memcpy after every row (as a group's held accumulators are
     * by realloc), its old place scribbled over, and through serialize and
     * deserialize. */
    weir_schema *s = all_types();
    const char *fns[] = {"MIN", "MAX", "LAST_VALUE", "MIN_RETRACT", "LAST_VALUE_RETRACT", "SINGLE_VALUE", "LAG"};
    const char *words[] = {"23:59", "", "12345678", "123456789", "ab", "a-long-string-of-thirty-bytes!", "zz",
                           "0"};
    const size_t n_words = sizeof words / sizeof words[0];
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        bool single = f == 5, lag = f == 6;
        weir_agg a;
        bind_ok(fns[f], s, C_STR, lag ? 1 : 0, &a);
        size_t size = weir_agg_acc_size(&a);
        void *acc = acc_new(&a);
        const char *min = NULL, *max = NULL;
        for (size_t w = 0; w < (single ? 1 : n_words); w++) {
            weir_batch *b = weir_batch_create(s, 1);
            weir_batch_append_row(b);
            weir_batch_set_str(b, C_STR, 0, words[w], strlen(words[w]));
            cr_assert_eq(a.cls->add(&a, acc, b, 0), 0, "%s", fns[f]);
            if (b->heap) /* none for the empty string */
                memset(b->heap, 'X', b->heap_cap);
            weir_batch_destroy(b);
            if (!min || strcmp(words[w], min) < 0)
                min = words[w];
            if (!max || strcmp(words[w], max) > 0)
                max = words[w];
            void *moved = weir_malloc(size);
            cr_assert_not_null(moved);
            memcpy(moved, acc, size);
            memset(acc, 'X', size);
            weir_free(acc);
            acc = moved;
            const char *want = f == 0 || f == 3 ? min : f == 1 ? max : lag ? (w ? words[w - 1] : NULL) : words[w];
            res r = result_of(&a, acc);
            cr_assert_eq(r.rc, 0, "%s", fns[f]);
            cr_assert_eq(r.null, want == NULL, "%s after %zu", fns[f], w);
            if (want) {
                cr_assert_eq(r.len, strlen(want), "%s after %zu", fns[f], w);
                cr_assert_eq(memcmp(r.s, want, r.len), 0, "%s after %zu", fns[f], w);
            }
            weir_buf x;
            weir_buf_init(&x);
            cr_assert_eq(serialize(&a, acc, &x), 0);
            void *back = acc_new(&a);
            weir_cursor cur;
            weir_cursor_init(&cur, x.data, x.len);
            cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0, "%s", fns[f]);
            res rb = result_of(&a, back);
            cr_assert_eq(rb.null, r.null);
            cr_assert_eq(rb.len, r.len);
            cr_assert_eq(memcmp(rb.s, r.s, r.len), 0, "%s after %zu", fns[f], w);
            acc_free(&a, back);
            weir_buf_fini(&x);
        }
        acc_free(&a, acc);
    }
    weir_schema_destroy(s);
}

/* ---- COUNT_DISTINCT ---- */

Test(agg_distinct, canonical_values_every_type)
{
    tval d[] = {tv_d(0.0),  tv_d(-0.0), tv_d(NAN),
                tv_d(-NAN), tv_d(1),    tv_null()};
    cr_assert_eq(run("COUNT_DISTINCT", C_DOUBLE, 0, d, 6, NULL).i, 3,
                 "-0.0 = 0.0 and NaN = NaN");
    tval i[] = {tv_i(1), tv_i(2), tv_i(1), tv_null(), tv_i(0)};
    for (int c = C_INT; c <= C_TSLTZ; c++)
        if (c != C_DOUBLE && c != C_STR && c != C_BYTES)
            cr_assert_eq(run("COUNT_DISTINCT", c, 0, i, 5, NULL).i, 3);
    cr_assert_eq(run("COUNT_DISTINCT", C_BOOL, 0, i, 5, NULL).i, 2);
    tval s[] = {tv_str("a"), tv_str(""), tv_str("a"), tv_s("a\0", 2),
                tv_null()};
    cr_assert_eq(run("COUNT_DISTINCT", C_STR, 0, s, 5, NULL).i, 3);
    cr_assert_eq(run("COUNT_DISTINCT", C_BYTES, 0, s, 5, NULL).i, 3);
    res r = run("COUNT_DISTINCT", C_STR, 0, s, 0, NULL);
    cr_assert_not(r.null);
    cr_assert_eq(r.i, 0);
}

Test(agg_distinct, many_values_grow_and_shrink)
{
    weir_schema *s = all_types();
    weir_agg a;
    bind_ok("COUNT_DISTINCT", s, C_STR, 0, &a);
    weir_batch *b = weir_batch_create(s, 1024);
    for (int r = 0; r < 1024; r++) {
        char w[32];
        int n = snprintf(w, sizeof w, "value-%d", r % 700);
        weir_batch_append_row(b);
        weir_batch_set_str(b, C_STR, r, w, n);
    }
    void *acc = acc_new(&a);
    for (int round = 0; round < 20; round++)
        for (int r = 0; r < 1024; r++)
            cr_assert_eq(a.cls->add(&a, acc, b, r), 0);
    cr_assert_eq(result_of(&a, acc).i, 700);
    /* Retract everything but values 0..49 (their other copies stay). */
    for (int round = 0; round < 20; round++)
        for (int r = 0; r < 1024; r++)
            if (r % 700 >= 50 || round > 0)
                cr_assert_eq(a.cls->retract(&a, acc, b, r), 0);
    cr_assert_eq(result_of(&a, acc).i, 50);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- retraction ---- */

static const char *retractable[] = {"COUNT",
                                    "SUM",
                                    "SUM0",
                                    "AVG",
                                    "VAR_POP",
                                    "STDDEV_SAMP",
                                    "COUNT_DISTINCT",
                                    "MIN_RETRACT",
                                    "MAX_RETRACT",
                                    "FIRST_VALUE_RETRACT",
                                    "LAST_VALUE_RETRACT",
                                    "APPROX_PERCENTILE"};

static bool takes(const char *fn, int col)
{
    if (!strcmp(fn, "SUM_DISTINCT") || !strcmp(fn, "SUM0_DISTINCT") ||
        !strcmp(fn, "AVG_DISTINCT") || !strcmp(fn, "VAR_POP_DISTINCT") ||
        !strcmp(fn, "STDDEV_SAMP_DISTINCT"))
        return col == C_INT || col == C_BIGINT || col == C_DOUBLE ||
               col == C_DEC;
    bool numeric =
        col == C_INT || col == C_BIGINT || col == C_DOUBLE || col == C_DEC;
    if (!strcmp(fn, "SUM") || !strcmp(fn, "SUM0") || !strcmp(fn, "AVG") ||
        !strncmp(fn, "VAR", 3) || !strncmp(fn, "STDDEV", 6) ||
        !strcmp(fn, "APPROX_PERCENTILE"))
        return numeric;
    return true;
}

Test(agg_retract, insert_then_delete_is_the_empty_state)
{
    weir_schema *s = all_types();
    weir_buf fresh, after;
    weir_buf_init(&fresh);
    weir_buf_init(&after);
    tval vals[N_COLS] = {
        tv_i(1),     tv_i(42),        tv_i(-9),           tv_d(2.5),
        tv_i(12345), tv_str("hello"), tv_str("\x01\xff"), tv_i(1700000000000LL),
        tv_i(-1)};
    for (size_t f = 0; f < sizeof retractable / sizeof retractable[0]; f++) {
        for (int c = -1; c < N_COLS; c++) {
            if (c == -1 && strcmp(retractable[f], "COUNT"))
                continue;
            if (c >= 0 && !takes(retractable[f], c))
                continue;
            weir_agg a;
            bind_ok(retractable[f], s, c, 0.5, &a);
            cr_assert(weir_agg_can_retract(&a));
            weir_batch *b = weir_batch_create(s, 2);
            weir_batch_append_row(b);
            weir_batch_append_row(b);
            int col = c >= 0 ? c : 0;
            put_tval(b, col, 0, &vals[col]);
            tval nv = tv_null();
            put_tval(b, col, 1, &nv);
            void *acc = acc_new(&a);
            cr_assert_eq(serialize(&a, acc, &fresh), 0);
            for (uint32_t r = 0; r < 2; r++) {
                cr_assert(weir_agg_is_empty(&a, acc));
                cr_assert_eq(a.cls->add(&a, acc, b, r), 0);
                cr_assert_not(weir_agg_is_empty(&a, acc), "%s col %d",
                              retractable[f], c);
                cr_assert_eq(a.cls->retract(&a, acc, b, r), 0);
                cr_assert(weir_agg_is_empty(&a, acc), "%s col %d row %u",
                          retractable[f], c, r);
                res out = result_of(&a, acc);
                if (!strcmp(retractable[f], "COUNT") ||
                    !strcmp(retractable[f], "COUNT_DISTINCT") ||
                    !strcmp(retractable[f], "SUM0")) {
                    cr_assert_not(out.null);
                    cr_assert_eq(out.i, 0);
                    cr_assert_eq(out.d, 0);
                } else {
                    cr_assert(out.null, "%s col %d: NULL after full retraction",
                              retractable[f], c);
                }
                cr_assert_eq(serialize(&a, acc, &after), 0);
                cr_assert_eq(after.len, fresh.len, "%s col %d", retractable[f],
                             c);
                cr_assert_eq(memcmp(after.data, fresh.data, fresh.len), 0,
                             "%s col %d: same bytes as a fresh one",
                             retractable[f], c);
            }
            /* Nothing to retract: refused, nothing changes. */
            cr_assert_eq(a.cls->retract(&a, acc, b, 0), WEIR_ESTATE,
                         "%s col %d", retractable[f], c);
            if (c >= 0)
                cr_assert_eq(a.cls->retract(&a, acc, b, 1), WEIR_ESTATE);
            cr_assert(weir_agg_is_empty(&a, acc));
            acc_free(&a, acc);
            weir_batch_destroy(b);
        }
    }
    weir_buf_fini(&fresh);
    weir_buf_fini(&after);
    weir_schema_destroy(s);
}

Test(agg_retract, absent_value_is_refused_and_changes_nothing)
{
    const char *fns[] = {"COUNT_DISTINCT",     "MIN_RETRACT",
                         "MAX_RETRACT",        "FIRST_VALUE_RETRACT",
                         "LAST_VALUE_RETRACT", "APPROX_PERCENTILE"};
    weir_schema *s = all_types();
    tval v[] = {tv_i(10), tv_i(20), tv_null()};
    weir_batch *b = col_batch(s, C_BIGINT, v, 3);
    weir_buf before, after;
    weir_buf_init(&before);
    weir_buf_init(&after);
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        weir_agg a;
        bind_ok(fns[f], s, C_BIGINT, 0.5, &a);
        void *acc = acc_new(&a);
        cr_assert_eq(a.cls->add(&a, acc, b, 0), 0);
        serialize(&a, acc, &before);
        cr_assert_eq(a.cls->retract(&a, acc, b, 1), WEIR_ESTATE, "%s", fns[f]);
        cr_assert_eq(a.cls->retract(&a, acc, b, 2), WEIR_ESTATE,
                     "%s: no NULL row held", fns[f]);
        serialize(&a, acc, &after);
        cr_assert_eq(after.len, before.len);
        cr_assert_eq(memcmp(after.data, before.data, before.len), 0, "%s",
                     fns[f]);
        acc_free(&a, acc);
    }
    weir_agg a;
    bind_ok("MIN", s, C_BIGINT, 0, &a);
    void *acc = acc_new(&a);
    cr_assert_eq(weir_agg_retract(&a, acc, b, 0), WEIR_EUNSUPPORTED);
    acc_free(&a, acc);
    weir_buf_fini(&before);
    weir_buf_fini(&after);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_retract, first_last_retract_remove_the_oldest_copy)
{
    weir_schema *s = all_types();
    tval v[] = {tv_i(1), tv_i(2), tv_i(1), tv_i(3)};
    weir_batch *b = col_batch(s, C_BIGINT, v, 4);
    weir_agg f, l;
    bind_ok("FIRST_VALUE_RETRACT", s, C_BIGINT, 0, &f);
    bind_ok("LAST_VALUE_RETRACT", s, C_BIGINT, 0, &l);
    void *fa = acc_new(&f), *la = acc_new(&l);
    for (uint32_t r = 0; r < 4; r++) {
        f.cls->add(&f, fa, b, r);
        l.cls->add(&l, la, b, r);
    }
    /* Live: 1 2 1 3. Retract 1: the oldest 1 goes -> 2 1 3. */
    cr_assert_eq(f.cls->retract(&f, fa, b, 0), 0);
    cr_assert_eq(result_of(&f, fa).i, 2);
    cr_assert_eq(l.cls->retract(&l, la, b, 3), 0); /* 1 2 1 */
    cr_assert_eq(result_of(&l, la).i, 1);
    cr_assert_eq(l.cls->retract(&l, la, b, 0), 0); /* 2 1: the newer 1 stays */
    cr_assert_eq(result_of(&l, la).i, 1);
    cr_assert_eq(f.cls->retract(&f, fa, b, 1), 0); /* 1 3 */
    cr_assert_eq(result_of(&f, fa).i, 1);
    acc_free(&f, fa);
    acc_free(&l, la);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_retract, changelog_batch_applies_kinds)
{
    weir_schema *s = all_types();
    tval v[] = {tv_i(5), tv_i(8), tv_i(5), tv_i(9)};
    weir_batch *b = col_batch(s, C_BIGINT, v, 4);
    b->kind[0] = WEIR_ROW_INSERT;
    b->kind[1] = WEIR_ROW_UPDATE_AFTER;
    b->kind[2] = WEIR_ROW_UPDATE_BEFORE;
    b->kind[3] = WEIR_ROW_INSERT;
    weir_agg a;
    bind_ok("MAX_RETRACT", s, C_BIGINT, 0, &a);
    void *acc = acc_new(&a);
    cr_assert_eq(weir_agg_apply_batch(&a, acc, b), 0);
    cr_assert_eq(result_of(&a, acc).i, 9);
    b->kind[3] = WEIR_ROW_DELETE;
    cr_assert_eq(weir_agg_retract(&a, acc, b, 3), 0);
    cr_assert_eq(weir_agg_retract(&a, acc, b, 3), WEIR_ESTATE,
                 "9 was held once");
    cr_assert_eq(result_of(&a, acc).i, 8);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- the fast path ---- */

Test(agg_fast, add_rows_equals_add)
{
    weir_schema *s = all_types();
    const char *fns[] = {"COUNT", "COUNT", "SUM", "SUM", "SUM",
                         "AVG",   "MIN",   "MAX", "MIN", "SUM0"};
    int cols[] = {-1,    C_BIGINT, C_BIGINT, C_INT, C_DOUBLE,
                  C_INT, C_BIGINT, C_BIGINT, C_STR, C_BIGINT};
    enum { N = 300, K = 7 };
    rng_state = 99;
    weir_batch *b = weir_batch_create(s, N);
    for (int r = 0; r < N; r++) {
        weir_batch_append_row(b);
        for (int c = C_INT; c <= C_STR; c++) {
            tval v = rnd() % 5 == 0 ? tv_null()
                                    : tv_i((int64_t)(rnd() % 1000) - 500);
            if (c == C_DOUBLE && !v.null)
                v.d = (double)v.i / 4;
            if (c == C_STR && !v.null)
                v = tv_s((char[]){(char)('a' + rnd() % 26),
                                  (char)('a' + rnd() % 26)},
                         2);
            if (c == C_BIGINT || c == C_INT || c == C_DOUBLE || c == C_STR)
                put_tval(b, c, r, &v);
        }
    }
    weir_buf x, y;
    weir_buf_init(&x);
    weir_buf_init(&y);
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        for (int pass = 0; pass < 2; pass++) {
            if (cols[f] >= 0)
                b->cols[cols[f]].all_valid =
                    pass == 1; /* pass 1: the no-NULL path */
            weir_agg a;
            bind_ok(fns[f], s, cols[f], 0, &a);
            void *one[K], *many[K];
            for (int k = 0; k < K; k++) {
                one[k] = acc_new(&a);
                many[k] = acc_new(&a);
            }
            void *accs[N];
            uint32_t rows[N];
            for (int r = 0; r < N; r++) {
                int k = (int)(rnd() % K);
                rows[r] = (uint32_t)r;
                accs[r] = many[k];
                cr_assert_eq(a.cls->add(&a, one[k], b, (uint32_t)r), 0);
            }
            cr_assert_eq(weir_agg_add_rows(&a, accs, b, rows, N), 0);
            for (int k = 0; k < K; k++) {
                serialize(&a, one[k], &x);
                serialize(&a, many[k], &y);
                cr_assert(x.len == y.len && !memcmp(x.data, y.data, x.len),
                          "%s col %d", fns[f], cols[f]);
                acc_free(&a, one[k]);
                acc_free(&a, many[k]);
            }
        }
    }
    weir_buf_fini(&x);
    weir_buf_fini(&y);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- allocation failures leave accumulators unchanged ---- */

/* Row value i for the allocation test: strings whose first byte falls
 * (each a new MIN) while they grow; numbers over many magnitudes. */
static void alloc_value(weir_batch *b, int col, int i)
{
    weir_batch_reset(b);
    weir_batch_append_row(b);
    if (i < 0) {
        /* The smallest and last value, longer than any before. */
        static char w[1000];
        memset(w, 'q', sizeof w);
        w[0] = 1;
        if (col == C_BIGINT)
            WEIR_COL_I64(b, col)[0] = INT64_MAX;
        else
            weir_batch_set_str(b, col, 0, w, sizeof w);
        return;
    }
    if (col == C_BIGINT) {
        WEIR_COL_I64(b, col)[0] = (int64_t)pow(1.2, i % 200);
        return;
    }
    char w[400];
    w[0] = (char)(220 - i % 200);
    memset(w + 1, 'a' + i % 26, (size_t)i % 390);
    weir_batch_set_str(b, col, 0, w, 1 + (size_t)i % 390);
}

static void assert_same(const weir_agg *a, const void *acc,
                        const weir_buf *before, const char *what)
{
    weir_buf after;
    weir_buf_init(&after);
    cr_assert_eq(a->cls->serialize(a, acc, &after), 0);
    cr_assert(after.len == before->len &&
                  !memcmp(after.data, before->data, after.len),
              "%s changed the state", what);
    weir_buf_fini(&after);
}

Test(agg_alloc, failed_add_and_merge_change_nothing)
{
    weir_schema *s = all_types();
    const char *fns[] = {"MIN",
                         "LAST_VALUE",
                         "COUNT_DISTINCT",
                         "MIN_RETRACT",
                         "FIRST_VALUE_RETRACT",
                         "APPROX_COUNT_DISTINCT",
                         "APPROX_PERCENTILE"};
    weir_buf before;
    weir_buf_init(&before);
    weir_batch *b = weir_batch_create(s, 1);
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        int col = strcmp(fns[f], "APPROX_PERCENTILE") ? C_STR : C_BIGINT;
        weir_agg a;
        bind_ok(fns[f], s, col, col == C_BIGINT ? 0.5 : 0, &a);
        void *acc = acc_new(&a), *other = acc_new(&a);
        int add_failures = 0, merge_failures = 0;
        for (int i = 0; i < 150; i++) {
            alloc_value(b, col, i);
            weir_buf_clear(&before);
            cr_assert_eq(a.cls->serialize(&a, acc, &before), 0);
            weir_alloc_fail_after(1);
            int rc = a.cls->add(&a, acc, b, 0);
            weir_alloc_fail_after(0);
            if (rc) {
                cr_assert_eq(rc, WEIR_ENOMEM, "%s", fns[f]);
                assert_same(&a, acc, &before, fns[f]);
                add_failures++;
                cr_assert_eq(a.cls->add(&a, acc, b, 0), 0);
            }
        }
        for (int i = 150; i <= 400; i++) {
            alloc_value(b, col, i == 400 ? -1 : i);
            cr_assert_eq(a.cls->add(&a, other, b, 0), 0);
        }
        weir_buf_clear(&before);
        cr_assert_eq(a.cls->serialize(&a, acc, &before), 0);
        for (uint64_t k = 1; k < 50; k++) {
            weir_alloc_fail_after(k);
            int rc = a.cls->merge(&a, acc, other);
            weir_alloc_fail_after(0);
            if (rc == 0)
                break;
            cr_assert_eq(rc, WEIR_ENOMEM, "%s", fns[f]);
            assert_same(&a, acc, &before, fns[f]);
            merge_failures++;
        }
        cr_assert_gt(add_failures, 0, "%s allocates as it grows", fns[f]);
        cr_assert_gt(merge_failures, 0, "%s allocates to merge", fns[f]);
        acc_free(&a, acc);
        acc_free(&a, other);
    }
    weir_batch_destroy(b);
    weir_buf_fini(&before);
    weir_schema_destroy(s);
}

/* ---- user-defined aggregates ---- */

/* A weighted sum of squares of a BIGINT column: the UDAF example. */
typedef struct sumsq {
    int64_t sum;
    int64_t n;
} sumsq;

static void sq_init(void *ud, void *acc)
{
    (void)ud;
    memset(acc, 0, sizeof(sumsq));
}

static int sq_add(void *ud, void *acc, const weir_batch *b, int32_t col,
                  uint32_t row)
{
    sumsq *s = acc;
    if (weir_batch_is_null(b, col, row))
        return 0;
    int64_t v = WEIR_COL_I64(b, col)[row];
    s->sum += *(const int64_t *)ud * v * v;
    s->n++;
    return 0;
}

static int sq_retract(void *ud, void *acc, const weir_batch *b, int32_t col,
                      uint32_t row)
{
    sumsq *s = acc;
    if (weir_batch_is_null(b, col, row))
        return 0;
    int64_t v = WEIR_COL_I64(b, col)[row];
    s->sum -= *(const int64_t *)ud * v * v;
    s->n--;
    return 0;
}

static int sq_merge(void *ud, void *acc, const void *other)
{
    (void)ud;
    sumsq *s = acc;
    const sumsq *o = other;
    s->sum += o->sum;
    s->n += o->n;
    return 0;
}

static int sq_result(void *ud, const void *acc, weir_batch *out, uint32_t col,
                     uint32_t row)
{
    (void)ud;
    const sumsq *s = acc;
    if (s->n == 0) {
        weir_batch_set_null(out, col, row);
        return 0;
    }
    WEIR_COL_I64(out, col)[row] = s->sum;
    weir_batch_set_valid(out, col, row);
    return 0;
}

Test(agg_udaf, sum_of_squares_example)
{
    int64_t weight = 2;
    weir_udaf u = {
        .name = "WEIGHTED_SUMSQ",
        .result_type = weir_type_make(WEIR_TYPE_BIGINT, true),
        .acc_size = sizeof(sumsq),
        .init = sq_init,
        .add = sq_add,
        .retract = sq_retract,
        .merge = sq_merge,
        .result = sq_result,
        .ud = &weight,
    };
    weir_schema *s = all_types();
    weir_agg a;
    cr_assert_eq(weir_agg_bind_udaf(&u, s, C_BIGINT, &a), 0);
    cr_assert(weir_agg_can_retract(&a));
    tval v[] = {tv_i(3), tv_null(), tv_i(4)};
    weir_batch *b = col_batch(s, C_BIGINT, v, 3);
    void *x = acc_new(&a), *y = acc_new(&a);
    cr_assert_eq(a.cls->add(&a, x, b, 0), 0);
    cr_assert_eq(a.cls->add(&a, y, b, 1), 0);
    cr_assert_eq(a.cls->add(&a, y, b, 2), 0);
    cr_assert_eq(a.cls->merge(&a, x, y), 0);
    cr_assert_eq(result_of(&a, x).i, 2 * (9 + 16));

    weir_buf buf;
    weir_buf_init(&buf);
    cr_assert_eq(serialize(&a, x, &buf), 0);
    void *z = acc_new(&a);
    weir_cursor cur;
    weir_cursor_init(&cur, buf.data, buf.len);
    cr_assert_eq(a.cls->deserialize(&a, z, &cur), 0);
    cr_assert_eq(result_of(&a, z).i, 50);
    for (size_t cut = 0; cut < buf.len; cut++) {
        weir_cursor_init(&cur, buf.data, cut);
        cr_assert_eq(a.cls->deserialize(&a, z, &cur), WEIR_ECORRUPT);
    }
    for (uint32_t r = 0; r < 3; r++)
        cr_assert_eq(a.cls->retract(&a, x, b, r), 0);
    cr_assert(weir_agg_is_empty(&a, x));
    cr_assert(result_of(&a, x).null);
    cr_assert_eq(a.cls->retract(&a, x, b, 0), WEIR_ESTATE);

    u.retract = NULL;
    weir_agg nr;
    cr_assert_eq(weir_agg_bind_udaf(&u, s, C_BIGINT, &nr), 0);
    cr_assert_not(weir_agg_can_retract(&nr));
    cr_assert_eq(weir_agg_retract(&nr, y, b, 0), WEIR_EUNSUPPORTED);
    u.merge = NULL;
    cr_assert_eq(weir_agg_bind_udaf(&u, s, C_BIGINT, &nr), WEIR_EINVAL);

    weir_buf_fini(&buf);
    acc_free(&a, x);
    acc_free(&a, y);
    acc_free(&a, z);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- HyperLogLog ---- */

static int64_t hll_count(int p, uint64_t start, uint64_t n, uint64_t stride)
{
    weir_schema *s = all_types();
    weir_agg a;
    bind_ok("APPROX_COUNT_DISTINCT", s, C_BIGINT, p, &a);
    enum { CAP = 4096 };
    weir_batch *b = weir_batch_create(s, CAP);
    for (int r = 0; r < CAP; r++)
        weir_batch_append_row(b);
    void *acc = acc_new(&a);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t r = (uint32_t)(i % CAP);
        WEIR_COL_I64(b, C_BIGINT)[r] = (int64_t)(start + i * stride);
        cr_assert_eq(a.cls->add(&a, acc, b, r), 0);
    }
    int64_t est = result_of(&a, acc).i;
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
    return est;
}

Test(agg_hll, small_sets_are_exact)
{
    cr_assert_eq(hll_count(14, 0, 0, 1), 0);
    cr_assert_eq(hll_count(14, 7, 1, 1), 1);
    cr_assert_eq(hll_count(14, 100, 1000, 3), 1000);
    tval v[] = {tv_str("x"), tv_str("x"), tv_null(), tv_str("y")};
    cr_assert_eq(run("APPROX_COUNT_DISTINCT", C_STR, 0, v, 4, NULL).i, 2);
}

Test(agg_hll, error_within_three_standard_errors)
{
    /* Default precision 14: standard error 1.04 / 128 = 0.8125%. */
    uint64_t seed = seed_from_env("hll error", 20240607);
    rng_state = seed;
    const double se = 1.04 / sqrt(16384.0);
    uint64_t ns[] = {100000, 300000, 1000000};
    for (size_t k = 0; k < 3; k++) {
        uint64_t start = rnd() >> 8;
        int64_t est = hll_count(14, start, ns[k], 1 + rnd() % 1000);
        double err = fabs((double)est - (double)ns[k]) / (double)ns[k];
        fprintf(stderr,
                "hll p=14 n=%" PRIu64 " estimate %" PRId64
                " error %.4f%% (3 se = %.4f%%)\n",
                ns[k], est, 100 * err, 300 * se);
        cr_assert_leq(err, 3 * se, "n=%" PRIu64 " estimate %" PRId64, ns[k],
                      est);
    }
}

Test(agg_hll, standard_error_is_calibrated)
{
    /* Over 40 independent sketches with p = 10 (se 3.25%) the RMS error
     * must be close to the documented standard error, not just below it. */
    uint64_t seed = seed_from_env("hll calibration", 77);
    rng_state = seed;
    const double se = 1.04 / 32;
    double sq = 0;
    const int trials = 40;
    for (int t = 0; t < trials; t++) {
        uint64_t n = 20000;
        int64_t est = hll_count(10, rnd() >> 4, n, 1);
        double e = ((double)est - (double)n) / (double)n;
        sq += e * e;
    }
    double rms = sqrt(sq / trials);
    fprintf(stderr, "hll p=10 rms error %.4f (se %.4f)\n", rms, se);
    cr_assert(rms > 0.5 * se && rms < 1.6 * se, "rms %.4f vs se %.4f", rms, se);
}

Test(agg_hll, merge_equals_union_and_round_trips)
{
    weir_schema *s = all_types();
    weir_agg a;
    bind_ok("APPROX_COUNT_DISTINCT", s, C_BIGINT, 12, &a);
    enum { N = 4096 };
    weir_batch *b = weir_batch_create(s, N);
    for (int r = 0; r < N; r++) {
        weir_batch_append_row(b);
        WEIR_COL_I64(b, C_BIGINT)[r] = r % 3000;
    }
    void *all = acc_new(&a), *x = acc_new(&a), *y = acc_new(&a),
         *z = acc_new(&a);
    for (int r = 0; r < N; r++) {
        a.cls->add(&a, all, b, r);
        a.cls->add(&a, r < 200 ? x : r < 250 ? y : z, b, r);
    }
    cr_assert_eq(a.cls->merge(&a, y, z), 0); /* small + dense */
    cr_assert_eq(a.cls->merge(&a, x, y), 0);
    weir_buf p, q;
    weir_buf_init(&p);
    weir_buf_init(&q);
    serialize(&a, all, &p);
    serialize(&a, x, &q);
    cr_assert(p.len == q.len && !memcmp(p.data, q.data, p.len),
              "registers equal the union's");
    void *r2 = acc_new(&a);
    weir_cursor cur;
    weir_cursor_init(&cur, p.data, p.len);
    cr_assert_eq(a.cls->deserialize(&a, r2, &cur), 0);
    cr_assert_eq(result_of(&a, r2).i, result_of(&a, all).i);
    /* A register above 64 - p + 1 cannot happen. */
    p.data[p.len - 1] = 64;
    weir_cursor_init(&cur, p.data, p.len);
    acc_free(&a, r2);
    r2 = acc_new(&a);
    cr_assert_eq(a.cls->deserialize(&a, r2, &cur), WEIR_ECORRUPT);
    weir_buf_fini(&p);
    weir_buf_fini(&q);
    acc_free(&a, all);
    acc_free(&a, x);
    acc_free(&a, y);
    acc_free(&a, z);
    acc_free(&a, r2);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- percentile sketch ---- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Checks every percentile in qs against the sorted data, within alpha. */
static void check_percentiles(const double *data, size_t n, const char *what)
{
    weir_schema *s = all_types();
    double *sorted = malloc(n * sizeof *sorted);
    memcpy(sorted, data, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    weir_batch *b = weir_batch_create(s, 1);
    weir_batch_append_row(b);
    const double qs[] = {0,    0.001, 0.01, 0.1,  0.25,  0.5,
                         0.75, 0.9,   0.95, 0.99, 0.999, 1};
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        weir_agg a;
        bind_ok("APPROX_PERCENTILE", s, C_DOUBLE, qs[k], &a);
        void *acc = acc_new(&a);
        for (size_t i = 0; i < n; i++) {
            WEIR_COL_F64(b, C_DOUBLE)[0] = data[i];
            cr_assert_eq(a.cls->add(&a, acc, b, 0), 0);
        }
        double got = result_of(&a, acc).d;
        double want = sorted[(size_t)floor(qs[k] * (double)(n - 1))];
        double tol = 0.01 * fabs(want) * (1 + 1e-9);
        cr_assert_leq(fabs(got - want), tol, "%s q=%g: got %.17g want %.17g",
                      what, qs[k], got, want);
        acc_free(&a, acc);
    }
    free(sorted);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_percentile, relative_error_within_alpha)
{
    uint64_t seed = seed_from_env("percentile accuracy", 4242);
    rng_state = seed;
    enum { N = 20000 };
    double *d = malloc(N * sizeof *d);
    for (int i = 0; i < N; i++)
        d[i] = 1 + rnd_unit() * 999; /* uniform */
    check_percentiles(d, N, "uniform");
    for (int i = 0; i < N; i++)
        d[i] = exp(3 * (rnd_unit() + rnd_unit() + rnd_unit() -
                        1.5)); /* heavy right tail */
    check_percentiles(d, N, "lognormal-ish");
    for (int i = 0; i < N; i++)
        d[i] = (rnd() % 3 == 0 ? 0 : 1) * (rnd_unit() - 0.6) *
               1e6; /* negatives, zeros */
    check_percentiles(d, N, "signed with zeros");
    for (int i = 0; i < N; i++)
        d[i] = (double)(int64_t)(rnd() % 100); /* many ties */
    check_percentiles(d, N, "ties");
    free(d);
    double one = 42;
    check_percentiles(&one, 1, "single");
}

Test(agg_percentile, integers_decimals_infinities_and_nulls)
{
    tval i[] = {tv_i(10), tv_i(20), tv_null(), tv_i(30), tv_i(40), tv_i(50)};
    res r = run("APPROX_PERCENTILE", C_INT, 0.5, i, 6, NULL);
    cr_assert_leq(fabs(r.d - 30), 0.3);
    r = run("APPROX_PERCENTILE", C_DEC, 1, i, 6, NULL);
    cr_assert_leq(fabs(r.d - 0.5), 0.005);
    tval d[] = {tv_d(INFINITY), tv_d(-INFINITY), tv_d(NAN), tv_d(1)};
    cr_assert_eq(run("APPROX_PERCENTILE", C_DOUBLE, 1, d, 4, NULL).d, INFINITY);
    cr_assert_eq(run("APPROX_PERCENTILE", C_DOUBLE, 0, d, 4, NULL).d,
                 -INFINITY);
    cr_assert_leq(
        fabs(run("APPROX_PERCENTILE", C_DOUBLE, 0.5, d, 4, NULL).d - 1),
        0.01 * (1 + 1e-9), "NaN is not counted");
    tval n[] = {tv_null(), tv_d(NAN)};
    cr_assert(run("APPROX_PERCENTILE", C_DOUBLE, 0.5, n, 2, NULL).null);
}

Test(agg_percentile, wide_range_collapses_lowest_and_keeps_the_top)
{
    /* Values over 30 orders of magnitude: the store keeps 2048 buckets, so
     * the smallest values collapse, but the upper percentiles stay within
     * alpha, and merging gives the same sketch as adding everything. */
    weir_schema *s = all_types();
    weir_agg a;
    bind_ok("APPROX_PERCENTILE", s, C_DOUBLE, 0.9, &a);
    weir_batch *b = weir_batch_create(s, 1);
    weir_batch_append_row(b);
    void *all = acc_new(&a), *lo = acc_new(&a), *hi = acc_new(&a);
    enum { N = 3001 };
    double vals[N];
    for (int i = 0; i < N; i++) {
        vals[i] = pow(10, -15 + 30.0 * i / (N - 1));
        WEIR_COL_F64(b, C_DOUBLE)[0] = vals[i];
        a.cls->add(&a, all, b, 0);
        a.cls->add(&a, i < N / 2 ? lo : hi, b, 0);
    }
    double want = vals[(int)floor(0.9 * (N - 1))];
    cr_assert_leq(fabs(result_of(&a, all).d - want), 0.01 * want);
    cr_assert_eq(a.cls->merge(&a, lo, hi), 0);
    weir_buf p, q;
    weir_buf_init(&p);
    weir_buf_init(&q);
    serialize(&a, all, &p);
    serialize(&a, lo, &q);
    cr_assert(p.len == q.len && !memcmp(p.data, q.data, p.len));
    /* Retract a collapsed value and a kept one: exact counters. */
    WEIR_COL_F64(b, C_DOUBLE)[0] = vals[0];
    cr_assert_eq(a.cls->retract(&a, all, b, 0), 0);
    WEIR_COL_F64(b, C_DOUBLE)[0] = vals[N - 1];
    cr_assert_eq(a.cls->retract(&a, all, b, 0), 0);
    weir_buf_fini(&p);
    weir_buf_fini(&q);
    acc_free(&a, all);
    acc_free(&a, lo);
    acc_free(&a, hi);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- randomised properties over every function and type ---- */

static const char *all_fns[] = {"COUNT",
                                "SUM",
                                "SUM0",
                                "AVG",
                                "MIN",
                                "MAX",
                                "FIRST_VALUE",
                                "LAST_VALUE",
                                "MIN_RETRACT",
                                "MAX_RETRACT",
                                "FIRST_VALUE_RETRACT",
                                "LAST_VALUE_RETRACT",
                                "COUNT_DISTINCT",
                                "APPROX_COUNT_DISTINCT",
                                "APPROX_PERCENTILE",
                                "VAR_POP",
                                "VAR_SAMP",
                                "STDDEV_POP",
                                "STDDEV_SAMP",
                                "SUM_DISTINCT",
                                "SUM0_DISTINCT",
                                "AVG_DISTINCT",
                                "VAR_POP_DISTINCT",
                                "STDDEV_SAMP_DISTINCT",
                                "MAX_RETRACT_DISTINCT"};

static tval rand_val(int col)
{
    if (rnd() % 7 == 0)
        return tv_null();
    switch (col) {
    case C_BOOL:
        return tv_i((int64_t)(rnd() % 2));
    case C_DOUBLE:
        /* Multiples of 1/8: sums are exact in any order. */
        return tv_d((double)((int64_t)(rnd() % 2000) - 1000) / 8);
    case C_STR:
    case C_BYTES: {
        tval v = {.len = (uint32_t)(rnd() % 5)};
        for (uint32_t i = 0; i < v.len; i++)
            v.s[i] = col == C_STR ? (char)('a' + rnd() % 4)
                                  : (char)(rnd() % 3 == 0 ? 0xff : rnd() % 3);
        return v;
    }
    case C_TS:
    case C_TSLTZ:
        return tv_i(1700000000000LL + (int64_t)(rnd() % 100000) - 50000);
    default:
        return tv_i((int64_t)(rnd() % 200) - 100);
    }
}

static int tcmp(int col, const tval *x, const tval *y)
{
    if (col == C_DOUBLE)
        return (x->d > y->d) - (x->d < y->d);
    if (col == C_STR || col == C_BYTES) {
        uint32_t n = x->len < y->len ? x->len : y->len;
        int c = memcmp(x->s, y->s, n);
        return c ? (c > 0) - (c < 0) : (x->len > y->len) - (x->len < y->len);
    }
    return (x->i > y->i) - (x->i < y->i);
}

static res reference_plain(const char *fn, int col, const tval *vals, int n);

/* What the reference says fn gives over vals (NULL result: null); F_DISTINCT
 * is F over the first occurrence of each non-NULL value. */
static res reference(const char *fn, int col, const tval *vals, int n)
{
    size_t fl = strlen(fn);
    if (fl <= 9 || strcmp(fn + fl - 9, "_DISTINCT") || !strcmp(fn, "COUNT_DISTINCT") ||
        !strcmp(fn, "APPROX_COUNT_DISTINCT"))
        return reference_plain(fn, col, vals, n);
    char inner[40];
    snprintf(inner, sizeof inner, "%.*s", (int)(fl - 9), fn);
    tval *d = malloc(((size_t)n + 1) * sizeof *d);
    int nd = 0;
    for (int i = 0; i < n; i++) {
        bool seen = vals[i].null;
        for (int j = 0; j < nd && !seen; j++)
            seen = tcmp(col, &vals[i], &d[j]) == 0;
        if (!seen)
            d[nd++] = vals[i];
    }
    res r = reference_plain(inner, col, d, nd);
    free(d);
    return r;
}

static res reference_plain(const char *fn, int col, const tval *vals, int n)
{
    res r = {0};
    int cnt = 0, first = -1, last = -1, mn = -1, mx = -1, distinct = 0;
    long double sum = 0;
    int64_t isum = 0;
    for (int i = 0; i < n; i++) {
        if (col >= 0 && vals[i].null)
            continue;
        cnt++;
        if (col < 0)
            continue;
        if (first < 0)
            first = i;
        last = i;
        if (mn < 0 || tcmp(col, &vals[i], &vals[mn]) < 0)
            mn = i;
        if (mx < 0 || tcmp(col, &vals[i], &vals[mx]) > 0)
            mx = i;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = !vals[j].null && tcmp(col, &vals[i], &vals[j]) == 0;
        distinct += !seen;
        sum += col == C_DOUBLE ? vals[i].d : (long double)vals[i].i;
        isum += vals[i].i;
    }
    double scale = col == C_DEC ? 100.0 : 1.0;
    if (!strcmp(fn, "COUNT")) {
        r.i = cnt;
    } else if (!strcmp(fn, "COUNT_DISTINCT") ||
               !strcmp(fn, "APPROX_COUNT_DISTINCT")) {
        r.i = distinct; /* HLL is exact while small */
    } else if (!strcmp(fn, "SUM") || !strcmp(fn, "SUM0")) {
        r.null = cnt == 0 && fn[3] != '0';
        r.i = isum;
        r.d = (double)sum;
    } else if (!strcmp(fn, "AVG")) {
        r.null = cnt == 0;
        if (cnt && col == C_DEC)
            r.i = llround((double)isum * 1e4 / cnt);
        else if (cnt)
            r.i = isum / cnt;
        r.d = cnt ? (double)sum / (double)cnt : 0;
    } else if (!strncmp(fn, "VAR", 3) || !strncmp(fn, "STDDEV", 6)) {
        bool samp = strstr(fn, "SAMP") != NULL;
        r.null = cnt == 0 || (samp && cnt == 1);
        if (!r.null) {
            long double mean = sum / cnt, m2 = 0;
            for (int i = 0; i < n; i++)
                if (!vals[i].null) {
                    long double x =
                        col == C_DOUBLE ? vals[i].d : (long double)vals[i].i;
                    m2 += (x - mean) * (x - mean);
                }
            double v = (double)(m2 / (samp ? cnt - 1 : cnt)) / (scale * scale);
            r.d = fn[0] == 'S' ? sqrt(v) : v;
        }
    } else if (!strcmp(fn, "APPROX_PERCENTILE")) {
        r.null = cnt == 0; /* accuracy is tested elsewhere */
    } else {
        int pick = !strncmp(fn, "MIN", 3)     ? mn
                   : !strncmp(fn, "MAX", 3)   ? mx
                   : !strncmp(fn, "FIRST", 5) ? first
                                              : last;
        r.null = pick < 0;
        if (pick >= 0) {
            r.i = vals[pick].i;
            r.d = vals[pick].d;
            memcpy(r.s, vals[pick].s, vals[pick].len);
            r.len = vals[pick].len;
        }
    }
    return r;
}

static void assert_res(const char *fn, int col, const weir_agg *a, res got,
                       res want, const char *what)
{
    cr_assert_eq(got.rc, 0);
    cr_assert_eq(got.null, want.null, "%s col %d %s: null %d want %d", fn, col,
                 what, got.null, want.null);
    if (want.null || !strcmp(fn, "APPROX_PERCENTILE"))
        return;
    switch (a->result_type.id) {
    case WEIR_TYPE_DOUBLE:
        if (!strncmp(fn, "VAR", 3) || !strncmp(fn, "STDDEV", 6))
            cr_assert_leq(fabs(got.d - want.d), 1e-9 * (1 + fabs(want.d)),
                          "%s col %d %s: %.17g want %.17g", fn, col, what,
                          got.d, want.d);
        else
            cr_assert_eq(got.d, want.d, "%s col %d %s: %.17g want %.17g", fn,
                         col, what, got.d, want.d);
        break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
        cr_assert(got.len == want.len && !memcmp(got.s, want.s, got.len),
                  "%s col %d %s: string differs", fn, col, what);
        break;
    default:
        cr_assert_eq(got.i, want.i, "%s col %d %s: %" PRId64 " want %" PRId64,
                     fn, col, what, got.i, want.i);
    }
}

static bool bytes_eq(const weir_buf *x, const weir_buf *y)
{
    return x->len == y->len && !memcmp(x->data, y->data, x->len);
}

/* Folds rows [lo, hi) of b into a new accumulator. */
static void *fold(const weir_agg *a, const weir_batch *b, int lo, int hi)
{
    void *acc = acc_new(a);
    for (int r = lo; r < hi; r++)
        cr_assert_eq(a->cls->add(a, acc, b, (uint32_t)r), 0);
    return acc;
}

/* Merges the accumulators of [lo, hi) pieces as a random tree, keeping order.
 */
static void *merge_tree(const weir_agg *a, void **parts, int lo, int hi)
{
    if (hi - lo == 1)
        return parts[lo];
    int mid = lo + 1 + (int)(rnd() % (uint64_t)(hi - lo - 1));
    void *l = merge_tree(a, parts, lo, mid);
    void *r = merge_tree(a, parts, mid, hi);
    cr_assert_eq(a->cls->merge(a, l, r), 0);
    acc_free(a, r);
    return l;
}

Test(agg_property, merge_serialize_retract_against_reference)
{
    uint64_t seed = seed_from_env("agg property", 12345);
    rng_state = seed;
    weir_schema *s = all_types();
    enum { MAXN = 160 };
    weir_batch *b = weir_batch_create(s, MAXN);
    tval vals[MAXN];
    weir_buf x, y;
    weir_buf_init(&x);
    weir_buf_init(&y);
    for (int iter = 0; iter < 12; iter++) {
        int n = iter == 0 ? 0 : (int)(rnd() % MAXN) + 1;
        for (size_t f = 0; f < sizeof all_fns / sizeof all_fns[0]; f++) {
            const char *fn = all_fns[f];
            for (int col = -1; col < N_COLS; col++) {
                if ((col < 0 && strcmp(fn, "COUNT")) ||
                    (col >= 0 && !takes(fn, col)))
                    continue;
                int dcol = col < 0 ? C_BIGINT : col;
                weir_batch_reset(b);
                for (int r = 0; r < n; r++) {
                    weir_batch_append_row(b);
                    vals[r] = rand_val(dcol);
                    put_tval(b, dcol, (uint32_t)r, &vals[r]);
                }
                weir_agg a;
                bind_ok(fn, s, col, strcmp(fn, "APPROX_PERCENTILE") ? 0 : 0.5,
                        &a);
                res want = reference(fn, col, vals, n);

                /* One accumulator. */
                void *one = fold(&a, b, 0, n);
                assert_res(fn, col, &a, result_of(&a, one), want,
                           "one accumulator");
                cr_assert_eq(weir_agg_is_empty(&a, one), n == 0);

                /* Pieces merged in order. */
                int k = 1 + (int)(rnd() % 6);
                void *parts[8];
                int cut = 0;
                for (int p = 0; p < k; p++) {
                    int next =
                        p == k - 1
                            ? n
                            : cut + (int)(rnd() % (uint64_t)(n - cut + 1));
                    parts[p] = fold(&a, b, cut, next);
                    cut = next;
                }
                void *merged = merge_tree(&a, parts, 0, k);
                assert_res(fn, col, &a, result_of(&a, merged), want, "merged");
                void *copy = weir_malloc(weir_agg_acc_size(&a));
                cr_assert_eq(weir_agg_copy(&a, copy, merged), 0);
                assert_res(fn, col, &a, result_of(&a, copy), want, "copied");
                acc_free(&a, copy);
                bool exact = strncmp(fn, "VAR", 3) && strncmp(fn, "STDDEV", 6);
                cr_assert_eq(serialize(&a, one, &x), 0);
                cr_assert_eq(serialize(&a, merged, &y), 0);
                if (exact)
                    cr_assert(bytes_eq(&x, &y),
                              "%s col %d: merged state differs (seed %" PRIu64
                              ")",
                              fn, col, seed);

                /* Round trip; every truncation is refused. */
                void *back = acc_new(&a);
                weir_cursor cur;
                weir_cursor_init(&cur, x.data, x.len);
                cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0, "%s col %d",
                             fn, col);
                cr_assert_eq(weir_cursor_left(&cur), 0);
                assert_res(fn, col, &a, result_of(&a, back), want,
                           "deserialized");
                cr_assert_eq(serialize(&a, back, &y), 0);
                cr_assert(bytes_eq(&x, &y),
                          "%s col %d: re-serialised bytes differ", fn, col);
                if (iter < 4) {
                    for (size_t c = 0; c < x.len; c++) {
                        weir_agg_destroy(&a, back);
                        weir_cursor_init(&cur, x.data, c);
                        cr_assert_eq(a.cls->deserialize(&a, back, &cur),
                                     WEIR_ECORRUPT, "%s col %d cut %zu/%zu", fn,
                                     col, c, x.len);
                        cr_assert(weir_agg_is_empty(&a, back));
                    }
                }
                /* The state is usable after a deserialisation: add to it. */
                if (n > 0)
                    cr_assert_eq(a.cls->add(&a, back, b, 0), 0);
                acc_free(&a, back);

                /* Retract a random subset; compare with the rows left. */
                if (a.cls->retract) {
                    bool gone[MAXN] = {0};
                    int order[MAXN];
                    for (int r = 0; r < n; r++)
                        order[r] = r;
                    for (int r = n - 1; r > 0; r--) {
                        int j = (int)(rnd() % (uint64_t)(r + 1));
                        int t = order[r];
                        order[r] = order[j];
                        order[j] = t;
                    }
                    int m = n ? (int)(rnd() % (uint64_t)(n + 1)) : 0;
                    for (int q = 0; q < m; q++) {
                        int r = order[q];
                        cr_assert_eq(a.cls->retract(&a, one, b, (uint32_t)r), 0,
                                     "%s col %d", fn, col);
                        /* A retraction takes the oldest live copy of the value.
                         */
                        int victim = r;
                        for (int j = 0; j < n; j++)
                            if (!gone[j] && vals[j].null == vals[r].null &&
                                (vals[r].null ||
                                 tcmp(dcol, &vals[j], &vals[r]) == 0)) {
                                victim = j;
                                break;
                            }
                        gone[victim] = true;
                    }
                    tval left[MAXN];
                    int nl = 0;
                    weir_batch *lb = weir_batch_create(s, MAXN);
                    for (int r = 0; r < n; r++)
                        if (!gone[r]) {
                            left[nl] = vals[r];
                            weir_batch_append_row(lb);
                            put_tval(lb, dcol, (uint32_t)nl, &left[nl]);
                            nl++;
                        }
                    res lw = reference(fn, col, left, nl);
                    if (exact) {
                        assert_res(fn, col, &a, result_of(&a, one), lw,
                                   "after retraction");
                    } else {
                        /* Welford run backwards: the error is relative to
                         * the magnitude of the data, not of the result. */
                        res g = result_of(&a, one);
                        cr_assert_eq(g.null, lw.null, "%s col %d", fn, col);
                        double big = 1, sc = col == C_DEC ? 100 : 1;
                        for (int r = 0; r < n; r++) {
                            double v = (col == C_DOUBLE ? vals[r].d
                                                        : (double)vals[r].i) /
                                       sc;
                            if (!vals[r].null && v * v > big)
                                big = v * v;
                        }
                        double gv = g.d, wv = lw.d;
                        if (fn[0] == 'S') {
                            gv *= gv;
                            wv *= wv;
                        }
                        if (!lw.null)
                            cr_assert_leq(fabs(gv - wv), 1e-9 * big,
                                          "%s col %d: %.17g want %.17g", fn,
                                          col, gv, wv);
                    }
                    cr_assert_eq(weir_agg_is_empty(&a, one), nl == 0);
                    void *fresh = fold(&a, lb, 0, nl);
                    cr_assert_eq(serialize(&a, one, &x), 0);
                    cr_assert_eq(serialize(&a, fresh, &y), 0);
                    /* The sketch keeps the widest range it saw until it
                     * empties. */
                    if (exact && (strcmp(fn, "APPROX_PERCENTILE") || nl == 0))
                        cr_assert(bytes_eq(&x, &y),
                                  "%s col %d: state after retraction differs "
                                  "(seed %" PRIu64 ")",
                                  fn, col, seed);
                    acc_free(&a, fresh);
                    weir_batch_destroy(lb);
                }
                acc_free(&a, one);
                acc_free(&a, merged);
            }
        }
    }
    weir_buf_fini(&x);
    weir_buf_fini(&y);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_property, corrupt_bytes_are_refused_or_harmless)
{
    /* Every single-byte change of every function's state either fails with
     * WEIR_ECORRUPT or yields a state that works (ASan watches). */
    uint64_t seed = seed_from_env("agg corruption", 555);
    rng_state = seed;
    weir_schema *s = all_types();
    enum { N = 40 };
    weir_batch *b = weir_batch_create(s, N);
    weir_buf x, y;
    weir_buf_init(&x);
    weir_buf_init(&y);
    for (size_t f = 0; f < sizeof all_fns / sizeof all_fns[0]; f++) {
        for (int col = 0; col < N_COLS; col++) {
            if (!takes(all_fns[f], col))
                continue;
            weir_batch_reset(b);
            for (int r = 0; r < N; r++) {
                weir_batch_append_row(b);
                tval v = rand_val(col);
                put_tval(b, col, (uint32_t)r, &v);
            }
            weir_agg a;
            bind_ok(all_fns[f], s, col,
                    strcmp(all_fns[f], "APPROX_PERCENTILE") ? 0 : 0.5, &a);
            void *acc = fold(&a, b, 0, N);
            serialize(&a, acc, &x);
            acc_free(&a, acc);
            /* Header bytes: version, function, value kind. */
            for (int h = 0; h < 3; h++) {
                uint8_t saved = x.data[h];
                x.data[h] ^= 0x40;
                void *z = acc_new(&a);
                weir_cursor cur;
                weir_cursor_init(&cur, x.data, x.len);
                cr_assert_eq(a.cls->deserialize(&a, z, &cur), WEIR_ECORRUPT,
                             "%s header byte %d", all_fns[f], h);
                x.data[h] = saved;
                acc_free(&a, z);
            }
            for (size_t i = 3; i < x.len; i++) {
                uint8_t saved = x.data[i];
                for (int t = 0; t < 3; t++) {
                    x.data[i] = t == 0   ? (uint8_t)(saved ^ 1)
                                : t == 1 ? 0xff
                                         : (uint8_t)rnd();
                    void *z = acc_new(&a);
                    weir_cursor cur;
                    weir_cursor_init(&cur, x.data, x.len);
                    int rc = a.cls->deserialize(&a, z, &cur);
                    cr_assert(rc == 0 || rc == WEIR_ECORRUPT,
                              "%s byte %zu: rc %d", all_fns[f], i, rc);
                    if (rc == 0) {
                        result_of(&a, z);
                        a.cls->add(&a, z, b, 0);
                        serialize(&a, z, &y);
                    } else {
                        cr_assert(weir_agg_is_empty(&a, z));
                    }
                    acc_free(&a, z);
                }
                x.data[i] = saved;
            }
        }
    }
    weir_buf_fini(&x);
    weir_buf_fini(&y);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_property, retractable_extremes_against_reference_under_churn)
{
    /* Long random add/retract sequences over few distinct values, checking
     * MIN/MAX/FIRST/LAST_RETRACT after every step. */
    uint64_t seed = seed_from_env("retract churn", 8080);
    rng_state = seed;
    weir_schema *s = all_types();
    const char *fns[] = {"MIN_RETRACT", "MAX_RETRACT", "FIRST_VALUE_RETRACT",
                         "LAST_VALUE_RETRACT"};
    enum { V = 64, STEPS = 2000 };
    weir_batch *b = weir_batch_create(s, V);
    tval pool[V];
    for (int r = 0; r < V; r++) {
        weir_batch_append_row(b);
        char w[16];
        int len = snprintf(w, sizeof w, "k%03d", (int)(rnd() % 40));
        pool[r] = tv_s(w, (uint32_t)len);
        put_tval(b, C_STR, (uint32_t)r, &pool[r]);
    }
    for (size_t f = 0; f < 4; f++) {
        weir_agg a;
        bind_ok(fns[f], s, C_STR, 0, &a);
        void *acc = acc_new(&a);
        tval live[STEPS];
        int nlive = 0;
        for (int step = 0; step < STEPS; step++) {
            if (nlive > 0 && rnd() % 100 < 45) {
                /* Retract the value of a random live occurrence. */
                int pick = (int)(rnd() % (uint64_t)nlive);
                int row = -1;
                for (int r = 0; r < V && row < 0; r++)
                    if (tcmp(C_STR, &pool[r], &live[pick]) == 0)
                        row = r;
                cr_assert_eq(a.cls->retract(&a, acc, b, (uint32_t)row), 0);
                for (int j = 0; j < nlive; j++)
                    if (tcmp(C_STR, &live[j], &live[pick]) == 0) {
                        memmove(&live[j], &live[j + 1],
                                (size_t)(nlive - j - 1) * sizeof live[0]);
                        nlive--;
                        break;
                    }
            } else {
                int row = (int)(rnd() % V);
                cr_assert_eq(a.cls->add(&a, acc, b, (uint32_t)row), 0);
                live[nlive++] = pool[row];
            }
            assert_res(fns[f], C_STR, &a, result_of(&a, acc),
                       reference(fns[f], C_STR, live, nlive), "churn");
        }
        acc_free(&a, acc);
    }
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

#include "agg/agg_internal.h"

Test(agg_percentile, sketch_constants_match_alpha)
{
    double g = (1 + WEIR_DDS_ALPHA) / (1 - WEIR_DDS_ALPHA);
    cr_assert_float_eq(WEIR_DDS_LN_GAMMA, log(g), 1e-15);
    cr_assert_float_eq(WEIR_DDS_INV_LN_GAMMA, 1 / log(g), 1e-11);
    cr_assert_float_eq(WEIR_DDS_LN_MID, log(2 / (g + 1)), 1e-15);
}

/* ---- LISTAGG and LAG ---- */

static void put_str_row(weir_batch *b, const char *v)
{
    uint32_t r = b->n_rows;
    weir_batch_append_row(b);
    if (v) {
        weir_batch_set_str(b, C_STR, r, v, strlen(v));
        weir_batch_set_valid(b, C_STR, r);
    } else {
        weir_batch_set_null(b, C_STR, r);
    }
}

static void expect_str(const weir_agg *a, const void *acc, const char *want)
{
    res r = result_of(a, acc);
    cr_assert_eq(r.rc, 0);
    if (!want) {
        cr_assert(r.null, "want NULL, got '%.*s'", (int)r.len, r.s);
        return;
    }
    cr_assert_not(r.null, "want '%s', got NULL", want);
    cr_assert(r.len == strlen(want) && memcmp(r.s, want, r.len) == 0, "want '%s', got '%.*s'", want,
              (int)r.len, r.s);
}

Test(agg_listagg, arrival_order_separator_nulls_retract_merge_round_trip)
{
    weir_schema *s = all_types();
    weir_batch *b = weir_batch_create(s, 16);
    const char *in[] = {"x", NULL, "y", "x", "", "z"};
    for (int i = 0; i < 6; i++)
        put_str_row(b, in[i]);
    weir_agg a;
    bind_ok("LISTAGG", s, C_STR, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_STRING);
    weir_error err = {0};
    cr_assert_eq(weir_agg_bind("LISTAGG", s, C_INT, 0, &a, &err), WEIR_EINVAL);
    bind_ok("LISTAGG", s, C_STR, 0, &a);
    a.sep = "--";
    void *acc = acc_new(&a);
    expect_str(&a, acc, NULL);
    cr_assert_eq(weir_agg_add(&a, acc, b, 1), 0); /* NULL only: NULL */
    expect_str(&a, acc, NULL);
    cr_assert_not(weir_agg_is_empty(&a, acc));
    for (uint32_t r = 0; r < 6; r++)
        if (r != 1)
            cr_assert_eq(weir_agg_add(&a, acc, b, r), 0);
    expect_str(&a, acc, "x--y--x----z");
    /* A retraction cuts the oldest equal value, with one separator. */
    cr_assert_eq(weir_agg_retract(&a, acc, b, 3), 0);
    expect_str(&a, acc, "y--x----z");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 5), 0);
    expect_str(&a, acc, "y--x--");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 4), 0);
    expect_str(&a, acc, "y--x");
    weir_batch *other = weir_batch_create(s, 4);
    put_str_row(other, "q");
    cr_assert_eq(weir_agg_retract(&a, acc, other, 0), WEIR_ESTATE);
    expect_str(&a, acc, "y--x");
    /* Merge appends the other side; a round trip keeps the values. */
    void *o = acc_new(&a);
    cr_assert_eq(weir_agg_add(&a, o, other, 0), 0);
    cr_assert_eq(a.cls->merge(&a, acc, o), 0);
    expect_str(&a, acc, "y--x--q");
    weir_buf x;
    weir_buf_init(&x);
    cr_assert_eq(a.cls->serialize(&a, acc, &x), 0);
    void *back = acc_new(&a);
    weir_cursor cur;
    weir_cursor_init(&cur, x.data, x.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0);
    expect_str(&a, back, "y--x--q");
    for (size_t c = 0; c < x.len; c++) {
        weir_agg_destroy(&a, back);
        weir_cursor_init(&cur, x.data, c);
        cr_assert_eq(a.cls->deserialize(&a, back, &cur), WEIR_ECORRUPT);
        cr_assert(weir_agg_is_empty(&a, back));
    }
    /* Every row out again: the empty state. */
    cr_assert_eq(weir_agg_retract(&a, acc, b, 1), 0);
    cr_assert_eq(weir_agg_retract(&a, acc, b, 2), 0);
    cr_assert_eq(weir_agg_retract(&a, acc, b, 0), 0);
    cr_assert_eq(weir_agg_retract(&a, acc, other, 0), 0);
    cr_assert(weir_agg_is_empty(&a, acc));
    expect_str(&a, acc, NULL);
    weir_buf_fini(&x);
    acc_free(&a, back);
    acc_free(&a, o);
    acc_free(&a, acc);
    weir_batch_destroy(other);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_lag, offset_back_null_values_present_and_round_trip)
{
    weir_schema *s = all_types();
    weir_batch *b = weir_batch_create(s, 16);
    const char *in[] = {"a", "b", NULL, "d", "e"};
    for (int i = 0; i < 5; i++)
        put_str_row(b, in[i]);
    weir_agg lag, pres;
    bind_ok("LAG", s, C_STR, 2, &lag);
    bind_ok("LAG_PRESENT", s, C_STR, 2, &pres);
    weir_error err = {0};
    cr_assert_eq(weir_agg_bind("LAG", s, C_STR, 1.5, &lag, &err), WEIR_EINVAL);
    bind_ok("LAG", s, C_STR, 2, &lag);
    void *acc = acc_new(&lag), *pacc = acc_new(&pres);
    /* The value two adds back: none, none, a, b, NULL (a NULL value), d. */
    const char *want[] = {NULL, NULL, "a", "b", NULL};
    bool present[] = {false, false, true, true, true};
    for (uint32_t r = 0; r < 5; r++) {
        cr_assert_eq(weir_agg_add(&lag, acc, b, r), 0);
        cr_assert_eq(weir_agg_add(&pres, pacc, b, r), 0);
        expect_str(&lag, acc, want[r]);
        res p = result_of(&pres, pacc);
        cr_assert_eq(p.rc, 0);
        cr_assert_eq(p.i != 0, present[r], "row %u", r);
    }
    /* A row leaving a bounded frame does not move LAG. */
    cr_assert_eq(weir_agg_retract(&lag, acc, b, 0), 0);
    expect_str(&lag, acc, NULL);
    weir_buf x;
    weir_buf_init(&x);
    cr_assert_eq(lag.cls->serialize(&lag, acc, &x), 0);
    void *back = acc_new(&lag);
    weir_cursor cur;
    weir_cursor_init(&cur, x.data, x.len);
    cr_assert_eq(lag.cls->deserialize(&lag, back, &cur), 0);
    cr_assert_eq(weir_agg_add(&lag, back, b, 4), 0);
    cr_assert_eq(weir_agg_add(&lag, acc, b, 4), 0);
    expect_str(&lag, back, "d");
    expect_str(&lag, acc, "d");
    expect_every_cut_corrupt(&lag, back, &x);
    /* Merge: the other's values follow this one's. */
    void *m = acc_new(&lag), *o = acc_new(&lag);
    cr_assert_eq(weir_agg_add(&lag, m, b, 0), 0);
    for (uint32_t r = 1; r < 5; r++)
        if (r != 2)
            cr_assert_eq(weir_agg_add(&lag, o, b, r), 0);
    cr_assert_eq(lag.cls->merge(&lag, m, o), 0);
    expect_str(&lag, m, "b"); /* a, then b, d, e: two back from e */
    void *m2 = acc_new(&lag), *o2 = acc_new(&lag);
    cr_assert_eq(weir_agg_add(&lag, m2, b, 0), 0);
    for (uint32_t r = 0; r < 5; r++) /* more than n + 1 values: the oldest go */
        cr_assert_eq(weir_agg_add(&lag, o2, b, r), 0);
    cr_assert_eq(lag.cls->merge(&lag, m2, o2), 0);
    expect_str(&lag, m2, NULL); /* a, a, b, NULL, d, e: the NULL value */
    cr_assert_eq(weir_agg_add(&lag, m2, b, 0), 0);
    expect_str(&lag, m2, "d");
    acc_free(&lag, m2);
    acc_free(&lag, o2);
    weir_buf_fini(&x);
    acc_free(&lag, m);
    acc_free(&lag, o);
    acc_free(&lag, back);
    acc_free(&lag, acc);
    acc_free(&pres, pacc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* F(DISTINCT x) over doubles: one multiset gives one result, whatever the
 * order the values came in or whether the state was restored - so a
 * retraction (-U) repeats exactly the row emitted before it. */
Test(agg_distinct_of, double_result_does_not_depend_on_the_path)
{
    weir_schema *s = all_types();
    weir_batch *b = weir_batch_create(s, 8);
    const double in[] = {1e16, -1e16, 1.0};
    for (uint32_t r = 0; r < 3; r++) {
        weir_batch_append_row(b);
        tval v = tv_d(in[r]);
        put_tval(b, C_DOUBLE, r, &v);
    }
    const char *fns[] = {"SUM_DISTINCT", "AVG_DISTINCT", "VAR_POP_DISTINCT"};
    for (int f = 0; f < 3; f++) {
        weir_agg a;
        bind_ok(fns[f], s, C_DOUBLE, 0, &a);
        void *one = fold(&a, b, 0, 3);
        weir_buf x;
        weir_buf_init(&x);
        cr_assert_eq(a.cls->serialize(&a, one, &x), 0);
        void *back = acc_new(&a);
        weir_cursor cur;
        weir_cursor_init(&cur, x.data, x.len);
        cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0);
        res r1 = result_of(&a, one), r2 = result_of(&a, back);
        cr_assert_eq(r1.rc, 0);
        cr_assert_eq(r2.rc, 0);
        cr_assert(memcmp(&r1.d, &r2.d, sizeof r1.d) == 0, "%s: %.17g folded, %.17g restored", fns[f], r1.d,
                  r2.d);
        weir_buf_fini(&x);
        acc_free(&a, back);
        acc_free(&a, one);
    }
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- COLLECT ---- */

#include "weir/format.h"

/* The print text of COLLECT's result ({v=count, ...}). */
static void expect_multiset(const weir_agg *a, const void *acc, const char *want)
{
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", a->result_type);
    weir_batch *out = weir_batch_create(os, 1);
    weir_batch_append_row(out);
    cr_assert_eq(a->cls->result(a, acc, out, 0, 0), 0);
    cr_assert_not(weir_batch_is_null(out, 0, 0));
    uint32_t len;
    const char *p = weir_batch_str(out, 0, 0, &len);
    weir_buf t;
    weir_buf_init(&t);
    cr_assert_eq(weir_format_nested_text(&t, a->result_type, p, len), 0);
    cr_assert_eq(weir_buf_put_u8(&t, 0), 0);
    cr_assert_str_eq((const char *)t.data, want);
    weir_buf_fini(&t);
    weir_batch_destroy(out);
    weir_schema_destroy(os);
}

Test(agg_collect, multiset_of_values_retract_merge_round_trip)
{
    weir_schema *s = all_types();
    tval in[] = {tv_i(3), tv_null(), tv_i(-1), tv_i(3), tv_i(12)};
    weir_batch *b = col_batch(s, C_INT, in, 5);
    weir_agg a;
    bind_ok("COLLECT", s, C_INT, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_MULTISET);
    cr_assert(weir_agg_can_retract(&a));
    void *acc = acc_new(&a);
    expect_multiset(&a, acc, "{}"); /* never NULL */
    for (uint32_t r = 0; r < 4; r++)
        cr_assert_eq(weir_agg_add(&a, acc, b, r), 0);
    /* elements by value (numbers numerically), NULL skipped */
    expect_multiset(&a, acc, "{-1=1, 3=2}");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 0), 0);
    expect_multiset(&a, acc, "{-1=1, 3=1}");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 4), WEIR_ESTATE); /* 12 is not there */
    void *o = acc_new(&a);
    cr_assert_eq(weir_agg_add(&a, o, b, 4), 0);
    cr_assert_eq(weir_agg_add(&a, o, b, 3), 0);
    cr_assert_eq(a.cls->merge(&a, acc, o), 0);
    expect_multiset(&a, acc, "{-1=1, 3=2, 12=1}");
    weir_buf x;
    weir_buf_init(&x);
    cr_assert_eq(serialize(&a, acc, &x), 0);
    void *back = acc_new(&a);
    weir_cursor cur;
    weir_cursor_init(&cur, x.data, x.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0);
    expect_multiset(&a, back, "{-1=1, 3=2, 12=1}");
    expect_every_cut_corrupt(&a, back, &x);
    /* a COUNT_DISTINCT state is not a COLLECT state */
    weir_agg cd;
    bind_ok("COUNT_DISTINCT", s, C_INT, 0, &cd);
    weir_buf y;
    weir_buf_init(&y);
    cr_assert_eq(serialize(&cd, acc, &y), 0);
    weir_agg_destroy(&a, back);
    weir_cursor_init(&cur, y.data, y.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), WEIR_ECORRUPT);
    weir_buf_fini(&y);
    weir_buf_fini(&x);
    acc_free(&a, back);
    acc_free(&a, o);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- ARRAY_AGG ---- */

static bool result_is_null(const weir_agg *a, const void *acc)
{
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", a->result_type);
    weir_batch *out = weir_batch_create(os, 1);
    weir_batch_append_row(out);
    cr_assert_eq(a->cls->result(a, acc, out, 0, 0), 0);
    bool null = weir_batch_is_null(out, 0, 0);
    weir_batch_destroy(out);
    weir_schema_destroy(os);
    return null;
}

Test(agg_array_agg, arrival_order_nulls_retract_merge_round_trip)
{
    weir_schema *s = all_types();
    tval in[] = {tv_i(3), tv_null(), tv_i(-1), tv_i(3), tv_i(12)};
    weir_batch *b = col_batch(s, C_INT, in, 5);
    weir_agg a, ign;
    bind_ok("ARRAY_AGG", s, C_INT, 0, &a);
    bind_ok("ARRAY_AGG", s, C_INT, 1, &ign); /* IGNORE NULLS */
    cr_assert_eq(a.result_type.id, WEIR_TYPE_ARRAY);
    cr_assert(weir_agg_can_retract(&a));
    void *acc = acc_new(&a), *acc_i = acc_new(&ign);
    cr_assert(result_is_null(&a, acc)); /* no element: NULL */
    for (uint32_t r = 0; r < 4; r++) {
        cr_assert_eq(weir_agg_add(&a, acc, b, r), 0);
        cr_assert_eq(weir_agg_add(&ign, acc_i, b, r), 0);
    }
    expect_multiset(&a, acc, "[3, null, -1, 3]");
    expect_multiset(&ign, acc_i, "[3, -1, 3]");
    /* the oldest equal element goes */
    cr_assert_eq(weir_agg_retract(&a, acc, b, 3), 0);
    expect_multiset(&a, acc, "[null, -1, 3]");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 1), 0);
    expect_multiset(&a, acc, "[-1, 3]");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 4), WEIR_ESTATE); /* 12 is not there */
    /* IGNORE NULLS: a NULL row counts, but is no element */
    cr_assert_eq(weir_agg_retract(&ign, acc_i, b, 1), 0);
    expect_multiset(&ign, acc_i, "[3, -1, 3]");
    void *only_null = acc_new(&ign);
    cr_assert_eq(weir_agg_add(&ign, only_null, b, 1), 0);
    cr_assert(result_is_null(&ign, only_null));
    cr_assert_not(a.cls->is_empty(&ign, only_null));
    void *o = acc_new(&a);
    cr_assert_eq(weir_agg_add(&a, o, b, 4), 0);
    cr_assert_eq(weir_agg_add(&a, o, b, 1), 0);
    cr_assert_eq(a.cls->merge(&a, acc, o), 0);
    expect_multiset(&a, acc, "[-1, 3, 12, null]");
    weir_buf x;
    weir_buf_init(&x);
    cr_assert_eq(serialize(&a, acc, &x), 0);
    void *back = acc_new(&a);
    weir_cursor cur;
    weir_cursor_init(&cur, x.data, x.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0);
    expect_multiset(&a, back, "[-1, 3, 12, null]");
    cr_assert_eq(weir_agg_retract(&a, back, b, 2), 0);
    expect_multiset(&a, back, "[3, 12, null]");
    expect_every_cut_corrupt(&a, back, &x);
    /* a COLLECT state is not an ARRAY_AGG state */
    weir_agg co;
    bind_ok("COLLECT", s, C_INT, 0, &co);
    void *cacc = acc_new(&co);
    weir_buf y;
    weir_buf_init(&y);
    cr_assert_eq(serialize(&co, cacc, &y), 0);
    weir_agg_destroy(&a, back);
    weir_cursor_init(&cur, y.data, y.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), WEIR_ECORRUPT);
    /* every row taken back: empty again */
    void *e = acc_new(&a);
    cr_assert_eq(weir_agg_add(&a, e, b, 0), 0);
    cr_assert_eq(weir_agg_add(&a, e, b, 1), 0);
    cr_assert_eq(weir_agg_retract(&a, e, b, 1), 0);
    cr_assert_eq(weir_agg_retract(&a, e, b, 0), 0);
    cr_assert(a.cls->is_empty(&a, e));
    cr_assert(result_is_null(&a, e));
    weir_buf_fini(&y);
    weir_buf_fini(&x);
    acc_free(&a, e);
    acc_free(&co, cacc);
    acc_free(&a, back);
    acc_free(&a, o);
    acc_free(&ign, only_null);
    acc_free(&ign, acc_i);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_array_agg, strings_and_nested_values)
{
    weir_schema *s = all_types();
    tval in[] = {tv_str("b"), tv_str(""), tv_null(), tv_str("a,b")};
    weir_batch *b = col_batch(s, C_STR, in, 4);
    weir_agg a;
    bind_ok("ARRAY_AGG", s, C_STR, 0, &a);
    void *acc = acc_new(&a);
    for (uint32_t r = 0; r < 4; r++)
        cr_assert_eq(weir_agg_add(&a, acc, b, r), 0);
    expect_multiset(&a, acc, "[b, , null, a,b]");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 1), 0);
    expect_multiset(&a, acc, "[b, null, a,b]");
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_array_agg, distinct_first_arrival_retract_merge_round_trip)
{
    weir_schema *s = all_types();
    tval in[] = {tv_i(3), tv_null(), tv_i(-1), tv_i(3), tv_i(12), tv_null()};
    weir_batch *b = col_batch(s, C_INT, in, 6);
    weir_agg a, ign;
    bind_ok("ARRAY_AGG_DISTINCT", s, C_INT, 0, &a);
    bind_ok("ARRAY_AGG_DISTINCT", s, C_INT, 1, &ign); /* IGNORE NULLS */
    cr_assert_eq(a.result_type.id, WEIR_TYPE_ARRAY);
    cr_assert(weir_agg_can_retract(&a));
    void *acc = acc_new(&a), *acc_i = acc_new(&ign);
    cr_assert(result_is_null(&a, acc));
    for (uint32_t r = 0; r < 6; r++) {
        cr_assert_eq(weir_agg_add(&a, acc, b, r), 0);
        cr_assert_eq(weir_agg_add(&ign, acc_i, b, r), 0);
    }
    /* each value once, where it first came; NULL one value unless IGNORE NULLS */
    expect_multiset(&a, acc, "[3, null, -1, 12]");
    expect_multiset(&ign, acc_i, "[3, -1, 12]");
    /* one of two 3s goes: 3 stays in place; the last goes, and a new 3 comes at the end */
    cr_assert_eq(weir_agg_retract(&a, acc, b, 0), 0);
    expect_multiset(&a, acc, "[3, null, -1, 12]");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 3), 0);
    expect_multiset(&a, acc, "[null, -1, 12]");
    cr_assert_eq(weir_agg_retract(&a, acc, b, 3), WEIR_ESTATE);
    cr_assert_eq(weir_agg_add(&a, acc, b, 0), 0);
    expect_multiset(&a, acc, "[null, -1, 12, 3]");
    /* IGNORE NULLS: NULL rows count, but are no element */
    cr_assert_eq(weir_agg_retract(&ign, acc_i, b, 1), 0);
    cr_assert_eq(weir_agg_retract(&ign, acc_i, b, 5), 0);
    cr_assert_eq(weir_agg_retract(&ign, acc_i, b, 5), WEIR_ESTATE);
    expect_multiset(&ign, acc_i, "[3, -1, 12]");
    /* merge: this side's order, then the other side's new values in its order, counts added */
    void *o = acc_new(&a);
    cr_assert_eq(weir_agg_add(&a, o, b, 4), 0);  /* 12: there already */
    cr_assert_eq(weir_agg_add(&a, o, b, 2), 0);  /* -1 */
    cr_assert_eq(weir_agg_add(&a, o, b, 0), 0);  /* 3 */
    void *m = acc_new(&a);
    cr_assert_eq(weir_agg_add(&a, m, b, 2), 0);
    cr_assert_eq(a.cls->merge(&a, m, o), 0);
    expect_multiset(&a, m, "[-1, 12, 3]");
    cr_assert_eq(a.cls->merge(&a, acc, o), 0);
    expect_multiset(&a, acc, "[null, -1, 12, 3]");
    /* -1 came twice now: one retraction keeps it */
    cr_assert_eq(weir_agg_retract(&a, acc, b, 2), 0);
    expect_multiset(&a, acc, "[null, -1, 12, 3]");
    /* restore keeps the order and the counts */
    weir_buf x;
    weir_buf_init(&x);
    cr_assert_eq(serialize(&a, acc, &x), 0);
    void *back = acc_new(&a);
    weir_cursor cur;
    weir_cursor_init(&cur, x.data, x.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0);
    expect_multiset(&a, back, "[null, -1, 12, 3]");
    cr_assert_eq(weir_agg_retract(&a, back, b, 2), 0);
    expect_multiset(&a, back, "[null, 12, 3]");
    cr_assert_eq(weir_agg_retract(&a, back, b, 4), 0); /* 12 twice */
    expect_multiset(&a, back, "[null, 12, 3]");
    expect_every_cut_corrupt(&a, back, &x);
    /* an ARRAY_AGG state is not an ARRAY_AGG(DISTINCT) one */
    weir_agg plain;
    bind_ok("ARRAY_AGG", s, C_INT, 0, &plain);
    void *pacc = acc_new(&plain);
    cr_assert_eq(weir_agg_add(&plain, pacc, b, 0), 0);
    weir_buf y;
    weir_buf_init(&y);
    cr_assert_eq(serialize(&plain, pacc, &y), 0);
    weir_agg_destroy(&a, back);
    weir_cursor_init(&cur, y.data, y.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), WEIR_ECORRUPT);
    /* every row taken back: empty again */
    void *e = acc_new(&a);
    cr_assert_eq(weir_agg_add(&a, e, b, 0), 0);
    cr_assert_eq(weir_agg_add(&a, e, b, 0), 0);
    cr_assert_eq(weir_agg_retract(&a, e, b, 0), 0);
    cr_assert_eq(weir_agg_retract(&a, e, b, 0), 0);
    cr_assert(a.cls->is_empty(&a, e));
    cr_assert(result_is_null(&a, e));
    weir_buf_fini(&y);
    weir_buf_fini(&x);
    acc_free(&a, e);
    acc_free(&plain, pacc);
    acc_free(&a, back);
    acc_free(&a, m);
    acc_free(&a, o);
    acc_free(&ign, acc_i);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(agg_percentile, array_of_percentages_retract_round_trip)
{
    weir_schema *s = all_types();
    tval in[] = {tv_i(0), tv_i(10), tv_null(), tv_i(10)};
    weir_batch *b = col_batch(s, C_INT, in, 4);
    weir_agg a;
    bind_ok("PERCENTILES", s, C_INT, 0, &a);
    double ps[] = {0.3, 0, 1};
    a.params = ps;
    a.n_params = 3;
    cr_assert_eq(a.result_type.id, WEIR_TYPE_ARRAY);
    void *acc = acc_new(&a);
    cr_assert(result_is_null(&a, acc));
    for (uint32_t r = 0; r < 4; r++)
        cr_assert_eq(weir_agg_add(&a, acc, b, r), 0);
    expect_multiset(&a, acc, "[6.0, 0.0, 10.0]"); /* 0, 10, 10 */
    cr_assert_eq(weir_agg_retract(&a, acc, b, 3), 0);
    expect_multiset(&a, acc, "[3.0, 0.0, 10.0]"); /* 0, 10 */
    weir_buf x;
    weir_buf_init(&x);
    cr_assert_eq(serialize(&a, acc, &x), 0);
    void *back = acc_new(&a);
    weir_cursor cur;
    weir_cursor_init(&cur, x.data, x.len);
    cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0);
    expect_multiset(&a, back, "[3.0, 0.0, 10.0]");
    a.params = NULL; /* the percentages are the caller's to set */
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", a.result_type);
    weir_batch *out = weir_batch_create(os, 1);
    weir_batch_append_row(out);
    cr_assert_eq(a.cls->result(&a, acc, out, 0, 0), WEIR_EINVAL);
    weir_batch_destroy(out);
    weir_schema_destroy(os);
    weir_buf_fini(&x);
    acc_free(&a, back);
    acc_free(&a, acc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- SINGLE_VALUE ---- */

Test(agg_single_value, one_row_its_value_a_second_fails_unchanged)
{
    weir_schema *s = all_types();
    weir_agg a;
    bind_ok("SINGLE_VALUE", s, C_STR, 0, &a);
    cr_assert_eq(a.result_type.id, WEIR_TYPE_STRING);
    cr_assert(a.result_type.nullable);
    cr_assert(weir_agg_can_retract(&a));
    tval v[] = {tv_str("abc"), tv_str("zz"), tv_null()};
    weir_batch *b = col_batch(s, C_STR, v, 3);
    void *x = acc_new(&a), *y = acc_new(&a), *z = acc_new(&a);
    cr_assert(result_of(&a, x).null); /* no row */
    cr_assert_eq(a.cls->add(&a, x, b, 0), 0);
    cr_assert_str_eq(result_of(&a, x).s, "abc");
    cr_assert_eq(a.cls->add(&a, x, b, 1), WEIR_EINVAL); /* a second row */
    cr_assert_str_eq(result_of(&a, x).s, "abc");
    /* its row retracted, another may come (an update: -U then +U) */
    cr_assert_eq(a.cls->retract(&a, x, b, 0), 0);
    cr_assert(weir_agg_is_empty(&a, x));
    cr_assert_eq(a.cls->retract(&a, x, b, 0), WEIR_ESTATE);
    cr_assert_eq(a.cls->add(&a, x, b, 1), 0);
    cr_assert_str_eq(result_of(&a, x).s, "zz");
    /* a NULL value is a row */
    cr_assert_eq(a.cls->add(&a, y, b, 2), 0);
    cr_assert(result_of(&a, y).null);
    cr_assert_not(weir_agg_is_empty(&a, y));
    cr_assert_eq(a.cls->merge(&a, y, x), WEIR_EINVAL);
    cr_assert_eq(a.cls->merge(&a, z, x), 0);
    cr_assert_str_eq(result_of(&a, z).s, "zz");

    weir_buf buf;
    weir_buf_init(&buf);
    void *w = acc_new(&a);
    weir_cursor cur;
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(serialize(&a, k ? y : z, &buf), 0);
        weir_cursor_init(&cur, buf.data, buf.len);
        weir_agg_destroy(&a, w); /* deserialize takes an uninitialised block */
        cr_assert_eq(a.cls->deserialize(&a, w, &cur), 0);
        res r = result_of(&a, w);
        cr_assert_eq(r.null, k == 1);
        if (!k)
            cr_assert_str_eq(r.s, "zz");
        cr_assert_not(weir_agg_is_empty(&a, w));
        for (size_t cut = 0; cut < buf.len; cut++) {
            weir_cursor_init(&cur, buf.data, cut);
            weir_agg_destroy(&a, w);
            cr_assert_eq(a.cls->deserialize(&a, w, &cur), WEIR_ECORRUPT);
        }
    }
    weir_buf_fini(&buf);
    acc_free(&a, w);
    acc_free(&a, x);
    acc_free(&a, y);
    acc_free(&a, z);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- DECIMAL of more than 18 digits (16-byte values) ---- */

/* The result of a (a DECIMAL(38, 2) or a BIGINT) as 128 bits; *null set. */
static __int128 wide_result(const weir_agg *a, const void *acc, bool *null)
{
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", a->result_type);
    weir_batch *out = weir_batch_create(os, 1);
    weir_batch_append_row(out);
    cr_assert_eq(a->cls->result(a, acc, out, 0, 0), 0, "%s", a->cls->name);
    __int128 w = 0;
    *null = weir_batch_is_null(out, 0, 0);
    if (!*null && weir_type_is_wide(a->result_type))
        memcpy(&w, out->cols[0].data, 16);
    else if (!*null)
        w = WEIR_COL_I64(out, 0)[0];
    weir_batch_destroy(out);
    weir_schema_destroy(os);
    return w;
}

/* Every function that takes a DECIMAL(38, 2) keeps all 16 bytes of values
 * past 64 bits (two of them equal in their low 64 bits) through add,
 * merge, retract and the serialised form, which every cut corrupts. */
Test(agg_wide, decimal38_add_merge_retract_and_state)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "w", weir_type_decimal(38, 2, true));
    const __int128 big = (__int128)1 << 100;
    const __int128 v[] = {big + 5, -big, 0, big + 5, 7, -(big + 5), ((__int128)3 << 64) + 7};
    const uint32_t n = sizeof v / sizeof v[0], null_row = 2;
    weir_batch *b = weir_batch_create(s, n);
    for (uint32_t r = 0; r < n; r++) {
        cr_assert_eq(weir_batch_append_row(b), (int)r);
        memcpy((char *)b->cols[0].data + 16 * r, &v[r], 16);
        if (r == null_row)
            weir_batch_set_null(b, 0, r);
        else
            weir_batch_set_valid(b, 0, r);
    }
    const __int128 top = ((__int128)3 << 64) + 7;
    const struct {
        const char *fn;
        double param;
        __int128 want, after_retract; /* after retracting the last row */
    } cs[] = {
        {"MIN", 0, -(big + 5), 0},
        {"MAX", 0, big + 5, 0},
        {"FIRST_VALUE", 0, big + 5, 0},
        {"LAST_VALUE", 0, top, 0},
        {"MIN_RETRACT", 0, -(big + 5), -(big + 5)},
        {"MAX_RETRACT", 0, big + 5, big + 5},
        {"FIRST_VALUE_RETRACT", 0, big + 5, big + 5},
        {"LAST_VALUE_RETRACT", 0, top, -(big + 5)},
        {"COUNT_DISTINCT", 0, 5, 4},
        {"SUM_DISTINCT", 0, big + 5 - big + 7 - (big + 5) + top, 7 - big},
        {"LAG", 1, -(big + 5), 0},
        {"SINGLE_VALUE", 0, 0, 0},
    };
    weir_buf buf;
    weir_buf_init(&buf);
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        weir_agg a;
        bind_ok(cs[i].fn, s, 0, cs[i].param, &a);
        bool single = !strcmp(cs[i].fn, "SINGLE_VALUE");
        uint32_t rows = single ? 1 : n, half = rows / 2;
        void *acc = acc_new(&a), *tail = acc_new(&a), *back = acc_new(&a);
        for (uint32_t r = 0; r < rows; r++)
            cr_assert_eq(a.cls->add(&a, single || r < half ? acc : tail, b, r), 0, "%s", cs[i].fn);
        if (!single)
            cr_assert_eq(a.cls->merge(&a, acc, tail), 0, "%s", cs[i].fn);
        __int128 want = single ? v[0] : cs[i].want;
        bool null;
        cr_assert(wide_result(&a, acc, &null) == want && !null, "%s", cs[i].fn);
        cr_assert_eq(serialize(&a, acc, &buf), 0);
        weir_cursor cur;
        weir_agg_destroy(&a, back);
        weir_cursor_init(&cur, buf.data, buf.len);
        cr_assert_eq(a.cls->deserialize(&a, back, &cur), 0, "%s", cs[i].fn);
        cr_assert(wide_result(&a, back, &null) == want && !null, "%s restored", cs[i].fn);
        if (a.cls->retract && !strstr(cs[i].fn, "LAG") && !single) {
            cr_assert_eq(a.cls->retract(&a, back, b, n - 1), 0, "%s", cs[i].fn);
            cr_assert(wide_result(&a, back, &null) == cs[i].after_retract && !null, "%s retract",
                      cs[i].fn);
        }
        expect_every_cut_corrupt(&a, back, &buf);
        acc_free(&a, acc);
        acc_free(&a, tail);
        acc_free(&a, back);
    }
    weir_buf_fini(&buf);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}
