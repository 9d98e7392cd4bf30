#!/usr/bin/env python3
"""Randomized differential test of weir's lookup join (FOR SYSTEM_TIME AS OF
a processing-time attribute) over numeric keys of mixed types.

Each job draws a table t (key k, a number w, a unique name) and a stream s
(id, key k, a number x, p AS PROCTIME()), both CSV files, the two key
columns of random numeric types (INT, BIGINT, DECIMAL(p, s) of 2 to 38
digits, DOUBLE on the stream side), their values from one pool (0, 1, 1.5,
2, 2.25, 7, 7.5, -3, 12345678901.5, NULL, ...) where the column's type
holds them exactly, and runs a few queries

    SELECT s.id, t.name FROM s [LEFT] JOIN t FOR SYSTEM_TIME AS OF s.p AS t
      ON s.k = t.k [AND t.w <> c] [AND s.x > c]

at parallelism 1, 2 or 4 into debezium-json files. The oracle shares no
code with weir: a stream row meets each table row whose key equals its own
as numbers (Python's Decimal: 7.5 never meets 7, 1.50 meets 1.5; NULL meets
nothing) and that passes both conditions; a LEFT join pads a row that
meets none. The table is read whole when the job starts, so the result does
not depend on timing.

Usage: lookup_join_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_LOOKUPDIFF_JOB=i runs one job.
"""

import collections
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

POOL = ["0", "1", "1.5", "1.50", "2", "2.25", "7", "7.5", "7.505", "-3", "-3.0001", "100",
        "12345678901", "12345678901.5", "9007199254740993"]
N_QUERIES = 4


def gen_type(rng, stream):
    kinds = ["INT", "BIGINT", "DECIMAL", "DECIMAL"] + (["DOUBLE"] if stream else [])
    k = rng.choice(kinds)
    if k != "DECIMAL":
        return (k, None, None)
    p = rng.choice([2, 5, 10, 12, 19, 20, 38])
    return ("DECIMAL", p, rng.randint(0, min(p, 4)))


def type_sql(t):
    return t[0] if t[0] != "DECIMAL" else "DECIMAL(%d, %d)" % (t[1], t[2])


def holds(t, text):
    """Whether type t holds the number text exactly."""
    d = Decimal(text)
    if t[0] in ("INT", "BIGINT"):
        lim = 2 ** 31 if t[0] == "INT" else 2 ** 63
        return d == d.to_integral_value() and -lim <= d < lim
    if t[0] == "DOUBLE":
        return Decimal(float(d)) == d
    scale = max(0, -d.as_tuple().exponent)
    digits = len(str(abs(d.to_integral_value(rounding="ROUND_DOWN")))) if abs(d) >= 1 else 0
    return scale <= t[2] and digits <= t[1] - t[2]


def gen_values(rng, t, n):
    pool = [v for v in POOL if holds(t, v)]
    return [None if rng.random() < 0.1 else rng.choice(pool) for _ in range(n)]


def run_case(case):
    rng = case.rng
    tk, sk = gen_type(rng, False), gen_type(rng, True)
    tkeys = gen_values(rng, tk, rng.randint(3, 10))
    table = [(k, rng.randint(0, 4), "r%d" % i) for i, k in enumerate(tkeys)]
    skeys = gen_values(rng, sk, rng.randint(5, 25))
    stream = [(i, k, rng.randint(0, 4)) for i, k in enumerate(skeys)]
    parallelism = rng.choice([1, 2, 4])
    case.note = "(t.k %s, s.k %s, parallelism %d)" % (type_sql(tk), type_sql(sk), parallelism)
    diffrun.write_csv(case.path("t.csv"), table)
    diffrun.write_csv(case.path("s.csv"), stream)
    queries = []
    for _ in range(N_QUERIES):
        left = rng.random() < 0.5
        wf = rng.randint(0, 4) if rng.random() < 0.4 else None
        xf = rng.randint(0, 4) if rng.random() < 0.4 else None
        on = "s.k = t.k" + ("" if wf is None else " AND t.w <> %d" % wf) + ("" if xf is None else " AND s.x > %d" % xf)
        queries.append((left, wf, xf, "SELECT s.id, t.name FROM s %sJOIN t FOR SYSTEM_TIME AS OF s.p AS t ON %s"
                        % ("LEFT " if left else "", on)))
    sql = ["-- lookup_join_diff seed %d job %d: parallelism %d" % (case.seed, case.index, parallelism),
           "CREATE TABLE t (k %s, w INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', "
           "'format' = 'csv');" % type_sql(tk),
           "CREATE TABLE s (id INT, k %s, x INT, p AS PROCTIME()) WITH ('connector' = 'filesystem', "
           "'path' = 's.csv', 'format' = 'csv');" % type_sql(sk)]
    for qi in range(N_QUERIES):
        sql.append("CREATE TABLE q%d (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, qi))
    sql.append("EXECUTE STATEMENT SET BEGIN")
    sql += ["  INSERT INTO q%d %s;" % (qi, q[3]) for qi, q in enumerate(queries)]
    sql.append("END;")
    case.write("job.sql", "\n".join(sql) + "\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, parallelism))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, (left, wf, xf, q) in enumerate(queries):
        want = collections.Counter()
        for sid, skey, x in stream:
            met = [name for tkey, w, name in table
                   if skey is not None and tkey is not None and Decimal(skey) == Decimal(tkey)
                   and (wf is None or w != wf) and (xf is None or x > xf)]
            for name in met:
                want[(sid, name)] += 1
            if left and not met:
                want[(sid, None)] += 1
        what = "q%d (%s)" % (qi, q)
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), ["id", "name"])
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, want, got)
    case.counts["queries"] += N_QUERIES
    return problems


def main():
    return diffrun.main("lookup_join_diff", run_case, jobs_env="WEIR_LOOKUPDIFF_JOBS", jobs=10, asan_jobs=3,
                        one_env="WEIR_LOOKUPDIFF_JOB", unit="jobs of %d queries" % N_QUERIES)


if __name__ == "__main__":
    sys.exit(main())
