/*
 * tests/test_udtf.c - the C API of table functions (weir_udtf, weir/expr.h):
 * registration and its refusals, the shared name space with scalar
 * functions, binding a call (argument count, implicit casts), the
 * collector, weir_udf_init_table, and a function registered from C joined
 * in SQL (LATERAL TABLE, LEFT JOIN ... ON TRUE, an error with its message
 * and location) through weir_sql_job_create.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/expr.h"
#include "weir/planner.h"
#include "weir/weir.h"

/* range_to(n BIGINT) -> (i BIGINT, sq BIGINT): i = 0..n-1 and i * i; n = 13 fails. */
static int range_to(void *ud, const weir_value *args, uint32_t n_args, weir_udtf_collector *out, weir_error *err)
{
    (void)n_args;
    int *calls = ud;
    __atomic_add_fetch(calls, 1, __ATOMIC_RELAXED);
    if (args[0].v.i64 == 13)
        return weir_error_set(err, WEIR_EINVAL, "13 brings bad luck");
    for (int64_t i = 0; i < args[0].v.i64; i++) {
        weir_value row[2] = {{.v.i64 = i}, {.is_null = i == 2, .v.i64 = i * i}};
        int rc = weir_udtf_emit(out, row);
        if (rc)
            return rc;
    }
    return 0;
}

static int g_calls;
static const char *const range_names[2] = {"i", "sq"};

static weir_udtf range_def(const char *name, const weir_type *arg, const weir_type *cols)
{
    return (weir_udtf){.name = name, .arg_types = arg, .n_args = 1, .col_names = range_names, .col_types = cols,
                       .n_cols = 2, .row_fn = range_to, .ud = &g_calls, .null_on_null = true};
}

/* A collector that prints each row as "(i, sq)" into a buffer. */
typedef struct text_sink {
    char buf[512];
    size_t len;
    int fail_after; /* rows accepted before emit fails (-1: never) */
} text_sink;

static int text_emit(weir_udtf_collector *self, const weir_value *row)
{
    text_sink *s = self->sink;
    if (s->fail_after == 0)
        return WEIR_ENOMEM;
    s->fail_after--;
    char a[32], b[32];
    snprintf(a, sizeof a, "%lld", (long long)row[0].v.i64);
    snprintf(b, sizeof b, row[1].is_null ? "NULL" : "%lld", (long long)row[1].v.i64);
    s->len += (size_t)snprintf(s->buf + s->len, sizeof s->buf - s->len, "(%s, %s)", a, b);
    return 0;
}

Test(udtf, register_lookup_and_name_space)
{
    weir_error err = {0};
    weir_type bigint = weir_type_make(WEIR_TYPE_BIGINT, true);
    weir_type cols[2] = {bigint, weir_type_make(WEIR_TYPE_BIGINT, false)};
    weir_udtf f = range_def("range_to", &bigint, cols);
    cr_assert_eq(weir_expr_register_udtf(&f, &err), 0, "%s", err.message);
    cr_assert_eq(weir_expr_register_udtf(&f, &err), WEIR_EEXIST);
    cr_assert_str_eq(err.message, "function range_to is already registered");
    weir_udtf got;
    cr_assert_eq(weir_expr_udtf_lookup("RANGE_TO", &got), 0);
    cr_assert_str_eq(got.name, "range_to");
    cr_assert_eq(got.n_cols, 2);
    cr_assert_str_eq(got.col_names[1], "sq");
    cr_assert(got.col_types[1].nullable, "every result column may hold NULL");
    cr_assert(weir_expr_function_exists("range_to"));
    weir_udf u;
    cr_assert_eq(weir_expr_udf_lookup("range_to", &u), WEIR_ENOTFOUND, "a table function is no scalar one");

    /* one name space: a scalar function cannot take the name, nor a table function a built-in's */
    weir_udf s = {.name = "range_to", .arg_types = &bigint, .n_args = 1, .result_type = bigint,
                  .row_fn = (weir_udf_row_fn)1};
    cr_assert_eq(weir_expr_register_udf(&s, &err), WEIR_EEXIST);
    weir_udtf b = range_def("upper", &bigint, cols);
    cr_assert_eq(weir_expr_register_udtf(&b, &err), WEIR_EEXIST);
    cr_assert_str_eq(err.message, "upper is a built-in function");

    /* malformed definitions */
    weir_udtf bad = range_def("bad_udtf", &bigint, cols);
    bad.n_cols = 0;
    cr_assert_eq(weir_expr_register_udtf(&bad, &err), WEIR_EINVAL);
    bad = range_def("bad_udtf", &bigint, cols);
    bad.row_fn = NULL;
    cr_assert_eq(weir_expr_register_udtf(&bad, &err), WEIR_EINVAL);
    static const char *const dup[2] = {"x", "X"};
    bad = range_def("bad_udtf", &bigint, cols);
    bad.col_names = dup;
    cr_assert_eq(weir_expr_register_udtf(&bad, &err), WEIR_EINVAL);
    cr_assert_str_eq(err.message, "table function bad_udtf: two result columns are named 'X'");
    cr_assert_eq(weir_expr_udtf_lookup("bad_udtf", &got), WEIR_ENOTFOUND);
    /* types weir cannot trust or print are refused, naming the column or argument */
    weir_type badcols[2] = {bigint, weir_type_make(WEIR_TYPE_NULL, true)};
    bad = range_def("bad_udtf", &bigint, badcols);
    cr_assert_eq(weir_expr_register_udtf(&bad, &err), WEIR_EINVAL);
    cr_assert_str_eq(err.message, "table function bad_udtf: result column 'sq' has no SQL type (the NULL type or an "
                                  "unknown type id)");
    badcols[1] = weir_type_decimal(38, 2, true);
    badcols[1].precision = 60;
    bad = range_def("bad_udtf", &bigint, badcols);
    cr_assert_eq(weir_expr_register_udtf(&bad, &err), WEIR_EINVAL);
    badcols[1] = weir_type_make(WEIR_TYPE_ARRAY, true);
    bad = range_def("bad_udtf", &bigint, badcols);
    cr_assert_eq(weir_expr_register_udtf(&bad, &err), WEIR_EINVAL);
    cr_assert(strstr(err.message, "result column 'sq' has an ARRAY, MAP, ROW or MULTISET"), "%s", err.message);
    weir_type badarg = {.id = (weir_type_id)99, .nullable = true};
    bad = range_def("bad_udtf", &badarg, cols);
    cr_assert_eq(weir_expr_register_udtf(&bad, &err), WEIR_EINVAL);
    cr_assert(strstr(err.message, "argument 1 has no SQL type"), "%s", err.message);
    cr_assert_eq(weir_expr_udtf_lookup("bad_udtf", &got), WEIR_ENOTFOUND);

    cr_assert_eq(weir_expr_unregister_udtf("range_to"), 0);
    cr_assert_eq(weir_expr_udtf_lookup("range_to", &got), WEIR_ENOTFOUND);
    cr_assert_eq(weir_expr_unregister_udtf("range_to"), WEIR_ENOTFOUND);
    cr_assert(!weir_expr_function_exists("range_to"));
}

