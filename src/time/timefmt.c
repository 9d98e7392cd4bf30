/* time/timefmt.c - civil UTC date-times <-> epoch milliseconds. */
#include <stdio.h>

#include "time/timefmt.h"

/* Howard Hinnant's days_from_civil / civil_from_days algorithms (public domain). */
int64_t weir__days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

void weir__civil_from_ms(int64_t ms, weir__civil *c)
{
    int64_t days = floordiv(ms, 86400000);
    int64_t rem = ms - days * 86400000;
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1);
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    c->year = y + (m <= 2);
    c->month = m;
    c->day = d;
    c->hour = (int)(rem / 3600000);
    c->minute = (int)(rem / 60000 % 60);
    c->second = (int)(rem / 1000 % 60);
    c->millis = (int)(rem % 1000);
}

int64_t weir__ms_from_civil(const weir__civil *c)
{
    return weir__days_from_civil(c->year, c->month, c->day) * 86400000 + (int64_t)c->hour * 3600000 +
           (int64_t)c->minute * 60000 + (int64_t)c->second * 1000 + c->millis;
}

size_t weir__format_ts(int64_t ms, char *buf, size_t cap)
{
    weir__civil c;
    weir__civil_from_ms(ms, &c);
    /* A year before 0000 keeps four digits after its sign ("-0001"), as
     * Java writes it; "%04lld" alone would give "-001". */
    int n = snprintf(buf, cap, "%s%04lld-%02d-%02d %02d:%02d:%02d.%03d", c.year < 0 ? "-" : "",
                     (long long)(c.year < 0 ? -c.year : c.year), c.month, c.day, c.hour, c.minute, c.second,
                     c.millis);
    return n < 0 ? 0 : (size_t)n;
}

static int digits(const char *s, size_t len, size_t *i, int n, int *out)
{
    int v = 0;
    for (int k = 0; k < n; k++) {
        if (*i >= len || s[*i] < '0' || s[*i] > '9')
            return -1;
        v = v * 10 + (s[(*i)++] - '0');
    }
    *out = v;
    return 0;
}

static int expect(const char *s, size_t len, size_t *i, char ch)
{
    if (*i >= len || s[*i] != ch)
        return -1;
    (*i)++;
    return 0;
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int weir__parse_fraction_ms(const char *s, size_t len, size_t *i, int *ms)
{
    int nd = 0, frac = 0;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9' && nd < 9) {
        if (nd < 3)
            frac = frac * 10 + (s[*i] - '0');
        nd++;
        (*i)++;
    }
    if (nd == 0)
        return -1;
    for (int k = nd; k < 3; k++)
        frac *= 10;
    *ms = frac;
    return 0;
}

int weir__parse_ts(const char *s, size_t len, int64_t *out_ms, size_t *bad_at)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    size_t i = 0;
    int y, mo, d, h = 0, mi = 0, se = 0, ms = 0;
    if (digits(s, len, &i, 4, &y) || expect(s, len, &i, '-') || digits(s, len, &i, 2, &mo) ||
        expect(s, len, &i, '-') || digits(s, len, &i, 2, &d))
        goto bad;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y))) {
        i = 5;
        goto bad;
    }
    if (i < len) {
        if (s[i] != ' ' && s[i] != 'T')
            goto bad;
        i++;
        if (digits(s, len, &i, 2, &h) || expect(s, len, &i, ':') || digits(s, len, &i, 2, &mi) ||
            expect(s, len, &i, ':') || digits(s, len, &i, 2, &se))
            goto bad;
        if (h > 23 || mi > 59 || se > 59) {
            i = 11;
            goto bad;
        }
        if (i < len && s[i] == '.') {
            i++;
            if (weir__parse_fraction_ms(s, len, &i, &ms))
                goto bad;
        }
        if (i < len && s[i] == 'Z')
            i++;
        if (i != len)
            goto bad;
    }
    weir__civil c = {y, mo, d, h, mi, se, ms};
    *out_ms = weir__ms_from_civil(&c);
    return 0;
bad:
    if (bad_at)
        *bad_at = i;
    return WEIR_EPARSE;
}

size_t weir__format_date(int32_t days, char *buf, size_t cap)
{
    weir__civil c;
    weir__civil_from_ms((int64_t)days * WEIR__MS_PER_DAY, &c);
    int n = snprintf(buf, cap, "%04lld-%02d-%02d", (long long)c.year, c.month, c.day);
    return n < 0 ? 0 : (size_t)n;
}

size_t weir__format_time(int32_t ms, int digits, char *buf, size_t cap)
{
    int h = ms / 3600000, mi = ms / 60000 % 60, se = ms / 1000 % 60, f = ms % 1000;
    int n = snprintf(buf, cap, "%02d:%02d:%02d", h, mi, se);
    if (n < 0)
        return 0;
    if (digits < 0) {
        digits = f == 0 ? 0 : f % 100 == 0 ? 1 : f % 10 == 0 ? 2 : 3;
    }
    if (digits > 0 && (size_t)n + 5 <= cap) {
        const char frac[3] = {(char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
        buf[n++] = '.';
        for (int k = 0; k < digits && k < 3; k++)
            buf[n++] = frac[k];
        buf[n] = 0;
    }
    return (size_t)n;
}

static void trim_blank(const char **s, size_t *len)
{
    while (*len && (unsigned char)**s <= ' ')
        (*s)++, (*len)--;
    while (*len && (unsigned char)(*s)[*len - 1] <= ' ')
        (*len)--;
}

/* One to maxw digits at s[*i]. */
static int some_digits(const char *s, size_t len, size_t *i, int maxw, int *out)
{
    int v = 0, w = 0;
    while (*i < len && w < maxw && s[*i] >= '0' && s[*i] <= '9')
        v = v * 10 + (s[(*i)++] - '0'), w++;
    if (w == 0)
        return -1;
    *out = v;
    return 0;
}

int weir__parse_date_text(const char *s, size_t len, int32_t *days)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    trim_blank(&s, &len);
    for (size_t k = 0; k < len; k++)
        if (s[k] == ' ') {
            len = k;
            break;
        }
    size_t i = 0;
    int y, mo, d;
    if (some_digits(s, len, &i, 4, &y) || expect(s, len, &i, '-') || some_digits(s, len, &i, 2, &mo) ||
        expect(s, len, &i, '-') || some_digits(s, len, &i, 2, &d) || i != len)
        return WEIR_EPARSE;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)))
        return WEIR_EPARSE;
    *days = (int32_t)weir__days_from_civil(y, mo, d);
    return 0;
}

int weir__parse_time_text(const char *s, size_t len, int32_t *ms)
{
    trim_blank(&s, &len);
    size_t i = 0;
    int h, mi, se = 0, f = 0;
    if (some_digits(s, len, &i, 2, &h) || expect(s, len, &i, ':') || some_digits(s, len, &i, 2, &mi))
        return WEIR_EPARSE;
    if (i < len && s[i] == ':') {
        i++;
        if (some_digits(s, len, &i, 2, &se))
            return WEIR_EPARSE;
        if (i < len && s[i] == '.') {
            i++;
            if (weir__parse_fraction_ms(s, len, &i, &f))
                return WEIR_EPARSE;
        }
    }
    if (i != len || h > 23 || mi > 59 || se > 59)
        return WEIR_EPARSE;
    *ms = ((h * 60 + mi) * 60 + se) * 1000 + f;
    return 0;
}
