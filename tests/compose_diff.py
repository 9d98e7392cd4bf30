#!/usr/bin/env python3
"""Randomized differential test of SQL features composed with each other,
where the one-family generators do not look.

Each job is two random CSV inputs (small domains with NULLs, so keys
repeat, meet and miss)

    a (id INT, k INT, g BIGINT, v INT, s STRING)     b (k BIGINT, w INT, s STRING)

(a.g is now and then a small value plus 2^32, which a key hashed or compared in 32 bits would mix up)

and random queries of these shapes (c, c2, x small random constants; every
query reads both tables or composes two features):

    cte-twice     WITH c AS (SELECT k, SUM(v) AS sv, COUNT(*) AS n FROM a WHERE v > c GROUP BY k)
                  SELECT x.k, x.sv, y.n FROM c AS x JOIN c AS y ON x.k = y.k + c2   (a CTE read twice)
    view-rename   CREATE VIEW v1 (kk, vv) AS SELECT k, v FROM a WHERE ...;
                  CREATE VIEW v2 AS SELECT kk AS key2, vv * 2 AS x2 FROM v1 WHERE ...;
                  SELECT key2, COUNT(*), SUM(x2) FROM v2 GROUP BY key2   (views over views, renamed)
    wide-join     SELECT a.id, b.w FROM a [LEFT] JOIN b ON a.k = b.k   (INT = BIGINT keys; or
                  a.g = b.k, a.k + 1 = b.k, COALESCE(a.k, -1) = COALESCE(b.k, -1), CAST(a.k AS BIGINT) = b.k)
    case-group    SELECT CASE ... END AS c, COUNT(*), SUM(v) FROM a GROUP BY CASE ... END (NULL groups)
    cast-group    SELECT CAST(v AS BIGINT) + g AS key, COUNT(*), MIN(id) FROM a GROUP BY CAST(v AS BIGINT) + g
    having-sub    SELECT k, COUNT(*) FROM a GROUP BY k HAVING COUNT(*) > (SELECT COUNT(*) FROM b WHERE w > c)
                  [- c2]   (an uncorrelated scalar subquery in HAVING)
    union-group   SELECT k, COUNT(*), SUM(v) FROM (SELECT k, v FROM a WHERE ... UNION ALL
                  SELECT k, w FROM b WHERE ...) GROUP BY k   (INT and BIGINT unioned)
    topn-join     SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY MOD(k, 2) ORDER BY n DESC, k)
                  AS rn FROM (SELECT a.k, COUNT(*) AS n FROM a JOIN b ON a.k = b.k GROUP BY a.k)) WHERE rn <= c
    left-group    SELECT b.w, COUNT(a.id), SUM(a.v) FROM a LEFT JOIN b ON a.k = b.k GROUP BY b.w
                  (a left join's retractions under an aggregation grouped by a padded column)
    agg-agg       SELECT n, COUNT(*) FROM (SELECT k, COUNT(*) AS n FROM a GROUP BY k) GROUP BY n
    full-expr     SELECT a.id, b.w FROM a FULL JOIN b ON a.k + 1 = b.k
    union-limit   SELECT id, v FROM (SELECT id, v FROM a UNION ALL SELECT w, w FROM b) ORDER BY v DESC, id LIMIT c
    distinct-union SELECT k, s FROM a UNION SELECT k, s FROM b   (then GROUP BY s, COUNT(*))
    self-group    SELECT x.k, COUNT(*), SUM(y.v) FROM a AS x JOIN a AS y ON x.k = y.k AND x.id < y.id GROUP BY x.k
    in-union      SELECT id FROM a WHERE k IN (SELECT k FROM b UNION ALL SELECT g FROM a WHERE v > c)
    left-on-filter SELECT a.id, b.w FROM a LEFT JOIN b ON a.k = b.k AND a.v > c AND b.w <> c2
                  (a condition on the preserved side in ON keeps its rows, padded)
    right-where   SELECT a.id, b.w FROM a RIGHT JOIN b ON key WHERE a.id IS NULL OR a.v > c
    not-distinct-join SELECT a.id, b.w FROM a [LEFT] JOIN b ON a.k IS NOT DISTINCT FROM b.k (NULL keys meet)
    rollup        SELECT k, s, COUNT(*), SUM(v) FROM a GROUP BY ROLLUP(k, s)   (SQLite: three GROUP BYs
                  unioned; the set () has no row over no rows, as a streaming aggregation)
    three-way     SELECT a.id, a2.id, b.s FROM a JOIN b ON key JOIN a AS a2 ON b.w = a2.v
    dedup-union   SELECT k, id FROM (SELECT k, id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id [DESC]) AS rn
                  FROM (SELECT k, id FROM a WHERE ... UNION ALL SELECT k, w FROM b)) WHERE rn = 1
    having-corr   SELECT k, COUNT(*) FROM a GROUP BY k HAVING COUNT(*) + c2 >= (SELECT COUNT(*) FROM b
                  WHERE b.k = a.k)   (correlated by the group key)
    filter-join   SELECT b.s, COUNT(*) FILTER (WHERE a.v > c), COUNT(DISTINCT a.k), SUM(b.w) FILTER
                  (WHERE a.s = b.s) FROM a JOIN b ON key GROUP BY b.s
    nested-cte    WITH c1 AS (... FROM a), c2 AS (... FROM c1 GROUP BY k) SELECT ... FROM c2 JOIN c1 ...
    limit-offset  ORDER BY n DESC, k LIMIT c OFFSET c2 over GROUP BY k over UNION ALL
    intersect-agg SELECT k FROM a GROUP BY k HAVING COUNT(*) > c2 INTERSECT | EXCEPT SELECT k FROM b WHERE w > c
    minmax-left   SELECT a.k, MIN(b.w), MAX(b.w), COUNT(DISTINCT b.w) FROM a LEFT JOIN b ON key GROUP BY a.k
                  (the padded row retracted when its partner comes: MIN/MAX/DISTINCT under retraction)
    agg-left-agg  SELECT n, COUNT(*), SUM(k) FROM (SELECT a.k, COUNT(b.w) AS n FROM a LEFT JOIN b ON key
                  GROUP BY a.k) GROUP BY n
    distinct-full SELECT DISTINCT a.s, b.s FROM a FULL JOIN b ON key
    unnest-group  SELECT x, COUNT(*), MAX(id) FROM (SELECT * FROM a WHERE ...) CROSS JOIN UNNEST(ARRAY[k, v])
                  AS t (x) GROUP BY x   (SQLite: the two elements as a UNION ALL)

A third of the jobs are event-time jobs instead: inputs ta and tb (id INT, k STRING, v INT, ts_ms,
ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK ts - delay, delay 0/1/3 s) whose rows arrive out of order by
less than the delay, so that no row is late at its own source, and window queries (TUMBLE 5 s, HOP 6 s
by 2 s, CUMULATE 6 s by 2 s) over compositions:

    u   (kk, vv, tt) a view of SELECT ... FROM ta WHERE ... UNION ALL SELECT ... FROM tb WHERE ...
    ijl, ijr  an interval join ta.k = tb.k AND ta.ts BETWEEN tb.ts - 2 s AND tb.ts + 1 s, keeping ta.ts
              (ijl) or tb.ts (ijr) as its time attribute

    win-union          SELECT window_start, window_end, kk, COUNT(*), SUM(vv) FROM TVF(u) GROUP BY ...
    win-interval-join  the same over ijl or ijr (a window over the join's output, re-stamped by ijr)
    win-cascade-union  TUMBLE 10 s over a view of the window aggregation of u, by its window_time
    win-topn-union     window Top-N (ROW_NUMBER() OVER (PARTITION BY window_start, window_end
                       ORDER BY n DESC, k) <= 1..3) over the window aggregation of u

In a third of the event-time jobs some rows are moved far back, late at their source, and every
query is win-interval-join: the join drops a row behind its own input's watermark (the largest time
before it, less the delay) and joins the others, each pair counting in its windows.
The union's watermark is its inputs' least, and an interval join's output is never late for a window
after it, so every row counts: the oracle expands each row of the union (or each joined pair) into its
windows and lets SQLite aggregate them (a cascade's window_time is window_end - 1 ms).

Results go to debezium-json files, are folded into their tables (a delete
must find its row) and compared with SQLite's result of the same query (an
independent engine over the same rows; the query text is the same but for
CREATE VIEW, which SQLite also has). weir runs at a random parallelism
(1/2/4) and batch size (1/7/1024), on the memory or the RocksDB state
backend, all queries of a job in one statement set reading the same
sources.

Usage: compose_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_COMPOSEDIFF_JOB=i runs one job.
"""

