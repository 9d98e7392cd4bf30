#!/usr/bin/env python3
"""Randomized differential test of subqueries planned as joins.

Each job is two random CSV inputs, o (id INT, k INT, x INT) and
t (k INT, p INT) - small domains with NULLs, so keys repeat, outer rows go
without inner rows and inner values are NULL - and random queries of these
shapes (agg one of MAX(p), MIN(p), SUM(p), COUNT(*), COUNT(p),
COALESCE(SUM(p), 0) + COUNT(*); cond an optional filter of t's own):

    scalar-select  SELECT id, (SELECT agg FROM t WHERE t.k = o.k [AND cond]) FROM o
    scalar-where   SELECT id FROM o WHERE x <op> (SELECT agg FROM t WHERE t.k = o.k [AND cond])
    in-select      SELECT id, x [NOT] IN (SELECT p FROM t [WHERE t.k = o.k] [AND cond]) FROM o
    exists-select  SELECT id, [NOT] EXISTS (SELECT * FROM t WHERE [t.k = o.k AND] cond) FROM o
    in-or          SELECT id FROM o WHERE x < 2 OR x [NOT] IN (SELECT p FROM t [WHERE t.k = o.k] [AND cond])
    in-agg         SELECT id FROM o WHERE x [NOT] IN (SELECT agg FROM t WHERE t.k = o.k [AND cond])
    single-select  SELECT id, (SELECT p FROM t [WHERE t.k = o.k] [AND cond]) FROM o
    single-where   SELECT id FROM o WHERE x <op> (SELECT p FROM t [WHERE t.k = o.k] [AND cond])
    group-in       SELECT x [NOT] IN (SELECT p ...) AS v, COUNT(*) FROM o GROUP BY x [NOT] IN (SELECT p ...)
                   (the subquery as in in-select)
    agg-corr       SELECT k, (SELECT agg FROM t WHERE t.k = o.k [AND cond]) FROM o GROUP BY k
    exists-where   SELECT id FROM o WHERE [NOT] EXISTS (SELECT * FROM t WHERE t.k = o.k [AND cond])
    agg-in         SELECT k, COUNT(*) [NOT] IN (SELECT p FROM t [WHERE t.k = o.k] [AND cond]) FROM o GROUP BY k
    row-in         SELECT id FROM o WHERE (k, x) [NOT] IN (SELECT k, p FROM t [WHERE cond])
    row-in-group   SELECT id FROM o WHERE (k, x) [NOT] IN (SELECT k, agg FROM t [WHERE cond] GROUP BY k)
    row-in-corr    SELECT id FROM o WHERE (k, x) [NOT] IN (SELECT k, p FROM t WHERE t.p <> o.id [AND cond])
    row-cmp        SELECT id, (k, x) <cmp> (c1, c2) AS v FROM o      (or ROW(k, x) <cmp> ROW(c1, c2))
    row-in-list    SELECT id, (k, x) [NOT] IN ((c1, c2), (c3, c4), ...) AS v FROM o
    lateral-rows   SELECT o.id, l.v FROM o, LATERAL (SELECT t.p AS v FROM t WHERE t.k = o.k [AND cond]) AS l
    lateral-left   SELECT o.id, l.v FROM o LEFT JOIN LATERAL (SELECT COALESCE(t.p, -1) AS v FROM t
                   WHERE t.k = o.k [AND cond]) AS l ON TRUE
    lateral-agg    SELECT o.id, l.v FROM o, LATERAL (SELECT agg AS v FROM t WHERE t.k = o.k [AND cond]) AS l
                   (or LEFT JOIN LATERAL ... ON TRUE: the same, one row per outer row)
    lateral-group  SELECT o.id, l.v, l.n FROM o LEFT JOIN LATERAL (SELECT t.p AS v, COUNT(*) AS n FROM t
                   WHERE t.k = o.k [AND cond] GROUP BY t.p) AS l ON TRUE   (eq only; a NULL p is a group)
    on-in          SELECT o.id, <t.p: -1 for NULL, NULL when padded> AS v FROM o LEFT JOIN t
                   ON t.k = o.k AND t.p [NOT] IN (SELECT o2.x FROM o o2)
    on-exists      the same ON t.k = o.k AND [NOT] EXISTS (SELECT * FROM o o2 WHERE o2.x = t.p)
    row-sub        SELECT id, (k, x) <cmp> (SELECT MIN(t.k), MAX(p) FROM t [WHERE t.k = o.k] [AND cond]) AS v
                   FROM o   (a row against a scalar subquery's row: NULLs over no rows)
    row-in-value   SELECT id, (k, x) [NOT] IN (SELECT k, p FROM t [WHERE t.p <> o.id] [AND cond]) AS v FROM o
    row-in-or      SELECT id FROM o WHERE x < 2 OR (k, x) [NOT] IN (SELECT k, p FROM t [WHERE t.p <> o.id] [AND cond])
    lateral-having SELECT o.id, l.v FROM o, LATERAL (SELECT [DISTINCT] agg [+ o.id] AS v FROM t
                   WHERE t.k = o.k [AND cond] HAVING COUNT(*) > h) AS l   (or LEFT JOIN LATERAL ... ON TRUE)
    lateral-sub    SELECT o.id, l.v FROM o, LATERAL (SELECT t.p AS v FROM (SELECT k, p FROM t) AS t
                   WHERE t.k = o.k [AND cond]) AS l   (a subquery as its FROM)
    lateral-join   SELECT o.id, l.v FROM o, LATERAL (SELECT COUNT(*) AS v FROM t JOIN o AS o2 ON o2.id = t.p
                   WHERE t.k = o.k [AND cond]) AS l   (a join as its FROM; or LEFT JOIN LATERAL ... ON TRUE)
    Two levels of correlation (nested: a subquery inside the subquery reading o, the outermost query;
    the first level correlated or not):
    nested-exists  SELECT id FROM o WHERE [NOT] EXISTS (SELECT * FROM t WHERE [t.k = o.k AND] [cond AND] nin)
    nested-in      SELECT id FROM o WHERE x [NOT] IN (SELECT t.p FROM t WHERE [t.k = o.k AND] [cond AND]
                   [NOT] EXISTS (SELECT * FROM o o2 WHERE o2.x = t.p AND o2.id <> o.id))
    nested-scalar  SELECT id, (SELECT agg FROM t WHERE [t.k = o.k AND] [cond AND] nin) AS v FROM o
    nested-lateral SELECT o.id, l.v FROM o, LATERAL (SELECT agg AS v FROM t WHERE [t.k = o.k AND] [cond AND] nin)
                   AS l   (or LEFT JOIN LATERAL ... ON TRUE)
    nested-rows    SELECT o.id, l.v FROM o, LATERAL (SELECT t.p AS v FROM t WHERE [t.k = o.k AND] [cond AND] nin)
                   AS l
    nested-cmp     SELECT id, (SELECT agg FROM t WHERE [t.k = o.k AND] [cond AND] t.p > (SELECT MIN(o2.x)
                   FROM o o2 WHERE o2.k = o.x)) AS v FROM o   (a scalar subquery inside a scalar subquery)
                   where nin is t.p [NOT] IN (SELECT o2.x FROM o o2 WHERE o2.k = o.x)
    Subqueries that group or combine sets, correlated (corr as below, or in HAVING; checked against
    SQLite, an independent engine, run over the same rows: these shapes never give a scalar subquery
    two rows for an outer row):
    corr-group-exists  SELECT id FROM o WHERE [NOT] EXISTS (SELECT t.p FROM t WHERE corr [AND cond]
                       GROUP BY t.p HAVING COUNT(*) > h)
    corr-group-in      SELECT id FROM o WHERE x [NOT] IN (SELECT agg FROM t WHERE corr [AND cond] GROUP BY t.p
                       [HAVING COUNT(*) > h])
    corr-group-scalar  SELECT id, (SELECT agg FROM t WHERE t.k = o.k [AND t.p <> o.x] [AND cond] GROUP BY t.k
                       [HAVING COUNT(*) > h]) AS v FROM o   (no row, NULL, for an outer row without inner rows)
    corr-having        SELECT id, (SELECT MAX(n) FROM (SELECT t.k, COUNT(*) AS n FROM t [WHERE cond] GROUP BY t.k
                       HAVING SUM(p) > o.x) AS d) AS v FROM o   (correlated in HAVING, a derived table)
    corr-derived       SELECT id, (SELECT agg2 FROM (SELECT t.p, COUNT(*) AS n FROM t WHERE corr [AND cond]
                       GROUP BY t.p) AS d) AS v FROM o   (agg2: COUNT(*) is 0 over no rows)
    set-exists         SELECT id FROM o WHERE [NOT] EXISTS (setq)
    set-in             SELECT id FROM o WHERE x [NOT] IN (setq)
    set-value          SELECT id, x [NOT] IN (setq) AS v FROM o   (or [NOT] EXISTS (setq) AS v)
    set-count          SELECT id, (SELECT COUNT(*) FROM (setq) AS d) AS v FROM o
                       where setq is SELECT t.p FROM t [WHERE corr] [AND cond] <UNION ALL | UNION | INTERSECT |
                       EXCEPT> SELECT o2.x FROM o o2 WHERE <o2.k = o.k | o2.id <> o.id | o2.x > c>
    Aggregates whose arguments read the outer row (oagg one of SUM(p * o.x), MAX(p + o.id), COUNT(o.x),
    COALESCE(SUM(p), 0) + COUNT(o.k): per outer row, over the inner rows it sees):
    lateral-oagg   SELECT o.id, l.v FROM o, LATERAL (SELECT oagg AS v FROM t [WHERE t.k = o.k] [AND cond]) AS l
                   (or LEFT JOIN LATERAL ... ON TRUE)
    scalar-oagg    SELECT id, (SELECT oagg FROM t [WHERE t.k = o.k] [AND cond]) AS v FROM o

Bare names (a random 40% of the queries): o.id and o.x are written id and
x, and o o2 reads (SELECT id AS id2, k AS k2, x AS x2 FROM o) AS o2 (its
names o2.id2, o2.k2, o2.x2), so that a bare id or x is no inner FROM's
column and names o's, one or two levels up, through a subquery (lateral-
sub) or a join (lateral-join) as the derived table's FROM too: names
resolve as SQL scopes nest, and the results are those of the qualified
query. (o.k stays qualified: t has a k, which a bare k would name.)

A correlated subquery's correlation t.k = o.k is one of
    eq   t.k = o.k
    lt   t.k < o.k                      (a non-equality alone)
    eqx  t.k = o.k AND t.p <> o.x       (an equality and a non-equality naming another outer column)
(agg-corr, agg-in: eq or lt, over the group key; lateral-*: always correlated).
A LATERAL derived table of aggregates without GROUP BY is one row per
outer row (the aggregates of no rows too), which HAVING keeps or drops
(LEFT JOIN LATERAL: pads with NULL) and DISTINCT leaves; o.id around the
aggregate is the outer row's.
A LATERAL derived table gives each outer row the inner rows its
correlation and cond accept (lateral-rows: none, no row; lateral-left: one
row of NULL, where a matched NULL p reads -1), or, aggregated, one row of
the aggregates of those rows (COUNT over none 0, the others NULL). Correlated by a non-equality, a
single-* subquery is checked only for the outer rows' values: the job fails
when some outer row sees two inner rows.

Rows follow SQL's row comparison: (a, b) = (c, d) is FALSE when some
field pair is two different values, else NULL when a field is NULL, else
TRUE; <, <=, >, >= go along the fields to the first pair that is not two
equal values: NULL when a field of it is NULL, else its comparison; all
equal, TRUE for <=, >= and FALSE for <, >. (a, b) IN S is TRUE when some
row of S compares TRUE, FALSE when every one compares FALSE (so over no
rows), else NULL. Used as a value (row-in-value, row-in-or: not a WHERE
conjunct), a row IN follows Flink's planner (Calcite's rewrite of IN into
joined counts), which is coarser with NULLs: TRUE when some row equals
field by field, else FALSE over no rows, else NULL when a field of the
row, or a field of any row of the subquery, is NULL, else FALSE.

A single-* subquery (no aggregate) must give at most one row: its value is
the row's p (NULL over no rows), and when some correlation key (not NULL:
a NULL key matches nothing) or, uncorrelated, the whole t has two rows that
pass cond, the job fails naming the subquery (as Flink's SINGLE_VALUE); the
oracle predicts that failure, and the job's other queries are not checked.

Results go to debezium-json files and are folded into their tables (a
delete must find its row). weir runs at a random parallelism (1/2/4) and
batch size (1/7/1024), on the memory or the RocksDB state backend.

The oracle shares no code with weir: for each outer row it evaluates the
subquery over the inner rows by SQL's rules (an equality with a NULL is
not true; aggregates skip NULLs; over no rows COUNT is 0 and the others
NULL; a comparison with NULL is unknown, and WHERE drops the row; x IN S
is TRUE when some element equals x, else FALSE over no rows, else NULL when
x is NULL or S has a NULL, else FALSE; NOT keeps NULL; OR is TRUE when
either side is).

Usage: subquery_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_SUBQDIFF_JOB=i runs one job.
"""

