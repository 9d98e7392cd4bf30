#!/usr/bin/env python3
"""Randomized differential test of INTERVAL qualifiers: literals of every
qualifier SQL has (YEAR, YEAR TO MONTH, MONTH, DAY, DAY TO HOUR, DAY TO
MINUTE, DAY TO SECOND, HOUR, HOUR TO MINUTE, HOUR TO SECOND, MINUTE, MINUTE
TO SECOND, SECOND; leading and fractional precisions, the leading field up
to the largest its precision allows; a sign in the string, before it, or
both), literals whose leading field is too wide for their precision (refused,
as Flink's validator refuses them) and table columns declared with a random qualifier,
read from JSON as their number (milliseconds or months).

Each case is a few rows (an id, a TIMESTAMP(3), a day-time and a year-month
interval column, some NULL) and a projection, written to a print sink as
text: each literal as a string, CAST to another qualifier of its kind and
as a string, TIMESTAMP + and - it, compared with the column of its kind,
added to it; the columns as strings and added to the timestamp.

The oracle shares no code with weir: the literal's value is computed from
the fields it was made of; a day-time interval prints as sign, days,
hh:mm:ss.fff, a year-month one as sign, years, '-', two-digit months
(Flink's interval to string, whatever the qualifier); a TIMESTAMP plus
months keeps the day, clamped to the month's last (Python's calendar);
CAST(TIMESTAMP(3) AS STRING) is yyyy-MM-dd HH:mm:ss.SSS.

Usage: interval_qualifier_diff.py --weir BIN [--cases N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_IQDIFF_CASES (cases), WEIR_IQDIFF_CASE (one case).
"""

import calendar
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

YM = ["YEAR", "YEAR TO MONTH", "MONTH"]
DT = ["DAY", "DAY TO HOUR", "DAY TO MINUTE", "DAY TO SECOND", "HOUR", "HOUR TO MINUTE", "HOUR TO SECOND",
      "MINUTE", "MINUTE TO SECOND", "SECOND"]
UNIT_MS = {"DAY": 86400000, "HOUR": 3600000, "MINUTE": 60000, "SECOND": 1000}
ORDER = ["DAY", "HOUR", "MINUTE", "SECOND"]
EPOCH = datetime.datetime(1970, 1, 1)


def qualifier_type(rng, q):
    """q written as a column type, with random precisions Flink takes."""
    first, _, last = q.partition(" TO ")
    lead = first
    if rng.random() < 0.5:
        # Flink takes a day-time leading precision of at most 3 (it holds
        # every day-time interval as INTERVAL SECOND(3)), a year-month one
        # up to 10
        lead += "(%d)" % rng.choice([1, 2, 4] if first in ("YEAR", "MONTH") else [1, 2, 3])
    if not last:
        return "INTERVAL " + lead
    tail = last
    if last == "SECOND" and rng.random() < 0.5:
        tail += "(%d)" % rng.choice([0, 1, 2, 4, 6, 9])
    return "INTERVAL %s TO %s" % (lead, tail)


