#!/usr/bin/env python3
"""Randomized differential test of window Top-N and window deduplication
over TUMBLE, HOP and CUMULATE windows of a TIMESTAMP attribute, against a
python model that shares no code with weir (tests/test_window_rank_diff.sh
runs it).

Each case is one random stream t (id, k, v, s, ts: out of order, ties in
time and in v and s (in a quarter of the cases v and s take two values),
NULLs in k, v and s, typed columns to order by, rows later than the watermark),
one JSON file (one split, so W = max(ts so far) - delay, taking effect
after each row; in a quarter of the cases read in byte ranges, which one
source subtask reads as one sequence, so the same), or in about half the
cases 2 to 4 files of a folder (splits) read by one source subtask
(scan.parallelism 1): each split its own stream at its own speed, some
behind the others, with its own share of late rows; and a batch of random
queries in one `weir run` at a random parallelism (1/2/4), batch size
(1/7/1024; with splits 1/2/3/7/1024), on the heap or RocksDB,
with mini-batch, two-phase and split distinct aggregation on or off:
  topn    ROW_NUMBER() / RANK() / DENSE_RANK() OVER (PARTITION BY
          window_start, window_end [, k or MOD(id, 2)] ORDER BY one or two
          of v, s, id, ts, MOD(id, 3), v + k, COALESCE(s, 'zz'), each ASC
          or DESC, NULLS FIRST / LAST or the default) over
          the window table function, with a WHERE under the ranking (on v,
          s, k or window_end) or none, a bound rn <= N, rn < N, rn = N,
          N >= rn, rn BETWEEN M AND N, rn >= M AND rn <= N or rn > M AND
          rn < N, sometimes one more condition beside the bound, the rank
          number read or not; the window's bounds renamed in a subquery
          (PARTITION BY wb, wa) now and then;
  agg     the same ranking over a window aggregation (COUNT(*), SUM(v),
          MAX(s), COUNT(*) FILTER (WHERE v > c), COUNT(DISTINCT v) per k
          [and s] and window, a WHERE under it or none, a HAVING or none),
          partitioned by the windows [and k], ordered by the aggregates
          (ROW_NUMBER ends with the group keys, so no two rows tie);
  dedup   ROW_NUMBER() OVER (PARTITION BY window_start, window_end [, k]
          ORDER BY ts [DESC]) with rn = 1 or rn <= 1: the first row of
          each window and key, or the last;
  count   a window aggregation (COUNT(*), SUM(v)) GROUP BY window_start,
          window_end over a window Top-N's rows (a cascade);
  join    a window join (INNER, LEFT, RIGHT, FULL) ON the windows and k of
          two window Top-Ns' or deduplications' rows;
  roll    a TUMBLE of 2 to 20 seconds over the window_time of a window
          Top-N's or deduplication's rows, aggregated (a bigger window).
The model (docs/sql.md, "Window Top-N and window deduplication"):
  - with several splits, the subtask reads them in turns, one batch (at
    least 2 rows) from each; the watermark is the minimum over the splits
    that have not ended of max(ts so far) - delay (a split that has read
    nothing holds it back; one whose read found its end no longer does),
    never going back (docs/runtime.md, "Time"; arrivals() below);
  - a row belongs to each window that holds its ts (CUMULATE: the windows
    [p, p + i * step) of its period p that hold it) and is dropped from a
    window whose end is at or behind the watermark when it arrives (W
    before the row); a window aggregation drops it the same way;
  - ranks are per window (and k): equal ORDER BY values rank in arrival
    order (across splits too) for ROW_NUMBER, share a rank for RANK (which then skips) and
    DENSE_RANK (which does not); NULL is the smallest value (ASC puts
    NULLs first, DESC last) unless NULLS FIRST / LAST is written;
  - deduplication ASC keeps the smallest ts (the first to arrive among
    equal ones), DESC the largest (the last to arrive among equal ones).
Windows have an offset now and then; the window table functions read a
view that filters t now and then (rows it removes still move the watermark). Output rows are compared as multisets.
tests/restore_diff.py (family rank) draws the same jobs and restores them.

Usage: window_rank_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run, WEIR_WRANK_JOB=i one case of it;
WEIR_WRANK_JOBS cases (default 12, 4 under AddressSanitizer);
WEIR_WRANK_ROWS the largest number of rows of a case (default 80).
"""

import collections
import datetime as dt
import decimal
import functools
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

