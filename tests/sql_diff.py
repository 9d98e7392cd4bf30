#!/usr/bin/env python3
"""Randomized differential test of weir's SQL window aggregations.

Each *job* is one random input stream (out of order, ties, negative times,
very late rows, several keys, NULLs) written as JSON lines, read by a few
tables with different watermark delays, and a batch of random window
aggregations over them (TUMBLE, HOP, CUMULATE, SESSION; WHERE before and
under the window; projections and computed columns; every aggregate of
docs/aggregates.md; grouping by the key or not; HAVING; cascades), run by
`weir run` at a random parallelism (1/2/4), batch size (1/7/1024),
allowed lateness, table.optimizer.agg-phase-strategy (AUTO, ONE_PHASE,
TWO_PHASE or unset) and table.optimizer.distinct-agg.split.enabled. Each query is one *case*.

The oracle shares no code with weir. A row-at-a-time model of the
documented semantics, written here, decides which rows each window
accepts:
  - per table (one file = one split) W = max(ts seen) - delay, starting at
    -infinity, updated AFTER each row, from every row (before any WHERE);
  - a row joins each of its windows with end + L > W (W before the row);
    a row no window accepts is late;
  - sessions (per key): [ts, ts + gap); live sessions (end + L > W) that
    intersect or touch it (a.start <= b.end and a.end >= b.start) merge
    with it, and a row that merges into a live session is never late;
  - end of input: every window fires; windows without rows emit nothing.
SQLite then computes each window's aggregates of the accepted rows as a
plain GROUP BY (a few functions get a small finishing step in Python:
DECIMAL average rounding, variance, percentile). weir's output (a
changelog when L > 0) is materialized (+I/+U add a row, -U/-D remove it)
and compared: exact for integers, strings, timestamps and DECIMAL, with a
tolerance for DOUBLE. Each sink subtask's changelog must be one on its
own: a group (key and window) gets a row only while it holds none, and
loses only the row it holds. Late rows go to a late-row table in some
jobs, and their (watermark, lateness) multiset is compared too.

FIRST_VALUE / LAST_VALUE follow docs/windows.md: arrival order, slices in
time order for HOP and CUMULATE, and in a cumulating period a row whose
step already fired joins the running accumulator on arrival. They are not
generated where the order is not specified (sessions; HOP and CUMULATE
with allowed lateness).

Features (--features / WEIR_SQLDIFF_FEATURES, "-name" leaves one out):
view (projections, computed columns, WHERE in a view), where (WHERE under
the window table function), having, cascade (GROUP BY the window bounds
again, or a TUMBLE over window_time), group-window-time (the inner query
of that TUMBLE cascade also groups by window_time, as Flink's docs write
it), late (a late-row table), late-columns (its rows carry id, k, v of the
input row), offset (window offsets), legacy (GROUP BY TUMBLE(ts, ...)),
millisecond (INTERVAL 'n' MILLISECOND), grouping-sets (a keyed fixed-window
aggregation grouped by ROLLUP(k), CUBE(k), GROUPING SETS ((k), ()) or a
nested spelling of them such as GROUPING SETS (ROLLUP(k)), with
GROUPING(k): the oracle adds the rows of the set () grouped by the window
alone), agg-filter (FILTER (WHERE ...) on aggregates, MIN/MAX(DISTINCT x)),
agg-distinct (SUM/AVG/VAR_*/STDDEV_*/APPROX_PERCENTILE(DISTINCT x)),
listagg (LISTAGG(s, ';'), compared as a multiset of the joined values),
split-aggs (in half the jobs with the distinct split on: no allowed lateness
and mostly aggregates the split takes, a COUNT(DISTINCT) among them, so that
window aggregations are split), hint-options (some tables are declared over decoy.json, a third of the
rows, and every query reads them through a view whose FROM carries
OPTIONS('path' = 'in.json'): the oracle sees the rows of in.json, so a
hint that did not replace the table's path gives other results), emit
(table.exec.emit.early-fire with a delay of 0 - every record - or of
processing time, and table.exec.emit.late-fire per late record or every
delay - 5 ms, or 1 h, which fires when the window is cleaned up or the
input ends -, with allowed lateness: each firing retracts the one before,
so the folded changelog must be the on-time result; with early firings
windows are not sliced and FIRST_VALUE/LAST_VALUE follow arrival order).

Runs on the shared differential driver (tests/support/diffrun.py): a job
is its case; each failing query runs again alone.
Usage: sql_diff.py --weir BIN [--jobs N] [--seed S] [--job I] [--out DIR]
[--workers N] [--max-queries N] [--features F]
Environment: WEIR_SEED (seed), WEIR_SQLDIFF_JOBS (default 120, 24 under
ASan), WEIR_SQLDIFF_JOB (one job of the seed), WEIR_SQLDIFF_QUERIES
(default 40), WEIR_SQLDIFF_FEATURES, WEIR_SQLDIFF_OUT (where failing jobs
are kept), WEIR_DIFF_WORKERS (jobs at once).
"""

import bisect
import calendar
import collections
import math
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from decimal import Decimal, ROUND_HALF_UP

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

NEG_INF = float("-inf")


# --------------------------------------------------------------------------
# Input streams

