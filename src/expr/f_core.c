/*
 * expr/f_core.c - operators: arithmetic, comparison, boolean logic with
 * SQL three-valued semantics, IS [NOT] NULL/TRUE/FALSE, IS [NOT] DISTINCT
 * FROM, BETWEEN, IN, COALESCE, IFNULL, NULLIF, IF, GREATEST, LEAST.
 *
 * Typing (Flink's rules):
 * - INT op INT is INT, with BIGINT involved BIGINT; integer overflow wraps
 *   (Java arithmetic); integer division truncates; x / 0 and x % 0 fail the
 *   evaluation ("division by zero"), as Java's ArithmeticException fails a
 *   Flink job. DOUBLE involved: DOUBLE (IEEE, x / 0.0 = Infinity).
 * - DECIMAL involved (with INT/BIGINT as DECIMAL(10,0)/(19,0)): precision
 *   and scale from LogicalTypeMerging capped at 18 (see types.c); computed
 *   exactly in 128 bits, rounded HALF_UP to the result scale; a result that
 *   does not fit the precision is NULL, as in Flink.
 * - Kernels are one typed loop per (operator, physical type): no per-row
 *   switch on types.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "time/timefmt.h"

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD };
enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };

static int nomem(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

/* ---- arithmetic kernels ---- */

#define ARITH_INT(NAME, T, UT, TMIN)                                                                          \
    static int NAME(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)  \
    {                                                                                                        \
        const T *x = a[0].data, *y = a[1].data;                                                              \
        T *o = out->data;                                                                                    \
        switch (e->p0) {                                                                                     \
        case OP_ADD:                                                                                         \
            for (uint32_t i = 0; i < n; i++)                                                                 \
                o[i] = (T)((UT)x[i] + (UT)y[i]);                                                             \
            break;                                                                                           \
        case OP_SUB:                                                                                         \
            for (uint32_t i = 0; i < n; i++)                                                                 \
                o[i] = (T)((UT)x[i] - (UT)y[i]);                                                             \
            break;                                                                                           \
        case OP_MUL:                                                                                         \
            for (uint32_t i = 0; i < n; i++)                                                                 \
                o[i] = (T)((UT)x[i] * (UT)y[i]);                                                             \
            break;                                                                                           \
        default:                                                                                             \
            for (uint32_t i = 0; i < n; i++) {                                                               \
                if (!x_live(out, act, i))                                                                    \
                    continue;                                                                                \
                if (y[i] == 0)                                                                               \
                    return weir__x_fail(cx, i, "division by zero");                                          \
                if (y[i] == -1)                                                                              \
                    o[i] = e->p0 == OP_DIV ? (T)((UT)0 - (UT)x[i]) : 0;                                      \
                else                                                                                         \
                    o[i] = e->p0 == OP_DIV ? x[i] / y[i] : x[i] % y[i];                                      \
            }                                                                                                \
        }                                                                                                    \
        (void)TMIN;                                                                                          \
        return 0;                                                                                            \
    }

ARITH_INT(arith_i32, int32_t, uint32_t, INT32_MIN)
ARITH_INT(arith_i64, int64_t, uint64_t, INT64_MIN)

static int arith_f64(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    const double *x = a[0].data, *y = a[1].data;
    double *o = out->data;
    (void)cx, (void)act;
    switch (e->p0) {
    case OP_ADD:
        for (uint32_t i = 0; i < n; i++)
            o[i] = x[i] + y[i];
        break;
    case OP_SUB:
        for (uint32_t i = 0; i < n; i++)
            o[i] = x[i] - y[i];
        break;
    case OP_MUL:
        for (uint32_t i = 0; i < n; i++)
            o[i] = x[i] * y[i];
        break;
    case OP_DIV:
        for (uint32_t i = 0; i < n; i++)
            o[i] = x[i] / y[i];
        break;
    default:
        for (uint32_t i = 0; i < n; i++)
            o[i] = fmod(x[i], y[i]);
    }
    return 0;
}

static __int128 p10_128(int k)
{
    __int128 v = 1;
    while (k-- > 0)
        v *= 10;
    return v;
}

/* q = round_half_up(x / d) for d > 0 or d < 0. */
static __int128 div_round(__int128 x, __int128 d)
{
    __int128 q = x / d, r = x % d;
    if (r < 0)
        r = -r;
    __int128 ad = d < 0 ? -d : d;
    if (2 * r >= ad)
        q += ((x < 0) != (d < 0)) ? -1 : 1;
    return q;
}

static inline int arg_scale_t(weir_type t) { return t.id == WEIR_TYPE_DECIMAL ? t.scale : 0; }
static inline int arg_scale(const weir_expr *a) { return a->type.id == WEIR_TYPE_DECIMAL ? a->type.scale : 0; }

/* DECIMAL arithmetic; both arguments are int64 (BIGINT or DECIMAL) with their own scales. */
static int arith_dec(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    const int64_t *x = a[0].data, *y = a[1].data;
    int64_t *o = out->data;
    int s1 = arg_scale(e->args[0]), s2 = arg_scale(e->args[1]), rs = e->type.scale;
    __int128 lim = weir__pow10[e->type.precision];
    int ms = s1 > s2 ? s1 : s2;
    __int128 f1 = p10_128(ms - s1), f2 = p10_128(ms - s2);
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        __int128 r, xv = x[i], yv = y[i];
        switch (e->p0) {
        case OP_ADD: r = div_round(xv * f1 + yv * f2, p10_128(ms - rs)); break;
        case OP_SUB: r = div_round(xv * f1 - yv * f2, p10_128(ms - rs)); break;
        case OP_MUL: r = div_round(xv * yv, p10_128(s1 + s2 - rs)); break;
        case OP_DIV: {
            if (yv == 0)
                return weir__x_fail(cx, i, "division by zero");
            /* r = x * 10^(rs + s2 - s1) / y */
            int k = rs + s2 - s1;
            if (k >= 0) {
                __int128 m = p10_128(k);
                __int128 maxx = (((__int128)1) << 125) / m;
                if (xv > maxx || xv < -maxx) {
                    x_setnull(cx, out, i);
                    continue;
                }
                r = div_round(xv * m, yv);
            } else {
                r = div_round(xv, yv * p10_128(-k));
            }
            break;
        }
        default:
            if (yv == 0)
                return weir__x_fail(cx, i, "division by zero");
            r = div_round((xv * f1) % (yv * f2), p10_128(ms - rs));
        }
        if (r >= lim || r <= -lim)
            x_setnull(cx, out, i);
        else
            o[i] = (int64_t)r;
    }
    return 0;
}

/* Value i of an exact vector (INT, BIGINT or DECIMAL of any precision) as 128 bits. */
static inline weir_i128 dec_at(const xvec *v, uint32_t i)
{
    if (weir_type_is_wide(v->type))
        return ((const weir_i128 *)v->data)[i];
    if (v->type.id == WEIR_TYPE_INT)
        return ((const int32_t *)v->data)[i];
    return ((const int64_t *)v->data)[i];
}

/* v (scale from) as the integer part q at scale `to` (to <= from) and the
 * rest r, at scale from: v = q * 10^(from - to) + r, r with v's sign. */
static inline void dec_split(weir_i128 v, int from, int to, weir_i128 *q, weir_i128 *r)
{
    weir_i128 f = weir__pow10_128[from - to];
    *q = v / f;
    *r = v % f;
}

/*
 * DECIMAL arithmetic where an argument or the result has more than 18 digits:
 * exact with 256-bit intermediates (util/dec128.h), HALF_UP to the result
 * scale, NULL when the result does not fit its precision (Flink's overflow rule).
 */
