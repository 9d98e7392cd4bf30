/*
 * expr/cast.c - CAST and TRY_CAST between every sensible pair of types, and
 * the text forms of values.
 *
 * Semantics follow Flink SQL (1.15+, non-legacy casts):
 * - STRING -> number/boolean/timestamp trims whitespace; an invalid value
 *   fails the evaluation under CAST and gives NULL under TRY_CAST.
 *   STRING -> INT/BIGINT accepts a fraction and truncates it ('1.9' -> 1).
 * - A value that does not fit a DECIMAL(p, s) gives NULL (Flink's overflow
 *   rule); rounding to the target scale is HALF_UP.
 * - DOUBLE -> INT/BIGINT truncates and saturates, NaN gives 0 (Java casts);
 *   BIGINT -> INT and DECIMAL -> INT keep the low 32 bits (Java casts).
 * - Numbers <-> TIMESTAMP_LTZ count epoch seconds; TIMESTAMP <->
 *   TIMESTAMP_LTZ and text of TIMESTAMP_LTZ use the session time zone.
 * - STRING -> DATE reads 'y-M-d' (what follows a space is ignored, so a
 *   timestamp's text gives its date); STRING -> TIME reads 'H:m[:s[.f]]'.
 *   TIMESTAMP -> DATE/TIME takes its date / time of day (TIMESTAMP_LTZ in
 *   the session time zone); DATE -> TIMESTAMP is its midnight, TIME ->
 *   TIMESTAMP that time on 1970-01-01. TIME(p) truncates to p digits.
 * - BOOLEAN -> STRING is 'TRUE' / 'FALSE'; DOUBLE -> STRING is Java's
 *   Double.toString; DECIMAL -> STRING is plain notation with all scale digits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "format/convert.h"
#include "record/nested.h"
#include "weir/format.h"
#include "time/timefmt.h"
#include "util/hex.h"
#include "util/cnum.h"

/* ---- text forms ---- */

size_t weir__fmt_double(double v, char *buf) { return weir__fmt_format_f64_java(v, buf); }

size_t weir__fmt_decimal(int64_t v, int scale, char *buf)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (scale == 0)
        return (size_t)sprintf(buf, "%s%llu", v < 0 ? "-" : "", (unsigned long long)mag);
    uint64_t p = (uint64_t)weir__pow10[scale];
    size_t n = (size_t)sprintf(buf, "%s%llu.", v < 0 ? "-" : "", (unsigned long long)(mag / p));
    /* The fraction digit by digit, zero-padded to the scale (at most 18). */
    uint64_t frac = mag % p;
    for (int i = scale - 1; i >= 0; i--) {
        buf[n + (size_t)i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    n += (size_t)scale;
    buf[n] = 0;
    return n;
}

/* Java's String.trim(): the characters up to ' ' off both ends (CAST and
 * JSON_VALUE's conversions read strings so). */
void weir__cast_trim(const char **s, size_t *len)
{
    while (*len && (unsigned char)**s <= ' ')
        (*s)++, (*len)--;
    while (*len && (unsigned char)(*s)[*len - 1] <= ' ')
        (*len)--;
}

/* CAST's text to DECIMAL: the format's reader (BigDecimal's syntax) after Java's trim. */
int weir__parse_decimal128(const char *s, size_t len, int p, int sc, weir_i128 *out)
{
    weir__cast_trim(&s, &len);
    return weir__fmt_parse_decimal128(s, len, p, sc, out);
}

int weir__parse_decimal128_exact(const char *s, size_t len, int p, int sc, weir_i128 *out)
{
    weir__cast_trim(&s, &len);
    return weir__fmt_parse_decimal128_exact(s, len, p, sc, out);
}

int weir__parse_decimal(const char *s, size_t len, int p, int sc, int64_t *out)
{
    weir_i128 v;
    int rc = weir__parse_decimal128(s, len, p > 18 || p < 1 ? 18 : p, sc, &v);
    if (!rc)
        *out = (int64_t)v;
    return rc;
}

size_t weir__fmt_ts(int64_t ms, char *buf) { return weir__format_ts(ms, buf, 32); }

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int num(const char *s, size_t len, size_t *i, int minw, int maxw, int *out)
{
    int v = 0, w = 0;
    while (*i < len && w < maxw && s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (s[(*i)++] - '0');
        w++;
    }
    if (w < minw)
        return -1;
    *out = v;
    return 0;
}

int weir__parse_ts_text(const char *s, size_t len, int64_t *out_ms)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    weir__cast_trim(&s, &len);
    size_t i = 0;
    int y, mo, d, h = 0, mi = 0, se = 0, ms = 0;
    if (num(s, len, &i, 4, 4, &y) || i >= len || s[i++] != '-' || num(s, len, &i, 1, 2, &mo) || i >= len ||
        s[i++] != '-' || num(s, len, &i, 1, 2, &d))
        return WEIR_EPARSE;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)))
        return WEIR_EPARSE;
    if (i < len) {
        if (s[i] != ' ' && s[i] != 'T')
            return WEIR_EPARSE;
        i++;
        if (num(s, len, &i, 1, 2, &h) || i >= len || s[i++] != ':' || num(s, len, &i, 1, 2, &mi))
            return WEIR_EPARSE;
        if (i < len && s[i] == ':') {
            i++;
            if (num(s, len, &i, 1, 2, &se))
                return WEIR_EPARSE;
            if (i < len && s[i] == '.') {
                i++;
                if (weir__parse_fraction_ms(s, len, &i, &ms))
                    return WEIR_EPARSE;
            }
        }
        if (i < len && s[i] == 'Z')
            i++;
        if (i != len || h > 23 || mi > 59 || se > 59)
            return WEIR_EPARSE;
    }
    weir__civil c = {y, mo, d, h, mi, se, ms};
    *out_ms = weir__ms_from_civil(&c);
    return 0;
}

