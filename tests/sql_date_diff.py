#!/usr/bin/env python3
"""Randomized differential test of DATE and TIME values against Python's
datetime: random dates (1900-2100), times of day and timestamps through CSV
in and out, CAST, DATE/TIME +/- INTERVAL, TIMESTAMPADD, TIMESTAMPDIFF,
(a - b) unit of DATEs, TIMEs and TIMESTAMPs (and of TIMESTAMP_LTZs) as INTERVALs,
EXTRACT (ISOYEAR included), FLOOR/CEIL, DATE_FORMAT, comparisons, GROUP BY a DATE column and
DATE/TIME values in JSON_OBJECT/JSON_ARRAY.
The oracle follows Flink's documented rules with datetime arithmetic only.
"""
import calendar
import collections
import datetime as dt
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

EPOCH = dt.date(1970, 1, 1)
DAY_MS = 86400000


def rand_date(rng):
    return EPOCH + dt.timedelta(days=rng.randint((dt.date(1900, 1, 1) - EPOCH).days, (dt.date(2100, 12, 31) - EPOCH).days))


def time_text(ms):
    """TIME as Flink's formats write it: HH:mm:ss and the fraction without trailing zeros."""
    s = "%02d:%02d:%02d" % (ms // 3600000, ms // 60000 % 60, ms // 1000 % 60)
    f = ms % 1000
    return s + ("." + ("%03d" % f).rstrip("0") if f else "")


def add_months(d, m):
    total = d.year * 12 + d.month - 1 + m
    y, mo = divmod(total, 12)
    return dt.date(y, mo + 1, min(d.day, calendar.monthrange(y, mo + 1)[1]))


def months_between(end, start):
    """Flink's month count from date start to date end."""
    if end < start:
        return -months_between(start, end)
    m = 0
    while add_months(start, m + 1) <= end:
        m += 1
    return m


def java_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def dow_sunday1(d):
    return d.isoweekday() % 7 + 1


def run_case(case):
    rng = case.rng
    n = rng.randint(20, 120)
    rows = []
    for i in range(n):
        d = rand_date(rng) if rng.random() > 0.05 else None
        d2 = rand_date(rng) if rng.random() < 0.5 else (add_months(d, rng.randint(-30, 30)) if d else rand_date(rng))
        tm = rng.randrange(DAY_MS) if rng.random() > 0.05 else None
        k = rng.randint(-400, 400)
        # TIMESTAMPs for (e - s) unit: s = d at tm, e = d2 at another time of day
        e_ms = rng.choice([0, rng.randrange(DAY_MS), tm if tm is not None else 0])
        rows.append((i, d, d2, tm, k, e_ms))
    # per-case interval literals
    mo_lit = rng.randint(-40, 40)
    hours_lit = rng.randint(-99, 99)  # HOUR's default leading precision is 2
    t_iv_ms = rng.randint(-3 * DAY_MS, 3 * DAY_MS) // 1000 * 1000
    sign = "-" if t_iv_ms < 0 else ""
    a = abs(t_iv_ms) // 1000
    t_iv = "INTERVAL '%s%d %02d:%02d:%02d' DAY TO SECOND" % (sign, a // 86400, a // 3600 % 24, a // 60 % 60, a % 60)
    pg = rng.choice(["yyyy-MM-dd", "dd/MM/yyyy", "yyyyMMdd EEE", "D yy M d"])
    csv = []
    for (i, d, d2, tm, k, e_ms) in rows:
        csv.append("%d,%s,%s,%s,%d,%s %s" % (i, d.isoformat() if d else "", d2.isoformat(),
                                             time_text(tm) if tm is not None else "", k, d2.isoformat(),
                                             time_text(e_ms)))
    case.write("t.csv", "\n".join(csv) + "\n")
    case.write("job.sql", """
CREATE TABLE t (id INT, d DATE, d2 DATE, tm TIME(3), k INT, e TIMESTAMP(3),
  s AS CAST(d AS TIMESTAMP(3)) + (tm - TIME '00:00:00') HOUR TO SECOND,
  sl AS CAST(CAST(d AS TIMESTAMP(3)) + (tm - TIME '00:00:00') HOUR TO SECOND AS TIMESTAMP_LTZ(3)),
  el AS CAST(e AS TIMESTAMP_LTZ(3)))
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (id INT, d DATE, ds STRING, tms STRING, ts STRING, back DATE, y BIGINT, q BIGINT, mo BIGINT,
  w BIGINT, dy BIGINT, dw BIGINT, doy BIGINT, h BIGINT, mi BIGINT, s BIGINT, msx BIGINT,
  plus_mo DATE, minus_h DATE, tplus TIME(3), add_d DATE, add_mo DATE, diff_d INT, diff_mo INT, diff_y INT,
  fl DATE, ce DATE, fmt STRING, lt BOOLEAN, eq BOOLEAN, tcmp BOOLEAN, isoy BIGINT,
  mdays BIGINT, mmon BIGINT, tmon BIGINT, back_e BOOLEAN, tmin BIGINT, ldays BIGINT, lsec BIGINT, back_l BOOLEAN)
  WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT id, d, CAST(d AS STRING), CAST(tm AS STRING), CAST(CAST(d AS TIMESTAMP(3)) AS STRING),
  CAST(CAST(d AS STRING) AS DATE), YEAR(d), QUARTER(d), MONTH(d), WEEK(d), DAYOFMONTH(d), DAYOFWEEK(d),
  DAYOFYEAR(d), HOUR(tm), MINUTE(tm), SECOND(tm), EXTRACT(MILLISECOND FROM tm),
  d + INTERVAL '%d' MONTH, d - INTERVAL '%d' HOUR, tm + %s, TIMESTAMPADD(DAY, k, d), TIMESTAMPADD(MONTH, k, d),
  TIMESTAMPDIFF(DAY, d, d2), TIMESTAMPDIFF(MONTH, d, d2), TIMESTAMPDIFF(YEAR, d, d2),
  FLOOR(d TO MONTH), CEIL(d TO YEAR), DATE_FORMAT(d, '%s'), d < d2, d = d2, tm >= TIME '12:00:00',
  EXTRACT(ISOYEAR FROM d),
  EXTRACT(DAY FROM (d2 - d) DAY), 12 * EXTRACT(YEAR FROM (d2 - d) YEAR TO MONTH) + EXTRACT(MONTH FROM (d2 - d) MONTH),
  12 * EXTRACT(YEAR FROM (e - s) YEAR) + EXTRACT(MONTH FROM (e - s) YEAR TO MONTH), s + (e - s) SECOND = e,
  EXTRACT(MINUTE FROM (tm - TIME '12:00:00') MINUTE),
  EXTRACT(DAY FROM (el - sl) DAY TO SECOND), EXTRACT(SECOND FROM (el - sl) MINUTE TO SECOND), sl + (el - sl) SECOND = el
FROM t;
""" % (mo_lit, hours_lit, t_iv, pg))
    case.note = "%d rows, month literal %d, hours %d, %s, pattern %s" % (n, mo_lit, hours_lit, t_iv, pg)
    par = rng.choice([1, 2, 4])
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par))
    if p.returncode:
        return [diffrun.failed_run(p)]
    got = []
    for name in sorted(os.listdir(case.path("out"))):
        if not name.startswith("."):
            with open(case.path("out", name)) as f:
                got += [line.rstrip("\n") for line in f if line.strip()]

    def fmt_pattern(d):
        out = pg.replace("yyyy", "%Y").replace("yy", "%y").replace("MM", "%m").replace("dd", "%d")
        out = out.replace("EEE", "%a").replace("D", "%j")
        out = d.strftime(out)
        if pg == "D yy M d":
            parts = out.split(" ")
            out = "%d %s %d %d" % (int(parts[0]), parts[1], d.month, d.day)
        return out

    def b(x):
        return "true" if x else "false"

    want = []
    def ts_months(end, start):
        """Whole months from datetime start to end as Flink (Calcite) counts them: the months of the
        dates, one less when the end's date is the start's moved that far but at an earlier time of day."""
        m = months_between(end.date(), start.date())
        if add_months(start.date(), m) == end.date() and end.time() < start.time():
            m -= 1
        return m

    def java_rem(a, b):
        return a - java_div(a, b) * b

    for (i, d, d2, tm, k, e_ms) in rows:
        if tm is None:
            tcols = ["", "", "", "", ""]
        else:
            tcols = [tm // 3600000, tm // 60000 % 60, tm // 1000 % 60, tm % 60000,
                     time_text((tm + t_iv_ms) % DAY_MS)]
        vals = [i]
        if d is None:
            vals += ["", ""]
        else:
            vals += [d.isoformat(), d.isoformat()]
        vals.append("" if tm is None else "%02d:%02d:%02d.%03d" % (tm // 3600000, tm // 60000 % 60,
                                                                   tm // 1000 % 60, tm % 1000))
        if d is None:
            vals += [""] * 9
        else:
            iso = d.isocalendar()
            vals += [d.isoformat() + " 00:00:00.000", d.isoformat(), d.year, (d.month - 1) // 3 + 1, d.month,
                     iso[1], d.day, dow_sunday1(d), d.timetuple().tm_yday]
        vals += [""] * 4 if tm is None else tcols[:4]
        if d is None:
            vals += ["", ""]
        else:
            vals += [add_months(d, mo_lit).isoformat(),
                     (d - dt.timedelta(days=java_div(hours_lit, 24))).isoformat()]
        vals.append("" if tm is None else tcols[4])
        if d is None:
            vals += [""] * 10
        else:
            fl = d.replace(day=1)
            ce = d if (d.month, d.day) == (1, 1) else dt.date(d.year + 1, 1, 1)
            mb = months_between(d2, d)
            vals += [(d + dt.timedelta(days=k)).isoformat(), add_months(d, k).isoformat(), (d2 - d).days, mb,
                     java_div(mb, 12), fl.isoformat(), ce.isoformat(), fmt_pattern(d), b(d < d2), b(d == d2)]
        vals.append("" if tm is None else b(tm >= 12 * 3600000))
        vals.append("" if d is None else d.isocalendar()[0])
        # (d2 - d) DAY / MONTH, (e - s) months and milliseconds, (tm - 12:00) MINUTE
        if d is None:
            vals += ["", ""]
        else:
            vals += [(d2 - d).days, months_between(d2, d)]
        if d is None or tm is None:
            vals += ["", ""]
        else:
            start = dt.datetime.combine(d, dt.time()) + dt.timedelta(milliseconds=tm)
            end = dt.datetime.combine(d2, dt.time()) + dt.timedelta(milliseconds=e_ms)
            vals += [ts_months(end, start), "true"]
        vals.append("" if tm is None else java_rem(java_div(tm - 12 * 3600000, 60000), 60))
        # (el - sl) DAY TO SECOND of the same instants as TIMESTAMP_LTZ (the session zone is UTC)
        if d is None or tm is None:
            vals += ["", "", ""]
        else:
            ms = (end - start) // dt.timedelta(milliseconds=1)
            vals += [java_div(ms, DAY_MS), java_rem(java_div(ms, 1000), 60), "true"]
        want.append(",".join(str(v) for v in vals))
    problems = diffrun.multiset_problems("functions (parallelism %d)" % par, want, got)
    if problems:
        return problems
    # GROUP BY a DATE column: the final rows of the changelog
    case.write("g.sql", """
CREATE TABLE t (id INT, d DATE, d2 DATE, tm TIME(3), k INT, e TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT d2, COUNT(*), MAX(tm), MIN(d) FROM t GROUP BY d2;
""")
    p = case.run_weir(["run", "g.sql"] + diffrun.engine_options(case, par))
    if p.returncode:
        return [diffrun.failed_run(p)]
    final = collections.Counter()
    for line in p.stdout.splitlines():
        line = line.strip()
        if "[" not in line:
            continue
        line = line.split("> ", 1)[-1] if "> " in line else line
        kind, body = line[:2], line[3:-1]
        if kind in ("+I", "+U"):
            final[body] += 1
        elif kind in ("-U", "-D"):
            final[body] -= 1
    final = +final
    groups = collections.defaultdict(list)
    for r in rows:
        groups[r[2]].append(r)

    def java_time(ms):
        s = "%02d:%02d" % (ms // 3600000, ms // 60000 % 60)
        if ms % 60000:
            s += ":%02d" % (ms // 1000 % 60)
        if ms % 1000:
            s += ".%03d" % (ms % 1000)
        return s
    want_g = []
    for d2, rs in groups.items():
        tms = [r[3] for r in rs if r[3] is not None]
        ds = [r[1] for r in rs if r[1] is not None]
        want_g.append("%s, %d, %s, %s" % (d2.isoformat(), len(rs), java_time(max(tms)) if tms else "null",
                                          min(ds).isoformat() if ds else "null"))
    problems = diffrun.multiset_problems("GROUP BY a DATE (parallelism %d)" % par, want_g, final)
    if problems:
        return problems
    # JSON constructors: DATE as "yyyy-MM-dd", TIME as "HH:mm:ss" (no fraction)
    case.write("j.sql", """
CREATE TABLE t (id INT, d DATE, d2 DATE, tm TIME(3), k INT, e TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, JSON_OBJECT('d' VALUE d, 't' VALUE tm), JSON_ARRAY(d2, tm, d) FROM t;
""")
    p = case.run_weir(["run", "j.sql"] + diffrun.engine_options(case, par))
    if p.returncode:
        return [diffrun.failed_run(p)]
    got_j = [line.strip().split("> ", 1)[-1] for line in p.stdout.splitlines() if "[" in line]

    def jtext(x, t):
        if x is None:
            return None
        if t:
            return '"%02d:%02d:%02d"' % (x // 3600000, x // 60000 % 60, x // 1000 % 60)
        return '"%s"' % x.isoformat()
    want_j = []
    for (i, d, d2, tm, k, _e) in rows:
        obj = '{"d":%s,"t":%s}' % (jtext(d, False) or "null", jtext(tm, True) or "null")
        arr = [v for v in (jtext(d2, False), jtext(tm, True), jtext(d, False)) if v is not None]
        want_j.append("+I[%d, %s, [%s]]" % (i, obj, ",".join(arr)))
    return diffrun.multiset_problems("JSON_OBJECT/JSON_ARRAY (parallelism %d)" % par, want_j, got_j)


if __name__ == "__main__":
    sys.exit(diffrun.main("sql_date_diff", run_case, jobs_env="WEIR_DATE_DIFF_CASES", jobs=8, asan_jobs=2,
                          one_env="WEIR_DATE_DIFF_CASE"))
