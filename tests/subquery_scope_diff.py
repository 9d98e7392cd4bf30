#!/usr/bin/env python3
"""Randomized differential test of names in nested correlated subqueries.

Each job is five small random CSV inputs t0 .. t4, each with an id and some
of the columns x, k, y (so most names are columns of several of them; small
domains with NULLs), and random queries nested 2 to 5 levels deep, level i
reading ti:

    SELECT t0.id FROM t0 WHERE <pred 1>
    SELECT t0.id, (SELECT COUNT(*) FROM t1 WHERE <where 1>) AS v FROM t0

where <pred i> is one of

    [NOT] EXISTS (SELECT 1 FROM ti WHERE <where i>)
    <ref> [NOT] IN (SELECT ti.c FROM ti WHERE <where i>)      (<ref> a column of level i - 1 or further out)
    <ref> <cmp> (SELECT COUNT(*) FROM t1 WHERE <where 1>)     (level 1 only)

and <where i> one or two comparisons of a column of ti with a column of any
level around it (or a literal), ANDed with <pred i+1> above the innermost
level (at times with a second <pred i+1>, one level deep, after it). A
COUNT(*) subquery's first comparison reads t0: an uncorrelated COUNT(*) over
no rows has no row in Flink's streaming, so NULL, where SQLite counts 0. A
column is written bare where the nearest level that has the name is the one
meant (so a bare x at level 3 is t3's x, or t2's when t3 has none, ...),
else qualified: SQL's scope rule. Half the jobs give t0 and t1 a name that
t2 and t3 lack, read bare and as t0's two levels down and more. The oracle
is SQLite, an independent engine with the same rule, over the same rows;
weir runs the queries at parallelism 1, 2 or 4 into debezium-json files,
folded into their tables (anti joins retract).

Usage: subquery_scope_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_SCOPEDIFF_JOB=i runs one job.
"""

import collections
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

NAMES = ["x", "k", "y"]
CMPS = ["=", "<>", "<", ">="]
N_QUERIES = 6


class Tables(list):
    """The tables' (columns, rows), and the name (or None) that t0 and t1 have and t2 and t3 have not."""
    shadow = None


def gen_tables(rng):
    tables = Tables()
    shadow = tables.shadow = rng.choice(NAMES) if rng.random() < 0.5 else None
    for i in range(5):
        cols = ["id"] + [c for c in NAMES if rng.random() < 0.55]
        if len(cols) == 1:
            cols.append(rng.choice(NAMES))
        if shadow and i < 4:  # the name in t0 and t1, not in t2 and t3: t1's shadows t0's two levels down
            cols = [c for c in cols if c != shadow or i < 2] + ([shadow] if i < 2 and shadow not in cols else [])
            cols = cols if len(cols) > 1 else cols + [c for c in NAMES if c != shadow][:1]
        n = rng.randint(2, 6)
        rows = [tuple([r + 1] + [None if rng.random() < 0.1 else rng.randint(0, 3) for _ in cols[1:]])
                for r in range(n)]
        tables.append((cols, rows))
    return tables


def ref(rng, tables, level, near=False, j=None):
    """A column of level j <= level (j = level when near; any when None), as
    the query writes it: bare when no level between j and level has the name."""
    if j is None and not near and tables.shadow and level >= 2 and rng.random() < 0.3:
        return rng.choice([tables.shadow, "t0." + tables.shadow])  # t1's, or t0's carried beside it
    if j is None:
        j = level if near else rng.choice([level, max(level - 1, 0), max(level - 2, 0)] + list(range(level + 1)))
    c = rng.choice(tables[j][0])
    nearest = max(i for i in range(level + 1) if c in tables[i][0])
    if nearest == j and rng.random() < 0.75:
        return c
    return "t%d.%s" % (j, c)


def gen_where(rng, tables, level, depth, correlated=False):
    """Level level's conditions; correlated: the first one reads t0."""
    conds = []
    for i in range(rng.randint(1, 2)):
        a = ref(rng, tables, level, near=True)
        if correlated and i == 0:
            b = ref(rng, tables, level, j=0)
        else:
            b = str(rng.randint(0, 3)) if rng.random() < 0.15 else ref(rng, tables, level)
        if rng.random() < 0.5:
            a, b = b, a
        conds.append("%s %s %s" % (a, rng.choice(CMPS), b))
    if level < depth - 1:
        conds.append(gen_pred(rng, tables, level + 1, depth))
        if rng.random() < 0.3:  # a second one, one level deep, after it
            conds.append(gen_pred(rng, tables, level + 1, level + 2))
    return " AND ".join(conds)


