#!/usr/bin/env python3
"""Randomized differential test of window joins: two window table functions
(TUMBLE, HOP or CUMULATE, the same window on both sides, now and then with
an offset), or two window aggregations over them (SESSION too), joined
INNER / LEFT / RIGHT / FULL on both window bounds and a key, against a
python model that shares no code with weir.

Each case: two random streams l and r (out of order, ties, NULL keys and
values, late rows), one file each (one split each, so each input has its
own watermark W = max(ts so far) - delay, with a delay of its own, taking
effect after each row), a batch of random queries, run by `weir run` at a
random parallelism (1/2/4) and batch size (1/7/1024), now and then on
RocksDB. A query is

    SELECT <columns of L and R>, <window_start>, <window_end>
    FROM <L> [INNER|LEFT|RIGHT|FULL] JOIN <R>
    ON L.window_start = R.window_start AND L.window_end = R.window_end
       AND L.k = R.k [AND L.g = R.g] [AND L.x < R.x]      (in any order)

where each side is the window table function's rows (shape "rows": directly,
or through a subquery or a view with a WHERE), or a window aggregation
`SELECT k[, g], window_start, window_end, COUNT(*) AS c, SUM(v) AS s ...
GROUP BY k[, g], window_start, window_end` over them (shape "agg": Flink's
documented pattern; now and then only one side; always both over SESSION
windows, `PARTITION BY` the same keys, since a session table function
cannot be joined directly), R now and then reads l
too (a self-join), and the window bounds selected are L's, R's or
COALESCE(L.x, R.x) (what users write for outer joins). Now and then a
window aggregation (COUNT(*), COUNT(r_id), SUM(l_v) per window) reads the
join's rows, grouped by the bounds that keep their window properties (L's;
R's for RIGHT), or a second window join (any type) joins them with a third
window table function S over l or r on those bounds and the kept side's k.

The model (docs/joins.md, "Window joins"; docs/windows.md):
  - a row is in each window that holds its time: TUMBLE and HOP windows
    start at offset + n * slide (slide = size for TUMBLE), a CUMULATE
    period at offset + n * size, its windows ending at every step;
  - in a window, a row is late (dropped) when the window's end is at or
    behind its own input's watermark when it arrives (W of the rows before
    it); a WHERE removes rows but they still moved the watermark;
  - a SESSION row opens [ts, ts + gap) in its partition (the keys, NULL a
    partition of its own) and merges every session of it that is still
    open and touches that range (ends included); a session is open until
    the watermark reaches its end; a row that touches no open session and
    whose own range ends at or behind the watermark is late;
  - a window aggregation groups a window's on-time rows by its keys (NULL
    a group of its own) and emits COUNT(*) and SUM(v) (NULL over NULLs
    only); its rows are never late at the join (emitted before the
    watermark that fired them);
  - per window, every pair of rows with equal, non-NULL keys that satisfies
    the residual is joined; a LEFT / RIGHT / FULL join emits the unmatched
    rows of its outer side(s) padded with NULLs;
  - a join's rows are never late at a second window join or a window
    aggregation after it, for the same reason.
Output rows are compared as multisets.

Usage: window_join_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run, WEIR_WJOIN_JOB=i one case of it;
WEIR_WJOIN_JOBS cases (default 20, 5 under AddressSanitizer).
"""

import collections
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

# WHERE conditions on one side (SQL, and the same test on a row of the model)
FILTERS = [
    ("v > 4", lambda r: r["v"] is not None and r["v"] > 4),
    ("g = 'a'", lambda r: r["g"] == "a"),
    ("v IS NULL OR v < 3", lambda r: r["v"] is None or r["v"] < 3),
    ("MOD(id, 3) <> 1", lambda r: r["id"] % 3 != 1),
]


def gen_rows(rng, n, first_id):
    """n rows, ids from first_id: times on a 100 ms grid, as window bounds
    and watermarks are, so that rows fall on window ends and watermarks on
    them; a few a millisecond before (the last instant of a window)."""
    rows, t = [], rng.randint(0, 30) * 100
    for i in range(n):
        t += rng.choice([0, 0, 100, 400, 900, 1500])
        ts = t - rng.choice([0, 0, 0, 300, 1200, 4000]) if rng.random() < 0.3 else t
        ts -= 1 if rng.random() < 0.1 else 0
        rows.append({"id": first_id + i,
                     "k": None if rng.random() < 0.1 else rng.randint(0, 3),
                     "g": None if rng.random() < 0.1 else rng.choice("ab"),
                     "v": None if rng.random() < 0.15 else rng.randint(0, 9),
                     "ts": max(ts, 0)})
    return rows


