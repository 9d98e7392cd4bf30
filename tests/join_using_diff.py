#!/usr/bin/env python3
"""Randomized differential test of NATURAL JOIN and JOIN ... USING.

Each job is two random CSV inputs, l (k INT, s STRING, a INT) and
r (s STRING, k INT, b INT) - small domains, NULLs in k, so keys repeat
and rows go unmatched - and queries

    SELECT <cols> FROM l <kind> JOIN r <form>

for kind in INNER, LEFT, RIGHT, FULL and form in NATURAL (common columns
k, s in l's order), USING (k), USING (s, k), selecting either * or the
common columns unqualified and qualified (l.k, r.k, ...) beside a and b.
Results go to debezium-json files and are folded into their tables (a
delete must find its row). weir runs at a random parallelism (1/2/4) and
batch size (1/7/1024), on the memory or the RocksDB state backend.

The oracle shares no code with weir: a nested loop over both inputs, a
pair matching when every common column is equal and not NULL; an outer
side's unmatched rows padded with NULLs; SELECT * is the common columns
(COALESCE(l.c, r.c)), then l's other columns, then r's, as Calcite
expands a NATURAL / USING join.

Usage: join_using_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_USINGDIFF_JOB=i runs one job.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

KINDS = ["INNER", "LEFT", "RIGHT", "FULL"]
FORMS = {"NATURAL": ["k", "s"], "USING (k)": ["k"], "USING (s, k)": ["s", "k"]}
L_COLS, R_COLS = ["k", "s", "a"], ["s", "k", "b"]
TYPES = {"k": "INT", "s": "STRING", "a": "INT", "b": "INT"}


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.rocksdb = rng.random() < 0.3
    nk = rng.randint(1, 4)
    ss = ["x", "y"][:rng.randint(1, 2)]

    def rows(n):
        out = []
        for i in range(n):
            k = None if rng.random() < 0.15 else rng.randint(0, nk - 1)
            s = "" if rng.random() < 0.1 else rng.choice(ss)  # (the csv format reads an empty STRING as '')
            out.append({"k": k, "s": s, "v": i})
        return out
    j.l = rows(rng.randint(0, 25))
    j.r = rows(rng.randint(0, 25))
    j.queries = [(rng.choice(KINDS), rng.choice(list(FORMS)), rng.choice(["star", "named"])) for _ in range(6)]
    return j


def out_cols(form, sel):
    """The output columns: (name in the sink, what it is) with what = ("c", name) for a common
    column, ("l", name) / ("r", name) for an input's own column."""
    common = FORMS[form]
    if sel == "star":
        cols = [("c", c) for c in common]
        cols += [("l", c) for c in L_COLS if c not in common]
        cols += [("r", c) for c in R_COLS if c not in common]
    else:
        cols = [("c", c) for c in common] + [("l", c) for c in common] + [("r", c) for c in common]
        cols += [("l", "a"), ("r", "b")]
    return [("c%d" % i, w) for i, w in enumerate(cols)]


def select_list(form, sel):
    if sel == "star":
        return "*"
    out = []
    for _, (side, c) in out_cols(form, sel):
        out.append(c if side == "c" or c in ("a", "b") else "%s.%s" % (side, c))
    return ", ".join(out)


def value(row, side, c):
    if row is None:
        return None
    if c == "a" or c == "b":
        return row["v"]
    return row[c]


def oracle(j, kind, form, sel):
    common = FORMS[form]
    cols = out_cols(form, sel)

    def match(lr, rr):
        return all(lr[c] is not None and rr[c] is not None and lr[c] == rr[c] for c in common)
    pairs = []
    lm, rm = [False] * len(j.l), [False] * len(j.r)
    for i, lr in enumerate(j.l):
        for k, rr in enumerate(j.r):
            if match(lr, rr):
                pairs.append((lr, rr))
                lm[i] = rm[k] = True
    if kind in ("LEFT", "FULL"):
        pairs += [(lr, None) for i, lr in enumerate(j.l) if not lm[i]]
    if kind in ("RIGHT", "FULL"):
        pairs += [(None, rr) for k, rr in enumerate(j.r) if not rm[k]]
    out = collections.Counter()
    for lr, rr in pairs:
        row = []
        for _, (side, c) in cols:
            if side == "c":
                lv, rv = value(lr, "l", c), value(rr, "r", c)
                row.append(lv if lv is not None else rv)
            else:
                row.append(value(lr if side == "l" else rr, side, c))
        out[tuple(row)] += 1
    return out


def job_sql(j):
    out = ["-- join_using_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else ""),
           "CREATE TABLE l (k INT, s STRING, a INT) WITH ('connector' = 'filesystem', 'path' = 'l.csv', "
           "'format' = 'csv');",
           "CREATE TABLE r (s STRING, k INT, b INT) WITH ('connector' = 'filesystem', 'path' = 'r.csv', "
           "'format' = 'csv');"]
    for qi, (kind, form, sel) in enumerate(j.queries):
        cols = ", ".join("%s %s" % (n, TYPES[c]) for n, (_, c) in out_cols(form, sel))
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, cols, qi))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for qi, (kind, form, sel) in enumerate(j.queries):
        if form == "NATURAL":
            join = "l NATURAL %s JOIN r" % kind
        else:
            join = "l %s JOIN r %s" % (kind, form)
        out.append("  INSERT INTO q%d SELECT %s FROM %s;" % (qi, select_list(form, sel), join))
    out.append("END;")
    return "\n".join(out) + "\n"


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d%s)" % (j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "")
    diffrun.write_csv(case.path("l.csv"), ((r["k"], r["s"], r["v"]) for r in j.l))
    diffrun.write_csv(case.path("r.csv"), ((r["s"], r["k"], r["v"]) for r in j.r))
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, (kind, form, sel) in enumerate(j.queries):
        what = "q%d (%s JOIN %s, %s)" % (qi, kind, form, sel)
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), [n for n, _ in out_cols(form, sel)])
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, oracle(j, kind, form, sel), got)
    return problems


def main():
    return diffrun.main("join_using_diff", run_case, jobs_env="WEIR_USINGDIFF_JOBS", jobs=6, asan_jobs=2,
                        one_env="WEIR_USINGDIFF_JOB", unit="jobs of 6 queries")


if __name__ == "__main__":
    sys.exit(main())
