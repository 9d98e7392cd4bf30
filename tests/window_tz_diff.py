#!/usr/bin/env python3
"""Randomized differential test of window joins, window Top-N and window
deduplication over windows of local wall time (a TIMESTAMP_LTZ attribute in
table.local-time-zone), against a python model on Python's zoneinfo that
shares no code with weir (tests/test_window_tz_diff.sh runs it).

Each case draws a zone with offset changes (or one from the system's list)
and an instant where its offset changes (found here by bisection), and two
random streams around it: out of order, ties, NULL nums, late rows, many of
them in the gap or the repeated hour of the change. One file per stream (one
split each, so each input has its own watermark W = max(ts so far) - delay,
taking effect after each row), a batch of random queries, one `weir run` at
a random parallelism (1/2/4) and batch size (1/7/1024). The model:
  - a row's local time is its instant plus the zone's offset at it; its
    windows (TUMBLE or HOP) are those of local time that hold it;
  - the local floor of a watermark W is the smallest local time that any
    instant from W on shows (lower than W's own local time just before a
    fall-back, where the repeated hour is still to come); a row is late in a
    window, and dropped from it, when the window's end is at or behind the
    local floor of its own input's watermark when it arrives (Flink fires a
    window of local time once the watermark passes the later instant of its
    end);
  - window joins (INNER, LEFT, RIGHT, FULL) match L.num = R.num (NULL
    matches nothing) within a window; outer sides keep their unmatched
    on-time rows, NULL-padded;
  - a window Top-N keeps the rows ranked 1..N by price DESC, id ASC;
  - a window deduplication keeps per window and num (NULL is one group) the
    row with the smallest instant (ASC; the first to arrive among equal
    ones) or the largest (DESC; the last to arrive among equal ones).
Output rows are compared as multisets, with window bounds read as the local
wall times weir prints.

Usage: window_tz_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run, WEIR_WTZ_JOB=i one case of it;
WEIR_WTZ_JOBS cases (default 12, 4 under AddressSanitizer).
"""

import collections
import datetime as dt
import os
import sys
import zoneinfo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

UTC = dt.timezone.utc
MIN = 60000
HOUR = 60 * MIN
DAY = 24 * HOUR
# zones whose offset changes: DST of an hour, of 30 minutes (Lord_Howe), in the south, at odd hours
DST_ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago",
             "Pacific/Chatham", "Europe/London", "America/Havana", "Asia/Tehran", "Africa/Casablanca"]


def off_s(z, s):
    return int(dt.datetime.fromtimestamp(s, z).utcoffset().total_seconds())