def windows_of(ts, win):
    """[start, end) of every window of win that holds time ts (ms)."""
    kind, size, slide, off = win
    if kind == "CUMULATE":
        p = (ts - off) // size * size + off
        return [(p, p + i * slide) for i in range(1, size // slide + 1) if p + i * slide > ts]
    out, s = [], (ts - off) // slide * slide + off
    while s > ts - size:
        out.append((s, s + size))
        s -= slide
    return out


def on_time(rows, delay, win, keep, keys=()):
    """{window: [row, ...]} of the rows keep() accepts that are on time in
    each of their windows, judged by their own input's watermark (sessions
    partitioned by keys)."""
    if win[0] == "SESSION":
        return sessions(rows, delay, win[1], keep, keys)
    per = collections.defaultdict(list)
    w = None
    for r in rows:
        if keep(r):
            for bounds in windows_of(r["ts"], win):
                if w is None or bounds[1] > w:
                    per[bounds].append(r)
        w = r["ts"] - delay if w is None else max(w, r["ts"] - delay)
    return per


def sessions(rows, delay, gap, keep, keys):
    """{(start, end): [row, ...]} of the session windows of the rows keep()
    accepts, per partition of keys, late rows left out."""
    live = collections.defaultdict(list)  # partition -> [[start, end, rows]]
    per = collections.defaultdict(list)
    w = None
    for r in rows:
        if keep(r):
            part = tuple(r[k] for k in keys)
            lo, hi = r["ts"], r["ts"] + gap
            touching = [x for x in live[part] if x[0] <= hi and x[1] >= lo]
            if touching or w is None or hi > w:
                rest = [x for x in live[part] if x not in touching]
                merged = touching + [[lo, hi, [r]]]
                live[part] = rest + [[min(x[0] for x in merged), max(x[1] for x in merged),
                                      [m for x in merged for m in x[2]]]]
        w = r["ts"] - delay if w is None else max(w, r["ts"] - delay)
        for part, open_ in live.items():  # a session the watermark reached has fired
            for x in open_:
                if x[1] <= w:
                    per[(x[0], x[1])] += x[2]
            live[part] = [x for x in open_ if x[1] > w]
    for open_ in live.values():
        for x in open_:
            per[(x[0], x[1])] += x[2]
    return per


def late_pairs(rows, delay, win):
    """How many (row, window) pairs of rows are late: what the drawn data
    puts to the lateness rule (a figure for the run's closing line)."""
    if win[0] == "SESSION":
        return len(rows) - sum(len(rs) for rs in sessions(rows, delay, win[1], lambda r: True, ("k",)).values())
    n = sum(len(windows_of(r["ts"], win)) for r in rows)
    return n - sum(len(rs) for rs in on_time(rows, delay, win, lambda r: True).values())


def aggregated(per, keys):
    """A window aggregation's rows per window: one per group of keys."""
    out = {}
    for bounds, rows in per.items():
        groups = collections.defaultdict(list)
        for r in rows:
            groups[tuple(r[k] for k in keys)].append(r)
        out[bounds] = []
        for gk, rs in groups.items():
            vs = [r["v"] for r in rs if r["v"] is not None]
            row = dict(zip(keys, gk))
            row.update(c=len(rs), s=sum(vs) if vs else None)
            out[bounds].append(row)
    return out


def gen_query(rng, qid, win):
    shapes = rng.choice([("rows", "rows")] * 3 + [("agg", "agg")] * 2 + [("rows", "agg"), ("agg", "rows")])
    if win[0] == "SESSION":
        shapes = ("agg", "agg")
    q = {"qid": qid, "shapes": dict(zip("LR", shapes)),
         "tables": {"L": "l", "R": "l" if rng.random() < 0.15 else "r"},  # now and then a self-join
         "type": rng.choice(["INNER", "LEFT", "RIGHT", "FULL"]),
         "keys": ["k", "g"] if rng.random() < 0.3 else ["k"],
         "bounds": rng.choice("LRC"),  # L.window_start, R.window_start or COALESCE of both
         "filter": None, "resid": None}
    if rng.random() < 0.4:
        q["filter"] = (rng.choice("LR"), rng.randrange(len(FILTERS)), rng.choice(["sub", "view"]))
    q["cols"] = {s: ["id", "v"] if q["shapes"][s] == "rows" else q["keys"] + ["c", "s"] for s in "LR"}
    if rng.random() < 0.35:
        q["resid"] = tuple(rng.choice(["v"] if q["shapes"][s] == "rows" else ["c", "s"]) for s in "LR")
    # a window aggregation over the join's rows, grouped by the window
    # columns that keep their window properties (L's; R's for RIGHT)
    # or a second window join of its rows with a third input S (its type, S's table)
    x = rng.random() if shapes == ("rows", "rows") and q["type"] != "FULL" else 1
    q["cascade"] = x < 0.25
    q["chain"] = (rng.choice(["INNER", "LEFT", "RIGHT", "FULL"]), rng.choice("lr")) if 0.25 <= x < 0.45 else None
    if q["cascade"] or q["chain"]:
        q["bounds"] = "R" if q["type"] == "RIGHT" else "L"
    conds = ["L.window_start = R.window_start", "L.window_end = R.window_end"]
    conds += ["L.%s = R.%s" % (k, k) for k in q["keys"]]
    if q["resid"]:
        conds.append("L.%s < R.%s" % q["resid"])
    rng.shuffle(conds)  # the planner must find the bounds and keys in any order
    q["on"] = " AND ".join(conds)
    return q


def tvf_sql(win, table, keys=None):
    kind, size, slide, off = win
    if kind == "SESSION":
        part = keys[0] if len(keys) == 1 else "(%s)" % ", ".join(keys)
        return "TABLE(SESSION(TABLE %s PARTITION BY %s, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND))" % (
            table, part, size)
    iv = "INTERVAL '%d' MILLISECOND"
    args = [iv % size] if kind == "TUMBLE" else [iv % slide, iv % size]
    if off:
        args.append(iv % off)
    return "TABLE(%s(TABLE %s, DESCRIPTOR(ts), %s))" % (kind, table, ", ".join(args))


def side_sql(q, side, win, views):
    """The FROM item of one side, aliased; a view it reads is added to views."""
    table, where = q["tables"][side], None
    if q["filter"] and q["filter"][0] == side:
        cond = FILTERS[q["filter"][1]][0]
        if q["filter"][2] == "view":
            views.append("CREATE VIEW %s_q%d AS SELECT * FROM %s WHERE %s;" % (side, q["qid"], table, cond))
            table = "%s_q%d" % (side, q["qid"])
        else:
            where = cond
    tvf = tvf_sql(win, table, q["keys"])
    if q["shapes"][side] == "agg":
        keys = ", ".join(q["keys"])
        return ("(SELECT %s, window_start, window_end, COUNT(*) AS c, SUM(v) AS s FROM %s%s "
                "GROUP BY %s, window_start, window_end) %s"
                % (keys, tvf, " WHERE " + where if where else "", keys, side))
    if where:
        return "(SELECT * FROM %s WHERE %s) %s" % (tvf, where, side)
    return "%s %s" % (tvf, side)


def sink_columns(q):
    """The names of the query's output columns before ws and we."""
    if q["cascade"]:
        return ["n", "n_r", "sum_l_v"]
    if q["chain"]:
        return ["l_id", "l_v", "r_id", "r_v", "s_id", "s_v"]
    return ["%s_%s" % (s.lower(), c) for s in "LR" for c in q["cols"][s]]


def query_sql(q, win, views):
    cols = ["%s.%s AS %s_%s" % (s, c, s.lower(), c) for s in "LR" for c in q["cols"][s]]
    for b, name in (("window_start", "ws"), ("window_end", "we")):
        cols.append("%s AS %s" % ("COALESCE(L.%s, R.%s)" % (b, b) if q["bounds"] == "C"
                                  else "%s.%s" % (q["bounds"], b), name))
    join = "SELECT %s FROM %s %s JOIN %s ON %s" % (
        ", ".join(cols), side_sql(q, "L", win, views), q["type"], side_sql(q, "R", win, views), q["on"])
    if q["cascade"]:
        return "SELECT COUNT(*), COUNT(r_id), SUM(l_v), ws, we FROM (%s) GROUP BY ws, we" % join
    if q["chain"]:
        join = join.replace(" FROM ", ", %s.k AS k FROM " % q["bounds"], 1)
        return ("SELECT J.l_id, J.l_v, J.r_id, J.r_v, S.id, S.v, COALESCE(J.ws, S.window_start), "
                "COALESCE(J.we, S.window_end) FROM (%s) J %s JOIN %s S ON J.k = S.k AND "
                "J.ws = S.window_start AND J.we = S.window_end" % (join, q["chain"][0], tvf_sql(win, q["chain"][1])))
    return join


def join_pairs(jtype, keys, resid, left, right):
    """[(bounds, l, r), ...]: the window join of two {window: [row, ...]}
    (rows as dicts); l or r is None in a padded row."""
    out = []
    for bounds in set(left) | set(right):
        lrows, rrows = left.get(bounds, []), right.get(bounds, [])
        lhit, rhit = [False] * len(lrows), [False] * len(rrows)
        for i, l in enumerate(lrows):
            for j, r in enumerate(rrows):
                if any(l[k] is None or l[k] != r[k] for k in keys):
                    continue
                if resid and (l[resid[0]] is None or r[resid[1]] is None or not l[resid[0]] < r[resid[1]]):
                    continue
                lhit[i] = rhit[j] = True
                out.append((bounds, l, r))
        if jtype in ("LEFT", "FULL"):
            out += [(bounds, l, None) for l, hit in zip(lrows, lhit) if not hit]
        if jtype in ("RIGHT", "FULL"):
            out += [(bounds, None, r) for r, hit in zip(rrows, rhit) if not hit]
    return out


def expected(q, per):
    """The query's output rows, from its inputs' rows per window (per: {"L",
    "R" and, for a chained join, "S": {window: [row, ...]}})."""
    out = collections.Counter()
    pairs = join_pairs(q["type"], q["keys"], q["resid"], per["L"], per["R"])
    if q["chain"]:
        # the first join's rows are on time at the second: emitted before
        # the watermark that fired them
        joined = collections.defaultdict(list)
        for bounds, l, r in pairs:
            row = {"%s_%s" % (s.lower(), c): None if x is None else x[c] for s, x in (("L", l), ("R", r))
                   for c in q["cols"][s]}
            row["k"] = (r if q["bounds"] == "R" else l)["k"]
            joined[bounds].append(row)
        for bounds, j, s in join_pairs(q["chain"][0], ["k"], None, joined, per["S"]):
            vals = [None if j is None else j[c] for c in ("l_id", "l_v", "r_id", "r_v")]
            vals += [None if s is None else s[c] for c in ("id", "v")]
            out[tuple(vals) + bounds] += 1
        return out
    for bounds, l, r in pairs:
        vals = tuple(None if x is None else x[c] for s, x in (("L", l), ("R", r)) for c in q["cols"][s])
        if q["bounds"] == "C" or (l if q["bounds"] == "L" else r) is not None:
            out[vals + bounds] += 1
        else:
            out[vals + (None, None)] += 1
    return cascaded(out) if q["cascade"] else out


def cascaded(joined):
    """The window aggregation over joined rows (l_id, l_v, r_id, r_v, ws,
    we): per window COUNT(*), COUNT(r_id), SUM(l_v)."""
    per = collections.defaultdict(list)
    for row, n in joined.items():
        per[row[4:]] += [row] * n
    out = collections.Counter()
    for bounds, rows in per.items():
        lvs = [r[1] for r in rows if r[1] is not None]
        out[(len(rows), sum(r[2] is not None for r in rows), sum(lvs) if lvs else None) + bounds] += 1
    return out


def json_line(r):
    def j(x):
        return "null" if x is None else '"%s"' % x if isinstance(x, str) else str(x)
    return '{"id": %d, "k": %s, "g": %s, "v": %s, "ts_ms": %d}' % (r["id"], j(r["k"]), j(r["g"]), j(r["v"]),
                                                                  r["ts"])


def parse_ts(text):
    d = datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.timezone.utc)
    return round(d.timestamp() * 1000)


def parse_row(q, fields):
    vals = []
    for c, text in zip(sink_columns(q), fields):
        vals.append(None if text == "null" else text if c.endswith("_g") else int(text))
    return tuple(vals) + tuple(None if t == "null" else parse_ts(t) for t in fields[len(vals):])


def describe(q):
    """What a query is, for its problem line."""
    f, x = q["filter"], q["resid"]
    return "q%d (%s %s JOIN %s of %s%s on %s%s%s, bounds %s)" % (
        q["qid"], q["shapes"]["L"], q["type"], q["shapes"]["R"], q["tables"]["R"],
        ", then aggregated by window" if q["cascade"] else
        ", then %s JOIN %s" % q["chain"] if q["chain"] else "", "+".join(q["keys"]),
        ", L.%s < R.%s" % x if x else "", ", WHERE %s on %s (%s)" % (FILTERS[f[1]][0], f[0], f[2]) if f else "",
        q["bounds"])


def gen_window(rng):
    if rng.random() < 0.2:
        return "SESSION", rng.choice([300, 1000, 2500]), 0, 0  # the gap
    kind = rng.choice(["TUMBLE", "HOP", "CUMULATE"])
    size = rng.choice([1000, 2000, 5000])
    slide = size if kind == "TUMBLE" else rng.choice([s for s in (500, 1000, 2500) if size % s == 0 and s < size])
    # windows start at offset + n * slide whatever its size: one past the
    # slide or the size means the same as its remainder
    return kind, size, slide, rng.choice([0, 0, 0, 200, -300, 700, 2700, -6100])


class Job:
    """One case's job: its window, the two inputs (rows and watermark
    delay of each) and the queries, and how it runs."""

    def __init__(self, rng):
        self.delays = [rng.choice([0, 500, 1000, 3000]) for _ in "lr"]
        self.win = gen_window(rng)
        self.lrows = gen_rows(rng, rng.randint(0, 60), 1)
        self.rrows = gen_rows(rng, rng.randint(0, 60), 1001)
        self.parallelism, self.batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024])
        self.rocks = rng.random() < 0.25  # list state and timers in RocksDB
        self.queries = [gen_query(rng, i, self.win) for i in range(rng.randint(1, 5))]

    def note(self):
        return "%s size %d slide %d offset %d, delays %d/%d ms, parallelism %d, batch size %d%s" % (
            self.win + tuple(self.delays) + (self.parallelism, self.batch, ", RocksDB" if self.rocks else ""))

    def inputs(self):
        """{table: (rows, watermark delay)}."""
        return {"l": (self.lrows, self.delays[0]), "r": (self.rrows, self.delays[1])}


