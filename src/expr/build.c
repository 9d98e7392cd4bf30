/*
 * expr/build.c - constructing bound expression trees: leaves, calls by name
 * (with "did you mean" suggestions), casts, CASE, constant folding and
 * formatting.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "time/timefmt.h"
#include "util/cnum.h"

static int nomem(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory building an expression"); }

/* ---- leaves ---- */

int weir_expr_column(weir_expr_arena *a, uint32_t index, weir_type type, weir_expr **out, weir_error *err)
{
    if (!a || !out || type.id == WEIR_TYPE_NULL)
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_column: invalid argument");
    /* an INTERVAL column: a BIGINT with the kind in its precision (weir/schema.h) */
    int iv = weir_type_interval(type);
    type.precision = type.id == WEIR_TYPE_BIGINT ? 0 : type.precision;
    weir_expr *e = weir__node(a, N_COLUMN, type, 0);
    if (!e)
        return nomem(err);
    e->col = (int32_t)index;
    e->iv = (uint8_t)iv;
    *out = e;
    return 0;
}

int weir_expr_column_named(weir_expr_arena *a, const weir_schema *s, const char *name, weir_expr **out,
                           weir_error *err)
{
    int i = weir_schema_find(s, name);
    if (i < 0)
        return weir_error_set(err, WEIR_ENOTFOUND, "no column %s", name);
    return weir_expr_column(a, (uint32_t)i, s->fields[i].type, out, err);
}

static weir_expr *lit(weir_expr_arena *a, weir_type t)
{
    weir_expr *e = weir__node(a, N_LITERAL, t, 0);
    if (e)
        e->lit.type = t;
    return e;
}

weir_expr *weir_expr_lit_null(weir_expr_arena *a, weir_type type)
{
    type.nullable = true;
    weir_expr *e = lit(a, type);
    if (e)
        e->lit.is_null = true;
    return e;
}

weir_expr *weir_expr_lit_bool(weir_expr_arena *a, bool v)
{
    weir_expr *e = lit(a, tmake(WEIR_TYPE_BOOLEAN, false));
    if (e)
        e->lit.v.b = v;
    return e;
}

weir_expr *weir_expr_lit_int(weir_expr_arena *a, int32_t v)
{
    weir_expr *e = lit(a, tmake(WEIR_TYPE_INT, false));
    if (e)
        e->lit.v.i32 = v;
    return e;
}

weir_expr *weir_expr_lit_bigint(weir_expr_arena *a, int64_t v)
{
    weir_expr *e = lit(a, tmake(WEIR_TYPE_BIGINT, false));
    if (e)
        e->lit.v.i64 = v;
    return e;
}

weir_expr *weir_expr_lit_double(weir_expr_arena *a, double v)
{
    weir_expr *e = lit(a, tmake(WEIR_TYPE_DOUBLE, false));
    if (e)
        e->lit.v.f64 = v;
    return e;
}

weir_expr *weir_expr_lit_decimal(weir_expr_arena *a, int64_t unscaled, uint8_t precision, uint8_t scale)
{
    return weir_expr_lit_decimal128(a, unscaled, precision, scale);
}

weir_expr *weir_expr_lit_decimal128(weir_expr_arena *a, __int128 unscaled, uint8_t precision, uint8_t scale)
{
    if (precision < 1 || precision > WEIR_DEC_MAX_PRECISION || scale > precision ||
        !weir__dec_fits(unscaled, precision))
        return NULL;
    weir_type t = weir_type_decimal(precision, scale, false);
    weir_expr *e = lit(a, t);
    if (e && weir_type_is_wide(t))
        WEIR__I128_SET(e->lit.v.i128, unscaled);
    else if (e)
        e->lit.v.i64 = (int64_t)unscaled;
    return e;
}

static weir_expr *lit_str(weir_expr_arena *a, weir_type_id id, const char *s, size_t len)
{
    weir_expr *e = lit(a, tmake(id, false));
    if (!e)
        return NULL;
    char *p = weir__arena_strdup(a, s ? s : "", s ? len : 0);
    if (!p)
        return NULL;
    e->lit.v.s = (xstr){p, (uint32_t)len};
    return e;
}

weir_expr *weir_expr_lit_string(weir_expr_arena *a, const char *s, size_t len)
{
    return lit_str(a, WEIR_TYPE_STRING, s, len);
}

weir_expr *weir_expr_lit_bytes(weir_expr_arena *a, const void *p, size_t len)
{
    return lit_str(a, WEIR_TYPE_BYTES, p, len);
}

