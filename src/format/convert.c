/*
 * format/convert.c - text <-> value conversions shared by the codecs.
 *
 * Number parsing is exact where the type is exact (integers, decimals) and
 * correctly rounded for doubles: a fast path handles the common short
 * numbers, everything else goes to strtod_l in the C locale (so a program
 * that calls setlocale() cannot change how weir reads "2.5").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/convert.h"
#include "util/dec128.h"
#include "util/cnum.h"
#include "time/timefmt.h"

void weir__fmt_trim(const char **p, size_t *n)
{
    const char *s = *p;
    size_t len = *n;
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    *p = s;
    *n = len;
}

static inline bool is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

int weir__fmt_parse_i64(const char *p, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '+' || p[i] == '-')) {
        neg = p[i] == '-';
        i++;
    }
    if (i == n)
        return WEIR_EPARSE;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    bool overflow = false;
    for (; i < n; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (d > 9)
            return WEIR_EPARSE;
        if (v > (limit - d) / 10)
            overflow = true;
        else
            v = v * 10 + d;
    }
    if (overflow)
        return WEIR__ERANGE;
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 0;
}

int weir__fmt_parse_i32(const char *p, size_t n, int32_t *out)
{
    int64_t v;
    int rc = weir__fmt_parse_i64(p, n, &v);
    if (rc)
        return rc;
    if (v < INT32_MIN || v > INT32_MAX)
        return WEIR__ERANGE;
    *out = (int32_t)v;
    return 0;
}

/* ---- doubles ---- */

static bool span_eq(const char *p, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n == m && memcmp(p, lit, m) == 0;
}

/*
 * An optional exponent ("e", sign, digits) at p[*i]: its value in *exp10,
 * saturated at a million (far past any double or DECIMAL), *i moved past it.
 */
static int parse_exponent(const char *p, size_t n, size_t *i, int64_t *exp10)
{
    size_t j = *i;
    *exp10 = 0;
    if (j == n || (p[j] != 'e' && p[j] != 'E'))
        return 0;
    j++;
    bool neg = false;
    if (j < n && (p[j] == '+' || p[j] == '-')) {
        neg = p[j] == '-';
        j++;
    }
    if (j == n || !is_digit(p[j]))
        return WEIR_EPARSE;
    for (; j < n && is_digit(p[j]); j++)
        if (*exp10 < 1000000000000)
            *exp10 = *exp10 * 10 + (p[j] - '0');
    if (neg)
        *exp10 = -*exp10;
    *i = j;
    return 0;
}

int weir__fmt_parse_f64(const char *p, size_t n, double *out)
{
    static const double pow10[] = {
        1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (n && (p[n - 1] == 'N' || p[n - 1] == 'y')) {
        if (span_eq(p, n, "NaN")) {
            *out = NAN;
            return 0;
        }
        if (span_eq(p, n, "Infinity") || span_eq(p, n, "+Infinity")) {
            *out = INFINITY;
            return 0;
        }
        if (span_eq(p, n, "-Infinity")) {
            *out = -INFINITY;
            return 0;
        }
        return WEIR_EPARSE;
    }
    /* Validate the grammar and gather the significant digits on the way. */
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '+' || p[i] == '-')) {
        neg = p[i] == '-';
        i++;
    }
    uint64_t mant = 0;
    int nsig = 0, dropped = 0, nfrac = 0, ndig = 0;
    for (; i < n && is_digit(p[i]); i++, ndig++) {
        if (nsig < 19) {
            if (mant || p[i] != '0') {
                mant = mant * 10 + (unsigned)(p[i] - '0');
                nsig++;
            }
        } else {
            dropped++;
        }
    }
    bool truncated = false; /* fraction digits past the 19th significant one */
    if (i < n && p[i] == '.') {
        i++;
        for (; i < n && is_digit(p[i]); i++, ndig++) {
            if (nsig < 19) {
                if (mant || p[i] != '0')
                    nsig++;
                mant = mant * 10 + (unsigned)(p[i] - '0');
                nfrac++;
            } else if (p[i] != '0') {
                truncated = true;
            }
        }
    }
    if (ndig == 0)
        return WEIR_EPARSE;
    int64_t exp10 = 0;
    if (parse_exponent(p, n, &i, &exp10))
        return WEIR_EPARSE;
    if (i != n)
        return WEIR_EPARSE;
    int64_t e = exp10 + dropped - nfrac;
    if (dropped == 0 && !truncated && mant <= (UINT64_C(1) << 53) && e >= -22 &&
        e <= 22) {
        /* Clinger's fast path: both operands exact, one correctly rounded op.
         */
        double v = (double)mant;
        v = e < 0 ? v / pow10[-e] : v * pow10[e];
        *out = neg ? -v : v;
        return 0;
    }
    char stackbuf[128];
    char *s = n < sizeof stackbuf ? stackbuf : weir_malloc(n + 1);
    if (!s)
        return WEIR_ENOMEM;
    memcpy(s, p, n);
    s[n] = '\0';
    *out = weir__strtod_c(s, NULL);
    if (s != stackbuf)
        weir_free(s);
    return 0;
}