/* ---- building ---- */

static bool cast_ok(weir_type_id f, weir_type_id t)
{
    if (f == WEIR_TYPE_NULL || f == t)
        return true;
    if (weir_type_is_nested(f) || weir_type_is_nested(t))
        return t == WEIR_TYPE_STRING; /* nested to nested: checked by the caller */
    bool fnum = weir_type_is_numeric(f), tnum = weir_type_is_numeric(t);
    switch (t) {
    case WEIR_TYPE_STRING: return f != WEIR_TYPE_NULL;
    case WEIR_TYPE_BYTES: return f == WEIR_TYPE_STRING;
    case WEIR_TYPE_BOOLEAN: return fnum || f == WEIR_TYPE_STRING;
    case WEIR_TYPE_TIMESTAMP: return f == WEIR_TYPE_STRING || f == WEIR_TYPE_TIMESTAMP_LTZ || weir_type_is_date_time(f);
    case WEIR_TYPE_TIMESTAMP_LTZ: return f == WEIR_TYPE_STRING || f == WEIR_TYPE_TIMESTAMP || fnum || weir_type_is_date_time(f);
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: return f == WEIR_TYPE_STRING || weir_type_is_time(f);
    default:
        if (tnum)
            return fnum || f == WEIR_TYPE_BOOLEAN || f == WEIR_TYPE_STRING || f == WEIR_TYPE_TIMESTAMP_LTZ;
        return false;
    }
}

/*
 * Whether a value of nested type f casts to nested type t: the same kind at
 * every level (ROWs with as many fields), and each element, key, value and
 * field castable (Flink's rules for ARRAY, MAP and ROW). A MULTISET casts
 * only to one of the same encoding (its elements could merge).
 */
static bool nested_castable(weir_type f, weir_type t)
{
    if (weir_nv_type_compatible(f, t))
        return true;
    const weir_nested_type *df = weir_type_nested(f), *dt = weir_type_nested(t);
    if (!df || !dt || df->kind != dt->kind || df->n != dt->n || df->kind == WEIR_TYPE_MULTISET)
        return false;
    for (uint32_t k = 0; k < df->n; k++) {
        weir_type a = df->elems[k], b = dt->elems[k];
        bool ok = weir_type_is_nested(a.id) || weir_type_is_nested(b.id) ? nested_castable(a, b)
                                                                         : cast_ok(a.id, b.id);
        if (!ok)
            return false;
    }
    return true;
}

static int cast_kernel(ecx *cx, const weir_expr *e, const xvec *args, uint32_t n, const uint8_t *active, xvec *out)
{
    weir_type from = args[0].type;
    if (from.id == WEIR_TYPE_BIGINT)
        from.precision = e->args[0]->iv; /* an INTERVAL's text is Flink's, not the number's */
    int rc = weir__cast_vec(cx, e, from, e->type, (e->flags & F_TRY) != 0, &args[0], n, active, out);
    if (rc || e->p0 <= 1)
        return rc;
    /* TIMESTAMP(p), p < 3: the fraction of the second cut to p digits (p0 milliseconds), toward the past */
    int64_t *o = out->data;
    for (uint32_t i = 0; i < n; i++)
        o[i] = (int64_t)((uint64_t)o[i] - (uint64_t)x_floormod(o[i], e->p0));
    return 0;
}

