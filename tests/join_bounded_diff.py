#!/usr/bin/env python3
"""Randomized differential test of joins against a window aggregation.

Nexmark q7's shape: each bid joined with the MAX(price) of TUMBLE windows
under a condition between the bid's time and the window's window_end.
weir drops a bid from the join's state once the watermark passes the last
window_end its condition allows (the window aggregation only ever sends
rows whose window_end is above its watermark); this test checks that the
result stays the plain regular join's: every pair that satisfies the
condition, bids behind the watermark included.

Each case: a random bid stream (out of order, very late rows, ties on
window boundaries, NULL prices), a random window size and watermark
delay, a random condition (BETWEEN, <, <=, >, >= with INTERVAL offsets,
a cap alone, a floor alone, the bid on either side of the JOIN), run by
`weir run` at a random parallelism (1/2/4) and batch size (1/7/1024).

The oracle shares no code with weir: a row-at-a-time model of the window
aggregation (W = max(ts seen) - delay, updated after each row; a row
joins its window when end > W, else it is late) and a nested loop over
all (bid, window) pairs.

Usage: join_bounded_diff.py --weir BIN [--cases N] [--seed S]
Environment: WEIR_SEED (seed), WEIR_JOINDIFF_CASES (count).
"""

import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

EPOCH = datetime.datetime(2026, 1, 1)


def fmt_ts(ms):
    """A TIMESTAMP(3) as weir prints it (ISO, seconds and millis only when non-zero)."""
    d = EPOCH + datetime.timedelta(milliseconds=ms)
    s = d.strftime("%Y-%m-%dT%H:%M")
    if d.second or d.microsecond:
        s += ":%02d" % d.second
    if d.microsecond:
        s += ".%03d" % (d.microsecond // 1000)
    return s


def csv_ts(ms):
    d = EPOCH + datetime.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (d.microsecond // 1000)


def gen_case(rng):
    size = rng.choice([1000, 2000, 5000])
    delay = rng.choice([0, 500, 1000, 3000])
    n = rng.randint(20, 300)
    t = 0
    bids = []
    for i in range(n):
        t += rng.choice([0, 1, 7, 50, 200, 499, 500])
        ts = t
        r = rng.random()
        if r < 0.15:
            ts = max(0, t - rng.randint(0, 3 * size))  # out of order, often late
        elif r < 0.25:
            ts = (t // size) * size + rng.choice([0, size - 1, size])  # on a boundary
        price = None if rng.random() < 0.05 else rng.randint(1, 12)
        bids.append((i, price, ts))
    # the condition: a floor and/or a cap on window_end relative to the bid time
    x = rng.choice([0, 1, size // 2, size, 2 * size])
    y = rng.choice([0, 1, size // 2, size])
    form = rng.choice(["between", "cmp", "cmp_strict", "cap_only", "floor_only", "between_shifted"])
    return size, delay, bids, form, x, y


def interval(ms):
    return "INTERVAL '%d' MILLISECOND" % ms


def condition(form, x, y):
    """SQL over B.ts and B1.wend, and a Python predicate (bid ts, wend)."""
    if form == "between":
        return ("B.ts BETWEEN B1.wend - %s AND B1.wend" % interval(x), lambda b, e: e - x <= b <= e)
    if form == "between_shifted":
        return ("B.ts BETWEEN B1.wend - %s AND B1.wend + %s" % (interval(x), interval(y)),
                lambda b, e: e - x <= b <= e + y)
    if form == "cmp":
        return ("B1.wend >= B.ts AND B1.wend <= B.ts + %s" % interval(x), lambda b, e: b <= e <= b + x)
    if form == "cmp_strict":
        return ("B1.wend > B.ts - %s AND B.ts + %s > B1.wend" % (interval(y), interval(x + 1)),
                lambda b, e: b - y < e < b + x + 1)
    if form == "cap_only":
        return ("B1.wend <= B.ts + %s" % interval(x), lambda b, e: e <= b + x)
    return ("B1.wend >= B.ts + %s" % interval(x), lambda b, e: e >= b + x)  # floor_only: nothing is bounded


def oracle(size, delay, bids, pred):
    w = None
    maxes = {}  # window end -> max price (None: only NULL prices)
    for _, price, ts in bids:
        s = ts - ts % size
        e = s + size
        if w is None or e > w:
            if e not in maxes:
                maxes[e] = price
            elif price is not None and (maxes[e] is None or price > maxes[e]):
                maxes[e] = price
        w = ts - delay if w is None else max(w, ts - delay)
    out = []
    for i, price, ts in bids:
        if price is None:
            continue
        for e, m in maxes.items():
            if m == price and pred(ts, e):
                out.append("+I[%d, %d, %s, %s]" % (i, price, fmt_ts(ts), fmt_ts(e)))
    return sorted(out)


def run_case(case):
    rng = case.rng
    size, delay, bids, form, x, y = gen_case(rng)
    cond_sql, pred = condition(form, x, y)
    bid_left = rng.random() < 0.5
    par = rng.choice([1, 2, 4])
    batch = rng.choice([1, 7, 1024])
    case.note = "(%s, size %d, delay %d, p %d, batch %d, bid %s)" % (
        form, size, delay, par, batch, "left" if bid_left else "right")
    with open(case.path("bids.csv"), "w") as f:
        for i, price, ts in bids:
            f.write("%d,%s,%s\n" % (i, "" if price is None else price, csv_ts(ts)))
    frm = "bid B JOIN maxes B1" if bid_left else "maxes B1 JOIN bid B"
    sql = f"""CREATE TABLE bid (id INT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '{delay}' MILLISECOND) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE VIEW maxes AS
  SELECT MAX(price) AS maxprice, window_end AS wend
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '{size}' MILLISECOND))
  GROUP BY window_start, window_end;
SELECT B.id, B.price, B.ts, B1.wend FROM {frm}
  ON B.price = B1.maxprice WHERE {cond_sql};
"""
    case.write("job.sql", sql)
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    got = sorted(l.split("> ", 1)[-1] for l in p.stdout.splitlines() if l.strip())
    want = oracle(size, delay, bids, pred)
    case.counts["joined rows compared"] += len(want)
    return diffrun.multiset_problems("joined rows", want, got)


def main():
    return diffrun.main("join_bounded_diff", run_case, jobs_env="WEIR_JOINDIFF_CASES", jobs=30,
                        one_env="WEIR_JOINDIFF_CASE")


if __name__ == "__main__":
    sys.exit(main())