SEC = 1000
BASES = [0, 1704067200000, 951782400000]  # 1970-01-01 (times before it too), 2024-01-01, 2000-02-29
STRINGS = ["a", "b", "bb", "c", None]
# values of the typed columns the rankings order by (a few of each, so they tie)
DOUBLES = [-1e10, -2.5, -0.125, 0.0, 0.5, 3.0, 1.5e-7, 7e300, None]
DECIMALS = ["-12345678.99", "-0.01", "0.00", "0.25", "1.10", "99999999.99", None]
BIGINTS = [-9007199254740993, -4294967296, -1, 0, 1, 4294967296, 4294967297, 9223372036854775807, None]
UNICODE = ["a", "Z", "\u00e9", "e\u0301", "\u65e5\u672c", "\U0001f600", "\uffff", "", None]
# expressions the queries partition and order by, as the rows' columns of the same name
EXPRS = {"md": "m", "m3": "MOD(id, 3)", "p2": "MOD(id, 2)", "vk": "v + k", "cs": "COALESCE(s, 'zz')"}


def windows_of(ts, kind, size, slide, off=0):
    """[start, end) of each window that holds ts (ms); windows start at off + n * slide."""
    if off:
        return [(a + off, b + off) for a, b in windows_of(ts - off, kind, size, slide)]
    if kind in ("TUMBLE", "HOP"):
        return diffrun.window_bounds(ts, kind, size, slide)
    p = ts - ts % size  # CUMULATE: slide is the step, size the period
    return [(p, p + i * slide) for i in range(1, size // slide + 1) if p + i * slide > ts]


def arrivals(splits, delay, batch):
    """[(row, W), ...]: the rows of the splits (lists of rows, in file order)
    in the order one source subtask reads them, each with the watermark
    before it. The subtask reads its splits in turns, in split order, one
    batch of up to `batch` rows (at least 2: a record may be two rows) from
    each split that has not ended; a split ends in the turn whose read finds
    its end (the turn after its last rows when they filled a batch)
    (docs/runtime.md, "Time"). A split's watermark is max(ts) - delay (none
    before its first row, which holds the others back), taking effect after
    each row; the subtask's is the minimum over the splits that have not
    ended, never going back (docs/semantics.md, "Watermarks")."""
    n, pos, top, ended = len(splits), [0] * len(splits), [None] * len(splits), [False] * len(splits)
    out, w, batch = [], None, max(batch, 2)

    def advance(w):
        live = [top[i] for i in range(n) if not ended[i]]
        if not live or None in live:
            return w
        return min(live) - delay if w is None else max(w, min(live) - delay)
    while not all(ended):
        for i in range(n):
            if ended[i]:
                continue
            rows = splits[i][pos[i]:pos[i] + batch]
            for r in rows:
                out.append((r, w))
                top[i] = r["ts"] if top[i] is None else max(top[i], r["ts"])
                w = advance(w)
            pos[i] += len(rows)
            if len(splits[i]) - pos[i] + len(rows) < batch:
                ended[i] = True
                w = advance(w)
    return out


def on_time(arrived, kind, size, slide, off, keep=None):
    """{window: [row, ...]} of the rows on time in each window, in arrival
    order (arrived: [(row, W before it)]); rows keep() refuses move the
    watermark but join no window."""
    per = collections.defaultdict(list)
    for r, w in arrived:
        for win in windows_of(r["ts"], kind, size, slide, off) if keep is None or keep(r) else []:
            if w is None or win[1] > w:
                per[win].append(r)
    return per


def gen_rows(rng, n, base, narrow=False, first=1, speed=1, late=(0.2, 0.25)):
    """n rows from about base on (ids from first, time steps times speed);
    narrow: v and s of two values each and NULL (ties everywhere); a share
    late[0] of the rows up to 6 s behind the stream, late[1] - late[0] up to
    30 s."""
    rows, t = [], base + rng.randrange(-20 * SEC, 20 * SEC)
    for i in range(n):
        t += rng.choice([0, 0, 200, 500, SEC, 1700, 3 * SEC]) * speed
        x = rng.random()
        ts = t - rng.randrange(6 * SEC) if x < late[0] else t - rng.randrange(30 * SEC) if x < late[1] else t
        r = {"id": first + i,
             "k": None if rng.random() < 0.1 else rng.randint(0, 2),
             "v": None if rng.random() < 0.15 else rng.randint(0, 1 if narrow else 5),
             "s": rng.choice(["a", "b", None] if narrow else STRINGS),
             "ts": ts}
        r.update(d=rng.choice(DOUBLES), m=rng.choice(DECIMALS), g=rng.choice(BIGINTS), u=rng.choice(UNICODE))
        r["md"] = None if r["m"] is None else decimal.Decimal(r["m"])
        r.update(m3=r["id"] % 3, p2=r["id"] % 2, vk=None if r["v"] is None or r["k"] is None else r["v"] + r["k"],
                 cs="zz" if r["s"] is None else r["s"])
        rows.append(r)
    return rows


def gen_splits(rng, n, base, narrow):
    """n rows in 2 to 4 splits (files), now and then one of them empty: each
    split its own stream (ids numbered across them) at its own speed, some
    starting behind the others (a slow split holds the watermark back, so
    rows behind their own split's watermark are on time by the subtask's)
    or ahead of them (its rows pass the watermark of splits that have ended
    or that it is read after); each with its own share of rows behind it."""
    cuts = sorted(rng.randint(0, n) for _ in range(rng.choice([1, 1, 2, 3])))
    splits, first = [], 1
    for a, b in zip([0] + cuts, cuts + [n]):
        lag = rng.choice([0, 0, 0, -5 * SEC, -15 * SEC, -40 * SEC, 10 * SEC])
        splits.append(gen_rows(rng, b - a, base + lag, narrow, first, rng.choice([1, 1, 2, 4]),
                               rng.choice([(0.2, 0.25), (0.1, 0.12), (0.3, 0.4)])))
        first += b - a
    return splits


def cmp_items(items):
    """A comparison of rows (dicts) by ORDER BY items (column, DESC?, NULLS FIRST?)."""
    def cmp(a, b):
        for col, desc, nulls_first, _ in items:
            x, y = a[col], b[col]
            if x == y:
                continue
            if x is None or y is None:
                return (-1 if x is None else 1) * (1 if nulls_first else -1)
            c = -1 if x < y else 1
            return -c if desc else c
        return 0
    return cmp


def ranked(rows, fn, items):
    """(rank, row) of rows (in arrival order) by fn over items."""
    cmp = cmp_items(items)
    order = sorted(rows, key=functools.cmp_to_key(cmp))  # stable: ties keep arrival order
    out, rank, dense = [], 0, 0
    for i, r in enumerate(order):
        tie = i > 0 and cmp(order[i - 1], r) == 0
        if fn == "ROW_NUMBER":
            rank = i + 1
        elif fn == "RANK":
            rank = rank if tie else i + 1
        else:
            dense = dense if tie else dense + 1
            rank = dense
        out.append((rank, r))
    return out


def gen_items(rng, cols, last):
    items = []
    for col in rng.sample(cols, rng.randint(1, 2)):
        items.append((col, rng.random() < 0.5, rng.choice([None, True, False])))
    if items[-1][0] == "ts" and len(items) == 1:
        last = last or "id"  # ORDER BY ts alone with rn = 1 is a deduplication
    if last and all(c != last for c, _, _ in items):
        items.append((last, rng.random() < 0.5, rng.choice([None, True, False])))
    return [(c, d, (not d) if n is None else n, n) for c, d, n in items]


def items_sql(items):
    return ", ".join("%s%s%s" % (EXPRS.get(c, c), " DESC" if d else "",
                                 "" if n is None else " NULLS FIRST" if n else " NULLS LAST")
                     for c, d, _, n in items)


def gen_bound(rng):
    n = rng.choice([1, 1, 2, 3, 4, 10])
    m = rng.randint(1, n)
    return rng.choice([
        ("rn <= %d" % n, 1, n), ("rn < %d" % (n + 1), 1, n), ("rn = %d" % m, m, m), ("%d >= rn" % n, 1, n),
        ("rn BETWEEN %d AND %d" % (m, n), m, n), ("rn >= %d AND rn <= %d" % (m, n), m, n),
        ("rn > %d AND rn < %d" % (m - 1, n + 1), m, n)])


def gen_where(rng, rows, windowed):
    choices = [None, None, ("v IS NOT NULL", lambda r, w: r["v"] is not None)]
    c = rng.randint(0, 5)
    choices.append(("v <> %d" % c, lambda r, w: r["v"] is not None and r["v"] != c))
    choices.append(("s <> 'b' OR s IS NULL", lambda r, w: r["s"] != "b"))
    c2 = rng.randint(0, 2)
    choices.append(("k = %d OR k IS NULL" % c2, lambda r, w: r["k"] is None or r["k"] == c2))
    if windowed and rows:
        t = rng.choice(rows)["ts"]
        choices.append(("window_end > TIMESTAMP '%s'" % ts_text(t), lambda r, w: w[1] > t))
    return rng.choice(choices)


def gen_query(rng, qid, rows, shape=None):
    shape = shape or rng.choice(["topn", "topn", "topn", "agg", "agg", "dedup", "count", "roll", "join"])
    if shape == "join":
        sides = [gen_query(rng, qid, rows, rng.choice(["topn", "dedup"])) for _ in range(2)]
        for side in sides:
            side["rename"] = False
        return {"roll": None, "qid": qid, "shape": "join", "sides": sides,
                "type": rng.choice(["INNER", "LEFT", "RIGHT", "FULL"])}
    roll = None
    if shape == "roll":
        shape, roll = rng.choice(["topn", "dedup"]), rng.choice([2, 5, 10, 20]) * SEC
    q = {"roll": roll, "qid": qid, "shape": shape, "part": rng.choice([None, None, None, "k", "p2"])}
    if shape in ("topn", "agg", "count"):
        q["fn"] = rng.choice(["ROW_NUMBER", "RANK", "DENSE_RANK"])
        q["bound"] = gen_bound(rng)
        q["read_rank"] = rng.random() < 0.6
    if shape in ("topn", "count"):
        last = "id" if q["fn"] == "ROW_NUMBER" and rng.random() < 0.5 else None
        typed = rng.sample(["d", "md", "g", "u"], 2) if rng.random() < 0.4 else []
        q["items"] = gen_items(rng, ["v", "s", "id", "m3", "vk", "cs"] + typed + (["ts"] if rng.random() < 0.2 else []),
                               last)
        q["where"] = gen_where(rng, rows, True)
        q["rename"] = not roll and rng.random() < 0.2
        if rng.random() < 0.25:
            c = rng.randint(1, 4)
            q["extra"] = ("id %% %d <> 0" % (c + 1), lambda r: r["id"] % (c + 1) != 0)
    elif shape == "agg":
        q["by_s"] = rng.random() < 0.3
        q["part"] = "k" if q["by_s"] and rng.random() < 0.5 else None
        q["items"] = gen_items(rng, ["cnt", "sv", "ms", "cf", "cd"], None)
        if q["fn"] == "ROW_NUMBER":  # no two groups tie
            for col in ["k", "gs"] if q["by_s"] else ["k"]:
                if all(c != col for c, _, _, _ in q["items"]):
                    q["items"].append((col, False, True, None))
        q["where"] = gen_where(rng, rows, False)
        q["cf_c"] = rng.randint(0, 4)
        q["having"] = rng.choice([None, None, 1, 2])
    else:
        q["desc"] = rng.random() < 0.5
        q["bound"] = rng.choice([("rn = 1", 1, 1), ("rn <= 1", 1, 1), ("rn < 2", 1, 1)])
        q["where"] = None
    return q


def tvf_sql(kind, size, slide, off):
    def iv(ms):
        return "INTERVAL '%d' SECOND" % (ms // SEC) if ms % SEC == 0 else "INTERVAL '%d' MILLISECOND" % ms
    o = ", " + iv(off) if off else ""
    if kind == "TUMBLE":
        return "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), %s%s))" % (iv(size), o)
    return "TABLE(%s(TABLE t, DESCRIPTOR(ts), %s, %s%s))" % (kind, iv(slide), iv(size), o)


def query_sql(q, tvf):
    """The query's SELECT, and the view it reads (or None)."""
    if q["shape"] == "join":
        l, r = (inner_sql(side, tvf, "id, k, v, window_start, window_end") for side in q["sides"])
        return ("SELECT L.id, R.id, L.v, CAST(NULL AS STRING), COALESCE(L.window_start, R.window_start), "
                "COALESCE(L.window_end, R.window_end) FROM (%s) L %s JOIN (%s) R ON L.window_start = "
                "R.window_start AND L.window_end = R.window_end AND L.k = R.k" % (l, q["type"], r)), None
    if not q["roll"]:
        return inner_sql(q, tvf, "id, %s, v, s, window_start, window_end"), None
    return ("SELECT COUNT(*), CAST(SUM(v) AS BIGINT), MAX(id), CAST(NULL AS STRING), window_start, window_end "
            "FROM TABLE(TUMBLE(TABLE vq%d, DESCRIPTOR(wt), INTERVAL '%d' SECOND)) GROUP BY window_start, window_end"
            % (q["qid"], q["roll"] // SEC),
            "CREATE VIEW vq%d AS %s;" % (q["qid"], inner_sql(q, tvf, "id, v, window_time AS wt")))


def inner_sql(q, tvf, cols):
    part = "window_start, window_end" + (", " + EXPRS.get(q["part"], q["part"]) if q["part"] else "")
    where = " WHERE " + q["where"][0] if q["where"] else ""
    if q["shape"] == "dedup":
        return ("SELECT %s FROM (SELECT *, ROW_NUMBER() "
                "OVER (PARTITION BY %s ORDER BY ts%s) AS rn FROM %s) WHERE %s"
                % (cols.replace("%s", "CAST(NULL AS BIGINT)"), part, " DESC" if q["desc"] else "", tvf, q["bound"][0]))
    bound = q["bound"][0] + (" AND " + q["extra"][0] if q.get("extra") else "")
    rank = "rn" if q["read_rank"] else "CAST(NULL AS BIGINT)"
    over = "%s() OVER (PARTITION BY %s ORDER BY %s) AS rn" % (q["fn"], part, items_sql(q["items"]))
    if q["shape"] == "topn" and q["rename"]:
        # the window's bounds under other names, partitioned in the other order
        src = "(SELECT id, k, v, s, d, m, g, u, ts, window_start AS wa, window_end AS wb FROM %s)" % tvf
        return ("SELECT %s FROM (SELECT *, %s FROM %s%s) WHERE %s"
                % (cols.replace("%s", rank).replace("window_start, window_end", "wa, wb"),
                   over.replace("window_start, window_end", "wb, wa"), src, where.replace("window_end", "wb"), bound))
    if q["shape"] == "topn":
        return ("SELECT %s FROM (SELECT *, %s FROM %s%s) WHERE %s"
                % (cols.replace("%s", rank), over, tvf, where, bound))
    if q["shape"] == "agg":
        return ("SELECT k, %s, cnt, COALESCE(CAST(sv AS STRING), 'n') || '/' || COALESCE(ms, 'n') || '/' || "
                "CAST(cf AS STRING) || '/' || CAST(cd AS STRING) || '/' || COALESCE(gs, 'n'), window_start, window_end "
                "FROM (SELECT *, %s FROM (SELECT k, %s AS gs, window_start, window_end, COUNT(*) AS cnt, SUM(v) AS sv, "
                "MAX(s) AS ms, COUNT(*) FILTER (WHERE v > %d) AS cf, COUNT(DISTINCT v) AS cd FROM %s%s "
                "GROUP BY k, %swindow_start, window_end%s)) WHERE %s"
                % (rank, over, "s" if q["by_s"] else "'-'", q["cf_c"], tvf, where, "s, " if q["by_s"] else "",
                   " HAVING COUNT(*) > %d" % q["having"] if q["having"] else "", bound))
    return ("SELECT COUNT(*), SUM(rn), SUM(v), CAST(NULL AS STRING), window_start, window_end FROM ("
            "SELECT id, v, rn, window_start, window_end FROM (SELECT *, %s FROM %s%s) WHERE %s) "
            "GROUP BY window_start, window_end" % (over, tvf, where, bound))


def expected_join(q, per):
    """A window join of two rankings' rows on k (NULL meets nothing), outer sides padded."""
    byid = {r["id"]: r for rows in per.values() for r in rows}
    sides = []
    for side in q["sides"]:
        wins = collections.defaultdict(list)
        for (i, _, _, _, ws, we), n in expected_inner(side, per).items():
            wins[(ws, we)] += [byid[i]] * n
        sides.append(wins)
    out = collections.Counter()
    for win in set(sides[0]) | set(sides[1]):
        ls, rs = sides[0].get(win, []), sides[1].get(win, [])
        lhit, rhit = set(), set()
        for a in ls:
            for b in rs:
                if a["k"] is not None and a["k"] == b["k"]:
                    out[(a["id"], b["id"], a["v"], None, win[0], win[1])] += 1
                    lhit.add(a["id"])
                    rhit.add(b["id"])
        if q["type"] in ("LEFT", "FULL"):
            for a in ls:
                if a["id"] not in lhit:
                    out[(a["id"], None, a["v"], None, win[0], win[1])] += 1
        if q["type"] in ("RIGHT", "FULL"):
            for b in rs:
                if b["id"] not in rhit:
                    out[(None, b["id"], None, None, win[0], win[1])] += 1
    return out


def expected(q, per):
    if q["shape"] == "join":
        return expected_join(q, per)
    if not q["roll"]:
        return expected_inner(q, per)
    wins = {}
    for (i, _, v, _, _, we), n in expected_inner(q, per).items():
        t = we - 1  # window_time
        w = wins.setdefault(t - t % q["roll"], [0, None, None])
        w[0] += n
        if v is not None:
            w[1] = (w[1] or 0) + v * n
        w[2] = i if w[2] is None else max(w[2], i)
    return collections.Counter({(n, sv, mi, None, b, b + q["roll"]): 1 for b, (n, sv, mi) in wins.items()})


def expected_inner(q, per):
    out = collections.Counter()
    lo, hi = q["bound"][1], q["bound"][2]
    for win, rows in per.items():
        if q["where"]:
            rows = [r for r in rows if q["where"][1](r, win)]
        if q["shape"] == "agg":
            groups = {}
            for r in rows:
                gs = r["s"] if q["by_s"] else "-"
                g = groups.setdefault((r["k"], gs), {"k": r["k"], "gs": gs, "cnt": 0, "sv": None, "ms": None,
                                                     "cf": 0, "dv": set()})
                g["cnt"] += 1
                if r["v"] is not None:
                    g["sv"] = r["v"] + (g["sv"] or 0)
                    g["dv"].add(r["v"])
                    g["cf"] += r["v"] > q["cf_c"]
                if r["s"] is not None and (g["ms"] is None or r["s"] > g["ms"]):
                    g["ms"] = r["s"]
            aparts = collections.defaultdict(list)
            for g in groups.values():
                g["cd"] = len(g["dv"])
                if not q["having"] or g["cnt"] > q["having"]:
                    aparts[g["k"] if q["part"] else 0].append(g)
            for gl in aparts.values():
                for rank, g in ranked(gl, q["fn"], q["items"]):
                    if lo <= rank <= hi:
                        text = "/".join("n" if x is None else str(x)
                                        for x in (g["sv"], g["ms"], g["cf"], g["cd"], g["gs"]))
                        out[(g["k"], rank if q["read_rank"] else None, g["cnt"], text, win[0], win[1])] += 1
            continue
        parts = collections.defaultdict(list)
        for r in rows:
            parts[r[q["part"]] if q["part"] else 0].append(r)
        if q["shape"] == "dedup":
            for prows in parts.values():
                keep = prows[0]
                for r in prows[1:]:
                    if r["ts"] >= keep["ts"] if q["desc"] else r["ts"] < keep["ts"]:
                        keep = r
                out[(keep["id"], None, keep["v"], keep["s"], win[0], win[1])] += 1
            continue
        kept = []
        for prows in parts.values():
            for rank, r in ranked(prows, q["fn"], q["items"]):
                if lo <= rank <= hi and (not q.get("extra") or q["extra"][1](r)):
                    kept.append((rank, r))
        if q["shape"] == "topn":
            for rank, r in kept:
                out[(r["id"], rank if q["read_rank"] else None, r["v"], r["s"], win[0], win[1])] += 1
        elif kept:
            vs = [r["v"] for _, r in kept if r["v"] is not None]
            out[(len(kept), sum(rank for rank, _ in kept), sum(vs) if vs else None, None, win[0], win[1])] += 1
    return out


def ts_text(ms):
    return (dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def json_line(r):
    return json.dumps({"id": r["id"], "k": r["k"], "v": r["v"], "s": r["s"], "d": r["d"], "g": r["g"], "u": r["u"],
                       "ts": ts_text(r["ts"])})[:-1] + ', "m": %s}' % ("null" if r["m"] is None else r["m"])


def wall_ms(text):
    """A printed TIMESTAMP(3) as milliseconds since 1970-01-01 00:00."""
    d = dt.datetime.fromisoformat(text) - dt.datetime(1970, 1, 1)
    return d.days * 86400000 + d.seconds * 1000 + d.microseconds // 1000


def val(text):
    if text == "null":
        return None
    try:
        return int(text)
    except ValueError:
        return text


class Job:
    pass


def gen_job(rng, splits=False):
    """A random case: its windows, watermark delay, rows, queries and settings;
    splits: in about half the cases the rows of several files (j.splits) read
    by one source subtask, in a quarter one file read in byte ranges (else,
    and always without splits, one file, j.splits = [j.rows])."""
    j = Job()
    j.kind = kind = rng.choice(["TUMBLE", "HOP", "CUMULATE"])
    if kind == "TUMBLE":
        j.size = rng.choice([500, 2 * SEC, 3 * SEC, 5 * SEC, 10 * SEC])
        j.slide = j.size
    elif kind == "HOP":
        j.slide, j.size = rng.choice([(SEC, 2 * SEC), (SEC, 3 * SEC), (2 * SEC, 6 * SEC), (5 * SEC, 10 * SEC),
                                      (500, 2 * SEC)])
    else:
        j.slide, j.size = rng.choice([(SEC, 3 * SEC), (2 * SEC, 10 * SEC), (5 * SEC, 20 * SEC), (500, 2 * SEC)])
    j.off = rng.choice([0, 0, 0, 250, 500, -500, 1000, -1000])
    if abs(j.off) >= j.slide:
        j.off = 0
    j.delay = rng.choice([0, 0, SEC, 3 * SEC, 10 * SEC])
    n, base, narrow = rng.randint(0, int(os.environ.get("WEIR_WRANK_ROWS", "80"))), rng.choice(BASES), \
        rng.random() < 0.25
    x = rng.random() if splits else 1
    j.splits = gen_splits(rng, n, base, narrow) if x < 0.5 else [gen_rows(rng, n, base, narrow)]
    j.rows = [r for rows in j.splits for r in rows]
    # ranges of one file read by one subtask: one sequence, as the file read whole
    j.split_size = rng.choice([40, 150, 400, 2000]) if 0.5 <= x < 0.75 else None
    # the window table functions read a view that filters t, now and then
    c = rng.randint(2, 4)
    j.view = rng.choice([None, None, None, ("id %% %d <> 1" % c, lambda r: r["id"] % c != 1),
                         ("v IS NULL OR v < %d" % c, lambda r: r["v"] is None or r["v"] < c)])
    j.parallelism, j.batch, j.rocksdb = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024]), rng.random() < 0.3
    if len(j.splits) > 1:
        j.batch = rng.choice([1, 2, 3, 7, 7, 1024])  # turns of a few rows: the splits' watermarks interleave
    j.queries = [gen_query(rng, i, j.rows) for i in range(rng.randint(1, 6))]
    # the plan of the window aggregations under the rankings must not change a result
    sets = [("table.exec.mini-batch.enabled", rng.choice([None, "true"])),
            ("table.optimizer.agg-phase-strategy", rng.choice([None, "ONE_PHASE", "TWO_PHASE"])),
            ("table.optimizer.distinct-agg.split.enabled", rng.choice([None, "true"])),
            ("table.optimizer.reuse-sub-plan-enabled", rng.choice([None, "false"]))]
    j.sets = [(k, v) for k, v in sets if v]
    j.note = "%s size %d ms slide %d ms offset %d ms, delay %d ms, %d rows%s%s%s" % (
        kind, j.size, j.slide, j.off, j.delay, len(j.rows),
        " in %d splits (%s)" % (len(j.splits), " ".join(str(len(rows)) for rows in j.splits))
        if len(j.splits) > 1 else " in ranges of %d bytes" % j.split_size if j.split_size else "",
        ", view WHERE " + j.view[0] if j.view else "",
        "".join(", %s=%s" % kv for kv in j.sets))
    return j


def job_sql(j):
    """The job's statements: t over in.json (or the folder in, a file a split), one print sink q<i> a
    query (columns a, b, c BIGINT, d STRING, ws, we TIMESTAMP(3)). Several splits, or ranges, are read
    by one source subtask at any parallelism (scan.parallelism 1): with several, which subtask's rows
    an operator takes first would be a matter of thread timing."""
    wm = "ts" if j.delay == 0 else "ts - INTERVAL '%d' SECOND" % (j.delay // SEC)
    sql = ["SET '%s' = '%s';" % kv for kv in j.sets]
    opts = "'path' = '%s', 'format' = 'json'" % ("in" if len(j.splits) > 1 else "in.json")
    if j.split_size:
        opts += ", 'source.split-size' = '%d'" % j.split_size
    if (len(j.splits) > 1 or j.split_size) and j.parallelism > 1:
        opts += ", 'scan.parallelism' = '1'"
    sql += ["CREATE TABLE t (id BIGINT, k INT, v INT, s STRING, d DOUBLE, m DECIMAL(10, 2), g BIGINT, u STRING, "
            "ts TIMESTAMP(3), WATERMARK FOR ts AS %s) "
            "WITH ('connector' = 'filesystem', %s);" % (wm, opts)]
    tvf = tvf_sql(j.kind, j.size, j.slide, j.off)
    if j.view:
        sql.append("CREATE VIEW tv AS SELECT * FROM t WHERE %s;" % j.view[0])
        tvf = tvf.replace("TABLE t,", "TABLE tv,")
    for q in j.queries:
        sql.append("CREATE TABLE q%d (a BIGINT, b BIGINT, c BIGINT, d STRING, ws TIMESTAMP(3), we TIMESTAMP(3)) "
                   "WITH ('connector' = 'print', 'print-identifier' = 'q%d');" % (q["qid"], q["qid"]))
        select, view = query_sql(q, tvf)
        if view:
            sql.append(view)
        sql.append("INSERT INTO q%d %s;" % (q["qid"], select))
    return "\n".join(sql) + "\n"


def input_text(j, rows=None):
    return "".join(json_line(r) + "\n" for r in (j.rows if rows is None else rows))


def check_lines(j, lines, counts):
    """The problems of printed lines (`q<i>> +I[...]`, and `-D[...]`, which
    takes a row back) against the model."""
    got, probs = collections.defaultdict(collections.Counter), []
    for line in lines:
        head, _, rest = line.partition("> ")
        if rest[:3] not in ("+I[", "-D[") or not rest.endswith("]"):
            probs.append("unexpected line: " + line)
            continue
        a, b, c, d, ws, we = rest[3:-1].split(", ")
        got[head.split(":")[0]][(val(a), val(b), val(c), val(d), wall_ms(ws), wall_ms(we))] += \
            1 if rest[0] == "+" else -1
    arrived = arrivals(j.splits, j.delay, j.batch)
    per = on_time(arrived, j.kind, j.size, j.slide, j.off, j.view[1] if j.view else None)
    for q in j.queries:
        what = "q%d (%s%s %s)" % (q["qid"], "roll over " if q["roll"] else "", q["shape"],
                                  q.get("fn", q.get("type", "DESC" if q.get("desc") else "ASC")))
        probs += diffrun.multiset_problems(what, expected(q, per), +got["q%d" % q["qid"]])
        counts[("roll " if q["roll"] else "") + q["shape"] + " queries"] += 1
    counts["rows"] += len(j.rows)
    counts["jobs over a view"] += bool(j.view)
    counts["jobs in ranges"] += bool(j.split_size)
    if len(j.splits) > 1:
        counts["jobs of several splits"] += 1
        own = {}  # a row's split's watermark before it
        for rows in j.splits:
            top = None
            for r in rows:
                own[r["id"]] = None if top is None else top - j.delay
                top = r["ts"] if top is None else max(top, r["ts"])
        for r, w in arrived:
            ends = [b for _, b in windows_of(r["ts"], j.kind, j.size, j.slide, j.off)]
            counts["split rows late"] += w is not None and min(ends) <= w
            counts["split rows behind their split's watermark, on time"] += \
                own[r["id"]] is not None and min(ends) <= own[r["id"]] and (w is None or min(ends) > w)
    return probs


def run_case(case):
    j = gen_job(case.rng, splits=True)
    case.note = "%s, parallelism %d, batch size %d%s" % (j.note, j.parallelism, j.batch,
                                                          ", rocksdb" if j.rocksdb else "")
    if len(j.splits) > 1:
        os.makedirs(case.path("in"), exist_ok=True)
        for i, rows in enumerate(j.splits):
            case.write(os.path.join("in", "f%d.json" % i), input_text(j, rows))
    else:
        case.write("in.json", input_text(j))
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb),
                      timeout=120)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    return check_lines(j, p.stdout.splitlines(), case.counts)


if __name__ == "__main__":
    sys.exit(diffrun.main("window_rank_diff", run_case, jobs_env="WEIR_WRANK_JOBS", jobs=12, asan_jobs=4,
                          one_env="WEIR_WRANK_JOB"))
