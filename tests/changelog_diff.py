#!/usr/bin/env python3
"""Randomized differential test of weir's non-windowed SQL: the operators
whose result is a changelog or depends on per-key order rather than on
windows.

Families (--families / WEIR_CLDIFF_FAMILIES, "-name" leaves one out):
  group   GROUP BY (keyed by columns or an expression, or global) with
          COUNT/SUM/MIN/MAX/AVG, WHERE, HAVING, ROLLUP/CUBE/GROUPING SETS
          of one key and (), and a second GROUP BY over the first (the
          retraction path: counts of counts);
  over    OVER aggregations, ROWS and RANGE frames, bounded and unbounded,
          PARTITION BY or not, with the per-partition lateness rule;
  topn    Top-N (ROW_NUMBER() <= N, with and without the rank number read,
          ASC/DESC, NULLS FIRST/LAST, ordered by an INT, BIGINT, DECIMAL,
          DOUBLE or STRING column, or by a DATE, TIME(0/3), TIMESTAMP(0/3/6/9)
          or TIMESTAMP_LTZ one made in the query, NULL where v is, dates
          and times before 1970 among them: kept rows leave such columns
          out and rebuild them from the sort key, and the query shows it);
  topnagg Top-N over an updating input (the retractable Top-N): ROW_NUMBER()
          over a GROUP BY's aggregate, per key or global, ASC/DESC, with
          and without the rank number, with an offset (rn BETWEEN M AND N),
          in a query of its own or beside the GROUP BY;
          the ORDER BY ends with the group keys, so the final table does
          not depend on the order in which updates of different groups
          arrive (that order varies with the parallelism);
  limit   ORDER BY ... LIMIT n [OFFSET m] (a Top-N without partition), over
          the table (ORDER BY a column, then id: no ties) or over a GROUP
          BY (ORDER BY the aggregate, then the group key);
  tsort   ORDER BY ts [, a second column ASC/DESC] without LIMIT (the
          temporal sort): compared in order, not as a multiset - rows come
          out in (ts, second column, arrival) order once the watermark
          passes ts, and a row not after the last ts emitted is late;
  dedup   deduplication (ROW_NUMBER() over a time attribute, rn = 1,
          first and last row);
  join    regular equi-joins (INNER, LEFT, RIGHT, FULL) between two tables,
          with a residual condition sometimes; interval joins of every type
          (a row behind its own input's watermark is late: ts < W); a GROUP
          BY over an outer join; a join of two GROUP BYs.
  semi    IN / NOT IN / EXISTS / NOT EXISTS subqueries in WHERE (semi and
          anti joins): uncorrelated and correlated, with conditions on
          either side inside the subquery, NULLs on both sides (NOT IN's
          NULL rule), an updating input on either side (a GROUP BY; one
          whose HAVING makes subquery rows come and go).

Each *job* is one random input stream (out of order, ties, NULLs in every
column, very late rows) in one JSON file, read by one table (so one split:
results must not depend on parallelism or batch size), a batch of random
queries over it, run by `weir run` at a random parallelism (1/2/4) and
batch size (1/7/1024), the state on RocksDB in about 3 jobs of 10, with
table.exec.mini-batch.enabled and
table.optimizer.agg-phase-strategy drawn at random (two-phase GROUP BY), and
table.optimizer.distinct-agg.split.enabled (split distinct aggregation, which
changes the changelog but not the final table). Each query is one *case*. The printed changelog is
materialized (+I/+U add a row, -U/-D remove one) and compared as a multiset
with the oracle's rows; each sink subtask's lines must also be a history in
order on their own (a -U/-D never reaches a subtask before the row it
retracts: every change of a key travels one path to the sink).

The oracle shares no code with weir. SQLite (python3's sqlite3) computes
the final table of each query from the rows it sees; the only modelling
in Python is the OVER aggregation's lateness rule (docs/sql.md): a row
with timestamp t waits until the watermark rises above t; the watermark
W = max(ts) - delay takes effect after each row; a row whose time is not
after the last time its partition processed is late and dropped. Top-N and
deduplication rank equal sort values in arrival order (the earlier
first), except that keep-last deduplication lets a row equal in time to the
kept one replace it.

Runs on the shared differential driver (tests/support/diffrun.py): a job
is its case; each failing query runs again alone.
Usage: changelog_diff.py --weir BIN [--jobs N] [--seed S] [--job I]
[--out DIR] [--workers N] [--max-queries N] [--families F]
Environment: WEIR_SEED, WEIR_CLDIFF_JOBS (default 40, 10 under ASan),
WEIR_CLDIFF_JOB (one job of the seed), WEIR_CLDIFF_QUERIES (default 12),
WEIR_CLDIFF_FAMILIES, WEIR_CLDIFF_OUT (where failing jobs are kept),
WEIR_DIFF_WORKERS (jobs at once).
"""

import collections
import datetime
import functools
import os
import random
import sqlite3
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
import sql_diff as sd  # noqa: E402  (input streams, job files, output parsing, the job runner)

ALL_FAMILIES = {"group", "over", "topn", "topnagg", "limit", "tsort", "dedup", "join", "semi"}
LINE_PREFIX = "q"


# --------------------------------------------------------------------------
# Queries. Each has .weir (SQL text without INSERT), .kinds (output column
# kinds for parsing), .expected(db, rows) -> list of value tuples.

class Query:
    pass


def cond(rng):
    """A WHERE condition: (weir, sqlite)."""
    c = rng.choice([
        ("v > %d" % rng.randint(-3, 10), None),
        ("v IS NOT NULL", None),
        ("s <> 'x'", None),
        ("d < %d.5" % rng.randint(-50, 50), None),
        ("k IS NULL OR v < %d" % rng.randint(0, 15), None),
        ("MOD(v, 3) = 1", "v % 3 = 1"),
    ])
    return c[0], c[1] or c[0]