Test(udtf, bind_checks_and_casts_arguments)
{
    weir_error err = {0};
    weir_type bigint = weir_type_make(WEIR_TYPE_BIGINT, true);
    weir_type cols[2] = {bigint, bigint};
    weir_udtf f = range_def("range_b", &bigint, cols);
    cr_assert_eq(weir_expr_register_udtf(&f, &err), 0, "%s", err.message);
    weir_expr_arena *a = weir_expr_arena_create();
    weir_expr *args[2] = {weir_expr_lit_int(a, 3), weir_expr_lit_int(a, 4)};
    weir_udtf got;
    cr_assert_eq(weir_expr_udtf_bind(a, "range_b", args, 1, &got, &err), 0, "%s", err.message);
    cr_assert_eq(weir_expr_type(args[0]).id, WEIR_TYPE_BIGINT, "INT is cast to the declared BIGINT");
    cr_assert_neq(weir_expr_udtf_bind(a, "range_b", args, 2, &got, &err), 0);
    cr_assert(strstr(err.message, "range_b(BIGINT)"), "%s", err.message);
    weir_expr *s = weir_expr_lit_string(a, "x", 1);
    cr_assert_neq(weir_expr_udtf_bind(a, "range_b", &s, 1, &got, &err), 0, "no implicit STRING to BIGINT");
    cr_assert_eq(weir_expr_udtf_bind(a, "no_such_udtf", args, 1, &got, &err), WEIR_ENOTFOUND);
    cr_assert_eq(weir_expr_udtf_bind(a, "upper", &s, 1, &got, &err), WEIR_ENOTFOUND, "a scalar function");

    /* called as a scalar function: refused by name */
    weir_expr *e;
    cr_assert_neq(weir_expr_call(a, "range_b", args, 1, &e, &err), 0);
    cr_assert_str_eq(err.message, "range_b is a table function, not a scalar one: call it in FROM, as t, "
                                  "LATERAL TABLE(range_b(...)) AS x(...)");
    weir_expr_arena_destroy(a);
    cr_assert_eq(weir_expr_unregister_udtf("range_b"), 0);
}

