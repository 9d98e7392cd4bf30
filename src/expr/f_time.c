/*
 * expr/f_time.c - time functions: EXTRACT and YEAR()..SECOND(), FLOOR/CEIL
 * (ts TO unit), TIMESTAMPADD, TIMESTAMPDIFF, TO_TIMESTAMP, TO_TIMESTAMP_LTZ,
 * TO_DATE, UNIX_TIMESTAMP, FROM_UNIXTIME, DATE_FORMAT, CURRENT_TIMESTAMP,
 * NOW, LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIME, PROCTIME,
 * CURRENT_WATERMARK. DATE and TIME arguments are read as the TIMESTAMP of
 * their midnight / of 1970-01-01 and results cast back where Flink keeps
 * the type.
 *
 * TIMESTAMP(3) values are wall-clock times kept as UTC milliseconds;
 * TIMESTAMP_LTZ(3) values are instants, shown and decomposed in the session
 * time zone. Date patterns use Java's letters (SimpleDateFormat /
 * DateTimeFormatter): y M d H h k K m s S E a D u Z X and quoted text; a
 * literal pattern is compiled once when the expression is built.
 */
#include <stdio.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "time/timefmt.h"

static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }
static int oom(ecx *cx) { return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory"); }

#define MS_MIN (-62167219200000LL)  /* 0000-01-01 00:00:00 */
#define MS_MAX (253402300799999LL)  /* 9999-12-31 23:59:59.999 */

/* ---- units ---- */

enum { U_MILLISECOND, U_SECOND, U_MINUTE, U_HOUR, U_DAY, U_WEEK, U_MONTH, U_QUARTER, U_YEAR, U_DOW, U_DOY,
       U_EPOCH, U_ISODOW, U_DECADE, U_CENTURY, U_MILLENNIUM, U_MICROSECOND, U_ISOYEAR, U_COUNT };

static const char *unit_names[U_COUNT] = {"MILLISECOND", "SECOND", "MINUTE",  "HOUR",   "DAY",     "WEEK",
                                          "MONTH",       "QUARTER", "YEAR",   "DOW",    "DOY",     "EPOCH",
                                          "ISODOW",      "DECADE",  "CENTURY", "MILLENNIUM", "MICROSECOND",
                                          "ISOYEAR"};

static int unit_of(const weir_expr *e)
{
    if (e->kind != N_LITERAL || e->type.id != WEIR_TYPE_STRING || e->lit.is_null)
        return -1;
    xstr s = e->lit.v.s;
    for (int u = 0; u < U_COUNT; u++)
        if (strlen(unit_names[u]) == s.len && !strncasecmp(unit_names[u], s.ptr, s.len))
            return u;
    /* Plural and SQL_TSI_ spellings. */
    char buf[32];
    if (s.len < sizeof buf) {
        memcpy(buf, s.ptr, s.len);
        buf[s.len] = 0;
        const char *b = buf;
        if (!strncasecmp(b, "SQL_TSI_", 8))
            b += 8;
        size_t l = strlen(b);
        for (int u = 0; u < U_COUNT; u++) {
            size_t ul = strlen(unit_names[u]);
            if ((l == ul || (l == ul + 1 && (b[ul] == 'S' || b[ul] == 's'))) && !strncasecmp(unit_names[u], b, ul))
                return u;
        }
    }
    return -1;
}

static const int64_t unit_ms[] = {1, 1000, 60000, 3600000, 86400000, 7 * 86400000LL};

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Day of week 1 = Monday .. 7 = Sunday for epoch day d. */
static int iso_dow(int64_t d) { return (int)(x_floormod(d + 3, 7) + 1); }

static int64_t doy_of(const weir__civil *c)
{
    return weir__days_from_civil(c->year, c->month, c->day) - weir__days_from_civil(c->year, 1, 1) + 1;
}

/* ISO-8601 week number, or (want_year) the ISO week-numbering year: that of the week's Thursday. */
static int64_t iso_week(const weir__civil *c, bool want_year)
{
    int64_t day = weir__days_from_civil(c->year, c->month, c->day);
    int64_t thursday = day - iso_dow(day) + 4;
    weir__civil t;
    weir__civil_from_ms(thursday * 86400000LL, &t);
    return want_year ? t.year : (thursday - weir__days_from_civil(t.year, 1, 1)) / 7 + 1;
}

static int64_t extract(int unit, int64_t ms)
{
    weir__civil c;
    weir__civil_from_ms(ms, &c);
    switch (unit) {
    case U_YEAR: return c.year;
    case U_QUARTER: return (c.month - 1) / 3 + 1;
    case U_MONTH: return c.month;
    case U_WEEK: return iso_week(&c, false);
    case U_ISOYEAR: return iso_week(&c, true);
    case U_DAY: return c.day;
    case U_HOUR: return c.hour;
    case U_MINUTE: return c.minute;
    case U_SECOND: return c.second;
    case U_MILLISECOND: return c.second * 1000 + c.millis;
    case U_MICROSECOND: return (c.second * 1000 + c.millis) * 1000;
    case U_DOW: return iso_dow(x_floordiv(ms, 86400000)) % 7 + 1; /* 1 = Sunday */
    case U_ISODOW: return iso_dow(x_floordiv(ms, 86400000));
    case U_DOY: return doy_of(&c);
    case U_EPOCH: return x_floordiv(ms, 1000);
    case U_DECADE: return x_floordiv(c.year, 10);
    case U_CENTURY: return c.year > 0 ? (c.year + 99) / 100 : -((-c.year + 99) / 100);
    default: return c.year > 0 ? (c.year + 999) / 1000 : -((-c.year + 999) / 1000);
    }
}

static int extract_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act;
    const int64_t *ts = a[e->n_args - 1].data;
    int64_t *o = out->data;
    bool ltz = e->args[e->n_args - 1]->type.id == WEIR_TYPE_TIMESTAMP_LTZ;
    int unit = (int)e->p0;
    for (uint32_t i = 0; i < n; i++)
        o[i] = extract(unit, ltz ? x_local(cx, ts[i]) : ts[i]);
    return 0;
}

static int want_time(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, uint32_t k, weir_error *err)
{
    weir_type_id id = args[k]->type.id;
    if (id == WEIR_TYPE_NULL || (id == WEIR_TYPE_STRING && args[k]->kind == N_LITERAL))
        return weir__coerce(a, &args[k], tmake(WEIR_TYPE_TIMESTAMP, id == WEIR_TYPE_NULL), err);
    if (!weir_type_is_time(id) || args[k]->iv)
        return weir__bad_args(f, args, n, err);
    return 0;
}

/*
 * A DATE or TIME argument read as a TIMESTAMP (the DATE's midnight, the TIME
 * on 1970-01-01): the calendar kernels work on timestamps. *was gets the
 * argument's own type, so the caller can cast a timestamp result back.
 */
static int date_time_as_ts(weir_expr_arena *a, weir_expr **args, uint32_t k, weir_type *was, weir_error *err)
{
    *was = args[k]->type;
    if (!weir_type_is_date_time(was->id) || args[k]->iv)
        return 0;
    return weir__coerce(a, &args[k], tmake(WEIR_TYPE_TIMESTAMP, was->nullable), err);
}

/* A timestamp-valued node cast back to the DATE or TIME its argument was. */
static int back_to(weir_expr_arena *a, weir_type was, weir_expr **out, weir_error *err)
{
    if (!weir_type_is_date_time(was.id))
        return 0;
    was.nullable = (*out)->type.nullable;
    return weir__build_cast(a, *out, was, false, true, out, err);
}

/* Units below a day: of a TIME, not of a DATE. */
static bool time_of_day_unit(int u) { return u <= U_HOUR || u == U_MICROSECOND; }

/* EXTRACT(HOUR FROM DATE ...) and EXTRACT(YEAR FROM TIME ...) are refused, as in Flink. */
static int unit_fits(const xfunc *f, int unit, weir_type was, weir_error *err)
{
    if ((was.id == WEIR_TYPE_DATE && time_of_day_unit(unit)) ||
        (was.id == WEIR_TYPE_TIME && (!time_of_day_unit(unit) || unit == U_MICROSECOND)))
        return weir_error_set(err, WEIR_EPLAN, "%s does not support the time unit %s on a %s: a %s has %s", f->name,
                              unit_names[unit], weir_type_name(was.id), weir_type_name(was.id),
                              was.id == WEIR_TYPE_DATE ? "no time of day" : "no date");
    return 0;
}