import argparse
import collections
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

AGGS = ["MAX(p)", "MIN(p)", "SUM(p)", "COUNT(*)", "COUNT(p)", "COALESCE(SUM(p), 0) + COUNT(*)"]
OPS = {">": lambda a, b: a > b, "<": lambda a, b: a < b, "=": lambda a, b: a == b}
SHAPES = ["scalar-select", "scalar-where", "in-select", "exists-select", "in-or", "in-agg", "single-select",
          "single-where", "group-in", "agg-corr", "exists-where", "agg-in", "row-in", "row-in-group", "row-in-corr",
          "row-cmp", "row-in-list", "lateral-rows", "lateral-left", "lateral-agg", "on-in", "on-exists", "row-sub", "lateral-group",
          "row-in-value", "row-in-or", "lateral-having", "lateral-sub", "lateral-join", "nested-exists", "nested-in",
          "nested-scalar", "nested-lateral", "nested-rows", "nested-cmp", "lateral-oagg", "scalar-oagg",
          "corr-group-exists", "corr-group-in", "corr-group-scalar", "corr-having", "corr-derived", "set-exists",
          "set-in", "set-value", "set-count"]
# shapes whose oracle is SQLite (the query as written)
SQLITE_SHAPES = ("corr-", "set-")
SETOPS = ["UNION ALL", "UNION", "INTERSECT", "EXCEPT"]
SET_RIGHT = ["o2.k = o.k", "o2.id <> o.id", "o2.x > %d"]
AGG2 = ["COUNT(*)", "MAX(n)", "SUM(n)", "MIN(p)"]
OAGGS = ["SUM(p * o.x)", "MAX(p + o.id)", "COUNT(o.x)", "COALESCE(SUM(p), 0) + COUNT(o.k)"]
CMPS = ["=", "<>", "<", "<=", ">", ">="]
CORRS = {"eq": "t.k = o.k", "lt": "t.k < o.k", "eqx": "t.k = o.k AND t.p <> o.x"}


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.rocksdb = rng.random() < 0.3
    nk = rng.randint(1, 5)

    def val(n, p_null):
        return None if rng.random() < p_null else rng.randint(0, n)
    j.o = [(i, val(nk - 1, 0.15), val(6, 0.15)) for i in range(rng.randint(0, 20))]
    j.t = [(val(nk - 1, 0.15), val(6, 0.2)) for _ in range(rng.randint(0, 25))]
    j.queries = []
    for _ in range(6):
        q = argparse.Namespace(shape=rng.choice(SHAPES), agg=rng.choice(AGGS), op=rng.choice(list(OPS)),
                               cond=rng.choice([None, ("p >", rng.randint(0, 5)), ("p IS NOT NULL", None)]),
                               correlated=rng.random() < 0.7, negated=rng.random() < 0.4,
                               corr=rng.choice(["eq", "eq", "lt", "eqx"]), cmp=rng.choice(CMPS),
                               row_kw=rng.random() < 0.3,
                               consts=[(val(nk - 1, 0.15), val(6, 0.15)) for _ in range(rng.randint(1, 4))],
                               having=rng.randint(0, 2), outer=rng.random() < 0.5, distinct=rng.random() < 0.3,
                               inner_not=rng.random() < 0.3, oagg=rng.choice(OAGGS), bare=rng.random() < 0.4,
                               setop=rng.choice(SETOPS), set_right=rng.choice(SET_RIGHT).replace("%d", str(rng.randint(0, 5))),
                               agg2=rng.choice(AGG2), with_having=rng.random() < 0.5, exists=rng.random() < 0.5)
        if q.shape.startswith(SQLITE_SHAPES):
            q.bare = False
            if q.shape == "corr-group-scalar":
                q.corr = rng.choice(["eq", "eqx"])  # one group per outer row
            if q.shape.startswith("corr-") and q.shape != "corr-having":
                q.correlated = True
        if q.shape == "lateral-group":
            q.corr = "eq"
        if q.shape in ("agg-corr", "agg-in") and q.corr == "eqx":
            q.corr = "lt"  # o.x is not a group key
        if q.shape.startswith("single") and any(p.shape.startswith("single") for p in j.queries):
            q.shape = "scalar-select"  # one per job: the others are checked when it does not fail
        if q.shape in ("scalar-select", "scalar-where", "in-agg", "agg-corr") or (
                q.shape.startswith("lateral") and q.shape != "lateral-oagg"):
            q.correlated = True
        if q.shape.startswith("single") and rng.random() < 0.85:
            q.cond = ("p =", rng.randint(0, 6))  # fewer rows per key: more jobs that do not fail
        if q.shape in ("exists-select", "exists-where") and not q.correlated and q.cond is None:
            q.cond = ("p >", rng.randint(0, 5))
        j.queries.append(q)
    return j