int weir__build_cast(weir_expr_arena *a, weir_expr *e, weir_type type, bool try_cast, bool implicit,
                     weir_expr **out, weir_error *err)
{
    char b1[64], b2[64];
    if (type.id == WEIR_TYPE_NULL)
        return weir_error_set(err, WEIR_EPLAN, "cannot cast to NULL");
    if (type.id == WEIR_TYPE_DECIMAL &&
        (type.precision < 1 || type.precision > WEIR_DEC_MAX_PRECISION || type.scale > type.precision))
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "DECIMAL(%u, %u) is not supported: DECIMAL has a precision of 1 to 38",
                              type.precision, type.scale);
    if (weir_type_interval(type)) {
        /* to an INTERVAL type: only an interval of that kind (or NULL), which stays as it is */
        weir_interval_kind kind = (weir_interval_kind)weir_type_interval(type);
        if (e->type.id == WEIR_TYPE_NULL) {
            if (!(*out = weir_expr_lit_null(a, weir_type_make(WEIR_TYPE_BIGINT, true))))
                return weir_error_set(err, WEIR_ENOMEM, "out of memory");
            (*out)->iv = (uint8_t)kind;
            return 0;
        }
        if (e->iv == kind && e->type.id == WEIR_TYPE_BIGINT) {
            *out = e;
            return 0;
        }
        return weir_error_set(err, WEIR_EPLAN, "cannot cast %s to %s", weir__tname(e, b1, sizeof b1),
                              weir_expr_type_name(type, kind, b2, sizeof b2));
    }
    if (e->iv != WEIR_INTERVAL_NONE && type.id != WEIR_TYPE_STRING)
        return weir_error_set(err, WEIR_EPLAN, "cannot cast %s to %s", weir__tname(e, b1, sizeof b1),
                              weir_expr_type_name(type, WEIR_INTERVAL_NONE, b2, sizeof b2));
    if (!cast_ok(e->type.id, type.id)) {
        const char *hint = "";
        if (type.id == WEIR_TYPE_TIMESTAMP && weir_type_is_numeric(e->type.id))
            hint = "; use TO_TIMESTAMP_LTZ(number, precision)";
        return weir_error_set(err, WEIR_EPLAN, "cannot cast %s to %s%s", weir__tname(e, b1, sizeof b1),
                              weir_expr_type_name(type, WEIR_INTERVAL_NONE, b2, sizeof b2), hint);
    }
    if (weir_type_is_nested(type.id) && e->type.id != WEIR_TYPE_NULL && !nested_castable(e->type, type))
        return weir_error_set(err, WEIR_EPLAN, "cannot cast %s to %s", weir__tname(e, b1, sizeof b1),
                              weir_expr_type_name(type, WEIR_INTERVAL_NONE, b2, sizeof b2));
    if (e->type.id == WEIR_TYPE_NULL) {
        *out = weir_expr_lit_null(a, type);
        return *out ? 0 : weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    if (weir__type_eq(e->type, type) && !try_cast) {
        *out = e;
        return 0;
    }
    /* Casts that can fail on a value make the result nullable under TRY_CAST. */
    bool can_fail = e->type.id == WEIR_TYPE_STRING && type.id != WEIR_TYPE_STRING && type.id != WEIR_TYPE_BYTES;
    bool may_null = type.id == WEIR_TYPE_DECIMAL || (type.id == WEIR_TYPE_TIMESTAMP_LTZ && weir_type_is_numeric(e->type.id));
    type.nullable = e->type.nullable || (try_cast && can_fail) || may_null;
    static const xfunc cast_f = {"CAST", "CAST(value AS type)", NULL, 0};
    static const xfunc try_f = {"TRY_CAST", "TRY_CAST(value AS type)", NULL, 0};
    uint8_t flags = F_STRICT | F_MAYNULL | (try_cast ? F_TRY : 0);
    /* Text of / to TIMESTAMP_LTZ and TIMESTAMP <-> LTZ depend on the session time zone. */
    if ((e->type.id == WEIR_TYPE_TIMESTAMP_LTZ &&
         (type.id == WEIR_TYPE_STRING || type.id == WEIR_TYPE_TIMESTAMP || weir_type_is_date_time(type.id))) ||
        (type.id == WEIR_TYPE_TIMESTAMP_LTZ &&
         (e->type.id == WEIR_TYPE_STRING || e->type.id == WEIR_TYPE_TIMESTAMP || weir_type_is_date_time(e->type.id))))
        flags |= F_SESSION;
    weir_expr *arg = e;
    *out = weir__call_node(a, try_cast ? &try_f : &cast_f, &arg, 1, type, cast_kernel, flags);
    (void)implicit;
    return *out ? 0 : weir_error_set(err, WEIR_ENOMEM, "out of memory");
}

