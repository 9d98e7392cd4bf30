/*
 * expr/f_math.c - numeric functions: ABS, SIGN, FLOOR, CEIL, ROUND,
 * TRUNCATE, POWER, SQRT, EXP, LN, LOG, LOG10, LOG2, trigonometry, PI, E,
 * RAND, RAND_INTEGER.
 *
 * ROUND and TRUNCATE of DOUBLE round the value's Double.toString text
 * (what Java's BigDecimal.valueOf sees), so ROUND(2.675, 2) is 2.68 as in
 * Flink. RAND(seed) and RAND_INTEGER(seed, n) reproduce java.util.Random, so
 * a seeded sequence matches Flink's; each call site keeps its own generator
 * in the evaluation env (per operator instance), continuing across batches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "expr/expr_internal.h"
#include "format/convert.h"
#include "util/cnum.h"

static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

static __int128 p10(int k)
{
    __int128 v = 1;
    while (k-- > 0)
        v *= 10;
    return v;
}

/* Casts numeric argument k to DOUBLE; fails for other types. */
static int want_double(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_error *err)
{
    for (uint32_t k = 0; k < n; k++) {
        weir_type_id id = args[k]->type.id;
        if ((!weir_type_is_numeric(id) && id != WEIR_TYPE_NULL) || args[k]->iv)
            return weir__bad_args(f, args, n, err);
        if (weir__coerce(a, &args[k], tmake(WEIR_TYPE_DOUBLE, args[k]->type.nullable || id == WEIR_TYPE_NULL), err))
            return err->code;
    }
    return 0;
}

/* ---- DOUBLE -> DOUBLE functions ---- */

enum { M_SQRT, M_EXP, M_LN, M_LOG10, M_LOG2, M_SIN, M_COS, M_TAN, M_COT, M_ASIN, M_ACOS, M_ATAN, M_DEGREES,
       M_RADIANS, M_SINH, M_COSH, M_TANH, M_POWER, M_LOG, M_ATAN2 };

static int unary_dbl_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    const double *x = a[0].data;
    double *o = out->data;
    switch (e->p0) {
#define L(OP, EXPR)                                                                                                    \
    case OP:                                                                                                           \
        for (uint32_t i = 0; i < n; i++) {                                                                             \
            double v = x[i];                                                                                           \
            o[i] = (EXPR);                                                                                             \
        }                                                                                                              \
        break;
        L(M_SQRT, sqrt(v))
        L(M_EXP, exp(v))
        L(M_LN, log(v))
        L(M_LOG10, log10(v))
        L(M_LOG2, log(v) / log(2.0))
        L(M_SIN, sin(v))
        L(M_COS, cos(v))
        L(M_TAN, tan(v))
        L(M_COT, 1.0 / tan(v))
        L(M_ASIN, asin(v))
        L(M_ACOS, acos(v))
        L(M_ATAN, atan(v))
        L(M_DEGREES, v * (180.0 / M_PI))
        L(M_RADIANS, v * (M_PI / 180.0)) /* Java 9 and later: one multiplication, as DEGREES */
        L(M_SINH, sinh(v))
        L(M_COSH, cosh(v))
        L(M_TANH, tanh(v))
#undef L
    default: break;
    }
    return 0;
}

/* Java's Math.pow: C's pow but for a NaN exponent, which gives NaN even for a base of 1, and a base of
 * +-1 to an infinite power, NaN too (C gives 1 in both). */
static double java_pow(double x, double y)
{
    if (isnan(y) || (isinf(y) && fabs(x) == 1.0))
        return NAN;
    return pow(x, y);
}

static int binary_dbl_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    const double *x = a[0].data, *y = a[1].data;
    double *o = out->data;
    for (uint32_t i = 0; i < n; i++) {
        switch (e->p0) {
        case M_POWER: o[i] = java_pow(x[i], y[i]); break;
        case M_LOG: o[i] = log(y[i]) / log(x[i]); break; /* LOG(base, x) */
        default: o[i] = atan2(x[i], y[i]);
        }
    }
    return 0;
}

