/*
 * tests/test_expr.c - the expression engine: typing, operators, three-valued
 * logic, casts, constant folding, vectorized evaluation over batches.
 * (The function library is tested in test_expr_funcs.c.)
 */
#include <stdlib.h>

#include "expr_support.h"
#include "weir/batch.h"

TestSuite(expr, .init = setup_expr, .fini = teardown_expr);

/* ---- arithmetic and its types ---- */

Test(expr, integer_arithmetic)
{
    cr_assert_str_eq(EV(F("+", I(2), I(3), NULL)), "5");
    cr_assert_str_eq(EV(F("-", I(2), I(3), NULL)), "-1");
    cr_assert_str_eq(EV(F("*", I(-4), I(3), NULL)), "-12");
    cr_assert_str_eq(EV(F("/", I(7), I(2), NULL)), "3");
    cr_assert_str_eq(EV(F("/", I(-7), I(2), NULL)), "-3");
    cr_assert_str_eq(EV(F("%", I(-7), I(2), NULL)), "-1");
    cr_assert_str_eq(EV(F("MOD", I(7), I(-2), NULL)), "1");
    cr_assert_str_eq(TYPE(F("+", I(1), I(2), NULL)), "INT NOT NULL");
    cr_assert_str_eq(TYPE(F("+", I(1), L(2), NULL)), "BIGINT NOT NULL");
    cr_assert_str_eq(TYPE(F("/", L(1), I(2), NULL)), "BIGINT NOT NULL");
    /* Java wrap-around on overflow. */
    cr_assert_str_eq(EV(F("+", I(2147483647), I(1), NULL)), "-2147483648");
    cr_assert_str_eq(EV(F("*", L(INT64_MAX), L(2), NULL)), "-2");
    cr_assert_str_eq(EV(F("/", I(INT32_MIN), I(-1), NULL)), "-2147483648");
    cr_assert_str_eq(EV(F("-", I(5), NULL)), "-5");
    cr_assert_str_eq(EV(F("-", N("1.50"), NULL)), "-1.50");
}

Test(expr, division_by_zero_fails_at_run_time)
{
    weir_expr *e = F("/", I(1), I(0), NULL); /* not folded: the error is a row's */
    cr_assert_not(weir_expr_is_literal(e));
    cr_assert_str_eq(EVE(e), "division by zero (row 0)");
    cr_assert_str_eq(EVE(F("%", L(1), L(0), NULL)), "division by zero (row 0)");
    cr_assert_str_eq(EVE(F("/", N("1.5"), N("0.0"), NULL)), "division by zero (row 0)");
    cr_assert_str_eq(EV(F("/", D(1), D(0), NULL)), "Infinity");
    cr_assert_str_eq(EV(F("/", D(0), D(0), NULL)), "NaN");
}

Test(expr, decimal_types_follow_flink)
{
    cr_assert_str_eq(TYPE(N("0.908")), "DECIMAL(3, 3) NOT NULL");
    cr_assert_str_eq(TYPE(N("12.50")), "DECIMAL(4, 2) NOT NULL");
    /* 0.908 * price (BIGINT) is DECIMAL: (3,3) * (19,0) -> (23,3), as in Flink. */
    weir_expr *price = NULL;
    cr_assert_eq(weir_expr_column(A, 0, weir_type_make(WEIR_TYPE_BIGINT, false), &price, &ERR), 0);
    cr_assert_str_eq(TYPE(F("*", N("0.908"), price, NULL)), "DECIMAL(23, 3)");
    /* Past 38 digits the integral digits stay and the scale shrinks, not below min(s, 6). */
    cr_assert_str_eq(TYPE(F("/", CAST(price, DEC(38, 2)), I(3), NULL)), "DECIMAL(38, 6)");
    cr_assert_str_eq(TYPE(F("*", CAST(price, DEC(38, 10)), CAST(price, DEC(38, 10)), NULL)), "DECIMAL(38, 6)");
    cr_assert_str_eq(TYPE(F("+", N("1.5"), N("2.25"), NULL)), "DECIMAL(4, 2)");
    cr_assert_str_eq(TYPE(F("*", N("1.5"), N("2.25"), NULL)), "DECIMAL(6, 3)");
    cr_assert_str_eq(TYPE(F("/", N("1.5"), N("2.25"), NULL)), "DECIMAL(9, 6)");
    cr_assert_str_eq(TYPE(F("%", N("7.5"), I(2), NULL)), "DECIMAL(2, 1)");
    cr_assert_str_eq(TYPE(F("+", N("1.5"), D(1), NULL)), "DOUBLE NOT NULL");
    cr_assert_str_eq(EV(F("*", N("0.908"), L(1000), NULL)), "908.000");
    cr_assert_str_eq(EV(F("+", N("1.5"), N("2.25"), NULL)), "3.75");
    cr_assert_str_eq(EV(F("-", N("1.5"), N("2.25"), NULL)), "-0.75");
    cr_assert_str_eq(EV(F("*", N("1.5"), N("-2.25"), NULL)), "-3.375");
    cr_assert_str_eq(EV(F("/", N("1.0"), N("3.0"), NULL)), "0.333333");
    cr_assert_str_eq(EV(F("/", N("2.0"), N("3.0"), NULL)), "0.666667");
    cr_assert_str_eq(EV(F("/", N("-2.0"), N("3.0"), NULL)), "-0.666667");
    cr_assert_str_eq(EV(F("%", N("7.5"), I(2), NULL)), "1.5");
    cr_assert_str_eq(EV(F("+", N("0.1"), D(0.2), NULL)), "0.30000000000000004");
    /* Exact past 18 digits (128-bit values, 256-bit products). */
    cr_assert_str_eq(EV(F("*", N("99999999999999999.9"), N("99999999999999999.9"), NULL)),
                     "9999999999999999980000000000000000.01");
    cr_assert_str_eq(EV(F("/", N("12345678901234567890.12"), I(3), NULL)), "4115226300411522630.0400000000000"); /* DECIMAL(33, 13) */
    cr_assert_str_eq(EV(F("-", N("0.000000000000000000000000000000000001"), N("1"), NULL)),
                     "-1.000000000000000000000000000"); /* DECIMAL(38, 27): INT is DECIMAL(10, 0) */
    cr_assert_str_eq(TYPE(N("123456789012345678901234567890")), "DECIMAL(30, 0) NOT NULL");
    /* A result beyond 38 digits is NULL, as Flink's DECIMAL overflow. */
    cr_assert_str_eq(EV(F("*", N("9999999999999999999999999999999999999.9"), N("9999999999999999999999999999999999999.9"),
                          NULL)),
                     "NULL");
}