def literal(rng, q):
    """(SQL text, value: months or milliseconds) of a random literal of qualifier q."""
    first, _, last = q.partition(" TO ")
    # the leading field has at most as many digits as the leading precision
    # (2 unless written); sometimes the precision is written, 1 to 3, and
    # the field is often at its largest (10^p - 1)
    wide = rng.random() < 0.4
    prec = rng.choice([1, 2, 3]) if wide else 2
    top = 10 ** prec - 1
    # (years stay below 300: a timestamp of 1970 to 2033 plus or minus them stays after 1600)
    if first == "YEAR":
        top = min(top, 299)
    lead = top if rng.random() < 0.3 else rng.randint(0, top)
    lead_q = first + ("(%d)" % prec if wide else "")
    neg_in, neg_out = rng.random() < 0.3, rng.random() < 0.2
    if q in YM:
        if q == "YEAR TO MONTH":
            m = rng.randint(0, 11)
            text, v = "%d-%d" % (lead, m) if rng.random() < 0.5 else "%d-%02d" % (lead, m), lead * 12 + m
            qual = lead_q + " TO MONTH"
        else:
            text, v = str(lead), lead * (12 if q == "YEAR" else 1)
            qual = lead_q
    else:
        units = ORDER[ORDER.index(first):ORDER.index(last or first) + 1]
        v, parts = lead * UNIT_MS[first], [str(lead)]
        for u in units[1:]:
            f = rng.randint(0, 23 if u == "HOUR" else 59)
            v += f * UNIT_MS[u]
            parts.append(("%02d" if rng.random() < 0.7 else "%d") % f)
        text = parts[0]
        for u, p in zip(units[1:], parts[1:]):
            text += (" " if u == "HOUR" else ":") + p
        if units[-1] == "SECOND" and rng.random() < 0.6:
            digits = rng.randint(1, 3)
            frac = rng.randint(0, 10 ** digits - 1)
            text += ".%0*d" % (digits, frac)
            v += frac * 10 ** (3 - digits)
        qual = lead_q + ((" TO " + last + ("(3)" if last == "SECOND" and rng.random() < 0.3 else "")) if last else "")
    if neg_in:
        text = "-" + text
    sign = -1 if neg_in != neg_out else 1
    return "INTERVAL %s'%s' %s" % ("-" if neg_out else "", text, qual), sign * v


def too_wide(rng):
    """(SQL text, expected message part) of a literal whose leading field
    has more digits than its leading precision (2 unless written): Flink's
    validator refuses it ("Interval field value 100 exceeds precision of
    DAY(2) field"), with the sign of the string."""
    q = rng.choice(YM + DT)
    first, _, last = q.partition(" TO ")
    prec = rng.choice([1, 2, 3]) if rng.random() < 0.5 else None
    p = prec or 2
    lead = rng.randint(10 ** p, 10 ** (p + 1) - 1) if rng.random() < 0.7 else 10 ** p
    text = str(lead)
    units = ORDER[ORDER.index(first):ORDER.index(last) + 1] if first in ORDER and last else []
    for u in units[1:]:
        text += (" " if u == "HOUR" else ":") + "%02d" % rng.randint(0, 23 if u == "HOUR" else 59)
    if q == "YEAR TO MONTH":
        text += "-%d" % rng.randint(0, 11)
    neg = rng.random() < 0.3
    qual = first + ("(%d)" % prec if prec else "") + (" TO " + last if last else "")
    sql = "INTERVAL '%s%s' %s" % ("-" if neg else "", text, qual)
    return sql, "field value %s%d exceeds precision of %s(%d) field" % ("-" if neg else "", lead, first, p)


def fmt_dt(ms):
    sign = "+" if ms >= 0 else "-"
    v = abs(ms)
    d, v = divmod(v, 86400000)
    h, v = divmod(v, 3600000)
    m, v = divmod(v, 60000)
    s, f = divmod(v, 1000)
    return "%s%d %02d:%02d:%02d.%03d" % (sign, d, h, m, s, f)


def fmt_ym(mo):
    sign = "+" if mo >= 0 else "-"
    y, m = divmod(abs(mo), 12)
    return "%s%d-%02d" % (sign, y, m)


def fmt_iv(ym, v):
    if v is None:
        return "null"
    return fmt_ym(v) if ym else fmt_dt(v)


def to_dt(ts_ms):
    return EPOCH + datetime.timedelta(milliseconds=ts_ms)