/* ---- decimals ---- */

/*
 * weir__fmt_parse_decimal128 and its _exact twin. The text is read as
 * Java's BigDecimal(String) reads it: an exponent, or a scale (fraction
 * digits less the exponent), past an int's range is not a number.
 */
static int parse_dec128(const char *p, size_t n, int precision, int scale, bool exact, __int128 *out)
{
    if (precision <= 0 || precision > WEIR_DEC_MAX_PRECISION)
        precision = WEIR_DEC_MAX_PRECISION;
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '+' || p[i] == '-')) {
        neg = p[i] == '-';
        i++;
    }
    size_t dig_start = i;
    int64_t ndig = 0, nfrac = 0;
    for (; i < n && is_digit(p[i]); i++)
        ndig++;
    if (i < n && p[i] == '.') {
        i++;
        for (; i < n && is_digit(p[i]); i++) {
            ndig++;
            nfrac++;
        }
    }
    size_t dig_end = i;
    if (ndig == 0)
        return WEIR_EPARSE;
    int64_t exp10 = 0;
    if (parse_exponent(p, n, &i, &exp10) || i != n || exp10 > INT32_MAX || exp10 < INT32_MIN ||
        nfrac - exp10 > INT32_MAX || nfrac - exp10 < INT32_MIN)
        return WEIR_EPARSE;
    /* unscaled = D * 10^shift, D being all the digits as one integer. */
    int64_t shift = exp10 - nfrac + scale;
    int64_t keep = ndig + shift; /* leading digits of D that survive */
    unsigned __int128 limit = (unsigned __int128)weir__pow10_128[precision];
    unsigned __int128 v = 0;
    int64_t seen = 0;
    int round_digit = 0;
    for (size_t j = dig_start; j < dig_end; j++) {
        if (p[j] == '.')
            continue;
        unsigned d = (unsigned)(p[j] - '0');
        if (seen < keep) {
            if (v > (limit - 1 - d) / 10) /* v * 10 + d >= limit */
                return WEIR__ERANGE;
            v = v * 10 + d;
        } else {
            if (seen == keep)
                round_digit = (int)d;
            if (exact && d)
                return WEIR__EINEXACT;
        }
        seen++;
    }
    for (int64_t k = ndig; k < keep;
         k++) { /* trailing zeros from a positive shift */
        if (v == 0)
            break;
        if (v > (limit - 1) / 10)
            return WEIR__ERANGE;
        v *= 10;
    }
    if (round_digit >= 5) {
        v++;
        if (v >= limit)
            return WEIR__ERANGE;
    }
    *out = neg ? -(__int128)v : (__int128)v;
    return 0;
}

int weir__fmt_parse_decimal128(const char *p, size_t n, int precision, int scale, __int128 *out)
{
    return parse_dec128(p, n, precision, scale, false, out);
}

int weir__fmt_parse_decimal128_exact(const char *p, size_t n, int precision, int scale, __int128 *out)
{
    return parse_dec128(p, n, precision, scale, true, out);
}

int weir__fmt_parse_decimal(const char *p, size_t n, int precision, int scale,
                            int64_t *out)
{
    __int128 v;
    int rc = weir__fmt_parse_decimal128(
        p, n, precision <= 0 || precision > 18 ? 18 : precision, scale, &v);
    if (!rc)
        *out = (int64_t)v;
    return rc;
}