def cond_sql(q):
    if q.cond is None:
        return ""
    what, c = q.cond
    return " AND t.%s" % (what if c is None else "%s %d" % (what, c))


def cond_holds(q, p):
    if q.cond is None:
        return True
    what, c = q.cond
    if c is None:
        return p is not None
    if what == "p =":
        return p == c
    return p is not None and p > c


def agg_value(agg, ps):
    nn = [p for p in ps if p is not None]
    if agg == "MAX(p)":
        return max(nn) if nn else None
    if agg == "MIN(p)":
        return min(nn) if nn else None
    if agg == "SUM(p)":
        return sum(nn) if nn else None
    if agg == "COUNT(*)":
        return len(ps)
    if agg == "COUNT(p)":
        return len(nn)
    return (sum(nn) if nn else 0) + len(ps)


def corr_holds(q, tk, p, k, x):
    """Whether the correlation of q is TRUE for inner row (tk, p) and outer row (k, x)."""
    if tk is None or k is None:
        return False
    if q.corr == "lt":
        return tk < k
    return tk == k and (q.corr == "eq" or (p is not None and x is not None and p != x))


def inner_ps(j, q, k, x):
    """The p of the inner rows the subquery sees for an outer row (k, x)."""
    if not q.correlated:
        return [p for _, p in j.t if cond_holds(q, p)]
    return [p for tk, p in j.t if corr_holds(q, tk, p, k, x) and cond_holds(q, p)]


