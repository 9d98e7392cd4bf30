/*
 * format/convert.h - text <-> value conversions shared by the JSON and CSV
 * codecs and the print sink. Internal-but-shared (weir__ names).
 *
 * Parsers take a text span that is not NUL-terminated and never read past
 * it. They return 0, WEIR_EPARSE (malformed text) or WEIR_ERANGE_ (a
 * well-formed number that does not fit the type); *bad_at, when not NULL,
 * is set to the offending index.
 */
#ifndef WEIR_FORMAT_CONVERT_H
#define WEIR_FORMAT_CONVERT_H

#include <string.h>

#include "weir/batch.h"
#include "weir/buf.h"

/* Out-of-range result of a conversion, and an inexact one where exactness
 * was asked for (not public error codes). */
#define WEIR__ERANGE (-100)
#define WEIR__EINEXACT (-101)

/*
 * TIMESTAMP(3) values weir reads and writes: years 0000 to 9999, as in
 * Flink (epoch ms -62167219200000 to 253402300799999).
 */
static inline bool weir__fmt_ts_in_range(int64_t ms)
{
    return ms >= INT64_C(-62167219200000) && ms <= INT64_C(253402300799999);
}

/* Skips ASCII spaces and tabs at both ends. */
void weir__fmt_trim(const char **p, size_t *n);

/* Integers: [+-]digits (lenient: '+' and leading zeros allowed). */
int weir__fmt_parse_i64(const char *p, size_t n, int64_t *out);
int weir__fmt_parse_i32(const char *p, size_t n, int32_t *out);
/* Doubles: decimal or scientific notation, "NaN", "Infinity", "-Infinity". */
int weir__fmt_parse_f64(const char *p, size_t n, double *out);
/*
 * DECIMAL(precision, scale): exact, with an optional exponent; digits past
 * the scale are rounded half-up (away from zero), as Java's BigDecimal
 * HALF_UP. WEIR__ERANGE when the result needs more than precision digits.
 */
int weir__fmt_parse_decimal(const char *p, size_t n, int precision, int scale,
                            int64_t *out);
/*
 * DATE as "yyyy-MM-dd" (days since 1970-01-01, years 0000 to 9999) and
 * TIME(precision) as "HH:mm[:ss[.fraction]]" (milliseconds of the day, the
 * fraction truncated to the precision's digits), as Flink's formats write them.
 */
int weir__fmt_parse_date(const char *p, size_t n, int32_t *out);
int weir__fmt_parse_time(const char *p, size_t n, int precision, int32_t *out);
/* "true" / "false", case-insensitive. */
int weir__fmt_parse_bool(const char *p, size_t n, uint8_t *out);
/* Standard base64 with padding; writes at most n*3/4 bytes into dst. */
int weir__fmt_base64_decode(const char *p, size_t n, uint8_t *dst,
                            size_t *dst_len);
int weir__fmt_base64_encode(const uint8_t *p, size_t n, weir_buf *out);

/*
 * Writes a double as Java 17's Double.toString does: "2.5", "1.0",
 * "1.0E20", "1.0E-5", "4.9E-324", "NaN", "Infinity" (the JDK's digits,
 * which are not always the shortest that read back). buf needs 32 bytes.
 * Returns the length.
 */
size_t weir__fmt_format_f64_java(double v, char *buf);
/*
 * The decimal digits of |v| (finite, not zero) as the JDK generates them:
 * compat for Double.toString's, else those Formatter's %e/%f/%g round
 * (at least two). The value is 0.d1d2... * 10^*dec_exponent. digits needs
 * 24 bytes (NUL-terminated); returns their count.
 */
int weir__fmt_java_digits(double v, bool compat, char *digits, int *dec_exponent);
/* Writes an unscaled decimal with scale s ("-12.30"). buf needs 32 bytes. */
size_t weir__fmt_format_decimal(int64_t unscaled, int scale, char *buf);
/*
 * The same for any precision up to 38 (128-bit unscaled value), the text
 * read as Java's BigDecimal reads it: [+-]digits[.digits][e[+-]digits],
 * rounded HALF_UP to the scale; an exponent or a scale past an int's
 * range is not a number (WEIR_EPARSE), too many digits WEIR__ERANGE.
 */