weir_expr *weir_expr_lit_timestamp(weir_expr_arena *a, int64_t ms, bool ltz)
{
    weir_expr *e = lit(a, tmake(ltz ? WEIR_TYPE_TIMESTAMP_LTZ : WEIR_TYPE_TIMESTAMP, false));
    if (e)
        e->lit.v.i64 = ms;
    return e;
}

weir_expr *weir_expr_lit_date(weir_expr_arena *a, int32_t days)
{
    weir_expr *e = lit(a, tmake(WEIR_TYPE_DATE, false));
    if (e)
        e->lit.v.i32 = days;
    return e;
}

weir_expr *weir_expr_lit_time(weir_expr_arena *a, int32_t ms, uint8_t precision)
{
    weir_type t = tmake(WEIR_TYPE_TIME, false);
    t.precision = precision > 3 ? 3 : precision;
    weir_expr *e = lit(a, t);
    if (e)
        e->lit.v.i32 = ms;
    return e;
}

weir_expr *weir_expr_lit_interval(weir_expr_arena *a, int64_t v, weir_interval_kind kind)
{
    weir_expr *e = lit(a, tmake(WEIR_TYPE_BIGINT, false));
    if (e) {
        e->lit.v.i64 = v;
        e->iv = (uint8_t)kind;
    }
    return e;
}

int weir_expr_lit_numeric(weir_expr_arena *a, const char *text, weir_expr **out, weir_error *err)
{
    const char *s = text;
    size_t len = strlen(s);
    bool has_dot = false, has_exp = false;
    int digits = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '.')
            has_dot = true;
        else if (c == 'e' || c == 'E')
            has_exp = true;
        else if (isdigit((unsigned char)c) && !has_exp)
            digits++;
    }
    if (len == 0 || digits == 0)
        return weir_error_set(err, WEIR_EPARSE, "malformed numeric literal '%s'", text);
    if (has_exp) {
        char *end;
        errno = 0;
        double d = weir__strtod_c(s, &end);
        if (*end)
            return weir_error_set(err, WEIR_EPARSE, "malformed numeric literal '%s'", text);
        *out = weir_expr_lit_double(a, d);
        return *out ? 0 : nomem(err);
    }
    if (!has_dot) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (*end)
            return weir_error_set(err, WEIR_EPARSE, "malformed numeric literal '%s'", text);
        if (errno != ERANGE) {
            *out = (v >= INT32_MIN && v <= INT32_MAX) ? weir_expr_lit_int(a, (int32_t)v)
                                                      : weir_expr_lit_bigint(a, v);
            return *out ? 0 : nomem(err);
        }
        /* Past BIGINT: DECIMAL(p, 0), as Flink types it. */
    }
    /* DECIMAL(p, s): p counts the digits without leading zeros of the integral part. */
    int scale = 0, p = 0;
    bool after = false, lead = true, neg = false;
    __int128 v = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (i == 0 && (c == '-' || c == '+')) {
            neg = c == '-';
            continue;
        }
        if (c == '.') {
            after = true;
            continue;
        }
        if (!isdigit((unsigned char)c))
            return weir_error_set(err, WEIR_EPARSE, "malformed numeric literal '%s'", text);
        if (after)
            scale++;
        if (c != '0' || !lead || after) {
            lead = false;
            p++;
        }
        if (p > WEIR_DEC_MAX_PRECISION || scale > WEIR_DEC_MAX_PRECISION)
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "numeric literal '%s' has more than 38 digits (DECIMAL's precision limit)", text);
        v = v * 10 + (c - '0');
    }
    if (p < scale)
        p = scale;
    if (p == 0)
        p = 1;
    *out = weir_expr_lit_decimal128(a, neg ? -v : v, (uint8_t)p, (uint8_t)scale);
    return *out ? 0 : nomem(err);
}

static int unit_ms(const char *u, int64_t *ms, bool *months)
{
    static const struct {
        const char *name;
        int64_t ms;
        bool months;
    } units[] = {{"YEAR", 12, true},      {"YEARS", 12, true},     {"MONTH", 1, true},
                 {"MONTHS", 1, true},     {"DAY", 86400000, false}, {"DAYS", 86400000, false},
                 {"HOUR", 3600000, false}, {"HOURS", 3600000, false}, {"MINUTE", 60000, false},
                 {"MINUTES", 60000, false}, {"SECOND", 1000, false}, {"SECONDS", 1000, false},
                 {"MILLISECOND", 1, false}, {"MILLISECONDS", 1, false}, {"WEEK", 7 * 86400000LL, false},
                 {"WEEKS", 7 * 86400000LL, false}, {"QUARTER", 3, true}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(u, units[i].name)) {
            *ms = units[i].ms;
            *months = units[i].months;
            return 0;
        }
    return -1;
}