static int bad_unit(const xfunc *f, const weir_expr *u, weir_error *err)
{
    if (unit_of(u) == U_MICROSECOND)
        return weir_error_set(err, WEIR_EPLAN,
                              "%s does not support the time unit MICROSECOND: weir's timestamps are whole "
                              "milliseconds (use MILLISECOND)",
                              f->name);
    if (u->kind == N_LITERAL && u->type.id == WEIR_TYPE_STRING)
        return weir_error_set(err, WEIR_EPLAN, "%s does not support the time unit %.*s", f->name,
                              (int)u->lit.v.s.len, u->lit.v.s.ptr);
    return weir_error_set(err, WEIR_EPLAN, "%s needs a time unit keyword", f->name);
}

/*
 * EXTRACT(unit FROM interval), as Flink: a year-month interval gives YEAR
 * (months / 12), MONTH (months % 12), QUARTER (of that month field:
 * (MONTH - 1) / 3 + 1), CENTURY (months / 1200) and MILLENNIUM (months /
 * 12000); a day-time one DAY, HOUR (% 24),
 * MINUTE (% 60), SECOND (% 60) and MILLISECOND (of the minute); a negative
 * interval gives negative fields (Java's division and remainder).
 */
static int extract_interval_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act,
                                   xvec *out)
{
    (void)cx, (void)act;
    const int64_t *v = a[e->n_args - 1].data;
    int64_t *o = out->data, mod = e->p1 >> 32, div = e->p1 & 0xffffffff;
    if (e->p0 == U_QUARTER) {
        /* the quarter of the month field: ((months % 12) - 1) / 3 + 1, truncating as Java */
        for (uint32_t i = 0; i < n; i++)
            o[i] = (v[i] % 12 - 1) / 3 + 1;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++)
        o[i] = (mod ? v[i] % mod : v[i]) / div;
    return 0;
}

static int bind_extract_interval(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, int unit,
                                 weir_expr **out, weir_error *err)
{
    weir_expr *iv = args[n - 1];
    int64_t mod = 0, div = 0;
    if (iv->iv == WEIR_INTERVAL_YEAR_MONTH) {
        if (unit == U_YEAR)
            div = 12;
        else if (unit == U_MONTH)
            mod = 12, div = 1;
        else if (unit == U_QUARTER)
            div = 1; /* the kernel's own rule */
        else if (unit == U_CENTURY)
            div = 1200;
        else if (unit == U_MILLENNIUM)
            div = 12000;
    } else {
        switch (unit) {
        case U_DAY: div = 86400000; break;
        case U_HOUR: mod = 86400000, div = 3600000; break;
        case U_MINUTE: mod = 3600000, div = 60000; break;
        case U_SECOND: mod = 60000, div = 1000; break;
        case U_MILLISECOND: mod = 60000, div = 1; break;
        default: break;
        }
    }
    if (!div) {
        char tb[48];
        return weir_error_set(err, WEIR_EPLAN, "%s does not support the time unit %s on an %s", f->name,
                              unit_names[unit], weir__tname(iv, tb, sizeof tb));
    }
    *out = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_BIGINT, iv->type.nullable), extract_interval_kernel,
                           F_STRICT);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = unit;
    (*out)->p1 = mod << 32 | div;
    return 0;
}

/* EXTRACT('unit', ts) and YEAR(ts) .. SECOND(ts) (f->param = unit + 1 for the latter). */
static int bind_extract(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                        weir_error *err)
{
    int unit;
    if (f->param) {
        if (n != 1)
            return weir__bad_args(f, args, n, err);
        unit = (int)f->param - 1;
    } else {
        if (n != 2)
            return weir__bad_args(f, args, n, err);
        unit = unit_of(args[0]);
        if (unit < 0)
            return bad_unit(f, args[0], err);
    }
    if (args[n - 1]->iv)
        return bind_extract_interval(a, f, args, n, unit, out, err);
    weir_type was;
    int rc = date_time_as_ts(a, args, n - 1, &was, err);
    if (!rc)
        rc = unit_fits(f, unit, was, err);
    if (!rc)
        rc = want_time(a, f, args, n, n - 1, err);
    if (rc)
        return rc;
    weir_expr *ts = args[n - 1];
    *out = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_BIGINT, ts->type.nullable), extract_kernel,
                           F_STRICT | (ts->type.id == WEIR_TYPE_TIMESTAMP_LTZ ? F_SESSION : 0));
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = unit;
    return 0;
}

/* ---- FLOOR / CEIL (ts TO unit) ---- */

static int64_t floor_unit(int unit, int64_t ms)
{
    if (unit == U_MICROSECOND)
        return ms; /* times are whole milliseconds */
    if (unit <= U_DAY)
        return x_floordiv(ms, unit_ms[unit]) * unit_ms[unit];
    if (unit == U_WEEK) {
        /* Weeks start on Sunday. */
        int64_t d = x_floordiv(ms, 86400000);
        return (d - (iso_dow(d) % 7)) * 86400000;
    }
    weir__civil c;
    weir__civil_from_ms(ms, &c);
    c.day = 1;
    c.hour = c.minute = c.second = c.millis = 0;
    if (unit == U_QUARTER)
        c.month = (c.month - 1) / 3 * 3 + 1;
    else if (unit == U_YEAR)
        c.month = 1;
    else if (unit != U_MONTH) {
        int64_t div = unit == U_DECADE ? 10 : unit == U_CENTURY ? 100 : 1000;
        c.month = 1;
        c.year = x_floordiv(c.year, div) * div;
    }
    return weir__ms_from_civil(&c);
}

static int64_t add_months(int64_t ms, int64_t months)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    weir__civil c;
    weir__civil_from_ms(ms, &c);
    int64_t total = c.year * 12 + (c.month - 1) + months;
    c.year = x_floordiv(total, 12);
    c.month = (int)(x_floormod(total, 12) + 1);
    int md = mdays[c.month - 1] + (c.month == 2 && leap(c.year));
    if (c.day > md)
        c.day = md;
    return weir__ms_from_civil(&c);
}

static int64_t next_unit(int unit, int64_t fl)
{
    switch (unit) {
    case U_MONTH: return add_months(fl, 1);
    case U_QUARTER: return add_months(fl, 3);
    case U_YEAR: return add_months(fl, 12);
    case U_DECADE: return add_months(fl, 120);
    case U_CENTURY: return add_months(fl, 1200);
    case U_MILLENNIUM: return add_months(fl, 12000);
    default: return fl + unit_ms[unit];
    }
}

static int floor_time_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act;
    const int64_t *ts = a[0].data;
    int64_t *o = out->data;
    bool ltz = e->type.id == WEIR_TYPE_TIMESTAMP_LTZ, ceil_ = e->p1 != 0;
    int unit = (int)e->p0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t t = ltz ? x_local(cx, ts[i]) : ts[i];
        int64_t f = floor_unit(unit, t);
        if (ceil_ && f != t)
            f = next_unit(unit, f);
        o[i] = ltz ? x_utc(cx, f) : f;
    }
    return 0;
}

int weir__bind_floor_time(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                          weir_error *err, bool ceil_);
int weir__bind_floor_time(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                          weir_error *err, bool ceil_)
{
    int unit = unit_of(args[1]);
    if (unit < 0 || unit == U_DOW || unit == U_DOY || unit == U_EPOCH || unit == U_ISODOW || unit == U_ISOYEAR)
        return unit < 0 && args[1]->type.id != WEIR_TYPE_STRING ? weir__bad_args(f, args, n, err)
                                                                : bad_unit(f, args[1], err);
    weir_type was;
    int rc = date_time_as_ts(a, args, 0, &was, err);
    if (!rc)
        rc = unit_fits(f, unit, was, err);
    if (!rc)
        rc = want_time(a, f, args, n, 0, err);
    if (rc)
        return rc;
    weir_type t = args[0]->type;
    *out = weir__call_node(a, f, args, 1, t, floor_time_kernel,
                           F_STRICT | (t.id == WEIR_TYPE_TIMESTAMP_LTZ ? F_SESSION : 0));
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = unit;
    (*out)->p1 = ceil_;
    return back_to(a, was, out, err);
}

/* ---- TIMESTAMPADD / TIMESTAMPDIFF ---- */

