/*
 * time/tz.c - time zones: UTC, fixed offsets, and IANA zones read from the
 * system's compiled zoneinfo files (TZif, version 1 to 4).
 *
 * A zone is loaded once (SET 'table.local-time-zone' / env setup) into a
 * sorted transition table; lookups are binary searches. Instants after the
 * last transition follow the POSIX TZ rule of the file's footer (RFC 8536
 * section 3.3), evaluated per year, so a zone with daylight saving time
 * keeps switching after 2037 (where Debian's files stop listing
 * transitions) exactly as java.time's ZoneRules do.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "time/tz.h"
#include "time/timefmt.h"

void weir__tz_free(weir__tz *tz)
{
    if (!tz)
        return;
    weir_free(tz->trans);
    weir_free(tz->offs);
    weir_free(tz);
}

/* "+08:00", "-5", "+0530", optionally after "UTC"/"GMT". Returns seconds or INT32_MIN. */
static int32_t parse_offset(const char *s)
{
    if (!strncasecmp(s, "UTC", 3) || !strncasecmp(s, "GMT", 3))
        s += 3;
    if (!*s)
        return 0;
    if (*s != '+' && *s != '-')
        return INT32_MIN;
    int sign = *s++ == '-' ? -1 : 1;
    int h = 0, m = 0, nd = 0;
    while (isdigit((unsigned char)*s) && nd < 2)
        h = h * 10 + (*s++ - '0'), nd++;
    if (!nd)
        return INT32_MIN;
    if (*s == ':')
        s++;
    nd = 0;
    while (isdigit((unsigned char)*s) && nd < 2)
        m = m * 10 + (*s++ - '0'), nd++;
    if (*s || h > 18 || m > 59)
        return INT32_MIN;
    return sign * (h * 3600 + m * 60);
}

/* ---- the POSIX TZ rule of a TZif footer ---- */

/* "[+-]hh[:mm[:ss]]" (hours up to 167, as RFC 8536 allows) into *out seconds; NULL on a syntax error. */
static const char *rule_time(const char *p, int32_t *out)
{
    int sign = 1;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*p))
        return NULL;
    int32_t h = 0, m = 0, sec = 0;
    while (isdigit((unsigned char)*p) && h < 1000)
        h = h * 10 + (*p++ - '0');
    if (*p == ':') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p) && m < 100)
            m = m * 10 + (*p++ - '0');
        if (*p == ':') {
            p++;
            if (!isdigit((unsigned char)*p))
                return NULL;
            while (isdigit((unsigned char)*p) && sec < 100)
                sec = sec * 10 + (*p++ - '0');
        }
    }
    if (h > 167 || m > 59 || sec > 59)
        return NULL;
    *out = sign * (h * 3600 + m * 60 + sec);
    return p;
}

/* A zone abbreviation: letters, or anything between '<' and '>'. */
static const char *rule_name(const char *p)
{
    if (*p == '<') {
        while (*p && *p != '>')
            p++;
        return *p ? p + 1 : NULL;
    }
    const char *q = p;
    while (isalpha((unsigned char)*p))
        p++;
    return p - q >= 3 ? p : NULL;
}

/* ",Mm.w.d[/time]", ",Jn[/time]" or ",n[/time]" (the comma already read). */
static const char *rule_date(const char *p, weir__tz_date *d)
{
    memset(d, 0, sizeof *d);
    d->time_s = 2 * 3600;
    if (*p == 'M') {
        d->kind = 'M';
        char *e;
        long m = strtol(p + 1, &e, 10);
        if (*e != '.')
            return NULL;
        long w = strtol(e + 1, &e, 10);
        if (*e != '.')
            return NULL;
        long wd = strtol(e + 1, &e, 10);
        if (m < 1 || m > 12 || w < 1 || w > 5 || wd < 0 || wd > 6)
            return NULL;
        d->month = (int16_t)m, d->week = (int16_t)w, d->wday = (int16_t)wd;
        p = e;
    } else {
        d->kind = *p == 'J' ? 'J' : 'n';
        if (*p == 'J')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        char *e;
        long n = strtol(p, &e, 10);
        if (n < (d->kind == 'J' ? 1 : 0) || n > 365)
            return NULL;
        d->day = (int16_t)n;
        p = e;
    }
    if (*p == '/')
        p = rule_time(p + 1, &d->time_s);
    return p;
}

