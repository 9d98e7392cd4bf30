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

#include "weir/batch.h"
#include "weir/buf.h"

/* Out-of-range result of a conversion (not a public error code). */
#define WEIR__ERANGE (-100)

/* Skips ASCII spaces and tabs at both ends. */
void weir__trim(const char **p, size_t *n);

/* Integers: [+-]digits (lenient: '+' and leading zeros allowed). */
int weir__parse_i64(const char *p, size_t n, int64_t *out);
int weir__parse_i32(const char *p, size_t n, int32_t *out);
/* Doubles: decimal or scientific notation, "NaN", "Infinity", "-Infinity". */
int weir__parse_f64(const char *p, size_t n, double *out);
/*
 * DECIMAL(precision, scale): exact, with an optional exponent; digits past
 * the scale are rounded half-up (away from zero), as Java's BigDecimal
 * HALF_UP. WEIR__ERANGE when the result needs more than precision digits.
 */
int weir__fmt_parse_decimal(const char *p, size_t n, int precision, int scale, int64_t *out);
/* "true" / "false", case-insensitive. */
int weir__parse_bool(const char *p, size_t n, uint8_t *out);
/* Standard base64 with padding; writes at most n*3/4 bytes into dst. */
int weir__base64_decode(const char *p, size_t n, uint8_t *dst, size_t *dst_len);
int weir__base64_encode(const uint8_t *p, size_t n, weir_buf *out);

/*
 * Writes a double as Java's Double.toString does (shortest digits that
 * read back to the same value): "2.5", "1.0", "1.0E20", "1.0E-5", "NaN",
 * "Infinity". buf needs 32 bytes. Returns the length.
 */
size_t weir__format_f64_java(double v, char *buf);
/* Writes an unscaled decimal with scale s ("-12.30"). buf needs 32 bytes. */
size_t weir__format_decimal(int64_t unscaled, int scale, char *buf);
/* Writes an int64 in decimal. buf needs 21 bytes. Returns the length. */
size_t weir__format_i64(int64_t v, char *buf);

/*
 * Checks that s[0, n) is valid UTF-8 (no overlongs, no surrogates, at most
 * U+10FFFF); returns the index of the first bad byte, or n.
 */
size_t weir__utf8_check(const char *s, size_t n);

/*
 * Appends s[0, n) as a quoted JSON string. Bytes that are not valid UTF-8
 * are written as \u00XX (their Latin-1 reading), so the output is always
 * valid JSON.
 */
int weir__json_put_string(weir_buf *out, const char *s, size_t n);

/* Describes text for an error message: `"abc..."` quoted, truncated, escaped. */
void weir__describe_text(const char *p, size_t n, char *buf, size_t cap);

#endif