def row_cmp(op, a, b):
    """SQL's comparison of rows a and b (tuples, None for NULL): True, False or None."""
    if op in ("=", "<>"):
        if any(u is not None and v is not None and u != v for u, v in zip(a, b)):
            r = False
        elif any(u is None or v is None for u, v in zip(a, b)):
            r = None
        else:
            r = True
        return r if op == "=" or r is None else not r
    for u, v in zip(a, b):
        if u is None or v is None:
            return None
        if u != v:
            return u < v if op in ("<", "<=") else u > v
    return op in ("<=", ">=")


def row_in(a, rows):
    cs = [row_cmp("=", a, r) for r in rows]
    if True in cs:
        return True
    return None if None in cs else False


def row_in_value(a, rows):
    """A row IN used as a value, as Flink's planner computes it (coarser than row_in with NULLs)."""
    if not rows:
        return False
    if any(all(u is not None and v is not None and u == v for u, v in zip(a, r)) for r in rows):
        return True
    if any(u is None for u in a) or any(v is None for r in rows for v in r):
        return None
    return False


def row_inner(j, q, oid):
    """The rows (k, p) of a row-in* subquery for outer row oid."""
    corr = q.shape == "row-in-corr" or (q.shape in ("row-in-value", "row-in-or") and q.correlated)
    rows = [(tk, p) for tk, p in j.t if cond_holds(q, p) and
            (not corr or (p is not None and oid is not None and p != oid))]
    if q.shape != "row-in-group":
        return rows
    groups = collections.defaultdict(list)
    for tk, p in rows:
        groups[tk].append(p)
    return [(tk, agg_value(q.agg, ps)) for tk, ps in groups.items()]


def in_set(x, s):
    if any(x is not None and v is not None and v == x for v in s):
        return True
    if not s:
        return False
    if x is None or None in s:
        return None
    return False


def neg(v, negated):
    return v if not negated or v is None else not v


def nested_ok(j, q, oid, p, x):
    """Whether the nested subquery's condition on inner row p holds for outer row (oid, x)."""
    if q.shape == "nested-in":
        v = any(x2 is not None and p is not None and x2 == p and oid2 != oid for oid2, _, x2 in j.o)
    elif q.shape == "nested-cmp":
        xs = [x2 for _, k2, x2 in j.o if k2 is not None and x is not None and k2 == x and x2 is not None]
        return p is not None and bool(xs) and p > min(xs)
    else:
        v = in_set(p, [x2 for _, k2, x2 in j.o if k2 is not None and x is not None and k2 == x])
    return neg(v, q.inner_not) is True


def nested_ps(j, q, oid, k, x):
    """The p of the inner rows a nested-* subquery sees for outer row (oid, k, x)."""
    return [p for tk, p in j.t if (not q.correlated or corr_holds(q, tk, p, k, x)) and cond_holds(q, p) and
            nested_ok(j, q, oid, p, x)]


