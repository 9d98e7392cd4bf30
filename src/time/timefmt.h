/*
 * time/timefmt.h - converting epoch milliseconds to and from civil UTC
 * date-times ("yyyy-MM-dd HH:mm:ss.SSS"), with floor semantics for negative
 * instants. Internal-but-shared: formats, SQL functions and sinks use it.
 */
#ifndef WEIR_TIMEFMT_H
#define WEIR_TIMEFMT_H

#include "weir/common.h"

typedef struct weir__civil {
    int64_t year;
    int month, day, hour, minute, second, millis;
} weir__civil;

int64_t weir__days_from_civil(int64_t y, int m, int d);
void weir__civil_from_ms(int64_t ms, weir__civil *c);
int64_t weir__ms_from_civil(const weir__civil *c);
/* Writes "yyyy-MM-dd HH:mm:ss.SSS" (23 chars + NUL; cap >= 32). Returns the length. */
size_t weir__format_ts(int64_t ms, char *buf, size_t cap);
/*
 * Parses "yyyy-MM-dd[ |T]HH:mm:ss[.S{1,9}][Z]" or "yyyy-MM-dd". Returns 0 and
 * the instant, or WEIR_EPARSE with *bad_at set to the offending offset.
 */
/*
 * The digits of a fraction of a second at s[*i] (after the '.'): one to nine
 * of them, kept to milliseconds (truncated) in *ms; *i moves past them.
 * Nonzero when there is no digit.
 */
int weir__parse_fraction_ms(const char *s, size_t len, size_t *i, int *ms);

int weir__parse_ts(const char *s, size_t len, int64_t *out_ms, size_t *bad_at);

/* DATE and TIME values: days since 1970-01-01 and milliseconds of the day. */
#define WEIR__MS_PER_DAY 86400000
/* Writes "yyyy-MM-dd" (cap >= 24). Returns the length. */
size_t weir__format_date(int32_t days, char *buf, size_t cap);
/* Writes "HH:mm:ss" and, for digits > 0, that many digits of the fraction
 * (digits < 0: the fraction's digits without trailing zeros, none when
 * whole). cap >= 16. Returns the length. */
size_t weir__format_time(int32_t ms, int digits, char *buf, size_t cap);
/*
 * Text to DATE: "y-M-d" (one to four digits of year, one or two of month and
 * day), surrounding whitespace ignored, and anything after a space (the time
 * of a timestamp) ignored. Nonzero when invalid.
 */
int weir__parse_date_text(const char *s, size_t len, int32_t *days);
/* Text to TIME: "H:m[:s[.fraction]]" (one or two digits each), whitespace
 * around ignored; the fraction is kept to milliseconds. Nonzero when invalid. */
int weir__parse_time_text(const char *s, size_t len, int32_t *ms);

#endif