def gen_rows(rng):
    """A random out-of-order stream: list of dicts in file (arrival) order."""
    n = rng.choice([0, 1, 3, 8, 20, 40, 80, 150])
    nkeys = rng.choice([1, 2, 3, 5])
    keys = ["a", "b", "c", "dd", "e"][:nkeys]
    base = rng.choice([0, -7000, 3000, -60000, 1_700_000_000_000])
    disorder = rng.choice([0, 300, 1500, 4000])
    cursor = base
    rows = []
    for i in range(n):
        cursor += rng.choice([0, 0, 1, 250, 500, 500, 1000, 1499, 2000])
        ts = cursor
        r = rng.random()
        if r < 0.05:
            ts -= rng.randint(5000, 40000)          # very late
        elif r < 0.5 and disorder:
            ts -= rng.randint(0, disorder)           # out of order
        if rng.random() < 0.5:                       # near a boundary
            ts = (ts // 500) * 500 + rng.choice([-1, 0, 0, 0, 1])
        row = {
            "id": i + 1,
            "k": None if rng.random() < 0.1 else rng.choice(keys),
            "ts": ts,
            "v": None if rng.random() < 0.15 else rng.randint(-5, 20),
            "d": None if rng.random() < 0.15 else rng.randint(-10000, 10000) / 100.0,
            "m": None if rng.random() < 0.15 else rng.randint(-100000, 100000),  # cents
            "s": None if rng.random() < 0.15 else rng.choice(["x", "y", "zz", "", "Ab", "b"]),
        }
        rows.append(row)
    return rows


def json_line(r):
    def j(x):
        if x is None:
            return "null"
        if isinstance(x, str):
            return '"' + x + '"'
        return repr(x)
    m = "null" if r["m"] is None else dec_cents(r["m"])
    return ('{"id":%d,"k":%s,"ts_ms":%d,"v":%s,"d":%s,"m":%s,"s":%s}'
            % (r["id"], j(r["k"]), r["ts"], j(r["v"]), j(r["d"]), m, j(r["s"])))


def dec_cents(c):
    sign = "-" if c < 0 else ""
    c = abs(c)
    return "%s%d.%02d" % (sign, c // 100, c % 100)


# --------------------------------------------------------------------------
# Expressions: each renders to weir (Flink) SQL and to SQLite, with a type.
# Types: int, dbl, dec (DECIMAL(10,2); in SQLite integer cents), str.

class Ex:
    def __init__(self, weir, lite, typ):
        self.weir, self.lite, self.typ = weir, lite, typ


def col(name, typ):
    return Ex(name, name, typ)


BASE_COLS = {"v": "int", "d": "dbl", "m": "dec", "s": "str", "k": "str"}


def gen_computed(rng, i):
    """A computed column over the table's columns: (name, Ex)."""
    choices = [
        lambda: Ex("v * 2 + 1", "v * 2 + 1", "int"),
        lambda: Ex("ABS(v) - 3", "abs(v) - 3", "int"),
        lambda: Ex("MOD(v, 3)", "(v % 3)", "int"),
        lambda: Ex("COALESCE(v, -1)", "coalesce(v, -1)", "int"),
        lambda: Ex("CASE WHEN v > 5 THEN v ELSE 0 - v END",
                   "CASE WHEN v > 5 THEN v ELSE 0 - v END", "int"),
        lambda: Ex("CASE WHEN d > 0 THEN v END", "CASE WHEN d > 0 THEN v END", "int"),
        lambda: Ex("CHAR_LENGTH(s)", "length(s)", "int"),
        lambda: Ex("d * 2", "d * 2", "dbl"),
        lambda: Ex("d + v", "d + v", "dbl"),
        lambda: Ex("CAST(v AS DOUBLE) / 4", "CAST(v AS REAL) / 4", "dbl"),
        lambda: Ex("UPPER(s)", "upper(s)", "str"),
        lambda: Ex("CONCAT(k, s)", "(k || s)", "str"),
    ]
    return ("e%d" % i, rng.choice(choices)())


def gen_cond(rng, cols, depth=0):
    """A boolean condition over the row columns `cols` (name -> type)."""
    ints = [c for c, t in cols.items() if t == "int"]
    dbls = [c for c, t in cols.items() if t == "dbl"]
    strs = [c for c, t in cols.items() if t == "str"]
    r = rng.random()
    if depth < 1 and r < 0.2:
        a = gen_cond(rng, cols, depth + 1)
        b = gen_cond(rng, cols, depth + 1)
        op = rng.choice(["AND", "OR"])
        return Ex("(%s %s %s)" % (a.weir, op, b.weir), "(%s %s %s)" % (a.lite, op, b.lite), "bool")
    if depth < 1 and r < 0.25:
        a = gen_cond(rng, cols, depth + 1)
        return Ex("NOT (%s)" % a.weir, "NOT (%s)" % a.lite, "bool")
    kind = rng.choice(["cmp", "cmp", "null", "between", "in", "dcmp", "str"])
    if kind in ("cmp", "between", "in", "null") and ints:
        c = rng.choice(ints)
        if kind == "cmp":
            op = rng.choice(["<", "<=", ">", ">=", "=", "<>"])
            x = rng.randint(-3, 15)
            return Ex("%s %s %d" % (c, op, x), "%s %s %d" % (c, op, x), "bool")
        if kind == "between":
            a = rng.randint(-3, 10)
            b = a + rng.randint(0, 8)
            return Ex("%s BETWEEN %d AND %d" % (c, a, b), "%s BETWEEN %d AND %d" % (c, a, b), "bool")
        if kind == "in":
            xs = ", ".join(str(rng.randint(-3, 15)) for _ in range(rng.randint(1, 4)))
            return Ex("%s IN (%s)" % (c, xs), "%s IN (%s)" % (c, xs), "bool")
        neg = rng.choice(["", "NOT "])
        return Ex("%s IS %sNULL" % (c, neg), "%s IS %sNULL" % (c, neg), "bool")
    if kind == "dcmp" and dbls:
        c = rng.choice(dbls)
        op = rng.choice(["<", ">="])
        x = rng.randint(-50, 50)
        return Ex("%s %s %d" % (c, op, x), "%s %s %d" % (c, op, x), "bool")
    if strs:
        c = rng.choice(strs)
        if c == "k" or rng.random() < 0.5:
            op = rng.choice(["=", "<>"])
            x = rng.choice(["a", "b", "x", "zz"])
            return Ex("%s %s '%s'" % (c, op, x), "%s %s '%s'" % (c, op, x), "bool")
        return Ex("%s LIKE 'z%%'" % c, "%s GLOB 'z*'" % c, "bool")
    return Ex("v > 2", "v > 2", "bool")


# --------------------------------------------------------------------------
# Aggregates. Each: weir SQL, result kind for comparison, declared sink
# type, SQLite select expressions, a Python finisher over their values.

AGG_FUNCS_NUM = ["COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX",
                 "FIRST_VALUE", "LAST_VALUE", "APPROX_COUNT_DISTINCT",
                 "APPROX_PERCENTILE", "VAR_POP", "VAR_SAMP", "STDDEV_POP",
                 "STDDEV_SAMP"]
AGG_FUNCS_STR = ["COUNT", "COUNT_DISTINCT", "MIN", "MAX", "FIRST_VALUE",
                 "LAST_VALUE", "APPROX_COUNT_DISTINCT"]


class Agg:
    pass


def sink_type(kind):
    return {"int": "INT", "big": "BIGINT", "dbl": "DOUBLE", "dec": "DECIMAL(10,2)",
            "dec18_2": "DECIMAL(18,2)", "dec18_6": "DECIMAL(18,6)", "str": "STRING",
            "ts": "TIMESTAMP(3)"}[kind]


def make_agg(rng, cols, allow_order):
    """A random aggregate over `cols` (name -> type)."""
    a = Agg()
    if rng.random() < 0.12:
        a.weir = "COUNT(*)"
        a.kind = "big"
        a.lite = ["COUNT(*)"]
        a.fin = lambda xs: xs[0]
        a.order = False
        a.sink = "BIGINT"
        return a
    name = rng.choice(sorted(cols))
    typ = cols[name]
    funcs = AGG_FUNCS_STR if typ == "str" else AGG_FUNCS_NUM
    if not allow_order:
        funcs = [f for f in funcs if f not in ("FIRST_VALUE", "LAST_VALUE")]
    f = rng.choice(funcs)
    a.order = f in ("FIRST_VALUE", "LAST_VALUE")
    x = name
    lite_x = name
    if f == "COUNT":
        a.weir, a.kind, a.lite, a.fin = "COUNT(%s)" % x, "big", ["COUNT(%s)" % lite_x], lambda xs: xs[0]
    elif f == "COUNT_DISTINCT":
        a.weir, a.kind = "COUNT(DISTINCT %s)" % x, "big"
        a.lite, a.fin = ["COUNT(DISTINCT %s)" % lite_x], lambda xs: xs[0]
    elif f == "APPROX_COUNT_DISTINCT":
        # exact below 1024 distinct values (docs/aggregates.md)
        a.weir, a.kind = "APPROX_COUNT_DISTINCT(%s)" % x, "big"
        a.lite, a.fin = ["COUNT(DISTINCT %s)" % lite_x], lambda xs: xs[0]
    elif f == "SUM":
        a.weir = "SUM(%s)" % x
        a.lite = ["SUM(%s)" % lite_x]
        if typ == "int":
            a.kind, a.fin = "big", lambda xs: xs[0]
        elif typ == "dbl":
            a.kind, a.fin = "dbl", lambda xs: xs[0]
        else:
            a.kind, a.fin = "dec18_2", lambda xs: None if xs[0] is None else Decimal(xs[0]) / 100
    elif f == "AVG":
        a.weir = "AVG(%s)" % x
        if typ == "int":
            # AVG of INT is INT: sum / count truncated toward zero
            a.kind = "int"
            a.lite = ["SUM(%s)" % lite_x, "COUNT(%s)" % lite_x]
            a.fin = lambda xs: None if xs[1] == 0 else int(Decimal(xs[0]) / Decimal(xs[1]))
        elif typ == "dbl":
            a.kind, a.lite, a.fin = "dbl", ["AVG(%s)" % lite_x], lambda xs: xs[0]
        else:
            # DECIMAL(10,2) -> DECIMAL(18,6), rounded half away from zero
            a.kind = "dec18_6"
            a.lite = ["SUM(%s)" % lite_x, "COUNT(%s)" % lite_x]
            a.fin = lambda xs: None if xs[1] == 0 else (
                (Decimal(xs[0]) / 100 / Decimal(xs[1])).quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP))
    elif f in ("MIN", "MAX"):
        a.weir = "%s(%s)" % (f, x)
        a.kind = {"int": "int", "dbl": "dbl", "dec": "dec", "str": "str"}[typ]
        a.lite = ["%s(%s)" % (f, lite_x)]
        a.fin = (lambda xs: None if xs[0] is None else Decimal(xs[0]) / 100) if typ == "dec" else (lambda xs: xs[0])
    elif f in ("FIRST_VALUE", "LAST_VALUE"):
        a.weir = "%s(%s)" % (f, x)
        a.kind = {"int": "int", "dbl": "dbl", "dec": "dec", "str": "str"}[typ]
        direction = "ASC" if f == "FIRST_VALUE" else "DESC"
        a.lite = ["(SELECT x2.%s FROM pairs p2 JOIN src x2 ON x2.id = p2.pid "
                  "WHERE p2.ws = p.ws AND p2.we = p.we AND p2.g IS p.g AND x2.%s IS NOT NULL "
                  "ORDER BY p2.ord %s LIMIT 1)" % (lite_x, lite_x, direction)]
        a.fin = (lambda xs: None if xs[0] is None else Decimal(xs[0]) / 100) if typ == "dec" else (lambda xs: xs[0])
    elif f == "APPROX_PERCENTILE":
        q = rng.choice([0.0, 0.25, 0.5, 0.9, 1.0])
        a.weir = "APPROX_PERCENTILE(%s, %s)" % (x, q)
        a.kind = "pct"
        scale = 100.0 if typ == "dec" else 1.0
        a.lite = ["group_concat(%s, ',')" % lite_x]

        def fin(xs, q=q, scale=scale):
            if xs[0] is None:
                return None
            vals = sorted(float(t) / scale for t in str(xs[0]).split(","))
            return vals[int(math.floor(q * (len(vals) - 1)))]
        a.fin = fin
    else:  # variance family
        a.weir = "%s(%s)" % (f, x)
        a.kind = "dbl"
        scale = 100.0 if typ == "dec" else 1.0
        a.lite = ["group_concat(%s, ',')" % lite_x]

        def fin(xs, f=f, scale=scale):
            if xs[0] is None:
                return None
            vals = [float(t) / scale for t in str(xs[0]).split(",")]
            n = len(vals)
            mean = sum(vals) / n
            m2 = sum((t - mean) ** 2 for t in vals)
            if f in ("VAR_SAMP", "STDDEV_SAMP"):
                if n < 2:
                    return None
                var = m2 / (n - 1)
            else:
                var = m2 / n
            return math.sqrt(var) if f.startswith("STDDEV") else var
        a.fin = fin
    if a.kind == "pct":
        a.sink = "DOUBLE"
    else:
        a.sink = sink_type(a.kind)
    return a


# --------------------------------------------------------------------------
# Windows: assignment (pure functions of ts) and the lateness model.

def fixed_windows(win, ts, off=0):
    """[(start, end, slice_start)] of the TUMBLE / HOP / CUMULATE windows of
    ts; windows start at off + k * slide (floor division)."""
    if off:
        return [(s + off, e + off, sl + off) for s, e, sl in fixed_windows(win, ts - off)]
    kind = win[0]
    if kind == "TUMBLE":
        size = win[1]
        s = (ts // size) * size
        return [(s, s + size, s)]
    if kind == "HOP":
        slide, size = win[1], win[2]
        g = math.gcd(slide, size)
        out = []
        s = (ts // slide) * slide
        while s > ts - size:
            out.append((s, s + size, (ts // g) * g))
            s -= slide
        return out
    step, size = win[1], win[2]                      # CUMULATE
    s = (ts // size) * size
    return [(s, e, (ts // step) * step) for e in range(s + step, s + size + 1, step) if e > ts]


def model(q, rows, passing):
    """Row-at-a-time model of one window aggregation over `rows` (file
    order). Returns (pairs, late): pairs = [(id, group, start, end, ord)]
    of every window a row was added to; late = [(row, W)]."""
    W = NEG_INF
    L = q.lateness
    pairs = []
    late = []
    win = q.win
    if win[0] != "SESSION":
        # W after each row: a cumulating period merges a step's slice into
        # its running accumulator when W reaches the slice's end
        w_after = []
        for r in rows:
            W = max(W, r["ts"] - q.delay)
            w_after.append(W)
        W = NEG_INF
        keyed = []
        for pos, r in enumerate(rows):
            if r["id"] in passing:
                wins = [w for w in fixed_windows(win, r["ts"], q.offset) if w[1] + L > W]
                if not wins:
                    late.append((r, W))
                g = r["k"] if q.keyed else 0
                for (s, e, sl) in wins:
                    # FIRST/LAST order (docs/windows.md): time order of
                    # slices, then arrival; in a cumulating period a row
                    # whose step already fired joins the running
                    # accumulator on arrival
                    if q.early:
                        order = (0, 0, pos)  # no slices with early firings: arrival order
                    elif win[0] != "CUMULATE":
                        order = (0, sl, pos)
                    else:
                        sl_end = sl + win[1]
                        if sl_end <= W:
                            order = (pos, 0, pos)
                        else:
                            order = (bisect.bisect_left(w_after, sl_end) + 0.5, sl, pos)
                    keyed.append((r["id"], g, s, e, order))
            W = max(W, r["ts"] - q.delay)
        keyed.sort(key=lambda p: p[4])
        pairs = [(i, g, s, e, n) for n, (i, g, s, e, _) in enumerate(keyed)]
        return pairs, late
    gap = win[1]
    live = collections.defaultdict(list)             # group -> [[start, end, [ids]]]
    done = []
    for pos, r in enumerate(rows):
        if r["id"] in passing:
            g = r["k"] if q.keyed else 0
            sess = live[g]
            ts = r["ts"]
            ns, ne = ts, ts + gap
            touching = [x for x in sess if x[0] <= ne and x[1] >= ns]
            if touching or ne + L > W:
                rest = [x for x in sess if not (x[0] <= ne and x[1] >= ns)]
                merged = sorted(touching + [[ns, ne, [r["id"]]]], key=lambda x: x[0])
                ids = [i for x in merged for i in x[2]]
                live[g] = rest + [[min(x[0] for x in merged), max(x[1] for x in merged), ids]]
            else:
                late.append((r, W))
        W = max(W, r["ts"] - q.delay)
        for g in list(live):                          # cleanup once W >= end + L
            keep = []
            for x in live[g]:
                if x[1] + L > W:
                    keep.append(x)
                else:
                    done.append((g, x))
            live[g] = keep
    for g, sess in live.items():
        for x in sess:
            done.append((g, x))
    n = 0
    for g, (s, e, ids) in done:
        for i in ids:
            pairs.append((i, g, s, e, n))
            n += 1
    return pairs, late


# --------------------------------------------------------------------------
# Queries

def interval(ms, millis=False):
    if millis:
        return "INTERVAL '%d' MILLISECOND" % ms
    if ms % 1000 == 0:
        return "INTERVAL '%d' SECOND" % (ms // 1000)
    return "INTERVAL '%s' SECOND" % ("%.3f" % (ms / 1000.0)).rstrip("0")


class Query:
    pass


def gen_window(rng):
    unit = rng.choice([1000, 1000, 500])
    kind = rng.choice(["TUMBLE", "HOP", "CUMULATE", "SESSION"])
    if kind == "TUMBLE":
        return ("TUMBLE", unit * rng.choice([1, 2, 3, 5, 10]))
    if kind == "HOP":
        slide = unit * rng.choice([1, 2, 3])
        # a size that is not a multiple of the slide too
        return ("HOP", slide, rng.choice([slide, 2 * slide, 3 * slide, 4 * slide, slide + unit]))
    if kind == "CUMULATE":
        step = unit * rng.choice([1, 2])
        return ("CUMULATE", step, step * rng.choice([1, 2, 3, 4]))
    return ("SESSION", unit * rng.choice([1, 2, 3, 5]))


def window_sql(win, src, keyed, off, millis):
    def iv(ms):
        return interval(ms, millis)
    o = ", " + iv(off) if off else ""
    if win[0] == "TUMBLE":
        return "TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), %s%s))" % (src, iv(win[1]), o)
    if win[0] in ("HOP", "CUMULATE"):
        return "TABLE(%s(TABLE %s, DESCRIPTOR(ts), %s, %s%s))" % (win[0], src, iv(win[1]), iv(win[2]), o)
    part = " PARTITION BY k" if keyed else ""
    return "TABLE(SESSION(TABLE %s%s, DESCRIPTOR(ts), %s))" % (src, part, iv(win[1]))


def gen_query(rng, qid, tables, lateness, feats, millis, late_cols, late_table=False, early=None):
    q = Query()
    q.early = early
    q.millis = millis
    q.qid = qid
    q.table, q.delay = rng.choice(tables)
    q.lateness = lateness
    q.win = gen_window(rng)
    q.offset = 0
    if "offset" in feats and q.win[0] != "SESSION" and rng.random() < 0.2:
        q.offset = rng.choice([250, 500, 1000, -500, -1000])
        if abs(q.offset) >= q.win[-1]:
            q.offset = 0
    # legacy group windows: GROUP BY TUMBLE(ts, ...) with TUMBLE_START/_END
    q.legacy = ("legacy" in feats and q.offset == 0 and q.win[0] != "CUMULATE"
                and rng.random() < 0.15)
    q.keyed = rng.random() < 0.6
    cols = dict(BASE_COLS)
    q.computed = []
    q.view_where = None
    if "view" in feats and rng.random() < 0.35:
        for i in range(rng.randint(1, 3)):
            name, e = gen_computed(rng, i)
            q.computed.append((name, e))
        if rng.random() < 0.4:
            q.view_where = gen_cond(rng, dict(BASE_COLS))
        for name, e in q.computed:
            cols[name] = e.typ
    q.where = None
    if "where" in feats and rng.random() < 0.35:
        q.where = gen_cond(rng, cols)
    agg_cols = {c: t for c, t in cols.items() if c != "k"}
    if q.keyed is False:
        agg_cols["k"] = "str"
    # FIRST_VALUE / LAST_VALUE: time order of slices, then arrival; with
    # allowed lateness a fired hopping/cumulating window is a per-key node
    # that late rows update in arrival order, so those are left out then
    allow_order = (q.win[0] == "TUMBLE" or (q.win[0] == "HOP" and lateness == 0)
                   or (q.win[0] == "CUMULATE" and lateness == 0))
    q.aggs = [make_agg(rng, agg_cols, allow_order) for _ in range(rng.randint(1, 4))]
    if "split-aggs" in feats and rng.random() < 0.7:
        # aggregates a split distinct aggregation takes (COUNT, MIN, MAX, SUM and
        # AVG of exact numbers), one COUNT(DISTINCT x) among them
        q.aggs = [a for a in q.aggs if re.match(r"^(COUNT|MIN|MAX)\(|^(SUM|AVG)\((v|m)\)$", a.weir)]
        while not any(a.weir.startswith("COUNT(DISTINCT") for a in q.aggs):
            a = make_agg(rng, agg_cols, allow_order)
            if a.weir.startswith("COUNT(DISTINCT"):
                q.aggs.insert(rng.randint(0, len(q.aggs)), a)
    # DISTINCT in SUM/AVG/variance/percentile: SQLite's DISTINCT aggregates
    # (group_concat(DISTINCT x) joins with ','); LISTAGG(x, ';') of a string
    # column: SQLite's group_concat, compared as a multiset of values (the
    # concatenation order is arrival order, which SQLite does not keep)
    for i, a in enumerate(q.aggs):
        m = re.match(r"^(SUM|AVG|VAR_POP|VAR_SAMP|STDDEV_POP|STDDEV_SAMP|APPROX_PERCENTILE)\((\w+)", a.weir)
        if "agg-distinct" in feats and m and rng.random() < 0.25:
            a.weir = a.weir.replace("(", "(DISTINCT ", 1)
            a.lite = [re.sub(r"^(SUM|COUNT|AVG)\(", r"\1(DISTINCT ", l) for l in a.lite]
            a.lite = [re.sub(r"^group_concat\((\w+), ','\)$", r"group_concat(DISTINCT \1)", l) for l in a.lite]
        m = re.match(r"^\w+\((\w+)\)$", a.weir)
        if "listagg" in feats and m and agg_cols.get(m.group(1)) == "str" and rng.random() < 0.3:
            x = m.group(1)
            b = Agg()
            b.weir, b.kind, b.sink, b.order = "LISTAGG(%s, ';')" % x, "lst", "STRING", False
            b.lite, b.fin = ["group_concat(%s, ';')" % x], lambda xs: xs[0]
            q.aggs[i] = b
    # FILTER (WHERE ...) on aggregates SQLite computes as plain aggregates
    # (it takes FILTER too); MIN/MAX(DISTINCT x) mean MIN/MAX(x)
    for a in q.aggs:
        plain = all(re.match(r"^(COUNT|SUM|AVG|MIN|MAX)\(", l) for l in a.lite)
        if "agg-filter" in feats and plain and not a.order and rng.random() < 0.2:
            cond = rng.choice(["v > 0", "d < 0", "k <> 'a'", "v IS NULL"])
            a.weir += " FILTER (WHERE %s)" % cond
            a.lite = [l + " FILTER (WHERE %s)" % cond for l in a.lite]
        elif "agg-filter" in feats and re.match(r"^(MIN|MAX)\(", a.weir) and rng.random() < 0.2:
            a.weir = a.weir[:4] + "DISTINCT " + a.weir[4:]
    q.having = None
    if "having" in feats and rng.random() < 0.2:
        q.having = rng.choice([
            Ex("COUNT(*) > 1", "COUNT(*) > 1", "bool"),
            Ex("SUM(v) > 5", "SUM(v) > 5", "bool"),
            Ex("MAX(v) IS NOT NULL", "MAX(v) IS NOT NULL", "bool"),
            Ex("MIN(d) < 0", "MIN(d) < 0", "bool"),
        ])
    q.cascade = None
    q.group_wt = False
    if "cascade" in feats and rng.random() < 0.2:
        nums = [i for i, a in enumerate(q.aggs) if a.kind in ("int", "big", "dbl")]
        # a TUMBLE over the first level's window_time is a window
        # aggregation whose input has none of the table's columns: a
        # late-row table that names them cannot be filled there
        # (early firings make the first level a changelog, which a window does not take)
        if (q.win[0] != "SESSION" and lateness == 0 and not q.legacy and not late_cols and not early
                and rng.random() < 0.5):
            q.cascade = ("TUMBLE", q.win[-1] * rng.choice([1, 2, 3]), nums)
            # Flink's documented form groups by window_time too
            q.group_wt = "group-window-time" in feats and rng.random() < 0.5
        else:
            q.cascade = ("SAME", None, nums)
        q.outer = [("COUNT(*)", None)]
        for i in nums:
            q.outer.append((rng.choice(["SUM", "MAX", "MIN"]), i))
    # grouping sets: every set is its own window aggregation, so each would
    # write a row's lateness to a late-row table: not with one. The model's
    # arrival order (FIRST_VALUE / LAST_VALUE) is per key: not with those.
    q.gsets = None
    if ("grouping-sets" in feats and q.keyed and q.win[0] != "SESSION" and not q.legacy
            and q.cascade is None and not late_table and not any(a.order for a in q.aggs)
            and rng.random() < 0.25):
        q.gsets = rng.choice(["ROLLUP(k)", "CUBE(k)", "GROUPING SETS ((k), ())",
                              # nested and composite spellings of the same two sets
                              "ROLLUP((k))", "GROUPING SETS (ROLLUP(k))", "GROUPING SETS (CUBE((k)))",
                              "GROUPING SETS (k, GROUPING SETS (()))"])
    return q


def query_sql(q):
    """The job text of one query: [views], its sink table, its INSERT."""
    out = []
    src = q.table
    hinted = getattr(q, "hinted", False)
    if q.computed or q.view_where is not None or hinted:
        src = "v%d" % q.qid
        items = ", ".join(["id", "k", "ts", "v", "d", "m", "s"] +
                          ["%s AS %s" % (e.weir, name) for name, e in q.computed])
        where = "" if q.view_where is None else " WHERE " + q.view_where.weir
        hint = " /*+ OPTIONS('path' = 'in.json') */" if hinted else ""
        out.append("CREATE VIEW %s AS SELECT %s FROM %s%s%s;" % (src, items, q.table, hint, where))
    tvf = window_sql(q.win, src, q.keyed, q.offset, q.millis)
    keyc = ["k"] if q.keyed else []
    sel = keyc + ["window_start AS ws", "window_end AS we"]
    group = keyc + ["window_start", "window_end"]
    if q.legacy:
        args = ", ".join(["ts"] + [interval(x, q.millis) for x in q.win[1:]])
        tvf = src
        sel = keyc + ["%s_START(%s) AS ws" % (q.win[0], args), "%s_END(%s) AS we" % (q.win[0], args)]
        group = keyc + ["%s(%s)" % (q.win[0], args)]
    if q.cascade is not None and q.cascade[0] == "TUMBLE":
        sel.append("window_time AS rt")
    sel += ["%s AS a%d" % (a.weir, i) for i, a in enumerate(q.aggs)]
    if q.group_wt:
        group.append("window_time")
    if q.gsets:
        sel.insert(1, "GROUPING(k) AS g")
        group = ["window_start", "window_end", q.gsets]
    inner = "SELECT %s FROM %s" % (", ".join(sel), tvf)
    if q.where is not None:
        inner += " WHERE " + q.where.weir
    inner += " GROUP BY " + ", ".join(group)
    if q.having is not None:
        inner += " HAVING " + q.having.weir
    sink = "q%d" % q.qid
    if q.cascade is None:
        cols = (["k STRING"] if q.keyed else []) + (["g BIGINT"] if q.gsets else []) + \
            ["ws TIMESTAMP(3)", "we TIMESTAMP(3)"]
        cols += ["a%d %s" % (i, a.sink) for i, a in enumerate(q.aggs)]
        body = inner
    else:
        cname = "c%d" % q.qid
        out.append("CREATE VIEW %s AS %s;" % (cname, inner))
        cols = ["ws TIMESTAMP(3)", "we TIMESTAMP(3)"]
        items = []
        for j, (f, i) in enumerate(q.outer):
            if i is None:
                items.append("COUNT(*) AS b%d" % j)
                cols.append("b%d BIGINT" % j)
            else:
                items.append("%s(a%d) AS b%d" % (f, i, j))
                k = q.aggs[i].kind
                cols.append("b%d %s" % (j, "BIGINT" if (k == "big" or (k == "int" and f == "SUM")) else sink_type(k)))
        if q.cascade[0] == "SAME":
            body = "SELECT ws, we, %s FROM %s GROUP BY ws, we" % (", ".join(items), cname)
        else:
            body = ("SELECT window_start, window_end, %s FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(rt), %s)) "
                    "GROUP BY window_start, window_end" % (", ".join(items), cname, interval(q.cascade[1], q.millis)))
    out.append("CREATE TABLE %s (%s) WITH ('connector' = 'print', 'print-identifier' = '%s');"
               % (sink, ", ".join(cols), sink))
    out.append("INSERT INTO %s %s;" % (sink, body))
    return "\n".join(out)


def out_kinds(q):
    if q.cascade is None:
        return (["str"] if q.keyed else []) + (["big"] if q.gsets else []) + ["ts", "ts"] + \
            [a.kind for a in q.aggs]
    kinds = ["ts", "ts"]
    for f, i in q.outer:
        if i is None:
            kinds.append("big")
        else:
            k = q.aggs[i].kind
            kinds.append("big" if (k == "big" or (k == "int" and f == "SUM")) else k)
    return kinds


def n_keycols(q):
    if q.cascade is None:
        return (3 if q.keyed else 2) + (1 if q.gsets else 0)
    return 2


# --------------------------------------------------------------------------
# The oracle: SQLite over the accepted (row, window) pairs.

def open_db(rows):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT, ts INTEGER, v INTEGER, "
               "d REAL, m INTEGER, s TEXT)")
    db.executemany("INSERT INTO t VALUES (?,?,?,?,?,?,?)",
                   [(r["id"], r["k"], r["ts"], r["v"], r["d"], r["m"], r["s"]) for r in rows])
    db.execute("CREATE TABLE pairs (pid INTEGER, g, ws INTEGER, we INTEGER, ord INTEGER)")
    return db


def oracle(db, q, rows):
    """Expected result rows (lists of values) and late rows of query q."""
    db.execute("DROP VIEW IF EXISTS src")
    items = "id, k, ts, v, d, m, s" + "".join(", %s AS %s" % (e.lite, name) for name, e in q.computed)
    db.execute("CREATE TEMP VIEW src AS SELECT %s FROM t" % items)
    conds = ["(%s)" % c.lite for c in (q.view_where, q.where) if c is not None]
    sql = "SELECT id FROM src" + (" WHERE " + " AND ".join(conds) if conds else "")
    passing = set(r[0] for r in db.execute(sql))
    pairs, late = model(q, rows, passing)
    db.execute("DELETE FROM pairs")
    db.executemany("INSERT INTO pairs VALUES (?,?,?,?,?)", pairs)
    lite, spans = [], []
    for a in q.aggs:
        spans.append((len(lite), len(a.lite)))
        lite += a.lite
    sql = ("SELECT p.g, p.ws, p.we, %s FROM pairs p JOIN src x ON x.id = p.pid "
           "GROUP BY p.g, p.ws, p.we" % ", ".join(lite))
    if q.having is not None:
        sql += " HAVING " + q.having.lite
    level1 = []
    for r in db.execute(sql):
        vals = [a.fin(list(r[3 + s:3 + s + n])) for a, (s, n) in zip(q.aggs, spans)]
        level1.append(([r[0]] if q.keyed else []) + ([0] if q.gsets else []) + [r[1], r[2]] + vals)
    if q.gsets:
        # the set (): the same (row, window) pairs grouped by the window alone
        sql = ("SELECT NULL, p.ws, p.we, %s FROM pairs p JOIN src x ON x.id = p.pid "
               "GROUP BY p.ws, p.we" % ", ".join(lite))
        if q.having is not None:
            sql += " HAVING " + q.having.lite
        for r in db.execute(sql):
            vals = [a.fin(list(r[3 + s:3 + s + n])) for a, (s, n) in zip(q.aggs, spans)]
            level1.append([None, 1, r[1], r[2]] + vals)
    late_rows = late
    if q.cascade is None:
        return level1, late_rows
    # window over window: a plain GROUP BY of the first level's result
    nk = 1 if q.keyed else 0
    na = len(q.aggs)
    db.execute("DROP TABLE IF EXISTS lvl")
    db.execute("CREATE TABLE lvl (ws INTEGER, we INTEGER, %s)" % ", ".join("a%d" % i for i in range(na)))
    db.executemany("INSERT INTO lvl VALUES (%s)" % ",".join("?" * (na + 2)),
                   [[r[nk], r[nk + 1]] + [x if not isinstance(x, Decimal) else str(x) for x in r[nk + 2:]]
                    for r in level1])
    items = ", ".join("COUNT(*)" if i is None else "%s(a%d)" % (f, i) for f, i in q.outer)
    if q.cascade[0] == "SAME":
        sql = "SELECT ws, we, %s FROM lvl GROUP BY ws, we" % items
    else:
        x = q.cascade[1]
        # window_time = end - 1; floor division as SQLite's / truncates
        sql = ("SELECT w2 AS ws, w2 + %d AS we, %s FROM (SELECT *, "
               "(CASE WHEN we - 1 >= 0 THEN (we - 1) / %d ELSE -((-(we - 1) + %d - 1) / %d) END) * %d AS w2 "
               "FROM lvl) GROUP BY w2" % (x, items, x, x, x, x))
    return [list(r) for r in db.execute(sql)], late_rows


# --------------------------------------------------------------------------
# weir's output

LINE_RE = re.compile(r"^(q\d+|late)(?::(\d+))?> ([+-][IUD])\[(.*)\]$")
TS_RE = re.compile(r"^(-?\d+)-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?$")


def parse_ts(text):
    m = TS_RE.match(text)
    if not m:
        raise ValueError("bad timestamp %r" % text)
    y, mo, d, h, mi = (int(m.group(i)) for i in range(1, 6))
    sec = int(m.group(6) or 0)
    frac = (m.group(7) or "0")[:3].ljust(3, "0")
    return (calendar.timegm((y, mo, d, h, mi, sec, 0, 0, 0)) * 1000 + int(frac))


def parse_value(kind, text):
    if text == "null":
        return None
    if kind == "ts":
        return parse_ts(text)
    if kind in ("int", "big"):
        return int(text)
    if kind in ("dbl", "pct"):
        return float(text)
    if kind.startswith("dec"):
        return Decimal(text)
    return text


def materialize(lines):
    """(sink -> Counter of row text, +I/+U counted up and -U/-D down;
    the lines that are no sink's row)."""
    out = collections.defaultdict(collections.Counter)
    bad = []
    for line in lines:
        m = LINE_RE.match(line)
        if not m:
            if line.strip():
                bad.append(line)
            continue
        sink, _, kind, text = m.groups()
        out[sink][text] += 1 if kind in ("+I", "+U") else -1
    return out, bad


def changelog_breaks(lines, nkeys):
    """sink -> the changes that break its changelog: a row added while its
    group (the first nkeys[sink] columns: key and window) holds one at that
    sink subtask, or a retraction of a row the group does not hold there.
    A window aggregation keeps one row per group, each subtask prints its
    rows in the order it received them, and a changelog keeps its order on
    the way to the sink (every change of a group travels one path), so a
    group's -U/-D always retracts its row on the same subtask and a +I/+U
    never comes while it holds one - across restores too, which must
    retract what the restored state emitted before."""
    held = {}  # (sink, subtask, group) -> the row it holds
    out = collections.defaultdict(list)
    for line in lines:
        m = LINE_RE.match(line)
        if not m or m.group(1) not in nkeys:
            continue
        sink, sub, kind, text = m.groups()
        at = (sink, sub, tuple(text.split(", ", nkeys[sink])[:nkeys[sink]]))
        what = "%s[%s] reached %s while its group held %s" % (
            kind, text, "subtask " + sub if sub else "the sink", "[%s]" % held[at] if at in held else "no row")
        if kind in ("+I", "+U"):
            if at in held:
                out[sink].append(what)
            held[at] = text
        elif held.get(at) != text:
            out[sink].append(what)
        else:
            del held[at]
    return out


def close(kind, want, got):
    if want is None or got is None:
        return want is None and got is None
    if kind == "dbl":
        return abs(want - got) <= 1e-6 * max(1.0, abs(want), abs(got))
    if kind == "pct":
        return abs(want - got) <= 0.01 * abs(want) + 1e-9
    if kind.startswith("dec"):
        return Decimal(want) == got
    if kind == "lst":
        return sorted(want.split(";")) == sorted(got.split(";"))
    return want == got


def compare(q, expected, counter):
    """A list of problems (empty when weir's result equals the oracle's)."""
    kinds = out_kinds(q)
    nkey = n_keycols(q)
    problems = []
    got = {}
    for text, n in counter.items():
        if n == 0:
            continue
        if n < 0:
            problems.append("retracted more often than emitted (%d): [%s]" % (n, text))
            continue
        fields = text.split(", ")
        if len(fields) != len(kinds):
            problems.append("row has %d fields, expected %d: [%s]" % (len(fields), len(kinds), text))
            continue
        try:
            vals = [parse_value(k, f) for k, f in zip(kinds, fields)]
        except (ValueError, ArithmeticError) as e:
            problems.append("cannot parse [%s]: %s" % (text, e))
            continue
        key = tuple(vals[:nkey])
        if n > 1 or key in got:
            problems.append("group emitted more than once: [%s]" % text)
        got[key] = (vals, text)
    want = {}
    for vals in expected:
        want[tuple(vals[:nkey])] = vals
    for key in sorted(want, key=repr):
        if key not in got:
            problems.append("missing row: %s" % fmt_row(kinds, want[key]))
            continue
        gv, text = got[key]
        wv = want[key]
        for i in range(nkey, len(kinds)):
            if not close(kinds[i], wv[i], gv[i]):
                problems.append("column %d: expected %s, got [%s]" % (i, fmt_row(kinds, wv), text))
                break
    for key in sorted(got, key=repr):
        if key not in want:
            problems.append("unexpected row: [%s]" % got[key][1])
    return problems


def fmt_ts(ms):
    s, frac = divmod(ms, 1000)
    t = time.gmtime(s)
    out = "%04d-%02d-%02dT%02d:%02d:%02d" % t[:6]
    return out + (".%03d" % frac if frac else "")


def fmt_row(kinds, vals):
    parts = []
    for k, v in zip(kinds, vals):
        if v is None:
            parts.append("null")
        elif k == "ts":
            parts.append(fmt_ts(v))
        else:
            parts.append(str(v))
    return "[" + ", ".join(parts) + "]"


# --------------------------------------------------------------------------
# Jobs

ALL_FEATS = {"view", "where", "having", "cascade", "late", "group-window-time", "split-aggs",
             "offset", "legacy", "millisecond", "late-columns", "grouping-sets", "agg-filter",
             "agg-distinct", "listagg", "hint-options", "emit"}


class Job:
    pass


# Late firings: per late row ("": no delay set, or 0), every 5 ms, or every
# hour: never within a run, so they wait for the end of input (in
# restore_diff across the restores, in the state of the fired window).
LATE_FIRE_DELAYS = ["", "0 ms", "5 ms", "1 h"]


def gen_job(seed, index, feats, max_queries, early_share=0.25, late_delays=LATE_FIRE_DELAYS,
            latenesses=(0, 0, 0, 1000, 3000)):
    """A random job with an allowed lateness drawn from latenesses; with
    the feature emit, early firings in early_share of the jobs and late
    firings (delays drawn from late_delays) in half of those with allowed
    lateness."""
    rng = random.Random("%d/%d" % (seed, index))
    j = Job()
    j.seed, j.index = seed, index
    j.rows = gen_rows(rng)
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.lateness = rng.choice(latenesses)
    j.tables = [("t%d" % i, rng.choice([0, 0, 500, 1000, 2000, 5000])) for i in range(rng.randint(1, 3))]
    j.late_table = "late" in feats and rng.random() < 0.3
    # late rows carry the whole input row: the late table names columns
    # of the table besides `watermark` and lateness_ms
    j.late_cols = j.late_table and "late-columns" in feats
    # INTERVAL 'n' MILLISECOND instead of (fractional) SECOND
    j.millis = "millisecond" in feats and rng.random() < 0.2
    # table.optimizer.distinct-agg.split.enabled: split distinct aggregation must not change a result;
    # it splits windows without allowed lateness whose aggregates it takes, which some jobs favour
    j.split = rng.choice([None, "false", "true"])
    j.buckets = rng.choice([None, 1, 3, 1024]) if j.split == "true" else None
    qfeats = feats
    if j.split == "true" and "split-aggs" in feats and rng.random() < 0.5:
        j.lateness = 0
    else:
        qfeats = feats - {"split-aggs"}
    # early and late firings (table.exec.emit.*): each firing is an update that a later one
    # retracts, so the folded changelog is the on-time result and the late rows' updates; "" is a
    # late firing per late row (no delay set)
    j.early = j.late_fire = None
    if "emit" in feats and rng.random() < early_share:
        j.early = rng.choice(["0 ms", "0 ms", "1 ms", "100 ms"])
    if "emit" in feats and j.lateness and rng.random() < 0.5:
        j.late_fire = rng.choice(late_delays)
    j.queries = [gen_query(rng, i, j.tables, j.lateness, qfeats, j.millis, j.late_cols, j.late_table, j.early)
                 for i in range(rng.randint(1, max_queries))]
    # table.optimizer.agg-phase-strategy: two-phase aggregation must not change a result
    j.phase = rng.choice([None, "AUTO", "ONE_PHASE", "TWO_PHASE", "TWO_PHASE"])
    # tables over decoy.json that the queries read through an OPTIONS hint giving in.json
    j.hinted = set()
    if "hint-options" in feats and rng.random() < 0.4:
        j.hinted = {name for name, _ in j.tables if rng.random() < 0.7}
    for q in j.queries:
        q.hinted = q.table in j.hinted
    return j


def job_sql(j, queries):
    out = ["-- sql_diff seed %d job %d: parallelism %d, batch size %d"
           % (j.seed, j.index, j.parallelism, j.batch)]
    if j.lateness:
        out.append("SET 'table.exec.emit.allow-lateness' = '%d ms';" % j.lateness)
    if getattr(j, "early", None):
        out.append("SET 'table.exec.emit.early-fire.enabled' = 'true';")
        out.append("SET 'table.exec.emit.early-fire.delay' = '%s';" % j.early)
    if getattr(j, "late_fire", None) is not None:
        out.append("SET 'table.exec.emit.late-fire.enabled' = 'true';")
        if j.late_fire:
            out.append("SET 'table.exec.emit.late-fire.delay' = '%s';" % j.late_fire)
    if j.phase:
        out.append("SET 'table.optimizer.agg-phase-strategy' = '%s';" % j.phase)
    if j.split:
        out.append("SET 'table.optimizer.distinct-agg.split.enabled' = '%s';" % j.split)
    if j.buckets:
        out.append("SET 'table.optimizer.distinct-agg.split.bucket-num' = '%d';" % j.buckets)
    used = sorted(set(q.table for q in queries))
    for name, delay in j.tables:
        if name not in used:
            continue
        wm = "ts" if delay == 0 else "ts - %s" % interval(delay, j.millis)
        out.append("CREATE TABLE %s (id BIGINT, k STRING, ts_ms BIGINT, v INT, d DOUBLE, "
                   "m DECIMAL(10,2), s STRING, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), "
                   "WATERMARK FOR ts AS %s) WITH ('connector' = 'filesystem', "
                   "'path' = '%s', 'format' = 'json');"
                   % (name, wm, "decoy.json" if name in getattr(j, "hinted", ()) else "in.json"))
    if j.late_table:
        cols = "id BIGINT, k STRING, v INT, " if j.late_cols else ""
        out.append("CREATE TABLE late (%s`watermark` TIMESTAMP(3), lateness_ms BIGINT) "
                   "WITH ('connector' = 'print', 'print-identifier' = 'late');" % cols)
        out.append("SET 'weir.late-records.table' = 'late';")
        # identical aggregations would share one late output
        out.append("SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';")
    for q in queries:
        out.append(query_sql(q))
    return "\n".join(out) + "\n"


def write_job(j, queries, folder, sql=job_sql):
    """Writes job j with `queries` (job.sql by sql(j, queries), in.json,
    run.sh) to folder."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "job.sql"), "w") as f:
        f.write(sql(j, queries))
    with open(os.path.join(folder, "in.json"), "w") as f:
        for r in j.rows:
            f.write(json_line(r) + "\n")
    if getattr(j, "hinted", None):
        with open(os.path.join(folder, "decoy.json"), "w") as f:
            for r in j.rows[: len(j.rows) // 3]:
                f.write(json_line(r) + "\n")
    with open(os.path.join(folder, "run.sh"), "w") as f:
        f.write("#!/bin/sh\n# run from this folder: sh run.sh path/to/weir\n"
                "exec \"${1:-weir}\" run job.sql -D parallelism.default=%d -D weir.batch-size=%d\n"
                % (j.parallelism, j.batch))


def run_weir(case, j, queries, folder, sql=job_sql):
    """Writes job j with `queries` to folder and runs it there: (output
    lines, None), or (None, what went wrong)."""
    write_job(j, queries, folder, sql)
    try:
        p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch,
                                                                       rocksdb=getattr(j, "rocksdb", False)),
                          cwd=folder, text=False)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % case.args.timeout
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.decode("utf-8", "replace").strip()[-2000:])
    return p.stdout.decode("utf-8", "replace").splitlines(), None


def check(case, j, queries, folder):
    """{qid: [problems]} for `queries` run together as one job, plus
    job-level problems under key None."""
    lines, err = run_weir(case, j, queries, folder)
    if err is not None:
        return {None: [err]}
    return check_lines(j, queries, lines)


def check_lines(j, queries, lines):
    """{qid: [problems]} for the print sinks' lines of job j's `queries`
    (as `qN[:subtask]> +I[...]`), compared with the oracle; job-level
    problems under key None."""
    db = open_db(j.rows)
    result = {}
    sinks, bad = materialize(lines)
    breaks = changelog_breaks(lines, {"q%d" % q.qid: n_keycols(q) for q in queries})
    expected_late = collections.Counter()
    for q in queries:
        try:
            expected, late = oracle(db, q, j.rows)
        except sqlite3.Error as e:
            raise RuntimeError("oracle failed for q%d: %s" % (q.qid, e))
        for r, W in late:
            if j.late_cols:
                expected_late[(r["id"], r["k"], r["v"], W, W - r["ts"])] += 1
            else:
                expected_late[(W, W - r["ts"])] += 1
        probs = compare(q, expected, sinks.get("q%d" % q.qid, collections.Counter()))
        broken = breaks.get("q%d" % q.qid, [])
        if broken:
            probs.append("%d change(s) break the changelog, e.g. %s" % (len(broken), "; ".join(broken[:3])))
        if probs:
            result[q.qid] = probs
    if bad:
        result[None] = ["unparsed output: %s" % b for b in bad[:5]]
    if j.late_table:
        got_late = collections.Counter()
        kinds = ["big", "str", "int", "ts", "big"] if j.late_cols else ["ts", "big"]
        for text, n in sinks.get("late", collections.Counter()).items():
            f = text.split(", ")
            if len(f) != len(kinds):
                result.setdefault(None, []).append("late row with %d fields: [%s]" % (len(f), text))
                continue
            got_late[tuple(parse_value(k, x) for k, x in zip(kinds, f))] += n
        if got_late != expected_late:
            miss = expected_late - got_late
            extra = got_late - expected_late
            result.setdefault(None, []).append(
                "late rows differ: missing %s, unexpected %s"
                % (sorted(miss.elements(), key=repr)[:5], sorted(extra.elements(), key=repr)[:5]))
    db.close()
    return result


def job_problems(case, j, check):
    """Runs job j (its queries together) in the case's folder with
    check(case, j, queries, folder) -> {qid: [problems], None: [job's]}.
    [] when it passes. Else each failing query runs again alone in the
    subfolder q<qid>/, which is kept only where it fails alone, and the
    problems name each failing query and where it fails; a job that fails
    while no query fails, alone or in it, is one problem of its own.
    case.counts gets "queries" and "failed queries"."""
    case.counts["queries"] += len(j.queries)
    res = check(case, j, j.queries, case.folder)
    if not res:
        return []
    problems = []
    for q in j.queries:
        if q.qid not in res and None not in res:
            continue
        folder = case.path("q%d" % q.qid)
        alone = check(case, j, [q], folder)
        if alone:
            probs, where = [p for v in alone.values() for p in v], "alone (q%d/)" % q.qid
        else:
            shutil.rmtree(folder, ignore_errors=True)
            if q.qid not in res:
                continue
            probs, where = res[q.qid], "only together with the job's other queries"
        case.counts["failed queries"] += 1
        family = getattr(q, "family", None)
        problems.append("q%d%s fails %s: %s" % (q.qid, " " + family if family else "", where,
                                               "; ".join(probs)[:600]))
    if not problems:
        problems = ["the whole job fails, no query alone: " + "; ".join(p for v in res.values() for p in v)[:600]]
    return problems


def run_case(case):
    feats = features(case.args.features)
    j = gen_job(case.seed, case.index, feats, case.args.max_queries)
    case.note = "(parallelism %d, batch size %d, %d queries%s%s)" % (
        j.parallelism, j.batch, len(j.queries), ", early fire %s" % j.early if j.early else "",
        ", late fire %r" % j.late_fire if j.late_fire is not None else "")
    return job_problems(case, j, check)


def features(spec):
    feats = set(ALL_FEATS)
    for f in filter(None, spec.split(",")):
        if f.startswith("-"):
            feats.discard(f[1:])
        else:
            feats.add(f)
    return feats


def add_args(ap):
    ap.add_argument("--max-queries", type=int, default=int(os.environ.get("WEIR_SQLDIFF_QUERIES", "40")),
                    help="queries a job at the most (default: $WEIR_SQLDIFF_QUERIES, else 40)")
    ap.add_argument("--features", default=os.environ.get("WEIR_SQLDIFF_FEATURES", ""),
                    help="comma list; -name leaves a feature out (%s)" % ", ".join(sorted(ALL_FEATS)))


def main():
    return diffrun.main("sql_diff", run_case, jobs_env="WEIR_SQLDIFF_JOBS", jobs=120, asan_jobs=24,
                        one_env="WEIR_SQLDIFF_JOB", unit="jobs", add_args=add_args,
                        out_env="WEIR_SQLDIFF_OUT", max_failures=10, timeout=120,
                        describe=lambda a: "up to %d queries each, features %s"
                        % (a.max_queries, ",".join(sorted(features(a.features)))))


if __name__ == "__main__":
    sys.exit(main())