static int tsadd_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act;
    const int64_t *k = a[1].data, *ts = a[2].data;
    int64_t *o = out->data;
    bool ltz = e->type.id == WEIR_TYPE_TIMESTAMP_LTZ;
    int unit = (int)e->p0;
    for (uint32_t i = 0; i < n; i++) {
        if (unit <= U_WEEK) {
            o[i] = (int64_t)((uint64_t)ts[i] + (uint64_t)k[i] * (uint64_t)unit_ms[unit]);
            continue;
        }
        int64_t months = k[i] * (unit == U_MONTH ? 1 : unit == U_QUARTER ? 3 : 12);
        int64_t t = ltz ? x_local(cx, ts[i]) : ts[i];
        int64_t r = add_months(t, months);
        o[i] = ltz ? x_utc(cx, r) : r;
    }
    return 0;
}

static int bind_tsadd(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    if (n != 3)
        return weir__bad_args(f, args, n, err);
    int unit = unit_of(args[0]);
    if (unit < 0 || unit > U_YEAR)
        return bad_unit(f, args[0], err);
    weir_type_id id = args[1]->type.id;
    if ((id != WEIR_TYPE_INT && id != WEIR_TYPE_BIGINT && id != WEIR_TYPE_NULL) || args[1]->iv)
        return weir__bad_args(f, args, n, err);
    weir_type was;
    int rc = weir__coerce(a, &args[1], tmake(WEIR_TYPE_BIGINT, args[1]->type.nullable || id == WEIR_TYPE_NULL), err);
    if (!rc)
        rc = date_time_as_ts(a, args, 2, &was, err);
    if (!rc)
        rc = want_time(a, f, args, n, 2, err);
    if (rc)
        return rc;
    weir_type t = args[2]->type;
    t.nullable = weir__any_nullable(args + 1, 2);
    *out = weir__call_node(a, f, args, 3, t, tsadd_kernel,
                           F_STRICT | (t.id == WEIR_TYPE_TIMESTAMP_LTZ && unit > U_WEEK ? F_SESSION : 0));
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = unit;
    /* A DATE moved by a unit of the clock becomes a TIMESTAMP; a TIME stays a TIME. */
    if (was.id == WEIR_TYPE_DATE && time_of_day_unit(unit))
        return 0;
    return back_to(a, was, out, err);
}

/* Whole months from epoch day d1 to d0 as Flink counts them: the most m with d1 moved m months (the day
 * clamped to the month's end) not past d0, so 01-31 to 02-29 is one month. */
static int64_t months_between_days(int64_t d0, int64_t d1)
{
    if (d0 < d1)
        return -months_between_days(d1, d0);
    int64_t m = (d0 - d1) / 31;
    for (;;) {
        if (add_months(d1 * 86400000, m) / 86400000 >= d0 || add_months(d1 * 86400000, m + 1) / 86400000 > d0)
            return m;
        m++;
    }
}

/* Whole months from t1 to t2 (epoch ms): the months of the days, one less when the end's day is reached only
 * by an earlier time of day (Flink's subtractMonths). */
static int64_t months_between(int64_t t2, int64_t t1)
{
    int64_t d0 = x_floordiv(t2, 86400000), d1 = x_floordiv(t1, 86400000);
    int64_t m = months_between_days(d0, d1);
    if (add_months(d1 * 86400000, m) / 86400000 == d0 && x_floormod(t2, 86400000) < x_floormod(t1, 86400000))
        m--;
    return m;
}

static int tsdiff_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act, (void)cx;
    const int64_t *t1 = a[1].data, *t2 = a[2].data;
    int32_t *o = out->data;
    int unit = (int)e->p0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t r;
        if (unit <= U_WEEK)
            r = (t2[i] - t1[i]) / unit_ms[unit];
        else
            r = months_between(t2[i], t1[i]) / (unit == U_MONTH ? 1 : unit == U_QUARTER ? 3 : 12);
        o[i] = (int32_t)r;
    }
    return 0;
}

/* ---- (a - b) unit: the difference of two points in time as an INTERVAL ---- */

static int dtminus_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act, (void)cx;
    const int64_t *t0 = a[1].data, *t1 = a[2].data;
    int64_t *o = out->data;
    bool months = e->iv == WEIR_INTERVAL_YEAR_MONTH;
    for (uint32_t i = 0; i < n; i++)
        o[i] = months ? months_between(t0[i], t1[i]) : (int64_t)((uint64_t)t0[i] - (uint64_t)t1[i]);
    return 0;
}

/*
 * $DATETIME_MINUS(unit, a, b), the planner's form of (a - b) unit [TO unit2]
 * (Calcite's datetime minus, as Flink computes it): two TIMESTAMPs, DATEs
 * or TIMEs (a DATE and a TIMESTAMP mix as timestamps), or two
 * TIMESTAMP_LTZs under a day-time qualifier (instants: the difference of
 * their epoch milliseconds, whatever the session time zone). A year-month
 * qualifier gives the whole months from b to a (as TIMESTAMPDIFF(MONTH, b,
 * a)); a day-time one the milliseconds a - b, whatever its units (Flink
 * does not round to the qualifier's last unit).
 */
static int bind_dtminus(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                        weir_error *err)
{
    if (n != 3)
        return weir__bad_args(f, args, n, err);
    int unit = unit_of(args[0]);
    if (unit < U_SECOND || unit > U_YEAR || unit == U_WEEK || unit == U_QUARTER)
        return bad_unit(f, args[0], err);
    weir_type_id t1 = args[1]->type.id, t2 = args[2]->type.id;
    /* two instants (or one and a NULL): the difference of their epoch milliseconds */
    bool ltz = (t1 == WEIR_TYPE_TIMESTAMP_LTZ || t2 == WEIR_TYPE_TIMESTAMP_LTZ) &&
               (t1 == WEIR_TYPE_TIMESTAMP_LTZ || t1 == WEIR_TYPE_NULL) &&
               (t2 == WEIR_TYPE_TIMESTAMP_LTZ || t2 == WEIR_TYPE_NULL);
    for (int k = 1; k <= 2 && !ltz; k++) {
        weir_type_id id = args[k]->type.id;
        if (args[k]->iv || (id != WEIR_TYPE_TIMESTAMP && id != WEIR_TYPE_DATE && id != WEIR_TYPE_TIME &&
                            id != WEIR_TYPE_NULL)) {
            char b1[48], b2[48];
            return weir_error_set(err, WEIR_EPLAN,
                                  "(a - b) %s takes two TIMESTAMP, DATE or TIME values, or two TIMESTAMP_LTZ "
                                  "values, not %s and %s",
                                  unit_names[unit], weir__tname(args[1], b1, sizeof b1),
                                  weir__tname(args[2], b2, sizeof b2));
        }
    }
    if (ltz && unit >= U_MONTH)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "(a - b) %s of two TIMESTAMP_LTZ values is not supported: whole months between two "
                              "instants depend on a time zone; use TIMESTAMPDIFF(MONTH, b, a), or CAST both to "
                              "TIMESTAMP",
                              unit_names[unit]);
    if ((t1 == WEIR_TYPE_TIME) != (t2 == WEIR_TYPE_TIME) && t1 != WEIR_TYPE_NULL && t2 != WEIR_TYPE_NULL) {
        char b1[48], b2[48];
        return weir_error_set(err, WEIR_EPLAN, "(a - b) %s cannot subtract %s from %s", unit_names[unit],
                              weir__tname(args[2], b2, sizeof b2), weir__tname(args[1], b1, sizeof b1));
    }
    weir_type_id as = ltz ? WEIR_TYPE_TIMESTAMP_LTZ : WEIR_TYPE_TIMESTAMP;
    for (int k = 1; k <= 2; k++) {
        weir_type want = tmake(as, args[k]->type.nullable || args[k]->type.id == WEIR_TYPE_NULL);
        if (args[k]->type.id != as && weir__coerce(a, &args[k], want, err))
            return err->code;
    }
    *out = weir__call_node(a, f, args, 3, tmake(WEIR_TYPE_BIGINT, weir__any_nullable(args + 1, 2)), dtminus_kernel,
                           F_STRICT);
    if (!*out)
        return nomem_b(err);
    (*out)->iv = unit >= U_MONTH ? WEIR_INTERVAL_YEAR_MONTH : WEIR_INTERVAL_DAY_TIME;
    return 0;
}