int weir__build_cast_fraction(weir_expr_arena *a, weir_expr *e, weir_type type, int digits, bool try_cast,
                              weir_expr **out, weir_error *err)
{
    int rc = weir__build_cast(a, e, type, try_cast, false, out, err);
    if (rc || digits < 0 || digits >= 3 || (type.id != WEIR_TYPE_TIMESTAMP && type.id != WEIR_TYPE_TIMESTAMP_LTZ) ||
        e->type.id == WEIR_TYPE_NULL)
        return rc;
    if (*out == e) { /* already of the type: a cast node of its own, which only cuts */
        static const xfunc cast_f = {"CAST", "CAST(value AS type)", NULL, 0};
        weir_expr *arg = e;
        if (!(*out = weir__call_node(a, &cast_f, &arg, 1, e->type, cast_kernel, F_STRICT | F_MAYNULL)))
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    (*out)->p0 = digits == 0 ? 1000 : digits == 1 ? 100 : 10;
    return 0;
}

/* ---- kernels ---- */

static int bad(ecx *cx, bool try_cast, xvec *out, uint32_t i, const xstr *s, weir_type to)
{
    if (try_cast) {
        x_setnull(cx, out, i);
        return 0;
    }
    char tb[64];
    return weir__x_fail(cx, i, "cannot cast '%.*s' to %s", (int)(s->len > 64 ? 64 : s->len), s->ptr,
                        weir_expr_type_name(to, WEIR_INTERVAL_NONE, tb, sizeof tb));
}

/* Parses an integer as Flink does: trimmed, optional sign, digits, optional fraction (truncated). */
static int parse_long(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out)
{
    weir__cast_trim(&s, &len);
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i >= len)
        return -1;
    __int128 v = 0;
    size_t start = i;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        v = v * 10 + (s[i] - '0');
        if (v > (__int128)INT64_MAX + 1)
            return -1;
    }
    bool any = i > start;
    if (i < len && s[i] == '.') {
        i++;
        size_t fs = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        any |= i > fs;
    }
    if (!any || i != len)
        return -1;
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* CAST(string AS BOOLEAN): true/t/yes/y/1 or false/f/no/n/0 in any case, trimmed. */
int weir__cast_parse_bool(const char *s, size_t len, uint8_t *out)
{
    weir__cast_trim(&s, &len);
    static const char *t[] = {"true", "t", "yes", "y", "1"}, *f[] = {"false", "f", "no", "n", "0"};
    for (int k = 0; k < 5; k++) {
        if (strlen(t[k]) == len && !strncasecmp(s, t[k], len))
            return *out = 1, 0;
        if (strlen(f[k]) == len && !strncasecmp(s, f[k], len))
            return *out = 0, 0;
    }
    return -1;
}

static bool is_hex_digit(char c) { return weir__hex_value(c) >= 0; }
static bool is_dec_digit(char c) { return c >= '0' && c <= '9'; }

/* Digits of a class, counted: moves *p past them. */
static int skip_digits(const char **p, const char *e, bool (*is)(char))
{
    int n = 0;
    while (*p < e && is(**p))
        (*p)++, n++;
    return n;
}

/* An exponent's optional sign and its (at least one) decimal digits. */
static bool skip_exponent(const char **p, const char *e)
{
    if (*p < e && (**p == '+' || **p == '-'))
        (*p)++;
    return skip_digits(p, e, is_dec_digit) > 0;
}

bool weir__java_double_span(const char *s, size_t len, const char **begin, const char **end)
{
    weir__cast_trim(&s, &len);
    const char *p = s, *e = s + len;
    *begin = p;
    if (p < e && (*p == '+' || *p == '-'))
        p++;
    if (((size_t)(e - p) == 3 && !memcmp(p, "NaN", 3)) || ((size_t)(e - p) == 8 && !memcmp(p, "Infinity", 8)))
        return *end = e, true;
    if (e - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        int nd = skip_digits(&p, e, is_hex_digit);
        if (p < e && *p == '.') {
            p++;
            nd += skip_digits(&p, e, is_hex_digit);
        }
        if (!nd || p >= e || (*p != 'p' && *p != 'P'))
            return false;
        p++;
        if (!skip_exponent(&p, e))
            return false;
    } else {
        int nd = skip_digits(&p, e, is_dec_digit);
        if (p < e && *p == '.') {
            p++;
            nd += skip_digits(&p, e, is_dec_digit);
        }
        if (!nd)
            return false;
        if (p < e && (*p == 'e' || *p == 'E')) {
            p++;
            if (!skip_exponent(&p, e))
                return false;
        }
    }
    *end = p;
    if (p < e && (*p == 'f' || *p == 'F' || *p == 'd' || *p == 'D'))
        p++;
    return p == e;
}

/* CAST(string AS DOUBLE) as Double.parseDouble: 0, -1 where Java throws,
 * or WEIR_ENOMEM (a text too long for the stack's copy). strtod rounds the
 * decimal or hexadecimal text once, as Java does, however many digits. */
static int parse_double(ecx *cx, const char *s, size_t len, double *out)
{
    const char *b, *e;
    if (!weir__java_double_span(s, len, &b, &e))
        return -1;
    const char *p = b + (*b == '+' || *b == '-');
    if (*p == 'N')
        return *out = NAN, 0;
    if (*p == 'I')
        return *out = *b == '-' ? -INFINITY : INFINITY, 0;
    size_t n = (size_t)(e - b);
    char stack[128], *t = n < sizeof stack ? stack : weir__x_alloc(cx, n + 1);
    if (!t)
        return WEIR_ENOMEM;
    memcpy(t, b, n);
    t[n] = 0;
    *out = weir__strtod_c(t, NULL);
    return 0;
}

static int64_t java_d2l(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 9.2233720368547758e18)
        return INT64_MAX;
    if (d <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)d;
}

static int32_t java_d2i(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)d;
}