int weir_expr_lit_interval_text(weir_expr_arena *a, const char *text, const char *unit, const char *unit2,
                                weir_expr **out, weir_error *err)
{
    int64_t m1, m2 = 0;
    bool mo1, mo2 = false;
    if (!unit || unit_ms(unit, &m1, &mo1))
        return weir_error_set(err, WEIR_EPARSE, "unknown interval unit %s", unit ? unit : "(none)");
    if (unit2 && unit_ms(unit2, &m2, &mo2))
        return weir_error_set(err, WEIR_EPARSE, "unknown interval unit %s", unit2);
    if (unit2 && mo1 != mo2)
        return weir_error_set(err, WEIR_EPARSE, "INTERVAL %s TO %s mixes year-month and day-time units", unit, unit2);
    const char *s = text;
    while (*s == ' ')
        s++;
    bool neg = false;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    int64_t total = 0;
    if (!unit2) {
        /* A single unit: an integer, or a decimal number of seconds. */
        char *end;
        errno = 0;
        if (m1 == 1000 && strchr(s, '.')) {
            double d = weir__strtod_c(s, &end);
            total = (int64_t)(d * 1000 + 0.5);
        } else {
            long long v = strtoll(s, &end, 10);
            if (errno == ERANGE)
                return weir_error_set(err, WEIR_EPARSE, "interval value '%s' is out of range", text);
            total = v * m1;
        }
        while (*end == ' ')
            end++;
        if (*end || end == s)
            return weir_error_set(err, WEIR_EPARSE, "malformed interval value '%s' for unit %s", text, unit);
    } else {
        /* 'D HH:MM:SS.fff' style: fields from unit down to unit2, separated by ' ', ':', '-' or '.'. */
        static const int64_t seq_dt[] = {86400000, 3600000, 60000, 1000, 1};
        static const int64_t seq_ym[] = {12, 1};
        const int64_t *seq = mo1 ? seq_ym : seq_dt;
        int nseq = mo1 ? 2 : 5, k = 0;
        while (k < nseq && seq[k] != m1)
            k++;
        if (k == nseq)
            return weir_error_set(err, WEIR_EPARSE, "unsupported interval unit %s", unit);
        const char *p = s;
        for (;;) {
            char *end;
            long long v = strtoll(p, &end, 10);
            if (end == p)
                return weir_error_set(err, WEIR_EPARSE, "malformed interval value '%s'", text);
            if (!mo1 && seq[k] == 1 && end - p < 3) {
                /* Fraction of a second: '.5' is 500 ms. */
                for (long d = end - p; d < 3; d++)
                    v *= 10;
            }
            total += v * seq[k];
            if ((seq[k] == m2 && !(m2 == 1000 && *end == '.')) || !*end)
                break;
            p = end + 1;
            k++;
            if (k >= nseq)
                return weir_error_set(err, WEIR_EPARSE, "malformed interval value '%s'", text);
        }
    }
    *out = weir_expr_lit_interval(a, neg ? -total : total, mo1 ? WEIR_INTERVAL_YEAR_MONTH : WEIR_INTERVAL_DAY_TIME);
    return *out ? 0 : nomem(err);
}

/* ---- calls ---- */

bool weir__any_nullable(weir_expr **args, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (args[i]->type.nullable || args[i]->type.id == WEIR_TYPE_NULL)
            return true;
    return false;
}

weir_expr *weir__call_node(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_type type,
                           xkernel fn, uint8_t flags)
{
    weir_expr *e = weir__node(a, N_CALL, type, n);
    if (!e)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        e->args[i] = args[i];
    e->name = f ? f->name : "?";
    e->fn = fn;
    e->flags = flags;
    return e;
}

int weir__bad_args(const xfunc *f, weir_expr **args, uint32_t n, weir_error *err)
{
    char list[300] = "", t0[64], t1[64];
    size_t off = 0;
    for (uint32_t i = 0; i < n && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "",
                                weir__tname(args[i], t0, sizeof t0));
    /* An operator's signature does not read NAME(...). */
    size_t ln = strlen(f->name);
    bool op = strncmp(f->sig, f->name, ln) || f->sig[ln] != '(';
    if (op && n == 2)
        return weir_error_set(err, WEIR_EPLAN, "cannot apply '%s' to %s and %s", f->name,
                              weir__tname(args[0], t0, sizeof t0), weir__tname(args[1], t1, sizeof t1));
    if (op && n == 1)
        return weir_error_set(err, WEIR_EPLAN, "cannot apply '%s' to %s", f->name, list);
    return weir_error_set(err, WEIR_EPLAN, "cannot apply %s to (%s); expected %s", f->name, list, f->sig);
}