static int bind_dbl(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    int op = (int)f->param;
    bool binary = op >= M_POWER;
    if (op == M_LN && f->name[1] == 'O' && n == 2) /* LOG(base, x) */
        op = M_LOG, binary = true;
    if (n != (binary ? 2u : 1u))
        return weir__bad_args(f, args, n, err);
    int rc = want_double(a, f, args, n, err);
    if (rc)
        return rc;
    *out = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_DOUBLE, weir__any_nullable(args, n)),
                           binary ? binary_dbl_kernel : unary_dbl_kernel, F_STRICT);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = op;
    return 0;
}

/* ---- ABS, SIGN ---- */

/* Value i of a DECIMAL vector of either width. */
static inline weir_i128 dec_get(const xvec *v, uint32_t i)
{
    return weir_type_is_wide(v->type) ? ((const weir_i128 *)v->data)[i] : ((const int64_t *)v->data)[i];
}

/* Stores r into row i of a DECIMAL result, or NULL when it needs more digits than the type has. */
static inline void dec_put(ecx *cx, xvec *out, uint32_t i, weir_i128 r)
{
    if (!weir__dec_fits(r, out->type.precision))
        x_setnull(cx, out, i);
    else if (weir_type_is_wide(out->type))
        ((weir_i128 *)out->data)[i] = r;
    else
        ((int64_t *)out->data)[i] = (int64_t)r;
}

/* x (scale s) to d fraction digits (d may be negative), HALF_UP or truncated; the result at scale max(d, 0). */
static weir_i128 dec_round(weir_i128 x, int s, int d, bool trunc)
{
    if (d >= s)
        return x;
    int k = s - d;
    if (k > 38)
        return 0; /* |x| < 10^38 <= 10^k / 2 */
    weir_i128 f = weir__pow10_128[k], q = x / f, r = x % f;
    if (r < 0)
        r = -r;
    if (!trunc && r >= f - r)
        q += x < 0 ? -1 : 1;
    if (d < 0) {
        weir_i128 out;
        return weir__dec_div(q, -d, 1, &out) ? out : (q ? (weir_i128)1 << 126 : 0); /* too big: overflows the type */
    }
    return q;
}

static int abs_sign_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    bool sign = e->p0 != 0;
    if (weir_type_is_wide(e->type)) {
        weir_i128 one = weir__pow10_128[e->type.scale];
        for (uint32_t i = 0; i < n; i++) {
            weir_i128 x = ((const weir_i128 *)a[0].data)[i];
            ((weir_i128 *)out->data)[i] = sign ? one * ((x > 0) - (x < 0)) : (x < 0 ? -x : x);
        }
        return 0;
    }
    switch (e->type.id) {
    case WEIR_TYPE_INT: {
        const int32_t *x = a[0].data;
        int32_t *o = out->data;
        for (uint32_t i = 0; i < n; i++)
            o[i] = sign ? (x[i] > 0) - (x[i] < 0) : (int32_t)(x[i] < 0 ? 0u - (uint32_t)x[i] : (uint32_t)x[i]);
        break;
    }
    case WEIR_TYPE_DOUBLE: {
        const double *x = a[0].data;
        double *o = out->data;
        for (uint32_t i = 0; i < n; i++)
            /* Math.signum: a zero (-0.0 too) and NaN are their own sign */
            o[i] = sign ? (isnan(x[i]) || x[i] == 0 ? x[i] : copysign(1.0, x[i])) : fabs(x[i]);
        break;
    }
    default: {
        const int64_t *x = a[0].data;
        int64_t *o = out->data;
        int64_t one = e->type.id == WEIR_TYPE_DECIMAL ? weir__pow10[e->type.scale] : 1;
        for (uint32_t i = 0; i < n; i++)
            o[i] = sign ? one * ((x[i] > 0) - (x[i] < 0)) : (int64_t)(x[i] < 0 ? 0ull - (uint64_t)x[i] : (uint64_t)x[i]);
    }
    }
    return 0;
}

static int bind_abs(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    if (n != 1 || (!weir_type_is_numeric(args[0]->type.id) && args[0]->type.id != WEIR_TYPE_NULL))
        return weir__bad_args(f, args, n, err);
    if (args[0]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[0], tmake(WEIR_TYPE_INT, true), err))
        return err->code;
    *out = weir__call_node(a, f, args, 1, args[0]->type, abs_sign_kernel, F_STRICT);
    if (!*out)
        return nomem_b(err);
    (*out)->iv = args[0]->iv;
    (*out)->p0 = f->param;
    return 0;
}