int weir__fmt_parse_decimal_at(const char *p, size_t n, weir_type t,
                               void *data, uint32_t row)
{
    if (!weir_type_is_wide(t))
        return weir__fmt_parse_decimal(p, n, t.precision, t.scale,
                                       (int64_t *)data + row);
    __int128 v;
    int rc = weir__fmt_parse_decimal128(p, n, t.precision, t.scale, &v);
    if (!rc)
        memcpy((char *)data + (size_t)row * 16, &v, 16);
    return rc;
}

size_t weir__fmt_format_decimal_at(const void *data, uint32_t row, weir_type t,
                                   char *buf)
{
    if (!weir_type_is_wide(t))
        return weir__fmt_format_decimal(((const int64_t *)data)[row], t.scale,
                                        buf);
    __int128 v;
    memcpy(&v, (const char *)data + (size_t)row * 16, 16);
    return weir__dec_format(v, t.scale, buf);
}

int weir__fmt_parse_bool(const char *p, size_t n, uint8_t *out)
{
    if (n == 4 && strncasecmp(p, "true", 4) == 0) {
        *out = 1;
        return 0;
    }
    if (n == 5 && strncasecmp(p, "false", 5) == 0) {
        *out = 0;
        return 0;
    }
    return WEIR_EPARSE;
}

/* ---- base64 ---- */

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int weir__fmt_base64_decode(const char *p, size_t n, uint8_t *dst,
                            size_t *dst_len)
{
    /* Padding is optional, but when present it completes a group of four. */
    size_t pad = 0;
    while (n && p[n - 1] == '=' && pad < 3) {
        n--;
        pad++;
    }
    if (pad && ((n + pad) % 4 != 0 || pad > 2))
        return WEIR_EPARSE;
    if (n % 4 == 1)
        return WEIR_EPARSE;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value(p[i]);
        if (v < 0)
            return WEIR_EPARSE;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dst[o++] = (uint8_t)(acc >> bits);
        }
    }
    *dst_len = o;
    return 0;
}

int weir__fmt_base64_encode(const uint8_t *p, size_t n, weir_buf *out)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int rc = weir_buf_reserve(out, (n + 2) / 3 * 4);
    if (rc)
        return rc;
    char *d = (char *)out->data + out->len;
    size_t i = 0, o = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        d[o++] = tab[v >> 18];
        d[o++] = tab[(v >> 12) & 63];
        d[o++] = tab[(v >> 6) & 63];
        d[o++] = tab[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        d[o++] = tab[v >> 18];
        d[o++] = tab[(v >> 12) & 63];
        d[o++] = '=';
        d[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        d[o++] = tab[v >> 18];
        d[o++] = tab[(v >> 12) & 63];
        d[o++] = tab[(v >> 6) & 63];
        d[o++] = '=';
    }
    out->len += o;
    return 0;
}

/* ---- formatting ---- */

size_t weir__fmt_format_i64(int64_t v, char *buf)
{
    char tmp[24];
    size_t n = 0;
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag);
    size_t o = 0;
    if (v < 0)
        buf[o++] = '-';
    while (n)
        buf[o++] = tmp[--n];
    buf[o] = '\0';
    return o;
}

size_t weir__fmt_format_interval(int64_t v, int kind, char *buf)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char sign = v < 0 ? '-' : '+';
    if (kind == 2) /* year-month: months */
        return (size_t)sprintf(buf, "%c%llu-%02u", sign, (unsigned long long)(mag / 12), (unsigned)(mag % 12));
    /* day-time: milliseconds; the day count is printed as a 32-bit int, as Flink does */
    uint64_t days = mag / 86400000u, in_day = mag % 86400000u;
    return (size_t)sprintf(buf, "%c%d %02u:%02u:%02u.%03u", sign, (int32_t)(uint32_t)days,
                           (unsigned)(in_day / 3600000u), (unsigned)(in_day / 60000u % 60u),
                           (unsigned)(in_day / 1000u % 60u), (unsigned)(in_day % 1000u));
}