static int arith_dec_wide(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    int s1 = arg_scale(e->args[0]), s2 = arg_scale(e->args[1]), rs = e->type.scale, rp = e->type.precision;
    int ms = s1 > s2 ? s1 : s2;
    bool wide = weir_type_is_wide(e->type);
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        weir_i128 xv = dec_at(&a[0], i), yv = dec_at(&a[1], i), r = 0;
        bool ok = true;
        switch (e->p0) {
        case OP_ADD:
        case OP_SUB: {
            if (e->p0 == OP_SUB)
                yv = -yv;
            /* Each side at the result scale (q) plus what lies below it (rest,
             * at scale ms): |rest| < 10^(ms - rs) <= 10^32, so rests add exactly. */
            weir_i128 q[2], rest[2] = {0, 0}, v[2] = {xv, yv};
            int sc[2] = {s1, s2};
            for (int k = 0; k < 2 && ok; k++) {
                if (rs >= sc[k]) {
                    ok = weir__dec_div(v[k], rs - sc[k], 1, &q[k]);
                } else {
                    weir_i128 rr;
                    dec_split(v[k], sc[k], rs, &q[k], &rr);
                    ok = weir__dec_div(rr, ms - sc[k], 1, &rest[k]);
                }
            }
            if (!ok || __builtin_add_overflow(q[0], q[1], &r)) {
                ok = false;
                break;
            }
            if (ms > rs) {
                weir_i128 f = weir__pow10_128[ms - rs], rem = rest[0] + rest[1];
                if (r > 0 && rem < 0)
                    r -= 1, rem += f;
                else if (r < 0 && rem > 0)
                    r += 1, rem -= f;
                weir_i128 qr = rem / f, rr = rem % f;
                if (rr < 0 ? -rr >= f - -rr : rr >= f - rr)
                    qr += rem < 0 ? -1 : 1;
                ok = !__builtin_add_overflow(r, qr, &r);
            }
            break;
        }
        case OP_MUL: ok = weir__dec_mul(xv, yv, s1 + s2 - rs, &r); break;
        case OP_DIV: {
            if (yv == 0)
                return weir__x_fail(cx, i, "division by zero");
            int k = rs + s2 - s1;
            if (k >= 0) {
                ok = weir__dec_div(xv, k, yv, &r);
            } else {
                weir_i128 den;
                if (weir__dec_div(yv, -k, 1, &den))
                    ok = weir__dec_div(xv, 0, den, &r);
                else
                    r = 0; /* |divisor| > 2^127 > 2 |dividend|: rounds to 0 */
            }
            break;
        }
        default: {
            if (yv == 0)
                return weir__x_fail(cx, i, "division by zero");
            /* (x * 10^(ms - s1)) mod (y * 10^(ms - s2)): one factor is 1. */
            weir_i128 m;
            if (s1 == ms) {
                if (weir__dec_div(yv, ms - s2, 1, &m))
                    r = weir__dec_mod(xv, 0, m);
                else
                    r = xv; /* |divisor| > |dividend| */
            } else {
                r = weir__dec_mod(xv, ms - s1, yv);
            }
            ok = weir__dec_rescale(r, ms, rs, &r);
        }
        }
        if (!ok || !weir__dec_fits(r, rp))
            x_setnull(cx, out, i);
        else if (wide)
            ((weir_i128 *)out->data)[i] = r;
        else
            ((int64_t *)out->data)[i] = (int64_t)r;
    }
    return 0;
}

static int neg_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    switch (e->type.id) {
    case WEIR_TYPE_INT:
        for (uint32_t i = 0; i < n; i++)
            ((int32_t *)out->data)[i] = (int32_t)(0u - (uint32_t)((const int32_t *)a[0].data)[i]);
        break;
    case WEIR_TYPE_DOUBLE:
        for (uint32_t i = 0; i < n; i++)
            ((double *)out->data)[i] = -((const double *)a[0].data)[i];
        break;
    default:
        if (weir_type_is_wide(e->type)) {
            for (uint32_t i = 0; i < n; i++)
                ((weir_i128 *)out->data)[i] = -((const weir_i128 *)a[0].data)[i];
            break;
        }
        for (uint32_t i = 0; i < n; i++)
            ((int64_t *)out->data)[i] = (int64_t)(0ull - (uint64_t)((const int64_t *)a[0].data)[i]);
    }
    return 0;
}

/* TIMESTAMP +/- INTERVAL YEAR TO MONTH: calendar months, the day clamped to the month's end. */
static int add_months_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    int ti = e->p1; /* index of the timestamp argument */
    const int64_t *ts = a[ti].data, *mo = a[1 - ti].data;
    int64_t *o = out->data;
    bool ltz = e->type.id == WEIR_TYPE_TIMESTAMP_LTZ;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        int64_t t = ltz ? x_local(cx, ts[i]) : ts[i];
        weir__civil c;
        weir__civil_from_ms(t, &c);
        int64_t m = mo[i] * (e->p0 == OP_SUB ? -1 : 1);
        int64_t total = c.year * 12 + (c.month - 1) + m;
        c.year = x_floordiv(total, 12);
        c.month = (int)(x_floormod(total, 12) + 1);
        int md = mdays[c.month - 1] + (c.month == 2 && ((c.year % 4 == 0 && c.year % 100 != 0) || c.year % 400 == 0));
        if (c.day > md)
            c.day = md;
        int64_t r = weir__ms_from_civil(&c);
        o[i] = ltz ? x_utc(cx, r) : r;
    }
    return 0;
}

/*
 * DATE/TIME +/- INTERVAL, as Flink: a DATE moves by the whole days of a
 * day-time interval (truncated toward zero) or by calendar months (the day
 * clamped to the month's end); a TIME moves around the clock by a day-time
 * interval and is unchanged by a year-month one. p1: index of the DATE/TIME.
 */
static int date_interval_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act,
                                xvec *out)
{
    (void)cx;
    int di = (int)e->p1;
    const int32_t *d = a[di].data;
    const int64_t *iv = a[1 - di].data;
    int32_t *o = out->data;
    bool ym = e->args[1 - di]->iv == WEIR_INTERVAL_YEAR_MONTH, date = e->type.id == WEIR_TYPE_DATE;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        int64_t v = e->p0 == OP_SUB ? -iv[i] : iv[i];
        if (!date) {
            o[i] = ym ? d[i] : (int32_t)x_floormod(d[i] + v % WEIR__MS_PER_DAY, WEIR__MS_PER_DAY);
        } else if (!ym) {
            o[i] = (int32_t)(d[i] + v / WEIR__MS_PER_DAY);
        } else {
            weir__civil c;
            weir__civil_from_ms((int64_t)d[i] * WEIR__MS_PER_DAY, &c);
            int64_t total = c.year * 12 + (c.month - 1) + v;
            int64_t y = x_floordiv(total, 12);
            int m = (int)(x_floormod(total, 12) + 1);
            int md = mdays[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
            o[i] = (int32_t)weir__days_from_civil(y, m, c.day > md ? md : c.day);
        }
    }
    return 0;
}