def local(z, ms):
    return ms + off_s(z, ms // 1000) * 1000


def first_change(z, a, b):
    """The first instant (s) in (a, b] with another offset than a's (one change between them)."""
    while b - a > 1:
        m = (a + b) // 2
        if off_s(z, m) == off_s(z, a):
            a = m
        else:
            b = m
    return b


def change_near(z, rng):
    """An instant (s) where z's offset changes, in a random year 1995-2036; None if none is found."""
    for _ in range(40):
        a = int(dt.datetime(rng.randint(1995, 2036), 1, 1, tzinfo=UTC).timestamp()) + rng.randrange(365 * 86400)
        if off_s(z, a) != off_s(z, a + 200 * 86400):
            return first_change(z, a, a + 200 * 86400)
    return None


def changes(z, lo_s, hi_s):
    """Every instant (s) in [lo_s, hi_s] where z's offset changes, with the offsets before and after."""
    out = []
    step = 1800  # offsets change far less often than every half hour
    for t in range(lo_s, hi_s, step):
        if off_s(z, t) != off_s(z, t + step):
            c = first_change(z, t, t + step)
            out.append((c, off_s(z, c - 1), off_s(z, c)))
    return out


def local_floor(z, chg, w):
    """The smallest local time (ms) that an instant at or after w shows (looking a day ahead)."""
    best = local(z, w)
    for t, before, after in chg:
        if w < t * 1000 <= w + DAY and after < before:
            best = min(best, t * 1000 + after * 1000)
    return best


def on_time(z, chg, rows, delay, kind, size, slide):
    """{window: [row, ...]} of the rows on time in each of their local windows, in arrival order."""
    per = collections.defaultdict(list)
    w = None
    for r in rows:
        floor = None if w is None else local_floor(z, chg, w)
        for win in diffrun.window_bounds(local(z, r["ts"]), kind, size, slide):
            if floor is None or win[1] > floor:
                per[win].append(r)
        w = r["ts"] - delay if w is None else max(w, r["ts"] - delay)
    return per


def gen_rows(rng, n, first_id, center, span):
    rows, t = [], center - span // 2 + rng.randrange(HOUR)
    for i in range(n):
        t += rng.choice([0, 0, MIN, 5 * MIN, 13 * MIN, 30 * MIN, 47 * MIN]) * max(1, span // (6 * HOUR))
        ts = t - rng.randrange(150 * MIN) if rng.random() < 0.25 else t
        num = None if rng.random() < 0.1 else rng.randint(0, 4)
        rows.append({"id": first_id + i, "num": num, "price": rng.randint(0, 20), "ts": ts})
    return rows


def gen_query(rng, qid):
    shape = rng.choice(["join", "join", "topn", "dedup"])
    q = {"qid": qid, "shape": shape}
    if shape == "join":
        q["type"] = rng.choice(["INNER", "LEFT", "RIGHT", "FULL"])
    elif shape == "topn":
        q["n"] = rng.randint(1, 3)
    else:
        q["dir"] = rng.choice(["ASC", "DESC"])
    return q


def query_sql(q, tvf_l, tvf_r):
    if q["shape"] == "join":
        return ("SELECT L.id, R.id, COALESCE(L.window_start, R.window_start), COALESCE(L.window_end, R.window_end) "
                "FROM (SELECT * FROM %s) L %s JOIN (SELECT * FROM %s) R ON L.num = R.num AND "
                "L.window_start = R.window_start AND L.window_end = R.window_end" % (tvf_l, q["type"], tvf_r))
    if q["shape"] == "topn":
        return ("SELECT id, rn, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                "window_start, window_end ORDER BY price DESC, id ASC) AS rn FROM %s) WHERE rn <= %d"
                % (tvf_l, q["n"]))
    return ("SELECT id, CAST(NULL AS BIGINT), window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER "
            "(PARTITION BY window_start, window_end, num ORDER BY ts %s) AS rn FROM %s) WHERE rn = 1"
            % (q["dir"], tvf_l))


def expected(q, lw, rw):
    out = collections.Counter()
    if q["shape"] == "join":
        for win in set(lw) | set(rw):
            ls, rs = lw.get(win, []), rw.get(win, [])
            lhit, rhit = set(), set()
            for a in ls:
                for b in rs:
                    if a["num"] is not None and a["num"] == b["num"]:
                        out[(a["id"], b["id"], win[0], win[1])] += 1
                        lhit.add(a["id"])
                        rhit.add(b["id"])
            if q["type"] in ("LEFT", "FULL"):
                for a in ls:
                    if a["id"] not in lhit:
                        out[(a["id"], None, win[0], win[1])] += 1
            if q["type"] in ("RIGHT", "FULL"):
                for b in rs:
                    if b["id"] not in rhit:
                        out[(None, b["id"], win[0], win[1])] += 1
    elif q["shape"] == "topn":
        for win, rows in lw.items():
            best = sorted(rows, key=lambda r: (-r["price"], r["id"]))[:q["n"]]
            for k, r in enumerate(best):
                out[(r["id"], k + 1, win[0], win[1])] += 1
    else:
        for win, rows in lw.items():
            keep = {}
            for r in rows:
                k = r["num"]
                if k not in keep or (r["ts"] < keep[k]["ts"] if q["dir"] == "ASC" else r["ts"] >= keep[k]["ts"]):
                    keep[k] = r
            for r in keep.values():
                out[(r["id"], None, win[0], win[1])] += 1
    return out


def json_line(r):
    return '{"id": %d, "num": %s, "price": %d, "ts_ms": %d}' % (
        r["id"], "null" if r["num"] is None else r["num"], r["price"], r["ts"])