def input_text(rows):
    return "".join(json_line(r) + "\n" for r in rows)


def job_sql(j):
    """The job: tables l and r over l.json and r.json, a print sink q<i>
    per query."""
    sql = []
    for name, (rows, delay) in j.inputs().items():
        wm = "ts" if delay == 0 else "ts - INTERVAL '%d.%03d' SECOND" % (delay // 1000, delay % 1000)
        sql.append("CREATE TABLE %s (id BIGINT, k INT, g STRING, v INT, ts_ms BIGINT, "
                   "ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS %s) WITH ("
                   "'connector' = 'filesystem', 'path' = '%s.json', 'format' = 'json');" % (name, wm, name))
    for q in j.queries:
        cols = ["%s %s" % (c, "STRING" if c.endswith("_g") else "BIGINT") for c in sink_columns(q)]
        sql.append("CREATE TABLE q%d (%s, ws TIMESTAMP_LTZ(3), we TIMESTAMP_LTZ(3)) WITH ("
                   "'connector' = 'print', 'print-identifier' = 'q%d');" % (q["qid"], ", ".join(cols), q["qid"]))
        views = []
        text = query_sql(q, j.win, views)
        sql += views
        sql.append("INSERT INTO q%d %s;" % (q["qid"], text))
    return "\n".join(sql) + "\n"


def out_kinds(q):
    """The kinds of a query's output columns, as tests/restore_diff.py
    reads its committed rows: "str", "big" or "ltz"."""
    return ["str" if c.endswith("_g") else "big" for c in sink_columns(q)] + ["ltz", "ltz"]


def check(j, printed, counts):
    """The problems of the printed rows ({q<i>: [[field text, ...], ...]})
    against the model."""
    probs = []
    counts["session cases"] += j.win[0] == "SESSION"
    counts["late row-windows"] += sum(late_pairs(rows, delay, j.win) for rows, delay in j.inputs().values())
    inputs = j.inputs()
    for q in j.queries:
        per = {}
        for side in "LR":
            f = q["filter"]
            keep = FILTERS[f[1]][1] if f and f[0] == side else (lambda r: True)
            per[side] = on_time(*inputs[q["tables"][side]], j.win, keep, q["keys"])
            if q["shapes"][side] == "agg":
                per[side] = aggregated(per[side], q["keys"])
        got = collections.Counter(parse_row(q, fields) for fields in printed.get("q%d" % q["qid"], []))
        if q["chain"]:
            per["S"] = on_time(*inputs[q["chain"][1]], j.win, lambda r: True)
        probs += diffrun.multiset_problems(describe(q), expected(q, per), got)
        counts["rows out"] += sum(got.values())
        counts["cascades"] += q["cascade"]
        counts["chained joins"] += q["chain"] is not None
    return probs


def run_case(case):
    j = Job(case.rng)
    case.note = j.note()
    for name, (rows, _) in j.inputs().items():
        case.write(name + ".json", input_text(rows))
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocks),
                      timeout=120)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    printed, probs = diffrun.print_inserts(p.stdout)
    return probs + check(j, printed, case.counts)


if __name__ == "__main__":
    sys.exit(diffrun.main("window_join_diff", run_case, jobs_env="WEIR_WJOIN_JOBS", jobs=20, asan_jobs=5,
                          one_env="WEIR_WJOIN_JOB"))