def fmt_ts(d):
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (d.microsecond // 1000)


def add(ts_ms, ym, v):
    """The timestamp ts_ms plus the interval v (months or ms), as text."""
    if ts_ms is None or v is None:
        return "null"
    d = to_dt(ts_ms)
    if not ym:
        return fmt_ts(d + datetime.timedelta(milliseconds=v))
    y, m = divmod(d.year * 12 + d.month - 1 + v, 12)
    day = min(d.day, calendar.monthrange(y, m + 1)[1])
    return fmt_ts(d.replace(year=y, month=m + 1, day=day))


def bool_text(b):
    return "null" if b is None else ("true" if b else "false")


def run_case(case):
    rng = case.rng
    xq, yq = rng.choice(DT), rng.choice(YM)
    xt, yt = qualifier_type(rng, xq), qualifier_type(rng, yq)
    rows = []
    for i in range(rng.randint(1, 6)):
        ts = rng.randint(0, 2 * 10 ** 12) if rng.random() < 0.9 else None  # 1970 to 2033
        x = rng.randint(-10 ** 10, 10 ** 10) if rng.random() < 0.85 else None
        y = rng.randint(-600, 600) if rng.random() < 0.85 else None
        rows.append((i, ts, x, y))
    lits = []
    for _ in range(rng.randint(1, 4)):
        q = rng.choice(YM + DT)
        text, v = literal(rng, q)
        other = rng.choice(YM if q in YM else DT)
        lits.append((q in YM, text, v, qualifier_type(rng, other)))
    case.note = "x %s, y %s; %s" % (xt, yt, "; ".join(t for _, t, _, _ in lits))
    sel, want_cols = ["id", "CAST(x AS STRING)", "CAST(y AS STRING)", "CAST(ts + x AS STRING)",
                      "CAST(ts - y AS STRING)"], []
    for ym, text, v, cast_to in lits:
        col = "y" if ym else "x"
        sel += ["CAST(%s AS STRING)" % text, "CAST(CAST(%s AS %s) AS STRING)" % (text, cast_to),
                "CAST(ts + %s AS STRING)" % text, "CAST(ts - %s AS STRING)" % text,
                "%s > %s" % (text, col), "%s = %s" % (col, text), "CAST(%s + %s AS STRING)" % (col, text)]
    want = []
    for i, ts, x, y in rows:
        r = [str(i), fmt_iv(False, x), fmt_iv(True, y), add(ts, False, x),
             add(ts, True, None if y is None else -y)]
        for ym, text, v, cast_to in lits:
            c = y if ym else x
            r += [fmt_iv(ym, v), fmt_iv(ym, v), add(ts, ym, v), add(ts, ym, -v),
                  bool_text(None if c is None else v > c), bool_text(None if c is None else c == v),
                  fmt_iv(ym, None if c is None else c + v)]
        want.append(tuple(r))
    case.write("t.json", "".join(json.dumps({"id": i, "ts": None if ts is None else fmt_ts(to_dt(ts)),
                                             "x": x, "y": y}) + "\n" for i, ts, x, y in rows))
    sink = ", ".join("c%d %s" % (k, "INT" if k == 0 else "BOOLEAN" if " > " in e or " = " in e else "STRING")
                     for k, e in enumerate(sel))
    case.write("job.sql", "\n".join([
        "CREATE TABLE t (id INT, ts TIMESTAMP(3), x %s, y %s)" % (xt, yt),
        "  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');",
        "CREATE TABLE o (%s) WITH ('connector' = 'print', 'print-identifier' = 'o');" % sink,
        "INSERT INTO o SELECT %s FROM t;" % ", ".join(sel), ""]))
    p = case.run_weir(["run", "job.sql", "-D", "parallelism.default=%d" % rng.choice([1, 2])])
    if p.returncode:
        return [diffrun.failed_run(p)]
    got, problems = diffrun.print_inserts(p.stdout)
    case.counts["literals"] += len(lits)
    problems += diffrun.multiset_problems("o", want, [tuple(r) for r in got.get("o", [])])
    if rng.random() < 0.3:
        # the same job with one literal too wide for its leading precision
        bad, msg = too_wide(rng)
        case.note += "; refused %s" % bad
        case.write("bad.sql", "\n".join([
            "CREATE TABLE t (id INT, ts TIMESTAMP(3), x %s, y %s)" % (xt, yt),
            "  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');",
            "SELECT id, CAST(%s AS STRING) FROM t;" % bad, ""]))
        p = case.run_weir(["run", "bad.sql"])
        case.counts["refusals"] += 1
        if p.returncode != 3 or msg not in p.stderr:
            problems.append("%s: expected exit 3 with '%s', got exit %d: %s"
                            % (bad, msg, p.returncode, p.stderr.strip()[-300:]))
    return problems


if __name__ == "__main__":
    sys.exit(diffrun.main("interval_qualifier_diff", run_case, jobs_env="WEIR_IQDIFF_CASES", jobs=40,
                          asan_jobs=8, one_env="WEIR_IQDIFF_CASE"))