def wall_ms(text):
    """A printed TIMESTAMP (local wall time) as milliseconds of the wall clock."""
    return round(dt.datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def num_or_none(text):
    return None if text == "null" else int(text)


def pick_zone(rng):
    if rng.random() < 0.8:
        return rng.choice(DST_ZONES)
    names = sorted(n for n in zoneinfo.available_timezones()
                   if not n.startswith(("posix/", "right/")) and n not in ("Factory", "localtime")
                   and os.path.isfile(os.path.join("/usr/share/zoneinfo", n)))
    return rng.choice(names)


def run_case(case):
    rng = case.rng
    zname = pick_zone(rng)
    z = zoneinfo.ZoneInfo(zname)
    t = change_near(z, rng)
    if t is None:  # a zone without offset changes in those years: around any instant
        t = int(dt.datetime(rng.randint(1995, 2036), 6, 1, tzinfo=UTC).timestamp())
    kind = rng.choice(["TUMBLE", "TUMBLE", "HOP"])
    if kind == "TUMBLE":
        size = rng.choice([15 * MIN, 30 * MIN, HOUR, 2 * HOUR, DAY])
        slide = size
    else:
        slide, size = rng.choice([(30 * MIN, HOUR), (HOUR, 2 * HOUR), (HOUR, 3 * HOUR), (12 * HOUR, DAY)])
    span = 3 * DAY if size == DAY else 8 * HOUR
    delay = rng.choice([0, 10 * MIN, HOUR])
    center = t * 1000
    lrows = gen_rows(rng, rng.randint(0, 70), 1, center, span)
    rrows = gen_rows(rng, rng.randint(0, 70), 1001, center, span)
    par, batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024])
    queries = [gen_query(rng, i) for i in range(rng.randint(1, 5))]
    case.note = "%s around %s, %s size %d min slide %d min, delay %d min, parallelism %d, batch size %d" % (
        zname, dt.datetime.fromtimestamp(t, UTC).isoformat(), kind, size // MIN, slide // MIN, delay // MIN, par,
        batch)
    wm = "ts" if delay == 0 else "ts - INTERVAL '%d' MINUTE" % (delay // MIN)
    sql = ["SET 'table.local-time-zone' = '%s';" % zname]
    for name, rows in (("l", lrows), ("r", rrows)):
        sql.append("CREATE TABLE %s (id BIGINT, num INT, price INT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), "
                   "WATERMARK FOR ts AS %s) WITH ('connector' = 'filesystem', 'path' = '%s.json', "
                   "'format' = 'json');" % (name, wm, name))
        case.write(name + ".json", "".join(json_line(r) + "\n" for r in rows))
    def iv(ms):
        # whole hours in HOUR: a day is 1440 minutes, more digits than
        # MINUTE's default leading precision (2) allows
        return "INTERVAL '%d' HOUR" % (ms // HOUR) if ms % HOUR == 0 else "INTERVAL '%d' MINUTE" % (ms // MIN)
    if kind == "TUMBLE":
        tvf = "TABLE(TUMBLE(TABLE %%s, DESCRIPTOR(ts), %s))" % iv(size)
    else:
        tvf = "TABLE(HOP(TABLE %%s, DESCRIPTOR(ts), %s, %s))" % (iv(slide), iv(size))
    for q in queries:
        sql.append("CREATE TABLE q%d (a BIGINT, b BIGINT, ws TIMESTAMP(3), we TIMESTAMP(3)) WITH ("
                   "'connector' = 'print', 'print-identifier' = 'q%d');" % (q["qid"], q["qid"]))
        sql.append("INSERT INTO q%d %s;" % (q["qid"], query_sql(q, tvf % "l", tvf % "r")))
    case.write("job.sql", "\n".join(sql) + "\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch), timeout=120)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    printed, probs = diffrun.print_inserts(p.stdout)
    got = {name: collections.Counter((num_or_none(a), num_or_none(b), wall_ms(ws), wall_ms(we))
                                     for a, b, ws, we in rows)
           for name, rows in printed.items()}
    lo = (min([r["ts"] for r in lrows + rrows], default=center) - 2 * DAY) // 1000
    hi = (max([r["ts"] for r in lrows + rrows], default=center) + 2 * DAY) // 1000
    chg = changes(z, lo, hi)
    lw = on_time(z, chg, lrows, delay, kind, size, slide)
    rw = on_time(z, chg, rrows, delay, kind, size, slide)
    for q in queries:
        what = "q%d (%s %s)" % (q["qid"], q["shape"], q.get("type", q.get("n", q.get("dir"))))
        probs += diffrun.multiset_problems(what, expected(q, lw, rw), got.get("q%d" % q["qid"], collections.Counter()))
        case.counts[q["shape"] + " queries"] += 1
    case.counts["rows"] += len(lrows) + len(rrows)
    return probs


if __name__ == "__main__":
    sys.exit(diffrun.main("window_tz_diff", run_case, jobs_env="WEIR_WTZ_JOBS", jobs=12, asan_jobs=4,
                          one_env="WEIR_WTZ_JOB"))