/* Parses a footer such as "CET-1CEST,M3.5.0,M10.5.0/3" into tz's rule; nonzero if it is not one. */
static int parse_rule(const char *s, weir__tz *tz)
{
    const char *p = rule_name(s);
    int32_t v;
    if (!p || !(p = rule_time(p, &v)))
        return -1;
    tz->std_s = -v; /* POSIX offsets count west of Greenwich */
    tz->dst_s = tz->std_s;
    tz->rule_dst = false;
    if (*p) {
        if (!(p = rule_name(p)))
            return -1;
        tz->dst_s = tz->std_s + 3600;
        if (*p && *p != ',') {
            if (!(p = rule_time(p, &v)))
                return -1;
            tz->dst_s = -v;
        }
        if (*p == ',') {
            if (!(p = rule_date(p + 1, &tz->start)) || *p != ',' || !(p = rule_date(p + 1, &tz->end)))
                return -1;
        } else {
            /* No dates: POSIX's implementation-defined default, the US rule. */
            tz->start = (weir__tz_date){.kind = 'M', .month = 3, .week = 2, .wday = 0, .time_s = 7200};
            tz->end = (weir__tz_date){.kind = 'M', .month = 11, .week = 1, .wday = 0, .time_s = 7200};
        }
        tz->rule_dst = true;
    }
    if (*p)
        return -1;
    tz->has_rule = true;
    return 0;
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* UTC seconds at which date d of year y happens, its time read at offset off_s. */
static int64_t rule_instant(int64_t y, const weir__tz_date *d, int32_t off_s)
{
    int64_t days;
    if (d->kind == 'J') {
        days = weir__days_from_civil(y, 1, 1) + d->day - 1 + (is_leap(y) && d->day >= 60);
    } else if (d->kind == 'n') {
        days = weir__days_from_civil(y, 1, 1) + d->day;
    } else {
        static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int64_t first = weir__days_from_civil(y, d->month, 1);
        int wd1 = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
        int mday = 1 + (d->wday - wd1 + 7) % 7 + (d->week - 1) * 7;
        int len = mdays[d->month - 1] + (d->month == 2 && is_leap(y));
        while (mday > len)
            mday -= 7;
        days = first + mday - 1;
    }
    return days * 86400 + d->time_s - off_s;
}

/* The rule's offset (seconds) at UTC second s. */
static int32_t rule_offset(const weir__tz *tz, int64_t s)
{
    if (!tz->rule_dst)
        return tz->std_s;
    weir__civil c;
    weir__civil_from_ms((s + tz->std_s) * 1000, &c);
    int64_t on = rule_instant(c.year, &tz->start, tz->std_s);
    int64_t off = rule_instant(c.year, &tz->end, tz->dst_s);
    bool dst = on < off ? (s >= on && s < off) : !(s >= off && s < on);
    return dst ? tz->dst_s : tz->std_s;
}

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static int64_t be64(const unsigned char *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

static int load_tzif(const char *name, weir__tz *tz)
{
    if (strstr(name, "..") || name[0] == '/')
        return -1;
    char path[256];
    const char *dir = getenv("TZDIR");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char *buf = weir_malloc(1 << 20);
    size_t len = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    int rc = -1;
    if (len < 44 || memcmp(buf, "TZif", 4))
        goto out;
    /* Header counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt. */
    const unsigned char *h = buf;
    size_t off = 0;
    int tsize = 4;
    uint32_t c[6];
    for (int k = 0; k < 6; k++)
        c[k] = be32(h + 20 + 4 * k);
    if (buf[4] >= '2') {
        /* Skip the 32-bit block and read the 64-bit one. */
        off = 44 + c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
        if (off + 44 > len || memcmp(buf + off, "TZif", 4))
            goto out;
        h = buf + off;
        for (int k = 0; k < 6; k++)
            c[k] = be32(h + 20 + 4 * k);
        tsize = 8;
    }
    size_t need = 44 + c[3] * tsize + c[3] + c[4] * 6 + c[5];
    if ((size_t)(h - buf) + need > len || c[4] == 0)
        goto out;
    const unsigned char *times = h + 44, *idx = times + c[3] * tsize, *types = idx + c[3];
    tz->n_trans = c[3];
    tz->trans = weir_malloc((c[3] ? c[3] : 1) * sizeof *tz->trans);
    tz->offs = weir_malloc((c[3] ? c[3] : 1) * sizeof *tz->offs);
    if (!tz->trans || !tz->offs)
        goto out;
    /* Before the first transition: the first non-DST type (RFC 8536). */
    tz->off0 = (int32_t)be32(types);
    for (uint32_t k = 0; k < c[4]; k++)
        if (!types[k * 6 + 4]) {
            tz->off0 = (int32_t)be32(types + k * 6);
            break;
        }
    for (uint32_t k = 0; k < c[3]; k++) {
        tz->trans[k] = tsize == 8 ? be64(times + k * 8) : (int64_t)(int32_t)be32(times + k * 4);
        uint8_t t = idx[k] < c[4] ? idx[k] : 0;
        tz->offs[k] = (int32_t)be32(types + t * 6);
    }
    if (c[3] == 0)
        tz->fixed_s = tz->off0;
    if (tsize == 8) {
        /* The footer: "\n<POSIX TZ string>\n" after the 64-bit block's leap and indicator records. */
        size_t at = (size_t)(h - buf) + need + (size_t)c[2] * 12 + c[1] + c[0];
        if (at < len && buf[at] == '\n') {
            size_t e = at + 1;
            while (e < len && buf[e] != '\n')
                e++;
            char rule[128];
            size_t n = e - at - 1;
            if (e < len && n > 0 && n < sizeof rule) {
                memcpy(rule, buf + at + 1, n);
                rule[n] = 0;
                if (parse_rule(rule, tz))
                    tz->has_rule = false; /* unreadable: keep the last offset, as before */
            }
        }
    }
    rc = 0;
out:
    weir_free(buf);
    return rc;
}

int weir__tz_load(const char *name, weir__tz **out, weir_error *err)
{
    *out = NULL;
    if (!name || !*name || !strcasecmp(name, "UTC") || !strcasecmp(name, "GMT") || !strcasecmp(name, "Z") ||
        !strcasecmp(name, "Etc/UTC"))
        return 0;
    weir__tz *tz = weir_calloc(1, sizeof *tz);
    if (!tz)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    snprintf(tz->name, sizeof tz->name, "%s", name);
    int32_t off = parse_offset(name);
    if (off != INT32_MIN) {
        tz->fixed_s = off;
        *out = tz;
        return 0;
    }
    if (load_tzif(name, tz)) {
        weir__tz_free(tz);
        return weir_error_set(err, WEIR_EINVAL,
                              "unknown time zone '%s': use 'UTC', an offset such as '+08:00', or a zone name "
                              "such as 'Europe/Berlin'",
                              name);
    }
    *out = tz;
    return 0;
}

int64_t weir__tz_offset(const weir__tz *tz, int64_t utc_ms)
{
    if (tz->n_trans == 0 && !tz->has_rule)
        return (int64_t)tz->fixed_s * 1000;
    int64_t s = floordiv(utc_ms, 1000);
    if (tz->n_trans == 0 || s >= tz->trans[tz->n_trans - 1]) {
        if (tz->has_rule) {
            /* Far beyond any calendar the rule describes: clamp, so civil arithmetic cannot overflow. */
            const int64_t lim = INT64_C(100000000000000); /* ~3 million years */
            return (int64_t)rule_offset(tz, s > lim ? lim : s < -lim ? -lim : s) * 1000;
        }
        if (tz->n_trans == 0)
            return (int64_t)tz->fixed_s * 1000;
        return (int64_t)tz->offs[tz->n_trans - 1] * 1000;
    }
    if (s < tz->trans[0])
        return (int64_t)tz->off0 * 1000;
    uint32_t lo = 0, hi = tz->n_trans; /* last k with trans[k] <= s */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (tz->trans[mid] <= s)
            lo = mid;
        else
            hi = mid;
    }
    return (int64_t)tz->offs[lo] * 1000;
}

static bool is_fixed(const weir__tz *tz) { return tz->n_trans == 0 && (!tz->has_rule || !tz->rule_dst); }

int64_t weir__tz_to_utc(const weir__tz *tz, int64_t local_ms)
{
    if (is_fixed(tz))
        return local_ms - weir__tz_offset(tz, 0);
    const int64_t day = 86400000;
    if (local_ms < INT64_MIN + 2 * day || local_ms > INT64_MAX - 2 * day)
        return local_ms - weir__tz_offset(tz, local_ms);
    /* Try the offsets in effect around the wall time; prefer the earlier instant (overlap). */
    int64_t o1 = weir__tz_offset(tz, local_ms - day);
    int64_t o2 = weir__tz_offset(tz, local_ms + day);
    int64_t cand[2] = {local_ms - (o1 > o2 ? o1 : o2), local_ms - (o1 > o2 ? o2 : o1)};
    for (int k = 0; k < 2; k++)
        if (cand[k] + weir__tz_offset(tz, cand[k]) == local_ms)
            return cand[k];
    /* In a gap (spring forward): move forward by the gap, like java.time. */
    int64_t lo = o1 < o2 ? o1 : o2;
    return local_ms - lo;
}

int64_t weir__tz_local_floor(const weir__tz *tz, int64_t utc_ms)
{
    const int64_t day = 86400000;
    int64_t o1 = weir__tz_offset(tz, utc_ms);
    if (is_fixed(tz) || utc_ms > INT64_MAX - 2 * day || utc_ms < INT64_MIN + 2 * day)
        return utc_ms + o1;
    int64_t o2 = weir__tz_offset(tz, utc_ms + day);
    if (o2 >= o1)
        return utc_ms + o1;
    /* A fall-back transition within the day: find it (offsets change at most once a day). */
    int64_t lo = utc_ms, hi = utc_ms + day; /* offset(lo) == o1, offset(hi) == o2 */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (weir__tz_offset(tz, mid) == o1)
            lo = mid;
        else
            hi = mid;
    }
    int64_t after = hi + o2, now = utc_ms + o1;
    return after < now ? after : now;
}

int64_t weir__tz_local_watermark(const weir__tz *tz, int64_t wm)
{
    if (!tz || wm == WEIR_TS_MIN || wm == WEIR_TS_MAX)
        return wm;
    return weir__tz_local_floor(tz, wm);
}

int64_t weir__tz_fire_instant(const weir__tz *tz, int64_t local_ms)
{
    const int64_t day = 86400000;
    if (local_ms == WEIR_TS_MIN || local_ms == WEIR_TS_MAX || is_fixed(tz) || local_ms > INT64_MAX - 4 * day ||
        local_ms < INT64_MIN + 4 * day)
        return local_ms - weir__tz_offset(tz, local_ms);
    /* Almost always the instant that shows local_ms, with no fall-back ahead. */
    int64_t u = weir__tz_to_utc(tz, local_ms);
    if (weir__tz_local_floor(tz, u) >= local_ms && weir__tz_local_floor(tz, u - 1) < local_ms)
        return u;
    /* Otherwise search: local_floor is non-decreasing, and offsets stay within a day of each other. */
    int64_t lo = local_ms - 2 * day, hi = local_ms + 2 * day; /* floor(lo) < local_ms <= floor(hi) */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (weir__tz_local_floor(tz, mid) >= local_ms)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}
