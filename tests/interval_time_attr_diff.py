#!/usr/bin/env python3
"""Randomized differential test of the time attributes an inner interval
join keeps: a window aggregation over the left time or over the right time
of the join's result (directly, or after a projection that keeps only the
right time), and an OVER ordered by the right time.

Each case: two random streams of (id, key, time), each in time order with
ties (so no row is late at its own input), a random interval condition
lo <= l.ts - r.ts <= hi written as BETWEEN or as two comparisons (lo and hi
of either sign), a random window size, run by `weir run` at a random
parallelism and batch size. The join holds its watermark back by
max(-lo, hi) (Flink's rule), so no joined row is late for the window that
follows, whichever time it takes: a row dropped as late there shows up as a
missing count.

The oracle shares no code with weir: a nested loop over all pairs (equal
keys, the condition on the times), then per window of the chosen time the
count and the sum of the left ids; for the OVER, per key, the rank of each
pair by right time (ties by pair in any order: only the multiset of
(right time, rank) pairs is compared).

Usage: interval_time_attr_diff.py --weir BIN [--cases N] [--seed S]
Environment: WEIR_SEED (seed), WEIR_ITADIFF_CASES (count).
"""

import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

LINE_RE = re.compile(r"^(\w+)(?::\d+)?> \+I\[(.*)\]$")


def gen_stream(rng, n, keys):
    t = rng.choice([0, 1_700_000_000_000])
    rows = []
    for i in range(n):
        t += rng.choice([0, 0, 1, 250, 1000, 2500])
        rows.append({"id": i + 1, "k": rng.choice(keys), "ms": t})
    return rows


def condition(rng, lo, hi):
    """SQL text for lo <= l.ts - r.ts <= hi."""
    if rng.random() < 0.5:
        return "l.ts BETWEEN r.ts + INTERVAL '%d' MILLISECOND AND r.ts + INTERVAL '%d' MILLISECOND" % (lo, hi)
    return "r.ts >= l.ts - INTERVAL '%d' MILLISECOND AND r.ts <= l.ts - INTERVAL '%d' MILLISECOND" % (hi, lo)


def win_start(ms, size):
    return ms - ms % size


TABLE = ("CREATE TABLE {n} (id INT, k STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)"
         " WITH ('connector' = 'filesystem', 'path' = '{n}.json', 'format' = 'json');\n")
SINKS = ("by_lt", "by_rt", "by_rt_proj")


def epoch_ms(text):
    """A TIMESTAMP as weir prints it (UTC wall time) -> epoch milliseconds."""
    d = datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp() * 1000)


def job_sql(cond, size):
    sql = TABLE.format(n="l") + TABLE.format(n="r")
    sql += ("CREATE VIEW j AS SELECT l.id AS lid, l.k, l.ts AS lt, r.ts AS rt, r.ms AS rms FROM l JOIN r\n"
            "  ON l.k = r.k AND %s;\n" % cond)
    sql += "CREATE VIEW rj AS SELECT lid, rt FROM j;\n"
    for name in SINKS:
        sql += ("CREATE TABLE %s (ws TIMESTAMP(3), n BIGINT, ids INT) WITH ('connector' = 'print', "
                "'print-identifier' = '%s');\n" % (name, name))
    sql += ("CREATE TABLE over_rt (k STRING, rms BIGINT, rk BIGINT) WITH ('connector' = 'print', "
            "'print-identifier' = 'over_rt');\n")
    agg = ("INSERT INTO {t} SELECT window_start, COUNT(*), SUM(lid)\n"
           "  FROM TABLE(TUMBLE(TABLE {v}, DESCRIPTOR({c}), INTERVAL '%d' MILLISECOND)) "
           "GROUP BY window_start, window_end;\n" % size)
    sql += "EXECUTE STATEMENT SET BEGIN\n"
    sql += agg.format(t="by_lt", v="j", c="lt")
    sql += agg.format(t="by_rt", v="j", c="rt")
    sql += agg.format(t="by_rt_proj", v="rj", c="rt")
    sql += ("INSERT INTO over_rt SELECT k, rms, COUNT(*) OVER (PARTITION BY k ORDER BY rt "
            "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM j;\n")
    return sql + "END;\n"


def oracle(left, right, lo, hi, size):
    pairs = [(lr, rr) for lr in left for rr in right
             if lr["k"] == rr["k"] and lo <= lr["ms"] - rr["ms"] <= hi]
    want = {}
    for sink, tm in (("by_lt", lambda p: p[0]["ms"]), ("by_rt", lambda p: p[1]["ms"]),
                     ("by_rt_proj", lambda p: p[1]["ms"])):
        wins = {}
        for p in pairs:
            w = win_start(tm(p), size)
            n, ids = wins.get(w, (0, 0))
            wins[w] = (n + 1, ids + p[0]["id"])
        want[sink] = ["%d %d %d" % (w, n, ids) for w, (n, ids) in wins.items()]
    over = []
    for k in set(p[0]["k"] for p in pairs):
        times = sorted(p[1]["ms"] for p in pairs if p[0]["k"] == k)
        # a tie in right time ranks in arrival order: the ranks of tied rows are a block
        over += ["%s %d %d" % (k, t, i + 1) for i, t in enumerate(times)]
    want["over_rt"] = over
    return want


def run_case(case):
    rng = case.rng
    keys = ["a", "b", "c"][:rng.randint(1, 3)]
    left = gen_stream(rng, rng.choice([5, 30, 80]), keys)
    right = gen_stream(rng, rng.choice([5, 30, 80]), keys)
    shift = rng.choice([0, 0, 1000, -1000])
    for r in right:
        r["ms"] += shift
    lo = rng.choice([-3000, -1000, -250, 0, 500])
    hi = lo + rng.choice([0, 1, 500, 2000, 4000])
    size = rng.choice([1000, 2000, 5000])
    par = rng.choice([1, 2, 4])
    batch = rng.choice([1, 7, 1024])
    case.note = "(parallelism %d, batch %d, lo %d, hi %d, size %d)" % (par, batch, lo, hi, size)
    for name, rows in (("l.json", left), ("r.json", right)):
        with open(case.path(name), "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    case.write("job.sql", job_sql(condition(rng, lo, hi), size))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    got = {s: [] for s in SINKS + ("over_rt",)}
    for line in p.stdout.splitlines():
        m = LINE_RE.match(line)
        if not m or m.group(1) not in got:
            continue
        f = m.group(2).split(", ")
        if m.group(1) == "over_rt":
            got["over_rt"].append("%s %s %s" % (f[0], f[1], f[2]))
        else:
            got[m.group(1)].append("%d %s %s" % (epoch_ms(f[0]), f[1], f[2]))
    want = oracle(left, right, lo, hi, size)
    problems = []
    for s in got:
        problems += diffrun.multiset_problems(s, want[s], got[s])
    return problems


def main():
    return diffrun.main("interval_time_attr_diff", run_case, jobs_env="WEIR_ITADIFF_CASES", jobs=12, asan_jobs=3,
                        one_env="WEIR_ITADIFF_CASE")


if __name__ == "__main__":
    sys.exit(main())