/* Rescales v from scale fs to ts with HALF_UP; false on overflow of precision p. */
static bool rescale(__int128 v, int fs, int ts, int p, int64_t *out)
{
    if (ts >= fs) {
        for (int k = fs; k < ts; k++) {
            v *= 10;
            if (v > (__int128)1e30 || v < -(__int128)1e30)
                return false;
        }
    } else {
        __int128 d = 1;
        for (int k = ts; k < fs; k++)
            d *= 10;
        __int128 q = v / d, r = v % d;
        if (r < 0)
            r = -r;
        if (2 * r >= d)
            q += v < 0 ? -1 : 1;
        v = q;
    }
    __int128 lim = weir__pow10[p > 18 ? 18 : p];
    if (p >= 19)
        lim = (__int128)INT64_MAX + 1;
    if (v >= lim || v <= -lim)
        return false;
    *out = (int64_t)v;
    return true;
}

/* Reads element i of a numeric vector as an exact value with scale *sc (false for DOUBLE). */
static inline __int128 exact_at(const xvec *v, uint32_t i)
{
    if (weir_type_is_wide(v->type))
        return ((const weir_i128 *)v->data)[i];
    switch (v->type.id) {
    case WEIR_TYPE_INT: return ((const int32_t *)v->data)[i];
    case WEIR_TYPE_BOOLEAN: return ((const uint8_t *)v->data)[i];
    default: return ((const int64_t *)v->data)[i];
    }
}

static inline double dbl_at(const xvec *v, uint32_t i)
{
    /* A DECIMAL as the double nearest it (BigDecimal.doubleValue), its digits past a double's too. */
    if (weir_type_is_wide(v->type))
        return weir__dec_to_double(((const weir_i128 *)v->data)[i], v->type.scale);
    switch (v->type.id) {
    case WEIR_TYPE_INT: return ((const int32_t *)v->data)[i];
    case WEIR_TYPE_BOOLEAN: return ((const uint8_t *)v->data)[i];
    case WEIR_TYPE_DOUBLE: return ((const double *)v->data)[i];
    case WEIR_TYPE_DECIMAL: return weir__dec_to_double(((const int64_t *)v->data)[i], v->type.scale);
    default: return (double)((const int64_t *)v->data)[i];
    }
}

static int nested_to_string(ecx *cx, weir_type from, const xvec *in, uint32_t n, const uint8_t *active, xvec *out)
{
    xstr *o = out->data;
    const xstr *v = in->data;
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!x_live(out, active, i))
            continue;
        weir_buf_clear(&b);
        char *p = NULL;
        if (weir_format_nested_text(&b, from, v[i].ptr, v[i].len) || !(p = x_str(cx, b.len))) {
            rc = weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            break;
        }
        if (b.len)
            memcpy(p, b.data, b.len);
        o[i] = (xstr){p, (uint32_t)b.len};
    }
    weir_buf_fini(&b);
    return rc;
}

static int to_string(ecx *cx, weir_type from, const xvec *in, uint32_t n, const uint8_t *active, xvec *out)
{
    xstr *o = out->data;
    char buf[64];
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, active, i))
            continue;
        size_t len;
        switch (from.id) {
        case WEIR_TYPE_BOOLEAN:
            o[i] = ((const uint8_t *)in->data)[i] ? (xstr){"TRUE", 4} : (xstr){"FALSE", 5};
            continue;
        case WEIR_TYPE_STRING:
        case WEIR_TYPE_BYTES: o[i] = ((const xstr *)in->data)[i]; continue;
        case WEIR_TYPE_INT: len = (size_t)sprintf(buf, "%d", ((const int32_t *)in->data)[i]); break;
        case WEIR_TYPE_BIGINT:
            len = weir_type_interval(from)
                      ? weir__fmt_format_interval(((const int64_t *)in->data)[i], weir_type_interval(from), buf)
                      : (size_t)sprintf(buf, "%lld", (long long)((const int64_t *)in->data)[i]);
            break;
        case WEIR_TYPE_DOUBLE: len = weir__fmt_double(((const double *)in->data)[i], buf); break;
        case WEIR_TYPE_DECIMAL:
            len = weir_type_is_wide(from) ? weir__dec_format(((const weir_i128 *)in->data)[i], from.scale, buf)
                                          : weir__fmt_decimal(((const int64_t *)in->data)[i], from.scale, buf);
            break;
        case WEIR_TYPE_TIMESTAMP: len = weir__fmt_ts(((const int64_t *)in->data)[i], buf); break;
        case WEIR_TYPE_TIMESTAMP_LTZ: len = weir__fmt_ts(x_local(cx, ((const int64_t *)in->data)[i]), buf); break;
        case WEIR_TYPE_DATE: len = weir__format_date(((const int32_t *)in->data)[i], buf, sizeof buf); break;
        case WEIR_TYPE_TIME:
            len = weir__format_time(((const int32_t *)in->data)[i], from.precision, buf, sizeof buf);
            break;
        default: len = 0;
        }
        char *p = x_str(cx, len);
        if (!p)
            return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        memcpy(p, buf, len);
        o[i] = (xstr){p, (uint32_t)len};
    }
    return 0;
}