static int bind_arith(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    int op = (int)f->param;
    if (n == 1 && (op == OP_SUB || op == OP_ADD)) {
        weir_expr *x = args[0];
        if (x->type.id == WEIR_TYPE_NULL)
            return weir__coerce(a, &args[0], tmake(WEIR_TYPE_INT, true), err) ||
                   (*out = args[0], 0);
        if (!weir_type_is_numeric(x->type.id))
            return weir__bad_args(f, args, n, err);
        if (op == OP_ADD) {
            *out = x;
            return 0;
        }
        *out = weir__call_node(a, f, args, 1, x->type, neg_kernel, F_STRICT);
        if (*out)
            (*out)->iv = x->iv;
        return *out ? 0 : nomem(err);
    }
    if (n != 2)
        return weir__bad_args(f, args, n, err);
    weir_expr *x = args[0], *y = args[1];
    bool nullable = weir__any_nullable(args, 2);
    weir_type_id tx = x->type.id, ty = y->type.id;
    /* Untyped NULL takes the other side's type. */
    if (tx == WEIR_TYPE_NULL && ty != WEIR_TYPE_NULL) {
        weir_type t = y->type;
        if (weir__coerce(a, &args[0], t, err))
            return err->code;
        args[0]->iv = y->iv;
        x = args[0], tx = t.id;
    } else if (ty == WEIR_TYPE_NULL && tx != WEIR_TYPE_NULL) {
        weir_type t = x->type;
        if (weir__coerce(a, &args[1], t, err))
            return err->code;
        args[1]->iv = x->iv;
        y = args[1], ty = t.id;
    } else if (tx == WEIR_TYPE_NULL) {
        *out = weir_expr_lit_null(a, tmake(WEIR_TYPE_INT, true));
        return *out ? 0 : nomem(err);
    }
    if (op == OP_SUB && (weir_type_is_time(tx) || weir_type_is_date_time(tx)) && !x->iv &&
        (weir_type_is_time(ty) || weir_type_is_date_time(ty)) && !y->iv) {
        char b1[48], b2[48];
        return weir_error_set(err, WEIR_EPLAN,
                              "cannot subtract %s from %s: use TIMESTAMPDIFF(unit, start, end) for the distance "
                              "between two points in time",
                              weir__tname(y, b2, sizeof b2), weir__tname(x, b1, sizeof b1));
    }
    /* DATE/TIME and interval arithmetic. */
    bool xd = weir_type_is_date_time(tx), yd = weir_type_is_date_time(ty);
    if (xd || yd) {
        int di = xd ? 0 : 1;
        if (!args[1 - di]->iv || (di == 1 && op != OP_ADD) || (op != OP_ADD && op != OP_SUB))
            return weir__bad_args(f, args, n, err);
        weir_type rt = args[di]->type;
        rt.nullable = nullable;
        *out = weir__call_node(a, f, args, 2, rt, date_interval_kernel, F_STRICT);
        if (!*out)
            return nomem(err);
        (*out)->p0 = op;
        (*out)->p1 = di;
        return 0;
    }
    /* Time and interval arithmetic. */
    bool xt = weir_type_is_time(tx) && !x->iv, yt = weir_type_is_time(ty) && !y->iv;
    if (x->iv || y->iv || xt || yt) {
        weir_type rt;
        uint8_t riv = 0;
        xkernel fn = arith_i64;
        int64_t p1 = 0;
        if ((op == OP_ADD || op == OP_SUB) && xt && y->iv) {
            rt = x->type;
            if (y->iv == WEIR_INTERVAL_YEAR_MONTH)
                fn = add_months_kernel, p1 = 0;
        } else if (op == OP_ADD && yt && x->iv) {
            rt = y->type;
            if (x->iv == WEIR_INTERVAL_YEAR_MONTH)
                fn = add_months_kernel, p1 = 1;
        } else if ((op == OP_ADD || op == OP_SUB) && x->iv && x->iv == y->iv) {
            rt = x->type;
            riv = x->iv;
        } else if ((op == OP_MUL || op == OP_DIV) && x->iv && (ty == WEIR_TYPE_INT || ty == WEIR_TYPE_BIGINT) &&
                   !y->iv) {
            if (weir__coerce(a, &args[1], tmake(WEIR_TYPE_BIGINT, y->type.nullable), err))
                return err->code;
            rt = x->type;
            riv = x->iv;
        } else if (op == OP_MUL && y->iv && (tx == WEIR_TYPE_INT || tx == WEIR_TYPE_BIGINT) && !x->iv) {
            if (weir__coerce(a, &args[0], tmake(WEIR_TYPE_BIGINT, x->type.nullable), err))
                return err->code;
            rt = y->type;
            riv = y->iv;
        } else {
            return weir__bad_args(f, args, n, err);
        }
        rt.nullable = nullable;
        *out = weir__call_node(a, f, args, 2, rt, fn, F_STRICT);
        if (!*out)
            return nomem(err);
        (*out)->iv = riv;
        (*out)->p0 = op;
        (*out)->p1 = p1;
        if (fn == add_months_kernel && rt.id == WEIR_TYPE_TIMESTAMP_LTZ)
            (*out)->flags |= F_SESSION;
        return 0;
    }
    if (!weir_type_is_numeric(tx) || !weir_type_is_numeric(ty))
        return weir__bad_args(f, args, n, err);
    weir_type rt;
    xkernel fn;
    if (tx == WEIR_TYPE_DOUBLE || ty == WEIR_TYPE_DOUBLE) {
        rt = tmake(WEIR_TYPE_DOUBLE, nullable);
        fn = arith_f64;
    } else if (tx == WEIR_TYPE_DECIMAL || ty == WEIR_TYPE_DECIMAL) {
        int p1, s1, p2, s2, p, s;
        weir__dec_ps(x->type, &p1, &s1);
        weir__dec_ps(y->type, &p2, &s2);
        switch (op) {
        case OP_ADD:
        case OP_SUB:
            s = s1 > s2 ? s1 : s2;
            p = (p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2) + s + 1;
            break;
        case OP_MUL:
            s = s1 + s2;
            p = p1 + p2 + 1;
            break;
        case OP_DIV:
            s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
            p = p1 - s1 + s2 + s;
            break;
        default:
            s = s1 > s2 ? s1 : s2;
            p = (p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2) + s;
        }
        rt = weir__dec_adjust(p, s, true);
        /* Integers enter the DECIMAL kernel as BIGINT with scale 0. */
        for (int k = 0; k < 2; k++)
            if (args[k]->type.id == WEIR_TYPE_INT && weir__coerce(a, &args[k], tmake(WEIR_TYPE_BIGINT, false), err))
                return err->code;
        fn = arith_dec;
        if (weir_type_is_wide(rt) || weir_type_is_wide(args[0]->type) || weir_type_is_wide(args[1]->type))
            fn = arith_dec_wide;
    } else {
        weir_type_id id = (tx == WEIR_TYPE_BIGINT || ty == WEIR_TYPE_BIGINT) ? WEIR_TYPE_BIGINT : WEIR_TYPE_INT;
        rt = tmake(id, nullable);
        fn = id == WEIR_TYPE_INT ? arith_i32 : arith_i64;
    }
    if (fn != arith_dec && fn != arith_dec_wide)
        for (int k = 0; k < 2; k++)
            if (weir__coerce(a, &args[k], rt, err))
                return err->code;
    uint8_t flags = F_STRICT | (fn == arith_dec || fn == arith_dec_wide ? F_MAYNULL : 0);
    *out = weir__call_node(a, f, args, 2, rt, fn, flags);
    if (!*out)
        return nomem(err);
    (*out)->p0 = op;
    return 0;
}

/* ---- comparison kernels ---- */

#define CMP_LOOP(T, EXPR)                                                                                     \
    for (uint32_t i = 0; i < n; i++) {                                                                       \
        T xa = x[i], ya = y[i];                                                                              \
        o[i] = (uint8_t)(EXPR);                                                                              \
    }

