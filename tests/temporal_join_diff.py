#!/usr/bin/env python3
"""Randomized differential test of weir's event-time temporal join.

Each job is a random versioned table (a changelog of upserts by primary
key: several keys, versions out of order within the watermark delay, some
later than that, several versions of one key at one time) and a random
probe stream (out of order, late rows, keys without versions, duplicate
rows), both CSV files, and a few queries

    SELECT ... FROM probe AS p [LEFT] JOIN versions FOR SYSTEM_TIME AS OF p.ts AS r
      ON p.k = r.k [AND p.k2 = r.k2] [AND residual]

where versions is either a table with a PRIMARY KEY or, in some jobs, a
versioned view over an append-only table (the last row per key ordered by
ts DESC, rn = 1; some views filter v % 5 <> 0 before the deduplication),
run by `weir run` at a random parallelism (1/2/4) and batch size
(1/7/1024), on the memory or the RocksDB state backend. The oracle shares no code with weir; it implements the rule
of docs/joins.md:
  - per input (one file = one split) W = max(time seen) - delay, from
    -infinity, updated after each row; a row with time < W is late and
    dropped (both inputs);
  - a version row is the value of its key from its time on (a view's
    filtered rows are no versions); of two
    versions of one key and time, the later in the file wins;
  - a probe row at time t is joined with the version of its key whose
    time is the latest <= t (among all on-time versions); the residual
    decides; a LEFT join emits a probe row without a passing version with
    NULLs.
Results are compared as multisets.

Usage: temporal_join_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_TJDIFF_JOB=i runs one job of it.
"""

import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

