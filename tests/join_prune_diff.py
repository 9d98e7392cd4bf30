#!/usr/bin/env python3
"""Randomized differential test of the projection below joins.

A join keeps only the columns of its inputs that the SELECT above it reads
(the SELECT's items, WHERE, GROUP BY, HAVING, the ON conditions). Each job
is three random CSV inputs - l (k INT, a INT, s STRING, v INT),
r (k INT, b INT, t STRING, v INT), m (k INT, c INT): v in both, small key
domains, NULLs - and six random queries over joins of them:

    SELECT <items> FROM <join> [WHERE ...] [GROUP BY ...]

where the join is l <kind> JOIN r ON l.k = r.k [AND residual], the comma
form FROM l, r WHERE l.k = r.k AND ..., a derived table in place of l
(columns of l's names computed from other values), a third input m joined
to the result, and the items a random few of l's and r's columns, their
sums, COALESCE, l.* and r.*, or an aggregation of them grouped by one.
Residual conditions and filters read columns that no item reads, so a
column dropped below the join that the condition or an item needs gives
wrong rows. Results go to debezium-json files, folded into their tables.
weir runs at a random parallelism (1/2/4), batch size (1/7/1024) and
state backend.

The oracle shares no code with weir: a nested loop over the inputs with
SQL's three-valued logic (a comparison with NULL is not TRUE), outer sides
padded with NULLs, then the items (and groups) over the pairs.

Usage: join_prune_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_PRUNEDIFF_JOB=i runs one job.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

L_COLS, R_COLS, M_COLS = ["k", "a", "s", "v"], ["k", "b", "t", "v"], ["k", "c"]
TYPES = {"k": "INT", "a": "INT", "b": "INT", "c": "INT", "v": "INT", "s": "STRING", "t": "STRING"}


def add(x, y):
    return None if x is None or y is None else x + y


def cmp(op, x, y):
    if x is None or y is None:
        return None
    return {"<": x < y, ">=": x >= y, "<>": x != y, "=": x == y}[op]


def sql_or(x, y):
    if x is True or y is True:
        return True
    return None if x is None or y is None else False


def coalesce(x, y):
    return x if x is not None else y


# Residual conditions of the join (sql, value over the row env), read columns no item may read.
RESIDUALS = [
    ("l.a < r.b", lambda e: cmp("<", e["l.a"], e["r.b"])),
    ("l.s <> r.t", lambda e: cmp("<>", e["l.s"], e["r.t"])),
    ("l.v + r.v >= 3", lambda e: cmp(">=", add(e["l.v"], e["r.v"]), 3)),
    ("(l.a IS NULL OR r.v >= 1)", lambda e: sql_or(e["l.a"] is None, cmp(">=", e["r.v"], 1))),
]
# WHERE filters of an inner join (one input each, or both).
FILTERS = [
    ("l.v >= 1", lambda e: cmp(">=", e["l.v"], 1)),
    ("r.t <> 'x'", lambda e: cmp("<>", e["r.t"], "x")),
    ("l.a + r.b >= 2", lambda e: cmp(">=", add(e["l.a"], e["r.b"]), 2)),
]
# Items: (sql, sink type, value over the row env).
ITEMS = [
    ("l.a", "INT", lambda e: e["l.a"]),
    ("r.b", "INT", lambda e: e["r.b"]),
    ("l.s", "STRING", lambda e: e["l.s"]),
    ("r.t", "STRING", lambda e: e["r.t"]),
    ("l.v", "INT", lambda e: e["l.v"]),
    ("r.v", "INT", lambda e: e["r.v"]),
    ("r.k", "INT", lambda e: e["r.k"]),
    ("l.a + r.v", "INT", lambda e: add(e["l.a"], e["r.v"])),
    ("COALESCE(l.s, r.t)", "STRING", lambda e: coalesce(e["l.s"], e["r.t"])),
]
M_ITEMS = [("m.c", "INT", lambda e: e["m.c"]), ("m.c + l.v", "INT", lambda e: add(e["m.c"], e["l.v"]))]
GROUPS = [("l.s", "STRING", lambda e: e["l.s"]), ("r.t", "STRING", lambda e: e["r.t"]),
          ("l.k", "INT", lambda e: e["l.k"])]
AGG_ARGS = [("l.a", lambda e: e["l.a"]), ("r.b", lambda e: e["r.b"]), ("l.v + r.v", lambda e: add(e["l.v"], e["r.v"]))]


def gen_rows(rng, cols, n, nk):
    out = []
    for i in range(n):
        row = {}
        for c in cols:
            if c == "k":
                row[c] = None if rng.random() < 0.1 else rng.randint(0, nk - 1)
            elif TYPES[c] == "STRING":
                row[c] = rng.choice(["x", "y", "z", ""])  # (the csv format reads an empty STRING as '')
            else:
                row[c] = None if rng.random() < 0.15 else rng.randint(-1, 3)
        out.append(row)
    return out


def gen_query(rng):
    q = argparse.Namespace()
    q.form = rng.choice(["on", "on", "comma", "derived", "three"])
    q.kind = "INNER" if q.form == "comma" else rng.choice(["INNER", "LEFT", "RIGHT", "FULL"])
    q.mkind = rng.choice(["INNER", "LEFT"])
    q.residual = rng.choice(RESIDUALS + [None])
    q.filters = rng.sample(FILTERS, rng.randint(0, 2)) if q.kind == "INNER" else []
    q.agg = rng.random() < 0.3
    pool = ITEMS + (M_ITEMS if q.form == "three" else [])
    if q.agg:
        q.group = rng.choice(GROUPS)
        q.aggs = [("COUNT(*)", "BIGINT", None)] + [
            ("SUM(%s)" % s, "INT", f) for s, f in rng.sample(AGG_ARGS, rng.randint(1, 2))]
        q.items = []
    else:
        q.items = rng.sample(pool, rng.randint(1, 3))
        q.star = rng.choice([None, None, None, "l", "r"])
    return q


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.rocksdb = rng.random() < 0.3
    nk = rng.randint(1, 4)
    j.l = gen_rows(rng, L_COLS, rng.randint(0, 20), nk)
    j.r = gen_rows(rng, R_COLS, rng.randint(0, 20), nk)
    j.m = gen_rows(rng, M_COLS, rng.randint(0, 8), nk)
    j.queries = [gen_query(rng) for _ in range(6)]
    return j


def out_cols(q):
    """(sql, sink type, value over the row env) of each output column."""
    if q.agg:
        return [q.group] + q.aggs
    cols = list(q.items)
    if q.star:
        names = L_COLS if q.star == "l" else R_COLS
        cols += [("%s.%s" % (q.star, c), TYPES[c], (lambda key: lambda e: e[key])("%s.%s" % (q.star, c)))
                 for c in names]
    return cols


def query_sql(q):
    cols = out_cols(q)
    if q.agg:
        items = ", ".join(s for s, _, _ in cols)
    else:
        items = ", ".join(s for s, _, _ in q.items)
        if q.star:
            items += ", %s.*" % q.star
    left = "l"
    if q.form == "derived":
        left = "(SELECT k, v - 1 AS a, s, a AS v FROM l) AS l"
    conds = ["l.k = r.k"] + ([q.residual[0]] if q.residual else [])
    where = [s for s, _ in q.filters]
    if q.form == "comma":
        frm = "%s, r" % left
        where = conds + where
    else:
        frm = "%s %s JOIN r ON %s" % (left, q.kind, " AND ".join(conds))
        if q.form == "three":
            frm += " %s JOIN m ON r.k = m.k" % q.mkind
    sql = "SELECT %s FROM %s" % (items, frm)
    if where:
        sql += " WHERE " + " AND ".join(where)
    if q.agg:
        sql += " GROUP BY " + q.group[0]
    return sql


def env_of(prefix, row, cols):
    return {"%s.%s" % (prefix, c): (row[c] if row is not None else None) for c in cols}


def oracle(j, q):
    ls = j.l
    if q.form == "derived":
        ls = [{"k": r["k"], "a": None if r["v"] is None else r["v"] - 1, "s": r["s"], "v": r["a"]} for r in j.l]

    def matches(lr, rr):
        if lr["k"] is None or rr["k"] is None or lr["k"] != rr["k"]:
            return False
        if q.residual is None:
            return True
        e = env_of("l", lr, L_COLS)
        e.update(env_of("r", rr, R_COLS))
        return q.residual[1](e) is True
    pairs = []
    lm, rm = [False] * len(ls), [False] * len(j.r)
    for i, lr in enumerate(ls):
        for k, rr in enumerate(j.r):
            if matches(lr, rr):
                pairs.append((lr, rr))
                lm[i] = rm[k] = True
    if q.kind in ("LEFT", "FULL"):
        pairs += [(lr, None) for i, lr in enumerate(ls) if not lm[i]]
    if q.kind in ("RIGHT", "FULL"):
        pairs += [(None, rr) for k, rr in enumerate(j.r) if not rm[k]]
    envs = []
    for lr, rr in pairs:
        e = env_of("l", lr, L_COLS)
        e.update(env_of("r", rr, R_COLS))
        envs.append(e)
    if q.form == "three":
        joined = []
        for e in envs:
            hit = False
            for mr in j.m:
                if e["r.k"] is not None and mr["k"] is not None and e["r.k"] == mr["k"]:
                    x = dict(e)
                    x.update(env_of("m", mr, M_COLS))
                    joined.append(x)
                    hit = True
            if not hit and q.mkind == "LEFT":
                x = dict(e)
                x.update(env_of("m", None, M_COLS))
                joined.append(x)
        envs = joined
    envs = [e for e in envs if all(f(e) is True for _, f in q.filters)]
    out = collections.Counter()
    if not q.agg:
        for e in envs:
            out[tuple(f(e) for _, _, f in out_cols(q))] += 1
        return out
    groups = collections.OrderedDict()
    for e in envs:
        groups.setdefault(q.group[2](e), []).append(e)
    for g, es in groups.items():
        row = [g]
        for s, _, f in q.aggs:
            if f is None:
                row.append(len(es))
            else:
                vals = [f(e) for e in es if f(e) is not None]
                row.append(sum(vals) if vals else None)
        out[tuple(row)] += 1
    return out


def job_sql(j):
    out = ["-- join_prune_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else "")]
    for name, cols in (("l", L_COLS), ("r", R_COLS), ("m", M_COLS)):
        out.append("CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s.csv', 'format' = 'csv');"
                   % (name, ", ".join("%s %s" % (c, TYPES[c]) for c in cols), name))
    for qi, q in enumerate(j.queries):
        cols = ", ".join("c%d %s" % (i, t) for i, (_, t, _) in enumerate(out_cols(q)))
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, cols, qi))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for qi, q in enumerate(j.queries):
        out.append("  INSERT INTO q%d %s;" % (qi, query_sql(q)))
    out.append("END;")
    return "\n".join(out) + "\n"


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d%s)" % (j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "")
    for name, rows, cols in (("l", j.l, L_COLS), ("r", j.r, R_COLS), ("m", j.m, M_COLS)):
        diffrun.write_csv(case.path(name + ".csv"), ([r[c] for c in cols] for r in rows))
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, q in enumerate(j.queries):
        what = "q%d (%s)" % (qi, query_sql(q))
        cols = ["c%d" % i for i in range(len(out_cols(q)))]
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), cols)
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, oracle(j, q), got)
    return problems


def main():
    return diffrun.main("join_prune_diff", run_case, jobs_env="WEIR_PRUNEDIFF_JOBS", jobs=6, asan_jobs=2,
                        one_env="WEIR_PRUNEDIFF_JOB", unit="jobs of 6 queries")


if __name__ == "__main__":
    sys.exit(main())