def oagg_value(oagg, ps, oid, k, x):
    nn = [p for p in ps if p is not None]
    if oagg == "SUM(p * o.x)":
        return sum(p * x for p in nn) if nn and x is not None else None
    if oagg == "MAX(p + o.id)":
        return max(p + oid for p in nn) if nn else None
    if oagg == "COUNT(o.x)":
        return len(ps) if x is not None else 0
    return (sum(nn) if nn else 0) + (len(ps) if k is not None else 0)


def value(j, q, k, x):
    ps = inner_ps(j, q, k, x)
    if q.shape in ("scalar-select", "scalar-where", "lateral-agg"):
        return agg_value(q.agg, ps)
    if q.shape.startswith("single"):
        return ps[0] if ps else None
    if q.shape == "agg-corr":
        return agg_value(q.agg, ps)
    if q.shape == "agg-in":
        return neg(in_set(x, ps), q.negated)
    if q.shape in ("exists-select", "exists-where"):
        return neg(len(ps) > 0, q.negated)
    if q.shape == "in-agg":
        return neg(in_set(x, [agg_value(q.agg, ps)]), q.negated)
    return neg(in_set(x, ps), q.negated)


def sqlite_rows(j, q):
    """The rows of query q (a shape of SQLITE_SHAPES) by SQLite over the job's rows, BOOLEAN as bool."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE o (id INT, k INT, x INT)")
    db.execute("CREATE TABLE t (k INT, p INT)")
    db.executemany("INSERT INTO o VALUES (?, ?, ?)", j.o)
    db.executemany("INSERT INTO t VALUES (?, ?)", j.t)
    boolean = out_type(q) == "BOOLEAN"
    out = collections.Counter()
    for r in db.execute(query_sql(q)).fetchall():
        out[tuple(v if i == 0 or not boolean or v is None else bool(v) for i, v in enumerate(r))] += 1
    db.close()
    return out


def oracle(j, q):
    if q.shape.startswith(SQLITE_SHAPES):
        return sqlite_rows(j, q)
    out = collections.Counter()
    if q.shape.startswith("row-"):
        for oid, k, x in j.o:
            if q.shape == "row-sub":
                rows = [(tk, p) for tk, p in j.t if cond_holds(q, p) and
                        (not q.correlated or corr_holds(q, tk, p, k, x))]
                tks = [tk for tk, _ in rows if tk is not None]
                ps = [p for _, p in rows if p is not None]
                r = (min(tks) if tks else None, max(ps) if ps else None)
                out[(oid, row_cmp(q.cmp, (k, x), r))] += 1
            elif q.shape == "row-cmp":
                out[(oid, row_cmp(q.cmp, (k, x), q.consts[0]))] += 1
            elif q.shape == "row-in-list":
                out[(oid, neg(row_in((k, x), q.consts), q.negated))] += 1
            elif q.shape == "row-in-value":
                out[(oid, neg(row_in_value((k, x), row_inner(j, q, oid)), q.negated))] += 1
            elif q.shape == "row-in-or":
                if (x is not None and x < 2) or neg(row_in_value((k, x), row_inner(j, q, oid)), q.negated) is True:
                    out[(oid,)] += 1
            elif neg(row_in((k, x), row_inner(j, q, oid)), q.negated) is True:
                out[(oid,)] += 1
        return out
    if q.shape in ("on-in", "on-exists"):
        xs = [x for _, _, x in j.o]
        for oid, k, x in j.o:
            ps = []
            for tk, p in j.t:
                if tk is None or k is None or tk != k:
                    continue
                if q.shape == "on-in":
                    v = neg(in_set(p, xs), q.negated)
                else:
                    v = neg(any(p is not None and x2 == p for x2 in xs), q.negated)
                if v is True:
                    ps.append(-1 if p is None else p)
            for p in ps or [None]:
                out[(oid, p)] += 1
        return out
    if q.shape.startswith("nested"):
        for oid, k, x in j.o:
            ps = nested_ps(j, q, oid, k, x)
            if q.shape == "nested-exists":
                if neg(len(ps) > 0, q.negated):
                    out[(oid,)] += 1
            elif q.shape == "nested-in":
                if neg(in_set(x, ps), q.negated) is True:
                    out[(oid,)] += 1
            elif q.shape == "nested-rows":
                for p in ps:
                    out[(oid, p)] += 1
            else:
                out[(oid, agg_value(q.agg, ps))] += 1
        return out
    if q.shape in ("lateral-oagg", "scalar-oagg"):
        for oid, k, x in j.o:
            out[(oid, oagg_value(q.oagg, inner_ps(j, q, k, x), oid, k, x))] += 1
        return out
    if q.shape == "lateral-having":
        for oid, k, x in j.o:
            ps = inner_ps(j, q, k, x)
            v = agg_value(q.agg, ps)
            if q.outer and v is not None:
                v += oid
            if len(ps) > q.having:
                out[(oid, v)] += 1
            elif q.negated:
                out[(oid, None)] += 1  # LEFT JOIN LATERAL pads the row HAVING drops
        return out
    if q.shape == "lateral-group":
        for oid, k, x in j.o:
            groups = collections.Counter(inner_ps(j, q, k, x))
            for g, n in (groups.items() or [(None, None)]):
                out[(oid, g, n)] += 1
        return out
    if q.shape == "lateral-join":
        for oid, k, x in j.o:
            ps = inner_ps(j, q, k, x)
            out[(oid, sum(1 for p in ps for oid2, _, _ in j.o if p is not None and oid2 == p))] += 1
        return out
    if q.shape in ("lateral-rows", "lateral-left", "lateral-sub"):
        for oid, k, x in j.o:
            ps = inner_ps(j, q, k, x)
            if q.shape == "lateral-left":
                ps = [-1 if p is None else p for p in ps] or [None]
            for p in ps:
                out[(oid, p)] += 1
        return out
    if q.shape in ("group-in", "agg-corr", "agg-in"):
        groups = collections.Counter(value(j, q, k, x) if q.shape == "group-in" else k for _, k, x in j.o)
        for g, n in groups.items():
            out[(g, n) if q.shape == "group-in" else (g, value(j, q, g, n if q.shape == "agg-in" else None))] += 1
        return out
    for oid, k, x in j.o:
        v = value(j, q, k, x)
        if q.shape in ("scalar-select", "in-select", "exists-select", "single-select", "lateral-agg"):
            out[(oid, v)] += 1
        elif q.shape == "exists-where":
            if v is True:
                out[(oid,)] += 1
        elif q.shape in ("scalar-where", "single-where"):
            if x is not None and v is not None and OPS[q.op](x, v):
                out[(oid,)] += 1
        elif q.shape == "in-or":
            if (x is not None and x < 2) or v is True:
                out[(oid,)] += 1
        elif v is True:
            out[(oid,)] += 1
    return out


def too_many(j, q):
    """Whether single-* query q's subquery gives two rows for some key (the job fails)."""
    if not q.shape.startswith("single"):
        return False
    if q.correlated and q.corr != "eq":
        return any(len(inner_ps(j, q, k, x)) > 1 for _, k, x in j.o)
    keys = collections.Counter(tk if q.correlated else 0 for tk, p in j.t
                               if cond_holds(q, p) and (tk is not None or not q.correlated))
    return any(n > 1 for n in keys.values())