/* ---- FLOOR, CEIL ---- */

static int floor_ceil_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    bool ceil_ = e->p0 != 0;
    if (weir_type_is_wide(a[0].type) || weir_type_is_wide(e->type)) {
        weir_i128 d = weir__pow10_128[a[0].type.scale];
        for (uint32_t i = 0; i < n; i++) {
            weir_i128 x = dec_get(&a[0], i), q = x / d, r = x % d;
            if (r && (x < 0) != ceil_)
                q += ceil_ ? 1 : -1;
            dec_put(cx, out, i, q);
        }
        return 0;
    }
    switch (a[0].type.id) {
    case WEIR_TYPE_DOUBLE: {
        const double *x = a[0].data;
        double *o = out->data;
        for (uint32_t i = 0; i < n; i++)
            o[i] = ceil_ ? ceil(x[i]) : floor(x[i]);
        break;
    }
    case WEIR_TYPE_DECIMAL: {
        const int64_t *x = a[0].data;
        int64_t *o = out->data;
        int64_t d = weir__pow10[a[0].type.scale];
        for (uint32_t i = 0; i < n; i++) {
            int64_t q = x_floordiv(x[i], d);
            if (ceil_ && q * d != x[i])
                q++;
            o[i] = q;
        }
        break;
    }
    default: memcpy(out->data, a[0].data, (size_t)n * (a[0].type.id == WEIR_TYPE_INT ? 4 : 8));
    }
    return 0;
}

int weir__bind_floor_time(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                          weir_error *err, bool ceil_);

static int bind_floor(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    if (n == 2)
        return weir__bind_floor_time(a, f, args, n, out, err, f->param != 0);
    if (n != 1 || (!weir_type_is_numeric(args[0]->type.id) && args[0]->type.id != WEIR_TYPE_NULL))
        return weir__bad_args(f, args, n, err);
    if (args[0]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[0], tmake(WEIR_TYPE_DOUBLE, true), err))
        return err->code;
    weir_type t = args[0]->type;
    if (t.id == WEIR_TYPE_DECIMAL) {
        int p = t.precision - t.scale + (t.scale > 0);
        t = weir_type_decimal((uint8_t)(p > 38 ? 38 : p < 1 ? 1 : p), 0, t.nullable);
    }
    *out = weir__call_node(a, f, args, 1, t, floor_ceil_kernel, F_STRICT);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = f->param;
    return 0;
}

/* ---- ROUND, TRUNCATE ---- */

/* Rounds (HALF_UP) or truncates x to d decimal places through its Double.toString text, as Java's
 * BigDecimal does. */
static double round_dbl(double x, int d, bool trunc)
{
    /* A zero result is +0.0 whatever the sign of x: BigDecimal has no signed zero. */
    if (x == 0)
        return 0.0;
    if (!isfinite(x))
        return x;
    /* |x| < 10^309 and a non-zero |x| >= 10^-324: past 400 digits either way, x itself or 0 (keeps keep in
     * range for any INT d) */
    if (d > 400)
        return x;
    if (d < -400)
        return 0.0;
    char dig[24];
    int dexp;
    int nd = weir__fmt_java_digits(x, true, dig, &dexp), e10 = dexp - 1;
    bool neg = x < 0;
    /* value = 0.dig * 10^(e10 + 1) */
    int keep = e10 + 1 + d;
    if (keep >= nd)
        return x;
    int exp = e10 + 1;
    char res[32];
    int nr = keep > 0 ? keep : 0;
    memcpy(res, dig, (size_t)nr);
    bool up = !trunc && keep >= 0 && dig[keep] >= '5';
    if (up) {
        int k = nr - 1;
        while (k >= 0 && res[k] == '9')
            res[k--] = '0';
        if (k >= 0) {
            res[k]++;
        } else {
            memmove(res + 1, res, (size_t)nr);
            res[0] = '1';
            nr++;
            exp++;
        }
    }
    if (nr == 0)
        return 0.0;
    res[nr] = 0;
    char out[64];
    snprintf(out, sizeof out, "%s0.%se%d", neg ? "-" : "", res, exp);
    return weir__strtod_c(out, NULL);
}