#define CMP_KERNEL(NAME, T)                                                                                   \
    static int NAME(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)  \
    {                                                                                                        \
        const T *x = a[0].data, *y = a[1].data;                                                              \
        uint8_t *o = out->data;                                                                              \
        (void)cx, (void)act;                                                                                 \
        switch (e->p0) {                                                                                     \
        case C_EQ: CMP_LOOP(T, xa == ya) break;                                                              \
        case C_NE: CMP_LOOP(T, xa != ya) break;                                                              \
        case C_LT: CMP_LOOP(T, xa < ya) break;                                                               \
        case C_LE: CMP_LOOP(T, xa <= ya) break;                                                              \
        case C_GT: CMP_LOOP(T, xa > ya) break;                                                               \
        default: CMP_LOOP(T, xa >= ya) break;                                                                \
        }                                                                                                    \
        return 0;                                                                                            \
    }

CMP_KERNEL(cmp_u8, uint8_t)
CMP_KERNEL(cmp_i32, int32_t)
CMP_KERNEL(cmp_i64, int64_t)
CMP_KERNEL(cmp_f64, double)

static inline int str_cmp(xstr a, xstr b)
{
    uint32_t m = a.len < b.len ? a.len : b.len;
    int c = m ? memcmp(a.ptr, b.ptr, m) : 0;
    if (c)
        return c;
    return a.len < b.len ? -1 : a.len > b.len;
}

static inline bool cmp_res(int op, int c)
{
    switch (op) {
    case C_EQ: return c == 0;
    case C_NE: return c != 0;
    case C_LT: return c < 0;
    case C_LE: return c <= 0;
    case C_GT: return c > 0;
    default: return c >= 0;
    }
}

static int cmp_str(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    const xstr *x = a[0].data, *y = a[1].data;
    uint8_t *o = out->data;
    (void)cx, (void)act;
    int op = (int)e->p0;
    if (op == C_EQ || op == C_NE) {
        for (uint32_t i = 0; i < n; i++) {
            bool eq = x[i].len == y[i].len && (x[i].len == 0 || !memcmp(x[i].ptr, y[i].ptr, x[i].len));
            o[i] = (uint8_t)(eq == (op == C_EQ));
        }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++)
        o[i] = cmp_res(op, str_cmp(x[i], y[i]));
    return 0;
}

/* x at scale sx against y at scale sy, exactly. */
static inline int dec_cmp(weir_i128 x, int sx, weir_i128 y, int sy)
{
    weir_i128 xv = x, yv = y;
    /* Scaling up overflows only past 2^127, beyond any value of the other side. */
    if (sx < sy && !weir__dec_div(x, sy - sx, 1, &xv))
        return x < 0 ? -1 : 1;
    if (sy < sx && !weir__dec_div(y, sx - sy, 1, &yv))
        return y < 0 ? 1 : -1;
    return xv < yv ? -1 : xv > yv;
}

/* Exact numbers of different scales: compared exactly in 128 bits. */
static int cmp_dec(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    uint8_t *o = out->data;
    (void)cx, (void)act;
    int s1 = arg_scale(e->args[0]), s2 = arg_scale(e->args[1]);
    int op = (int)e->p0;
    if (weir_type_is_wide(a[0].type) || weir_type_is_wide(a[1].type)) {
        for (uint32_t i = 0; i < n; i++)
            o[i] = cmp_res(op, dec_cmp(dec_at(&a[0], i), s1, dec_at(&a[1], i), s2));
        return 0;
    }
    const int64_t *x = a[0].data, *y = a[1].data;
    int ms = s1 > s2 ? s1 : s2;
    __int128 f1 = p10_128(ms - s1), f2 = p10_128(ms - s2);
    for (uint32_t i = 0; i < n; i++) {
        __int128 xv = (__int128)x[i] * f1, yv = (__int128)y[i] * f2;
        o[i] = cmp_res(op, xv < yv ? -1 : xv > yv);
    }
    return 0;
}

/*
 * Compares row i of two vectors of the same type (for GREATEST, IN), or of
 * two exact numbers of any scales (IS DISTINCT FROM), exactly.
 */
static int cmp_at(const xvec *x, uint32_t i, const xvec *y, uint32_t j)
{
    switch (x->type.id) {
    case WEIR_TYPE_BOOLEAN: {
        int a = ((uint8_t *)x->data)[i], b = ((uint8_t *)y->data)[j];
        return (a > b) - (a < b);
    }
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT: {
        int32_t a = ((int32_t *)x->data)[i], b = ((int32_t *)y->data)[j];
        return (a > b) - (a < b);
    }
    case WEIR_TYPE_DOUBLE: {
        double a = ((double *)x->data)[i], b = ((double *)y->data)[j];
        return (a > b) - (a < b);
    }
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: return str_cmp(((xstr *)x->data)[i], ((xstr *)y->data)[j]);
    default: {
        if (weir_type_is_wide(x->type) || weir_type_is_wide(y->type) || arg_scale_t(x->type) != arg_scale_t(y->type))
            return dec_cmp(dec_at(x, i), arg_scale_t(x->type), dec_at(y, j), arg_scale_t(y->type));
        int64_t a = ((int64_t *)x->data)[i], b = ((int64_t *)y->data)[j];
        return (a > b) - (a < b);
    }
    }
}

/* Whether row i of x and of y hold equal values, as '=' says: a DOUBLE NaN equals nothing, not even NaN. */
static bool equal_at(const xvec *x, const xvec *y, uint32_t i)
{
    if (x->type.id == WEIR_TYPE_DOUBLE && y->type.id == WEIR_TYPE_DOUBLE)
        return ((const double *)x->data)[i] == ((const double *)y->data)[i];
    return cmp_at(x, i, y, i) == 0;
}

static int distinct_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    uint8_t *o = out->data;
    for (uint32_t i = 0; i < n; i++) {
        bool n1 = a[0].nulls && a[0].nulls[i], n2 = a[1].nulls && a[1].nulls[i];
        bool distinct = (n1 != n2) || (!n1 && !equal_at(&a[0], &a[1], i));
        o[i] = (uint8_t)(distinct == (e->p0 == C_NE));
    }
    return 0;
}

/* Coerces both comparison operands to a common type; returns the kernel. */
static int bind_cmp_operands(weir_expr_arena *a, const xfunc *f, weir_expr **args, xkernel *fn, weir_error *err)
{
    weir_expr *x = args[0], *y = args[1];
    if (x->iv != y->iv && x->type.id != WEIR_TYPE_NULL && y->type.id != WEIR_TYPE_NULL)
        return weir__bad_args(f, args, 2, err);
    /* Two intervals of one kind (or one and a NULL): BIGINT milliseconds or months, compared as they are. */
    uint8_t xiv = x->iv ? x->iv : y->iv;
    if (xiv && (x->iv == y->iv || x->type.id == WEIR_TYPE_NULL || y->type.id == WEIR_TYPE_NULL)) {
        for (int k = 0; k < 2; k++) {
            if (args[k]->type.id == WEIR_TYPE_NULL &&
                weir__coerce(a, &args[k], tmake(WEIR_TYPE_BIGINT, true), err))
                return err->code;
            args[k]->iv = xiv;
        }
        if (args[0]->type.id == WEIR_TYPE_BIGINT && args[1]->type.id == WEIR_TYPE_BIGINT) {
            *fn = cmp_i64;
            return 0;
        }
    }
    /*
     * Exact numerics with different scales (or 128-bit ones) compare without
     * conversion; so does an integer beside a DECIMAL, whose common type (a
     * BIGINT's DECIMAL(19, 0)) may be 128-bit where neither operand is.
     */
    if (weir__is_exact(x->type.id) && weir__is_exact(y->type.id) &&
        (x->type.id == WEIR_TYPE_DECIMAL || y->type.id == WEIR_TYPE_DECIMAL) &&
        (arg_scale(x) != arg_scale(y) || x->type.id != y->type.id || weir_type_is_wide(x->type) ||
         weir_type_is_wide(y->type))) {
        for (int k = 0; k < 2; k++)
            if (args[k]->type.id == WEIR_TYPE_INT &&
                weir__coerce(a, &args[k], tmake(WEIR_TYPE_BIGINT, args[k]->type.nullable), err))
                return err->code;
        *fn = cmp_dec;
        return 0;
    }
    weir_type t;
    if (!weir__compare_type(x, y, &t))
        return weir__bad_args(f, args, 2, err);
    if (t.id == WEIR_TYPE_NULL)
        t = tmake(WEIR_TYPE_BOOLEAN, true);
    uint8_t iv = x->iv ? x->iv : y->iv;
    for (int k = 0; k < 2; k++) {
        t.nullable = args[k]->type.nullable;
        if (weir__coerce_kind(a, &args[k], t, iv, err))
            return err->code;
    }
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN: *fn = cmp_u8; break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT: *fn = cmp_i32; break;
    case WEIR_TYPE_DOUBLE: *fn = cmp_f64; break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES: *fn = cmp_str; break;
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW:
        /* equal exactly when their encodings are; no order */
        if (f->param != C_EQ && f->param != C_NE)
            return weir__bad_args(f, args, 2, err);
        *fn = cmp_str;
        break;
    default: *fn = cmp_i64;
    }
    return 0;
}