def out_cols(q):
    if q.shape == "lateral-group":
        return ["id", "v", "n"]
    if q.shape == "group-in":
        return ["v", "n"]
    if q.shape in ("agg-corr", "agg-in"):
        return ["k", "v"]
    if q.shape in ("nested-exists", "nested-in", "corr-group-exists", "corr-group-in", "set-exists", "set-in"):
        return ["id"]
    if q.shape.startswith(SQLITE_SHAPES):
        return ["id", "v"]
    if q.shape.startswith("nested") or q.shape.endswith("oagg"):
        return ["id", "v"]
    return ["id", "v"] if q.shape in ("scalar-select", "in-select", "exists-select", "single-select", "row-cmp", "row-sub",
                                      "row-in-list", "row-in-value") or q.shape.startswith(("lateral", "on-")) else ["id"]


def out_type(q):
    return {"scalar-select": "BIGINT", "single-select": "INT", "agg-corr": "BIGINT", "lateral-rows": "INT",
            "lateral-left": "INT", "lateral-agg": "BIGINT", "lateral-having": "BIGINT", "lateral-sub": "INT",
            "lateral-join": "BIGINT", "on-in": "INT",
            "on-exists": "INT", "nested-scalar": "BIGINT", "nested-cmp": "BIGINT", "nested-lateral": "BIGINT", "nested-rows": "INT",
            "lateral-oagg": "BIGINT", "scalar-oagg": "BIGINT", "corr-group-scalar": "BIGINT", "corr-having": "BIGINT",
            "corr-derived": "BIGINT", "set-count": "BIGINT"}.get(q.shape, "BOOLEAN")


def lit(v):
    return "CAST(NULL AS INT)" if v is None else str(v)


def row_sql(q, a, b):
    return "ROW(%s, %s)" % (a, b) if q.row_kw else "(%s, %s)" % (a, b)


BARE = [("FROM o o2", "FROM (SELECT id AS id2, k AS k2, x AS x2 FROM o) AS o2"),
        ("JOIN o AS o2", "JOIN (SELECT id AS id2, k AS k2, x AS x2 FROM o) AS o2"),
        ("o2.id", "o2.id2"), ("o2.k", "o2.k2"), ("o2.x", "o2.x2"), ("o.id", "id"), ("o.x", "x")]


def query_sql(q):
    """The query of q; bare: o.id and o.x written id and x (see the module's text)."""
    s = shape_sql(q)
    if q.bare:
        for a, b in BARE:
            s = s.replace(a, b)
    return s


def grouped_sql(q):
    """The shapes of subqueries that group or combine sets (SQLITE_SHAPES)."""
    nt = "NOT " if q.negated else ""
    corr = CORRS[q.corr] if q.correlated else ""
    cond = cond_sql(q)
    where = (corr + cond) if corr else cond[len(" AND "):]
    where = " WHERE " + where if where else ""
    having = " HAVING COUNT(*) > %d" % q.having if q.with_having else ""
    if q.shape == "corr-group-exists":
        return "SELECT id FROM o WHERE %sEXISTS (SELECT t.p FROM t%s GROUP BY t.p HAVING COUNT(*) > %d)" % (
            nt, where, q.having)
    if q.shape == "corr-group-in":
        return "SELECT id FROM o WHERE x %sIN (SELECT %s FROM t%s GROUP BY t.p%s)" % (nt, q.agg, where, having)
    if q.shape == "corr-group-scalar":
        return "SELECT id, (SELECT %s FROM t%s GROUP BY t.k%s) AS v FROM o" % (q.agg, where, having)
    if q.shape == "corr-having":
        w = " WHERE " + cond[len(" AND "):] if cond else ""
        return ("SELECT id, (SELECT MAX(n) FROM (SELECT t.k, COUNT(*) AS n FROM t%s GROUP BY t.k "
                "HAVING SUM(p) > o.x) AS d) AS v FROM o" % w)
    if q.shape == "corr-derived":
        return ("SELECT id, (SELECT %s FROM (SELECT t.p, COUNT(*) AS n FROM t%s GROUP BY t.p) AS d) AS v FROM o"
                % (q.agg2, where))
    setq = "SELECT t.p FROM t%s %s SELECT o2.x FROM o o2 WHERE %s" % (where, q.setop, q.set_right)
    if q.shape == "set-exists":
        return "SELECT id FROM o WHERE %sEXISTS (%s)" % (nt, setq)
    if q.shape == "set-in":
        return "SELECT id FROM o WHERE x %sIN (%s)" % (nt, setq)
    if q.shape == "set-value":
        return "SELECT id, %s%s (%s) AS v FROM o" % ("" if q.exists else "x ", nt + ("EXISTS" if q.exists else "IN"),
                                                     setq)
    return "SELECT id, (SELECT COUNT(*) FROM (%s) AS d) AS v FROM o" % setq


