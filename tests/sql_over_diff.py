#!/usr/bin/env python3
"""Randomized differential test of weir's OVER aggregation: LAG (offset,
default, NULL values), SUM/AVG/COUNT(DISTINCT x) and plain SUM over ROWS and
RANGE frames, unbounded and bounded, with ties in time, ordered by the
event-time attribute or by a processing-time attribute (PROCTIME()), the
window written out in a WINDOW clause or extending a named one
(OVER (w0 ROWS ...) and OVER (w0 ORDER BY ts ...)).

Each job is one random stream (JSON lines: id, k, v, s, ts_ms), in time
order with ties (no late rows; lateness is tested elsewhere), read by six
queries (each with one shared window) in one `weir run` at a random
parallelism. The
oracle shares no code with weir; it restates the documented rules:
  - a partition's rows are ordered by time, rows of one time by arrival;
  - ROWS frame: row i and the n rows before it (or all before it);
    RANGE frame: the rows whose time is in [t - d, t] (or <= t), so rows of
    one time see each other;
  - LAG(x, o, d): in a ROWS frame the value of row i - o; in a RANGE frame
    the rows of one time are taken in together, so every one of them gets
    the value o rows before the last of them; d (NULL if not given) when
    there is no such row; a NULL value stays NULL; the frame does not
    matter;
  - SUM/COUNT/AVG(DISTINCT v) over the frame's distinct non-NULL values
    (AVG of INT truncates toward zero; SUM of nothing is NULL);
  - ORDER BY a processing-time attribute: a partition's rows are in arrival
    order (the file's, one split), whatever their times; ROWS as above,
    RANGE UNBOUNDED is every row up to this one (no peers: each row comes
    out as it arrives, as Flink's processing-time OVER). A bounded RANGE
    frame by processing time depends on the clock's millisecond of each
    arrival, which only a manual clock fixes (tests/test_sql_proctime.c).

Usage: sql_over_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_OVERDIFF_JOBS (count).
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

LINE_RE = re.compile(r"^(q\d+)(?::\d+)?> \+I\[(.*)\]$")
QUERIES_PER_JOB = 6


def gen_rows(rng):
    n = rng.choice([1, 5, 20, 60])
    keys = ["a", "b", "c"][:rng.randint(1, 3)]
    t = rng.choice([0, 1_700_000_000_000])
    rows = []
    for i in range(n):
        t += rng.choice([0, 0, 1, 500, 1000, 3000])
        rows.append({
            "id": i + 1,
            "k": rng.choice(keys),
            "v": None if rng.random() < 0.15 else rng.randint(-3, 6),
            "s": None if rng.random() < 0.15 else rng.choice(["x", "y", "zz", "Ab"]),
            "ts_ms": t,
        })
    return rows


def gen_query(rng, proc_only):
    q = {}
    q["proc"] = proc_only or rng.random() < 0.35
    q["rows"] = rng.random() < 0.5
    q["bound"] = None if rng.random() < 0.4 else (rng.randint(0, 3) if q["rows"] else rng.choice([0, 1000, 2500]))
    if q["proc"] and not q["rows"]:
        q["bound"] = None
    q["ext"] = rng.choice([0, 0, 1, 2])
    items = []
    for _ in range(rng.randint(1, 4)):
        f = rng.choice(["LAG", "LAG", "LAG_S", "SUM_D", "COUNT_D", "AVG_D", "SUM"])
        if f == "LAG":
            off = rng.choice([None, 0, 1, 2, 3])
            dflt = None if off is None or rng.random() < 0.5 else rng.randint(-9, -1)
            items.append(("LAG", "v", 1 if off is None else off, dflt))
        elif f == "LAG_S":
            off = rng.choice([1, 2])
            dflt = None if rng.random() < 0.5 else "none"
            items.append(("LAG", "s", off, dflt))
        else:
            items.append((f, "v", None, None))
    q["items"] = items
    return q


def sql_of(q, qid):
    if q["rows"]:
        frame = ("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW" if q["bound"] is None
                 else "ROWS BETWEEN %d PRECEDING AND CURRENT ROW" % q["bound"])
    else:
        frame = ("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW" if q["bound"] is None
                 else "RANGE BETWEEN INTERVAL '%d' MILLISECOND PRECEDING AND CURRENT ROW" % q["bound"])
    cols, sel = [], []
    for i, (f, x, off, dflt) in enumerate(q["items"]):
        if f == "LAG":
            args = x if off is None else "%s, %d" % (x, off)
            if dflt is not None:
                args += ", %s" % ("'%s'" % dflt if isinstance(dflt, str) else dflt)
            sel.append("LAG(%s) OVER w" % args)
            cols.append("c%d %s" % (i, "STRING" if x == "s" else "INT"))
        else:
            fn = f.split("_")[0]
            sel.append("%s(%s%s) OVER w" % (fn, "DISTINCT " if f.endswith("_D") else "", x))
            cols.append("c%d %s" % (i, "INT" if fn == "AVG" else "BIGINT"))
    create = "CREATE TABLE q%d (k STRING, id INT, %s) WITH ('connector' = 'print', 'print-identifier' = 'q%d');\n" % (
        qid, ", ".join(cols), qid)
    order = "pt" if q["proc"] else "ts"
    ext = q.get("ext", 0)
    if ext:  # the window extends a named one: OVER (w0 <frame>) or OVER (w0 ORDER BY .. <frame>)
        over = "(w0 %s)" % frame if ext == 1 else "(w0 ORDER BY %s %s)" % (order, frame)
        base = "PARTITION BY k ORDER BY %s" % order if ext == 1 else "PARTITION BY k"
        sel = [x.replace("OVER w", "OVER " + over) for x in sel]
        window = "w0 AS (%s)" % base
    else:
        window = "w AS (PARTITION BY k ORDER BY %s %s)" % (order, frame)
    insert = "INSERT INTO q%d SELECT k, id, %s FROM t\nWINDOW %s;\n" % (qid, ", ".join(sel), window)
    return create, insert


TABLE_SQL = """CREATE TABLE t (id INT, k STRING, v INT, s STRING, ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
"""


def oracle(q, rows):
    """id -> list of expected values (None for NULL)."""
    out = {}
    parts = {}
    for r in rows:
        parts.setdefault(r["k"], []).append(r)
    for part in parts.values():
        if not q["proc"]:
            part.sort(key=lambda r: r["ts_ms"])  # stable: arrival order within a time
        for i, r in enumerate(part):
            t = r["ts_ms"]
            last = i
            while not q["proc"] and last + 1 < len(part) and part[last + 1]["ts_ms"] == t:
                last += 1
            if q["proc"] and not q["rows"]:  # RANGE UNBOUNDED by arrival: no peers
                frame = part[:i + 1]
            elif q["rows"]:
                lo = 0 if q["bound"] is None else max(0, i - q["bound"])
                frame = part[lo:i + 1]
            else:
                frame = [p for p in part if p["ts_ms"] <= t and
                         (q["bound"] is None or p["ts_ms"] >= t - q["bound"])]
            vals = []
            for f, x, off, dflt in q["items"]:
                if f == "LAG":
                    j = (i if q["rows"] else last) - off
                    vals.append(part[j][x] if j >= 0 else dflt)
                    continue
                vs = [p["v"] for p in frame if p["v"] is not None]
                ds = sorted(set(vs))
                if f == "SUM":
                    vals.append(sum(vs) if vs else None)
                elif f == "SUM_D":
                    vals.append(sum(ds) if ds else None)
                elif f == "COUNT_D":
                    vals.append(len(ds))
                else:
                    vals.append(int(sum(ds) / len(ds)) if ds else None)
            out[r["id"]] = vals
    return out


def run_case(case):
    """One job: one stream, QUERIES_PER_JOB queries (each a case), one `weir run`."""
    rng = case.rng
    rows = gen_rows(rng)
    # a job of processing-time queries only may have its times out of order (no row is late by arrival)
    proc_only = rng.random() < 0.3
    if proc_only:
        times = [r["ts_ms"] for r in rows]
        rng.shuffle(times)
        for r, t in zip(rows, times):
            r["ts_ms"] = t
    qs = [gen_query(rng, proc_only) for _ in range(QUERIES_PER_JOB)]
    par = rng.choice([1, 2, 4])
    case.note = "(parallelism %d)" % par
    with open(case.path("in.json"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    parts = [sql_of(q, n) for n, q in enumerate(qs)]
    case.write("job.sql", TABLE_SQL + "".join(c for c, _ in parts) + "EXECUTE STATEMENT SET BEGIN\n" +
               "".join(i for _, i in parts) + "END;\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    got = [{} for _ in qs]
    for line in p.stdout.splitlines():
        m = LINE_RE.match(line)
        if not m:
            continue
        f = m.group(2).split(", ")
        got[int(m.group(1)[1:])][int(f[1])] = f[2:]
    for n, q in enumerate(qs):
        want = oracle(q, rows)
        for rid, wv in sorted(want.items()):
            if rid not in got[n]:
                problems.append("q%d: id %d missing" % (n, rid))
                continue
            gv = got[n][rid]
            wt = ["null" if x is None else str(x) for x in wv]
            if gv != wt:
                problems.append("q%d: id %d: expected %s, got %s" % (n, rid, wt, gv))
        for rid in got[n]:
            if rid not in want:
                problems.append("q%d: id %d unexpected" % (n, rid))
    return problems


def main():
    return diffrun.main("sql_over_diff", run_case, jobs_env="WEIR_OVERDIFF_JOBS", jobs=8, asan_jobs=3,
                        one_env="WEIR_OVERDIFF_JOB", unit="jobs of %d queries" % QUERIES_PER_JOB)


if __name__ == "__main__":
    sys.exit(main())
