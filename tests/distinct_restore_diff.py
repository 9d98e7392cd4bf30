#!/usr/bin/env python3
"""Randomized differential test of COUNT(DISTINCT) in a non-windowed GROUP
BY across a stop and a restore.

The group aggregation keeps its COUNT(DISTINCT) values in map state behind
a bounded cache that writes those that changed when a checkpoint starts or
when it outgrows its size; after a restore (at another parallelism too: key
groups move) a group's values are read back from map state. This test
drives that path with retractions.

Each case is one random stream of CSV rows (id, k, x, s, d, f) in a watched
folder (source.monitor-interval). An inner GROUP BY id keeps each id's last
k, x, s, f and the sum of d, and a HAVING SUM(d) > 0 makes ids come and go:
its changelog retracts values (an id that moves to another group, changes
its value, or drops out). The outer GROUP BY k counts distinct x (NULL when
x is a multiple of 5, which COUNT(DISTINCT) skips), distinct s (short
strings and ones longer than 8 bytes), with and without FILTER, sharing
views, beside COUNT(*); some cases group globally. The job writes
debezium-json with checkpoints every 50 ms. Some cases bound the cache of distinct values
in front of map state to 1 or 16 KiB (weir.distinct-cache.size), so that
it writes its values to state and forgets them between batches, and reads
them back value by value; RocksDB cases checkpoint incrementally or not.

Run 1 reads file a.csv; once its committed output folds to the oracle's
table for a.csv, SIGTERM stops it (a final checkpoint). File b.csv then
joins a.csv and run 2 - at a random parallelism (1/2/4) on the same state
backend (heap or RocksDB), mini-batch on or off - resumes from the
checkpoint; its output, folded on top of run 1's, must become the oracle's
table for both files, and run 2 must say it restored. Every wait polls the
output with a bound (60 s).

The oracle (Python, no code shared with weir) replays the rows in file
order: per id the last k, x, s, f and the running sum of d; the ids whose
sum is positive are live; per group the distinct values of the live ids.

Runs on the shared differential driver (tests/support/diffrun.py).
WEIR_DRDIFF_FIRST_WEIR=BIN runs run 1 with another weir binary (an
earlier build: its checkpoints must restore into this one).

Usage: distinct_restore_diff.py --weir BIN [--jobs N] [--seed S] [--job I]
"""

import collections
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

COLS = ["k", "c_x", "c_xf", "c_s", "c_sf", "n"]


def gen_rows(rng, n, n_ids, n_keys):
    rows = []
    for _ in range(n):
        s = rng.choice(["v%d" % rng.randrange(12), "long-string-value-%d" % rng.randrange(12)])
        rows.append((rng.randrange(n_ids), "g%d" % rng.randrange(n_keys), rng.randrange(30), s,
                     rng.choice([1, 1, 1, -1]), rng.randrange(3)))
    return rows


def oracle(rows, global_agg):
    """The final table of the query over rows, as a Counter of tuples of COLS."""
    last, dsum = {}, {}
    for i, k, x, s, d, f in rows:
        last[i] = (k, x, s, f)
        dsum[i] = dsum.get(i, 0) + d
    groups = {}
    for i, (k, x, s, f) in last.items():
        if dsum[i] <= 0:
            continue
        g = groups.setdefault(None if global_agg else k, [set(), set(), set(), set(), 0])
        xn = None if x % 5 == 0 else x
        if xn is not None:
            g[0].add(xn)
            if f > 0:
                g[1].add(xn)
        g[2].add(s)
        if f != 1:
            g[3].add(s)
        g[4] += 1
    want = collections.Counter()
    for k, g in groups.items():
        want[(k, len(g[0]), len(g[1]), len(g[2]), len(g[3]), g[4])] += 1
    return want


def job_sql(global_agg):
    key = "" if global_agg else "k, "
    return """
CREATE TABLE src (id BIGINT, k STRING, x BIGINT, s STRING, d INT, f INT)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'source.monitor-interval' = '50ms');
CREATE TABLE out (k STRING, c_x BIGINT, c_xf BIGINT, c_s BIGINT, c_sf BIGINT, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'debezium-json');
CREATE VIEW cur AS
SELECT id, LAST_VALUE(k) AS k, LAST_VALUE(x) AS x, LAST_VALUE(s) AS s, LAST_VALUE(f) AS f
FROM src GROUP BY id HAVING SUM(d) > 0;
INSERT INTO out
SELECT %s COUNT(DISTINCT xn), COUNT(DISTINCT xn) FILTER (WHERE f > 0),
       COUNT(DISTINCT s), COUNT(DISTINCT s) FILTER (WHERE f <> 1), COUNT(*)
FROM (SELECT k, CASE WHEN MOD(x, 5) = 0 THEN NULL ELSE x END AS xn, s, f FROM cur) %s;
""" % ("k," if not global_agg else "CAST(NULL AS STRING),", "GROUP BY k" if not global_agg else "")