def shape_sql(q):
    if q.shape.startswith(SQLITE_SHAPES):
        return grouped_sql(q)
    if q.shape == "row-sub":
        corr = CORRS[q.corr] if q.correlated else ""
        cond = cond_sql(q)
        if not corr:
            cond = cond[len(" AND "):]
        where = " WHERE %s%s" % (corr, cond) if corr or cond else ""
        return "SELECT id, %s %s (SELECT MIN(t.k), MAX(p) FROM t%s) AS v FROM o" % (row_sql(q, "k", "x"), q.cmp, where)
    if q.shape.startswith("row-"):
        nt = "NOT " if q.negated else ""
        cond = cond_sql(q)
        if q.shape == "row-cmp":
            return "SELECT id, %s %s %s AS v FROM o" % (row_sql(q, "k", "x"), q.cmp,
                                                        row_sql(q, lit(q.consts[0][0]), lit(q.consts[0][1])))
        if q.shape == "row-in-list":
            return "SELECT id, (k, x) %sIN (%s) AS v FROM o" % (
                nt, ", ".join("(%s, %s)" % (lit(a), lit(b)) for a, b in q.consts))
        if q.shape == "row-in-corr":
            return "SELECT id FROM o WHERE (k, x) %sIN (SELECT k, p FROM t WHERE t.p <> o.id%s)" % (nt, cond)
        if q.shape in ("row-in-value", "row-in-or"):
            w = ("t.p <> o.id" + cond) if q.correlated else cond[len(" AND "):]
            sub = "%s %sIN (SELECT k, p FROM t%s)" % (row_sql(q, "k", "x"), nt, " WHERE " + w if w else "")
            if q.shape == "row-in-or":
                return "SELECT id FROM o WHERE x < 2 OR %s" % sub
            return "SELECT id, %s AS v FROM o" % sub
        where = " WHERE " + cond[len(" AND "):] if cond else ""
        if q.shape == "row-in-group":
            return "SELECT id FROM o WHERE (k, x) %sIN (SELECT k, %s FROM t%s GROUP BY k)" % (nt, q.agg, where)
        return "SELECT id FROM o WHERE %s %sIN (SELECT k, p FROM t%s)" % (row_sql(q, "k", "x"), nt, where)
    if q.shape.startswith("on-"):
        nt = "NOT " if q.negated else ""
        test = ("t.p %sIN (SELECT o2.x FROM o o2)" % nt if q.shape == "on-in" else
                "%sEXISTS (SELECT * FROM o o2 WHERE o2.x = t.p)" % nt)
        return ("SELECT o.id, CASE WHEN t.k IS NULL THEN NULL ELSE COALESCE(t.p, -1) END AS v "
                "FROM o LEFT JOIN t ON t.k = o.k AND %s" % test)
    if q.shape.startswith("nested"):
        nt, it = "NOT " if q.negated else "", "NOT " if q.inner_not else ""
        nest = ("%sEXISTS (SELECT * FROM o o2 WHERE o2.x = t.p AND o2.id <> o.id)" % it if q.shape == "nested-in" else
                "t.p > (SELECT MIN(o2.x) FROM o o2 WHERE o2.k = o.x)" if q.shape == "nested-cmp" else
                "t.p %sIN (SELECT o2.x FROM o o2 WHERE o2.k = o.x)" % it)
        conds = ([CORRS[q.corr]] if q.correlated else []) + ([cond_sql(q)[len(" AND "):]] if q.cond else []) + [nest]
        where = " WHERE " + " AND ".join(conds)
        if q.shape == "nested-exists":
            return "SELECT id FROM o WHERE %sEXISTS (SELECT * FROM t%s)" % (nt, where)
        if q.shape == "nested-in":
            return "SELECT id FROM o WHERE x %sIN (SELECT t.p FROM t%s)" % (nt, where)
        if q.shape in ("nested-scalar", "nested-cmp"):
            return "SELECT id, (SELECT %s FROM t%s) AS v FROM o" % (q.agg, where)
        if q.shape == "nested-rows":
            return "SELECT o.id, l.v FROM o, LATERAL (SELECT t.p AS v FROM t%s) AS l" % where
        return "SELECT o.id, l.v FROM o %s (SELECT %s AS v FROM t%s) AS l%s" % (
            "LEFT JOIN LATERAL" if q.negated else ", LATERAL", q.agg, where, " ON TRUE" if q.negated else "")
    corr = CORRS[q.corr] if q.correlated else ""
    cond = cond_sql(q)
    if not corr:
        cond = cond[len(" AND "):]
    where = " WHERE %s%s" % (corr, cond) if corr or cond else ""
    nt = "NOT " if q.negated else ""
    if q.shape == "lateral-oagg":
        return "SELECT o.id, l.v FROM o %s (SELECT %s AS v FROM t%s) AS l%s" % (
            "LEFT JOIN LATERAL" if q.negated else ", LATERAL", q.oagg, where, " ON TRUE" if q.negated else "")
    if q.shape == "scalar-oagg":
        return "SELECT id, (SELECT %s FROM t%s) AS v FROM o" % (q.oagg, where)
    if q.shape == "scalar-select":
        return "SELECT id, (SELECT %s FROM t%s) AS v FROM o" % (q.agg, where)
    if q.shape == "lateral-group":
        return ("SELECT o.id, l.v, l.n FROM o LEFT JOIN LATERAL (SELECT t.p AS v, COUNT(*) AS n FROM t%s "
                "GROUP BY t.p) AS l ON TRUE" % where)
    if q.shape == "lateral-having":
        left = q.negated
        return "SELECT o.id, l.v FROM o %s (SELECT %s%s%s AS v FROM t%s HAVING COUNT(*) > %d) AS l%s" % (
            "LEFT JOIN LATERAL" if left else ", LATERAL", "DISTINCT " if q.distinct else "", q.agg,
            " + o.id" if q.outer else "", where, q.having, " ON TRUE" if left else "")
    if q.shape == "lateral-sub":
        return "SELECT o.id, l.v FROM o, LATERAL (SELECT t.p AS v FROM (SELECT k, p FROM t) AS t%s) AS l" % where
    if q.shape == "lateral-join":
        left = q.negated
        return "SELECT o.id, l.v FROM o %s (SELECT COUNT(*) AS v FROM t JOIN o AS o2 ON o2.id = t.p%s) AS l%s" % (
            "LEFT JOIN LATERAL" if left else ", LATERAL", where, " ON TRUE" if left else "")
    if q.shape.startswith("lateral"):
        item = {"lateral-rows": "t.p", "lateral-left": "COALESCE(t.p, -1)", "lateral-agg": q.agg}[q.shape]
        left = q.shape == "lateral-left" or (q.shape == "lateral-agg" and q.negated)
        return "SELECT o.id, l.v FROM o %s (SELECT %s AS v FROM t%s) AS l%s" % (
            "LEFT JOIN LATERAL" if left else ", LATERAL", item, where, " ON TRUE" if left else "")
    if q.shape == "scalar-where":
        return "SELECT id FROM o WHERE x %s (SELECT %s FROM t%s)" % (q.op, q.agg, where)
    if q.shape == "single-select":
        return "SELECT id, (SELECT p FROM t%s) AS v FROM o" % where
    if q.shape == "single-where":
        return "SELECT id FROM o WHERE x %s (SELECT p FROM t%s)" % (q.op, where)
    if q.shape == "exists-select":
        return "SELECT id, %sEXISTS (SELECT * FROM t%s) AS v FROM o" % (nt, where)
    if q.shape == "exists-where":
        return "SELECT id FROM o WHERE %sEXISTS (SELECT * FROM t%s)" % (nt, where)
    if q.shape == "group-in":
        t = "x %sIN (SELECT p FROM t%s)" % (nt, where)
        return "SELECT %s AS v, COUNT(*) AS n FROM o GROUP BY %s" % (t, t)
    if q.shape == "agg-corr":
        return "SELECT k, (SELECT %s FROM t%s) AS v FROM o GROUP BY k" % (q.agg, where)
    if q.shape == "agg-in":
        return "SELECT k, COUNT(*) %sIN (SELECT p FROM t%s) AS v FROM o GROUP BY k" % (nt, where)
    if q.shape == "in-select":
        return "SELECT id, x %sIN (SELECT p FROM t%s) AS v FROM o" % (nt, where)
    if q.shape == "in-or":
        return "SELECT id FROM o WHERE x < 2 OR x %sIN (SELECT p FROM t%s)" % (nt, where)
    return "SELECT id FROM o WHERE x %sIN (SELECT %s FROM t%s)" % (nt, q.agg, where)