static int bind_tsdiff(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    if (n != 3)
        return weir__bad_args(f, args, n, err);
    int unit = unit_of(args[0]);
    if (unit < 0 || unit > U_YEAR)
        return bad_unit(f, args[0], err);
    weir_type was;
    int rc = date_time_as_ts(a, args, 1, &was, err);
    if (!rc)
        rc = date_time_as_ts(a, args, 2, &was, err);
    if (!rc)
        rc = want_time(a, f, args, n, 1, err);
    if (!rc)
        rc = want_time(a, f, args, n, 2, err);
    if (rc)
        return rc;
    if (args[1]->type.id != args[2]->type.id) {
        weir_type t = tmake(WEIR_TYPE_TIMESTAMP_LTZ, false);
        for (int k = 1; k <= 2; k++) {
            t.nullable = args[k]->type.nullable;
            if (weir__coerce(a, &args[k], t, err))
                return err->code;
        }
    }
    *out = weir__call_node(a, f, args, 3, tmake(WEIR_TYPE_INT, weir__any_nullable(args + 1, 2)), tsdiff_kernel,
                           F_STRICT | (args[1]->type.id == WEIR_TYPE_TIMESTAMP_LTZ && unit > U_WEEK ? F_SESSION : 0));
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = unit;
    return 0;
}

/* ---- date patterns ---- */

typedef struct ftok {
    char letter; /* 0 = literal text */
    uint8_t count;
    uint16_t lit_off, lit_len;
} ftok;

typedef struct dfmt {
    uint32_t n;
    ftok tok[64];
    char lit[256];
} dfmt;

static const char *months_long[] = {"January", "February", "March",     "April",   "May",      "June",
                                    "July",    "August",   "September", "October", "November", "December"};
