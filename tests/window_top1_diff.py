#!/usr/bin/env python3
"""Randomized differential test of "the rows of a window aggregation that
reach their window's maximum" written as a join (Nexmark q5's shape),
against a python model that shares no code with weir; and the same
question in Flink's form, a window Top-N with RANK() <= 1 over the window
aggregation, which weir filters batch by batch before the ranking.

weir plans the join of a window aggregation A with the MAX of the same
aggregation per window M (ON the two window bounds AND A.num >= M.maxn, or
=, either way round) as a window Top-1 with ties when that is exact, and as
a window join otherwise; this test runs both kinds side by side:
  - rewritten: COUNT(*) and COUNT(price) (integer NOT NULL), through
    subqueries (A's query and M's inner query the same but for their items)
    or through one view, with >=, = or <= (M's column first), the bounds
    compared in either order;
  - planned as written: SUM(price) (nullable: a window of NULL prices has a
    NULL sum, which matches nothing), a strict > (no row can exceed the
    maximum: an empty result), and an inner query with a WHERE A's query
    lacks (its maximum is of other rows);
  - the window Top-N form (RANK() <= 1 ORDER BY num DESC): every row tied
    at the top, and a window whose values are all NULL ranks them all
    first.

Each job: one random stream of bids (auction 0-4, a nullable price, ties
everywhere), out of order by at most the watermark delay (so no row is
late), one file (one split), a batch of random queries, run by `weir run`
at a random parallelism (1/2/4) and batch size (1/7/1024). The model: per
window (TUMBLE or HOP) and auction, the aggregate of the rows in it; per
window the maximum over auctions (NULLs ignored); the rows whose value
compares true against it. Rows (auction, num, maxn, window_start,
window_end) are compared as multisets.

Usage: window_top1_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run, WEIR_WTOP1_JOB=i one case of it;
WEIR_WTOP1_JOBS cases (default 12, 4 under AddressSanitizer).
"""

import collections
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402


def gen_rows(rng, n):
    rows, t = [], rng.randint(0, 3000)
    jitter = rng.choice([0, 300, 900])
    for i in range(n):
        t += rng.choice([0, 0, 100, 400, 900, 1500])
        ts = max(t - rng.randint(0, jitter), 0)
        price = None if rng.random() < 0.15 else rng.randint(0, 9)
        rows.append({"id": i, "auction": rng.randint(0, 4), "price": price, "ts": ts})
    return rows, jitter


def gen_query(rng, qid):
    agg = rng.choice(["count(*)", "count(price)", "sum(price)"])
    op = rng.choice([">=", "=", "<=", ">"])
    form = rng.choice(["sub", "sub", "view", "rank"])
    inner_where = form == "sub" and rng.random() < 0.15
    return {"qid": qid, "agg": agg, "op": op, "form": form, "flip": rng.random() < 0.5,
            "inner_where": inner_where}


def query_sql(q, tvf):
    a_items = "auction, %s AS num, window_start AS starttime, window_end AS endtime" % q["agg"]
    c_items = "%s AS num, window_start AS starttime, window_end AS endtime" % q["agg"]
    group = "GROUP BY auction, window_start, window_end"
    if q["form"] == "rank":
        return ("SELECT auction, num, num AS maxn, starttime, endtime FROM (SELECT *, RANK() OVER (PARTITION BY "
                "starttime, endtime ORDER BY num DESC) AS rk FROM (SELECT %s FROM %s %s)) WHERE rk <= 1"
                % (a_items, tvf, group))
    if q["form"] == "view":
        a_from = "v%d A" % q["qid"]
        c_from = "v%d" % q["qid"]
    else:
        a_from = "(SELECT %s FROM %s %s) A" % (a_items, tvf, group)
        where = " WHERE price > 2" if q["inner_where"] else ""
        c_from = "(SELECT %s FROM %s%s %s) C" % (c_items, tvf, where, group)
    m = "(SELECT max(num) AS maxn, starttime, endtime FROM %s GROUP BY starttime, endtime) M" % c_from
    if q["op"] == "<=":
        cmp = "M.maxn <= A.num"
    elif q["op"] == ">":
        cmp = "M.maxn < A.num"
    else:
        cmp = "A.num %s M.maxn" % q["op"]
    bounds = ("M.starttime = A.starttime AND A.endtime = M.endtime" if q["flip"]
              else "A.starttime = M.starttime AND A.endtime = M.endtime")
    return ("SELECT A.auction, A.num, M.maxn, A.starttime, M.endtime FROM %s JOIN %s ON %s AND %s"
            % (a_from, m, bounds, cmp))