def gen_pred(rng, tables, level, depth):
    """The predicate of level level - 1's WHERE that holds level level's subquery."""
    forms = ["exists", "in"] + (["count"] if level == 1 else [])
    form = rng.choice(forms)
    where = gen_where(rng, tables, level, depth, correlated=form == "count")
    t = "t%d" % level
    if form == "exists":
        return "%sEXISTS (SELECT 1 FROM %s WHERE %s)" % ("NOT " if rng.random() < 0.3 else "", t, where)
    if form == "in":
        c = rng.choice(tables[level][0])
        # x of the level around it, or of one further out (a semi join of that level's rows compares it)
        x = ref(rng, tables, level - 1, near=rng.random() < 0.6)
        return "%s %sIN (SELECT %s.%s FROM %s WHERE %s)" % (x,
                                                          "NOT " if rng.random() < 0.3 else "", t, c, t, where)
    return "%s %s (SELECT COUNT(*) FROM %s WHERE %s)" % (ref(rng, tables, level - 1), rng.choice(CMPS), t, where)


def gen_query(rng, tables):
    depth = rng.choice([2, 3, 4, 4, 5, 5])
    if rng.random() < 0.25:
        return ("SELECT t0.id, (SELECT COUNT(*) FROM t1 WHERE %s) AS v FROM t0"
                % gen_where(rng, tables, 1, depth, correlated=True), ["id", "v"])
    return "SELECT t0.id FROM t0 WHERE %s" % gen_pred(rng, tables, 1, depth), ["id"]


def sqlite_rows(tables, sql):
    db = sqlite3.connect(":memory:")
    for i, (cols, rows) in enumerate(tables):
        db.execute("CREATE TABLE t%d (%s)" % (i, ", ".join(cols)))
        db.executemany("INSERT INTO t%d VALUES (%s)" % (i, ", ".join("?" * len(cols))), rows)
    out = collections.Counter(tuple(r) for r in db.execute(sql).fetchall())
    db.close()
    return out


def job_sql(seed, index, parallelism, tables, queries):
    out = ["-- subquery_scope_diff seed %d job %d: parallelism %d" % (seed, index, parallelism)]
    for i, (cols, _) in enumerate(tables):
        out.append("CREATE TABLE t%d (%s) WITH ('connector' = 'filesystem', 'path' = 't%d.csv', "
                   "'format' = 'csv');" % (i, ", ".join(c + " INT" for c in cols), i))
    for qi, (_, cols) in enumerate(queries):
        types = {"id": "INT", "v": "BIGINT"}
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, ", ".join("%s %s" % (c, types[c]) for c in cols), qi))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for qi, (sql, _) in enumerate(queries):
        out.append("  INSERT INTO q%d %s;" % (qi, sql))
    out.append("END;")
    return "\n".join(out) + "\n"


def run_case(case):
    rng = case.rng
    tables = gen_tables(rng)
    queries = [gen_query(rng, tables) for _ in range(N_QUERIES)]
    parallelism = rng.choice([1, 2, 4])
    case.note = "(parallelism %d)" % parallelism
    for i, (_, rows) in enumerate(tables):
        diffrun.write_csv(case.path("t%d.csv" % i), rows)
    case.write("job.sql", job_sql(case.seed, case.index, parallelism, tables, queries))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, parallelism))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, (sql, cols) in enumerate(queries):
        what = "q%d (%s)" % (qi, sql)
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), cols)
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, sqlite_rows(tables, sql), got)
    case.counts["queries"] += N_QUERIES
    return problems


def main():
    return diffrun.main("subquery_scope_diff", run_case, jobs_env="WEIR_SCOPEDIFF_JOBS", jobs=6, asan_jobs=2,
                        one_env="WEIR_SCOPEDIFF_JOB", unit="jobs of %d queries" % N_QUERIES)


if __name__ == "__main__":
    sys.exit(main())