import argparse
import collections
import datetime
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

SHAPES = ["cte-twice", "view-rename", "wide-join", "case-group", "cast-group", "having-sub", "union-group",
          "topn-join", "left-group", "agg-agg", "full-expr", "union-limit", "distinct-union", "self-group",
          "in-union", "left-on-filter", "right-where", "not-distinct-join", "rollup", "three-way", "dedup-union",
          "having-corr", "filter-join", "nested-cte", "limit-offset", "intersect-agg", "unnest-group", "minmax-left",
          "agg-left-agg", "distinct-full"]
TIME_SHAPES = ["win-union", "win-interval-join", "win-cascade-union", "win-topn-union"]
TVFS = [("TUMBLE", 5000, None), ("HOP", 6000, 2000), ("CUMULATE", 6000, 2000)]
JOIN_KEYS = ["a.k = b.k", "a.g = b.k", "a.k + 1 = b.k", "COALESCE(a.k, -1) = COALESCE(b.k, -1)",
             "CAST(a.k AS BIGINT) = b.k"]
CASES = ["CASE WHEN v > %d THEN 'hi' WHEN v IS NULL THEN NULL ELSE 'lo' END",
         "CASE k WHEN %d THEN 'aa' WHEN 1 THEN 'bb' END",
         "COALESCE(s, 'zz')",
         "CASE WHEN k IS NULL THEN v ELSE k + %d END"]


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.rocksdb = rng.random() < 0.3
    nk = rng.randint(1, 5)

    def val(n, p_null):
        return None if rng.random() < p_null else rng.randint(0, n)

    def s():
        return None if rng.random() < 0.15 else rng.choice(["x", "y", "z"])
    def wide(x):  # a BIGINT past 32 bits now and then: equal to a small key in its low bits only
        return x + (1 << 32) if x is not None and rng.random() < 0.1 else x
    j.a = [(i, val(nk - 1, 0.15), wide(val(nk, 0.15)), val(6, 0.15), s()) for i in range(rng.randint(0, 25))]
    j.b = [(val(nk, 0.15), val(6, 0.15), s()) for _ in range(rng.randint(0, 20))]
    j.delay = None
    if rng.random() < 0.35:
        gen_time_job(rng, j)
        return j
    j.queries = []
    for qi in range(6):
        q = argparse.Namespace(shape=rng.choice(SHAPES), c=rng.randint(0, 4), c2=rng.randint(-1, 2),
                               left=rng.random() < 0.5, key=rng.choice(JOIN_KEYS), case=rng.choice(CASES),
                               name="q%d" % qi)
        j.queries.append(q)
    return j