size_t weir__fmt_format_decimal(int64_t unscaled, int scale, char *buf)
{
    if (scale <= 0)
        return weir__fmt_format_i64(unscaled, buf);
    uint64_t mag =
        unscaled < 0 ? (uint64_t)0 - (uint64_t)unscaled : (uint64_t)unscaled;
    char digits[24];
    size_t nd = 0;
    do {
        digits[nd++] = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag);
    while (nd <= (size_t)scale) /* at least one digit before the point */
        digits[nd++] = '0';
    size_t o = 0;
    if (unscaled < 0)
        buf[o++] = '-';
    while (nd > (size_t)scale)
        buf[o++] = digits[--nd];
    buf[o++] = '.';
    while (nd)
        buf[o++] = digits[--nd];
    buf[o] = '\0';
    return o;
}

/*
 * ---- DOUBLE as Java 17 writes it ----
 *
 * Double.toString (and Formatter's %e/%f/%g, which round its digits) come
 * from the JDK's binary-to-decimal digit loop, which is not always the
 * shortest text that reads back: it stops on a symmetric half-ulp test
 * (9.9999999999999984E16, where 9.999999999999998E16 would do), compares
 * with '>' in its 32/64-bit arithmetic and '>=' in its big-number one,
 * keeps a second digit in E-notation (4.9E-324, not 5.0E-324) and rounds
 * integers held in 64 bits at a fixed count of insignificant digits. Each
 * rule is reproduced below, checked against Java 17 over a few hundred
 * thousand values (tests/tools/java_double_soak.sh).
 */

/* ---- a small unsigned big integer (enough for 2^1100 * 10) ---- */

#define BN_LIMBS 48

typedef struct bn {
    uint32_t w[BN_LIMBS];
    int n; /* limbs in use; w[n-1] != 0 unless n == 0 */
} bn;

static void bn_trim(bn *a)
{
    while (a->n > 0 && a->w[a->n - 1] == 0)
        a->n--;
}

static void bn_mul_small(bn *a, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->w[i] * m + carry;
        a->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry)
        a->w[a->n++] = (uint32_t)carry;
}

static void bn_shl(bn *a, int s)
{
    if (a->n == 0 || s == 0)
        return;
    int words = s / 32, bits = s % 32;
    int n = a->n + words + 1;
    for (int i = n - 1; i >= 0; i--) {
        int src = i - words;
        uint32_t hi = src >= 0 && src < a->n ? a->w[src] : 0;
        uint32_t lo = src - 1 >= 0 && src - 1 < a->n ? a->w[src - 1] : 0;
        a->w[i] = bits ? (hi << bits) | (lo >> (32 - bits)) : hi;
    }
    a->n = n;
    bn_trim(a);
}

/* v * 5^p5 * 2^p2 */
static void bn_make(bn *a, uint64_t v, int p5, int p2)
{
    a->w[0] = (uint32_t)v;
    a->w[1] = (uint32_t)(v >> 32);
    a->n = 2;
    bn_trim(a);
    for (; p5 >= 13; p5 -= 13)
        bn_mul_small(a, 1220703125u); /* 5^13 */
    uint32_t r = 1;
    while (p5-- > 0)
        r *= 5;
    bn_mul_small(a, r);
    bn_shl(a, p2);
}

