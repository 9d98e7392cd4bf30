/*
 * tests/expr_support.h - helpers for the expression tests: build calls by
 * name with variadic arguments and evaluate literal-only expressions to
 * their text, so that a test reads like the SQL it checks.
 */
#ifndef WEIR_TEST_EXPR_SUPPORT_H
#define WEIR_TEST_EXPR_SUPPORT_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr/expr_internal.h"
#include "weir/expr.h"

static weir_expr_arena *A;
static weir_expr_env *ENV;
static weir_error ERR;

static __attribute__((unused)) void setup_expr(void)
{
    A = weir_expr_arena_create();
    ENV = weir_expr_env_create();
    weir_error_clear(&ERR);
}

static __attribute__((unused)) void teardown_expr(void)
{
    weir_expr_env_destroy(ENV);
    weir_expr_arena_destroy(A);
}

static __attribute__((unused)) weir_expr *I(int32_t v) { return weir_expr_lit_int(A, v); }
static __attribute__((unused)) weir_expr *L(int64_t v) { return weir_expr_lit_bigint(A, v); }
static __attribute__((unused)) weir_expr *D(double v) { return weir_expr_lit_double(A, v); }
static __attribute__((unused)) weir_expr *B(bool v) { return weir_expr_lit_bool(A, v); }
static __attribute__((unused)) weir_expr *S(const char *s) { return weir_expr_lit_string(A, s, strlen(s)); }
static __attribute__((unused)) weir_expr *NUL(void) { return weir_expr_lit_null(A, weir_type_make(WEIR_TYPE_NULL, true)); }
static __attribute__((unused)) weir_expr *NULT(weir_type_id id) { return weir_expr_lit_null(A, weir_type_make(id, true)); }
static __attribute__((unused)) weir_expr *N(const char *text)
{
    weir_expr *e = NULL;
    int rc = weir_expr_lit_numeric(A, text, &e, &ERR);
    cr_assert_eq(rc, 0, "numeric literal %s: %s", text, ERR.message);
    return e;
}
static __attribute__((unused)) weir_expr *TS(const char *text)
{
    int64_t ms;
    cr_assert_eq(weir__parse_ts_text(text, strlen(text), &ms), 0, "bad timestamp %s", text);
    return weir_expr_lit_timestamp(A, ms, false);
}
static __attribute__((unused)) weir_expr *IVL(const char *text, const char *unit)
{
    weir_expr *e;
    cr_assert_eq(weir_expr_lit_interval_text(A, text, unit, NULL, &e, &ERR), 0, "%s", ERR.message);
    return e;
}

static int vcall(const char *name, weir_expr **out, va_list ap)
{
    weir_expr *args[16];
    uint32_t n = 0;
    weir_expr *e;
    while ((e = va_arg(ap, weir_expr *)) != NULL)
        args[n++] = e;
    return weir_expr_call(A, name, args, n, out, &ERR);
}

/* F("name", args..., NULL): builds a call; fails the test on a type error. */
static __attribute__((unused)) weir_expr *F(const char *name, ...)
{
    va_list ap;
    va_start(ap, name);
    weir_expr *out = NULL;
    int rc = vcall(name, &out, ap);
    va_end(ap);
    cr_assert_eq(rc, 0, "%s: %s", name, ERR.message);
    return out;
}

/* FE("name", args..., NULL): expects a build error; returns its message. */
static __attribute__((unused)) const char *FE(const char *name, ...)
{
    va_list ap;
    va_start(ap, name);
    weir_expr *out = NULL;
    weir_error_clear(&ERR);
    int rc = vcall(name, &out, ap);
    va_end(ap);
    cr_assert_neq(rc, 0, "%s should not type-check", name);
    return ERR.message;
}

static __attribute__((unused)) weir_expr *CAST(weir_expr *e, weir_type t)
{
    weir_expr *out = NULL;
    cr_assert_eq(weir_expr_cast(A, e, t, false, &out, &ERR), 0, "%s", ERR.message);
    return out;
}
static __attribute__((unused)) weir_expr *TRYCAST(weir_expr *e, weir_type t)
{
    weir_expr *out = NULL;
    cr_assert_eq(weir_expr_cast(A, e, t, true, &out, &ERR), 0, "%s", ERR.message);
    return out;
}
static __attribute__((unused)) weir_type T(weir_type_id id) { return weir_type_make(id, true); }
static __attribute__((unused)) weir_type DEC(int p, int s) { return weir_type_decimal((uint8_t)p, (uint8_t)s, true); }

/* Formats a value as the tests expect to read it. */
static __attribute__((unused)) const char *fmt_value(const weir_value *v, uint8_t iv, char *buf, size_t cap)
{
    if (v->is_null || v->type.id == WEIR_TYPE_NULL)
        return "NULL";
    switch (v->type.id) {
    case WEIR_TYPE_BOOLEAN: return v->v.b ? "TRUE" : "FALSE";
    case WEIR_TYPE_INT: snprintf(buf, cap, "%d", v->v.i32); return buf;
    case WEIR_TYPE_DOUBLE: weir__fmt_double(v->v.f64, buf); return buf;
    case WEIR_TYPE_DECIMAL:
        if (weir_type_is_wide(v->type))
            weir__dec_format(WEIR__I128_GET(v->v.i128), v->type.scale, buf);
        else
            weir__fmt_decimal(v->v.i64, v->type.scale, buf);
        return buf;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES: snprintf(buf, cap, "%.*s", (int)v->v.s.len, v->v.s.ptr); return buf;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: weir__fmt_ts(v->v.i64, buf); return buf;
    default:
        snprintf(buf, cap, "%lld%s", (long long)v->v.i64, iv == 1 ? "ms" : iv == 2 ? "mo" : "");
        return buf;
    }
}

/* Evaluates an expression without input; returns its text (static buffer). */
static __attribute__((unused)) const char *EV(weir_expr *e)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    weir_value v;
    int rc = weir_expr_eval_row(e, NULL, 0, ENV, &v, &ERR);
    cr_assert_eq(rc, 0, "eval: %s", ERR.message);
    const char *s = fmt_value(&v, e->iv, buf[k], sizeof buf[k]);
    if (s != buf[k]) {
        snprintf(buf[k], sizeof buf[k], "%s", s);
    }
    return buf[k];
}

/* Evaluation that must fail at run time; returns the message. */
static __attribute__((unused)) const char *EVE(weir_expr *e)
{
    weir_value v;
    weir_error_clear(&ERR);
    int rc = weir_expr_eval_row(e, NULL, 0, ENV, &v, &ERR);
    cr_assert_neq(rc, 0, "evaluation should fail");
    return ERR.message;
}

static __attribute__((unused)) const char *TYPE(weir_expr *e)
{
    static char buf[64];
    weir_type t = weir_expr_type(e);
    weir_expr_type_name(t, weir_expr_interval(e), buf, sizeof buf);
    if (!t.nullable)
        strcat(buf, " NOT NULL");
    return buf;
}

#endif