static const char *days_long[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

/* Compiles a Java date pattern. Returns 0 or -1 with msg. */
static int compile_fmt(xstr p, dfmt *f, char *msg, size_t cap)
{
    memset(f, 0, sizeof *f);
    uint32_t lo = 0;
    for (uint32_t i = 0; i < p.len;) {
        if (f->n >= 64) {
            snprintf(msg, cap, "date pattern too long");
            return -1;
        }
        char c = p.ptr[i];
        ftok *t = &f->tok[f->n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            if (!strchr("yMdHhkKmsSEaDuZXzw", c)) {
                snprintf(msg, cap, "unsupported date pattern letter '%c'", c);
                return -1;
            }
            uint32_t j = i;
            while (j < p.len && p.ptr[j] == c)
                j++;
            t->letter = c;
            t->count = (uint8_t)(j - i > 9 ? 9 : j - i);
            f->n++;
            i = j;
            continue;
        }
        /* Literal text: quoted or a run of other characters. */
        t->letter = 0;
        t->lit_off = (uint16_t)lo;
        if (c == '\'') {
            i++;
            if (i < p.len && p.ptr[i] == '\'') {
                if (lo >= sizeof f->lit)
                    goto toolong;
                f->lit[lo++] = '\'';
                i++;
            } else {
                while (i < p.len) {
                    if (p.ptr[i] == '\'') {
                        if (i + 1 < p.len && p.ptr[i + 1] == '\'') {
                            if (lo >= sizeof f->lit)
                                goto toolong;
                            f->lit[lo++] = '\'';
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    if (lo >= sizeof f->lit)
                        goto toolong;
                    f->lit[lo++] = p.ptr[i++];
                }
                if (i >= p.len) {
                    snprintf(msg, cap, "unterminated quote in date pattern");
                    return -1;
                }
                i++;
            }
        } else {
            if (lo >= sizeof f->lit)
                goto toolong;
            f->lit[lo++] = c;
            i++;
        }
        t->lit_len = (uint16_t)(lo - t->lit_off);
        f->n++;
    }
    return 0;
toolong:
    snprintf(msg, cap, "date pattern too long");
    return -1;
}

static size_t put_num(char *o, int64_t v, int width)
{
    char tmp[24];
    bool neg = v < 0;
    uint64_t m = neg ? 0 - (uint64_t)v : (uint64_t)v;
    int k = 0;
    do {
        tmp[k++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    while (k < width)
        tmp[k++] = '0';
    size_t n = 0;
    if (neg)
        o[n++] = '-';
    while (k)
        o[n++] = tmp[--k];
    return n;
}

/* Formats local wall time `ms` (offset_ms = its zone offset, for Z/X) into o (>= 256 bytes). */
static size_t format_ts(const dfmt *f, int64_t ms, int64_t offset_ms, char *o)
{
    weir__civil c;
    weir__civil_from_ms(ms, &c);
    size_t n = 0;
    for (uint32_t k = 0; k < f->n && n < 200; k++) {
        const ftok *t = &f->tok[k];
        int cnt = t->count;
        switch (t->letter) {
        case 0: memcpy(o + n, f->lit + t->lit_off, t->lit_len); n += t->lit_len; break;
        case 'y':
            if (cnt == 2)
                n += put_num(o + n, x_floormod(c.year, 100), 2);
            else
                n += put_num(o + n, c.year, cnt);
            break;
        case 'M':
            if (cnt >= 3) {
                const char *nm = months_long[c.month - 1];
                size_t l = cnt == 3 ? 3 : strlen(nm);
                memcpy(o + n, nm, l);
                n += l;
            } else {
                n += put_num(o + n, c.month, cnt);
            }
            break;
        case 'd': n += put_num(o + n, c.day, cnt); break;
        case 'H': n += put_num(o + n, c.hour, cnt); break;
        case 'k': n += put_num(o + n, c.hour ? c.hour : 24, cnt); break;
        case 'K': n += put_num(o + n, c.hour % 12, cnt); break;
        case 'h': n += put_num(o + n, c.hour % 12 ? c.hour % 12 : 12, cnt); break;
        case 'm': n += put_num(o + n, c.minute, cnt); break;
        case 's': n += put_num(o + n, c.second, cnt); break;
        case 'S': {
            /* Fraction of a second with cnt digits (milliseconds padded with zeros). */
            char fr[10];
            put_num(fr, c.millis, 3);
            for (int j = 0; j < cnt; j++)
                o[n++] = j < 3 ? fr[j] : '0';
            break;
        }
        case 'E': {
            const char *nm = days_long[iso_dow(x_floordiv(ms, 86400000)) - 1];
            size_t l = cnt <= 3 ? 3 : strlen(nm);
            memcpy(o + n, nm, l);
            n += l;
            break;
        }
        case 'u': n += put_num(o + n, iso_dow(x_floordiv(ms, 86400000)), cnt); break;
        case 'a': memcpy(o + n, c.hour < 12 ? "AM" : "PM", 2); n += 2; break;
        case 'D': n += put_num(o + n, doy_of(&c), cnt); break;
        case 'w': n += put_num(o + n, iso_week(&c, false), cnt); break;
        default: {
            /* Z: +0800, X/XXX: Z or +08:00 / +08, z: UTC or GMT+08:00 */
            int64_t off = offset_ms / 60000;
            if (t->letter == 'X' && off == 0) {
                o[n++] = 'Z';
                break;
            }
            if (t->letter == 'z') {
                if (off == 0) {
                    memcpy(o + n, "UTC", 3);
                    n += 3;
                    break;
                }
                memcpy(o + n, "GMT", 3);
                n += 3;
            }
            o[n++] = off < 0 ? '-' : '+';
            if (off < 0)
                off = -off;
            n += put_num(o + n, off / 60, 2);
            if (t->letter == 'X' && cnt == 1)
                break;
            /* XXX and XXXXX +08:00; X +08, XX and XXXX +0800 (as DateTimeFormatter) */
            if ((t->letter == 'X' && (cnt == 3 || cnt >= 5)) || t->letter == 'z')
                o[n++] = ':';
            n += put_num(o + n, off % 60, 2);
        }
        }
    }
    return n;
}

/* Parses text with a compiled pattern into a wall time; *offset_ms set if the text names an offset. */
static int parse_ts(const dfmt *f, xstr s, int64_t *out_ms, bool *has_off, int64_t *offset_ms)
{
    weir__civil c = {1970, 1, 1, 0, 0, 0, 0};
    int pm = -1, h12 = -1;
    /* The day of the year, and whether a month and a day of the month were read (and the day
     * before D): D gives the date unless a day of the month came after it, or with a month. */
    int doy = -1;
    bool have_month = false, have_day = false, day_before_doy = false;
    uint32_t i = 0;
    *has_off = false;
    for (uint32_t k = 0; k < f->n; k++) {
        const ftok *t = &f->tok[k];
        if (t->letter == 0) {
            if (i + t->lit_len > s.len || memcmp(s.ptr + i, f->lit + t->lit_off, t->lit_len))
                return -1;
            i += t->lit_len;
            continue;
        }
        /* A numeric field next to another numeric field takes exactly its width (MMM and longer are
         * names, u and w numbers). */
        const ftok *nx = k + 1 < f->n ? &f->tok[k + 1] : NULL;
        bool adjacent =
            nx && nx->letter && strchr("yMdHhkKmsSDuw", nx->letter) && !(nx->letter == 'M' && nx->count >= 3);
        if (t->letter == 'M' && t->count >= 3) {
            int found = -1;
            for (int m = 0; m < 12 && found < 0; m++) {
                size_t l = t->count == 3 ? 3 : strlen(months_long[m]);
                if (i + l <= s.len && !strncasecmp(s.ptr + i, months_long[m], l))
                    found = m, i += (uint32_t)l;
            }
            if (found < 0)
                return -1;
            c.month = found + 1;
            have_month = true;
            continue;
        }
        if (t->letter == 'E') {
            int found = -1;
            for (int d = 0; d < 7 && found < 0; d++) {
                size_t l = t->count <= 3 ? 3 : strlen(days_long[d]);
                if (i + l <= s.len && !strncasecmp(s.ptr + i, days_long[d], l))
                    found = d, i += (uint32_t)l;
            }
            if (found < 0)
                return -1;
            continue;
        }
        if (t->letter == 'a') {
            if (i + 2 > s.len)
                return -1;
            if (!strncasecmp(s.ptr + i, "AM", 2))
                pm = 0;
            else if (!strncasecmp(s.ptr + i, "PM", 2))
                pm = 1;
            else
                return -1;
            i += 2;
            continue;
        }
        if (t->letter == 'Z' || t->letter == 'X' || t->letter == 'z') {
            if (i < s.len && s.ptr[i] == 'Z') {
                i++;
                *has_off = true;
                *offset_ms = 0;
                continue;
            }
            if (t->letter == 'z' && i + 3 <= s.len && (!strncasecmp(s.ptr + i, "UTC", 3) || !strncasecmp(s.ptr + i, "GMT", 3))) {
                bool gmt = !strncasecmp(s.ptr + i, "GMT", 3);
                i += 3;
                *has_off = true;
                *offset_ms = 0;
                /* GMT+08:00 as z writes it; UTC is a whole name, so a sign after it, or after GMT
                 * without a digit, is the text that follows */
                if (!gmt || i + 1 >= s.len || (s.ptr[i] != '+' && s.ptr[i] != '-') || s.ptr[i + 1] < '0' ||
                    s.ptr[i + 1] > '9')
                    continue;
            }
            if (i >= s.len || (s.ptr[i] != '+' && s.ptr[i] != '-'))
                return -1;
            int sign = s.ptr[i++] == '-' ? -1 : 1, hh = 0, mm = 0, nd = 0;
            while (i < s.len && nd < 2 && s.ptr[i] >= '0' && s.ptr[i] <= '9')
                hh = hh * 10 + (s.ptr[i++] - '0'), nd++;
            if (nd != 2)
                return -1;
            if (i < s.len && s.ptr[i] == ':')
                i++;
            nd = 0;
            while (i < s.len && nd < 2 && s.ptr[i] >= '0' && s.ptr[i] <= '9')
                mm = mm * 10 + (s.ptr[i++] - '0'), nd++;
            *has_off = true;
            *offset_ms = sign * (hh * 3600000LL + mm * 60000LL);
            continue;
        }
        /* Otherwise it reads the digits there are (up to 9), as SimpleDateFormat: 'ddddd' reads the
         * 00012 it writes. */
        int maxw = adjacent ? t->count : 9;
        if (t->letter == 'y' && t->count == 2 && adjacent)
            maxw = 2;
        int64_t v = 0;
        int nd = 0;
        bool neg = false;
        if (t->letter == 'y' && i < s.len && s.ptr[i] == '-' && !adjacent)
            neg = true, i++;
        while (i < s.len && nd < maxw && s.ptr[i] >= '0' && s.ptr[i] <= '9')
            v = v * 10 + (s.ptr[i++] - '0'), nd++;
        if (nd == 0)
            return -1;
        switch (t->letter) {
        case 'y':
            c.year = neg ? -v : v;
            if (t->count == 2 && nd <= 2)
                c.year = 2000 + v; /* two-digit years: 2000-2099 */
            break;
        case 'M': c.month = (int)v, have_month = true; break;
        case 'd': c.day = (int)v, have_day = true, day_before_doy = doy < 0; break;
        case 'H': c.hour = (int)v; break;
        case 'k': c.hour = (int)(v == 24 ? 0 : v); break;
        case 'K':
        case 'h': h12 = (int)v; break;
        case 'm': c.minute = (int)v; break;
        case 's': c.second = (int)v; break;
        case 'S': {
            int64_t ms = v;
            for (int j = nd; j < 3; j++)
                ms *= 10;
            for (int j = 3; j < nd; j++)
                ms /= 10;
            c.millis = (int)ms;
            break;
        }
        case 'D': doy = (int)v; break;
        default: break;
        }
    }
    while (i < s.len && (unsigned char)s.ptr[i] <= ' ')
        i++;
    if (i != s.len)
        return -1;
    if (doy >= 0 && (!have_day || (!have_month && day_before_doy))) {
        if (doy < 1 || doy > 365 + leap(c.year))
            return -1;
        c.month = 1, c.day = doy;
    }
    if (h12 >= 0)
        c.hour = (h12 % 12) + (pm == 1 ? 12 : 0);
    else if (pm == 1 && c.hour < 12)
        c.hour += 12;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (c.month < 1 || c.month > 12 || c.hour > 23 || c.minute > 59 || c.second > 59 || c.day < 1 ||
        (c.day > mdays[c.month - 1] + (c.month == 2 && leap(c.year)) && !(doy >= 0 && c.month == 1 && c.day == doy)))
        return -1;
    *out_ms = weir__ms_from_civil(&c);
    return 0;
}

/* A format argument: compiled at bind time when literal, else per row (cached while unchanged). */
typedef struct fmtcache {
    dfmt f;
    xstr text;
    bool valid, bad;
    uint32_t gen; /* patterns compiled into f so far (f is the same place for each) */
} fmtcache;

static const dfmt *row_fmt(const weir_expr *e, const xvec *fv, uint32_t i, fmtcache *c)
{
    if (e->aux)
        return e->aux;
    if (!fv)
        return NULL;
    xstr p = ((const xstr *)fv->data)[i];
    if (c->valid && c->text.len == p.len && !memcmp(c->text.ptr, p.ptr, p.len))
        return c->bad ? NULL : &c->f;
    char msg[100];
    c->valid = true;
    c->text = p;
    c->gen++;
    c->bad = compile_fmt(p, &c->f, msg, sizeof msg) != 0;
    return c->bad ? NULL : &c->f;
}

static int set_fmt(weir_expr_arena *a, const xfunc *f, weir_expr *e, const weir_expr *fmt_arg, const char *dflt,
                   weir_error *err)
{
    xstr p;
    if (fmt_arg) {
        if (fmt_arg->kind != N_LITERAL || fmt_arg->lit.is_null)
            return 0;
        p = fmt_arg->lit.v.s;
    } else {
        p = (xstr){dflt, (uint32_t)strlen(dflt)};
    }
    dfmt *df = weir__arena_alloc(a, sizeof *df);
    if (!df)
        return nomem_b(err);
    char msg[100];
    if (compile_fmt(p, df, msg, sizeof msg))
        return weir_error_set(err, WEIR_EPLAN, "invalid date pattern '%.*s' in %s: %s", (int)p.len, p.ptr, f->name, msg);
    e->aux = df;
    return 0;
}

/* ---- TO_TIMESTAMP, UNIX_TIMESTAMP ---- */

/* p0: 0 TO_TIMESTAMP (TIMESTAMP, NULL on failure), 1 UNIX_TIMESTAMP (seconds in the session zone). */
static int parse_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    fmtcache c = {0};
    int64_t *o = out->data;
    bool unix_ = e->p0 != 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = ((const xstr *)a[0].data)[i];
        int64_t ms, off = 0;
        bool has_off = false;
        int rc;
        if (e->n_args == 1 && !unix_) {
            rc = weir__parse_ts_text(s.ptr, s.len, &ms);
        } else {
            const dfmt *f = row_fmt(e, e->n_args > 1 ? &a[1] : NULL, i, &c);
            rc = f ? parse_ts(f, s, &ms, &has_off, &off) : -1;
            /* Like Flink, fall back to the default text form ('1999-9-10 05:20:10'). */
            if (rc && !unix_)
                rc = weir__parse_ts_text(s.ptr, s.len, &ms);
        }
        if (rc) {
            if (unix_)
                o[i] = INT64_MIN; /* Flink's UNIX_TIMESTAMP returns Long.MIN_VALUE on bad input */
            else
                x_setnull(cx, out, i);
            continue;
        }
        if (unix_) {
            int64_t utc = has_off ? ms - off : x_utc(cx, ms);
            o[i] = x_floordiv(utc, 1000);
        } else {
            /* the wall time the text names; an offset in it is dropped, as Flink's TO_TIMESTAMP
             * takes the text's fields */
            if (ms < MS_MIN || ms > MS_MAX)
                x_setnull(cx, out, i);
            else
                o[i] = ms;
        }
    }
    return 0;
}

static int need_str_args(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, uint32_t from,
                         weir_error *err)
{
    for (uint32_t k = from; k < n; k++) {
        weir_type_id id = args[k]->type.id;
        if (id == WEIR_TYPE_NULL) {
            if (weir__coerce(a, &args[k], tmake(WEIR_TYPE_STRING, true), err))
                return err->code;
        } else if (id != WEIR_TYPE_STRING) {
            return weir__bad_args(f, args, n, err);
        }
    }
    return 0;
}

static int unix_now_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)e, (void)a, (void)act;
    const int64_t *now = weir__x_now_rows(cx); /* per record, as CURRENT_TIMESTAMP */
    if (!now)
        return oom(cx);
    for (uint32_t i = 0; i < n; i++)
        ((int64_t *)out->data)[i] = x_floordiv(now[cx->rows ? cx->rows[i] : i], 1000);
    return 0;
}

static int bind_parse(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    bool unix_ = f->param == 1;
    if (unix_ && n == 0) {
        *out = weir__call_node(a, f, args, 0, tmake(WEIR_TYPE_BIGINT, false), unix_now_kernel, F_SESSION);
        return *out ? 0 : nomem_b(err);
    }
    if (n < 1 || n > 2)
        return weir__bad_args(f, args, n, err);
    int rc = need_str_args(a, f, args, n, 0, err);
    if (rc)
        return rc;
    bool to_date = f->param == 2;
    if (to_date)
        unix_ = false;
    weir_type t = unix_ ? tmake(WEIR_TYPE_BIGINT, weir__any_nullable(args, n)) : tmake(WEIR_TYPE_TIMESTAMP, true);
    *out = weir__call_node(a, f, args, n, t, parse_kernel, F_STRICT | F_MAYNULL | (unix_ ? F_SESSION : 0));
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = unix_;
    if (n == 2 || unix_)
        rc = set_fmt(a, f, *out, n == 2 ? args[1] : NULL, "yyyy-MM-dd HH:mm:ss", err);
    /* TO_DATE: the date of the parsed timestamp */
    if (!rc && to_date)
        rc = back_to(a, tmake(WEIR_TYPE_DATE, true), out, err);
    return rc;
}

/* ---- TO_TIMESTAMP_LTZ ---- */

static int to_ltz_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)act;
    int64_t *o = out->data;
    bool sec = e->p0 == 0;
    weir_type_id id = a[0].type.id;
    for (uint32_t i = 0; i < n; i++) {
        if (out->nulls && out->nulls[i])
            continue;
        int64_t ms;
        bool ok = true;
        if (id == WEIR_TYPE_DOUBLE) {
            double d = ((const double *)a[0].data)[i] * (sec ? 1000.0 : 1.0);
            ok = d >= (double)MS_MIN && d <= (double)MS_MAX;
            ms = ok ? (int64_t)d : 0;
        } else {
            int64_t v = id == WEIR_TYPE_INT ? ((const int32_t *)a[0].data)[i] : ((const int64_t *)a[0].data)[i];
            if (id == WEIR_TYPE_DECIMAL)
                v /= weir__pow10[a[0].type.scale]; /* truncates toward zero, as Flink's RoundingMode.DOWN */
            ok = !sec || (v >= MS_MIN / 1000 && v <= MS_MAX / 1000);
            ms = ok ? (sec ? v * 1000 : v) : 0;
            ok = ok && ms >= MS_MIN && ms <= MS_MAX;
        }
        if (ok)
            o[i] = ms;
        else
            x_setnull(cx, out, i);
    }
    return 0;
}