AGGS = [
    # weir, sqlite, kind, finisher
    ("COUNT(*)", "COUNT(*)", "big", None),
    ("COUNT(v)", "COUNT(v)", "big", None),
    ("SUM(v)", "SUM(v)", "int", None),
    ("MIN(v)", "MIN(v)", "int", None),
    ("MAX(v)", "MAX(v)", "int", None),
    ("MIN(s)", "MIN(s)", "str", None),
    ("MAX(s)", "MAX(s)", "str", None),
    ("SUM(m)", "SUM(m)", "dec", "cents"),
    ("MAX(d)", "MAX(d)", "dbl", None),
    ("AVG(v)", "SUM(v), COUNT(v)", "int", "avg_int"),
    ("COUNT(DISTINCT v)", "COUNT(DISTINCT v)", "big", None),
    ("COUNT(DISTINCT s)", "COUNT(DISTINCT s)", "big", None),
    ("SUM(DISTINCT v)", "SUM(DISTINCT v)", "int", None),
    ("SUM(DISTINCT m)", "SUM(DISTINCT m)", "dec", "cents"),
    ("COUNT(DISTINCT k) FILTER (WHERE v > 3)", "COUNT(DISTINCT k) FILTER (WHERE v > 3)", "big", None),
    # AVG, which a split distinct aggregation splits into a SUM and a COUNT
    ("AVG(DISTINCT v)", "SUM(DISTINCT v), COUNT(DISTINCT v)", "int", "avg_int"),
    ("AVG(v) FILTER (WHERE v > 3)", "SUM(v) FILTER (WHERE v > 3), COUNT(v) FILTER (WHERE v > 3)", "int", "avg_int"),
    ("AVG(m)", "SUM(m), COUNT(m)", "dec6", "avg_cents"),
    ("AVG(DISTINCT m)", "SUM(DISTINCT m), COUNT(DISTINCT m)", "dec6", "avg_cents"),
]


def finish(how, vals):
    if how is None:
        return vals[0]
    if how == "cents":
        return None if vals[0] is None else Decimal(vals[0]) / 100
    if how == "avg_int":  # Flink: AVG of INT is INT, the quotient truncated toward zero
        s, n = vals
        if not n:
            return None
        q = abs(s) // n
        return q if s >= 0 else -q
    if how == "avg_cents":  # AVG of DECIMAL(10, 2) is DECIMAL(38, 6), HALF_UP (half away from zero)
        s, n = vals
        if not n:
            return None
        q = (abs(s) * 10000 * 2 + n) // (2 * n)
        return Decimal(q if s >= 0 else -q).scaleb(-6)
    raise ValueError(how)


def lite_width(agg):
    return agg[1].count(", ") + 1


def gen_group(rng, qid):
    q = Query()
    keys = rng.choice([[], ["k"], ["s"], ["k", "s"], ["mod3"]])
    aggs = rng.sample(AGGS, rng.randint(1, 4))
    where = cond(rng) if rng.random() < 0.4 else None
    having = None
    if rng.random() < 0.3:
        n = rng.randint(1, 4)
        having = ("COUNT(*) > %d" % n, "COUNT(*) > %d" % n)
    wkeys = ["MOD(v, 3)" if c == "mod3" else c for c in keys]
    lkeys = ["(v % 3)" if c == "mod3" else c for c in keys]
    sel = wkeys + [a[0] for a in aggs]
    # one key and the () set (ROLLUP/CUBE/GROUPING SETS): the () set is a
    # single-subtask aggregation united with the keyed one, whose changes
    # must keep their order on the way to the sink at any parallelism
    rollup = (rng.choice(["ROLLUP(%s)", "CUBE(%s)", "GROUPING SETS ((%s), ())"])
              if len(keys) == 1 and not having and rng.random() < 0.3 else None)
    q.weir = "SELECT %s FROM t%s%s%s" % (
        ", ".join(sel), " WHERE " + where[0] if where else "",
        (" GROUP BY " + (rollup % wkeys[0] if rollup else ", ".join(wkeys))) if keys else "",
        " HAVING " + having[0] if having else "")
    q.kinds = [("int" if c == "mod3" else "str") for c in keys] + [a[2] for a in aggs]
    cascade = rng.random() < 0.25 and keys and not rollup
    lsel = lkeys + [a[1] for a in aggs]
    lsql = "SELECT %s FROM t%s%s%s" % (
        ", ".join(lsel), " WHERE " + where[1] if where else "",
        " GROUP BY " + ", ".join(lkeys) if keys else "",
        " HAVING " + having[1] if having else "")
    # SQLite's SUM/MIN/... over an empty table give one row of NULLs, like
    # Flink's global aggregate - but a streaming global aggregate emits
    # nothing until its first row arrives.
    nk = len(keys)

    def expected(db, rows, lsql=lsql, aggs=aggs, nk=nk, keys=keys, where=where, rollup=rollup):
        def agg_rows(sql, nk):
            out = []
            for r in db.execute(sql):
                vals, i = list(r[:nk]), nk
                for a in aggs:
                    w = lite_width(a)
                    vals.append(finish(a[3], list(r[i:i + w])))
                    i += w
                out.append(vals)
            return out
        out = agg_rows(lsql, nk)
        n = db.execute("SELECT COUNT(*) FROM t" + (" WHERE " + where[1] if where else "")).fetchone()[0]
        if not keys and n == 0:
            out = []
        if rollup and n:
            out += [[None] + r for r in agg_rows("SELECT %s FROM t%s" % (
                ", ".join(a[1] for a in aggs), " WHERE " + where[1] if where else ""), 0)]
        return out
    q.expected = expected
    if cascade:
        # counts of counts: the inner result is retracted as it changes
        # (and the distinct sums: a DISTINCT aggregate over a changelog, split or not)
        q.weir = ("SELECT c, COUNT(*) AS n, SUM(sv) AS ssv, COUNT(DISTINCT sv) AS dsv FROM (SELECT %s, "
                  "COUNT(*) AS c, SUM(v) AS sv FROM t%s GROUP BY %s) GROUP BY c" % (
                      ", ".join(wkeys), " WHERE " + where[0] if where else "", ", ".join(wkeys)))
        q.kinds = ["big", "big", "int", "big"]
        inner = "SELECT %s, COUNT(*) AS c, SUM(v) AS sv FROM t%s GROUP BY %s" % (
            ", ".join(lkeys), " WHERE " + where[1] if where else "", ", ".join(lkeys))
        q.expected = lambda db, rows, inner=inner: [
            list(r) for r in db.execute("SELECT c, COUNT(*), SUM(sv), COUNT(DISTINCT sv) FROM (%s) GROUP BY c"
                                        % inner)]
    q.family = "group"
    return q


OVER_AGGS = [
    ("COUNT(*)", "COUNT(*)", "big"),
    ("SUM(v)", "SUM(v)", "int"),
    ("MIN(v)", "MIN(v)", "int"),
    ("MAX(v)", "MAX(v)", "int"),
    ("COUNT(s)", "COUNT(s)", "big"),
    ("SUM(m)", "SUM(m)", "dec"),
]