static int bind_cmp(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    if (n != 2)
        return weir__bad_args(f, args, n, err);
    bool nullable = weir__any_nullable(args, 2);
    xkernel fn;
    int rc = bind_cmp_operands(a, f, args, &fn, err);
    if (rc)
        return rc;
    *out = weir__call_node(a, f, args, 2, tmake(WEIR_TYPE_BOOLEAN, nullable), fn, F_STRICT);
    if (!*out)
        return nomem(err);
    (*out)->p0 = f->param;
    return 0;
}

static int bind_distinct(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                         weir_error *err)
{
    if (n != 2)
        return weir__bad_args(f, args, n, err);
    xkernel fn;
    int rc = bind_cmp_operands(a, f, args, &fn, err);
    if (rc)
        return rc;
    /* Exact numbers of different scales stay as they are: cmp_at compares them exactly. */
    *out = weir__call_node(a, f, args, 2, tmake(WEIR_TYPE_BOOLEAN, false), distinct_kernel, 0);
    if (!*out)
        return nomem(err);
    (*out)->p0 = f->param; /* C_NE: IS DISTINCT FROM, C_EQ: IS NOT DISTINCT FROM */
    return 0;
}

/* ---- boolean logic ---- */

static int need_bool(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        if (args[i]->type.id == WEIR_TYPE_NULL) {
            if (weir__coerce(a, &args[i], tmake(WEIR_TYPE_BOOLEAN, true), err))
                return err->code;
        } else if (args[i]->type.id != WEIR_TYPE_BOOLEAN) {
            return weir__bad_args(f, args, n, err);
        }
    }
    return 0;
}

static int bind_andor(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    if (n < 2)
        return weir__bad_args(f, args, n, err);
    int rc = need_bool(a, f, args, n, err);
    if (rc)
        return rc;
    int kind = f->param ? N_OR : N_AND;
    /* Flatten nested ANDs (ORs) into one n-ary node. */
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += args[i]->kind == kind ? args[i]->n_args : 1;
    weir_expr *e = weir__node(a, kind, tmake(WEIR_TYPE_BOOLEAN, weir__any_nullable(args, n)), total);
    if (!e)
        return nomem(err);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (args[i]->kind == kind)
            for (uint32_t j = 0; j < args[i]->n_args; j++)
                e->args[k++] = args[i]->args[j];
        else
            e->args[k++] = args[i];
    }
    e->name = f->name;
    *out = e;
    return 0;
}

static int not_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)e, (void)act;
    const uint8_t *x = a[0].data;
    uint8_t *o = out->data;
    for (uint32_t i = 0; i < n; i++)
        o[i] = !x[i];
    return 0;
}

static int bind_not(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    if (n != 1)
        return weir__bad_args(f, args, n, err);
    int rc = need_bool(a, f, args, n, err);
    if (rc)
        return rc;
    *out = weir__call_node(a, f, args, 1, tmake(WEIR_TYPE_BOOLEAN, args[0]->type.nullable), not_kernel, F_STRICT);
    return *out ? 0 : nomem(err);
}

/* IS [NOT] NULL / TRUE / FALSE: p0 selects the test, never NULL. */
enum { IS_NULL, IS_NOT_NULL, IS_TRUE, IS_NOT_TRUE, IS_FALSE, IS_NOT_FALSE };

static int is_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    uint8_t *o = out->data;
    const uint8_t *nl = a[0].nulls, *x = a[0].data;
    for (uint32_t i = 0; i < n; i++) {
        bool isn = nl && nl[i];
        bool r;
        switch (e->p0) {
        case IS_NULL: r = isn; break;
        case IS_NOT_NULL: r = !isn; break;
        case IS_TRUE: r = !isn && x[i]; break;
        case IS_NOT_TRUE: r = isn || !x[i]; break;
        case IS_FALSE: r = !isn && !x[i]; break;
        default: r = isn || x[i];
        }
        o[i] = r;
    }
    return 0;
}

static int bind_is(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    if (n != 1)
        return weir__bad_args(f, args, n, err);
    if (f->param >= IS_TRUE) {
        int rc = need_bool(a, f, args, n, err);
        if (rc)
            return rc;
    }
    *out = weir__call_node(a, f, args, 1, tmake(WEIR_TYPE_BOOLEAN, false), is_kernel, 0);
    if (!*out)
        return nomem(err);
    (*out)->p0 = f->param;
    return 0;
}

/* ---- BETWEEN (lowered), IN ---- */

static int call2(weir_expr_arena *a, const char *name, weir_expr *x, weir_expr *y, weir_expr **out, weir_error *err)
{
    weir_expr *v[2] = {x, y};
    return weir_expr_call(a, name, v, 2, out, err);
}

static int bind_between(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                        weir_error *err)
{
    if (n != 3)
        return weir__bad_args(f, args, n, err);
    bool neg = f->param != 0;
    weir_expr *lo, *hi;
    int rc = call2(a, neg ? "<" : ">=", args[0], args[1], &lo, err);
    if (!rc)
        rc = call2(a, neg ? ">" : "<=", args[0], args[2], &hi, err);
    if (rc) {
        char b0[64], b1[64], b2[64];
        return weir_error_set(err, WEIR_EPLAN, "cannot apply '%s' to %s, %s and %s", f->name,
                              weir__tname(args[0], b0, sizeof b0), weir__tname(args[1], b1, sizeof b1),
                              weir__tname(args[2], b2, sizeof b2));
    }
    return call2(a, neg ? "OR" : "AND", lo, hi, out, err);
}

static int common_all(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, bool compare, weir_type *t,
                      uint8_t *iv, weir_error *err);

typedef struct inset {
    uint32_t n;
    xvec vals; /* sorted, distinct, same type as the probe */
    bool has_null;
    xstrset *strs; /* STRING / BYTES: the values as a hash set (NULL for other types) */
} inset;

/*
 * cmp_at with a DOUBLE NaN after every number and equal to NaN: a total
 * order, to sort, deduplicate and search IN's set (a NaN probe is found by
 * nothing, as NaN = x is never TRUE).
 */
static int in_cmp(const xvec *x, uint32_t i, const xvec *y, uint32_t j)
{
    if (x->type.id == WEIR_TYPE_DOUBLE) {
        double a = ((const double *)x->data)[i], b = ((const double *)y->data)[j];
        if (a != a || b != b)
            return (a != a) - (b != b);
    }
    return cmp_at(x, i, y, j);
}