def gen_time_job(rng, j):
    """An event-time job: inputs ta and tb out of order by less than their watermark delay (so no
    row is late at its own source) and six window queries over a union or an interval join."""
    j.delay = rng.choice([0, 1, 3])

    t0, n = rng.choice([0, 1_700_000_000_000]), rng.choice([0, 5, 30, 120])

    def rows():  # both inputs over the same span of time, so that the joins meet
        t, out = t0, []
        for i in range(n if rng.random() < 0.8 else rng.choice([0, 5, 30, 120])):
            t += rng.choice([0, 300, 700, 1500])
            out.append((i, rng.choice(["p", "q", "r"]), None if rng.random() < 0.15 else rng.randint(0, 9), t))
        # arrival order: a row never arrives after one more than the delay later than it
        out = sorted(out, key=lambda r: r[3] + rng.uniform(0, max(0, j.delay * 1000 - 1)))
        if j.late:  # some rows moved far back: late at their source unless their partners are too
            for _ in range(len(out) // 5):
                i = rng.randrange(len(out))
                out.insert(min(len(out), i + rng.randint(1, 30)), out.pop(i))
        return out
    j.late = rng.random() < 0.3
    j.ta, j.tb = rows(), rows()
    j.queries = [argparse.Namespace(shape="win-interval-join" if j.late else rng.choice(TIME_SHAPES),
                                    tvf=rng.choice(TVFS), c=rng.randint(0, 6), right=rng.random() < 0.5,
                                    name="q%d" % qi) for qi in range(6)]


def where_v(q):
    return "v > %d" % q.c if q.c % 2 else "v IS NOT NULL OR s = 'x'"


def query(q):
    """(views, select, columns, sink types[, SQLite's select]) of query q; views are CREATE VIEW
    statements; SQLite runs the select unless a spelling of its own follows."""
    n = q.name
    if q.shape == "cte-twice":
        return ([], "WITH c AS (SELECT k, SUM(v) AS sv, COUNT(*) AS n FROM a WHERE v > %d GROUP BY k) "
                "SELECT x.k, x.sv, y.n FROM c AS x JOIN c AS y ON x.k = y.k + %d" % (q.c, q.c2),
                ["k", "sv", "n"], ["INT", "INT", "BIGINT"])
    if q.shape == "view-rename":
        views = ["CREATE VIEW %s_v1 (kk, vv) AS SELECT k, v FROM a WHERE %s" % (n, where_v(q)),
                 "CREATE VIEW %s_v2 AS SELECT kk AS key2, vv * 2 AS x2 FROM %s_v1 WHERE kk IS NULL OR kk <> %d"
                 % (n, n, q.c2)]
        return (views, "SELECT key2, COUNT(*) AS n, SUM(x2) AS sx FROM %s_v2 GROUP BY key2" % n,
                ["key2", "n", "sx"], ["INT", "BIGINT", "INT"])
    if q.shape == "wide-join":
        return ([], "SELECT a.id, b.w FROM a %sJOIN b ON %s" % ("LEFT " if q.left else "", q.key),
                ["id", "w"], ["INT", "INT"])
    if q.shape == "case-group":
        e = q.case % q.c if "%d" in q.case else q.case
        t = "INT" if "ELSE k +" in e else "STRING"
        return ([], "SELECT %s AS c, COUNT(*) AS n, SUM(v) AS sv FROM a GROUP BY %s" % (e, e),
                ["c", "n", "sv"], [t, "BIGINT", "INT"])
    if q.shape == "cast-group":
        return ([], "SELECT CAST(v AS BIGINT) + g AS key2, COUNT(*) AS n, MIN(id) AS mi FROM a "
                "GROUP BY CAST(v AS BIGINT) + g", ["key2", "n", "mi"], ["BIGINT", "BIGINT", "INT"])
    if q.shape == "having-sub":
        return ([], "SELECT k, COUNT(*) AS n FROM a GROUP BY k HAVING COUNT(*) > "
                "(SELECT COUNT(*) FROM b WHERE w > %d) - %d" % (q.c, q.c2), ["k", "n"], ["INT", "BIGINT"])
    if q.shape == "union-group":
        return ([], "SELECT k, COUNT(*) AS n, SUM(v) AS sv FROM (SELECT k, v FROM a WHERE %s UNION ALL "
                "SELECT CAST(k AS INT), w FROM b WHERE w <> %d) AS u GROUP BY k" % (where_v(q), q.c),
                ["k", "n", "sv"], ["INT", "BIGINT", "INT"])
    if q.shape == "topn-join":
        return ([], "SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY MOD(k, 2) ORDER BY n DESC, k) "
                "AS rn FROM (SELECT a.k, COUNT(*) AS n FROM a JOIN b ON %s GROUP BY a.k) AS g) AS t WHERE rn <= %d"
                % (q.key, q.c + 1), ["k", "n"], ["INT", "BIGINT"])
    if q.shape == "left-group":
        return ([], "SELECT b.w, COUNT(a.id) AS n, SUM(a.v) AS sv FROM a LEFT JOIN b ON %s GROUP BY b.w" % q.key,
                ["w", "n", "sv"], ["INT", "BIGINT", "INT"])
    if q.shape == "agg-agg":
        return ([], "SELECT n, COUNT(*) AS m FROM (SELECT k, COUNT(*) AS n FROM a WHERE %s GROUP BY k) AS g "
                "GROUP BY n" % where_v(q), ["n", "m"], ["BIGINT", "BIGINT"])
    if q.shape == "full-expr":
        return ([], "SELECT a.id, b.w FROM a FULL JOIN b ON a.k + %d = b.k" % q.c2, ["id", "w"], ["INT", "INT"])
    if q.shape == "union-limit":
        return ([], "SELECT id, v FROM (SELECT id, v FROM a UNION ALL SELECT w, w FROM b) AS u "
                "ORDER BY v DESC, id LIMIT %d" % (q.c + 1), ["id", "v"], ["INT", "INT"])
    if q.shape == "distinct-union":
        # without the CAST, INT and BIGINT widen to BIGINT (as Flink)
        return ([], "SELECT s, COUNT(*) AS n FROM (SELECT %s AS k, s FROM a UNION "
                "SELECT k, s FROM b) AS u GROUP BY s" % ("k" if q.left else "CAST(k AS BIGINT)"),
                ["s", "n"], ["STRING", "BIGINT"])
    if q.shape == "self-group":
        return ([], "SELECT x.k, COUNT(*) AS n, SUM(y.v) AS sv FROM a AS x JOIN a AS y ON x.k = y.k AND x.id < y.id "
                "GROUP BY x.k", ["k", "n", "sv"], ["INT", "BIGINT", "INT"])
    if q.shape == "left-on-filter":
        return ([], "SELECT a.id, b.w FROM a LEFT JOIN b ON a.k = b.k AND a.v > %d AND b.w <> %d" % (q.c, q.c2),
                ["id", "w"], ["INT", "INT"])
    if q.shape == "right-where":
        return ([], "SELECT a.id, b.w FROM a RIGHT JOIN b ON %s WHERE a.id IS NULL OR a.v > %d" % (q.key, q.c),
                ["id", "w"], ["INT", "INT"])
    if q.shape == "not-distinct-join":
        sel = "SELECT a.id, b.w FROM a %sJOIN b ON a.k IS NOT DISTINCT FROM b.k" % ("LEFT " if q.left else "")
        return ([], sel, ["id", "w"], ["INT", "INT"], sel.replace("IS NOT DISTINCT FROM", "IS"))
    if q.shape == "rollup":
        lite = ("SELECT k, s, COUNT(*) AS n, SUM(v) AS sv FROM a GROUP BY k, s UNION ALL "
                "SELECT k, NULL, COUNT(*), SUM(v) FROM a GROUP BY k UNION ALL "
                "SELECT NULL, NULL, COUNT(*), SUM(v) FROM a HAVING COUNT(*) > 0")  # no row reaches () over no rows
        return ([], "SELECT k, s, COUNT(*) AS n, SUM(v) AS sv FROM a GROUP BY ROLLUP(k, s)",
                ["k", "s", "n", "sv"], ["INT", "STRING", "BIGINT", "INT"], lite)
    if q.shape == "three-way":
        return ([], "SELECT a.id, a2.id AS id2, b.s FROM a JOIN b ON %s JOIN a AS a2 ON b.w = a2.v" % q.key,
                ["id", "id2", "s"], ["INT", "INT", "STRING"])
    if q.shape == "dedup-union":
        return ([], "SELECT k, id FROM (SELECT k, id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id %s) AS rn "
                "FROM (SELECT k, id FROM a WHERE %s UNION ALL SELECT CAST(k AS INT), w FROM b) AS u) AS t "
                "WHERE rn = 1" % ("DESC" if q.left else "ASC", where_v(q)), ["k", "id"], ["INT", "INT"])
    if q.shape == "having-corr":
        return ([], "SELECT k, COUNT(*) AS n FROM a GROUP BY k HAVING COUNT(*) + %d >= "
                "(SELECT COUNT(*) FROM b WHERE b.k = a.k)" % q.c2, ["k", "n"], ["INT", "BIGINT"])
    if q.shape == "filter-join":
        return ([], "SELECT b.s, COUNT(*) FILTER (WHERE a.v > %d) AS n, COUNT(DISTINCT a.k) AS dk, "
                "SUM(b.w) FILTER (WHERE a.s = b.s) AS sw FROM a JOIN b ON %s GROUP BY b.s" % (q.c, q.key),
                ["s", "n", "dk", "sw"], ["STRING", "BIGINT", "BIGINT", "INT"])
    if q.shape == "nested-cte":
        return ([], "WITH c1 AS (SELECT k, v FROM a WHERE %s), c2 AS (SELECT k, SUM(v) AS sv FROM c1 GROUP BY k) "
                "SELECT c2.k, c2.sv, c1.v FROM c2 JOIN c1 ON c1.k = c2.k" % where_v(q),
                ["k", "sv", "v"], ["INT", "INT", "INT"])
    if q.shape == "limit-offset":
        return ([], "SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM (SELECT k FROM a UNION ALL "
                "SELECT CAST(k AS INT) FROM b) AS u GROUP BY k) AS g ORDER BY n DESC, k LIMIT %d OFFSET %d"
                % (q.c + 1, q.c2 + 1), ["k", "n"], ["INT", "BIGINT"])
    if q.shape == "intersect-agg":
        op = "INTERSECT" if q.left else "EXCEPT"
        return ([], "SELECT k FROM a GROUP BY k HAVING COUNT(*) > %d %s SELECT CAST(k AS INT) FROM b WHERE w > %d"
                % (q.c2, op, q.c), ["k"], ["INT"])
    if q.shape == "unnest-group":
        lite = ("SELECT x, COUNT(*) AS n, MAX(id) AS mi FROM (SELECT id, k AS x FROM a WHERE %s UNION ALL "
                "SELECT id, v FROM a WHERE %s) AS u GROUP BY x" % (where_v(q), where_v(q)))
        return ([], "SELECT x, COUNT(*) AS n, MAX(id) AS mi FROM (SELECT * FROM a WHERE %s) AS f "
                "CROSS JOIN UNNEST(ARRAY[k, v]) AS t (x) GROUP BY x" % where_v(q),
                ["x", "n", "mi"], ["INT", "BIGINT", "INT"], lite)
    if q.shape == "minmax-left":
        return ([], "SELECT a.k, MIN(b.w) AS mn, MAX(b.w) AS mx, COUNT(DISTINCT b.w) AS dw FROM a LEFT JOIN b ON %s "
                "GROUP BY a.k" % q.key, ["k", "mn", "mx", "dw"], ["INT", "INT", "INT", "BIGINT"])
    if q.shape == "agg-left-agg":
        return ([], "SELECT n, COUNT(*) AS m, SUM(k) AS sk FROM (SELECT a.k, COUNT(b.w) AS n FROM a LEFT JOIN b ON %s "
                "GROUP BY a.k) AS g GROUP BY n" % q.key, ["n", "m", "sk"], ["BIGINT", "BIGINT", "INT"])
    if q.shape == "distinct-full":
        return ([], "SELECT DISTINCT a.s AS sa, b.s AS sb FROM a FULL JOIN b ON %s" % q.key,
                ["sa", "sb"], ["STRING", "STRING"])
    return ([], "SELECT id FROM a WHERE k IN (SELECT k FROM b UNION ALL SELECT g FROM a AS a2 WHERE v > %d)" % q.c,
            ["id"], ["INT"])


TIME_VIEWS = [
    "CREATE VIEW u (kk, vv, tt) AS SELECT k, v, ts FROM ta WHERE v IS NULL OR v > 1 UNION ALL "
    "SELECT k, v * 10, ts FROM tb WHERE v IS NULL OR v < 8",
    "CREATE VIEW ijl AS SELECT ta.k, ta.v AS av, tb.v AS bv, ta.ts FROM ta JOIN tb ON ta.k = tb.k "
    "AND ta.ts BETWEEN tb.ts - INTERVAL '2' SECOND AND tb.ts + INTERVAL '1' SECOND",
    "CREATE VIEW ijr AS SELECT ta.k, ta.v AS av, tb.v AS bv, tb.ts FROM ta JOIN tb ON ta.k = tb.k "
    "AND ta.ts BETWEEN tb.ts - INTERVAL '2' SECOND AND tb.ts + INTERVAL '1' SECOND"]


def tvf_sql(q, table, col):
    name, size, step = q.tvf
    if name == "TUMBLE":
        return "TABLE(TUMBLE(TABLE %s, DESCRIPTOR(%s), INTERVAL '%d' SECOND))" % (table, col, size // 1000)
    return "TABLE(%s(TABLE %s, DESCRIPTOR(%s), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND))" % (
        name, table, col, (step if name == "HOP" else step) // 1000, size // 1000)


def time_query(q):
    """(views, select, columns, sink types) of an event-time query q."""
    cols, types = ["ws", "we", "k", "n", "sv"], ["TIMESTAMP(3)", "TIMESTAMP(3)", "STRING", "BIGINT", "INT"]
    if q.shape == "win-union":
        return ([], "SELECT window_start AS ws, window_end AS we, kk AS k, COUNT(*) AS n, SUM(vv) AS sv FROM %s "
                "GROUP BY window_start, window_end, kk" % tvf_sql(q, "u", "tt"), cols, types)
    if q.shape == "win-interval-join":
        return ([], "SELECT window_start AS ws, window_end AS we, k, COUNT(*) AS n, SUM(av + bv) AS sv FROM %s "
                "GROUP BY window_start, window_end, k" % tvf_sql(q, "ijr" if q.right else "ijl", "ts"), cols, types)
    if q.shape == "win-cascade-union":
        inner = ("CREATE VIEW %s_in AS SELECT window_time AS wt, kk, SUM(vv) AS sv FROM %s "
                 "GROUP BY window_start, window_end, window_time, kk" % (q.name, tvf_sql(q, "u", "tt")))
        return ([inner], "SELECT window_start AS ws, window_end AS we, COUNT(*) AS n, SUM(sv) AS sv FROM "
                "TABLE(TUMBLE(TABLE %s_in, DESCRIPTOR(wt), INTERVAL '10' SECOND)) GROUP BY window_start, window_end"
                % q.name, ["ws", "we", "n", "sv"], ["TIMESTAMP(3)", "TIMESTAMP(3)", "BIGINT", "INT"])
    return ([], "SELECT ws, we, k, n FROM (SELECT ws, we, k, n, ROW_NUMBER() OVER (PARTITION BY ws, we "
            "ORDER BY n DESC, k) AS rn FROM (SELECT window_start AS ws, window_end AS we, kk AS k, COUNT(*) AS n "
            "FROM %s GROUP BY window_start, window_end, kk) AS g) AS r WHERE rn <= %d"
            % (tvf_sql(q, "u", "tt"), q.c % 3 + 1), cols[:4], types[:4])


def windows(tvf, ts):
    """The [start, end) windows of a TVF (name, size, step) that hold time ts."""
    name, size, step = tvf
    if name == "TUMBLE":
        return [(ts - ts % size, ts - ts % size + size)]
    if name == "HOP":
        last = ts - ts % step
        return [(s, s + size) for s in range(last - size + step, last + 1, step)]
    start = ts - ts % size
    return [(start, e) for e in range(start + step, start + size + 1, step) if e > ts]


def on_time(j, rows):
    """The rows of an input that are not late at it: time >= its watermark (the largest time before
    the row, less the delay); the interval join drops the others."""
    out, w = [], None
    for r in rows:
        if w is None or r[3] >= w:
            out.append(r)
        w = r[3] - j.delay * 1000 if w is None else max(w, r[3] - j.delay * 1000)
    return out


def time_oracle(j, q):
    db = sqlite3.connect(":memory:")
    u = [(k, v, ts) for _, k, v, ts in j.ta if v is None or v > 1] + \
        [(k, None if v is None else v * 10, ts) for _, k, v, ts in j.tb if v is None or v < 8]
    ij = [(ak, av, bv, bts if q.right else ats) for _, ak, av, ats in on_time(j, j.ta)
          for _, bk, bv, bts in on_time(j, j.tb) if ak == bk and bts - 2000 <= ats <= bts + 1000]
    rows = ([(s, e, k, None if av is None or bv is None else av + bv) for k, av, bv, ts in ij
             for s, e in windows(q.tvf, ts)] if q.shape == "win-interval-join" else
            [(s, e, k, v) for k, v, ts in u for s, e in windows(q.tvf, ts)])
    db.execute("CREATE TABLE w (ws INT, we INT, k TEXT, v INT)")
    db.executemany("INSERT INTO w VALUES (?, ?, ?, ?)", rows)
    if q.shape in ("win-union", "win-interval-join"):
        sel = "SELECT ws, we, k, COUNT(*), SUM(v) FROM w GROUP BY ws, we, k"
    elif q.shape == "win-cascade-union":
        sel = ("SELECT (we - 1) / 10000 * 10000, (we - 1) / 10000 * 10000 + 10000, COUNT(*), SUM(sv) "
               "FROM (SELECT we, k, SUM(v) AS sv FROM w GROUP BY ws, we, k) GROUP BY 1")
    else:
        sel = ("SELECT ws, we, k, n FROM (SELECT ws, we, k, n, ROW_NUMBER() OVER (PARTITION BY ws, we "
               "ORDER BY n DESC, k) AS rn FROM (SELECT ws, we, k, COUNT(*) AS n FROM w GROUP BY ws, we, k)) "
               "WHERE rn <= %d" % (q.c % 3 + 1))
    out = collections.Counter(tuple(r) for r in db.execute(sel).fetchall())
    db.close()
    return out


def millis(v):
    """A TIMESTAMP(3) of a debezium-json row ("YYYY-MM-DD HH:MM:SS.fff", UTC) as epoch milliseconds."""
    d = datetime.datetime.strptime(v, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
    return round(d.timestamp() * 1000)


def sqlite_rows(j, q):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE a (id INT, k INT, g BIGINT, v INT, s TEXT)")
    db.execute("CREATE TABLE b (k BIGINT, w INT, s TEXT)")
    db.executemany("INSERT INTO a VALUES (?, ?, ?, ?, ?)", j.a)
    db.executemany("INSERT INTO b VALUES (?, ?, ?)", j.b)
    views, sel = query(q)[:2]
    sel = query(q)[4] if len(query(q)) > 4 else sel
    for v in views:
        db.execute(v)
    if q.shape == "having-sub":
        # an uncorrelated subquery's aggregate has no row until a row reaches it (Flink's streaming
        # aggregation): the value is NULL while no row of b passes its WHERE
        sel = sel.replace("(SELECT COUNT(*) FROM b", "(SELECT NULLIF(COUNT(*), 0) FROM b")
    out = collections.Counter(tuple(r) for r in db.execute(sel).fetchall())
    db.close()
    return out


def job_sql(j):
    if j.delay is not None:
        return time_job_sql(j)
    out = ["-- compose_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else ""),
           "CREATE TABLE a (id INT, k INT, g BIGINT, v INT, s STRING) WITH ('connector' = 'filesystem', "
           "'path' = 'a.csv', 'format' = 'csv', 'csv.null-literal' = 'N');",
           "CREATE TABLE b (k BIGINT, w INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'b.csv', "
           "'format' = 'csv', 'csv.null-literal' = 'N');"]
    for q in j.queries:
        views, _, cols, types = query(q)[:4]
        out += [v + ";" for v in views]
        out.append("CREATE TABLE %s_out (%s) WITH ('connector' = 'filesystem', 'path' = '%s', "
                   "'format' = 'debezium-json');" % (q.name, ", ".join("%s %s" % ct for ct in zip(cols, types)),
                                                     q.name))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for q in j.queries:
        out.append("  INSERT INTO %s_out %s;" % (q.name, query(q)[1]))
    out.append("END;")
    return "\n".join(out) + "\n"


def time_job_sql(j):
    out = ["-- compose_diff seed %d job %d: event time, parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else "")]
    for name in ("ta", "tb"):
        out.append("CREATE TABLE %s (id INT, k STRING, v INT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), "
                   "WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND) WITH ('connector' = 'filesystem', "
                   "'path' = '%s.csv', 'format' = 'csv', 'csv.null-literal' = 'N');" % (name, j.delay, name))
    out += [v + ";" for v in TIME_VIEWS]
    for q in j.queries:
        views, _, cols, types = time_query(q)
        out += [v + ";" for v in views]
        out.append("CREATE TABLE %s_out (%s) WITH ('connector' = 'filesystem', 'path' = '%s', "
                   "'format' = 'debezium-json');" % (q.name, ", ".join("%s %s" % ct for ct in zip(cols, types)),
                                                     q.name))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for q in j.queries:
        out.append("  INSERT INTO %s_out %s;" % (q.name, time_query(q)[1]))
    out.append("END;")
    return "\n".join(out) + "\n"


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d%s)" % (j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "")
    if j.delay is not None:
        return run_time_case(case, j)
    for name, rows in (("a.csv", j.a), ("b.csv", j.b)):  # NULL as N: an empty STRING field is ''
        diffrun.write_csv(case.path(name), [["N" if x is None else x for x in r] for r in rows])
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for q in j.queries:
        views, sel, cols = query(q)[:3]
        what = "%s %s (%s)" % (q.name, q.shape, "; ".join(views + [sel]))
        case.counts[q.shape] += 1
        try:
            got = diffrun.fold_debezium(case.path(q.name), cols)
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, sqlite_rows(j, q), got)
    return problems


def run_time_case(case, j):
    case.note = "(event time, delay %d s%s, parallelism %d, batch %d%s)" % (
        j.delay, ", late rows" if j.late else "", j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "")
    for name, rows in (("ta.csv", j.ta), ("tb.csv", j.tb)):
        diffrun.write_csv(case.path(name), [["N" if x is None else x for x in r] for r in rows])
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for q in j.queries:
        views, sel, cols = time_query(q)[:3]
        what = "%s %s %s (%s)" % (q.name, q.shape, q.tvf[0], "; ".join(views + [sel]))
        case.counts[q.shape] += 1
        try:
            got = diffrun.fold_debezium(case.path(q.name), cols)
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        got = collections.Counter({tuple(millis(x) if c in ("ws", "we") else x for c, x in zip(cols, r)): n
                                   for r, n in got.items()})
        problems += diffrun.multiset_problems(what, time_oracle(j, q), got)
    return problems


def main():
    return diffrun.main("compose_diff", run_case, jobs_env="WEIR_COMPOSEDIFF_JOBS", jobs=4, asan_jobs=1,
                        one_env="WEIR_COMPOSEDIFF_JOB", unit="jobs of 6 queries")


if __name__ == "__main__":
    sys.exit(main())