LINE_RE = re.compile(r"^(q\d+)(?::\d+)?> \+I\[(.*)\]$")


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.rocksdb = rng.random() < 0.3  # state on RocksDB
    j.two_keys = rng.random() < 0.3
    j.vdelay = rng.choice([0, 20, 100, 500])
    j.pdelay = rng.choice([0, 20, 100, 500])
    nkeys = rng.randint(1, 6)
    span = rng.choice([200, 2000, 20000])
    grain = rng.choice([1, 1, 50])  # coarse times: many probe rows at a version's exact time
    j.versions = []
    t = 0
    for _ in range(rng.randint(0, 60)):
        t += rng.randint(0, span // 20 + 1)
        ts = t - rng.randint(0, j.vdelay + 30) if rng.random() < 0.3 else t
        if rng.random() < 0.05:
            ts = t - rng.randint(j.vdelay + 1, j.vdelay + 2000)  # late
        k = rng.randint(0, nkeys - 1)
        k2 = rng.randint(0, 1) if j.two_keys else 0
        ts = ts // grain * grain
        j.versions.append((ts, k, k2, rng.randint(0, 99)))
        if rng.random() < 0.1:  # another version of the same key and time
            j.versions.append((ts, k, k2, rng.randint(0, 99)))
    j.probes = []
    t = -50
    for i in range(rng.randint(0, 80)):
        t += rng.randint(0, span // 25 + 1)
        ts = t - rng.randint(0, j.pdelay + 30) if rng.random() < 0.3 else t
        if rng.random() < 0.05:
            ts = t - rng.randint(j.pdelay + 1, j.pdelay + 2000)  # late
        ts = ts // grain * grain
        row = (i, ts, rng.randint(0, nkeys), rng.randint(0, 1) if j.two_keys else 0, rng.randint(0, 99))
        j.probes.append(row)
        if rng.random() < 0.05:  # a duplicate row
            j.probes.append(row)
    j.queries = []
    for q in range(4):
        left = q % 2 == 1
        resid = rng.choice([None, "r.v > p.x", "r.v % 3 <> 1", "p.x < 50"]) if q >= 2 else None
        j.queries.append((left, resid))
    # the versioned side as a versioned view over an append-only table (the last row per key by
    # rowtime), some of them filtering the rows before the deduplication
    j.view = rng.random() < 0.4
    j.view_filter = j.view and rng.random() < 0.5
    return j


def on_time(rows, tcol, delay):
    W = None
    out = []
    for r in rows:
        ts = r[tcol]
        if W is None or ts >= W:
            out.append(r)
        m = ts - delay
        W = m if W is None or m > W else W
    return out


def residual(expr, x, v):
    if expr is None:
        return True
    if v is None:
        return False
    if expr == "r.v > p.x":
        return v > x
    if expr == "r.v % 3 <> 1":
        return v % 3 != 1
    if expr == "p.x < 50":
        return x < 50
    raise ValueError(expr)


def oracle(j):
    versions = collections.defaultdict(dict)  # (k, k2) -> {time: v}
    for ts, k, k2, v in on_time(j.versions, 0, j.vdelay):
        if j.view_filter and v % 5 == 0:
            continue  # filtered before the view's deduplication: no version
        versions[(k, k2)][ts] = v
    probes = on_time(j.probes, 1, j.pdelay)
    res = {}
    for qi, (left, resid) in enumerate(j.queries):
        out = collections.Counter()
        for pid, ts, k, k2, x in probes:
            vs = versions.get((k, k2), {})
            best = max((t for t in vs if t <= ts), default=None)
            v = vs[best] if best is not None else None
            if v is not None and residual(resid, x, v):
                out[(pid, ts, k, k2, x, v)] += 1
            elif left:
                out[(pid, ts, k, k2, x, None)] += 1
        res["q%d" % qi] = out
    return res


def job_sql(j):
    def iv(ms):
        return "INTERVAL '%d' MILLISECOND" % ms
    keys = "k, k2" if j.two_keys else "k"
    out = ["-- temporal_join_diff seed %d job %d: parallelism %d, batch size %d"
           % (j.seed, j.index, j.parallelism, j.batch) + (", RocksDB" if j.rocksdb else "")
           + (", versioned view" if j.view else ""),
           "CREATE TABLE versions (ms BIGINT, k INT, k2 INT, v INT, ts AS TO_TIMESTAMP_LTZ(ms, 3), "
           "WATERMARK FOR ts AS ts - %s%s) "
           "WITH ('connector' = 'filesystem', 'path' = 'versions.csv', 'format' = 'csv');"
           % (iv(j.vdelay), "" if j.view else ", PRIMARY KEY (%s) NOT ENFORCED" % keys),
           "CREATE TABLE probe (id INT, ms BIGINT, k INT, k2 INT, x INT, ts AS TO_TIMESTAMP_LTZ(ms, 3), "
           "WATERMARK FOR ts AS ts - %s) "
           "WITH ('connector' = 'filesystem', 'path' = 'probe.csv', 'format' = 'csv');" % iv(j.pdelay)]
    versioned = "versions"
    if j.view:
        versioned = "latest"
        out.append("CREATE VIEW latest AS SELECT k, v, ts, k2 FROM (SELECT *, ROW_NUMBER() OVER "
                   "(PARTITION BY %s ORDER BY ts DESC) AS rn FROM versions%s) WHERE rn = 1;"
                   % (keys, " WHERE v % 5 <> 0" if j.view_filter else ""))
    for qi, (left, resid) in enumerate(j.queries):
        out.append("CREATE TABLE q%d (id INT, ms BIGINT, k INT, k2 INT, x INT, v INT) "
                   "WITH ('connector' = 'print', 'print-identifier' = 'q%d');" % (qi, qi))
        cond = "p.k = r.k" + (" AND r.k2 = p.k2" if j.two_keys else "")
        if resid:
            cond += " AND " + resid
        out.append("INSERT INTO q%d SELECT p.id, p.ms, p.k, p.k2, p.x, r.v FROM probe AS p %sJOIN %s "
                   "FOR SYSTEM_TIME AS OF p.ts AS r ON %s;" % (qi, "LEFT " if left else "", versioned, cond))
    return "\n".join(out) + "\n"


def parse(stdout):
    got = collections.defaultdict(collections.Counter)
    for line in stdout.splitlines():
        m = LINE_RE.match(line)
        if not m:
            continue
        vals = [None if x == "null" else int(x) for x in m.group(2).split(", ")]
        got[m.group(1)][tuple(vals)] += 1
    return got


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d%s%s)" % (j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "",
                                                 ", versioned view" if j.view else "")
    with open(case.path("versions.csv"), "w") as f:
        f.writelines("%d,%d,%d,%d\n" % r for r in j.versions)
    with open(case.path("probe.csv"), "w") as f:
        f.writelines("%d,%d,%d,%d,%d\n" % r for r in j.probes)
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    got = parse(p.stdout)
    want = oracle(j)
    problems = []
    for q in sorted(want):
        problems += diffrun.multiset_problems(q, want[q], got[q])
    return problems


def main():
    return diffrun.main("temporal_join_diff", run_case, jobs_env="WEIR_TJDIFF_JOBS", jobs=20, asan_jobs=8,
                        one_env="WEIR_TJDIFF_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