def over_model(rows, passing, delay, part):
    """The rows an OVER aggregation accepts (not late), by the per-partition
    lateness rule; a row with ts t is processed once the watermark rises
    above t. Every row moves the watermark (it is made at the source, before
    any WHERE); only the rows in `passing` reach the operator."""
    W = float("-inf")
    last = {}          # partition -> last processed ts
    pending = collections.defaultdict(list)
    accepted = []
    for r in rows:
        p = r[part] if part else None
        if r["id"] not in passing:
            pass
        elif r["ts"] <= last.get(p, float("-inf")):
            pass       # late: dropped
        else:
            pending[p].append(r)
            accepted.append(r)
        nw = max(W, r["ts"] - delay)
        if nw > W:
            W = nw
            for key in list(pending):
                fire = [x for x in pending[key] if x["ts"] < W]
                if fire:
                    last[key] = max(last.get(key, float("-inf")), max(x["ts"] for x in fire))
                    pending[key] = [x for x in pending[key] if x["ts"] >= W]
    return accepted


def gen_over(rng, qid, delay):
    q = Query()
    part = rng.choice(["k", "k", "s", None])
    aggs = rng.sample(OVER_AGGS, rng.randint(1, 3))
    frame = rng.choice(["rows", "rows_unb", "range", "range_unb", "none"])
    n = rng.randint(0, 3)
    ms = rng.choice([0, 1, 500, 1000, 2500])
    if frame == "rows":
        wf, lf = "ROWS BETWEEN %d PRECEDING AND CURRENT ROW" % n, "ROWS BETWEEN %d PRECEDING AND CURRENT ROW" % n
    elif frame == "rows_unb":
        wf, lf = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    elif frame == "range":
        wf = "RANGE BETWEEN INTERVAL '%d.%03d' SECOND PRECEDING AND CURRENT ROW" % (ms // 1000, ms % 1000)
        lf = "RANGE BETWEEN %d PRECEDING AND CURRENT ROW" % ms
    elif frame == "range_unb":
        wf, lf = "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    else:
        wf, lf = "", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    where = cond(rng) if rng.random() < 0.3 else None
    pw = "PARTITION BY %s " % part if part else ""
    q.weir = "SELECT id, %s FROM t%s WINDOW w AS (%sORDER BY ts %s)" % (
        ", ".join("%s OVER w" % a[0] for a in aggs), " WHERE " + where[0] if where else "", pw, wf)
    q.kinds = ["big"] + [a[2] for a in aggs]
    order = "ts" if frame.startswith("range") or frame == "none" else "ts, id"
    lsql = "SELECT id, %s FROM acc WINDOW w AS (%sORDER BY %s %s)" % (
        ", ".join("%s OVER w" % a[1] for a in aggs), pw, order, lf)

    def expected(db, rows, lsql=lsql, where=where, part=part):
        passing = set(r[0] for r in db.execute(
            "SELECT id FROM t" + (" WHERE " + where[1] if where else "")))
        acc = over_model(rows, passing, delay, part)
        db.execute("DELETE FROM acc")
        db.executemany("INSERT INTO acc SELECT * FROM t WHERE id = ?", [(r["id"],) for r in acc])
        out = []
        for r in db.execute(lsql):
            out.append([r[0]] + [Decimal(x) / 100 if k == "dec" and x is not None else x
                                 for x, k in zip(r[1:], q.kinds[1:])])
        return out
    q.expected = expected
    q.family = "over"
    return q


def rank_rows(rows, part, col, desc, nulls, n):
    """Top n per partition: sort by col (NULL ordering, then arrival)."""
    groups = collections.defaultdict(list)
    for r in rows:
        groups[r[part] if part else None].append(r)
    out = []
    for p, rs in groups.items():
        if nulls is None:
            nulls_first = not desc      # NULL is the smallest value
        else:
            nulls_first = nulls == "FIRST"
        nn = [r for r in rs if r[col] is None]
        vv = [r for r in rs if r[col] is not None]
        if desc:
            vv = stable_desc(vv, col)
        else:  # a stable sort keeps arrival order among equals
            vv.sort(key=lambda r: tuple(r[col].encode()) if isinstance(r[col], str) else r[col])
        ranked = (nn + vv) if nulls_first else (vv + nn)
        for i, r in enumerate(ranked[:n]):
            out.append((r, i + 1))
    return out


def stable_desc(rows, col):
    """rows sorted descending by col, equal values in arrival (id) order."""
    def key(r):
        v = r[col]
        return tuple(v.encode()) if isinstance(v, str) else v
    buckets = collections.OrderedDict()
    for r in sorted(rows, key=key, reverse=True):
        buckets.setdefault(key(r), []).append(r)
    out = []
    for v, rs in buckets.items():
        out += sorted(rs, key=lambda r: r["id"])
    return out


def tdiv(a, b):
    """a / b of SQL integers: the quotient truncated toward zero."""
    return a // b if a >= 0 else -((-a) // b)


DAY_MS = 86400000
# ORDER BY columns of time types, made from the row in the query (NULL where
# v is): (SQL, output kind, value in the oracle: days or milliseconds as
# printed, the order's too). Dates from 1956 to 2023, times of day around
# the clock from negative times, timestamps before 1970 and after; whole
# seconds where the type has no fraction (weir keeps milliseconds in every
# precision, docs/sql.md), so every value prints as it orders.
TIME_ORDER = {
    "date": ("TIMESTAMPADD(DAY, v * 977, DATE '1970-01-01')", lambda r: r["v"] * 977),
    "time0": ("TIMESTAMPADD(SECOND, CAST(MOD(ts_ms / 1000 + v, 86400) AS INT), TIME '00:00:00')",
              lambda r: (tdiv(r["ts"], 1000) + r["v"]) % 86400 * 1000),
    "time3": ("TIMESTAMPADD(MILLISECOND, CAST(MOD(ts_ms + v, %d) AS INT), TIME '00:00:00.000')" % DAY_MS,
              lambda r: (r["ts"] + r["v"]) % DAY_MS),
    "ts0": ("CAST(TO_TIMESTAMP_LTZ(v * 1000003 + MOD(id, 3), 0) AS TIMESTAMP(0))",
            lambda r: (r["v"] * 1000003 + r["id"] % 3) * 1000),
    "ts3": ("CAST(TO_TIMESTAMP_LTZ(ts_ms + v, 3) AS TIMESTAMP(3))", lambda r: r["ts"] + r["v"]),
    "ts6": ("CAST(TO_TIMESTAMP_LTZ(ts_ms + v, 3) AS TIMESTAMP(6))", lambda r: r["ts"] + r["v"]),
    "ts9": ("CAST(TO_TIMESTAMP_LTZ(ts_ms + v, 3) AS TIMESTAMP(9))", lambda r: r["ts"] + r["v"]),
    "ltz": ("TO_TIMESTAMP_LTZ(ts_ms + v, 3)", lambda r: r["ts"] + r["v"]),
}


def gen_topn(rng, qid):
    q = Query()
    part = rng.choice(["k", "s", None])
    if rng.random() < 0.4:
        return gen_topn_time(rng, part)
    col = rng.choice(["v", "s", "d", "ts_ms", "m"])
    desc = rng.random() < 0.5
    nulls = rng.choice([None, None, "FIRST", "LAST"])
    # up to 10 ranks: with the rank number a row shifts down one rank at a time and comes out
    # once per rank it passes, whole (its strings and NULLs too), in output batches of 1, 7 or 1024
    n = rng.randint(1, 4) if rng.random() < 0.7 else rng.randint(5, 10)
    with_rn = rng.random() < 0.5
    where = cond(rng) if rng.random() < 0.3 else None
    pw = "PARTITION BY %s " % part if part else ""
    order = "%s%s%s" % (col, " DESC" if desc else "", " NULLS " + nulls if nulls else "")
    inner = "SELECT id, k, s, %s, ROW_NUMBER() OVER (%sORDER BY %s) AS rn FROM t%s" % (
        "v" if col == "s" else col, pw, order, " WHERE " + where[0] if where else "")
    shown = "" if col == "s" else ", " + col
    q.weir = "SELECT id, k, s%s%s FROM (%s) WHERE rn <= %d" % (shown, ", rn" if with_rn else "", inner, n)
    q.kinds = (["big", "str", "str"] +
               ([] if col == "s" else [{"v": "int", "d": "dbl", "ts_ms": "big", "m": "dec"}[col]]) +
               (["big"] if with_rn else []))
    colkey = "ts" if col == "ts_ms" else col
    # m is DECIMAL(10,2), held here in cents (orders alike)
    shown_value = (lambda r: None if r["m"] is None else Decimal(r["m"]) / 100) if col == "m" else (lambda r: r[colkey])

    def expected(db, rows, where=where):
        passing = set(r[0] for r in db.execute(
            "SELECT id FROM t" + (" WHERE " + where[1] if where else "")))
        rs = [r for r in rows if r["id"] in passing]
        return [[r["id"], r["k"], r["s"]] + ([] if col == "s" else [shown_value(r)]) + ([i] if with_rn else [])
                for r, i in rank_rows(rs, part, colkey, desc, nulls, n)]
    q.expected = expected
    q.family = "topn"
    return q


def gen_topn_time(rng, part):
    """A Top-N ordered by a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ column
    (TIME_ORDER), which its kept rows leave out and rebuild from the sort
    key: the column is shown, so a value rebuilt wrong shows."""
    q = Query()
    kind = rng.choice(sorted(TIME_ORDER))
    expr, value = TIME_ORDER[kind]
    desc = rng.random() < 0.5
    nulls = rng.choice([None, None, "FIRST", "LAST"])
    n = rng.randint(1, 4) if rng.random() < 0.7 else rng.randint(5, 10)
    with_rn = rng.random() < 0.5
    where = cond(rng) if rng.random() < 0.3 else None
    pw = "PARTITION BY %s " % part if part else ""
    order = "o%s%s" % (" DESC" if desc else "", " NULLS " + nulls if nulls else "")
    inner = "SELECT id, k, s, o, ROW_NUMBER() OVER (%sORDER BY %s) AS rn FROM (SELECT id, k, s, %s AS o FROM t%s)" % (
        pw, order, expr, " WHERE " + where[0] if where else "")
    q.weir = "SELECT id, k, s, o%s FROM (%s) WHERE rn <= %d" % (", rn" if with_rn else "", inner, n)
    q.kinds = ["big", "str", "str", kind] + (["big"] if with_rn else [])

    def expected(db, rows, where=where):
        passing = set(r[0] for r in db.execute(
            "SELECT id FROM t" + (" WHERE " + where[1] if where else "")))
        rs = [dict(r, o=None if r["v"] is None else value(r)) for r in rows if r["id"] in passing]
        return [[r["id"], r["k"], r["s"], r["o"]] + ([i] if with_rn else [])
                for r, i in rank_rows(rs, part, "o", desc, nulls, n)]
    q.expected = expected
    q.family = "topn"
    return q


TOPN_AGGS = [("COUNT(*)", "big"), ("COUNT(v)", "big"), ("SUM(v)", "int"), ("MAX(v)", "int"), ("MIN(v)", "int")]


def gen_topn_agg(rng, qid):
    """ROW_NUMBER() over a GROUP BY k, s: SQLite runs the same query (its
    window functions rank the final aggregate); NULL is the smallest value
    in both."""
    q = Query()
    agg, kind = rng.choice(TOPN_AGGS)
    part = rng.random() < 0.6
    desc = rng.random() < 0.5
    tie = " DESC" if rng.random() < 0.5 else ""
    lo = rng.choice([1, 1, 1, 2, 3])
    hi = lo + rng.randint(0, 3)
    with_rn = rng.random() < 0.5
    where = cond(rng) if rng.random() < 0.3 else None
    having = " HAVING COUNT(*) > %d" % rng.randint(1, 3) if rng.random() < 0.2 else ""
    order = "a%s, %ss%s" % (" DESC" if desc else "", "" if part else "k%s, " % tie, tie)
    bound = "rn <= %d" % hi if lo == 1 and rng.random() < 0.7 else "rn BETWEEN %d AND %d" % (lo, hi)

    same = rng.random() < 0.3  # ROW_NUMBER() beside the GROUP BY, ordered by the aggregate itself

    def text(w):
        if same:
            return ("SELECT k, s, a%s FROM (SELECT k, s, %s AS a, ROW_NUMBER() OVER (%sORDER BY %s) AS rn "
                    "FROM t%s GROUP BY k, s%s) WHERE %s" % (
                        ", rn" if with_rn else "", agg, "PARTITION BY k " if part else "",
                        agg + order[1:], " WHERE " + w if w else "", having, bound))
        return ("SELECT k, s, a%s FROM (SELECT k, s, a, ROW_NUMBER() OVER (%sORDER BY %s) AS rn FROM "
                "(SELECT k, s, %s AS a FROM t%s GROUP BY k, s%s)) WHERE %s" % (
                    ", rn" if with_rn else "", "PARTITION BY k " if part else "", order, agg,
                    " WHERE " + w if w else "", having, bound))
    q.weir = text(where[0] if where else None)
    lsql = text(where[1] if where else None)
    q.kinds = ["str", "str", kind] + (["big"] if with_rn else [])
    q.expected = lambda db, rows, lsql=lsql: [list(r) for r in db.execute(lsql)]
    q.family = "topnagg"
    return q


def gen_limit(rng, qid):
    """ORDER BY ... LIMIT: SQLite runs the same query; the order is total
    (id, or the group key, ends it), so the rows kept do not depend on the
    arrival order of updates."""
    q = Query()
    desc = " DESC" if rng.random() < 0.5 else ""
    n = rng.randint(1, 5)
    off = " OFFSET %d" % rng.randint(1, 3) if rng.random() < 0.3 else ""
    where = cond(rng) if rng.random() < 0.3 else None
    if rng.random() < 0.5:
        col = rng.choice(["v", "d", "s", "ts_ms"])
        text = "SELECT id, k, %s FROM t%%s ORDER BY %s%s, id LIMIT %d%s" % (col, col, desc, n, off)
        q.kinds = ["big", "str", {"v": "int", "d": "dbl", "s": "str", "ts_ms": "big"}[col]]
        lcol = "ts" if col == "ts_ms" else col
        lsql = "SELECT id, k, %s FROM t%%s ORDER BY %s%s, id LIMIT %d%s" % (lcol, lcol, desc, n, off)
    else:
        agg, kind = rng.choice(TOPN_AGGS)
        text = "SELECT k, %s AS a FROM t%%s GROUP BY k ORDER BY a%s, k%s LIMIT %d%s" % (agg, desc, desc, n, off)
        q.kinds = ["str", kind]
        lsql = text
    q.weir = text % (" WHERE " + where[0] if where else "")
    lsql = lsql % (" WHERE " + where[1] if where else "")
    q.expected = lambda db, rows, lsql=lsql: [list(r) for r in db.execute(lsql)]
    q.family = "limit"
    return q


def tsort_model(rows, passing, delay, col, desc):
    """The temporal sort's output, in order: rows wait until the watermark
    rises above their ts; each firing emits the fired rows by (ts, col,
    arrival); a row whose ts is not after the last ts emitted is late. Every
    row moves the watermark (made at the source, before any WHERE)."""
    def cmp(a, b):
        if a["ts"] != b["ts"]:
            return -1 if a["ts"] < b["ts"] else 1
        if col is None:
            return 0
        x, y = a[col], b[col]
        if x == y or (x is None and y is None):
            return 0
        if x is None:   # NULL is the smallest value: first ASC, last DESC
            c = -1
        elif y is None:
            c = 1
        else:
            c = -1 if x < y else 1
        return -c if desc else c
    W = float("-inf")
    last = float("-inf")
    pending, out = [], []

    def fire(upto):
        nonlocal pending, last
        ready = sorted([x for x in pending if x["ts"] < upto], key=functools.cmp_to_key(cmp))
        pending = [x for x in pending if x["ts"] >= upto]
        if ready:
            last = max(last, ready[-1]["ts"])
        out.extend(ready)
    for r in rows:
        if r["id"] in passing and r["ts"] > last:
            pending.append(r)
        nw = max(W, r["ts"] - delay)
        if nw > W:
            W = nw
            fire(W)
    fire(float("inf"))
    return out


def gen_tsort(rng, qid, delay):
    q = Query()
    col = rng.choice([None, "v", "s", "d"])
    desc = col is not None and rng.random() < 0.5
    where = cond(rng) if rng.random() < 0.3 else None
    q.weir = "SELECT id, k, ts_ms FROM (SELECT id, k, ts_ms, ts%s FROM t%s ORDER BY ts%s)" % (
        ", " + col if col else "", " WHERE " + where[0] if where else "",
        ", %s%s" % (col, " DESC" if desc else "") if col else "")
    q.kinds = ["big", "str", "big"]
    q.ordered = True

    def expected(db, rows, where=where, col=col, desc=desc):
        passing = set(r[0] for r in db.execute(
            "SELECT id FROM t" + (" WHERE " + where[1] if where else "")))
        return [[r["id"], r["k"], r["ts"]] for r in tsort_model(rows, passing, delay, col, desc)]
    q.expected = expected
    q.family = "tsort"
    return q


def gen_dedup(rng, qid):
    q = Query()
    part = rng.choice(["k", "s"])
    last = rng.random() < 0.5
    q.weir = ("SELECT id, %s, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY ts%s) AS rn "
              "FROM t) WHERE rn = 1" % (part, part, " DESC" if last else ""))
    q.kinds = ["big", "str", "int"]

    def expected(db, rows, part=part, last=last):
        keep = {}
        for r in rows:
            p = r[part]
            cur = keep.get(p)
            if cur is None or (r["ts"] >= cur["ts"] if last else r["ts"] < cur["ts"]):
                keep[p] = r
        return [[r["id"], r[part], r["v"]] for r in keep.values()]
    q.expected = expected
    q.family = "dedup"
    return q


def gen_join(rng, qid, delay):
    r = rng.random()
    if r < 0.25:
        return gen_interval_join(rng, delay)
    if r < 0.4:
        return gen_agg_over_join(rng)
    if r < 0.5:
        return gen_join_over_aggs(rng)
    q = Query()
    kind = rng.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN"])
    key = rng.choice([("k", "k"), ("s", "s"), ("v", "v")])
    resid = None
    if rng.random() < 0.3:
        resid = "a.id < b.id"
    on = "a.%s = b.%s%s" % (key[0], key[1], " AND " + resid if resid else "")
    wa = cond(rng) if rng.random() < 0.5 else None
    wb = cond(rng) if rng.random() < 0.5 else None
    q.weir = ("SELECT a.id, b.id, a.%s FROM (SELECT * FROM t%s) a %s (SELECT * FROM t2%s) b ON %s"
              % (key[0], " WHERE " + wa[0] if wa else "", kind, " WHERE " + wb[0] if wb else "", on))
    q.kinds = ["big", "big", "int" if key[0] == "v" else "str"]
    lsql = ("SELECT a.id, b.id, a.%s FROM (SELECT * FROM t%s) a %s (SELECT * FROM t%s) b ON %s"
            % (key[0], " WHERE " + wa[1] if wa else "", kind, " WHERE " + wb[1] if wb else "", on))
    q.expected = lambda db, rows, lsql=lsql: [list(r) for r in db.execute(lsql)]
    q.family = "join"
    return q


def not_late(rows, delay):
    """Ids of the rows an interval join keeps: a row whose time is behind
    its own input's watermark (ts < W, W made by the rows before it) is
    late. Both inputs read the same file, so they have the same W."""
    W = float("-inf")
    keep = set()
    for r in rows:
        if r["ts"] >= W:
            keep.add(r["id"])
        W = max(W, r["ts"] - delay)
    return keep


def gen_interval_join(rng, delay):
    q = Query()
    kind = rng.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN"])
    lo = rng.choice([0, 500, 1000, 3000])
    hi = rng.choice([0, 1, 500, 2000])
    key = rng.choice(["k", "s"])
    wa = cond(rng) if rng.random() < 0.3 else None
    q.weir = ("SELECT a.id, b.id FROM (SELECT * FROM t%s) a %s t2 b ON a.%s = b.%s AND "
              "a.ts BETWEEN b.ts - INTERVAL '%d' MILLISECOND AND b.ts + INTERVAL '%d' MILLISECOND"
              % (" WHERE " + wa[0] if wa else "", kind, key, key, lo, hi))
    q.kinds = ["big", "big"]
    lsql = ("SELECT a.id, b.id FROM (SELECT * FROM t WHERE id IN (SELECT id FROM keep)%s) a %s "
            "(SELECT * FROM t WHERE id IN (SELECT id FROM keep)) b ON a.%s = b.%s AND "
            "a.ts BETWEEN b.ts - %d AND b.ts + %d" % (" AND (" + wa[1] + ")" if wa else "", kind,
                                                     key, key, lo, hi))

    def expected(db, rows, lsql=lsql):
        db.execute("DELETE FROM keep")
        db.executemany("INSERT INTO keep VALUES (?)", [(i,) for i in not_late(rows, delay)])
        return [list(r) for r in db.execute(lsql)]
    q.expected = expected
    q.family = "join"
    return q


def gen_agg_over_join(rng):
    """A GROUP BY over an outer join: the join's retractions (a row that
    first came out with NULLs is withdrawn when its match arrives) must
    reach the aggregate."""
    q = Query()
    kind = rng.choice(["JOIN", "LEFT JOIN", "FULL OUTER JOIN"])
    q.weir = ("SELECT a.k, COUNT(*), COUNT(b.id), SUM(b.v) FROM t a %s t2 b ON a.k = b.s "
              "GROUP BY a.k" % kind)
    q.kinds = ["str", "big", "big", "int"]
    lsql = ("SELECT a.k, COUNT(*), COUNT(b.id), SUM(b.v) FROM t a %s t b ON a.k = b.s "
            "GROUP BY a.k" % kind)
    q.expected = lambda db, rows, lsql=lsql: [list(r) for r in db.execute(lsql)]
    q.family = "join"
    return q


def gen_join_over_aggs(rng):
    """A join of two updating inputs (two GROUP BYs)."""
    q = Query()
    kind = rng.choice(["JOIN", "LEFT JOIN", "FULL OUTER JOIN"])
    q.weir = ("SELECT x.k, x.c, y.c, y.sv FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) x %s "
              "(SELECT s, COUNT(*) AS c, SUM(v) AS sv FROM t2 GROUP BY s) y ON x.k = y.s" % kind)
    q.kinds = ["str", "big", "big", "int"]
    lsql = ("SELECT x.k, x.c, y.c, y.sv FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) x %s "
            "(SELECT s, COUNT(*) AS c, SUM(v) AS sv FROM t GROUP BY s) y ON x.k = y.s" % kind)
    q.expected = lambda db, rows, lsql=lsql: [list(r) for r in db.execute(lsql)]
    q.family = "join"
    return q


def gen_semi(rng, qid):
    """IN / EXISTS subqueries: weir plans them as semi and anti joins, SQLite
    evaluates them as written (its NOT IN follows SQL's NULL rule)."""
    q = Query()
    neg = rng.random() < 0.5
    col = rng.choice([("k", "str"), ("s", "str"), ("v", "int")])
    inner_cond = cond(rng) if rng.random() < 0.4 else None
    outer_cond = cond(rng) if rng.random() < 0.3 else None
    shape = rng.choice(["in", "in", "in_corr", "exists", "exists", "exists_left", "upd_left", "upd_right"])
    sel_w = sel_l = "a.id, a.%s" % col[0]
    q.kinds = ["big", col[1]]
    frm_w, frm_l = "t a", "t a"
    if shape == "upd_left":
        # the left input is updating: counts per value of col
        sel_w = sel_l = "a.%s, a.c" % col[0]
        frm_w = frm_l = "(SELECT %s, COUNT(*) AS c FROM t GROUP BY %s) a" % (col[0], col[0])
        q.kinds = [col[1], "big"]
        outer_cond = None
    ic = (" AND " + inner_cond[0], " AND " + inner_cond[1]) if inner_cond else ("", "")
    if shape in ("in", "upd_left"):
        n = rng.randint(0, 30)
        sub = ("a.%s %sIN (SELECT b.%s FROM t2 b WHERE b.id > %d%s)" % (col[0], "NOT " if neg else "", col[0], n, ic[0]),
               "a.%s %sIN (SELECT b.%s FROM t b WHERE b.id > %d%s)" % (col[0], "NOT " if neg else "", col[0], n, ic[1]))
    elif shape == "in_corr":
        other = "s" if col[0] == "k" else "k"
        sub = ("a.%s %sIN (SELECT b.%s FROM t2 b WHERE b.%s = a.%s%s)" % (col[0], "NOT " if neg else "", col[0],
                                                                        other, other, ic[0]),
               "a.%s %sIN (SELECT b.%s FROM t b WHERE b.%s = a.%s%s)" % (col[0], "NOT " if neg else "", col[0],
                                                                       other, other, ic[1]))
    elif shape == "upd_right":
        # subquery rows come (count reaches 1) and go (count passes the bound)
        hb = rng.randint(1, 3)
        sub = ("a.%s %sIN (SELECT %s FROM t2 GROUP BY %s HAVING COUNT(*) <= %d)" % (col[0], "NOT " if neg else "",
                                                                                  col[0], col[0], hb),) * 2
        sub = (sub[0], sub[1].replace(" FROM t2 ", " FROM t "))
    else:
        resid = " AND b.id < a.id" if rng.random() < 0.4 else ""
        left = " AND a.v > %d" % rng.randint(-3, 10) if shape == "exists_left" else ""
        body = "b.%s = a.%s%s%s" % (col[0], col[0], resid, left)
        sub = ("%sEXISTS (SELECT * FROM t2 b WHERE %s%s)" % ("NOT " if neg else "", body, ic[0]),
               "%sEXISTS (SELECT * FROM t b WHERE %s%s)" % ("NOT " if neg else "", body, ic[1]))
    oc = ("(%s) AND " % outer_cond[0], "(%s) AND " % outer_cond[1]) if outer_cond else ("", "")
    q.weir = "SELECT %s FROM %s WHERE %s%s" % (sel_w, frm_w, oc[0], sub[0])
    lsql = "SELECT %s FROM %s WHERE %s%s" % (sel_l, frm_l, oc[1], sub[1])
    q.expected = lambda db, rows, lsql=lsql: [list(r) for r in db.execute(lsql)]
    q.family = "semi"
    return q


# --------------------------------------------------------------------------
# Jobs

class Job:
    pass


def gen_job(seed, index, fams, max_queries):
    rng = random.Random("cl/%d/%d" % (seed, index))
    j = Job()
    j.seed, j.index = seed, index
    j.rows = sd.gen_rows(rng)
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.delay = rng.choice([0, 0, 500, 1000, 3000])
    fams = sorted(fams)
    j.queries = []
    for i in range(rng.randint(1, max_queries)):
        f = rng.choice(fams)
        if f == "group":
            q = gen_group(rng, i)
        elif f == "over":
            q = gen_over(rng, i, j.delay)
        elif f == "topn":
            q = gen_topn(rng, i)
        elif f == "topnagg":
            q = gen_topn_agg(rng, i)
        elif f == "limit":
            q = gen_limit(rng, i)
        elif f == "tsort":
            q = gen_tsort(rng, i, j.delay)
        elif f == "dedup":
            q = gen_dedup(rng, i)
        elif f == "semi":
            q = gen_semi(rng, i)
        else:
            q = gen_join(rng, i, j.delay)
        q.qid = i
        j.queries.append(q)
    # two-phase GROUP BY (table.optimizer.agg-phase-strategy, with mini-batch) must not change a result
    j.mini = rng.random() < 0.5
    j.phase = rng.choice([None, "AUTO", "ONE_PHASE", "TWO_PHASE", "TWO_PHASE"])
    # split distinct aggregation must not change a final result (the changelog on the way may differ)
    j.split = rng.choice([None, "false", "true", "true"])
    j.buckets = rng.choice([None, 1, 3, 1024]) if j.split == "true" else None
    # the same results with the state on RocksDB (the Top-N's lists are rewritten by a get and a put there)
    j.rocksdb = rng.random() < 0.3
    return j


def sink_type(kind):
    return {"big": "BIGINT", "int": "INT", "str": "STRING", "dec": "DECIMAL(18, 2)",
            "dec6": "DECIMAL(38, 6)", "dbl": "DOUBLE", "date": "DATE", "time0": "TIME(0)", "time3": "TIME(3)",
            "ts0": "TIMESTAMP(0)", "ts3": "TIMESTAMP(3)", "ts6": "TIMESTAMP(6)", "ts9": "TIMESTAMP(9)",
            "ltz": "TIMESTAMP_LTZ(3)"}[kind]


def parse_value(kind, text):
    """A printed value: a DATE as days since 1970-01-01, a TIME as
    milliseconds of the day, a timestamp as epoch milliseconds (an LTZ's
    in UTC, the session's zone); others as sql_diff reads them."""
    if text == "null":
        return None
    if kind == "date":
        y, mo, d = text.split("-")
        return (datetime.date(int(y), int(mo), int(d)) - datetime.date(1970, 1, 1)).days
    if kind.startswith("time"):
        hms, _, frac = text.partition(".")
        f = [int(x) for x in hms.split(":")] + [0]
        return ((f[0] * 60 + f[1]) * 60 + f[2]) * 1000 + int((frac or "0")[:3].ljust(3, "0"))
    if kind.startswith("ts") or kind == "ltz":
        return sd.parse_ts(text[:-1] if kind == "ltz" and text.endswith("Z") else text)
    return sd.parse_value(kind, text)


def job_sql(j, queries):
    wm = "ts" if j.delay == 0 else "ts - INTERVAL '%d.%03d' SECOND" % (j.delay // 1000, j.delay % 1000)
    out = ["-- changelog_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", state on RocksDB" if getattr(j, "rocksdb", False) else "")]
    for name in ("t", "t2"):
        out.append("CREATE TABLE %s (id BIGINT, k STRING, ts_ms BIGINT, v INT, d DOUBLE, "
                   "m DECIMAL(10,2), s STRING, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), "
                   "WATERMARK FOR ts AS %s) WITH ('connector' = 'filesystem', "
                   "'path' = 'in.json', 'format' = 'json');" % (name, wm))
    out.append("SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';")
    if j.mini:
        out.append("SET 'table.exec.mini-batch.enabled' = 'true';")
    if j.phase:
        out.append("SET 'table.optimizer.agg-phase-strategy' = '%s';" % j.phase)
    if j.split:
        out.append("SET 'table.optimizer.distinct-agg.split.enabled' = '%s';" % j.split)
    if j.buckets:
        out.append("SET 'table.optimizer.distinct-agg.split.bucket-num' = '%d';" % j.buckets)
    for q in queries:
        cols = ", ".join("c%d %s" % (i, sink_type(k)) for i, k in enumerate(q.kinds))
        out.append("CREATE TABLE %s%d (%s) WITH ('connector' = 'print', 'print-identifier' = '%s%d');"
                   % (LINE_PREFIX, q.qid, cols, LINE_PREFIX, q.qid))
        out.append("INSERT INTO %s%d %s;" % (LINE_PREFIX, q.qid, q.weir))
    return "\n".join(out) + "\n"


def open_db(rows):
    db = sqlite3.connect(":memory:")
    cols = "id INTEGER PRIMARY KEY, k TEXT, ts INTEGER, v INTEGER, d REAL, m INTEGER, s TEXT"
    db.execute("CREATE TABLE t (%s)" % cols)
    db.execute("CREATE TABLE acc (%s)" % cols)
    db.execute("CREATE TABLE keep (id INTEGER PRIMARY KEY)")
    db.executemany("INSERT INTO t VALUES (?,?,?,?,?,?,?)",
                   [(r["id"], r["k"], r["ts"], r["v"], r["d"], r["m"], r["s"]) for r in rows])
    # binary string order, as weir compares strings
    return db


def norm(kind, v):
    if v is None:
        return None
    if kind == "dec":
        return Decimal(v).normalize()
    if kind == "dbl":
        return float(v)
    return v


def check(case, j, queries, folder):
    """{qid: [problems]} for `queries` run together as one job, plus
    job-level problems under key None."""
    sd_lines, err = sd.run_weir(case, j, queries, folder, job_sql)
    if err is not None:
        return {None: [err]}
    return check_lines(j, queries, sd_lines)


def check_lines(j, queries, sd_lines):
    """{qid: [problems]} for the print sinks' lines of job j's `queries`
    (as `qN[:subtask]> +I[...]`), compared with the oracle; job-level
    problems under key None."""
    counts = collections.defaultdict(collections.Counter)
    seqs = collections.defaultdict(list)  # the lines of each query in order (one subtask: tsort)
    held = collections.defaultdict(collections.Counter)  # sink subtask -> rows it holds
    order = collections.defaultdict(list)  # qid -> retractions ahead of their rows
    bad = []
    for line in sd_lines:
        head, sep, rest = line.partition("> ")
        if not sep or not head.startswith(LINE_PREFIX) or len(rest) < 4 or rest[2] != "[" or rest[-1] != "]":
            if line.strip():
                bad.append(line)
            continue
        qid = head.split(":")[0]
        sign = 1 if rest[:2] in ("+I", "+U") else -1
        counts[qid][rest[3:-1]] += sign
        seqs[qid].append(rest)
        # each sink subtask prints rows in the order it got them, and every
        # change of a key travels one path: a -U/-D follows its row there
        h = held[head]
        h[rest[3:-1]] += sign
        if h[rest[3:-1]] < 0:
            order[qid].append("%s reached %s before its row" % (rest, head))
            h[rest[3:-1]] = 0
    db = open_db(j.rows)
    result = {}
    for q in queries:
        want = collections.Counter()
        for vals in q.expected(db, j.rows):
            want[tuple(norm(k, v) for k, v in zip(q.kinds, vals))] += 1
        got = collections.Counter()
        probs = []
        for text, n in counts.get("%s%d" % (LINE_PREFIX, q.qid), collections.Counter()).items():
            if n == 0:
                continue
            if n < 0:
                probs.append("retracted more often than emitted (%d): [%s]" % (n, text))
                continue
            f = text.split(", ")
            if len(f) != len(q.kinds):
                probs.append("row has %d fields, expected %d: [%s]" % (len(f), len(q.kinds), text))
                continue
            try:
                got[tuple(norm(k, parse_value(k, x))
                          for k, x in zip(q.kinds, f))] += n
            except (ValueError, ArithmeticError) as e:
                probs.append("cannot parse [%s]: %s" % (text, e))
        if getattr(q, "ordered", False) and got == want:
            # the same rows: now their order (all +I)
            seq = []
            for text in seqs.get("%s%d" % (LINE_PREFIX, q.qid), []):
                f = text[3:-1].split(", ")
                seq.append((text[:2],) + tuple(norm(k, parse_value(k, x)) for k, x in zip(q.kinds, f)))
            exp = [("+I",) + tuple(norm(k, v) for k, v in zip(q.kinds, vals)) for vals in q.expected(db, j.rows)]
            if seq != exp:
                at = next(i for i in range(min(len(seq), len(exp)) + 1)
                          if i >= len(seq) or i >= len(exp) or seq[i] != exp[i])
                probs.append("%s: order differs at line %d: got %s, expected %s" % (
                    q.family, at, seq[at:at + 3], exp[at:at + 3]))
        ooo = order.get("%s%d" % (LINE_PREFIX, q.qid))
        if ooo:
            probs.append("%s: %d retraction(s) out of order, e.g. %s" % (q.family, len(ooo), "; ".join(ooo[:3])))
        if got != want:
            miss = sorted((want - got).elements(), key=repr)
            extra = sorted((got - want).elements(), key=repr)
            probs.append("%s: missing %d %s, unexpected %d %s" % (
                q.family, len(miss), miss[:4], len(extra), extra[:4]))
        if probs:
            result[q.qid] = probs
    if bad:
        result[None] = ["unparsed output: %s" % b for b in bad[:5]]
    db.close()
    return result


def run_case(case):
    fams = families(case.args.families)
    j = gen_job(case.seed, case.index, fams, case.args.max_queries)
    case.note = "(parallelism %d, batch size %d, %d queries%s)" % (j.parallelism, j.batch, len(j.queries),
                                                                    ", rocksdb" if j.rocksdb else "")
    case.counts.update(q.family for q in j.queries)
    return sd.job_problems(case, j, check)


def families(spec):
    return diffrun.families(spec, ALL_FAMILIES)


def add_args(ap):
    ap.add_argument("--max-queries", type=int, default=int(os.environ.get("WEIR_CLDIFF_QUERIES", "12")),
                    help="queries a job at the most (default: $WEIR_CLDIFF_QUERIES, else 12)")
    ap.add_argument("--families", default=os.environ.get("WEIR_CLDIFF_FAMILIES", ""),
                    help="comma list; -name leaves a family out (%s)" % ", ".join(sorted(ALL_FAMILIES)))


def main():
    return diffrun.main("changelog_diff", run_case, jobs_env="WEIR_CLDIFF_JOBS", jobs=40, asan_jobs=10,
                        one_env="WEIR_CLDIFF_JOB", unit="jobs", add_args=add_args,
                        out_env="WEIR_CLDIFF_OUT", max_failures=10, timeout=120,
                        describe=lambda a: "up to %d queries each, families %s"
                        % (a.max_queries, ",".join(sorted(families(a.families)))))


if __name__ == "__main__":
    sys.exit(main())