int weir__fmt_parse_decimal128(const char *p, size_t n, int precision, int scale,
                               __int128 *out);
/* The same without rounding: WEIR__EINEXACT when a digit past the scale is not 0. */
int weir__fmt_parse_decimal128_exact(const char *p, size_t n, int precision, int scale, __int128 *out);
/* Parses into row `row` of a DECIMAL column of type t (either width). */
int weir__fmt_parse_decimal_at(const char *p, size_t n, weir_type t,
                               void *data, uint32_t row);
/* Formats row `row` of a DECIMAL column of type t; buf needs 48 bytes. */
size_t weir__fmt_format_decimal_at(const void *data, uint32_t row, weir_type t,
                                   char *buf);
/* Writes an int64 in decimal. buf needs 21 bytes. Returns the length. */
size_t weir__fmt_format_i64(int64_t v, char *buf);
/*
 * The text of an INTERVAL value as Flink writes it (CAST AS STRING, the
 * print connector): day-time milliseconds as "+1 02:03:04.000" (sign, the
 * days unpadded, then hh:mm:ss.fff), year-month months as "+1-02" (sign,
 * the years, the months in two digits). kind is a weir_interval_kind
 * (1 day-time, 2 year-month). buf needs 32 bytes. Returns the length.
 */
size_t weir__fmt_format_interval(int64_t v, int kind, char *buf);

/*
 * Checks that s[0, n) is valid UTF-8 (no overlongs, no surrogates, at most
 * U+10FFFF); returns the index of the first bad byte, or n.
 */
size_t weir__fmt_utf8_check(const char *s, size_t n);

/*
 * Appends s[0, n) as a quoted JSON string. Bytes that are not valid UTF-8
 * are written as \u00XX (their Latin-1 reading), so the output is always
 * valid JSON.
 */
int weir__fmt_json_put_string(weir_buf *out, const char *s, size_t n);

/*
 * Returns the first byte in [p, end) that is '"', '\\', a control
 * character or non-ASCII (or end): the bytes a string scan must look at.
 * Sixteen bytes at a time with SSE2, eight with plain 64-bit arithmetic
 * elsewhere; the lowest flagged byte is exact in both (borrows in the
 * 64-bit tricks only ever flag bytes above a true hit).
 */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline const char *weir__fmt_json_scan(const char *p, const char *end)
{
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'),
                  c1f = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs));
        m = _mm_or_si128(
            m, _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f)); /* v <= 0x1f */
        unsigned mask =
            (unsigned)_mm_movemask_epi8(m) | (unsigned)_mm_movemask_epi8(v);
        if (mask)
            return p + __builtin_ctz(mask);
        p += 16;
    }
#endif
    const uint64_t ones = UINT64_C(0x0101010101010101),
                   highs = UINT64_C(0x8080808080808080);
    while (end - p >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        uint64_t xq = v ^ (ones * '"'), xb = v ^ (ones * '\\');
        uint64_t hit = (((xq - ones) & ~xq) | ((xb - ones) & ~xb) |
                        (v - ones * 0x20) | v) &
                       highs;
        if (hit)
            return p + (__builtin_ctzll(hit) >> 3);
        p += 8;
    }
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            return p;
        p++;
    }
    return end;
}

/*
 * Writes "yyyy-MM-dd HH:mm:ss.SSS" for years 0000-9999 without printf
 * (falls back to weir__format_ts outside them). buf needs 32 bytes.
 */
size_t weir__fmt_format_ts_fast(int64_t ms, char *buf);

/* Describes text for an error message: `"abc..."` quoted, truncated, escaped.
 */
void weir__fmt_describe_text(const char *p, size_t n, char *buf, size_t cap);

#endif
