/*
 * tests/test_tz.c - the zone module (time/tz.c): the POSIX TZ rule of a
 * TZif footer (Mm.w.d, Jn and zero-based n dates, leap years), wall time
 * to instant across gaps and overlaps (java.time's rules), and the local
 * watermark floor across a fall-back. Zones are written by the test into
 * a private TZDIR, so the expected instants are worked by hand from the
 * rule, not read from the system's files.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "time/timefmt.h"
#include "time/tz.h"

static char zdir[64];

static void put32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {v >> 24, v >> 16, v >> 8, v};
    fwrite(b, 1, 4, f);
}

/* A version-2 TZif file without transitions: the footer rule decides every instant. */
static weir__tz *footer_zone(const char *rule)
{
    snprintf(zdir, sizeof zdir, "/tmp/weir-test-tz-%d", (int)getpid());
    mkdir(zdir, 0755);
    char path[128];
    snprintf(path, sizeof path, "%s/Synth", zdir);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    for (int block = 0; block < 2; block++) {
        fwrite("TZif2", 1, 5, f);
        for (int k = 0; k < 15; k++)
            fputc(0, f);
        uint32_t counts[6] = {0, 0, 0, 0, 1, 4}; /* isut, isstd, leap, time, type, char */
        for (int k = 0; k < 6; k++)
            put32(f, counts[k]);
        put32(f, 0);                     /* utoff */
        fputc(0, f), fputc(0, f);        /* isdst, abbreviation index */
        fwrite("LMT", 1, 4, f);
    }
    fprintf(f, "\n%s\n", rule);
    fclose(f);
    setenv("TZDIR", zdir, 1);
    weir__tz *tz = NULL;
    weir_error err = {0};
    cr_assert_eq(weir__tz_load("Synth", &tz, &err), 0, "%s", err.message);
    cr_assert(tz);
    unlink(path);
    rmdir(zdir);
    return tz;
}

static int64_t utc_ms(int y, int mo, int d, int h, int mi)
{
    weir__civil c = {.year = y, .month = mo, .day = d, .hour = h, .minute = mi};
    return weir__ms_from_civil(&c);
}

#define H (3600 * 1000LL)

/* The offset changes exactly at `at` (UTC ms): before it `before`, from it `after`. */
static void expect_switch(const weir__tz *tz, int64_t at, int64_t before, int64_t after)
{
    cr_expect_eq(weir__tz_offset(tz, at - 1), before, "offset just before %lld", (long long)at);
    cr_expect_eq(weir__tz_offset(tz, at), after, "offset at %lld", (long long)at);
}

Test(tz, footer_zero_based_day_counts_feb_29)
{
    /* UTC+1, DST UTC+2 from day n=274 at 09:00 standard time to Feb's last Friday 02:00 DST */
    weir__tz *tz = footer_zone("<S>-1<D>-2,274/9,M2.5.5");
    /* 1958 (not leap): day 274 counted from 0 is 2 October; 09:00 UTC+1 = 08:00Z */
    expect_switch(tz, utc_ms(1958, 10, 2, 8, 0), 1 * H, 2 * H);
    /* 2024 (leap): Feb 29 counts, so day 274 is 1 October */
    expect_switch(tz, utc_ms(2024, 10, 1, 8, 0), 1 * H, 2 * H);
    /* the last Friday of February 2025 is the 28th: 02:00 UTC+2 = 00:00Z */
    expect_switch(tz, utc_ms(2025, 2, 28, 0, 0), 2 * H, 1 * H);
    weir__tz_free(tz);
}

Test(tz, footer_julian_day_skips_feb_29)
{
    /* J60 is 1 March in every year; 26 h into it is 2 March 02:00 */
    weir__tz *tz = footer_zone("<S>3<D>2,J60/26,J300/-1");
    /* UTC-3 standard: 2 March 2024 02:00 UTC-3 = 05:00Z (leap year: still 1 March + 26 h) */
    expect_switch(tz, utc_ms(2024, 3, 2, 5, 0), -3 * H, -2 * H);
    /* J300 = 27 October; -1 h = 26 October 23:00 UTC-2 = 27 October 01:00Z */
    expect_switch(tz, utc_ms(2024, 10, 27, 1, 0), -2 * H, -3 * H);
    weir__tz_free(tz);
}

Test(tz, footer_southern_hemisphere)
{
    /* Sydney's rule: AEST UTC+10, AEDT UTC+11 from October's first Sunday 02:00 to April's first Sunday 03:00 */
    weir__tz *tz = footer_zone("AEST-10AEDT,M10.1.0,M4.1.0/3");
    /* 2100: 3 October is the first Sunday; 02:00 UTC+10 = 2 October 16:00Z */
    expect_switch(tz, utc_ms(2100, 10, 2, 16, 0), 10 * H, 11 * H);
    /* 4 April 2100 is the first Sunday; 03:00 UTC+11 = 3 April 16:00Z */
    expect_switch(tz, utc_ms(2100, 4, 3, 16, 0), 11 * H, 10 * H);
    /* January is summer: DST */
    cr_expect_eq(weir__tz_offset(tz, utc_ms(2100, 1, 15, 0, 0)), 11 * H);
    weir__tz_free(tz);
}