static void tz_free(void *p) { weir__tz_free(p); }

/*
 * The wall time of TO_TIMESTAMP_LTZ(s, fmt, zone) read in its zone (aux: the zone; NULL is UTC).
 * Only the wall time is held to years 0000 - 9999 (by the parse): its instant may lie a few hours
 * outside them (9999-12-31 23:00 in New York is in year 10000 in UTC), as Flink's, which takes
 * the instant of the parsed local date-time in the zone without a range check.
 */
static int wall_in_zone_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act,
                               xvec *out)
{
    (void)cx;
    const weir__tz *tz = e->aux;
    int64_t *o = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        int64_t utc = ((const int64_t *)a[0].data)[i];
        o[i] = tz ? weir__tz_to_utc(tz, utc) : utc;
    }
    return 0;
}

/*
 * TO_TIMESTAMP_LTZ(s [, fmt [, zone]]): s read as TO_TIMESTAMP reads it, and that wall time taken
 * in UTC, or in zone (a string literal), not in the session zone.
 */
static int bind_to_ltz_text(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                            weir_error *err)
{
    int rc = need_str_args(a, f, args, n, 0, err);
    if (rc)
        return rc;
    weir__tz *tz = NULL;
    if (n == 3) {
        if (args[2]->kind != N_LITERAL || args[2]->lit.is_null)
            return weir_error_set(err, WEIR_EPLAN,
                                  "TO_TIMESTAMP_LTZ takes its time zone as a string literal ('UTC', '+08:00', "
                                  "'Europe/Berlin')");
        char name[64];
        xstr v = args[2]->lit.v.s;
        if (v.len >= sizeof name) /* no zone's name is this long: not cut into one that is */
            return weir_error_set(err, WEIR_EPLAN, "TO_TIMESTAMP_LTZ: unknown time zone '%.*s...'", 40, v.ptr);
        snprintf(name, sizeof name, "%.*s", (int)v.len, v.ptr);
        weir_error zerr = {0};
        if (weir__tz_load(name, &tz, &zerr))
            return weir_error_set(err, WEIR_EPLAN, "TO_TIMESTAMP_LTZ: %s", zerr.message);
        if (tz && weir__arena_on_destroy(a, tz_free, tz)) {
            weir__tz_free(tz);
            return nomem_b(err);
        }
    }
    uint32_t np = n > 2 ? 2 : n;
    weir_expr *parse = weir__call_node(a, f, args, np, tmake(WEIR_TYPE_TIMESTAMP_LTZ, true), parse_kernel,
                                       F_STRICT | F_MAYNULL);
    if (!parse)
        return nomem_b(err);
    parse->p0 = 0;
    if (np == 2 && (rc = set_fmt(a, f, parse, args[1], NULL, err)))
        return rc;
    if (n < 3) {
        *out = parse;
        return 0;
    }
    *out = weir__call_node(a, f, &parse, 1, tmake(WEIR_TYPE_TIMESTAMP_LTZ, true), wall_in_zone_kernel,
                           F_STRICT | F_MAYNULL);
    if (!*out)
        return nomem_b(err);
    (*out)->aux = tz;
    return 0;
}

