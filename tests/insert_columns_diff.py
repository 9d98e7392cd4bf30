#!/usr/bin/env python3
"""Randomized differential test of INSERT INTO t (c1, c2, ...).

Each job is a random JSON input src (q0 INT, q1 BIGINT, q2 STRING,
q3 BOOLEAN, with NULLs) and up to four print tables of 1 to 6 columns of
random types (some NOT NULL). Each table takes one INSERT with a random
column list - a random subset of its columns in random order, always with
its NOT NULL columns - from either

    SELECT <a column of src of the listed column's type, or a literal>, ...
    FROM src [WHERE q0 > k]

or VALUES rows of literals (an INT literal into a BIGINT column is cast).
The INSERTs run as one statement set at a random parallelism (1/2/4).

The oracle shares no code with weir: for each input row (or VALUES row)
it puts the value of the j-th query column in the j-th listed column and
NULL in every other column, in the table's order, and prints it as the
print connector does.

Usage: insert_columns_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_INSCOLSDIFF_JOB=i runs one job.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

TYPES = ["INT", "BIGINT", "STRING", "BOOLEAN"]
SRC = {"INT": "q0", "BIGINT": "q1", "STRING": "q2", "BOOLEAN": "q3"}


def rand_value(rng, ty):
    if ty in ("INT", "BIGINT"):
        return rng.randint(-50, 50)
    if ty == "STRING":
        return rng.choice(["a", "bb", "c d", "x-y", ""])
    return rng.random() < 0.5


def literal(v):
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    return "'" + v.replace("'", "''") + "'"


def show(v):
    """A value as the print connector writes it."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def run_case(case):
    rng = case.rng
    par = rng.choice([1, 2, 4])
    rows = []
    for _ in range(rng.randint(0, 20)):
        r = {}
        for ty, q in SRC.items():
            r[q] = None if rng.random() < 0.15 else rand_value(rng, ty)
        rows.append(r)
    case.write("src.json", "".join(json.dumps(r) + "\n" for r in rows))
    ddl = ["CREATE TABLE src (q0 INT, q1 BIGINT, q2 STRING, q3 BOOLEAN) "
           "WITH ('connector' = 'filesystem', 'path' = 'src.json', 'format' = 'json');"]
    inserts, want = [], []
    for t in range(rng.randint(1, 4)):
        name = "t%d" % t
        cols = []
        for i in range(rng.randint(1, 6)):
            cols.append(("c%d" % i, rng.choice(TYPES), rng.random() < 0.2))
        ddl.append("CREATE TABLE %s (%s) WITH ('connector' = 'print', 'print-identifier' = '%s');" % (
            name, ", ".join("%s %s%s" % (c, ty, " NOT NULL" if nn else "") for c, ty, nn in cols), name))
        listed = [i for i, (_, _, nn) in enumerate(cols) if nn or rng.random() < 0.5]
        if not listed:
            listed = [rng.randrange(len(cols))]
        rng.shuffle(listed)
        target = "%s (%s)" % (name, ", ".join(cols[i][0] for i in listed))
        if rng.random() < 0.3:
            # VALUES: literals only (never NULL, so NOT NULL columns hold)
            vrows = [[rand_value(rng, cols[i][1]) for i in listed] for _ in range(rng.randint(1, 3))]
            inserts.append("INSERT INTO %s VALUES %s;" % (
                target, ", ".join("(%s)" % ", ".join(literal(v) for v in vr) for vr in vrows)))
            out_rows = vrows
        else:
            # each listed column from src's column of its type (a NOT NULL
            # column from a literal, src's columns having NULLs) or a literal
            items, getters = [], []
            for i in listed:
                ty, nn = cols[i][1], cols[i][2]
                if nn or rng.random() < 0.2:
                    v = rand_value(rng, ty)
                    items.append(literal(v))
                    getters.append(lambda r, v=v: v)
                else:
                    items.append(SRC[ty])
                    getters.append(lambda r, q=SRC[ty]: r[q])
            k = rng.choice([None, -10, 0, 20])
            where = "" if k is None else " WHERE q0 > %d" % k
            inserts.append("INSERT INTO %s SELECT %s FROM src%s;" % (target, ", ".join(items), where))
            out_rows = [[g(r) for g in getters] for r in rows
                        if k is None or (r["q0"] is not None and r["q0"] > k)]
        for vr in out_rows:
            full = [None] * len(cols)
            for j, i in enumerate(listed):
                full[i] = vr[j]
            want.append((name, tuple(show(v) for v in full)))
    case.write("job.sql", "\n".join(ddl) + "\nEXECUTE STATEMENT SET BEGIN\n" + "\n".join(inserts) + "\nEND;\n")
    case.note = "parallelism %d, %d inserts" % (par, len(inserts))
    case.counts["rows"] += len(want)
    p = case.run_weir(["run", "job.sql", "-D", "parallelism.default=%d" % par])
    if p.returncode:
        return [diffrun.failed_run(p)]
    got_rows, problems = diffrun.print_inserts(p.stdout)
    got = [(n, tuple(r)) for n, rs in got_rows.items() for r in rs]
    return problems + diffrun.multiset_problems("inserts", want, got)


if __name__ == "__main__":
    sys.exit(diffrun.main("insert_columns_diff", run_case, jobs_env="WEIR_INSCOLSDIFF_JOBS", jobs=12,
                          asan_jobs=4, one_env="WEIR_INSCOLSDIFF_JOB", out_env="WEIR_INSCOLSDIFF_OUT"))