Test(udtf, collector_and_init_table)
{
    weir_type bigint = weir_type_make(WEIR_TYPE_BIGINT, true);
    weir_type cols[2] = {bigint, bigint};
    weir_udtf f = range_def("range_c", &bigint, cols);
    text_sink s = {.fail_after = -1};
    weir_udtf_collector c = {text_emit, &s};
    weir_value arg = {.type = bigint, .v.i64 = 4};
    weir_error err = {0};
    cr_assert_eq(f.row_fn(f.ud, &arg, 1, &c, &err), 0);
    cr_assert_str_eq(s.buf, "(0, 0)(1, 1)(2, NULL)(3, 9)");
    /* a failing emit stops the function with the emit's code */
    s = (text_sink){.fail_after = 1};
    cr_assert_eq(f.row_fn(f.ud, &arg, 1, &c, &err), WEIR_ENOMEM);
    cr_assert_str_eq(s.buf, "(0, 0)");
    /* the function's own error */
    arg.v.i64 = 13;
    cr_assert_eq(f.row_fn(f.ud, &arg, 1, &c, &err), WEIR_EINVAL);
    cr_assert_str_eq(err.message, "13 brings bad luck");
    cr_assert_eq(weir_udtf_emit(NULL, NULL), WEIR_EINVAL);

    /* a library's init function marks its weir_udf as a table function's */
    weir_udf u;
    memset(&u, 0xab, sizeof u);
    cr_assert_eq(weir_udf_init_table(&u, &f), 0);
    cr_assert_eq(weir_udf_table(&u), &f);
    weir_udf plain = {.name = "x"};
    cr_assert_null(weir_udf_table(&plain));
    cr_assert_eq(weir_udf_init_table(&u, NULL), WEIR_EINVAL);
}

/* Runs a script; its printed rows sorted into *out (newline-separated), or the error. */
static int run_sql(const char *text, const char *par, char **out, weir_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert(mem);
    const char *keys[] = {"parallelism.default"}, *vals[] = {par};
    weir_sql_job_options opt = {.set_keys = keys, .set_values = vals, .n_set = 1, .print_out = mem};
    weir_sql_job *sj = NULL;
    int rc = weir_sql_job_create("udtf.sql", text, strlen(text), &opt, &sj, err);
    if (!rc) {
        weir_job *job = weir_sql_job_graph(sj);
        rc = weir_job_run(job);
        if (rc)
            snprintf(err->message, sizeof err->message, "%s", weir_job_error(job));
    }
    weir_sql_job_destroy(sj);
    fclose(mem);
    /* strip the "N> " subtask prefixes and sort the lines */
    char *lines[64];
    size_t n = 0;
    for (char *l = buf, *nl; l && *l && n < 64; l = nl ? nl + 1 : NULL) {
        nl = strchr(l, '\n');
        if (nl)
            *nl = 0;
        char *gt = strstr(l, "> ");
        lines[n++] = gt && strspn(l, "0123456789") == (size_t)(gt - l) ? gt + 2 : l;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
            char *t = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = t;
        }
    size_t cap = len + n + 1, off = 0;
    *out = malloc(cap);
    (*out)[0] = 0;
    for (size_t i = 0; i < n; i++)
        off += (size_t)snprintf(*out + off, cap - off, "%s\n", lines[i]);
    free(buf);
    return rc;
}

Test(udtf, registered_from_c_and_joined_in_sql)
{
    weir_error err = {0};
    weir_type bigint = weir_type_make(WEIR_TYPE_BIGINT, true);
    weir_type cols[2] = {bigint, bigint};
    weir_udtf f = range_def("range_sql", &bigint, cols);
    cr_assert_eq(weir_expr_register_udtf(&f, &err), 0, "%s", err.message);
    static const char *par[] = {"1", "2", "4"};
    for (int p = 0; p < 3; p++) {
        const char *sql = "SELECT v.k, r.i, r.sq FROM (VALUES ('a', 3), ('b', 0), ('c', CAST(NULL AS INT))) AS v(k, n),\n"
                          "  LATERAL TABLE(range_sql(v.n)) AS r(i, sq)\n"
                          "UNION ALL\n"
                          "SELECT v.k, r.i, r.sq FROM (VALUES ('d', 1), ('e', 0)) AS v(k, n)\n"
                          "  LEFT JOIN LATERAL TABLE(range_sql(v.n)) AS r ON TRUE;\n";
        char *rows = NULL;
        int rc = run_sql(sql, par[p], &rows, &err);
        cr_assert_eq(rc, 0, "parallelism %s: %s", par[p], err.message);
        cr_assert_str_eq(rows, "+I[a, 0, 0]\n+I[a, 1, 1]\n+I[a, 2, null]\n+I[d, 0, 0]\n+I[e, null, null]\n",
                         "parallelism %s", par[p]);
        free(rows);
    }
    /* the function's error fails the job with its message and the call's place */
    char *rows = NULL;
    int rc = run_sql("SELECT r.i FROM (VALUES (1), (13)) AS v(n),\n  LATERAL TABLE(range_sql(v.n)) AS r;\n", "1", &rows,
                     &err);
    free(rows);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err.message, "table function range_sql at line 2, column 17 failed: 13 brings bad luck"), "%s",
              err.message);
    cr_assert_eq(weir_expr_unregister_udtf("range_sql"), 0);
}
