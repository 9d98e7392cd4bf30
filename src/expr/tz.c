/*
 * expr/tz.c - session time zones: UTC, fixed offsets, and IANA zones read
 * from the system's compiled zoneinfo files (TZif, version 1 to 4).
 *
 * A zone is loaded once (SET 'table.local-time-zone' / env setup) into a
 * sorted transition table; lookups are binary searches. Instants after the
 * last transition keep the last offset: the POSIX rule in the TZif footer is
 * not evaluated (Debian's zoneinfo lists transitions up to 2037).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "expr/expr_internal.h"

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
    if (tz->n_trans == 0)
        return (int64_t)tz->fixed_s * 1000;
    int64_t s = x_floordiv(utc_ms, 1000);
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

int64_t weir__tz_to_utc(const weir__tz *tz, int64_t local_ms)
{
    if (tz->n_trans == 0)
        return local_ms - (int64_t)tz->fixed_s * 1000;
    /* Try the offsets in effect around the wall time; prefer the earlier instant (overlap). */
    int64_t o1 = weir__tz_offset(tz, local_ms - 86400000LL);
    int64_t o2 = weir__tz_offset(tz, local_ms + 86400000LL);
    int64_t cand[2] = {local_ms - (o1 > o2 ? o1 : o2), local_ms - (o1 > o2 ? o2 : o1)};
    for (int k = 0; k < 2; k++)
        if (cand[k] + weir__tz_offset(tz, cand[k]) == local_ms)
            return cand[k];
    /* In a gap (spring forward): move forward by the gap, like java.time. */
    int64_t lo = o1 < o2 ? o1 : o2;
    return local_ms - lo;
}
