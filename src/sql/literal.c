/*
 * sql/literal.c - values of numeric, date/time and interval literals,
 * checked when they are parsed so that a malformed INTERVAL '1:2' DAY or
 * DATE '2024-02-30' is reported at its position, as Flink does.
 *
 * Interval strings follow the SQL standard forms for each qualifier
 * (YEAR TO MONTH 'Y-M', DAY TO SECOND 'D HH:MM:SS.fff', ...), with an
 * optional sign and surrounding spaces. Trailing fields are range-checked
 * (MONTH < 12, HOUR < 24, MINUTE and SECOND < 60); the leading field
 * has at most as many digits as the qualifier's leading precision (2 when
 * not written), as in Flink. Fractions finer than a millisecond must be
 * zero, because event time in weir is in milliseconds: MILLISECOND takes
 * a whole number, MICROSECOND a whole number of milliseconds' worth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/parser_internal.h"
#include "time/timefmt.h"
#include "util/cnum.h"

void weir__sql_number_eval(weir_sql_literal *lit)
{
    lit->f64 = weir__strtod_c(lit->text, NULL);
    if (lit->kind != WEIR_SQL_LIT_INTEGER)
        return;
    uint64_t v = 0;
    for (uint32_t i = 0; i < lit->len; i++) {
        unsigned d = (unsigned)(lit->text[i] - '0');
        if (v > (UINT64_MAX - d) / 10 || v * 10 + d > (uint64_t)INT64_MAX) {
            lit->overflow = true;
            return;
        }
        v = v * 10 + d;
    }
    lit->i64 = (int64_t)v;
}

/* Writes "<what> '<literal text>'<rest>" into msg; returns -1. */
static int fail_lit(char *msg, size_t cap, const weir_sql_literal *lit,
                    const char *what, const char *rest)
{
    char text[48];
    size_t n = lit->len > 40 ? 37 : lit->len;
    while (n > 0 && n < lit->len &&
           ((unsigned char)lit->text[n] & 0xC0) == 0x80)
        n--; /* do not cut a UTF-8 sequence */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)lit->text[i];
        text[i] = c < 0x20 ? ' ' : (char)c; /* keep the message one line */
    }
    text[n] = '\0';
    snprintf(msg, cap, "%s '%s%s'%s", what, text, lit->len > 40 ? "..." : "",
             rest);
    return -1;
}

/* A cursor over the literal's text. */
typedef struct scan {
    const char *s;
    size_t n, i;
} scan;