static int bn_cmp(const bn *a, const bn *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* a -= b (a >= b) */
static void bn_sub(bn *a, const bn *b)
{
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t t = (int64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
        borrow = t < 0;
        a->w[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
    }
    bn_trim(a);
}

/* sign of (a + b) - c */
static int bn_add_cmp(const bn *a, const bn *b, const bn *c)
{
    bn s;
    uint64_t carry = 0;
    int n = a->n > b->n ? a->n : b->n;
    for (int i = 0; i < n; i++) {
        uint64_t t = (uint64_t)(i < a->n ? a->w[i] : 0) + (i < b->n ? b->w[i] : 0) + carry;
        s.w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    s.n = n;
    if (carry)
        s.w[s.n++] = (uint32_t)carry;
    bn_trim(&s);
    return bn_cmp(&s, c);
}

/* q = b / s (below 10); b = 10 * (b % s) */
static int bn_quo_rem10(bn *b, const bn *s)
{
    int q = 0;
    while (bn_cmp(b, s) >= 0) {
        bn_sub(b, s);
        q++;
    }
    bn_mul_small(b, 10);
    return q;
}

/* ---- the digit generation ---- */

static const int64_t long_5_pow[27] = {
    1LL, 5LL, 25LL, 125LL, 625LL, 3125LL, 15625LL, 78125LL, 390625LL, 1953125LL, 9765625LL, 48828125LL,
    244140625LL, 1220703125LL, 6103515625LL, 30517578125LL, 152587890625LL, 762939453125LL,
    3814697265625LL, 19073486328125LL, 95367431640625LL, 476837158203125LL, 2384185791015625LL,
    11920928955078125LL, 59604644775390625LL, 298023223876953125LL, 1490116119384765625LL};
/* about ceil(log2(5^i)) */
static const int n_5_bits[27] = {0,  3,  5,  7,  10, 12, 14, 17, 19, 21, 24, 26, 28, 31,
                                 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61};
/* decimal digits dropped from a 64-bit integer of 2^p significant value: floor(log10(2^p)) */
static const int insignificant_pow2[64] = {0,  0,  0,  0,  1,  1,  1,  2,  2,  2,  3,  3,  3,  3,  4,  4,
                                           4,  5,  5,  5,  6,  6,  6,  6,  7,  7,  7,  8,  8,  8,  9,  9,
                                           9,  9,  10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14,
                                           14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19};

typedef struct jdigits {
    char d[24];
    int nd;
    int dexp; /* the value is 0.d1d2... * 10^dexp */
} jdigits;

static void round_up(jdigits *j)
{
    int i = j->nd - 1;
    char q = j->d[i];
    if (q == '9') {
        while (q == '9' && i > 0) {
            j->d[i] = '0';
            q = j->d[--i];
        }
        if (q == '9') { /* carry out: 1 and zeros, one exponent more */
            j->dexp += 1;
            j->d[0] = '1';
            return;
        }
    }
    j->d[i] = (char)(q + 1);
}

/* A 64-bit integer value whose low `insig` decimal digits are dropped (rounded half up). */
static void long_digits(jdigits *j, int64_t v, int insig)
{
    int dexp = 0;
    if (insig) {
        int64_t p10 = long_5_pow[insig] << insig;
        int64_t residue = v % p10;
        v /= p10;
        dexp += insig;
        if (residue >= (p10 >> 1))
            v++;
    }
    char tmp[24];
    int n = 0;
    int c = (int)(v % 10);
    v /= 10;
    while (c == 0) {
        dexp++;
        c = (int)(v % 10);
        v /= 10;
    }
    while (v != 0) {
        tmp[n++] = (char)('0' + c);
        dexp++;
        c = (int)(v % 10);
        v /= 10;
    }
    tmp[n++] = (char)('0' + c);
    for (int k = 0; k < n; k++)
        j->d[k] = tmp[n - 1 - k];
    j->nd = n;
    j->dexp = dexp + 1;
}

/* floor(log10) estimate of the value, from its leading bits (may be one too low) */
static int estimate_dec_exp(uint64_t fract, int bin_exp)
{
    uint64_t bits = UINT64_C(0x3ff0000000000000) | (fract & UINT64_C(0x000fffffffffffff));
    double d2;
    memcpy(&d2, &bits, 8);
    volatile double a = (d2 - 1.5) * 0.289529654; /* volatile: no fused multiply-add */
    volatile double s = a + 0.176091259;
    volatile double b = (double)bin_exp * 0.301029995663981;
    double d = s + b;
    int r = (int)d;
    return (double)r > d ? r - 1 : r;
}

/*
 * fract: the significand with its leading bit at bit 52 (subnormals
 * normalized), bin_exp its binary exponent, nsig its significant bits;
 * compat: Double.toString's form (not Formatter's %e/%f/%g).
 */
static void java_dtoa(jdigits *j, int bin_exp, uint64_t fract, int nsig, bool compat)
{
    int tail = __builtin_ctzll(fract);
    int nfract = 53 - tail;
    int ntiny = nfract - bin_exp - 1 > 0 ? nfract - bin_exp - 1 : 0;
    if (bin_exp <= 62 && bin_exp >= -21 && ntiny < 27 && nfract + n_5_bits[ntiny] < 64 && ntiny == 0) {
        int insig = bin_exp > nsig && bin_exp - nsig - 1 > 1 && bin_exp - nsig - 1 < 64
                        ? insignificant_pow2[bin_exp - nsig - 1]
                        : 0;
        uint64_t v = bin_exp >= 52 ? fract << (bin_exp - 52) : fract >> (52 - bin_exp);
        long_digits(j, (int64_t)v, insig);
        return;
    }
    int dec_exp = estimate_dec_exp(fract, bin_exp);
    int b5 = dec_exp < 0 ? -dec_exp : 0;
    int b2 = b5 + ntiny + bin_exp;
    int s5 = dec_exp > 0 ? dec_exp : 0;
    int s2 = s5 + ntiny;
    int m5 = b5;
    int m2 = b2 - nsig;
    fract >>= tail;
    b2 -= nfract - 1;
    int common = b2 < s2 ? b2 : s2;
    b2 -= common;
    s2 -= common;
    m2 -= common;
    if (nfract == 1) /* a power of two: the next value down is half as far */
        m2 -= 1;
    if (m2 < 0) {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }
    int bbits = nfract + b2 + (b5 < 27 ? n_5_bits[b5] : b5 * 3);
    int tensbits = s2 + 1 + (s5 + 1 < 27 ? n_5_bits[s5 + 1] : (s5 + 1) * 3);
    int nd = 0;
    bool low, high;
    int64_t low_diff = 0;
    if (bbits < 64 && tensbits < 64) {
        /* 32- or 64-bit arithmetic, wrapping as Java's int and long do */
        bool is32 = bbits < 32 && tensbits < 32;
        int64_t b, s, m, tens;
        if (is32) {
            b = (int32_t)((uint32_t)((uint32_t)fract * (uint32_t)long_5_pow[b5]) << (b2 & 31));
            s = (int32_t)((uint32_t)long_5_pow[s5] << (s2 & 31));
            m = (int32_t)((uint32_t)long_5_pow[m5] << (m2 & 31));
            tens = (int32_t)((uint32_t)s * 10u);
        } else {
            b = (int64_t)((fract * (uint64_t)long_5_pow[b5]) << (b2 & 63));
            s = (int64_t)((uint64_t)long_5_pow[s5] << (s2 & 63));
            m = (int64_t)((uint64_t)long_5_pow[m5] << (m2 & 63));
            tens = (int64_t)((uint64_t)s * 10u);
        }
#define WRAP(x) (is32 ? (int64_t)(int32_t)(uint32_t)(uint64_t)(x) : (int64_t)(uint64_t)(x))
        int q = (int)(b / s);
        b = WRAP((uint64_t)(b % s) * 10u);
        m = WRAP((uint64_t)m * 10u);
        low = b < m;
        high = WRAP((uint64_t)b + (uint64_t)m) > tens;
        if (q == 0 && !high)
            dec_exp--; /* the estimate was one too high */
        else
            j->d[nd++] = (char)('0' + q);
        if (!compat || dec_exp < -3 || dec_exp >= 8)
            high = low = false; /* E-form keeps a digit after the point */
        while (!low && !high) {
            q = (int)(b / s);
            b = WRAP((uint64_t)(b % s) * 10u);
            m = WRAP((uint64_t)m * 10u);
            if (m > 0) {
                low = b < m;
                high = WRAP((uint64_t)b + (uint64_t)m) > tens;
            } else {
                low = high = true; /* m overflowed */
            }
            j->d[nd++] = (char)('0' + q);
        }
        low_diff = WRAP(((uint64_t)b << 1) - (uint64_t)tens);
#undef WRAP
    } else {
        bn bb, ss, mm, tens;
        bn_make(&ss, 1, s5, s2);
        bn_make(&bb, fract, b5, b2);
        bn_make(&mm, 1, m5 + 1, m2 + 1);
        bn_make(&tens, 1, s5 + 1, s2 + 1);
        int q = bn_quo_rem10(&bb, &ss);
        low = bn_cmp(&bb, &mm) < 0;
        high = bn_add_cmp(&bb, &mm, &tens) >= 0;
        if (q == 0 && !high)
            dec_exp--;
        else
            j->d[nd++] = (char)('0' + q);
        if (!compat || dec_exp < -3 || dec_exp >= 8)
            high = low = false;
        while (!low && !high) {
            q = bn_quo_rem10(&bb, &ss);
            bn_mul_small(&mm, 10);
            low = bn_cmp(&bb, &mm) < 0;
            high = bn_add_cmp(&bb, &mm, &tens) >= 0;
            j->d[nd++] = (char)('0' + q);
        }
        if (high && low) {
            bn_shl(&bb, 1);
            low_diff = bn_cmp(&bb, &tens);
        }
    }
    j->dexp = dec_exp + 1;
    j->nd = nd;
    if (high) {
        if (low) {
            if (low_diff == 0) {
                if ((j->d[nd - 1] - '0') & 1)
                    round_up(j);
            } else if (low_diff > 0) {
                round_up(j);
            }
        } else {
            round_up(j);
        }
    }
}

/* Unpacks a finite nonzero double and generates its digits. */
static void jd_double(double v, bool compat, jdigits *j)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    uint64_t fract = bits & UINT64_C(0x000fffffffffffff);
    int bin_exp = (int)((bits >> 52) & 0x7ff);
    int nsig;
    if (bin_exp == 0) {
        int lz = __builtin_clzll(fract);
        int shift = lz - 11;
        fract <<= shift;
        bin_exp = 1 - shift;
        nsig = 64 - lz;
    } else {
        fract |= UINT64_C(1) << 52;
        nsig = 53;
    }
    java_dtoa(j, bin_exp - 1023, fract, nsig, compat);
}

/* Double.toString's text of digits (sign apart) */
static size_t jd_text(const jdigits *j, char *buf)
{
    size_t o = 0;
    int e = j->dexp;
    if (e > 0 && e < 8) {
        int whole = j->nd < e ? j->nd : e;
        memcpy(buf + o, j->d, (size_t)whole);
        o += (size_t)whole;
        if (whole < e) {
            memset(buf + o, '0', (size_t)(e - whole));
            o += (size_t)(e - whole);
            buf[o++] = '.';
            buf[o++] = '0';
        } else {
            buf[o++] = '.';
            if (whole < j->nd) {
                memcpy(buf + o, j->d + whole, (size_t)(j->nd - whole));
                o += (size_t)(j->nd - whole);
            } else {
                buf[o++] = '0';
            }
        }
    } else if (e <= 0 && e > -3) {
        buf[o++] = '0';
        buf[o++] = '.';
        memset(buf + o, '0', (size_t)-e);
        o += (size_t)-e;
        memcpy(buf + o, j->d, (size_t)j->nd);
        o += (size_t)j->nd;
    } else {
        buf[o++] = j->d[0];
        buf[o++] = '.';
        if (j->nd > 1) {
            memcpy(buf + o, j->d + 1, (size_t)(j->nd - 1));
            o += (size_t)(j->nd - 1);
        } else {
            buf[o++] = '0';
        }
        buf[o++] = 'E';
        int x = e - 1;
        if (x < 0) {
            buf[o++] = '-';
            x = -x;
        }
        char t[8];
        int n = 0;
        do {
            t[n++] = (char)('0' + x % 10);
            x /= 10;
        } while (x);
        while (n)
            buf[o++] = t[--n];
    }
    buf[o] = '\0';
    return o;
}

int weir__fmt_java_digits(double v, bool compat, char *digits, int *dec_exponent)
{
    jdigits j;
    jd_double(fabs(v), compat, &j);
    memcpy(digits, j.d, (size_t)j.nd);
    digits[j.nd] = '\0';
    *dec_exponent = j.dexp;
    return j.nd;
}

size_t weir__fmt_format_f64_java(double v, char *buf)
{
    if (isnan(v))
        return (size_t)sprintf(buf, "NaN");
    if (isinf(v))
        return (size_t)sprintf(buf, v < 0 ? "-Infinity" : "Infinity");
    size_t o = 0;
    if (signbit(v)) {
        buf[o++] = '-';
        v = -v;
    }
    if (v == 0) {
        memcpy(buf + o, "0.0", 4);
        return o + 3;
    }
    jdigits j;
    jd_double(v, true, &j);
    return o + jd_text(&j, buf + o);
}

/* ---- UTF-8 ---- */

size_t weir__fmt_utf8_check(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        /* ASCII runs, eight bytes at a time. */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & UINT64_C(0x8080808080808080))
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp, min;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        for (size_t k = 1; k < len; k++) {
            unsigned cc = s[i + k];
            if ((cc & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (cc & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += len;
    }
    return n;
}

void weir__fmt_describe_text(const char *p, size_t n, char *buf, size_t cap)
{
    size_t o = 0;
    const size_t max_shown = 24;
    if (cap < 8) {
        if (cap)
            buf[0] = '\0';
        return;
    }
    buf[o++] = '"';
    size_t i = 0;
    for (; i < n && i < max_shown && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
        } else {
            buf[o++] = (char)c;
        }
    }
    if (i < n && o + 5 < cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
}

int weir__fmt_json_put_string(weir_buf *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    int rc = weir_buf_reserve(out, n + 2);
    if (rc)
        return rc;
    out->data[out->len++] = '"';
    /* an empty string may come without bytes (s NULL: a MAP's "" key) */
    const char *p = s, *end = n ? s + n : s;
    while (p < end) {
        const char *run = p;
        p = weir__fmt_json_scan(p, end);
        while (p < end &&
               (unsigned char)*p >= 0x80) { /* valid UTF-8 is copied as is */
            size_t lim = (size_t)(end - p) < 4 ? (size_t)(end - p) : 4, seq = 1;
            while (seq < lim && ((unsigned char)p[seq] & 0xC0) == 0x80)
                seq++;
            if (seq == 1 || weir__fmt_utf8_check(p, seq) != seq)
                break;
            p = weir__fmt_json_scan(p + seq, end);
        }
        if (p > run && (rc = weir_buf_put(out, run, (size_t)(p - run))))
            return rc;
        if (p == end)
            break;
        unsigned char c = (unsigned char)*p++;
        char esc[6] = {'\\', 0};
        size_t en = 2;
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default: /* control characters and bytes that are not UTF-8 */
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            en = 6;
        }
        if ((rc = weir_buf_put(out, esc, en)))
            return rc;
    }
    return weir_buf_put_u8(out, '"');
}

static inline void put2(char *o, int v)
{
    o[0] = (char)('0' + v / 10);
    o[1] = (char)('0' + v % 10);
}

size_t weir__fmt_format_ts_fast(int64_t ms, char *buf)
{
    if (!weir__fmt_ts_in_range(ms))
        return weir__format_ts(ms, buf, 32);
    weir__civil c;
    weir__civil_from_ms(ms, &c);
    put2(buf, (int)(c.year / 100));
    put2(buf + 2, (int)(c.year % 100));
    buf[4] = '-';
    put2(buf + 5, c.month);
    buf[7] = '-';
    put2(buf + 8, c.day);
    buf[10] = ' ';
    put2(buf + 11, c.hour);
    buf[13] = ':';
    put2(buf + 14, c.minute);
    buf[16] = ':';
    put2(buf + 17, c.second);
    buf[19] = '.';
    buf[20] = (char)('0' + c.millis / 100);
    put2(buf + 21, c.millis % 100);
    buf[23] = '\0';
    return 23;
}

int weir__fmt_parse_date(const char *p, size_t n, int32_t *out)
{
    int64_t ms;
    if (n != 10 || weir__parse_ts(p, n, &ms, NULL))
        return WEIR_EPARSE;
    *out = (int32_t)(ms / WEIR__MS_PER_DAY - (ms % WEIR__MS_PER_DAY < 0));
    return 0;
}

int weir__fmt_parse_time(const char *p, size_t n, int precision, int32_t *out)
{
    int32_t ms;
    if (n < 5 || p[2] != ':' || weir__parse_time_text(p, n, &ms))
        return WEIR_EPARSE;
    int32_t unit = precision >= 3 ? 1 : precision == 2 ? 10 : precision == 1 ? 100 : 1000;
    *out = ms - ms % unit;
    return 0;
}