Test(expr, arithmetic_type_errors)
{
    cr_assert_str_eq(FE("+", S("a"), I(1), NULL), "cannot apply '+' to STRING and INT");
    cr_assert_str_eq(FE("*", B(true), D(1), NULL), "cannot apply '*' to BOOLEAN and DOUBLE");
    cr_assert_str_eq(FE("-", S("x"), NULL), "cannot apply '-' to STRING");
    cr_assert_str_eq(FE("+", TS("2020-01-01 00:00:00"), I(1), NULL), "cannot apply '+' to TIMESTAMP(3) and INT");
}

Test(expr, nulls_propagate_through_arithmetic)
{
    cr_assert_str_eq(EV(F("+", I(1), NUL(), NULL)), "NULL");
    cr_assert_str_eq(TYPE(F("+", I(1), NULT(WEIR_TYPE_BIGINT), NULL)), "BIGINT");
    cr_assert_str_eq(EV(F("*", NULT(WEIR_TYPE_DOUBLE), D(2), NULL)), "NULL");
    /* NULL / 0 is NULL, not an error. */
    cr_assert_str_eq(EV(F("/", NULT(WEIR_TYPE_INT), I(0), NULL)), "NULL");
}

/* ---- comparisons ---- */

Test(expr, comparisons_on_every_type)
{
    cr_assert_str_eq(EV(F("<", I(1), I(2), NULL)), "TRUE");
    cr_assert_str_eq(EV(F(">=", L(1), I(2), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("=", I(2), D(2.0), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("=", N("1.50"), N("1.5"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("<", N("1.49"), I(2), NULL)), "TRUE");
    cr_assert_str_eq(EV(F(">", L(INT64_MAX), N("0.5"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("<>", S("abc"), S("abd"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("<", S("ab"), S("abc"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("<", S("b"), S("abc"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("<", S(""), S("a"), NULL)), "TRUE");
    /* Bytewise UTF-8 order. */
    cr_assert_str_eq(EV(F(">", S("\xc3\xa9"), S("z"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("<", B(false), B(true), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("=", TS("2020-01-01 00:00:00"), S("2020-01-01 00:00:00.000"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("<", TS("1969-12-31 23:59:59.999"), TS("1970-01-01 00:00:00"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("=", I(1), NUL(), NULL)), "NULL");
    cr_assert_str_eq(EV(F("!=", NULT(WEIR_TYPE_STRING), S("a"), NULL)), "NULL");
    cr_assert_str_eq(FE("=", S("1"), I(1), NULL), "cannot apply '=' to STRING and INT");
    cr_assert_str_eq(FE("<", TS("2020-01-01 00:00:00"), S("yesterday"), NULL),
                     "cannot convert 'yesterday' to TIMESTAMP(3)");
}

Test(expr, distinct_from)
{
    cr_assert_str_eq(EV(F("IS DISTINCT FROM", NULT(WEIR_TYPE_INT), NULT(WEIR_TYPE_INT), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("IS DISTINCT FROM", NULT(WEIR_TYPE_INT), I(1), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IS NOT DISTINCT FROM", I(1), L(1), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IS NOT DISTINCT FROM", N("1.0"), I(1), NULL)), "TRUE");
}

/* ---- three-valued logic ---- */

static weir_expr *tv(int v) { return v == 2 ? NULT(WEIR_TYPE_BOOLEAN) : B(v); }

Test(expr, three_valued_truth_tables)
{
    static const char *names[] = {"FALSE", "TRUE", "NULL"};
    /* AND/OR truth tables, rows and columns ordered FALSE, TRUE, NULL. */
    static const int and_t[3][3] = {{0, 0, 0}, {0, 1, 2}, {0, 2, 2}};
    static const int or_t[3][3] = {{0, 1, 2}, {1, 1, 1}, {2, 1, 2}};
    for (int x = 0; x < 3; x++) {
        for (int y = 0; y < 3; y++) {
            cr_assert_str_eq(EV(F("AND", tv(x), tv(y), NULL)), names[and_t[x][y]], "%s AND %s", names[x], names[y]);
            cr_assert_str_eq(EV(F("OR", tv(x), tv(y), NULL)), names[or_t[x][y]], "%s OR %s", names[x], names[y]);
        }
        static const int not_t[3] = {1, 0, 2};
        cr_assert_str_eq(EV(F("NOT", tv(x), NULL)), names[not_t[x]]);
        cr_assert_str_eq(EV(F("IS NULL", tv(x), NULL)), x == 2 ? "TRUE" : "FALSE");
        cr_assert_str_eq(EV(F("IS NOT NULL", tv(x), NULL)), x == 2 ? "FALSE" : "TRUE");
        cr_assert_str_eq(EV(F("IS TRUE", tv(x), NULL)), x == 1 ? "TRUE" : "FALSE");
        cr_assert_str_eq(EV(F("IS NOT TRUE", tv(x), NULL)), x == 1 ? "FALSE" : "TRUE");
        cr_assert_str_eq(EV(F("IS FALSE", tv(x), NULL)), x == 0 ? "TRUE" : "FALSE");
        cr_assert_str_eq(EV(F("IS NOT FALSE", tv(x), NULL)), x == 0 ? "FALSE" : "TRUE");
    }
    /* n-ary: FALSE wins over NULL in AND wherever it appears. */
    cr_assert_str_eq(EV(F("AND", tv(2), tv(1), tv(0), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("OR", tv(2), tv(0), tv(1), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("AND", NUL(), B(true), NULL)), "NULL");
    cr_assert_str_eq(FE("AND", B(true), I(1), NULL), "cannot apply 'AND' to BOOLEAN and INT");
}

Test(expr, between_in)
{
    cr_assert_str_eq(EV(F("BETWEEN", I(5), I(1), I(10), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("BETWEEN", I(0), I(1), I(10), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("NOT BETWEEN", I(0), I(1), I(10), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("BETWEEN", I(5), NUL(), I(1), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("BETWEEN", I(5), NUL(), I(10), NULL)), "NULL");
    cr_assert_str_eq(EV(F("IN", I(2), I(1), I(2), I(3), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IN", I(4), I(1), I(2), I(3), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("IN", I(4), I(1), NUL(), NULL)), "NULL");
    cr_assert_str_eq(EV(F("IN", I(1), I(1), NUL(), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("NOT IN", I(4), I(1), NUL(), NULL)), "NULL");
    cr_assert_str_eq(EV(F("NOT IN", S("b"), S("a"), S("c"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IN", N("1.5"), I(1), N("1.50"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IN", NULT(WEIR_TYPE_INT), I(1), NULL)), "NULL");
}

/* IN over exact numbers compares each value at its own scale, as = does:
 * no common type need hold a 38-digit integer and 1.5 at once. */
Test(expr, in_exact_numbers)
{
    const char *big = "12345678901234567890123456789012345678";
    cr_assert_str_eq(EV(F("IN", N(big), N("1.5"), N(big), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IN", N(big), N("1.5"), I(2), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("NOT IN", N(big), N("1.5"), NUL(), NULL)), "NULL");
    cr_assert_str_eq(EV(F("IN", I(2), N("2.0000"), N("1.5"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IN", L(9007199254740993LL), N("9007199254740992.0"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("IN", L(9007199254740993LL), N("9007199254740993.00"), NULL)), "TRUE");
    weir_expr *c, *d;
    cr_assert_eq(weir_expr_column(A, 0, weir_type_decimal(38, 0, true), &c, &ERR), 0);
    cr_assert_eq(weir_expr_column(A, 1, weir_type_decimal(12, 4, true), &d, &ERR), 0);
    char buf[256];
    /* literals that one DECIMAL holds: a set in it, the operand as it is */
    weir_expr_format(F("IN", c, N(big), I(-3), I(2), NULL), buf, sizeof buf);
    cr_assert_str_eq(buf, "(IN $0 -3 2 12345678901234567890123456789012345678)");
    weir_expr_format(F("NOT IN", d, I(2), N("1.5"), NULL), buf, sizeof buf);
    cr_assert_str_eq(buf, "(NOT (IN $1 1.5000 2.0000))");
    /* an operand of a smaller scale is scaled up to the set's, where it stays 64-bit */
    weir_expr *i;
    cr_assert_eq(weir_expr_column(A, 2, weir_type_make(WEIR_TYPE_INT, true), &i, &ERR), 0);
    weir_expr_format(F("IN", i, N("1.5"), I(2), NULL), buf, sizeof buf);
    cr_assert_str_eq(buf, "(IN (CAST DECIMAL(11, 1) $2) 1.5 2.0)");
    /* a 38-digit integer beside 1.5 fits no DECIMAL of 38 digits: compared one by one */
    weir_expr_format(F("IN", c, N(big), N("1.5"), NULL), buf, sizeof buf);
    cr_assert_str_eq(buf, "(OR (= $0 12345678901234567890123456789012345678) (= $0 1.5))");
    weir_expr_format(F("IN", c, d, N("1.5"), NULL), buf, sizeof buf);
    cr_assert_str_eq(buf, "(OR (= $0 $1) (= $0 1.5))");
}

Test(expr, conditional_functions)
{
    cr_assert_str_eq(EV(F("COALESCE", NUL(), NULT(WEIR_TYPE_INT), I(3), I(4), NULL)), "3");
    cr_assert_str_eq(TYPE(F("COALESCE", NULT(WEIR_TYPE_INT), L(3), NULL)), "BIGINT NOT NULL");
    cr_assert_str_eq(EV(F("COALESCE", NULT(WEIR_TYPE_INT), NUL(), NULL)), "NULL");
    cr_assert_str_eq(EV(F("IFNULL", NULT(WEIR_TYPE_STRING), S("x"), NULL)), "x");
    cr_assert_str_eq(EV(F("NULLIF", I(1), I(1), NULL)), "NULL");
    cr_assert_str_eq(EV(F("NULLIF", I(1), I(2), NULL)), "1");
    cr_assert_str_eq(EV(F("NULLIF", I(1), NUL(), NULL)), "1");
    cr_assert_str_eq(EV(F("IF", B(true), I(1), D(2), NULL)), "1.0");
    cr_assert_str_eq(EV(F("IF", NUL(), I(1), I(2), NULL)), "2");
    cr_assert_str_eq(EV(F("GREATEST", I(1), I(5), I(3), NULL)), "5");
    cr_assert_str_eq(EV(F("LEAST", S("b"), S("a"), S("c"), NULL)), "a");
    cr_assert_str_eq(EV(F("GREATEST", I(1), NUL(), NULL)), "NULL");
    cr_assert_str_eq(FE("COALESCE", I(1), S("a"), NULL), "cannot apply COALESCE to (INT, STRING); expected COALESCE(value, ...)");
}

Test(expr, case_expression)
{
    weir_expr *conds[2] = {F(">", I(1), I(2), NULL), F("=", I(1), I(1), NULL)};
    weir_expr *vals[2] = {S("a"), S("b")};
    weir_expr *e;
    cr_assert_eq(weir_expr_case(A, conds, vals, 2, S("c"), &e, &ERR), 0, "%s", ERR.message);
    cr_assert_str_eq(EV(e), "b");
    cr_assert_str_eq(TYPE(e), "STRING NOT NULL");
    cr_assert_eq(weir_expr_case(A, conds, vals, 1, NULL, &e, &ERR), 0);
    cr_assert_str_eq(EV(e), "NULL");
    cr_assert_str_eq(TYPE(e), "STRING");
    weir_expr *v2[2] = {I(1), N("2.5")};
    cr_assert_eq(weir_expr_case(A, conds, v2, 2, NULL, &e, &ERR), 0);
    cr_assert_str_eq(TYPE(e), "DECIMAL(11, 1)");
    cr_assert_str_eq(EV(e), "2.5");
    weir_expr *bad[1] = {I(1)};
    cr_assert_neq(weir_expr_case(A, bad, vals, 1, NULL, &e, &ERR), 0);
    cr_assert_str_eq(ERR.message, "CASE WHEN condition must be BOOLEAN, not INT");
    weir_expr *v3[1] = {I(1)};
    cr_assert_neq(weir_expr_case(A, conds, v3, 1, S("x"), &e, &ERR), 0);
    cr_assert_str_eq(ERR.message, "CASE branches have incompatible types INT and STRING");
}

/* ---- unknown functions ---- */

Test(expr, unknown_function_suggests_names)
{
    cr_assert_str_eq(FE("SUBSTR1NG", S("a"), I(1), NULL), "no function SUBSTR1NG(STRING, INT); did you mean SUBSTRING?");
    cr_assert_str_eq(FE("NOSUCHTHING", NULL), "no function NOSUCHTHING()");
    cr_assert_str_eq(FE("COALESC", I(1), NULL), "no function COALESC(INT); did you mean COALESCE?");
}

/* ---- casts ---- */

Test(expr, casts)
{
    cr_assert_str_eq(EV(CAST(S(" 42 "), T(WEIR_TYPE_INT))), "42");
    cr_assert_str_eq(EV(CAST(S("1.9"), T(WEIR_TYPE_INT))), "1");
    cr_assert_str_eq(EV(CAST(S("-9223372036854775808"), T(WEIR_TYPE_BIGINT))), "-9223372036854775808");
    cr_assert_str_eq(EVE(CAST(S("2147483648"), T(WEIR_TYPE_INT))), "cannot cast '2147483648' to INT (row 0)");
    cr_assert_str_eq(EVE(CAST(S("abc"), T(WEIR_TYPE_DOUBLE))), "cannot cast 'abc' to DOUBLE (row 0)");
    cr_assert_str_eq(EV(TRYCAST(S("abc"), T(WEIR_TYPE_INT))), "NULL");
    cr_assert_str_eq(EV(TRYCAST(S("12"), T(WEIR_TYPE_INT))), "12");
    cr_assert_str_eq(EV(CAST(S("1e3"), T(WEIR_TYPE_DOUBLE))), "1000.0");
    cr_assert_str_eq(EV(CAST(S(" yes"), T(WEIR_TYPE_BOOLEAN))), "TRUE");
    cr_assert_str_eq(EV(CAST(S("F"), T(WEIR_TYPE_BOOLEAN))), "FALSE");
    cr_assert_str_eq(EV(CAST(S("12.345"), DEC(5, 2))), "12.35");
    cr_assert_str_eq(EV(CAST(S("-12.345"), DEC(5, 2))), "-12.35");
    cr_assert_str_eq(EV(CAST(S("1234.5"), DEC(5, 2))), "NULL");
    cr_assert_str_eq(EV(CAST(S("1.5E2"), DEC(5, 1))), "150.0");
    cr_assert_str_eq(EV(CAST(D(1.005), DEC(5, 2))), "1.01"); /* via Double.toString, HALF_UP */
    cr_assert_str_eq(EV(CAST(N("2.5"), T(WEIR_TYPE_INT))), "2");
    cr_assert_str_eq(EV(CAST(N("-2.5"), T(WEIR_TYPE_BIGINT))), "-2");
    cr_assert_str_eq(EV(CAST(D(-2.7), T(WEIR_TYPE_INT))), "-2");
    cr_assert_str_eq(EV(CAST(D(1e300), T(WEIR_TYPE_INT))), "2147483647");
    cr_assert_str_eq(EV(CAST(L(4294967297LL), T(WEIR_TYPE_INT))), "1");
    cr_assert_str_eq(EV(CAST(I(7), DEC(4, 2))), "7.00");
    cr_assert_str_eq(EV(CAST(I(700), DEC(4, 2))), "NULL");
    cr_assert_str_eq(EV(CAST(N("1.25"), DEC(3, 1))), "1.3");
    cr_assert_str_eq(EV(CAST(N("-1.25"), DEC(3, 1))), "-1.3");
    cr_assert_str_eq(EV(CAST(I(3), T(WEIR_TYPE_BOOLEAN))), "TRUE");
    cr_assert_str_eq(EV(CAST(B(true), T(WEIR_TYPE_INT))), "1");
    cr_assert_str_eq(EV(CAST(B(true), T(WEIR_TYPE_STRING))), "TRUE");
    cr_assert_str_eq(EV(CAST(D(1.0), T(WEIR_TYPE_STRING))), "1.0");
    cr_assert_str_eq(EV(CAST(D(1e7), T(WEIR_TYPE_STRING))), "1.0E7");
    cr_assert_str_eq(EV(CAST(D(0.001), T(WEIR_TYPE_STRING))), "0.001");
    cr_assert_str_eq(EV(CAST(D(0.0001), T(WEIR_TYPE_STRING))), "1.0E-4");
    cr_assert_str_eq(EV(CAST(D(123456.789), T(WEIR_TYPE_STRING))), "123456.789");
    cr_assert_str_eq(EV(CAST(D(-1.5e-10), T(WEIR_TYPE_STRING))), "-1.5E-10");
    cr_assert_str_eq(EV(CAST(N("-0.05"), T(WEIR_TYPE_STRING))), "-0.05");
    cr_assert_str_eq(EV(CAST(S("2020-1-2 3:04:05.6"), T(WEIR_TYPE_TIMESTAMP))), "2020-01-02 03:04:05.600");
    cr_assert_str_eq(EV(CAST(S("1969-12-31"), T(WEIR_TYPE_TIMESTAMP))), "1969-12-31 00:00:00.000");
    cr_assert_str_eq(EVE(CAST(S("2020-13-01"), T(WEIR_TYPE_TIMESTAMP))), "cannot cast '2020-13-01' to TIMESTAMP(3) (row 0)");
    cr_assert_str_eq(EV(CAST(TS("1969-12-31 23:59:59.999"), T(WEIR_TYPE_STRING))), "1969-12-31 23:59:59.999");
    cr_assert_str_eq(EV(CAST(L(-1), T(WEIR_TYPE_TIMESTAMP_LTZ))), "1969-12-31 23:59:59.000");
    cr_assert_str_eq(EV(CAST(CAST(L(1500), T(WEIR_TYPE_TIMESTAMP_LTZ)), T(WEIR_TYPE_BIGINT))), "1500");
    weir_expr *e;
    cr_assert_neq(weir_expr_cast(A, I(1), T(WEIR_TYPE_TIMESTAMP), false, &e, &ERR), 0);
    cr_assert_str_eq(ERR.message, "cannot cast INT to TIMESTAMP(3); use TO_TIMESTAMP_LTZ(number, precision)");
    cr_assert_neq(weir_expr_cast(A, TS("2020-01-01 00:00:00"), T(WEIR_TYPE_BIGINT), false, &e, &ERR), 0);
    cr_assert_str_eq(ERR.message, "cannot cast TIMESTAMP(3) to BIGINT");
    cr_assert_str_eq(EV(CAST(S(" -12345678901234567890123456789012.345 "), DEC(38, 2))),
                     "-12345678901234567890123456789012.35");
    cr_assert_str_eq(EV(CAST(CAST(S("123456789012345678901.5"), DEC(22, 1)), T(WEIR_TYPE_BIGINT))),
                     "-5670419503621182411"); /* the low 64 bits, as BigDecimal.longValue */
    cr_assert_neq(weir_expr_cast(A, I(1), DEC(39, 2), false, &e, &ERR), 0);
    cr_assert_str_eq(ERR.message, "DECIMAL(39, 2) is not supported: DECIMAL has a precision of 1 to 38");
}

/* ---- constant folding ---- */

Test(expr, constant_folding)
{
    weir_expr *e = F("+", F("*", I(2), I(3), NULL), I(4), NULL);
    cr_assert(weir_expr_is_literal(e));
    weir_value v;
    cr_assert_eq(weir_expr_literal_value(e, &v), 0);
    cr_assert_eq(v.v.i32, 10);
    weir_expr *c;
    cr_assert_eq(weir_expr_column(A, 0, weir_type_make(WEIR_TYPE_INT, true), &c, &ERR), 0);
    e = F("+", c, F("*", I(2), I(3), NULL), NULL);
    char buf[128];
    weir_expr_format(e, buf, sizeof buf);
    cr_assert_str_eq(buf, "(+ $0 6)");
    e = F("UPPER", F("||", S("ab"), S("c"), NULL), NULL);
    cr_assert(weir_expr_is_literal(e));
    cr_assert_str_eq(EV(e), "ABC");
}

/* An IN keeps its literal list beside its arguments: the readable form and
 * the digest (sub-plan reuse compares calcs by it) must both show it, or
 * two filters with different lists look equal. */
Test(expr, in_list_format_and_digest)
{
    weir_expr *c;
    cr_assert_eq(weir_expr_column(A, 2, weir_type_make(WEIR_TYPE_INT, true), &c, &ERR), 0);
    weir_expr *a = F("IN", c, I(14), I(13), I(14), NULL);
    weir_expr *b = F("IN", c, I(0), NULL);
    weir_expr *n = F("IN", c, I(1), NULT(WEIR_TYPE_INT), NULL);
    char fa[128], fb[128], fn[128], da[128], db[128];
    weir_expr_format(a, fa, sizeof fa);
    weir_expr_format(b, fb, sizeof fb);
    weir_expr_format(n, fn, sizeof fn);
    cr_assert_str_eq(fa, "(IN $2 13 14)");
    cr_assert_str_eq(fb, "(IN $2 0)");
    cr_assert_str_eq(fn, "(IN $2 1 NULL)");
    weir_expr_digest(a, da, sizeof da);
    weir_expr_digest(b, db, sizeof db);
    cr_assert_str_neq(da, db);
    weir_expr *s;
    cr_assert_eq(weir_expr_column(A, 0, weir_type_make(WEIR_TYPE_STRING, true), &s, &ERR), 0);
    weir_expr_format(F("IN", s, S("x"), S("ab"), NULL), fa, sizeof fa);
    cr_assert_str_eq(fa, "(IN $0 'ab' 'x')");
}

/* ---- batches ---- */

typedef struct tb {
    weir_schema *s;
    weir_batch *b;
} tb;

static tb make_input(uint32_t n)
{
    tb t;
    t.s = weir_schema_create();
    weir_schema_add(t.s, "price", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(t.s, "channel", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(t.s, "qty", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(t.s, "rate", weir_type_make(WEIR_TYPE_DOUBLE, true));
    weir_schema_add(t.s, "amount", weir_type_decimal(10, 2, true));
    weir_schema_add(t.s, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, true));
    weir_schema_add(t.s, "ok", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    t.b = weir_batch_create(t.s, n);
    return t;
}

static void free_tb(tb *t)
{
    weir_batch_destroy(t->b);
    weir_schema_destroy(t->s);
}

static weir_expr *COL(const weir_schema *s, const char *name)
{
    weir_expr *e;
    cr_assert_eq(weir_expr_column_named(A, s, name, &e, &ERR), 0, "%s", ERR.message);
    return e;
}

Test(expr, filter_and_project_over_a_batch)
{
    tb t = make_input(8);
    const char *chans[] = {"x", "y", "x", NULL, "x", "xx"};
    const int64_t prices[] = {50, 150, 150, 200, 0, 500};
    for (int i = 0; i < 6; i++) {
        int r = weir_batch_append_row(t.b);
        WEIR_COL_I64(t.b, 0)[r] = prices[i];
        if (chans[i])
            weir_batch_set_str(t.b, 1, r, chans[i], strlen(chans[i]));
        else
            weir_batch_set_null(t.b, 1, r);
        WEIR_COL_I32(t.b, 2)[r] = i;
    }
    weir_batch_set_null(t.b, 0, 4);
    weir_expr *pred = F("AND", F(">", COL(t.s, "price"), I(100), NULL), F("=", COL(t.s, "channel"), S("x"), NULL), NULL);
    uint8_t sel[8];
    cr_assert_eq(weir_expr_filter(pred, t.b, ENV, sel, &ERR), 0, "%s", ERR.message);
    const uint8_t want[] = {0, 0, 1, 0, 0, 0};
    cr_assert_arr_eq(sel, want, 6);

    /* Projection: price * 2, UPPER(channel) || '!' with strings copied into the output heap. */
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "p2", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(os, "c", weir_type_make(WEIR_TYPE_STRING, true));
    weir_batch *ob = weir_batch_create(os, 8);
    weir_expr *ex[2] = {F("*", COL(t.s, "price"), I(2), NULL), F("||", F("UPPER", COL(t.s, "channel"), NULL), S("!"), NULL)};
    cr_assert_eq(weir_expr_project(ex, 2, t.b, ENV, ob, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(ob->n_rows, 6);
    char buf[64];
    const char *wantp[] = {"100", "300", "300", "400", "NULL", "1000"};
    const char *wantc[] = {"X!", "Y!", "X!", "NULL", "X!", "XX!"};
    for (uint32_t i = 0; i < 6; i++) {
        weir_batch_format_value(ob, 0, i, buf, sizeof buf);
        cr_assert_str_eq(buf, wantp[i]);
        weir_batch_format_value(ob, 1, i, buf, sizeof buf);
        cr_assert_str_eq(buf, wantc[i]);
    }
    /* Evaluating into a column of the input batch itself. */
    cr_assert_eq(weir_expr_eval(F("||", COL(t.s, "channel"), COL(t.s, "channel"), NULL), t.b, ENV, t.b, 1, &ERR), 0,
                 "%s", ERR.message);
    weir_batch_format_value(t.b, 1, 5, buf, sizeof buf);
    cr_assert_str_eq(buf, "xxxx");
    weir_batch_format_value(t.b, 1, 3, buf, sizeof buf);
    cr_assert_str_eq(buf, "NULL");
    /* Type mismatch with the output column. */
    cr_assert_neq(weir_expr_eval(COL(t.s, "channel"), t.b, ENV, ob, 0, &ERR), 0);
    cr_assert_str_eq(ERR.message, "expression of type STRING cannot be stored in a BIGINT column");
    weir_batch_destroy(ob);
    weir_schema_destroy(os);
    free_tb(&t);
}

Test(expr, case_guards_division_per_row)
{
    tb t = make_input(4);
    for (int i = 0; i < 3; i++) {
        int r = weir_batch_append_row(t.b);
        WEIR_COL_I32(t.b, 2)[r] = i; /* qty: 0, 1, 2 */
    }
    weir_expr *q = COL(t.s, "qty");
    weir_expr *cond = F("<>", q, I(0), NULL);
    weir_expr *val = F("/", I(10), q, NULL);
    weir_expr *e;
    cr_assert_eq(weir_expr_case(A, &cond, &val, 1, I(-1), &e, &ERR), 0);
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", weir_type_make(WEIR_TYPE_INT, true));
    weir_batch *ob = weir_batch_create(os, 4);
    cr_assert_eq(weir_expr_eval(e, t.b, ENV, ob, 0, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(WEIR_COL_I32(ob, 0)[0], -1);
    cr_assert_eq(WEIR_COL_I32(ob, 0)[1], 10);
    cr_assert_eq(WEIR_COL_I32(ob, 0)[2], 5);
    /* AND short-circuits the same way; without a guard the row fails. */
    uint8_t sel[4];
    weir_expr *p = F("AND", cond, F(">", val, I(4), NULL), NULL);
    cr_assert_eq(weir_expr_filter(p, t.b, ENV, sel, &ERR), 0, "%s", ERR.message);
    cr_assert_eq(sel[0] + sel[1] * 2 + sel[2] * 4, 6);
    cr_assert_neq(weir_expr_filter(F(">", val, I(4), NULL), t.b, ENV, sel, &ERR), 0);
    cr_assert_str_eq(ERR.message, "division by zero (row 0)");
    weir_batch_destroy(ob);
    weir_schema_destroy(os);
    free_tb(&t);
}

Test(expr, steady_state_evaluation_does_not_allocate)
{
    tb t = make_input(64);
    for (int i = 0; i < 64; i++) {
        int r = weir_batch_append_row(t.b);
        WEIR_COL_I64(t.b, 0)[r] = i * 7;
        weir_batch_set_str(t.b, 1, r, i % 3 ? "x" : "some channel", i % 3 ? 1 : 12);
        WEIR_COL_I32(t.b, 2)[r] = i % 5;
        if (i % 4 == 0)
            weir_batch_set_null(t.b, 0, r);
    }
    weir_expr *conds = F(">", COL(t.s, "qty"), I(2), NULL);
    weir_expr *vals = F("UPPER", COL(t.s, "channel"), NULL), *e;
    cr_assert_eq(weir_expr_case(A, &conds, &vals, 1, F("SUBSTRING", COL(t.s, "channel"), I(2), NULL), &e, &ERR), 0);
    weir_expr *p = F("AND", F(">", COL(t.s, "price"), I(100), NULL), F("LIKE", COL(t.s, "channel"), S("%chan%"), NULL), NULL);
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", weir_type_make(WEIR_TYPE_STRING, true));
    weir_batch *ob = weir_batch_create(os, 64);
    uint8_t sel[64];
    for (int round = 0; round < 3; round++) {
        if (round == 2)
            weir_alloc_fail_after(1); /* any allocation from here on fails */
        weir_batch_reset(ob);
        int rc1 = weir_expr_eval(e, t.b, ENV, ob, 0, &ERR);
        int rc2 = weir_expr_filter(p, t.b, ENV, sel, &ERR);
        weir_alloc_fail_after(0);
        cr_assert_eq(rc1, 0, "round %d: %s", round, ERR.message);
        cr_assert_eq(rc2, 0, "round %d: %s", round, ERR.message);
    }
    weir_batch_destroy(ob);
    weir_schema_destroy(os);
    free_tb(&t);
}

static weir_expr *column(uint32_t i)
{
    weir_expr *e = NULL;
    cr_assert_eq(weir_expr_column(A, i, T(WEIR_TYPE_BIGINT), &e, &ERR), 0, "%s", ERR.message);
    return e;
}

/* The columns an expression reads, through every kind of node (a join
 * decodes only those of its candidates). */
Test(expr, columns_read)
{
    weir_expr *e = F("AND", F(">", column(2), column(5), NULL),
                     F("=", F("COALESCE", column(7), L(1), NULL), F("IF", F(">", column(2), L(0), NULL), column(0), L(3), NULL),
                       NULL),
                     NULL);
    bool reads[9] = {false};
    reads[8] = true; /* left as it is */
    cr_assert(weir_expr_columns(e, reads, 9));
    const bool want[9] = {true, false, true, false, false, true, false, true, true};
    for (int c = 0; c < 9; c++)
        cr_assert_eq(reads[c], want[c], "column %d", c);
    /* a column past the ones given: false, the others still marked */
    bool few[6] = {false};
    cr_assert_not(weir_expr_columns(e, few, 6));
    cr_assert(few[0] && few[2] && few[5] && !few[1]);
    bool none[1] = {false};
    cr_assert(weir_expr_columns(L(1), none, 1));
    cr_assert_not(none[0]);
}
