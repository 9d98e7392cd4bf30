#!/usr/bin/env python3
"""Randomized differential test of window SEMI and ANTI joins: IN / NOT IN /
EXISTS / NOT EXISTS subqueries correlated on the window bounds of two
window table functions (TUMBLE or HOP), against a python model that shares
no code with weir.

Each job: two random streams (out of order, ties, NULL nums, late rows),
one file each (one split each, so each input has its own watermark
W = max(ts so far) - delay, taking effect after each row), a batch of
random queries, run by `weir run` at a random parallelism (1/2/4) and batch
size (1/7/1024). The model, per query:
  - every row is in each window [s, s + size) of the assigner that holds
    its time; in a window, a row is late (dropped) when the window's end
    is at or behind its own input's watermark when it arrives;
  - a window's left rows are emitted once each: SEMI when some on-time
    right row of the same window matches, ANTI when none does;
  - IN matches L.num = R.num (a NULL matches nothing); NOT IN excludes a
    left row when some right row of its window has R.num = L.num, or
    either num is NULL; EXISTS / NOT EXISTS match L.num = R.num, and
    sometimes R.id < L.id too.
Output rows (id, window_start) are compared as multisets.

Usage: window_semi_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run, WEIR_WSEMI_JOB=i one case of it;
WEIR_WSEMI_JOBS cases (default 20, 6 under AddressSanitizer).
"""

import collections
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402


def gen_rows(rng, n, first_id):
    rows, t = [], rng.randint(0, 3000)
    for i in range(n):
        t += rng.choice([0, 0, 100, 400, 900, 1500])
        ts = t - rng.choice([0, 0, 0, 300, 1200, 4000]) if rng.random() < 0.3 else t
        num = None if rng.random() < 0.1 else rng.randint(0, 5)
        rows.append({"id": first_id + i, "num": num, "ts": max(ts, 0)})
    return rows


def on_time(rows, delay, kind, size, slide):
    """{window: [row, ...]} of the rows on time in each of their windows."""
    per = collections.defaultdict(list)
    w = None
    for r in rows:
        for win in diffrun.window_bounds(r["ts"], kind, size, slide):
            if w is None or win[1] > w:
                per[win].append(r)
        w = r["ts"] - delay if w is None else max(w, r["ts"] - delay)
    return per


def gen_query(rng, qid):
    shape = rng.choice(["in", "not_in", "exists", "not_exists"])
    resid = shape in ("exists", "not_exists") and rng.random() < 0.4
    return {"qid": qid, "shape": shape, "resid": resid}


def query_sql(q, tvf_l, tvf_r):
    bounds = "L.window_start = R.window_start AND L.window_end = R.window_end"
    if q["shape"] in ("in", "not_in"):
        cond = "L.num %sIN (SELECT num FROM (SELECT * FROM %s) R WHERE %s)" % (
            "NOT " if q["shape"] == "not_in" else "", tvf_r, bounds)
    else:
        cond = "%sEXISTS (SELECT * FROM %s R WHERE L.num = R.num%s AND %s)" % (
            "NOT " if q["shape"] == "not_exists" else "", tvf_r, " AND R.id < L.id" if q["resid"] else "",
            bounds)
    return "SELECT L.id, L.window_start FROM (SELECT * FROM %s) L WHERE %s" % (tvf_l, cond)


def expected(q, left, right):
    out = collections.Counter()
    for win, lrows in left.items():
        rrows = right.get(win, [])
        for l in lrows:
            if q["shape"] == "not_in":
                hit = any(r["num"] is None or l["num"] is None or r["num"] == l["num"] for r in rrows)
            else:
                hit = any(l["num"] is not None and r["num"] == l["num"] and
                          (not q["resid"] or r["id"] < l["id"]) for r in rrows)
            if hit == (q["shape"] in ("in", "exists")):
                out[(l["id"], win[0])] += 1
    return out


def json_line(r):
    return '{"id": %d, "num": %s, "ts_ms": %d}' % (r["id"], "null" if r["num"] is None else r["num"], r["ts"])


def parse_ts(text):
    d = datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.timezone.utc)
    return round(d.timestamp() * 1000)


def run_case(case):
    rng = case.rng
    delay = rng.choice([0, 500, 1000, 3000])
    kind = rng.choice(["TUMBLE", "HOP"])
    size = rng.choice([1000, 2000, 5000])
    slide = rng.choice([s for s in (500, 1000, 2500) if size % s == 0 and s < size]) if kind == "HOP" else size
    lrows = gen_rows(rng, rng.randint(0, 60), 1)
    rrows = gen_rows(rng, rng.randint(0, 60), 1001)
    par, batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024])
    queries = [gen_query(rng, i) for i in range(rng.randint(1, 6))]
    case.note = "%s size %d slide %d, delay %d ms, parallelism %d, batch size %d" % (kind, size, slide, delay,
                                                                                      par, batch)
    wm = "ts" if delay == 0 else "ts - INTERVAL '%d.%03d' SECOND" % (delay // 1000, delay % 1000)
    sql = []
    for name, rows in (("l", lrows), ("r", rrows)):
        sql.append("CREATE TABLE %s (id BIGINT, num INT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), "
                   "WATERMARK FOR ts AS %s) WITH ('connector' = 'filesystem', 'path' = '%s.json', "
                   "'format' = 'json');" % (name, wm, name))
        case.write(name + ".json", "".join(json_line(r) + "\n" for r in rows))
    if kind == "TUMBLE":
        tvf = "TABLE(TUMBLE(TABLE %%s, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND))" % size
    else:
        tvf = ("TABLE(HOP(TABLE %%s, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND))"
               % (slide, size))
    for q in queries:
        sql.append("CREATE TABLE q%d (id BIGINT, ws TIMESTAMP_LTZ(3)) WITH ('connector' = 'print', "
                   "'print-identifier' = 'q%d');" % (q["qid"], q["qid"]))
        sql.append("INSERT INTO q%d %s;" % (q["qid"], query_sql(q, tvf % "l", tvf % "r")))
    case.write("job.sql", "\n".join(sql) + "\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch), timeout=120)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    printed, probs = diffrun.print_inserts(p.stdout)
    got = {name: collections.Counter((int(idv), parse_ts(ws)) for idv, ws in rows)
           for name, rows in printed.items()}
    lw = on_time(lrows, delay, kind, size, slide)
    rw = on_time(rrows, delay, kind, size, slide)
    for q in queries:
        probs += diffrun.multiset_problems("q%d (%s%s)" % (q["qid"], q["shape"], " + residual" if q["resid"] else ""),
                                           expected(q, lw, rw), got.get("q%d" % q["qid"], collections.Counter()))
    return probs


if __name__ == "__main__":
    sys.exit(diffrun.main("window_semi_diff", run_case, jobs_env="WEIR_WSEMI_JOBS", jobs=20, asan_jobs=6,
                          one_env="WEIR_WSEMI_JOB"))