/* Reads 1+ digits into *out; false on none or overflow. */
static bool scan_digits(scan *sc, int64_t *out, int *ndigits)
{
    int64_t v = 0;
    int k = 0;
    while (sc->i < sc->n && sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9') {
        int d = sc->s[sc->i] - '0';
        if (v > (INT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
        sc->i++;
        k++;
    }
    if (ndigits)
        *ndigits = k;
    *out = v;
    return k > 0;
}

static bool scan_char(scan *sc, char c)
{
    if (sc->i < sc->n && sc->s[sc->i] == c) {
        sc->i++;
        return true;
    }
    return false;
}

/* '.fff' after seconds: milliseconds; false when digits beyond the third
 * are not zero or there are more than 9. */
static bool scan_fraction(scan *sc, int64_t *ms, bool *sub_ms)
{
    *ms = 0;
    *sub_ms = false;
    if (!scan_char(sc, '.'))
        return true;
    int k = 0;
    int64_t v = 0;
    while (sc->i < sc->n && sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9') {
        int d = sc->s[sc->i] - '0';
        if (k < 3)
            v = v * 10 + d;
        else if (d != 0)
            *sub_ms = true;
        k++;
        sc->i++;
    }
    if (k == 0 || k > 9)
        return false;
    for (int j = k; j < 3; j++)
        v *= 10;
    *ms = v;
    return true;
}

static const char *interval_format(weir_sql_time_unit from,
                                   weir_sql_time_unit to)
{
    switch (from) {
    case WEIR_SQL_UNIT_YEAR:
        return to == WEIR_SQL_UNIT_MONTH ? "'Y-M'" : "'Y'";
    case WEIR_SQL_UNIT_MONTH:
        return "'M'";
    case WEIR_SQL_UNIT_DAY:
        return to == WEIR_SQL_UNIT_HOUR     ? "'D H'"
               : to == WEIR_SQL_UNIT_MINUTE ? "'D H:M'"
               : to == WEIR_SQL_UNIT_SECOND ? "'D H:M:S[.fff]'"
                                            : "'D'";
    case WEIR_SQL_UNIT_HOUR:
        return to == WEIR_SQL_UNIT_MINUTE   ? "'H:M'"
               : to == WEIR_SQL_UNIT_SECOND ? "'H:M:S[.fff]'"
                                            : "'H'";
    case WEIR_SQL_UNIT_MINUTE:
        return to == WEIR_SQL_UNIT_SECOND ? "'M:S[.fff]'" : "'M'";
    case WEIR_SQL_UNIT_MILLISECOND:
    case WEIR_SQL_UNIT_MICROSECOND:
        return "a whole number such as '500'";
    default:
        return "'S[.fff]'";
    }
}

/*
 * The leading field against the qualifier's leading precision, as Flink's
 * SQL validator checks it: the precision is 2 unless written (DAY(3)),
 * must be 1 to 10, and the field must have at most that many digits
 * ("Interval field value 100 exceeds precision of DAY(2) field"). A
 * day-time qualifier takes a precision of at most 3, because Flink holds
 * every day-time interval as INTERVAL SECOND(3) and refuses a larger one
 * when it plans the literal. Returns -1 with msg set when refused.
 */
static int check_leading(const weir_sql_interval *iv, bool neg, int64_t lead,
                         char *msg, size_t cap, const weir_sql_literal *lit)
{
    const char *unit = weir__sql_unit_name(iv->from);
    int32_t p = iv->from_precision >= 0 ? iv->from_precision : 2;
    char rest[200];
    if (p < 1 || p > 10) {
        snprintf(rest, sizeof rest,
                 ": the leading precision of %s(%d) must be between 1 "
                 "and 10", unit, (int)p);
        return fail_lit(msg, cap, lit, "interval", rest);
    }
    if (!iv->year_month && p > 3) {
        snprintf(rest, sizeof rest,
                 ": %s(%d) is not supported: a day-time interval takes a "
                 "leading precision of at most 3, as in Flink",
                 unit, (int)p);
        return fail_lit(msg, cap, lit, "interval", rest);
    }
    int64_t limit = 1;
    for (int32_t i = 0; i < p; i++)
        limit *= 10;
    if (lead < limit)
        return 0;
    int digits = 1;
    for (int64_t v = lead; v >= 10; v /= 10)
        digits++;
    char hint[96] = "";
    if (digits <= (iv->year_month ? 10 : 3))
        snprintf(hint, sizeof hint, " (write %s(%d))", unit, digits);
    else if (iv->from != WEIR_SQL_UNIT_DAY)
        snprintf(hint, sizeof hint,
                 " (a day-time leading field has at most 3 digits: start "
                 "from a larger unit)");
    else
        snprintf(hint, sizeof hint,
                 " (a day-time leading field has at most 3 digits)");
    snprintf(rest, sizeof rest,
             ": field value %s%lld exceeds precision of %s(%d) field%s",
             neg && lead != 0 ? "-" : "", (long long)lead, unit, (int)p,
             hint);
    return fail_lit(msg, cap, lit, "interval", rest);
}

int weir__sql_interval_eval(weir_sql_literal *lit, char *msg, size_t cap)
{
    weir_sql_interval *iv = &lit->interval;
    scan sc = {lit->text, lit->len, 0};
    while (sc.n > 0 && sc.s[sc.n - 1] == ' ')
        sc.n--;
    while (sc.i < sc.n && sc.s[sc.i] == ' ')
        sc.i++;
    bool neg = false;
    if (scan_char(&sc, '-'))
        neg = true;
    else
        scan_char(&sc, '+');

    /* Fields in order from the leading one; -1 = absent. */
    int64_t f[4] = {0, 0, 0, 0};
    int64_t frac_ms = 0;
    bool sub_ms = false, ok = true;
    int lead_k = 0; /* index in f of the leading field */
    weir_sql_time_unit from = iv->from, to = iv->to;
    iv->year_month = from == WEIR_SQL_UNIT_YEAR || from == WEIR_SQL_UNIT_MONTH;

    /* How many fields and their separators: leading then trailing ones. */
    static const weir_sql_time_unit order[] = {
        WEIR_SQL_UNIT_DAY, WEIR_SQL_UNIT_HOUR, WEIR_SQL_UNIT_MINUTE,
        WEIR_SQL_UNIT_SECOND};
    bool sub_second = from == WEIR_SQL_UNIT_MILLISECOND ||
                      from == WEIR_SQL_UNIT_MICROSECOND;
    if (sub_second && to != WEIR_SQL_UNIT_NONE) {
        ok = false; /* the parser allows no TO after them */
    } else if (sub_second) {
        /* A whole number of milli- or microseconds; microseconds must make
         * whole milliseconds. */
        int64_t v = 0;
        ok = scan_digits(&sc, &v, NULL);
        if (ok && from == WEIR_SQL_UNIT_MICROSECOND) {
            sub_ms = v % 1000 != 0;
            v /= 1000;
        }
        frac_ms = v;
    } else if (iv->year_month) {
        ok = scan_digits(&sc, &f[0], NULL);
        if (ok && to == WEIR_SQL_UNIT_MONTH)
            ok = scan_char(&sc, '-') && scan_digits(&sc, &f[1], NULL) &&
                 f[1] < 12;
    } else {
        int first = 0, last;
        while (order[first] != from)
            first++;
        lead_k = first;
        last = first;
        if (to != WEIR_SQL_UNIT_NONE)
            while (order[last] != to)
                last++;
        for (int k = first; ok && k <= last; k++) {
            if (k > first) {
                char sep = order[k] == WEIR_SQL_UNIT_HOUR ? ' ' : ':';
                ok = scan_char(&sc, sep);
                if (!ok)
                    break;
            }
            ok = scan_digits(&sc, &f[k], NULL);
            if (ok && k > first) {
                int64_t lim = order[k] == WEIR_SQL_UNIT_HOUR ? 24 : 60;
                ok = f[k] < lim;
            }
        }
        if (ok && order[last] == WEIR_SQL_UNIT_SECOND)
            ok = scan_fraction(&sc, &frac_ms, &sub_ms);
    }
    if (!ok || sc.i != sc.n) {
        char rest[96];
        snprintf(rest, sizeof rest, " for %s%s%s: expected %s",
                 weir__sql_unit_name(from),
                 to != WEIR_SQL_UNIT_NONE ? " TO " : "",
                 to != WEIR_SQL_UNIT_NONE ? weir__sql_unit_name(to) : "",
                 interval_format(from, to));
        return fail_lit(msg, cap, lit, "invalid interval literal", rest);
    }
    if (sub_ms)
        return fail_lit(msg, cap, lit, "interval",
                        " has digits below a millisecond, which weir cannot "
                        "represent");
    if (!sub_second &&
        check_leading(iv, neg, iv->year_month ? f[0] : f[lead_k], msg,
                      cap, lit))
        return -1;
    bool overflow = false;
    if (iv->year_month) {
        int64_t m;
        if (from == WEIR_SQL_UNIT_YEAR) {
            overflow = __builtin_mul_overflow(f[0], 12, &m) ||
                       __builtin_add_overflow(m, f[1], &m);
        } else {
            m = f[0];
        }
        iv->months = m;
    } else {
        static const int64_t unit_ms[] = {86400000, 3600000, 60000, 1000};
        int64_t ms = 0, part;
        for (int k = 0; k < 4 && !overflow; k++)
            overflow = __builtin_mul_overflow(f[k], unit_ms[k], &part) ||
                       __builtin_add_overflow(ms, part, &ms);
        if (!overflow)
            overflow = __builtin_add_overflow(ms, frac_ms, &ms);
        iv->ms = ms;
    }
    if (overflow)
        return fail_lit(msg, cap, lit, "interval", " is out of range");
    if (neg != iv->negated) {
        iv->months = -iv->months;
        iv->ms = -iv->ms;
    }
    return 0;
}

/* yyyy-MM-dd at sc; days since the epoch. */
static bool scan_date(scan *sc, int64_t *days)
{
    int64_t y, m, d;
    int ny, nm, nd;
    if (!scan_digits(sc, &y, &ny) || ny > 4 || !scan_char(sc, '-') ||
        !scan_digits(sc, &m, &nm) || nm > 2 || !scan_char(sc, '-') ||
        !scan_digits(sc, &d, &nd) || nd > 2)
        return false;
    if (m < 1 || m > 12 || d < 1)
        return false;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int lim = mdays[m - 1] + (m == 2 && leap);
    if (d > lim)
        return false;
    *days = weir__days_from_civil(y, (int)m, (int)d);
    return true;
}

/* HH:mm[:ss[.fff]] at sc; ms of the day. */
static bool scan_time(scan *sc, int64_t *ms, bool *sub_ms)
{
    int64_t h, mi, s = 0, frac = 0;
    int nh, nmi, ns;
    *sub_ms = false;
    if (!scan_digits(sc, &h, &nh) || nh > 2 || !scan_char(sc, ':') ||
        !scan_digits(sc, &mi, &nmi) || nmi != 2)
        return false;
    if (scan_char(sc, ':')) {
        if (!scan_digits(sc, &s, &ns) || ns != 2)
            return false;
        if (!scan_fraction(sc, &frac, sub_ms))
            return false;
    }
    if (h > 23 || mi > 59 || s > 59)
        return false;
    *ms = ((h * 60 + mi) * 60 + s) * 1000 + frac;
    return true;
}

int weir__sql_datetime_eval(weir_sql_literal *lit, char *msg, size_t cap)
{
    scan sc = {lit->text, lit->len, 0};
    while (sc.n > 0 && sc.s[sc.n - 1] == ' ')
        sc.n--;
    while (sc.i < sc.n && sc.s[sc.i] == ' ')
        sc.i++;
    int64_t days = 0, ms = 0;
    bool sub_ms = false, ok;
    switch (lit->kind) {
    case WEIR_SQL_LIT_DATE:
        ok = scan_date(&sc, &days) && sc.i == sc.n;
        if (!ok)
            return fail_lit(msg, cap, lit, "invalid DATE literal",
                            ": expected 'yyyy-MM-dd' with a valid day");
        lit->i64 = days;
        return 0;
    case WEIR_SQL_LIT_TIME:
        ok = scan_time(&sc, &ms, &sub_ms) && sc.i == sc.n;
        if (!ok)
            return fail_lit(msg, cap, lit, "invalid TIME literal",
                            ": expected 'HH:mm:ss[.fff]'");
        break;
    default:
        ok = scan_date(&sc, &days);
        if (ok && sc.i < sc.n) {
            ok = (scan_char(&sc, ' ') || scan_char(&sc, 'T')) &&
                 scan_time(&sc, &ms, &sub_ms) && sc.i == sc.n;
        }
        if (!ok)
            return fail_lit(msg, cap, lit, "invalid TIMESTAMP literal",
                            ": expected 'yyyy-MM-dd HH:mm:ss[.fff]' with a "
                            "valid day");
        break;
    }
    if (sub_ms)
        return fail_lit(msg, cap, lit, "time literal",
                        " has digits below a millisecond, which weir cannot "
                        "represent");
    lit->i64 = days * 86400000 + ms;
    return 0;
}