const xfunc *weir__func_find(const char *name)
{
    const xfunc *tables[] = {weir__funcs_core, weir__funcs_string, weir__funcs_regex, weir__funcs_math, weir__funcs_time, weir__funcs_json,
                             weir__funcs_nested, weir__funcs_coll, weir__funcs_text, weir__funcs_strx, weir__funcs_hash,
                             weir__funcs_printf};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const xfunc *f = tables[t]; f->name; f++)
            if (!strcasecmp(f->name, name))
                return f;
    return NULL;
}

bool weir_expr_function_exists(const char *name)
{
    return weir__func_find(name) || weir__udf_exists(name);
}

static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]);
            int v = d[i - 1][j - 1] + c;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

static int unknown_function(const char *name, weir_expr **args, uint32_t n, weir_error *err)
{
    char msg[480], tb[64];
    size_t off = (size_t)snprintf(msg, sizeof msg, "no function %s(", name);
    for (uint32_t i = 0; i < n && off < sizeof msg; i++)
        off += (size_t)snprintf(msg + off, sizeof msg - off, "%s%s", i ? ", " : "", weir__tname(args[i], tb, sizeof tb));
    if (off < sizeof msg)
        off += (size_t)snprintf(msg + off, sizeof msg - off, ")");
    /* Closest names by edit distance: up to three with the best scores. */
    const char *best[3] = {0};
    int bestd[3] = {99, 99, 99};
    int limit = (int)strlen(name) / 3 + 1;
    if (limit > 3)
        limit = 3;
    const xfunc *tables[] = {weir__funcs_core, weir__funcs_string, weir__funcs_regex, weir__funcs_math, weir__funcs_time, weir__funcs_json,
                             weir__funcs_nested, weir__funcs_coll, weir__funcs_text, weir__funcs_strx, weir__funcs_hash,
                             weir__funcs_printf};
    const char *udfs[256];
    uint32_t nu = weir__udf_names(udfs, 256);
    const size_t n_tables = sizeof tables / sizeof *tables;
    /* every table, then (t == n_tables) the user functions */
    for (size_t t = 0; t <= n_tables; t++) {
        for (uint32_t k = 0;; k++) {
            const char *cand;
            if (t < n_tables) {
                cand = tables[t][k].name;
                if (!cand)
                    break;
                if (!isalpha((unsigned char)cand[0]) || strchr(cand, ' '))
                    continue;
            } else {
                if (k >= nu)
                    break;
                cand = udfs[k];
            }
            int d = edit_distance(name, cand);
            if (d > limit)
                continue;
            for (int j = 0; j < 3; j++) {
                if (d < bestd[j]) {
                    for (int m = 2; m > j; m--) {
                        best[m] = best[m - 1];
                        bestd[m] = bestd[m - 1];
                    }
                    best[j] = cand;
                    bestd[j] = d;
                    break;
                }
            }
        }
    }
    int nb = 0;
    while (nb < 3 && best[nb] && bestd[nb] <= bestd[0] + 1)
        nb++;
    for (int j = 0; j < nb && off < sizeof msg; j++)
        off += (size_t)snprintf(msg + off, sizeof msg - off, "%s%s%s", j == 0 ? "; did you mean " : j == nb - 1 ? " or " : ", ",
                                best[j], j == nb - 1 ? "?" : "");
    return weir_error_set(err, WEIR_ENOTFOUND, "%s", msg);
}

static int wide_decimal_ok(const weir_expr *e, const char *name, weir_error *err);

int weir_expr_call(weir_expr_arena *a, const char *name, weir_expr *const *args, uint32_t n_args, weir_expr **out,
                   weir_error *err)
{
    if (!a || !name || !out || (n_args && !args))
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_call: invalid argument");
    for (uint32_t i = 0; i < n_args; i++)
        if (!args[i])
            return weir_error_set(err, WEIR_EINVAL, "weir_expr_call: argument %u of %s is NULL", i, name);
    /* The binder may replace arguments by casts: work on a copy of the array. */
    weir_expr **copy = weir__arena_alloc(a, (n_args ? n_args : 1) * sizeof *copy);
    if (!copy)
        return nomem(err);
    for (uint32_t i = 0; i < n_args; i++)
        copy[i] = args[i];
    const xfunc *f = weir__func_find(name);
    int rc;
    if (f) {
        rc = f->bind(a, f, copy, n_args, out, err);
    } else {
        rc = weir__udf_bind(a, name, copy, n_args, out, err);
        if (rc == 0)
            return unknown_function(name, copy, n_args, err);
        rc = rc == 1 ? 0 : rc;
    }
    if (rc)
        return rc;
    rc = wide_decimal_ok(*out, name, err);
    if (rc)
        return rc;
    weir__fold(a, out);
    return 0;
}