/* ---- casts between nested types of different element types ---- */

/* Whether a cast to t may give NULL for a value (a DECIMAL that does not
 * fit, a number as TIMESTAMP_LTZ out of range): such a NULL is a value,
 * not a failed element. */
static bool may_give_null(weir_type t) { return t.id == WEIR_TYPE_DECIMAL || t.id == WEIR_TYPE_TIMESTAMP_LTZ; }

/* Casts the m entries ents[0..m) (their value bytes; NULL entries flagged)
 * of type f to type t and appends them to b as entries. Returns 0, 1 when
 * an element does not convert (*bad its index), or an error code. */
static int convert_entries(ecx *cx, const weir_expr *e, weir_type f, weir_type t, const uint8_t **vals,
                           const uint32_t *lens, const uint8_t *nulls, uint32_t m, weir_buf *b, uint32_t *bad_at)
{
    if (m == 0)
        return 0;
    size_t fw = weir_type_is_varlen(f.id) ? sizeof(xstr) : weir_type_size(f);
    size_t tw = weir_type_is_varlen(t.id) ? sizeof(xstr) : weir_type_size(t);
    xvec src = {.type = f, .data = weir__x_zalloc(cx, m * fw), .nulls = weir__x_alloc(cx, m)};
    xvec dst = {.type = t, .data = weir__x_zalloc(cx, m * tw), .nulls = weir__x_alloc(cx, m)};
    if (!src.data || !src.nulls || !dst.data || !dst.nulls)
        return WEIR_ENOMEM;
    for (uint32_t k = 0; k < m; k++) {
        src.nulls[k] = dst.nulls[k] = nulls[k];
        if (nulls[k])
            continue;
        if (weir_type_is_varlen(f.id))
            ((xstr *)src.data)[k] = (xstr){(const char *)vals[k], lens[k]};
        else
            memcpy((uint8_t *)src.data + k * fw, vals[k], fw);
    }
    /* TRY: a failed element becomes NULL here and is told from a NULL value below */
    int rc = weir__cast_vec(cx, e, f, t, true, &src, m, NULL, &dst);
    if (rc)
        return rc;
    for (uint32_t k = 0; k < m && !rc; k++) {
        if (dst.nulls[k] && !src.nulls[k] && !may_give_null(t)) {
            *bad_at = k;
            return 1;
        }
        if (dst.nulls[k]) {
            rc = weir_nv_put_null(b);
        } else if (weir_type_is_varlen(t.id)) {
            xstr v = ((const xstr *)dst.data)[k];
            rc = weir_nv_put(b, t, v.ptr, v.len);
        } else {
            rc = weir_nv_put(b, t, (const uint8_t *)dst.data + k * tw, (uint32_t)tw);
        }
    }
    return rc;
}

/* One value: reads its entries, converts them by position (an ARRAY's
 * elements, a MAP's keys and values, each ROW field), writes the new value. */
static int convert_value(ecx *cx, const weir_expr *e, weir_type from, weir_type to, xstr v, weir_buf *b,
                         uint32_t *bad_at)
{
    const weir_nested_type *df = weir_type_nested(from), *dt = weir_type_nested(to);
    weir_nv_iter it;
    uint32_t cnt = weir_nv_open(from, v.ptr, v.len, &it);
    uint32_t per = df->kind == WEIR_TYPE_MAP ? 2 : 1;   /* entries per element */
    uint32_t m = df->kind == WEIR_TYPE_ROW ? df->n : cnt * per;
    const uint8_t **vals = weir__x_alloc(cx, (m ? m : 1) * sizeof *vals);
    uint32_t *lens = weir__x_alloc(cx, (m ? m : 1) * sizeof *lens);
    uint8_t *nulls = weir__x_alloc(cx, m ? m : 1);
    if (!vals || !lens || !nulls)
        return WEIR_ENOMEM;
    uint32_t got = 0;
    for (; got < m; got++) {
        bool isn;
        weir_type et = df->elems[df->kind == WEIR_TYPE_ROW ? got : got % per];
        if (!weir_nv_next(&it, et, &isn, &vals[got], &lens[got]))
            break;
        nulls[got] = isn;
    }
    for (; got < m; got++)
        nulls[got] = 1; /* a malformed value reads as NULLs */
    size_t at = b->len;
    int rc = df->kind == WEIR_TYPE_ROW ? 0 : weir_nv_put_count(b, cnt);
    /* entries of one type at a time need them in one run: a ROW field by
     * field, an ARRAY all at once, a MAP key by value (pairs interleave) */
    if (df->kind == WEIR_TYPE_ARRAY) {
        if (!rc)
            rc = convert_entries(cx, e, df->elems[0], dt->elems[0], vals, lens, nulls, m, b, bad_at);
    } else {
        for (uint32_t k = 0; k < m && !rc; k++) {
            uint32_t slot = df->kind == WEIR_TYPE_ROW ? k : k % per;
            rc = convert_entries(cx, e, df->elems[slot], dt->elems[slot], &vals[k], &lens[k], &nulls[k], 1, b,
                                 bad_at);
            if (rc == 1)
                *bad_at = df->kind == WEIR_TYPE_ROW ? k : k / per;
        }
    }
    if (!rc && df->kind == WEIR_TYPE_MAP)
        rc = weir_nv_map_canon(b, at, to);
    return rc;
}