/* Rounds an exact value with scale s to d digits (d may be negative), result at scale rs. */
static __int128 round_exact(__int128 v, int s, int d, int rs, bool trunc)
{
    if (d >= s)
        return v * p10(rs - s);
    __int128 div = p10(s - d);
    __int128 q = v / div, r = v % div;
    if (!trunc) {
        if (r < 0)
            r = -r;
        if (2 * r >= div)
            q += v < 0 ? -1 : 1;
    }
    /* q is in units of 10^-d; express at scale rs. */
    return rs >= d ? q * p10(rs - d) : q / p10(d - rs);
}

static int round_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    bool trunc = e->p0 != 0;
    const int32_t *dv = e->n_args > 1 ? a[1].data : NULL;
    if (weir_type_is_wide(a[0].type) || weir_type_is_wide(e->type)) {
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, act, i))
                continue;
            int d = dv ? dv[i] : 0;
            weir_i128 r = dec_round(dec_get(&a[0], i), a[0].type.scale, d, trunc);
            weir_i128 o;
            /* The rounded value at scale max(d, 0), then at the result scale. */
            if (!weir__dec_rescale(r, d > 0 ? (d < a[0].type.scale ? d : a[0].type.scale) : 0, e->type.scale, &o))
                x_setnull(cx, out, i);
            else
                dec_put(cx, out, i, o);
        }
        return 0;
    }
    switch (a[0].type.id) {
    case WEIR_TYPE_DOUBLE: {
        const double *x = a[0].data;
        double *o = out->data;
        for (uint32_t i = 0; i < n; i++)
            o[i] = round_dbl(x[i], dv ? dv[i] : 0, trunc);
        break;
    }
    case WEIR_TYPE_INT: {
        /* The low 32 bits of the rounded value, as Java's BigDecimal.intValue; below -20 digits as at -20. */
        const int32_t *x = a[0].data;
        int32_t *o = out->data;
        for (uint32_t i = 0; i < n; i++) {
            int d = dv ? dv[i] : 0;
            o[i] = (int32_t)(uint32_t)round_exact(x[i], 0, d < -20 ? -20 : d, 0, trunc);
        }
        break;
    }
    default: {
        const int64_t *x = a[0].data;
        int64_t *o = out->data;
        bool dec = a[0].type.id == WEIR_TYPE_DECIMAL;
        int s = dec ? a[0].type.scale : 0;
        int rs = e->type.id == WEIR_TYPE_DECIMAL ? e->type.scale : 0;
        __int128 lim = p10(dec ? e->type.precision : 0);
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, act, i))
                continue;
            /* Below -20 digits every value rounds to 0 as at -20 (|x| < 10^19 <= 10^20 / 2); 10^(s + 20)
             * still fits 128 bits. */
            int d = dv ? dv[i] : 0;
            if (d < -20)
                d = -20;
            __int128 r = round_exact(x[i], s, d, rs, trunc);
            if (!dec)
                o[i] = (int64_t)(uint64_t)r; /* BIGINT: the low 64 bits, as Java's BigDecimal.longValue */
            else if (r >= lim || r <= -lim)
                x_setnull(cx, out, i);
            else
                o[i] = (int64_t)r;
        }
    }
    }
    return 0;
}