static int in_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act;
    const inset *s = e->aux;
    uint8_t *o = out->data;
    if (s->strs) {
        const xstr *x = a[0].data;
        for (uint32_t i = 0; i < n; i++) {
            if (a[0].nulls && a[0].nulls[i])
                continue;
            o[i] = weir__strset_find(s->strs, x[i]) != UINT32_MAX;
            if (!o[i] && s->has_null)
                x_setnull(cx, out, i);
        }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (a[0].nulls && a[0].nulls[i])
            continue;
        uint32_t lo = 0, hi = s->n;
        bool found = false;
        if (a[0].type.id == WEIR_TYPE_DOUBLE && isnan(((const double *)a[0].data)[i]))
            hi = 0;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            int c = in_cmp(&a[0], i, &s->vals, mid);
            if (c == 0) {
                found = true;
                break;
            }
            if (c < 0)
                hi = mid;
            else
                lo = mid + 1;
        }
        o[i] = found;
        if (!found && s->has_null)
            x_setnull(cx, out, i);
    }
    return 0;
}

static size_t inset_width(weir_type t)
{
    if (weir_type_is_wide(t))
        return sizeof(weir_i128);
    return weir_type_is_varlen(t.id) ? sizeof(xstr) : t.id == WEIR_TYPE_BOOLEAN ? 1 : weir_type_width(t.id) == 4 ? 4 : 8;
}

uint32_t weir__in_size(const weir_expr *e, bool *has_null)
{
    const inset *s = e->aux;
    *has_null = s->has_null;
    return s->n;
}

void weir__in_value(const weir_expr *e, uint32_t i, weir_value *out)
{
    const inset *s = e->aux;
    size_t w = inset_width(s->vals.type);
    memset(out, 0, sizeof *out);
    out->type = s->vals.type;
    memcpy(&out->v, (const char *)s->vals.data + i * w, w);
}

static _Thread_local const xvec *g_sort_vec; /* qsort has no context argument */
static int sort_idx_cmp(const void *pa, const void *pb)
{
    return in_cmp(g_sort_vec, *(const uint32_t *)pa, g_sort_vec, *(const uint32_t *)pb);
}

/*
 * Whether IN compares exactly, each value at its own scale, as = does:
 * exact numbers (NULLs aside) of which one is a DECIMAL. No common type
 * holds both a 38-digit DECIMAL(38, 0) and 1.5, so none is cast to one.
 */
static bool in_exact(weir_expr *const *args, uint32_t n)
{
    bool dec = false;
    for (uint32_t i = 0; i < n; i++) {
        if (args[i]->type.id == WEIR_TYPE_NULL)
            continue;
        if (args[i]->iv || !weir__is_exact(args[i]->type.id))
            return false;
        dec |= args[i]->type.id == WEIR_TYPE_DECIMAL;
    }
    return dec;
}

/*
 * The DECIMAL an exact IN's literal list is kept in: the integral digits of
 * every literal and the largest scale of all the values, the probe's too
 * (so that a probe of that scale compares unscaled), else of the literals;
 * false when even that passes 38 digits (the list is then compared value
 * by value). Every literal fits it without rounding.
 */
static bool in_set_type(weir_expr *const *args, uint32_t n, weir_type *out)
{
    int d = 0, s_lit = 0, s_all = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (args[i]->type.id == WEIR_TYPE_NULL)
            continue;
        int p, s;
        weir__dec_ps(args[i]->type, &p, &s);
        s_all = s > s_all ? s : s_all;
        if (i == 0)
            continue;
        s_lit = s > s_lit ? s : s_lit;
        d = p - s > d ? p - s : d;
    }
    int s = d + s_all <= WEIR_DEC_MAX_PRECISION ? s_all : s_lit;
    if (d + s > WEIR_DEC_MAX_PRECISION)
        return false;
    *out = weir_type_decimal((uint8_t)(d + s > 0 ? d + s : 1), (uint8_t)s, false);
    return true;
}

static int bind_in(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    if (n < 2)
        return weir__bad_args(f, args, n, err);
    bool neg = f->param != 0;
    bool exact = in_exact(args, n);
    weir_type t = tmake(WEIR_TYPE_NULL, true);
    uint8_t iv;
    if (!exact) {
        int crc = common_all(a, f, args, n, true, &t, &iv, err);
        if (crc)
            return crc;
    }
    bool all_lit = true, nullable = args[0]->type.nullable;
    for (uint32_t i = 1; i < n; i++) {
        all_lit &= args[i]->kind == N_LITERAL;
        nullable |= args[i]->type.nullable || args[i]->type.id == WEIR_TYPE_NULL;
    }
    if (exact && all_lit && in_set_type(args, n, &t)) {
        /* the literals as one DECIMAL that holds each */
        for (uint32_t i = 1; i < n; i++)
            if (weir__coerce(a, &args[i], t, err))
                return err->code;
        /*
         * The operand at the set's scale when that is a 64-bit DECIMAL too
         * (scaled up, every value fits: cmp_at compares them unscaled), else
         * as it is (an INT as a BIGINT, for cmp_at), compared exactly.
         */
        int p, sc;
        weir__dec_ps(args[0]->type, &p, &sc);
        weir_type pt = tmake(WEIR_TYPE_BIGINT, args[0]->type.nullable);
        if (sc < t.scale && !weir_type_is_wide(t) && p - sc + t.scale <= 18)
            pt = weir_type_decimal((uint8_t)(p - sc + t.scale), t.scale, args[0]->type.nullable);
        if ((pt.id == WEIR_TYPE_DECIMAL || args[0]->type.id == WEIR_TYPE_INT) && weir__coerce(a, &args[0], pt, err))
            return err->code;
    } else if (exact) {
        all_lit = false;
    }
    if (t.id == WEIR_TYPE_NULL)
        t = tmake(WEIR_TYPE_BOOLEAN, true);
    if (!all_lit) {
        /* General form: x = e1 OR x = e2 ... (= compares exact numbers exactly) */
        weir_expr *acc2 = NULL;
        for (uint32_t i = 1; i < n; i++) {
            weir_expr *eq;
            int rc = call2(a, "=", args[0], args[i], &eq, err);
            if (!rc && acc2)
                rc = call2(a, "OR", acc2, eq, &eq, err);
            if (rc)
                return rc;
            acc2 = eq;
        }
        if (!neg) {
            *out = acc2;
            return 0;
        }
        return weir_expr_call(a, "NOT", &acc2, 1, out, err);
    }
    inset *s = weir__arena_alloc(a, sizeof *s);
    if (!s)
        return nomem(err);
    size_t w = inset_width(t);
    char *vals = weir__arena_alloc(a, (n - 1) * w);
    uint32_t *idx = weir__arena_alloc(a, (n - 1) * sizeof *idx);
    char *sorted = weir__arena_alloc(a, (n - 1) * w);
    if (!vals || !idx || !sorted)
        return nomem(err);
    uint32_t m = 0;
    for (uint32_t i = 1; i < n; i++) {
        const weir_value *v = &args[i]->lit;
        if (v->is_null) {
            s->has_null = true;
            continue;
        }
        memcpy(vals + m * w, &v->v, w);
        idx[m] = m;
        m++;
    }
    xvec tmpv = {t, vals, NULL};
    g_sort_vec = &tmpv;
    if (m > 1)
        qsort(idx, m, sizeof *idx, sort_idx_cmp);
    uint32_t k = 0;
    for (uint32_t i = 0; i < m; i++) {
        if (k && in_cmp(&tmpv, idx[i], &tmpv, idx[i - 1]) == 0)
            continue;
        memcpy(sorted + k * w, vals + idx[i] * w, w);
        k++;
    }
    s->n = k;
    s->vals = (xvec){t, sorted, NULL};
    if (t.id == WEIR_TYPE_STRING || t.id == WEIR_TYPE_BYTES) {
        s->strs = weir__arena_alloc(a, sizeof *s->strs);
        if (!s->strs || weir__strset_build(a, (const xstr *)(const void *)sorted, k, s->strs))
            return nomem(err);
    }
    weir_expr *e = weir__call_node(a, f, args, 1, tmake(WEIR_TYPE_BOOLEAN, nullable), in_kernel, F_STRICT | F_MAYNULL);
    if (!e)
        return nomem(err);
    e->aux = s;
    e->name = "IN";
    if (!neg) {
        *out = e;
        return 0;
    }
    return weir_expr_call(a, "NOT", &e, 1, out, err);
}