/* CAST between nested types whose elements differ in type: element by
 * element with the scalar casts. An element that does not convert fails the
 * row (CAST) or makes the whole value NULL (TRY_CAST). */
static int nested_convert(ecx *cx, const weir_expr *e, weir_type from, weir_type to, bool try_cast, const xvec *in,
                          uint32_t n, const uint8_t *active, xvec *out)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc <= 0; i++) {
        if (!x_live(out, active, i))
            continue;
        weir_buf_clear(&b);
        uint32_t bad_at = 0;
        rc = convert_value(cx, e, from, to, ((const xstr *)in->data)[i], &b, &bad_at);
        if (rc == 1) {
            rc = 0;
            if (try_cast) {
                x_setnull(cx, out, i);
                continue;
            }
            char fb[128], tb[128];
            weir__nested_format_type(from, fb, sizeof fb);
            weir__nested_format_type(to, tb, sizeof tb);
            rc = weir__x_fail(cx, i, "cannot cast %s to %s: element %u does not convert", fb, tb, bad_at + 1);
            break;
        }
        if (rc)
            break;
        char *p = x_str(cx, b.len);
        if (!p) {
            rc = WEIR_ENOMEM;
            break;
        }
        memcpy(p, b.data, b.len);
        ((xstr *)out->data)[i] = (xstr){p, (uint32_t)b.len};
    }
    weir_buf_fini(&b);
    if (rc == WEIR_ENOMEM)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    return rc;
}