static int bind_round(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    if (n < 1 || n > 2 || (!weir_type_is_numeric(args[0]->type.id) && args[0]->type.id != WEIR_TYPE_NULL))
        return weir__bad_args(f, args, n, err);
    if (args[0]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[0], tmake(WEIR_TYPE_DOUBLE, true), err))
        return err->code;
    if (n == 2) {
        weir_type_id id = args[1]->type.id;
        if (id != WEIR_TYPE_INT && id != WEIR_TYPE_BIGINT && id != WEIR_TYPE_NULL)
            return weir__bad_args(f, args, n, err);
        if (weir__build_cast(a, args[1], tmake(WEIR_TYPE_INT, args[1]->type.nullable || id == WEIR_TYPE_NULL), false,
                             true, &args[1], err))
            return err->code;
        weir__fold(a, &args[1]);
    }
    weir_type t = args[0]->type;
    t.nullable = weir__any_nullable(args, n);
    if (t.id == WEIR_TYPE_DECIMAL) {
        int d = 0;
        if (n == 2) {
            if (args[1]->kind != N_LITERAL || args[1]->lit.is_null)
                return weir_error_set(err, WEIR_EPLAN, "%s of a DECIMAL needs a literal number of digits", f->name);
            d = args[1]->lit.v.i32;
        }
        int p = t.precision, s = t.scale;
        if (d >= s)
            t = weir_type_decimal((uint8_t)p, (uint8_t)s, true);
        else if (d < 0)
            t = weir_type_decimal((uint8_t)(1 + p - s > 38 ? 38 : 1 + p - s), 0, true);
        else
            t = weir_type_decimal((uint8_t)(1 + p - s + d > 38 ? 38 : 1 + p - s + d), (uint8_t)d, true);
    }
    *out = weir__call_node(a, f, args, n, t, round_kernel, F_STRICT | F_MAYNULL);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = f->param;
    return 0;
}

/* ---- RAND ---- */

#define JR_MULT 0x5DEECE66DULL
#define JR_MASK ((1ULL << 48) - 1)

static uint64_t *rng_state(ecx *cx, const weir_expr *e, bool seeded, int64_t seed)
{
    weir_expr_env *env = cx->env;
    for (uint32_t k = 0; k < env->n_rng; k++)
        if (env->rng[k].node == e)
            return &env->rng[k].state;
    if (env->n_rng == env->cap_rng) {
        uint32_t cap = env->cap_rng ? env->cap_rng * 2 : 4;
        rng_slot *r = weir_realloc(env->rng, cap * sizeof *r);
        if (!r)
            return NULL;
        env->rng = r;
        env->cap_rng = cap;
    }
    uint64_t s;
    if (seeded) {
        s = ((uint64_t)seed ^ JR_MULT) & JR_MASK;
    } else {
        /* Unseeded: distinct per call site and env, from processing time. */
        uint64_t x = (uint64_t)weir_monotonic_ns() + (uint64_t)(uintptr_t)e * 0x9E3779B97F4A7C15ULL + ++env->rng_seq;
        x ^= x >> 31;
        s = (x * 0xBF58476D1CE4E5B9ULL ^ JR_MULT) & JR_MASK;
    }
    env->rng[env->n_rng] = (rng_slot){e, s};
    return &env->rng[env->n_rng++].state;
}

static inline int32_t jr_next(uint64_t *s, int bits)
{
    *s = (*s * JR_MULT + 0xB) & JR_MASK;
    return (int32_t)(*s >> (48 - bits));
}

static int rand_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act;
    bool integer = e->p0 != 0;
    int nargs = (int)e->n_args;
    bool seeded = integer ? nargs == 2 : nargs == 1;
    int64_t seed = seeded ? ((const int32_t *)a[0].data)[0] : 0;
    uint64_t *s = rng_state(cx, e, seeded, seed);
    if (!s)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    const int32_t *bound = integer ? a[nargs - 1].data : NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (!integer) {
            int64_t hi = jr_next(s, 26), lo = jr_next(s, 27);
            ((double *)out->data)[i] = (double)((hi << 27) + lo) * 0x1.0p-53;
            continue;
        }
        int32_t b = bound[i];
        if (b <= 0)
            return weir__x_fail(cx, i, "RAND_INTEGER bound must be positive, not %d", b);
        int32_t r;
        if ((b & -b) == b) {
            r = (int32_t)(((int64_t)b * jr_next(s, 31)) >> 31);
        } else {
            int32_t bits, val;
            do {
                bits = jr_next(s, 31);
                val = bits % b;
            } while ((int64_t)bits - val + (b - 1) > INT32_MAX);
            r = val;
        }
        ((int32_t *)out->data)[i] = r;
    }
    return 0;
}

