#!/usr/bin/env python3
"""Randomized differential test of weir's INTERSECT / EXCEPT [ALL].

Each job is two random CSV inputs l and r (a INT with NULLs, b STRING;
small domains, so rows repeat and meet) and queries

    SELECT cols FROM l  OP  SELECT cols FROM r          (append-only inputs)
    SELECT a, COUNT(*) FROM l GROUP BY a  OP  (same over r)   (changelogs)

for OP in INTERSECT, INTERSECT ALL, EXCEPT, EXCEPT ALL, written to
debezium-json files, run by `weir run` at a random parallelism (1/2/4)
and batch size (1/7/1024), on the memory or the RocksDB state backend.
Each result changelog is folded into its table
(a delete must find its row) and compared with the oracle, which shares no
code with weir: with n_l and n_r the multiplicity of a row value in the
two input tables (NULL equal to NULL),
    INTERSECT 1 if n_l > 0 and n_r > 0    INTERSECT ALL min(n_l, n_r)
    EXCEPT    1 if n_l > 0 and n_r == 0   EXCEPT ALL    max(n_l - n_r, 0).

Usage: setop_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_SETOPDIFF_JOB=i runs one job.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

OPS = ["INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"]


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.rocksdb = rng.random() < 0.3  # state on RocksDB
    na = rng.randint(1, 5)
    bs = ["x", "y", "z"][:rng.randint(1, 3)]

    def rows():
        out = []
        for _ in range(rng.randint(0, 40)):
            a = None if rng.random() < 0.15 else rng.randint(0, na - 1)
            out.append((a, rng.choice(bs)))
        return out
    j.l, j.r = rows(), rows()
    j.queries = []
    for qi in range(6):
        j.queries.append((rng.choice(OPS), rng.choice(["ab", "a", "b", "count"])))
    return j


def table(rows, shape):
    if shape == "ab":
        return collections.Counter(rows)
    if shape == "a":
        return collections.Counter((a,) for a, _ in rows)
    if shape == "b":
        return collections.Counter((b,) for _, b in rows)
    c = collections.Counter(a for a, _ in rows)
    return collections.Counter((a, n) for a, n in c.items())


def oracle(j, op, shape):
    L, R = table(j.l, shape), table(j.r, shape)
    out = collections.Counter()
    for v in set(L) | set(R):
        nl, nr = L[v], R[v]
        m = {"INTERSECT": int(nl > 0 and nr > 0), "INTERSECT ALL": min(nl, nr),
             "EXCEPT": int(nl > 0 and nr == 0), "EXCEPT ALL": max(nl - nr, 0)}[op]
        if m:
            out[v] = m
    return out


def select(shape, t):
    if shape == "count":
        return "SELECT a, COUNT(*) AS n FROM %s GROUP BY a" % t
    return "SELECT %s FROM %s" % (", ".join(shape), t)


def out_cols(shape):
    return {"ab": ["a", "b"], "a": ["a"], "b": ["b"], "count": ["a", "n"]}[shape]


def job_sql(j):
    out = ["-- setop_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else ""),
           "CREATE TABLE l (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');",
           "CREATE TABLE r (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');"]
    types = {"a": "INT", "b": "STRING", "n": "BIGINT"}
    for qi, (op, shape) in enumerate(j.queries):
        cols = ", ".join("%s %s" % (c, types[c]) for c in out_cols(shape))
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, cols, qi))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for qi, (op, shape) in enumerate(j.queries):
        out.append("  INSERT INTO q%d %s %s %s;" % (qi, select(shape, "l"), op, select(shape, "r")))
    out.append("END;")
    return "\n".join(out) + "\n"


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d%s)" % (j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "")
    with open(case.path("l.csv"), "w") as f:
        f.writelines("%s,%s\n" % ("" if a is None else a, b) for a, b in j.l)
    with open(case.path("r.csv"), "w") as f:
        f.writelines("%s,%s\n" % ("" if a is None else a, b) for a, b in j.r)
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, (op, shape) in enumerate(j.queries):
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), out_cols(shape))
        except ValueError as e:
            problems.append("q%d (%s, %s): %s" % (qi, op, shape, e))
            continue
        problems += diffrun.multiset_problems("q%d (%s, %s)" % (qi, op, shape), oracle(j, op, shape), got)
    return problems


def main():
    return diffrun.main("setop_diff", run_case, jobs_env="WEIR_SETOPDIFF_JOBS", jobs=12, asan_jobs=6,
                        one_env="WEIR_SETOPDIFF_JOB", unit="jobs of 6 queries")


if __name__ == "__main__":
    sys.exit(main())