def job_sql(j):
    out = ["-- subquery_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else ""),
           "CREATE TABLE o (id INT, k INT, x INT) WITH ('connector' = 'filesystem', 'path' = 'o.csv', "
           "'format' = 'csv');",
           "CREATE TABLE t (k INT, p INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');"]
    for qi, q in enumerate(j.queries):
        types = {"id": "INT", "v": "INT" if q.shape == "lateral-group" else out_type(q), "n": "BIGINT", "k": "INT"}
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, ", ".join("%s %s" % (c, types[c]) for c in out_cols(q)), qi))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for qi, q in enumerate(j.queries):
        out.append("  INSERT INTO q%d %s;" % (qi, query_sql(q)))
    out.append("END;")
    return "\n".join(out) + "\n"


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d%s)" % (j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "")
    diffrun.write_csv(case.path("o.csv"), j.o)
    diffrun.write_csv(case.path("t.csv"), j.t)
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    failing = [qi for qi, q in enumerate(j.queries) if too_many(j, q)]
    if failing:
        case.counts["jobs failing on a second row"] += 1
        if p.returncode != 0 and "subquery at line" in p.stderr and "gave more than one row" in p.stderr:
            return []
        return ["queries %s give two rows for a key, so the job must fail naming the subquery; it %s" % (
            failing, "exited 0" if p.returncode == 0 else diffrun.failed_run(p))]
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, q in enumerate(j.queries):
        what = "q%d (%s)" % (qi, query_sql(q))
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), out_cols(q))
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, oracle(j, q), got)
    return problems


def main():
    return diffrun.main("subquery_diff", run_case, jobs_env="WEIR_SUBQDIFF_JOBS", jobs=4, asan_jobs=1,
                        one_env="WEIR_SUBQDIFF_JOB", unit="jobs of 6 queries")


if __name__ == "__main__":
    sys.exit(main())