/*
 * DECIMALs of more than 18 digits (128-bit values) are supported by the
 * arithmetic, comparisons (IN included), NULL tests, CAST, the
 * conditional forms and the tuple of COUNT(DISTINCT a, b), which copies
 * them; other functions refuse them by name rather than read them as
 * 64-bit values.
 */
static int wide_decimal_ok(const weir_expr *e, const char *name, weir_error *err)
{
    static const char *const ok[] = {"+", "-", "*", "/", "%", "MOD", "=", "<>", "!=", "<", "<=", ">", ">=",
                                     "IS NULL", "IS NOT NULL", "IS DISTINCT FROM", "IS NOT DISTINCT FROM", "IN",
                                     "CAST", "TRY_CAST", "ROUND", "TRUNCATE", "FLOOR", "CEIL", "CEILING",
                                     "ABS", "SIGN", "PRINTF", "$AVG", "$DISTINCT_TUPLE", NULL};
    if (!e || e->kind != N_CALL)
        return 0;
    const weir_expr *wide = weir_type_is_wide(e->type) ? e : NULL;
    for (uint32_t i = 0; i < e->n_args && !wide; i++)
        if (weir_type_is_wide(e->args[i]->type))
            wide = e->args[i];
    if (!wide)
        return 0;
    for (int i = 0; ok[i]; i++)
        if (!strcasecmp(ok[i], name))
            return 0;
    char tb[48];
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "%s does not support %s: DECIMALs of more than 18 digits work with + - * / %%, "
                          "comparisons, CAST, ROUND, TRUNCATE, FLOOR, CEIL, ABS, SIGN, PRINTF, "
                          "CASE/COALESCE, SUM, AVG and COUNT",
                          name, weir__tname(wide, tb, sizeof tb));
}

int weir__coerce(weir_expr_arena *a, weir_expr **e, weir_type t, weir_error *err)
{
    weir_type have = (*e)->type;
    if ((*e)->iv == WEIR_INTERVAL_NONE && weir__type_eq(have, t))
        return 0;
    t.nullable = have.nullable || have.id == WEIR_TYPE_NULL;
    int rc = weir__build_cast(a, *e, t, false, true, e, err);
    if (rc)
        return rc;
    weir__fold(a, e);
    /* An implicit cast of a literal that cannot be converted is a plan-time error. */
    if ((*e)->kind != N_LITERAL && (*e)->args && (*e)->args[0]->kind == N_LITERAL &&
        (*e)->args[0]->type.id == WEIR_TYPE_STRING) {
        char tb[64];
        xstr s = (*e)->args[0]->lit.v.s;
        return weir_error_set(err, WEIR_EPLAN, "cannot convert '%.*s' to %s", (int)s.len, s.ptr,
                              weir_expr_type_name(t, WEIR_INTERVAL_NONE, tb, sizeof tb));
    }
    return 0;
}

/*
 * weir__coerce for the operands of a conditional form or comparison whose
 * common type is t with interval kind iv: an operand that already is an
 * interval of that kind needs no cast (a cast of an interval is refused);
 * a NULL is cast to t and takes the kind.
 */
int weir__coerce_kind(weir_expr_arena *a, weir_expr **e, weir_type t, uint8_t iv, weir_error *err)
{
    if (iv != WEIR_INTERVAL_NONE && (*e)->iv == iv && weir__type_eq((*e)->type, t))
        return 0;
    int rc = weir__coerce(a, e, t, err);
    if (rc == 0)
        (*e)->iv = iv;
    return rc;
}

int weir_expr_cast(weir_expr_arena *a, weir_expr *e, weir_type type, bool try_cast, weir_expr **out, weir_error *err)
{
    return weir_expr_cast_fraction(a, e, type, -1, try_cast, out, err);
}

int weir_expr_cast_fraction(weir_expr_arena *a, weir_expr *e, weir_type type, int p, bool try_cast, weir_expr **out,
                            weir_error *err)
{
    if (!a || !e || !out)
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_cast: invalid argument");
    int rc = weir__build_cast_fraction(a, e, type, p, try_cast, out, err);
    if (rc)
        return rc;
    weir__fold(a, out);
    return 0;
}