static int bind_to_ltz(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    if (n >= 1 && n <= 3 && args[0]->type.id == WEIR_TYPE_STRING)
        return bind_to_ltz_text(a, f, args, n, out, err);
    if (n < 1 || n > 2)
        return weir__bad_args(f, args, n, err);
    weir_type_id id = args[0]->type.id;
    if (id == WEIR_TYPE_NULL) {
        if (weir__coerce(a, &args[0], tmake(WEIR_TYPE_BIGINT, true), err))
            return err->code;
    } else if (!weir_type_is_numeric(id) || args[0]->iv) {
        return weir__bad_args(f, args, n, err);
    }
    int prec = 3;
    if (n == 2) {
        if (args[1]->kind != N_LITERAL || (args[1]->type.id != WEIR_TYPE_INT && args[1]->type.id != WEIR_TYPE_BIGINT))
            return weir__bad_args(f, args, n, err);
        prec = args[1]->type.id == WEIR_TYPE_INT ? args[1]->lit.v.i32 : (int)args[1]->lit.v.i64;
        if (prec != 0 && prec != 3)
            return weir_error_set(err, WEIR_EPLAN,
                                  "The precision value '%d' for function TO_TIMESTAMP_LTZ(numeric, precision) is "
                                  "unsupported, the supported value is '0' for second or '3' for millisecond.",
                                  prec);
    }
    *out = weir__call_node(a, f, args, 1, tmake(WEIR_TYPE_TIMESTAMP_LTZ, true), to_ltz_kernel, F_STRICT | F_MAYNULL);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = prec;
    return 0;
}

/* ---- DATE_FORMAT, FROM_UNIXTIME ---- */

/*
 * The unit of wall time a pattern's text depends on: a fraction of a
 * second the millisecond, seconds the second, and so on to the day (zone
 * offsets are compared on their own). Two times in the same unit format
 * alike.
 */
static int64_t fmt_unit(const dfmt *f)
{
    int64_t unit = 86400000;
    for (uint32_t k = 0; k < f->n; k++) {
        int64_t u = 86400000;
        switch (f->tok[k].letter) {
        case 'S': u = 1; break;
        case 's': u = 1000; break;
        case 'm': u = 60000; break;
        case 'H':
        case 'k':
        case 'K':
        case 'h':
        case 'a': u = 3600000; break;
        default: break;
        }
        if (u < unit)
            unit = u;
    }
    return unit;
}

/* p0: 0 DATE_FORMAT(ts|string, fmt), 1 FROM_UNIXTIME(seconds [, fmt]). */
static int format_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    fmtcache c = {0};
    weir_type_id id = a[0].type.id;
    bool from_unix = e->p0 != 0;
    /* the last text formatted: a row of the same pattern, offset and unit of time takes it again
     * (a stream's times are close: Nexmark's rows share their second) */
    const dfmt *last_f = NULL;
    uint32_t last_gen = 0;
    int64_t last_unit = 1, last_at = 0, last_off = 0;
    xstr last = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        const dfmt *f = row_fmt(e, e->n_args > 1 ? &a[1] : NULL, i, &c);
        if (!f) {
            x_setnull(cx, out, i);
            continue;
        }
        int64_t local, utc = 0;
        bool zoned = true;
        if (from_unix) {
            int64_t s = id == WEIR_TYPE_INT ? ((const int32_t *)a[0].data)[i] : ((const int64_t *)a[0].data)[i];
            utc = s * 1000;
            local = x_local(cx, utc);
        } else if (id == WEIR_TYPE_STRING) {
            xstr s = ((const xstr *)a[0].data)[i];
            if (weir__parse_ts_text(s.ptr, s.len, &local)) {
                x_setnull(cx, out, i);
                continue;
            }
            utc = x_utc(cx, local);
        } else if (id == WEIR_TYPE_TIMESTAMP_LTZ) {
            utc = ((const int64_t *)a[0].data)[i];
            local = x_local(cx, utc);
        } else {
            local = ((const int64_t *)a[0].data)[i];
            zoned = false;
        }
        int64_t off = zoned ? local - utc : 0;
        if (f != last_f || c.gen != last_gen) {
            last_f = f;
            last_gen = c.gen;
            last_unit = fmt_unit(f);
            last.ptr = NULL;
        }
        int64_t at = x_floordiv(local, last_unit);
        if (!last.ptr || at != last_at || off != last_off) {
            char buf[256];
            size_t len = format_ts(f, local, off, buf);
            char *p = x_str(cx, len);
            if (!p)
                return oom(cx);
            memcpy(p, buf, len);
            last = (xstr){p, (uint32_t)len};
            last_at = at;
            last_off = off;
        }
        ((xstr *)out->data)[i] = last;
    }
    return 0;
}

static int bind_format(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    bool from_unix = f->param != 0;
    if (n < (from_unix ? 1u : 2u) || n > 2)
        return weir__bad_args(f, args, n, err);
    weir_type_id id = args[0]->type.id;
    bool session = false;
    if (from_unix) {
        if (id == WEIR_TYPE_NULL) {
            if (weir__coerce(a, &args[0], tmake(WEIR_TYPE_BIGINT, true), err))
                return err->code;
        } else if ((id != WEIR_TYPE_INT && id != WEIR_TYPE_BIGINT) || args[0]->iv) {
            return weir__bad_args(f, args, n, err);
        }
        session = true;
    } else {
        weir_type was;
        if (date_time_as_ts(a, args, 0, &was, err))
            return err->code;
        id = args[0]->type.id;
        if (id == WEIR_TYPE_NULL) {
            if (weir__coerce(a, &args[0], tmake(WEIR_TYPE_TIMESTAMP, true), err))
                return err->code;
        } else if ((!weir_type_is_time(id) && id != WEIR_TYPE_STRING) || args[0]->iv) {
            return weir__bad_args(f, args, n, err);
        }
        session = id != WEIR_TYPE_TIMESTAMP;
    }
    int rc = need_str_args(a, f, args, n, 1, err);
    if (rc)
        return rc;
    *out = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_STRING, true), format_kernel,
                           F_STRICT | F_MAYNULL | (session ? F_SESSION : 0));
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = from_unix;
    return set_fmt(a, f, *out, n == 2 ? args[1] : NULL, "yyyy-MM-dd HH:mm:ss", err);
}

/* ---- CONVERT_TZ ---- */

/* The two zones of CONVERT_TZ(string, from, to): NULL means UTC. */
typedef struct convert_zones {
    weir__tz *from, *to;
} convert_zones;

static void convert_zones_free(void *p)
{
    convert_zones *z = p;
    weir__tz_free(z->from);
    weir__tz_free(z->to);
}

static int convert_tz_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    const convert_zones *z = e->aux;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = ((const xstr *)a[0].data)[i];
        int64_t local;
        if (weir__parse_ts_text(s.ptr, s.len, &local)) {
            x_setnull(cx, out, i);
            continue;
        }
        int64_t utc = z->from ? weir__tz_to_utc(z->from, local) : local;
        int64_t to = z->to ? utc + weir__tz_offset(z->to, utc) : utc;
        char buf[40];
        size_t len = weir__fmt_ts(to, buf);
        if (len > 19)
            len = 19; /* yyyy-MM-dd HH:mm:ss, as Flink */
        char *p = x_str(cx, len);
        if (!p)
            return oom(cx);
        memcpy(p, buf, len);
        ((xstr *)out->data)[i] = (xstr){p, (uint32_t)len};
    }
    return 0;
}

static int bind_convert_tz(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                           weir_error *err)
{
    if (n != 3)
        return weir__bad_args(f, args, n, err);
    int rc = need_str_args(a, f, args, n, 0, err);
    if (rc)
        return rc;
    convert_zones *z = weir__arena_alloc(a, sizeof *z);
    if (!z)
        return nomem_b(err);
    memset(z, 0, sizeof *z);
    if (weir__arena_on_destroy(a, convert_zones_free, z))
        return nomem_b(err);
    for (int k = 1; k <= 2; k++) {
        const weir_expr *arg = args[k];
        if (arg->kind != N_LITERAL || arg->lit.is_null)
            return weir_error_set(err, WEIR_EPLAN,
                                  "CONVERT_TZ takes its time zones as string literals ('UTC', '+08:00', "
                                  "'Europe/Berlin')");
        char name[64];
        xstr v = arg->lit.v.s;
        if (v.len >= sizeof name) /* no zone's name is this long: not cut into one that is */
            return weir_error_set(err, WEIR_EPLAN, "CONVERT_TZ: unknown time zone '%.*s...'", 40, v.ptr);
        snprintf(name, sizeof name, "%.*s", (int)v.len, v.ptr);
        weir_error zerr = {0};
        if (weir__tz_load(name, k == 1 ? &z->from : &z->to, &zerr))
            return weir_error_set(err, WEIR_EPLAN, "CONVERT_TZ: %s", zerr.message);
    }
    *out = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_STRING, true), convert_tz_kernel, F_STRICT | F_MAYNULL);
    if (!*out)
        return nomem_b(err);
    (*out)->aux = z;
    return 0;
}

