/*
 * format/convert.c - text <-> value conversions shared by the codecs.
 *
 * Number parsing is exact where the type is exact (integers, decimals) and
 * correctly rounded for doubles: a fast path handles the common short
 * numbers, everything else goes to strtod_l in the C locale (so a program
 * that calls setlocale() cannot change how weir reads "2.5").
 */
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/convert.h"
#include "util/dec128.h"
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

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void init_c_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static double strtod_c(const char *s, char **end)
{
    pthread_once(&c_locale_once, init_c_locale);
    if (c_locale)
        return strtod_l(s, end, c_locale);
    return strtod(s, end);
}

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
        if (*exp10 < 1000000)
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
    *out = strtod_c(s, NULL);
    if (s != stackbuf)
        weir_free(s);
    return 0;
}

/* ---- decimals ---- */

int weir__fmt_parse_decimal128(const char *p, size_t n, int precision, int scale,
                               __int128 *out)
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
    if (parse_exponent(p, n, &i, &exp10))
        return WEIR_EPARSE;
    if (i != n)
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
        } else if (seen == keep) {
            round_digit = (int)d;
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
 * Shortest decimal digits of |v| that read back as v: returns the digits
 * (no point, no trailing zeros) and the decimal exponent of the first one.
 * Reading back at k digits is monotone in k, so a binary search finds the
 * shortest k in about four tries.
 */
static void shortest_digits(double v, char *digits, int *ndigits, int *exp10)
{
    char tmp[40];
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(tmp, sizeof tmp, "%.*e", mid - 1, v);
        if (strtod(tmp, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(tmp, sizeof tmp, "%.*e", lo - 1, v);
    /* tmp is "d[.ddd]e[+-]xx" with the locale's radix character at [1]. */
    int nd = 0;
    const char *s = tmp;
    digits[nd++] = *s++;
    if (lo > 1) {
        s++; /* radix */
        while (*s != 'e')
            digits[nd++] = *s++;
    }
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    *ndigits = nd;
    *exp10 = atoi(strchr(tmp, 'e') + 1);
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
    char d[20];
    int nd, e;
    shortest_digits(v, d, &nd, &e);
    if (v >= 1e-3 && v < 1e7) {
        if (e >= 0) {
            for (int k = 0; k <= e; k++)
                buf[o++] = k < nd ? d[k] : '0';
            buf[o++] = '.';
            if (nd > e + 1)
                for (int k = e + 1; k < nd; k++)
                    buf[o++] = d[k];
            else
                buf[o++] = '0';
        } else {
            buf[o++] = '0';
            buf[o++] = '.';
            for (int k = 0; k < -e - 1; k++)
                buf[o++] = '0';
            for (int k = 0; k < nd; k++)
                buf[o++] = d[k];
        }
        buf[o] = '\0';
        return o;
    }
    if (nd == 1) {
        /* Java prints at least "d.d": the two-digit form is the correctly
         * rounded one (4.9E-324, not 5.0E-324). */
        char tmp[40];
        snprintf(tmp, sizeof tmp, "%.1e", v);
        d[0] = tmp[0];
        d[1] = tmp[2];
        nd = 2;
        e = atoi(strchr(tmp, 'e') + 1);
    }
    buf[o++] = d[0];
    buf[o++] = '.';
    if (nd > 1)
        for (int k = 1; k < nd; k++)
            buf[o++] = d[k];
    else
        buf[o++] = '0';
    o += (size_t)sprintf(buf + o, "E%d", e);
    return o;
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
