/*
 * time/tz.h - time zones: UTC, fixed offsets, and IANA zones read from the
 * system's compiled zoneinfo files (TZif versions 1 to 4), including the
 * POSIX TZ rule in the file's footer, which gives the offsets of instants
 * past the last listed transition (Debian's files list them up to 2037).
 *
 * Internal-but-shared: SQL functions (expr/), window operators over
 * TIMESTAMP_LTZ attributes (window/) and the planner use one loaded zone.
 * A zone is immutable once loaded, so it may be shared across threads.
 */
#ifndef WEIR_TIME_TZ_H
#define WEIR_TIME_TZ_H

#include <stdbool.h>
#include <stdint.h>

#include "weir/common.h"

/* One "Mm.w.d", "Jn" or "n" date of a POSIX TZ rule, with its local time. */
typedef struct weir__tz_date {
    char kind;      /* 'M' month.week.day, 'J' 1..365 without Feb 29, 'n' 0..365 with it */
    int16_t month, week, wday, day;
    int32_t time_s; /* seconds after local midnight (may be negative or past 24 h) */
} weir__tz_date;

typedef struct weir__tz {
    char name[64];
    int32_t fixed_s;     /* used when n_trans == 0 and there is no rule */
    uint32_t n_trans;
    int64_t *trans;      /* UTC seconds of each transition */
    int32_t *offs;       /* offset (s) in effect from trans[i] */
    int32_t off0;        /* offset before the first transition */
    /* The footer rule, for instants after the last transition. */
    bool has_rule;       /* a rule is present (with or without DST) */
    bool rule_dst;       /* the rule has a daylight-saving part */
    int32_t std_s, dst_s; /* standard and daylight offsets (seconds east of UTC) */
    weir__tz_date start, end; /* DST starts (in standard time) and ends (in DST) */
} weir__tz;

/*
 * Loads a zone by name: NULL (*out) for UTC ("UTC", "GMT", "Z", "Etc/UTC", ""),
 * a fixed offset ("+08:00", "GMT-5", "UTC+05:30"), or a zoneinfo name read
 * under $TZDIR or /usr/share/zoneinfo. *out is transferred to the caller.
 */
int weir__tz_load(const char *name, weir__tz **out, weir_error *err);
void weir__tz_free(weir__tz *tz);

/* Offset in ms to add to a UTC instant to get local wall time. */
int64_t weir__tz_offset(const weir__tz *tz, int64_t utc_ms);

/*
 * The instant of a local wall time, as java.time's LocalDateTime.atZone:
 * a time in a gap (spring forward) moves forward by the gap's length, a time
 * in an overlap (fall back) takes the earlier instant.
 */
int64_t weir__tz_to_utc(const weir__tz *tz, int64_t local_ms);

/*
 * The smallest local wall time that any instant at or after utc_ms shows
 * (within the next day): local time itself, except just before a fall-back
 * transition, where the repeated hour is still to come. Non-decreasing in
 * utc_ms, so a watermark translated by it stays a watermark of local time:
 * a window of local time [s, e) is complete once this reaches e.
 */
int64_t weir__tz_local_floor(const weir__tz *tz, int64_t utc_ms);

/*
 * The first instant from which every later instant shows a local wall time
 * at or after local_ms: the smallest u with weir__tz_local_floor(u) >=
 * local_ms. A window of local time [s, e) is complete once the watermark
 * reaches it for e (an event-time timer), as the window aggregation fires:
 * an end inside a repeated hour gives its second pass, an end inside a gap
 * the instant of the gap. Non-decreasing in local_ms.
 */
int64_t weir__tz_fire_instant(const weir__tz *tz, int64_t local_ms);

/*
 * The local watermark of an instant watermark: weir__tz_local_floor, with
 * WEIR_TS_MIN and WEIR_TS_MAX ("none yet", "end of input") kept. tz NULL:
 * wm itself.
 */
int64_t weir__tz_local_watermark(const weir__tz *tz, int64_t wm);

#endif