Test(tz, gap_overlap_and_local_floor)
{
    /* New York's rule */
    weir__tz *tz = footer_zone("EST5EDT,M3.2.0,M11.1.0");
    /* 10 March 2024 02:30 does not exist: java.time moves it forward by the gap, to 03:30 EDT = 07:30Z */
    cr_expect_eq(weir__tz_to_utc(tz, utc_ms(2024, 3, 10, 2, 30)), utc_ms(2024, 3, 10, 7, 30));
    /* 3 November 2024 01:30 happens twice: the earlier instant, 01:30 EDT = 05:30Z */
    cr_expect_eq(weir__tz_to_utc(tz, utc_ms(2024, 11, 3, 1, 30)), utc_ms(2024, 11, 3, 5, 30));
    /* Before the fall-back (05:30Z, local 01:30 EDT) the smallest local time still to come is 01:00 (EST, 06:00Z) */
    cr_expect_eq(weir__tz_local_floor(tz, utc_ms(2024, 11, 3, 5, 30)), utc_ms(2024, 11, 3, 1, 0));
    /* A day before: just local time */
    cr_expect_eq(weir__tz_local_floor(tz, utc_ms(2024, 11, 1, 12, 0)), utc_ms(2024, 11, 1, 8, 0));
    /* After it: local time again */
    cr_expect_eq(weir__tz_local_floor(tz, utc_ms(2024, 11, 3, 6, 30)), utc_ms(2024, 11, 3, 1, 30));
    weir__tz_free(tz);
}

Test(tz, fire_instant_of_a_local_window_end)
{
    /* New York's rule: the first instant from which no later instant shows a local time before the end */
    weir__tz *tz = footer_zone("EST5EDT,M3.2.0,M11.1.0");
    /* an ordinary end: the instant that shows it (08:00 EDT = 12:00Z) */
    cr_expect_eq(weir__tz_fire_instant(tz, utc_ms(2024, 6, 1, 8, 0)), utc_ms(2024, 6, 1, 12, 0));
    /* 3 November 2024 01:30 happens twice: its second pass, 01:30 EST = 06:30Z */
    cr_expect_eq(weir__tz_fire_instant(tz, utc_ms(2024, 11, 3, 1, 30)), utc_ms(2024, 11, 3, 6, 30));
    /* 02:00 comes once (06:00Z shows 01:00 EST, so 02:00 EST = 07:00Z) */
    cr_expect_eq(weir__tz_fire_instant(tz, utc_ms(2024, 11, 3, 2, 0)), utc_ms(2024, 11, 3, 7, 0));
    /* 01:00, the start of the repeated hour: its first pass (05:00Z), since the second pass starts at 01:00 again */
    cr_expect_eq(weir__tz_fire_instant(tz, utc_ms(2024, 11, 3, 1, 0)), utc_ms(2024, 11, 3, 5, 0));
    /* an end in the gap of 10 March 2024 (02:00-03:00 never shows): the instant of the gap, 07:00Z */
    cr_expect_eq(weir__tz_fire_instant(tz, utc_ms(2024, 3, 10, 2, 30)), utc_ms(2024, 3, 10, 7, 0));
    cr_expect_eq(weir__tz_fire_instant(tz, utc_ms(2024, 3, 10, 3, 0)), utc_ms(2024, 3, 10, 7, 0));
    /* and it is the first such instant: just before it, the floor is still before the end */
    for (int m = 0; m < 24 * 60; m += 7) {
        int64_t e = utc_ms(2024, 11, 2, 12, 0) + m * 60000LL;
        int64_t u = weir__tz_fire_instant(tz, e);
        cr_expect_geq(weir__tz_local_floor(tz, u), e, "end %lld", (long long)e);
        cr_expect_lt(weir__tz_local_floor(tz, u - 1), e, "end %lld", (long long)e);
    }
    cr_expect_eq(weir__tz_local_watermark(tz, WEIR_TS_MIN), WEIR_TS_MIN);
    cr_expect_eq(weir__tz_local_watermark(tz, WEIR_TS_MAX), WEIR_TS_MAX);
    weir__tz_free(tz);
}

Test(tz, unknown_zone_and_bad_footer)
{
    weir__tz *tz = NULL;
    weir_error err = {0};
    cr_expect_neq(weir__tz_load("No/Such_Zone", &tz, &err), 0);
    cr_expect(strstr(err.message, "No/Such_Zone"));
    cr_expect_eq(weir__tz_load("../etc/passwd", &tz, &err), WEIR_EINVAL);
    /* An unreadable footer keeps the file's fixed offset (0 here) rather than failing */
    tz = footer_zone("EST5EDT,M13.9.9");
    cr_expect_eq(weir__tz_offset(tz, utc_ms(2050, 7, 1, 0, 0)), 0);
    weir__tz_free(tz);
}