def expected(q, rows, kind, size, slide):
    per = collections.defaultdict(list)  # (window, auction) -> prices
    for r in rows:
        for w in diffrun.window_bounds(r["ts"], kind, size, slide):
            per[(w, r["auction"])].append(r["price"])
    num = {}
    for key, prices in per.items():
        present = [p for p in prices if p is not None]
        if q["agg"] == "count(*)":
            num[key] = len(prices)
        elif q["agg"] == "count(price)":
            num[key] = len(present)
        else:
            num[key] = sum(present) if present else None
    # M: the maximum of C's values per window (C is A, or A's rows with price > 2)
    c_num = collections.defaultdict(list)
    for r in rows:
        if q["inner_where"] and not (r["price"] is not None and r["price"] > 2):
            continue
        for w in diffrun.window_bounds(r["ts"], kind, size, slide):
            c_num[(w, r["auction"])].append(r["price"])
    maxn = {}
    for (w, _), prices in c_num.items():
        present = [p for p in prices if p is not None]
        v = len(prices) if q["agg"] == "count(*)" else len(present) if q["agg"] == "count(price)" else (
            sum(present) if present else None)
        if v is not None:
            maxn[w] = v if w not in maxn else max(maxn[w], v)
    out = collections.Counter()
    for (w, auction), v in num.items():
        if q["form"] == "rank" and w not in maxn:
            out[(auction, None, None, w[0], w[1])] += 1  # all NULL: every row ranks first
            continue
        if w not in maxn or v is None:
            continue
        mx = maxn[w]
        hit = v >= mx if q["op"] in (">=", "<=") or q["form"] == "rank" else v == mx if q["op"] == "=" else v > mx
        if hit:
            out[(auction, v, mx, w[0], w[1])] += 1
    return out


def json_line(r):
    return '{"auction": %d, "price": %s, "ts_ms": %d}' % (
        r["auction"], "null" if r["price"] is None else r["price"], r["ts"])


def num_or_none(text):
    return None if text == "null" else int(text)


def parse_ts(text):
    d = datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.timezone.utc)
    return round(d.timestamp() * 1000)


def run_case(case):
    rng = case.rng
    rows, jitter = gen_rows(rng, rng.randint(0, 80))
    delay = jitter + rng.choice([0, 0, 500])
    kind = rng.choice(["TUMBLE", "HOP"])
    size = rng.choice([1000, 2000, 5000])
    slide = rng.choice([s for s in (500, 1000, 2500) if size % s == 0 and s < size]) if kind == "HOP" else size
    par, batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024])
    queries = [gen_query(rng, i) for i in range(rng.randint(1, 6))]
    case.note = "%s size %d slide %d, delay %d ms, parallelism %d, batch size %d, queries %s" % (
        kind, size, slide, delay, par, batch, queries)
    wm = "ts" if delay == 0 else "ts - INTERVAL '%d.%03d' SECOND" % (delay // 1000, delay % 1000)
    sql = ["CREATE TABLE bid (auction BIGINT, price INT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), "
           "WATERMARK FOR ts AS %s) WITH ('connector' = 'filesystem', 'path' = 'bid.json', "
           "'format' = 'json');" % wm]
    case.write("bid.json", "".join(json_line(r) + "\n" for r in rows))
    if kind == "TUMBLE":
        tvf = "TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND))" % size
    else:
        tvf = ("TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND))"
               % (slide, size))
    for q in queries:
        if q["form"] == "view":
            sql.append("CREATE VIEW v%d AS SELECT auction, %s AS num, window_start AS starttime, "
                       "window_end AS endtime FROM %s GROUP BY auction, window_start, window_end;"
                       % (q["qid"], q["agg"], tvf))
        sql.append("CREATE TABLE q%d (auction BIGINT, num BIGINT, maxn BIGINT, ws TIMESTAMP_LTZ(3), "
                   "we TIMESTAMP_LTZ(3)) WITH ('connector' = 'print', 'print-identifier' = 'q%d');"
                   % (q["qid"], q["qid"]))
        sql.append("INSERT INTO q%d %s;" % (q["qid"], query_sql(q, tvf)))
    case.write("job.sql", "\n".join(sql) + "\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch), timeout=120)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    printed, probs = diffrun.print_inserts(p.stdout)
    got = {sink: collections.Counter((int(a), num_or_none(n), num_or_none(m), parse_ts(ws), parse_ts(we))
                                     for a, n, m, ws, we in rows)
           for sink, rows in printed.items()}
    for q in queries:
        case.counts["rows"] += sum(got.get("q%d" % q["qid"], collections.Counter()).values())
        probs += diffrun.multiset_problems("q%d (%s)" % (q["qid"], query_sql(q, "T")),
                                           expected(q, rows, kind, size, slide),
                                           got.get("q%d" % q["qid"], collections.Counter()))
    return probs


if __name__ == "__main__":
    sys.exit(diffrun.main("window_top1_diff", run_case, jobs_env="WEIR_WTOP1_JOBS", jobs=12, asan_jobs=4,
                          one_env="WEIR_WTOP1_JOB"))