/* ---- string literal sets (IN, CASE as a switch) ---- */

int weir__strset_build(weir_expr_arena *a, const xstr *keys, uint32_t n, xstrset *out)
{
    uint32_t cap = 8;
    while (cap < 2 * n)
        cap *= 2;
    out->slots = weir__arena_alloc(a, cap * sizeof *out->slots);
    if (!out->slots)
        return WEIR_ENOMEM;
    memset(out->slots, 0, cap * sizeof *out->slots);
    out->mask = cap - 1;
    for (uint32_t k = 0; k < n; k++) {
        if (weir__strset_find(out, keys[k]) != UINT32_MAX)
            continue; /* the first of equal keys keeps its value */
        uint32_t i = (uint32_t)weir__strset_hash(keys[k].ptr, keys[k].len) & out->mask;
        while (out->slots[i].val)
            i = (i + 1) & out->mask;
        out->slots[i] = (xstrset_slot){keys[k].ptr, keys[k].len, k + 1};
    }
    return 0;
}

/*
 * Whether c is `x = 'literal'` (or `'literal' = x`) comparing strings byte
 * for byte (the kernel cmp_str, as = binds STRING and BYTES); *lit: the
 * argument that is the literal. A shared condition is looked through.
 */
static const weir_expr *str_eq_lit(const weir_expr *c, uint32_t *lit)
{
    if (c->kind == N_SHARED)
        c = c->args[0];
    if (c->kind != N_CALL || c->fn != cmp_str || c->p0 != C_EQ || c->n_args != 2)
        return NULL;
    for (uint32_t j = 0; j < 2; j++) {
        const weir_expr *l = c->args[j], *x = c->args[1 - j];
        if (l->kind == N_LITERAL && !l->lit.is_null && x->kind != N_LITERAL &&
            (l->type.id == WEIR_TYPE_STRING || l->type.id == WEIR_TYPE_BYTES) && x->type.id == l->type.id) {
            *lit = j;
            return c;
        }
    }
    return NULL;
}

int weir__case_switch_prepare(weir_expr_arena *a, weir_expr *e)
{
    if (e->kind != N_CASE || e->n_args < 3)
        return 0;
    uint32_t n_when = (e->n_args - 1) / 2;
    enum { DCAP = 1024 };
    char first[DCAP], other[DCAP];
    size_t first_len = 0;
    const weir_expr *x0 = NULL;
    xstr *keys = weir__arena_alloc(a, n_when * sizeof *keys);
    if (!keys)
        return WEIR_ENOMEM;
    for (uint32_t k = 0; k < n_when; k++) {
        uint32_t lit;
        const weir_expr *c = str_eq_lit(e->args[2 * k], &lit);
        if (!c)
            return 0;
        const weir_expr *x = c->args[1 - lit];
        keys[k] = c->args[lit]->lit.v.s;
        if (k == 0) {
            /* x is computed once for every WHEN: it must give the same values each time */
            if (weir__has_volatile_or_session(x) || (first_len = weir_expr_digest(x, first, DCAP)) + 1 >= DCAP)
                return 0;
            x0 = x;
            continue;
        }
        size_t len = weir_expr_digest(x, other, DCAP);
        if (len != first_len || memcmp(first, other, len) || x->iv != x0->iv ||
            !weir_type_same(x->type, x0->type) || x->type.nullable != x0->type.nullable)
            return 0;
    }
    xcase_switch *sw = weir__arena_alloc(a, sizeof *sw);
    if (!sw)
        return WEIR_ENOMEM;
    sw->n_when = n_when;
    if (weir__strset_build(a, keys, n_when, &sw->set))
        return WEIR_ENOMEM;
    e->aux = sw;
    return 0;
}

const weir_expr *weir__case_switch_subject(const weir_expr *e, uint32_t k)
{
    const xcase_switch *sw = e->aux;
    uint32_t lit;
    const weir_expr *c = str_eq_lit(e->args[2 * k], &lit);
    /* the literal must still be the one the set sends to this WHEN (or to an earlier one of the same text) */
    if (!c || weir__strset_find(&sw->set, c->args[lit]->lit.v.s) > k)
        return NULL;
    return c->args[1 - lit];
}

/* ---- COALESCE, IFNULL, NULLIF, IF ---- */

/* The common type of args (weir__compare_type's when compare), each coerced to it. */
static int common_all(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, bool compare, weir_type *t,
                      uint8_t *iv, weir_error *err)
{
    weir_expr *acc = args[0];
    *t = args[0]->type;
    *iv = args[0]->iv;
    for (uint32_t i = 1; i < n; i++) {
        weir_type ct;
        if (!(compare ? weir__compare_type : weir__common_type)(acc, args[i], &ct))
            return weir__bad_args(f, args, n, err);
        *t = ct;
        if (args[i]->iv)
            *iv = args[i]->iv;
        if (args[i]->type.id != WEIR_TYPE_NULL) {
            /* A typed stand-in (not a literal) for the widest type so far. */
            weir_expr *w = weir__node(a, N_CALL, ct, 0);
            if (!w)
                return nomem(err);
            w->iv = *iv;
            acc = w;
        }
    }
    if (t->id == WEIR_TYPE_NULL)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        weir_type ti = *t;
        ti.nullable = args[i]->type.nullable || args[i]->type.id == WEIR_TYPE_NULL;
        if (weir__coerce_kind(a, &args[i], ti, *iv, err))
            return err->code;
    }
    return 0;
}

static int bind_coalesce(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                         weir_error *err)
{
    if (n < 1 || (f->param && n != 2))
        return weir__bad_args(f, args, n, err);
    weir_type t;
    uint8_t iv;
    int rc = common_all(a, f, args, n, false, &t, &iv, err);
    if (rc)
        return rc;
    bool nullable = true;
    for (uint32_t i = 0; i < n; i++)
        nullable &= args[i]->type.nullable;
    t.nullable = nullable;
    weir_expr *e = weir__node(a, N_COALESCE, t, n);
    if (!e)
        return nomem(err);
    for (uint32_t i = 0; i < n; i++)
        e->args[i] = args[i];
    e->iv = iv;
    e->name = f->name;
    *out = e;
    return 0;
}

static int bind_if(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    if (n != 3)
        return weir__bad_args(f, args, n, err);
    int rc = need_bool(a, f, args, 1, err);
    if (rc)
        return rc;
    weir_type t;
    uint8_t iv;
    rc = common_all(a, f, args + 1, 2, false, &t, &iv, err);
    if (rc)
        return rc;
    t.nullable = args[1]->type.nullable || args[2]->type.nullable || t.id == WEIR_TYPE_NULL;
    weir_expr *e = weir__node(a, N_IF, t, 3);
    if (!e)
        return nomem(err);
    for (int i = 0; i < 3; i++)
        e->args[i] = args[i];
    e->iv = iv;
    e->name = "IF";
    *out = e;
    return 0;
}