int weir__cast_vec(ecx *cx, const weir_expr *e, weir_type from, weir_type to, bool try_cast, const xvec *in,
                   uint32_t n, const uint8_t *active, xvec *out)
{
    (void)e;
    int rc;
    if (weir_type_is_nested(to.id)) {
        if (!weir_nv_type_compatible(from, to))
            return nested_convert(cx, e, from, to, try_cast, in, n, active, out);
        /* the same encoding: only nullability inside differs */
        memcpy(out->data, in->data, (size_t)n * sizeof(xstr));
        return 0;
    }
    if (weir_type_is_nested(from.id))
        return nested_to_string(cx, from, in, n, active, out);
    if (to.id == WEIR_TYPE_STRING || to.id == WEIR_TYPE_BYTES)
        return to_string(cx, from, in, n, active, out);
    const xstr *ss = from.id == WEIR_TYPE_STRING ? in->data : NULL;
    switch (to.id) {
    case WEIR_TYPE_BOOLEAN: {
        uint8_t *o = out->data;
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, active, i))
                continue;
            if (ss) {
                if (weir__cast_parse_bool(ss[i].ptr, ss[i].len, &o[i]) && (rc = bad(cx, try_cast, out, i, &ss[i], to)))
                    return rc;
            } else if (from.id == WEIR_TYPE_DOUBLE) {
                o[i] = ((const double *)in->data)[i] != 0;
            } else {
                o[i] = exact_at(in, i) != 0;
            }
        }
        return 0;
    }
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT: {
        bool is_int = to.id == WEIR_TYPE_INT;
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, active, i))
                continue;
            int64_t v;
            if (ss) {
                if (parse_long(ss[i].ptr, ss[i].len, is_int ? INT32_MIN : INT64_MIN, is_int ? INT32_MAX : INT64_MAX,
                               &v)) {
                    if ((rc = bad(cx, try_cast, out, i, &ss[i], to)))
                        return rc;
                    continue;
                }
            } else if (from.id == WEIR_TYPE_DOUBLE) {
                double d = ((const double *)in->data)[i];
                v = is_int ? java_d2i(d) : java_d2l(d);
            } else if (from.id == WEIR_TYPE_DECIMAL) {
                /* Truncated toward zero; the low 64 bits, as BigDecimal.longValue. */
                v = (int64_t)(uint64_t)(unsigned __int128)(exact_at(in, i) / weir__pow10_128[from.scale]);
            } else if (from.id == WEIR_TYPE_TIMESTAMP_LTZ) {
                v = x_floordiv(((const int64_t *)in->data)[i], 1000);
            } else {
                v = (int64_t)exact_at(in, i);
            }
            if (is_int)
                ((int32_t *)out->data)[i] = (int32_t)(uint32_t)(uint64_t)v;
            else
                ((int64_t *)out->data)[i] = v;
        }
        return 0;
    }
    case WEIR_TYPE_DOUBLE: {
        double *o = out->data;
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, active, i))
                continue;
            if (ss) {
                int pr = parse_double(cx, ss[i].ptr, ss[i].len, &o[i]);
                if (pr == WEIR_ENOMEM)
                    return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
                if (pr && (rc = bad(cx, try_cast, out, i, &ss[i], to)))
                    return rc;
            } else if (from.id == WEIR_TYPE_TIMESTAMP_LTZ) {
                o[i] = (double)((const int64_t *)in->data)[i] / 1000.0;
            } else {
                o[i] = dbl_at(in, i);
            }
        }
        return 0;
    }
    case WEIR_TYPE_DECIMAL: {
        bool wide = weir_type_is_wide(to);
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, active, i))
                continue;
            bool ok;
            weir_i128 v = 0;
            if (ss) {
                int r = weir__parse_decimal128(ss[i].ptr, ss[i].len, to.precision, to.scale, &v);
                if (r == WEIR_EPARSE) {
                    if ((rc = bad(cx, try_cast, out, i, &ss[i], to)))
                        return rc;
                    continue;
                }
                ok = r == 0;
            } else if (from.id == WEIR_TYPE_DOUBLE) {
                double d = ((const double *)in->data)[i];
                char buf[40];
                size_t len = weir__fmt_double(d, buf);
                ok = isfinite(d) && weir__parse_decimal128(buf, len, to.precision, to.scale, &v) == 0;
            } else {
                int fs = from.id == WEIR_TYPE_DECIMAL ? from.scale : from.id == WEIR_TYPE_TIMESTAMP_LTZ ? 3 : 0;
                ok = weir__dec_rescale(exact_at(in, i), fs, to.scale, &v) && weir__dec_fits(v, to.precision);
            }
            if (!ok)
                x_setnull(cx, out, i);
            else if (wide)
                ((weir_i128 *)out->data)[i] = v;
            else
                ((int64_t *)out->data)[i] = (int64_t)v;
        }
        return 0;
    }
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: {
        int64_t *o = out->data;
        bool ltz = to.id == WEIR_TYPE_TIMESTAMP_LTZ;
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, active, i))
                continue;
            if (ss) {
                int64_t ms;
                if (weir__parse_ts_text(ss[i].ptr, ss[i].len, &ms)) {
                    if ((rc = bad(cx, try_cast, out, i, &ss[i], to)))
                        return rc;
                    continue;
                }
                o[i] = ltz ? x_utc(cx, ms) : ms;
            } else if (from.id == WEIR_TYPE_DATE || from.id == WEIR_TYPE_TIME) {
                int64_t ms = ((const int32_t *)in->data)[i] * (from.id == WEIR_TYPE_DATE ? (int64_t)WEIR__MS_PER_DAY : 1);
                o[i] = ltz ? x_utc(cx, ms) : ms;
            } else if (from.id == WEIR_TYPE_TIMESTAMP) {
                o[i] = ltz ? x_utc(cx, ((const int64_t *)in->data)[i]) : ((const int64_t *)in->data)[i];
            } else if (from.id == WEIR_TYPE_TIMESTAMP_LTZ) {
                o[i] = ltz ? ((const int64_t *)in->data)[i] : x_local(cx, ((const int64_t *)in->data)[i]);
            } else if (from.id == WEIR_TYPE_DOUBLE) {
                double d = ((const double *)in->data)[i] * 1000.0;
                if (!(d > -9.2e18 && d < 9.2e18)) {
                    x_setnull(cx, out, i);
                    continue;
                }
                o[i] = (int64_t)d;
            } else {
                __int128 v = exact_at(in, i);
                int fs = from.id == WEIR_TYPE_DECIMAL ? from.scale : 0;
                int64_t ms;
                if (!rescale(v, fs, 3, 19, &ms)) {
                    x_setnull(cx, out, i);
                    continue;
                }
                o[i] = ms;
            }
        }
        return 0;
    }
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: {
        int32_t *o = out->data;
        bool date = to.id == WEIR_TYPE_DATE;
        /* TIME(p) keeps p digits of the second: the rest is truncated */
        int32_t unit = date ? 1 : to.precision >= 3 ? 1 : to.precision == 2 ? 10 : to.precision == 1 ? 100 : 1000;
        for (uint32_t i = 0; i < n; i++) {
            if (!x_live(out, active, i))
                continue;
            int32_t v;
            if (ss) {
                if (date ? weir__parse_date_text(ss[i].ptr, ss[i].len, &v)
                         : weir__parse_time_text(ss[i].ptr, ss[i].len, &v)) {
                    if ((rc = bad(cx, try_cast, out, i, &ss[i], to)))
                        return rc;
                    continue;
                }
            } else if (from.id == WEIR_TYPE_TIME) {
                v = ((const int32_t *)in->data)[i];
            } else {
                int64_t ms = ((const int64_t *)in->data)[i];
                if (from.id == WEIR_TYPE_TIMESTAMP_LTZ)
                    ms = x_local(cx, ms);
                v = date ? (int32_t)x_floordiv(ms, WEIR__MS_PER_DAY) : (int32_t)x_floormod(ms, WEIR__MS_PER_DAY);
            }
            o[i] = v - v % unit;
        }
        return 0;
    }
    default: return weir_error_set(cx->err, WEIR_EUNSUPPORTED, "unsupported cast");
    }
}