/* ---- CURRENT_TIMESTAMP & co, CURRENT_WATERMARK ---- */

/*
 * p0: 0 instant (TIMESTAMP_LTZ), 1 local wall time (TIMESTAMP), 2 local date (DATE), 3 local time of day in
 * whole seconds (TIME(0)). As in Flink's streaming mode, the clock is read per record (every function of
 * a record sees one reading); PROCTIME() (p1 = 1) reads it once per batch, the time the batch is computed.
 */
static int now_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)a, (void)act;
    const int64_t *per_row = NULL;
    int64_t once = 0;
    if (e->p1)
        once = weir__x_now(cx);
    else if (!(per_row = weir__x_now_rows(cx)))
        return oom(cx);
    for (uint32_t i = 0; i < n; i++) {
        int64_t now = per_row ? per_row[cx->rows ? cx->rows[i] : i] : once;
        if (e->p0)
            now = x_local(cx, now);
        if (e->p0 == 2)
            ((int32_t *)out->data)[i] = (int32_t)x_floordiv(now, WEIR__MS_PER_DAY);
        else if (e->p0 == 3)
            ((int32_t *)out->data)[i] = (int32_t)(x_floormod(now, WEIR__MS_PER_DAY) / 1000 * 1000);
        else
            ((int64_t *)out->data)[i] = now;
    }
    return 0;
}

static int bind_now(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    if (n != 0)
        return weir__bad_args(f, args, n, err);
    static const weir_type_id types[] = {WEIR_TYPE_TIMESTAMP_LTZ, WEIR_TYPE_TIMESTAMP, WEIR_TYPE_DATE,
                                         WEIR_TYPE_TIME};
    *out = weir__call_node(a, f, args, 0, tmake(types[f->param], false), now_kernel, F_SESSION);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = f->param;
    (*out)->p1 = !strcmp(f->name, "PROCTIME");
    return 0;
}

static int watermark_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)e, (void)a, (void)act;
    weir_ts w = cx->env->watermark;
    for (uint32_t i = 0; i < n; i++)
        ((int64_t *)out->data)[i] = w;
    if (w == WEIR_TS_MIN) {
        uint8_t *nl = x_nulls(cx, out);
        if (!nl)
            return oom(cx);
        memset(nl, 1, n);
    }
    return 0;
}

static int bind_watermark(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                          weir_error *err)
{
    if (n != 1 || !weir_type_is_time(args[0]->type.id) || args[0]->iv)
        return weir__bad_args(f, args, n, err);
    weir_type t = args[0]->type;
    t.nullable = true;
    /* The argument only names the rowtime column (and gives the type); it is not evaluated per row. */
    *out = weir__call_node(a, f, args, 0, t, watermark_kernel, F_SESSION | F_MAYNULL);
    return *out ? 0 : nomem_b(err);
}

/* ---- (t1, t2) OVERLAPS (t3, t4) ---- */

/*
 * OVERLAPS(t1, t2, t3, t4), as Flink (Calcite's expansion): an interval end
 * is start + interval; each pair is put in order (s <= e), and the periods
 * overlap when e0 >= s1 AND e1 >= s0 (touching ends count), with SQL's
 * three-valued logic for NULLs.
 */
static int bind_overlaps(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                         weir_error *err)
{
    if (n != 4)
        return weir__bad_args(f, args, n, err);
    weir_expr *t[4] = {args[0], args[1], args[2], args[3]}, *s[2], *e[2];
    for (int k = 0; k < 4; k += 2) {
        if (t[k]->iv || (!weir_type_is_time(t[k]->type.id) && !weir_type_is_date_time(t[k]->type.id)))
            return weir__bad_args(f, args, n, err);
        weir_expr *sum[2] = {t[k], t[k + 1]}, *lt, *cond[1], *val[1];
        if (t[k + 1]->iv && weir_expr_call(a, "+", sum, 2, &t[k + 1], err))
            return err->code;
        weir_expr *pair[2] = {t[k], t[k + 1]};
        if (weir_expr_call(a, "<", pair, 2, &lt, err))
            return err->code;
        cond[0] = lt, val[0] = t[k];
        if (weir_expr_case(a, cond, val, 1, t[k + 1], &s[k / 2], err))
            return err->code;
        val[0] = t[k + 1];
        if (weir_expr_case(a, cond, val, 1, t[k], &e[k / 2], err))
            return err->code;
    }
    weir_expr *c0[2] = {e[0], s[1]}, *c1[2] = {e[1], s[0]}, *both[2];
    if (weir_expr_call(a, ">=", c0, 2, &both[0], err) || weir_expr_call(a, ">=", c1, 2, &both[1], err))
        return err->code;
    return weir_expr_call(a, "AND", both, 2, out, err);
}

const xfunc weir__funcs_time[] = {
    {"EXTRACT", "EXTRACT(unit FROM timestamp|date|time|interval)", bind_extract, 0},
    {"YEAR", "YEAR(timestamp|date)", bind_extract, U_YEAR + 1},
    {"QUARTER", "QUARTER(timestamp|date)", bind_extract, U_QUARTER + 1},
    {"MONTH", "MONTH(timestamp|date)", bind_extract, U_MONTH + 1},
    {"WEEK", "WEEK(timestamp|date)", bind_extract, U_WEEK + 1},
    {"DAYOFYEAR", "DAYOFYEAR(timestamp|date)", bind_extract, U_DOY + 1},
    {"DAYOFMONTH", "DAYOFMONTH(timestamp|date)", bind_extract, U_DAY + 1},
    {"DAYOFWEEK", "DAYOFWEEK(timestamp|date)", bind_extract, U_DOW + 1},
    {"HOUR", "HOUR(timestamp|time)", bind_extract, U_HOUR + 1},
    {"MINUTE", "MINUTE(timestamp|time)", bind_extract, U_MINUTE + 1},
    {"SECOND", "SECOND(timestamp|time)", bind_extract, U_SECOND + 1},
    {"TIMESTAMPADD", "TIMESTAMPADD(unit, INT, timestamp|date|time)", bind_tsadd, 0},
    {"TIMESTAMPDIFF", "TIMESTAMPDIFF(unit, timestamp|date, timestamp|date)", bind_tsdiff, 0},
    {"$DATETIME_MINUS", "(a - b) unit", bind_dtminus, 0},
    {"TO_TIMESTAMP", "TO_TIMESTAMP(STRING [, STRING format])", bind_parse, 0},
    {"TO_DATE", "TO_DATE(STRING [, STRING format])", bind_parse, 2},
    {"UNIX_TIMESTAMP", "UNIX_TIMESTAMP([STRING [, STRING format]])", bind_parse, 1},
    {"TO_TIMESTAMP_LTZ",
     "TO_TIMESTAMP_LTZ(numeric [, 0|3]) or TO_TIMESTAMP_LTZ(STRING [, STRING format [, STRING zone]])", bind_to_ltz,
     0},
    {"DATE_FORMAT", "DATE_FORMAT(timestamp|date|time, STRING format)", bind_format, 0},
    {"FROM_UNIXTIME", "FROM_UNIXTIME(BIGINT [, STRING format])", bind_format, 1},
    {"CONVERT_TZ", "CONVERT_TZ(STRING, STRING from_zone, STRING to_zone)", bind_convert_tz, 0},
    {"CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP", bind_now, 0},
    {"NOW", "NOW()", bind_now, 0},
    {"PROCTIME", "PROCTIME()", bind_now, 0},
    {"CURRENT_ROW_TIMESTAMP", "CURRENT_ROW_TIMESTAMP()", bind_now, 0},
    {"LOCALTIMESTAMP", "LOCALTIMESTAMP", bind_now, 1},
    {"CURRENT_DATE", "CURRENT_DATE", bind_now, 2},
    {"CURRENT_TIME", "CURRENT_TIME", bind_now, 3},
    {"LOCALTIME", "LOCALTIME", bind_now, 3},
    {"CURRENT_WATERMARK", "CURRENT_WATERMARK(rowtime)", bind_watermark, 0},
    {"OVERLAPS", "(start, end|interval) OVERLAPS (start, end|interval)", bind_overlaps, 0},
    {NULL, NULL, NULL, 0},
};