def write_csv(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write("%d,%s,%d,%s,%d,%d\n" % r)


def folded(case):
    """The table the committed output describes (a create adds its "after"
    row, a delete takes its "before" row away). The files of run 2 may sort
    before run 1's, so a row may go negative on the way, never at the end:
    None then, or while a file is being written."""
    got = collections.Counter()
    folder = case.path("out")
    try:
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if name.startswith("."):
                continue
            with open(os.path.join(folder, name)) as f:
                for line in f:
                    e = json.loads(line)
                    if e["op"] == "c":
                        got[tuple(e["after"][c] for c in COLS)] += 1
                    elif e["op"] == "d":
                        got[tuple(e["before"][c] for c in COLS)] -= 1
                    else:
                        return None
    except (ValueError, OSError, KeyError):
        return None
    if any(n < 0 for n in got.values()):
        return None
    return +got


def run_until(case, argv, want, sig, weir=None):
    """Starts weir (another binary: weir), waits until the output folds to
    want (at most 60 s), stops it with sig; (returncode, stderr, reached)."""
    log = open(case.path("log"), "w")
    p = subprocess.Popen([weir or case.weir] + argv, cwd=case.folder, stdout=subprocess.DEVNULL, stderr=log)
    reached = False
    end = time.time() + 60
    while time.time() < end and p.poll() is None:
        if folded(case) == want:
            reached = True
            break
        time.sleep(0.05)
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    log.close()
    with open(case.path("log")) as f:
        return p.returncode, f.read(), reached


def run_case(case):
    rng = case.rng
    global_agg = rng.random() < 0.2
    n_ids, n_keys = rng.choice([(40, 3), (200, 6), (600, 12)])
    a = gen_rows(rng, rng.randrange(300, 1500), n_ids, n_keys)
    b = gen_rows(rng, rng.randrange(300, 1500), n_ids, n_keys)
    p1, p2 = rng.choice([1, 2, 4]), rng.choice([1, 2, 4])
    rocksdb = rng.random() < 0.4
    mini = rng.random() < 0.4
    # a small cache of distinct values writes them to state and forgets them between batches
    cache = rng.choice([None, None, "1kb", "16kb"])
    incremental = rocksdb and rng.random() < 0.5
    case.note = "p %d -> %d, %s%s%s%s%s" % (p1, p2, "rocksdb" if rocksdb else "heap",
                                          ", incremental" if incremental else "",
                                          ", mini-batch" if mini else "", ", global" if global_agg else "",
                                          ", distinct cache " + cache if cache else "")
    os.makedirs(case.path("in"))
    write_csv(case.path("in", "a.csv"), a)
    case.write("job.sql", job_sql(global_agg))
    ck = ["-D", "state.checkpoints.dir=ckpt", "-D", "execution.checkpointing.interval=50ms"]
    if mini:
        ck += ["-D", "table.exec.mini-batch.enabled=true"]
    if cache:
        ck += ["-D", "weir.distinct-cache.size=" + cache]
    if incremental:
        ck += ["-D", "state.backend.incremental=true"]

    def argv(p):
        return ["run", "job.sql"] + ck + diffrun.engine_options(case, p, batch=rng.choice([7, 1024]), rocksdb=rocksdb)

    want_a = oracle(a, global_agg)
    rc, log, reached = run_until(case, argv(p1), want_a, signal.SIGTERM, os.environ.get("WEIR_DRDIFF_FIRST_WEIR"))
    if not reached:
        return ["run 1 (a.csv) never showed the oracle's table (exit %s): got %s, want %s; %s"
                % (rc, sorted(folded(case) or []), sorted(want_a), log[-400:])]
    if rc != 143 or "final checkpoint" not in log:
        return ["run 1: SIGTERM exited %s without a final checkpoint: %s" % (rc, log[-400:])]
    write_csv(case.path("b.tmp"), b)
    os.rename(case.path("b.tmp"), case.path("in", "b.csv"))  # never seen half written
    want = oracle(a + b, global_agg)
    rc, log, reached = run_until(case, argv(p2), want, signal.SIGINT)
    if "restoring from checkpoint" not in log:
        return ["run 2 did not restore: %s" % log[-400:]]
    if not reached:
        got = folded(case) or {}
        return diffrun.multiset_problems("after the restore (exit %s)" % rc, want, got) or \
            ["run 2 never reached the oracle's table: %s" % log[-400:]]
    case.counts["restores"] += 1
    return []


if __name__ == "__main__":
    sys.exit(diffrun.main("distinct_restore_diff", run_case, jobs_env="WEIR_DRDIFF_JOBS", jobs=6, asan_jobs=2,
                          one_env="WEIR_DRDIFF_JOB"))