int weir_expr_case(weir_expr_arena *a, weir_expr *const *conds, weir_expr *const *vals, uint32_t n,
                   weir_expr *else_val, weir_expr **out, weir_error *err)
{
    if (!a || !out || n == 0 || !conds || !vals)
        return weir_error_set(err, WEIR_EINVAL, "CASE needs at least one WHEN");
    weir_expr *e = weir__node(a, N_CASE, tmake(WEIR_TYPE_NULL, true), 2 * n + 1);
    if (!e)
        return nomem(err);
    weir_expr *els = else_val ? else_val : weir_expr_lit_null(a, tmake(WEIR_TYPE_NULL, true));
    if (!els)
        return nomem(err);
    /* Result type: the common type of every THEN and the ELSE. */
    weir_expr *acc = vals[0];
    weir_type t = vals[0]->type;
    uint8_t iv = vals[0]->iv;
    for (uint32_t i = 1; i <= n; i++) {
        weir_expr *v = i < n ? vals[i] : els;
        weir_type ct;
        if (!weir__common_type(acc, v, &ct)) {
            char b1[64], b2[64];
            return weir_error_set(err, WEIR_EPLAN, "CASE branches have incompatible types %s and %s",
                                  weir__tname(acc, b1, sizeof b1), weir__tname(v, b2, sizeof b2));
        }
        if (v->iv)
            iv = v->iv;
        t = ct;
        if (v->type.id != WEIR_TYPE_NULL) {
            /* A typed stand-in (not a literal) for the widest type so far. */
            weir_expr *w = weir__node(a, N_CALL, ct, 0);
            if (!w)
                return nomem(err);
            w->iv = iv;
            acc = w;
        }
    }
    bool nullable = !else_val || t.nullable;
    for (uint32_t i = 0; i < n; i++) {
        weir_expr *c = conds[i];
        if (c->type.id != WEIR_TYPE_BOOLEAN && c->type.id != WEIR_TYPE_NULL) {
            char b[64];
            return weir_error_set(err, WEIR_EPLAN, "CASE WHEN condition must be BOOLEAN, not %s",
                                  weir__tname(c, b, sizeof b));
        }
        e->args[2 * i] = c;
        e->args[2 * i + 1] = vals[i];
        if (t.id != WEIR_TYPE_NULL) {
            int rc = weir__coerce_kind(a, &e->args[2 * i + 1], t, iv, err);
            if (rc)
                return rc;
        }
        nullable |= vals[i]->type.nullable;
    }
    e->args[2 * n] = els;
    if (t.id != WEIR_TYPE_NULL) {
        int rc = weir__coerce_kind(a, &e->args[2 * n], t, iv, err);
        if (rc)
            return rc;
    }
    t.nullable = nullable || t.id == WEIR_TYPE_NULL;
    e->type = t;
    e->iv = iv;
    e->name = "CASE";
    *out = e;
    weir__fold(a, out);
    if ((*out)->kind == N_CASE && weir__case_switch_prepare(a, *out))
        return nomem(err);
    return 0;
}

/* ---- constant folding ---- */

static bool foldable(const weir_expr *e)
{
    if (e->kind == N_LITERAL || e->kind == N_COLUMN)
        return false;
    if (e->flags & (F_VOLATILE | F_SESSION))
        return false;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (e->args[i]->kind != N_LITERAL)
            return false;
    return true;
}

void weir__fold(weir_expr_arena *a, weir_expr **ep)
{
    weir_expr *e = *ep;
    if (!foldable(e))
        return;
    weir_expr_env *env = weir_expr_env_create();
    if (!env)
        return;
    weir_value v;
    weir_error err;
    weir_error_clear(&err);
    int rc = weir_expr_eval_row(e, NULL, 0, env, &v, &err);
    if (rc == 0) {
        weir_expr *l = weir__node(a, N_LITERAL, e->type, 0);
        if (l) {
            l->lit = v;
            l->lit.type = e->type;
            l->iv = e->iv;
            if (!v.is_null && weir_type_is_varlen(e->type.id)) {
                char *p = weir__arena_strdup(a, v.v.s.ptr, v.v.s.len);
                if (!p)
                    l = NULL;
                else
                    l->lit.v.s.ptr = p;
            }
            if (l)
                *ep = l;
        }
    }
    /* On failure (1/0, a bad CAST) the node stays: the error surfaces only if a row reaches it. */
    weir_expr_env_destroy(env);
}

/* ---- inspection ---- */