static int bind_rand(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    bool integer = f->param != 0;
    if (n > (integer ? 2u : 1u) || (integer && n < 1))
        return weir__bad_args(f, args, n, err);
    for (uint32_t k = 0; k < n; k++) {
        weir_type_id id = args[k]->type.id;
        if (id != WEIR_TYPE_INT && id != WEIR_TYPE_BIGINT)
            return weir__bad_args(f, args, n, err);
        if (weir__build_cast(a, args[k], tmake(WEIR_TYPE_INT, false), false, true, &args[k], err))
            return err->code;
    }
    bool seeded = integer ? n == 2 : n == 1;
    if (seeded && args[0]->kind != N_LITERAL)
        return weir_error_set(err, WEIR_EPLAN, "the seed of %s must be a literal", f->name);
    *out = weir__call_node(a, f, args, n, tmake(integer ? WEIR_TYPE_INT : WEIR_TYPE_DOUBLE, false), rand_kernel,
                           F_VOLATILE);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = f->param;
    return 0;
}

static int const_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)a, (void)act;
    for (uint32_t i = 0; i < n; i++)
        ((double *)out->data)[i] = e->p0 ? M_E : M_PI;
    return 0;
}

static int bind_const(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    if (n != 0)
        return weir__bad_args(f, args, n, err);
    *out = weir__call_node(a, f, args, 0, tmake(WEIR_TYPE_DOUBLE, false), const_kernel, 0);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = f->param;
    return 0;
}

const xfunc weir__funcs_math[] = {
    {"ABS", "ABS(numeric)", bind_abs, 0},
    {"SIGN", "SIGN(numeric)", bind_abs, 1},
    {"FLOOR", "FLOOR(numeric) or FLOOR(timestamp TO unit)", bind_floor, 0},
    {"CEIL", "CEIL(numeric) or CEIL(timestamp TO unit)", bind_floor, 1},
    {"CEILING", "CEILING(numeric) or CEILING(timestamp TO unit)", bind_floor, 1},
    {"ROUND", "ROUND(numeric [, INT])", bind_round, 0},
    {"TRUNCATE", "TRUNCATE(numeric [, INT])", bind_round, 1},
    {"POWER", "POWER(numeric, numeric)", bind_dbl, M_POWER},
    {"POW", "POW(numeric, numeric)", bind_dbl, M_POWER},
    {"SQRT", "SQRT(numeric)", bind_dbl, M_SQRT},
    {"EXP", "EXP(numeric)", bind_dbl, M_EXP},
    {"LN", "LN(numeric)", bind_dbl, M_LN},
    {"LOG", "LOG(numeric) or LOG(base, numeric)", bind_dbl, M_LN},
    {"LOG10", "LOG10(numeric)", bind_dbl, M_LOG10},
    {"LOG2", "LOG2(numeric)", bind_dbl, M_LOG2},
    {"SIN", "SIN(numeric)", bind_dbl, M_SIN},
    {"COS", "COS(numeric)", bind_dbl, M_COS},
    {"TAN", "TAN(numeric)", bind_dbl, M_TAN},
    {"COT", "COT(numeric)", bind_dbl, M_COT},
    {"ASIN", "ASIN(numeric)", bind_dbl, M_ASIN},
    {"ACOS", "ACOS(numeric)", bind_dbl, M_ACOS},
    {"ATAN", "ATAN(numeric)", bind_dbl, M_ATAN},
    {"ATAN2", "ATAN2(numeric, numeric)", bind_dbl, M_ATAN2},
    {"SINH", "SINH(numeric)", bind_dbl, M_SINH},
    {"COSH", "COSH(numeric)", bind_dbl, M_COSH},
    {"TANH", "TANH(numeric)", bind_dbl, M_TANH},
    {"DEGREES", "DEGREES(numeric)", bind_dbl, M_DEGREES},
    {"RADIANS", "RADIANS(numeric)", bind_dbl, M_RADIANS},
    {"PI", "PI()", bind_const, 0},
    {"E", "E()", bind_const, 1},
    {"RAND", "RAND([INT seed])", bind_rand, 0},
    {"RAND_INTEGER", "RAND_INTEGER([INT seed,] INT bound)", bind_rand, 1},
    {NULL, NULL, NULL, 0},
};