static int bind_nullif(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    if (n != 2)
        return weir__bad_args(f, args, n, err);
    weir_expr *eq;
    weir_expr *v[2] = {args[0], args[1]};
    int rc = weir_expr_call(a, "=", v, 2, &eq, err);
    if (rc)
        return weir__bad_args(f, args, n, err);
    weir_type t = args[0]->type;
    weir_expr *nul = weir_expr_lit_null(a, t.id == WEIR_TYPE_NULL ? tmake(WEIR_TYPE_NULL, true) : t);
    if (!nul)
        return nomem(err);
    nul->iv = args[0]->iv;
    return weir_expr_case(a, &eq, &nul, 1, args[0], out, err);
}

/* Java's Double.compare, which Flink's GREATEST and LEAST use: NaN above every other value, -0.0 below 0.0. */
static int java_double_cmp(double a, double b)
{
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    bool na = isnan(a), nb = isnan(b);
    if (na || nb)
        return (int)na - (int)nb;
    return (int)(signbit(b) != 0) - (int)(signbit(a) != 0);
}

/* GREATEST / LEAST: NULL if any argument is NULL (Flink); the first of equal values is kept. */
static int greatest_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    size_t w = e->type.id == WEIR_TYPE_BOOLEAN ? 1 : weir_type_width(e->type.id) == 4 ? 4
                : weir_type_is_varlen(e->type.id)       ? sizeof(xstr)
                                                          : 8;
    bool least = e->p0 != 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t best = 0;
        for (uint32_t k = 1; k < e->n_args; k++) {
            int c = e->type.id == WEIR_TYPE_DOUBLE
                        ? java_double_cmp(((const double *)a[k].data)[i], ((const double *)a[best].data)[i])
                        : cmp_at(&a[k], i, &a[best], i);
            if (least ? c < 0 : c > 0)
                best = k;
        }
        memcpy((char *)out->data + i * w, (const char *)a[best].data + i * w, w);
    }
    return 0;
}

static int bind_greatest(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                         weir_error *err)
{
    if (n < 1)
        return weir__bad_args(f, args, n, err);
    weir_type t;
    uint8_t iv;
    int rc = common_all(a, f, args, n, false, &t, &iv, err);
    if (rc)
        return rc;
    t.nullable = weir__any_nullable(args, n);
    *out = weir__call_node(a, f, args, n, t, greatest_kernel, F_STRICT);
    if (!*out)
        return nomem(err);
    (*out)->iv = iv;
    (*out)->p0 = f->param;
    return 0;
}

/*
 * $AVG(sum, count): the average that AVG gives for that sum and count of
 * its rows, for a split aggregation that sums the partial sums and counts
 * (planner/splitdistinct.c); NULL for a count of 0. A BIGINT sum (of INT or
 * BIGINT values) is divided truncating toward zero; a DECIMAL(38, s) one
 * gives DECIMAL(38, max(6, s)), HALF_UP, as AVG over DECIMAL does. Not
 * callable from SQL (its name is no identifier).
 */
static int avg_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    const int64_t *cnt = a[1].data;
    bool dec = e->type.id == WEIR_TYPE_DECIMAL;
    int up = dec ? e->type.scale - e->args[0]->type.scale : 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        if (cnt[i] == 0) {
            x_setnull(cx, out, i);
        } else if (!dec) {
            ((int64_t *)out->data)[i] = ((const int64_t *)a[0].data)[i] / cnt[i];
        } else {
            weir_i128 q;
            if (!weir__dec_div(dec_at(&a[0], i), up, cnt[i], &q) || !weir__dec_fits(q, 38))
                x_setnull(cx, out, i);
            else
                ((weir_i128 *)out->data)[i] = q;
        }
    }
    return 0;
}

static int bind_avg(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                    weir_error *err)
{
    if (n != 2 || args[1]->type.id != WEIR_TYPE_BIGINT || args[1]->iv ||
        !(args[0]->type.id == WEIR_TYPE_BIGINT || weir_type_is_wide(args[0]->type)) || args[0]->iv)
        return weir__bad_args(f, args, n, err);
    weir_type t = args[0]->type;
    if (t.id == WEIR_TYPE_DECIMAL && t.scale < 6)
        t.scale = 6;
    t.nullable = true;
    *out = weir__call_node(a, f, args, n, t, avg_kernel, F_STRICT);
    return *out ? 0 : nomem(err);
}

const xfunc weir__funcs_core[] = {
    {"+", "numeric + numeric", bind_arith, OP_ADD},
    {"-", "numeric - numeric", bind_arith, OP_SUB},
    {"*", "numeric * numeric", bind_arith, OP_MUL},
    {"/", "numeric / numeric", bind_arith, OP_DIV},
    {"%", "numeric % numeric", bind_arith, OP_MOD},
    {"MOD", "MOD(numeric, numeric)", bind_arith, OP_MOD},
    {"$AVG", "$AVG(sum, count)", bind_avg, 0},
    {"=", "a = b", bind_cmp, C_EQ},
    {"<>", "a <> b", bind_cmp, C_NE},
    {"!=", "a != b", bind_cmp, C_NE},
    {"<", "a < b", bind_cmp, C_LT},
    {"<=", "a <= b", bind_cmp, C_LE},
    {">", "a > b", bind_cmp, C_GT},
    {">=", "a >= b", bind_cmp, C_GE},
    {"IS DISTINCT FROM", "a IS DISTINCT FROM b", bind_distinct, C_NE},
    {"IS NOT DISTINCT FROM", "a IS NOT DISTINCT FROM b", bind_distinct, C_EQ},
    {"AND", "BOOLEAN AND BOOLEAN", bind_andor, 0},
    {"OR", "BOOLEAN OR BOOLEAN", bind_andor, 1},
    {"NOT", "NOT BOOLEAN", bind_not, 0},
    {"IS NULL", "value IS NULL", bind_is, IS_NULL},
    {"IS NOT NULL", "value IS NOT NULL", bind_is, IS_NOT_NULL},
    {"IS TRUE", "BOOLEAN IS TRUE", bind_is, IS_TRUE},
    {"IS NOT TRUE", "BOOLEAN IS NOT TRUE", bind_is, IS_NOT_TRUE},
    {"IS FALSE", "BOOLEAN IS FALSE", bind_is, IS_FALSE},
    {"IS NOT FALSE", "BOOLEAN IS NOT FALSE", bind_is, IS_NOT_FALSE},
    {"IS UNKNOWN", "BOOLEAN IS UNKNOWN", bind_is, IS_NULL},
    {"IS NOT UNKNOWN", "BOOLEAN IS NOT UNKNOWN", bind_is, IS_NOT_NULL},
    {"BETWEEN", "value BETWEEN low AND high", bind_between, 0},
    {"NOT BETWEEN", "value NOT BETWEEN low AND high", bind_between, 1},
    {"IN", "value IN (list)", bind_in, 0},
    {"NOT IN", "value NOT IN (list)", bind_in, 1},
    {"COALESCE", "COALESCE(value, ...)", bind_coalesce, 0},
    {"IFNULL", "IFNULL(value, default)", bind_coalesce, 1},
    {"NULLIF", "NULLIF(a, b)", bind_nullif, 0},
    {"IF", "IF(BOOLEAN, a, b)", bind_if, 0},
    {"GREATEST", "GREATEST(value, ...)", bind_greatest, 0},
    {"LEAST", "LEAST(value, ...)", bind_greatest, 1},
    {NULL, NULL, NULL, 0},
};