weir_type weir_expr_type(const weir_expr *e)
{
    weir_type t = e->type;
    if (t.id == WEIR_TYPE_BIGINT)
        t.precision = e->iv; /* the column type of an INTERVAL (weir/schema.h) */
    return t;
}
weir_interval_kind weir_expr_interval(const weir_expr *e) { return (weir_interval_kind)e->iv; }
bool weir_expr_is_literal(const weir_expr *e) { return e && e->kind == N_LITERAL; }
int32_t weir_expr_column_index(const weir_expr *e) { return e && e->kind == N_COLUMN ? e->col : -1; }

static uint32_t strict_columns(const weir_expr *e, uint32_t *cols, uint32_t n, uint32_t cap)
{
    if (e->kind == N_COLUMN) {
        for (uint32_t i = 0; i < n; i++)
            if (cols[i] == (uint32_t)e->col)
                return n;
        if (n < cap)
            cols[n++] = (uint32_t)e->col;
        return n;
    }
    if (e->kind != N_CALL || !(e->flags & F_STRICT))
        return n; /* CASE, COALESCE, IS NULL, ...: a NULL input may not make a NULL */
    for (uint32_t i = 0; i < e->n_args; i++)
        n = strict_columns(e->args[i], cols, n, cap);
    return n;
}

uint32_t weir_expr_strict_columns(const weir_expr *e, uint32_t *cols, uint32_t cap)
{
    return e ? strict_columns(e, cols, 0, cap) : 0;
}

bool weir_expr_columns(const weir_expr *e, bool *reads, uint32_t n_cols)
{
    if (!e)
        return true;
    if (e->kind == N_COLUMN) {
        if (e->col < 0 || (uint32_t)e->col >= n_cols)
            return false;
        reads[e->col] = true;
        return true;
    }
    bool ok = true;
    for (uint32_t i = 0; i < e->n_args; i++)
        ok &= weir_expr_columns(e->args[i], reads, n_cols);
    return ok;
}

bool weir_expr_is_volatile(const weir_expr *e)
{
    if (!e)
        return false;
    if (e->flags & F_VOLATILE)
        return true;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (weir_expr_is_volatile(e->args[i]))
            return true;
    return false;
}

bool weir_expr_reads_session(const weir_expr *e)
{
    if (!e)
        return false;
    if (e->flags & F_SESSION)
        return true;
    for (uint32_t i = 0; i < e->n_args; i++)
        if (weir_expr_reads_session(e->args[i]))
            return true;
    return false;
}

int weir_expr_literal_value(const weir_expr *e, weir_value *out)
{
    if (!e || e->kind != N_LITERAL)
        return WEIR_EINVAL;
    *out = e->lit;
    out->type = e->type;
    return 0;
}

static size_t fmt(const weir_expr *e, char *buf, size_t cap, bool exact);

static size_t put(char *buf, size_t cap, size_t off, const char *fmtstr, ...) __attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t cap, size_t off, const char *fmtstr, ...)
{
    if (off >= cap)
        return off;
    va_list ap;
    va_start(ap, fmtstr);
    int n = vsnprintf(buf + off, cap - off, fmtstr, ap);
    va_end(ap);
    return n < 0 ? off : off + (size_t)n;
}

/*
 * A string's bytes in a digest, as X'hex': written as text, 'a'' ''b' (one
 * argument) read like 'a' 'b' (two), and a NUL ended the text early, so two
 * calls that differ only there were one common subexpression.
 */
static size_t fmt_bytes_exact(const char *p, uint32_t len, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t need = 3 + 2 * (size_t)len; /* X' hex ' */
    if (need >= cap)
        return need; /* as put: the length it would take, the caller sees it cut */
    size_t off = put(buf, cap, 0, "X'");
    for (uint32_t i = 0; i < len; i++) {
        buf[off++] = hex[(uint8_t)p[i] >> 4];
        buf[off++] = hex[(uint8_t)p[i] & 15];
    }
    return put(buf, cap, off, "'");
}

static size_t fmt_value(weir_type t, uint8_t iv, const weir_value *v, char *buf, size_t cap, bool exact)
{
    if (v->is_null)
        return put(buf, cap, 0, "NULL");
    if (exact && (t.id == WEIR_TYPE_STRING || t.id == WEIR_TYPE_BYTES))
        return fmt_bytes_exact(v->v.s.ptr, v->v.s.len, buf, cap);
    char tmp[64];
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN: return put(buf, cap, 0, "%s", v->v.b ? "TRUE" : "FALSE");
    case WEIR_TYPE_INT: return put(buf, cap, 0, "%d", v->v.i32);
    case WEIR_TYPE_DOUBLE: weir__fmt_double(v->v.f64, tmp); return put(buf, cap, 0, "%sE0", tmp);
    case WEIR_TYPE_DECIMAL:
        if (weir_type_is_wide(t))
            weir__dec_format(WEIR__I128_GET(v->v.i128), t.scale, tmp);
        else
            weir__fmt_decimal(v->v.i64, t.scale, tmp);
        return put(buf, cap, 0, "%s", tmp);
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES: return put(buf, cap, 0, "'%.*s'", (int)v->v.s.len, v->v.s.ptr);
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        weir__fmt_ts(v->v.i64, tmp);
        return put(buf, cap, 0, "%s '%s'", t.id == WEIR_TYPE_TIMESTAMP ? "TIMESTAMP" : "TIMESTAMP_LTZ", tmp);
    case WEIR_TYPE_DATE: weir__format_date(v->v.i32, tmp, sizeof tmp); return put(buf, cap, 0, "DATE '%s'", tmp);
    case WEIR_TYPE_TIME:
        weir__format_time(v->v.i32, t.precision, tmp, sizeof tmp);
        return put(buf, cap, 0, "TIME '%s'", tmp);
    default:
        if (iv)
            return put(buf, cap, 0, "INTERVAL %lld %s", (long long)v->v.i64,
                       iv == WEIR_INTERVAL_DAY_TIME ? "MILLISECOND" : "MONTH");
        return put(buf, cap, 0, "%lld", (long long)v->v.i64);
    }
}

static size_t fmt(const weir_expr *e, char *buf, size_t cap, bool exact)
{
    size_t off = 0;
    switch (e->kind) {
    case N_COLUMN: return put(buf, cap, 0, "$%d", e->col);
    case N_LITERAL: return fmt_value(e->type, e->iv, &e->lit, buf, cap, exact);
    case N_SHARED: return fmt(e->args[0], buf, cap, exact);
    default: break;
    }
    const char *name = e->kind == N_AND ? "AND" : e->kind == N_OR ? "OR" : e->kind == N_CASE ? "CASE"
                       : e->kind == N_COALESCE ? "COALESCE" : e->kind == N_IF ? "IF" : e->name;
    off = put(buf, cap, off, "(%s", name ? name : "?");
    /* parameters a bind keeps beside the arguments (a unit, an operator) */
    if (exact && (e->p0 || e->p1))
        off = put(buf, cap, off, "#%lld,%lld", (long long)e->p0, (long long)e->p1);
    /* The digest names every call's result type (calls alike but for it,
     * JSON_VALUE ... RETURNING INT or DOUBLE, compute different values);
     * the readable form a CAST's and a TRY_CAST's only. */
    char tb[256];
    if (exact)
        off = put(buf, cap, off, ":%s", weir_expr_type_name(e->type, (weir_interval_kind)e->iv, tb, sizeof tb));
    else if (e->name && (!strcmp(e->name, "CAST") || !strcmp(e->name, "TRY_CAST")))
        off = put(buf, cap, off, " %s", weir_expr_type_name(e->type, (weir_interval_kind)e->iv, tb, sizeof tb));
    for (uint32_t i = 0; i < e->n_args; i++) {
        off = put(buf, cap, off, " ");
        if (off < cap)
            off += fmt(e->args[i], buf + off, cap - off, exact);
    }
    if (e->kind == N_CALL && e->aux && e->name && !strcmp(e->name, "IN")) {
        /* the literal list lives in the IN set, not in the arguments */
        bool has_null;
        uint32_t n = weir__in_size(e, &has_null);
        for (uint32_t i = 0; i < n; i++) {
            weir_value v;
            weir__in_value(e, i, &v);
            off = put(buf, cap, off, " ");
            if (off < cap)
                off += fmt_value(v.type, e->args[0]->iv, &v, buf + off, cap - off, exact);
        }
        if (has_null)
            off = put(buf, cap, off, " NULL");
    }
    return put(buf, cap, off, ")");
}

static size_t format(const weir_expr *e, char *buf, size_t cap, bool exact)
{
    if (!cap)
        return 0;
    size_t n = fmt(e, buf, cap, exact);
    if (n >= cap)
        n = cap - 1;
    buf[n] = 0;
    return n;
}

size_t weir_expr_format(const weir_expr *e, char *buf, size_t cap)
{
    return format(e, buf, cap, false);
}

size_t weir_expr_digest(const weir_expr *e, char *buf, size_t cap)
{
    return format(e, buf, cap, true);
}
