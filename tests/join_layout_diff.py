#!/usr/bin/env python3
"""Randomized differential test of the rows a join keeps in its state and
gives back: every column of both sides in the output, key columns of
every type, in any order, repeated.

A side whose input is insert-only and that counts no associations keeps
its rows in a row log whose elements leave out the key columns (the
probing row's key, equal bytes, gives them back), and, on a side bounded
by the watermark, keep the row's time before the row when the time is
not a column the element holds (the time a key column). An outer side
and an interval join's sides keep map entries instead. This test draws
joins over the same keys in all these layouts and checks every output
column against a Python oracle that shares no code with weir.

Each case: two JSON inputs l and r with the same columns in two
independent random orders,

    id INT, k0 .. kn-1 (the key columns), [kk: a second column of the type
    of one key, on one side], v STRING, ts TIMESTAMP(p), WATERMARK ts

ts of precision 0 to 3 (weir keeps milliseconds whatever p), its rows
from 2026, from 1900 or from just before 1970 (times before 1970, windows
of negative starts); the key types drawn from TINYINT, SMALLINT, INT,
BIGINT, DECIMAL(p, s) (p up to 38: 128-bit past 18), DOUBLE (-0.0 meeting
0.0 and kept apart in the output, NaN, infinities), STRING, VARCHAR(n)
and CHAR(n) (empty, long, non-ASCII; CHAR is not padded, "a" and "a "
apart, as Flink's JSON format reads them), BYTES, VARBINARY(n) and
BINARY(n) (base64 in JSON; empty, zero bytes, 0xff, 256 bytes; not
padded either), TIMESTAMP(p) (before 1970 too), DATE (day 1 to 9999-12-31),
TIME(p) (cut to p digits as it is read, so that values meet only once
cut) and BOOLEAN, NULL keys among them; composite keys of 1 to 3
columns mixing types; now and then a repeated key column (l.k0 = r.k0
AND l.k0 = r.kk, or l.k0 = r.k0 AND l.kk = r.k0). Then a statement set
of random queries, each into a debezium-json file, each selecting a
random list of both sides' columns (key columns often twice, the time
now and then not at all):

    regular    l [INNER|LEFT|RIGHT|FULL] JOIN r ON the keys (each '=' or
               IS NOT DISTINCT FROM), with no residual, one over ids, or
               one reading a stored side's key column
    interval   the same with l.ts BETWEEN r.ts - a AND r.ts + b ('=' keys)
    bounded    l JOIN a window aggregation of r grouped by its keys
               (MAX(id), window_start, window_end) ON the keys AND
               l.ts BETWEEN a.we - x AND a.we (or a JOIN l: l the join's
               right input): l's rows are dropped as the watermark
               passes; often the time is a key too (l.ts = a.ws), which
               the row log leaves out of the row and keeps before it
               (fingerprint "left+time-key" / "right+time-key"); l.ts is
               then always output (once or twice): the time written back
               from a.ws is checked to the millisecond
    semi       SELECT l's columns FROM l WHERE [NOT] EXISTS (SELECT 1 FROM
               r WHERE the keys [AND a residual over ids]), or l.k [NOT] IN
               (SELECT r.k FROM r [WHERE the other keys, correlated]): the
               semi and anti joins' map entries with their counts

In about one job in six r is a debezium-json changelog instead (each row
inserted, now and then followed by an update of a row still there - new
keys and v, the same id - or its delete), keyed mostly by a DOUBLE k0
drawn from 0.0, -0.0, NaN and 1.5: its rows are map entries, updated and
removed by their bytes while the key meets -0.0 with 0.0; its queries are
regular and semi joins only, and their final rows must be the oracle's
over the rows r has at the end.

Each job runs at parallelism 1, 2 or 4 and batch size 1, 7 or 1024. In about
four cases in ten the job is stopped with a checkpoint mid-input
(SIGTERM once a checkpoint holds the first part of both inputs read
whole) and run to the end from it, at another parallelism, after the
rest of the input came: the result must be that of one run. Its q0 and
q1 are bounded joins on the time (l.ts = a.ws), l once on each side of
the join, mostly within 1 s (x = 1000); l's first part ends on a row at
the start of a window r has rows in, r's first part a window behind, the
key values fewer (mostly one a column) and the batches mostly small: l's
rows wait in the row log across the restore, the expiry buckets are
rebuilt from the times the elements hold before the row, and the
watermark moves on before the windows that meet them fire (a stored
time 1 s early fails about one job in 13; the count "restored with rows
of a bounded time-key join waiting" says how many jobs had such rows).

The oracle: nested loops. '=' meets no NULL and no NaN, -0.0 meets 0.0;
IS NOT DISTINCT FROM meets NULL with NULL (still no NaN); x IN S is
TRUE when some y of S equals x, x NOT IN S when x <> y is TRUE for every
y (S empty: TRUE whatever x; a NULL x or y: never TRUE; NaN <> NaN is
TRUE, -0.0 <> 0.0 is not); an interval
join's rows come in time order per input, so none is late; the window
aggregation's rows come in time order, so none is late either.

Usage: join_layout_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_LAYOUT_JOBS sets the count,
WEIR_LAYOUT_JOB=i runs one job (defaults: 30 jobs, 16 under ASan).
"""

import base64
import collections
import datetime
import decimal
import json
import math
import os
import re
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

decimal.getcontext().prec = 100
EPOCH = datetime.datetime(1970, 1, 1)
T0 = 1767225600000  # 2026-01-01 00:00:00 UTC, ms
BASES = [T0, T0, -2208988800000, -5000]  # the rows' first time: 2026, 1900, or just before 1970
SIZE = 1000  # the window of the bounded queries, ms
INTS = {"TINYINT": 7, "SMALLINT": 15, "INT": 31, "BIGINT": 63}
LONG = "x" * 300 + "\u00e9"


# --------------------------------------------------------------------------
# Types and values. A value in the oracle: int, Decimal, float, str, bool,
# or a TIMESTAMP's milliseconds since 1970 (int); None is NULL.

def draw_type(rng):
    k = rng.choice(["TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "DECIMAL", "DOUBLE", "DOUBLE", "STRING",
                    "VARCHAR", "CHAR", "TIMESTAMP", "TIMESTAMP", "BOOLEAN", "DATE", "TIME", "TIME", "BYTES",
                    "VARBINARY", "BINARY"])
    if k == "DECIMAL":
        p = rng.choice([1, 5, 18, 19, 28, 38])
        return (k, p, rng.randint(0, p))
    if k in ("VARCHAR", "VARBINARY"):
        return (k, rng.choice([1, 4, 400]))
    if k in ("CHAR", "BINARY"):
        return (k, rng.choice([1, 2, 3, 10]))
    if k == "TIMESTAMP":
        return (k, rng.choice([0, 3, 6, 9]))
    if k == "TIME":
        return (k, rng.choice([0, 1, 2, 3, 9]))
    return (k,)


def sql_type(t):
    if t[0] == "DECIMAL":
        return "DECIMAL(%d, %d)" % (t[1], t[2])
    if len(t) == 2:
        return "%s(%d)" % t
    return t[0]


def value_pool(rng, t):
    """A few values of type t, so that keys meet often."""
    k = t[0]
    if k in INTS:
        b = INTS[k]
        vals = [0, 1, -1, 7, 2 ** b - 1, -2 ** b]
    elif k == "DECIMAL":
        p, s = t[1], t[2]
        q = Decimal(1).scaleb(-s)
        top = Decimal(10) ** (p - s) - q  # the largest value the type holds
        vals = [Decimal(0).quantize(q), top, -top, q, -q]
        vals += [Decimal(rng.randint(-10 ** p + 1, 10 ** p - 1)).scaleb(-s) for _ in range(3)]
    elif k == "DOUBLE":
        vals = [0.0, -0.0, 1.5, -2.25, 1e300, float("nan"), float("inf"), float("-inf"), 0.1]
    elif k in ("STRING", "VARCHAR"):
        vals = ["", "a", "ab", "A", " a", "\u00e9\u00e8", "7", LONG, "x" * 40]
        if k == "VARCHAR":
            vals = [v for v in vals if len(v) <= t[1]]
    elif k == "CHAR":  # CHAR(n) is a STRING: no padding, "a" and "a " apart (as Flink's JSON reads them)
        vals = [v for v in ["", "a", "a ", " a", "ab", "\u00e9", "abc", "a" * 10] if len(v) <= t[1]]
    elif k in ("BYTES", "VARBINARY", "BINARY"):  # BINARY(n) as VARBINARY: no padding
        vals = [b"", b"\x00", b"\x00\x00", b"\xff", b"a", b"a\x00", b"\x80\xfe", bytes(range(256))]
        if k != "BYTES":
            vals = [v for v in vals if len(v) <= t[1]]
    elif k == "TIMESTAMP":
        vals = [T0, T0 + 123, T0 + 1000, -1, -1500, 0, 253402300799999]
    elif k == "DATE":  # days since 1970
        vals = [0, -1, 20454, 20455, -25567, -719162, 2932896]
    elif k == "TIME":  # milliseconds of the day, some equal only once cut to p digits
        vals = [0, 1, 999, 45296789, 45296780, 45296700, 45296000, 86399999]
    else:
        vals = [True, False]
    vals = rng.sample(vals, min(len(vals), rng.randint(2, 5)))
    if k == "TIME":  # the value read: TIME(p) keeps p digits of the fraction (at most 3)
        cut = 10 ** (3 - min(t[1], 3))
        vals = [v - v % cut for v in vals]
    return vals


def json_value(t, v):
    if v is None:
        return None
    if t[0] == "DECIMAL":
        return str(v)
    if t[0] == "DOUBLE":
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if t[0] == "TIMESTAMP":
        return ts_text(v)
    if t[0] == "DATE":
        return (EPOCH.date() + datetime.timedelta(days=v)).isoformat()
    if t[0] == "TIME":
        return "%02d:%02d:%02d.%03d" % (v // 3600000, v // 60000 % 60, v // 1000 % 60, v % 1000)
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    return v


def ts_text(ms):
    d = EPOCH + datetime.timedelta(milliseconds=ms)
    return "%04d-%02d-%02d %02d:%02d:%02d.%03d" % (d.year, d.month, d.day, d.hour, d.minute, d.second,
                                                   d.microsecond // 1000)


def out_value(t, text):
    """A value of the output (read with numbers as text) as the oracle holds it."""
    if text is None:
        return None
    k = t[0]
    if k in INTS or k == "INT":
        return int(text)
    if k == "DECIMAL":
        return Decimal(text)
    if k == "DOUBLE":
        return float(text)
    if k == "TIMESTAMP":
        m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})", text)
        if not m:
            raise ValueError("not a TIMESTAMP with milliseconds: %r" % text)
        d = datetime.datetime(*map(int, m.groups()[:6]), microsecond=int(m.group(7)) * 1000)
        return (d - EPOCH) // datetime.timedelta(milliseconds=1)
    if k == "DATE":
        return (datetime.date.fromisoformat(text) - EPOCH.date()).days
    if k == "TIME":  # the fraction's digits without trailing zeros, none when it is 0
        m = re.fullmatch(r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?", text)
        if not m or (m.group(4) or "1")[-1] == "0":
            raise ValueError("not a TIME as weir writes it: %r" % text)
        h, mi, sec = int(m.group(1)), int(m.group(2)), int(m.group(3))
        return ((h * 60 + mi) * 60 + sec) * 1000 + int((m.group(4) or "0").ljust(3, "0"))
    if k in ("BYTES", "VARBINARY", "BINARY"):
        return base64.b64decode(text, validate=True)
    return text


def canon(v):
    """A value as compared in the result: a DOUBLE by its text (-0.0 apart from 0.0, NaN equal to NaN)."""
    return repr(v) if isinstance(v, float) else v


def equal(a, b):
    """SQL's a = b of two values of one type (None: NULL): no NULL, no NaN meets; -0.0 meets 0.0."""
    return a is not None and b is not None and a == b


def not_distinct(a, b):
    return (a is None and b is None) or equal(a, b)


# --------------------------------------------------------------------------
# The job

class Col:
    def __init__(self, name, t):
        self.name, self.t = name, t


def draw_tables(rng):
    """The key types, and each side's columns in an order of its own; kk
    (a second column of a key's type) on one side or none; ts a
    TIMESTAMP(p), p 0 to 3 (weir keeps milliseconds whatever p)."""
    keys = [draw_type(rng) for _ in range(rng.choice([1, 1, 2, 2, 3]))]
    cols = [Col("id", ("INT",))] + [Col("k%d" % i, t) for i, t in enumerate(keys)] + \
        [Col("v", ("STRING",)), Col("ts", ("TIMESTAMP", rng.choice([0, 1, 2, 3])))]
    kk = None
    if rng.random() < 0.3:
        kk = (rng.choice("lr"), rng.randrange(len(keys)))
    sides = {}
    for s in "lr":
        c = list(cols) + ([Col("kk", keys[kk[1]])] if kk and kk[0] == s else [])
        rng.shuffle(c)
        sides[s] = c
    return keys, sides, kk


def gen_rows(rng, side_cols, pools, kk, n, id0, base, ms0):
    rows, ms = [], ms0
    for i in range(n):
        r = {"id": id0 + i, "v": rng.choice(["p", "q", "", None]), "ts": base + ms}
        for c in side_cols:
            if c.name.startswith("k"):
                ki = int(c.name[1:]) if c.name != "kk" else kk[1]
                r[c.name] = None if rng.random() < 0.12 else rng.choice(pools[ki])
        rows.append(r)
        ms += rng.choice([0, 1, 3, 50, 200, 700])
        if rng.random() < 0.4:
            ms += -ms % SIZE  # on a window's start (l.ts = a.ws)
    return rows


def key_conds(rng, keys, kk, nsafe_ok):
    """The key conjuncts: (left column, right column, null-safe)."""
    conds = [("k%d" % i, "k%d" % i, nsafe_ok and rng.random() < 0.3) for i in range(len(keys))]
    if kk:
        side, ki = kk
        conds.append(("k%d" % ki, "kk", False) if side == "r" else ("kk", "k%d" % ki, False))
    rng.shuffle(conds)
    return conds


def gen_query(rng, keys, sides, kk, time_key, mirror=None, changelog=False):
    """A random query; time_key: a bounded one whose time is a key, where the bounds allow
    (mirror: l the join's right input, or its left; None: either); changelog: r
    updates (regular and semi joins only)."""
    kinds = ["regular", "regular", "regular", "interval", "bounded", "bounded", "semi", "semi"]
    if changelog:
        kinds = ["regular", "regular", "regular", "semi", "semi"]
    if any(t[0] == "DOUBLE" for t in keys) and not changelog:
        # a window aggregation's GROUP BY takes -0.0 and 0.0 for one group (and one NaN group)
        kinds.remove("bounded")
        time_key = False
    kind = "bounded" if time_key else rng.choice(kinds)
    q = {"kind": kind, "type": "INNER"}
    if kind in ("regular", "interval"):
        q["type"] = rng.choice(["INNER", "INNER", "LEFT", "RIGHT", "FULL"])
    if kind == "semi":
        q["type"] = rng.choice(["IN", "NOT IN", "EXISTS", "NOT EXISTS"])
    q["conds"] = key_conds(rng, keys, kk, kind in ("regular", "semi"))
    if kind == "semi" and q["type"].endswith("IN"):
        a, b, _ = q["conds"][0]
        q["conds"][0] = (a, b, False)  # x [NOT] IN (SELECT y ...): x = y, the others correlated
    if kind in ("regular", "semi"):
        q["residual"] = rng.choice([None, None, "ids", "key"] if kind == "regular" else [None, "ids"])
        q["rkey"] = rng.choice([c for _, c, _ in q["conds"]])
    if kind == "interval":
        q["a"], q["b"] = rng.choice([0, 1, 200, 1000]), rng.choice([0, 1, 200, 1000])
    if kind == "bounded":
        q["x"] = rng.choice([0, 1, SIZE // 2, SIZE, 3 * SIZE])
        # the time a key too: the rows of one key are those of one time, so which
        # expire when is only in question across a restore (the buckets are
        # rebuilt from the rows' times), where the first query of a job is one
        q["time_key"] = time_key or rng.random() < 0.4
        if q["time_key"]:
            # l.ts = a.ws can hold; restored, mostly SIZE: a row's time kept 1 s early
            # would let it go before the one window it meets fires
            q["x"] = rng.choice([SIZE, SIZE, SIZE, 3 * SIZE] if time_key else [SIZE, 3 * SIZE])
        # the bounded side l the join's right input (FROM a JOIN l) or its left
        q["mirror"] = rng.random() < 0.5 if mirror is None else mirror
    # the output: both ids, then a random list of both sides' columns, repeats allowed
    right = sides["r"]
    if kind == "bounded":  # the window aggregation's columns
        right = [c for c in right if c.name.startswith("k")] + [Col("id", ("INT",)), Col("ws", ("TIMESTAMP", 3)),
                                                                Col("we", ("TIMESTAMP", 3))]
    pool = [("l", c) for c in sides["l"]] + ([("r", c) for c in right] if kind != "semi" else [])
    out = [x for x in pool if x[1].name == "id"]
    out += [rng.choice(pool) for _ in range(rng.randint(1, 8))]
    out += [x for x in pool if x[1].name.startswith("k") and rng.random() < 0.5]
    if kind == "bounded" and q["time_key"]:
        # the time a key the row log leaves out: its elements hold it before the row,
        # and the output takes it from a.ws; written back exactly?
        out += [x for x in pool if x[0] == "l" and x[1].name == "ts"] * rng.randint(1, 2)
    elif kind == "bounded" and rng.random() < 0.5:
        out = [x for x in out if not (x[0] == "l" and x[1].name == "ts")]  # the bounded side's time not output
    rng.shuffle(out)
    q["out"] = out
    return q


def window_agg(names):
    """r's window aggregation, grouped by its key columns names."""
    keys = ", ".join(names)
    return ("(SELECT %s, MAX(id) AS id, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE r, "
            "DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND)) GROUP BY %s, window_start, window_end)" % (keys, SIZE, keys))


def query_sql(q, sides):
    cols = ", ".join("%s.%s" % (s, c.name) for s, c in q["out"])
    on = " AND ".join("l.%s %s r.%s" % (a, "IS NOT DISTINCT FROM" if ns else "=", b) for a, b, ns in q["conds"])
    k = q["kind"]
    if k == "semi":
        conds = ["l.%s %s r.%s" % (a, "IS NOT DISTINCT FROM" if ns else "=", b) for a, b, ns in q["conds"]]
        if q["residual"] == "ids":
            conds.append("MOD(l.id + r.id, 3) <> 0")
        if q["type"].endswith("EXISTS"):
            return "SELECT %s FROM l WHERE %s (SELECT 1 FROM r WHERE %s)" % (cols, q["type"], " AND ".join(conds))
        a, b, _ = q["conds"][0]
        return "SELECT %s FROM l WHERE l.%s %s (SELECT r.%s FROM r%s)" % (
            cols, a, q["type"], b, " WHERE " + " AND ".join(conds[1:]) if conds[1:] else "")
    if k == "regular":
        if q["residual"] == "ids":
            on += " AND MOD(l.id + r.id, 3) <> 0"
        elif q["residual"] == "key":
            on += " AND (r.%s IS NULL) <> (MOD(l.id + r.id, 2) = 0)" % q["rkey"]
        return "SELECT %s FROM l %s JOIN r ON %s" % (cols, q["type"], on)
    if k == "interval":
        return ("SELECT %s FROM l %s JOIN r ON %s AND l.ts BETWEEN r.ts - INTERVAL '%d' MILLISECOND AND "
                "r.ts + INTERVAL '%d' MILLISECOND" % (cols, q["type"], on, q["a"], q["b"]))
    rcols = sorted({b for _, b, _ in q["conds"]} | {c.name for c in sides["r"] if c.name.startswith("k")})
    on += " AND l.ts BETWEEN r.we - INTERVAL '%d' MILLISECOND AND r.we" % q["x"]
    if q["time_key"]:
        on += " AND l.ts = r.ws"
    if q["mirror"]:
        return "SELECT %s FROM %s r JOIN l ON %s" % (cols, window_agg(rcols), on)
    return "SELECT %s FROM l JOIN %s r ON %s" % (cols, window_agg(rcols), on)


# --------------------------------------------------------------------------
# The oracle

def windows(rrows, key_names):
    """The window aggregation of r: one row per (keys, window) with MAX(id), ws, we."""
    groups = {}
    for r in rrows:
        ws = r["ts"] - r["ts"] % SIZE
        g = tuple(canon(r[k]) for k in key_names) + (ws,)
        if g not in groups:
            groups[g] = dict({k: r[k] for k in key_names}, id=r["id"], ws=ws, we=ws + SIZE)
        else:
            groups[g]["id"] = max(groups[g]["id"], r["id"])
    return list(groups.values())


def expected(q, lrows, rrows, sides, pairs=None):
    """q's rows (a Counter); pairs, when a list, gets each pair (l, r) that meets."""
    k = q["kind"]
    if k == "bounded":
        names = sorted(c.name for c in sides["r"] if c.name.startswith("k"))
        rrows = windows(rrows, names)

    def meets(l, r, conds=q["conds"]):
        for a, b, ns in conds:
            if not (not_distinct if ns else equal)(l[a], r[b]):
                return False
        if k in ("regular", "semi") and q["residual"] == "ids":
            return (l["id"] + r["id"]) % 3 != 0
        if k == "regular" and q["residual"] == "key":
            return (r[q["rkey"]] is None) != ((l["id"] + r["id"]) % 2 == 0)
        if k == "interval":
            return r["ts"] - q["a"] <= l["ts"] <= r["ts"] + q["b"]
        if k == "bounded":
            return r["we"] - q["x"] <= l["ts"] <= r["we"] and (not q["time_key"] or l["ts"] == r["ws"])
        return True

    def row(l, r):
        vals = []
        for s, c in q["out"]:
            src = l if s == "l" else r
            vals.append(None if src is None else canon(src[c.name]))
        return tuple(vals)

    out = collections.Counter()
    if k == "semi":
        for l in lrows:
            if q["type"].endswith("EXISTS"):
                keep = any(meets(l, r) for r in rrows) == (q["type"] == "EXISTS")
            else:
                # x IN S: some y of S equal to x; x NOT IN S: x <> y TRUE for every y of S
                # (S empty: TRUE, a NULL x or y: never TRUE; NaN <> NaN is TRUE)
                (a, b, _), rest = q["conds"][0], q["conds"][1:]
                ys = [r[b] for r in rrows if meets(l, r, rest)]
                if q["type"] == "IN":
                    keep = any(equal(l[a], y) for y in ys)
                else:
                    keep = all(l[a] is not None and y is not None and not equal(l[a], y) for y in ys)
            if keep:
                out[row(l, None)] += 1
        return out
    return diffrun.nested_loop_join(q["type"], lrows, rrows, meets, row, pairs)


# --------------------------------------------------------------------------
# Running

def table_sql(name, cols, watched, fmt="json"):
    return ("CREATE TABLE %s (%s, WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '%s', "
            "'format' = '%s'%s);" % (name, ", ".join("%s %s" % (c.name, sql_type(c.t)) for c in cols), name, fmt,
                                     ", 'source.monitor-interval' = '20ms'" if watched else ""))


def job_sql(case, sides, queries, watched, changelog=False):
    sql = ["-- join_layout_diff seed %d job %d" % (case.seed, case.index),
           table_sql("l", sides["l"], watched), table_sql("r", sides["r"], watched,
                                                          "debezium-json" if changelog else "json")]
    for qi, q in enumerate(queries):
        sql.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');"
                   % (qi, ", ".join("c%d %s" % (i, sql_type(c.t)) for i, (_, c) in enumerate(q["out"])), qi))
    sql.append("EXECUTE STATEMENT SET BEGIN")
    sql += ["  INSERT INTO q%d %s;" % (qi, query_sql(q, sides)) for qi, q in enumerate(queries)]
    sql.append("END;")
    return "\n".join(sql) + "\n"


def write_rows(case, side, cols, rows, name):
    os.makedirs(case.path(side), exist_ok=True)
    tmp = case.path(side, "." + name)
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps({c.name: json_value(c.t, r[c.name]) for c in cols}) + "\n")
    os.rename(tmp, case.path(side, name))


def gen_changes(rng, rows, side_cols, pools, kk):
    """r as a changelog: each row inserted, now and then followed by an update
    of a row still there (new keys and v, the same id) or its delete. The
    changes (op, before, after) and the rows left at the end."""
    def updated(row):
        new = dict(row, v=rng.choice(["p", "q", "", None]))
        for c in side_cols:
            if c.name.startswith("k"):
                ki = int(c.name[1:]) if c.name != "kk" else kk[1]
                new[c.name] = None if rng.random() < 0.12 else rng.choice(pools[ki])
        return new
    return diffrun.random_changes(rng, rows, updated, 0.35)


def write_changes(case, side, cols, changes, name):
    os.makedirs(case.path(side), exist_ok=True)
    with open(case.path(side, name), "w") as f:
        for op, before, after in changes:
            f.write(json.dumps({"before": before and {c.name: json_value(c.t, before[c.name]) for c in cols},
                                "after": after and {c.name: json_value(c.t, after[c.name]) for c in cols},
                                "op": op}) + "\n")


def run_case(case):
    rng = case.rng
    n_l, n_r = rng.randint(0, 30), rng.randint(0, 30)
    restore = rng.random() < 0.4 and n_l > 1 and n_r > 1
    # r a debezium-json changelog: its rows stored in map entries, updated and
    # deleted by their bytes; keyed mostly by a DOUBLE (-0.0 and 0.0 one key, NaN)
    changelog = not restore and rng.random() < 0.25
    keys, sides, kk = draw_tables(rng)
    if changelog and rng.random() < 0.7:
        keys[0] = ("DOUBLE",)
        for s in "lr":
            sides[s] = [Col(c.name, ("DOUBLE",)) if c.name == "k0" or (c.name == "kk" and kk[1] == 0) else c
                        for c in sides[s]]
    pools = [value_pool(rng, t) for t in keys]
    if changelog and keys[0] == ("DOUBLE",):
        pools[0] = [0.0, -0.0, float("nan"), 1.5]
    if restore:
        # keys that meet often: rows that wait across the restore (the time spreads q0's and q1's keys)
        pools = [p[:1 if rng.random() < 0.75 else 2] for p in pools]
    base = rng.choice(BASES)
    lrows = gen_rows(rng, sides["l"], pools, kk, n_l, 1, base, rng.randint(0, 5))
    rrows = gen_rows(rng, sides["r"], pools, kk, n_r, 1001, base, rng.randint(0, 5))
    # stopped and restored: q0 and q1 join on the time (l.ts = a.ws), l once each side of the join
    first = rng.random() < 0.5
    queries = [gen_query(rng, keys, sides, kk, restore and i < 2, first == (i == 0) if i < 2 else None, changelog)
               for i in range(rng.randint(3, 6))]
    if changelog:
        changes, rrows = gen_changes(rng, rrows, sides["r"], pools, kk)
    par, batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024])
    if restore and rng.random() < 0.8:
        # small batches: the watermark goes on between the windows firing after the
        # restore, and drains the expiry buckets rebuilt from the stored times first
        batch = rng.choice([1, 7])
    case.note = "(keys %s%s, ts %s from %s, parallelism %d, batch %d%s)" % (
        ", ".join(sql_type(t) for t in keys), ", kk on %s of k%d" % kk if kk else "",
        sql_type(sides["l"][[c.name for c in sides["l"]].index("ts")].t), ts_text(base), par, batch,
        ", stopped and restored" if restore else ", r a changelog" if changelog else "")
    case.write("job.sql", job_sql(case, sides, queries, False, changelog))
    if restore:
        cut_l, cut_r = rng.randint(1, n_l - 1), rng.randint(1, n_r - 1)
        # l's last row before the stop on the start of a window that r has rows in (l.ts = a.ws)
        on_start = [i for i in range(1, n_l) if lrows[i - 1]["ts"] % SIZE == 0 and
                    any(0 <= r["ts"] - lrows[i - 1]["ts"] < SIZE for r in rrows[1:])]
        if on_start and rng.random() < 0.8:
            cut_l = rng.choice(on_start)
        if rng.random() < 0.85:
            # r's first part a window behind l's: l's last rows wait across the restore
            # for windows still to fire (and, bounded, in buckets rebuilt from their times)
            cut_r = min(max(1, sum(r["ts"] <= lrows[cut_l - 1]["ts"] - SIZE for r in rrows)), n_r - 1)
        write_rows(case, "l", sides["l"], lrows[:cut_l], "part0.json")
        write_rows(case, "r", sides["r"], rrows[:cut_r], "part0.json")
        case.write("watched.sql", job_sql(case, sides, queries, True))
        ended = diffrun.stop_for_restore(case, diffrun.engine_options(case, par, batch, case.rng.random() < 0.4))
        if ended is not None:
            return ended
        write_rows(case, "l", sides["l"], lrows[cut_l:], "part1.json")
        write_rows(case, "r", sides["r"], rrows[cut_r:], "part1.json")
        par = rng.choice([p for p in (1, 2, 4) if p != par])
        case.counts["stopped and restored at another parallelism"] += 1
        # q0's and q1's pairs whose l row waits in the row log across the restore: stored
        # before the stop, met by a window that fires after it
        pairs, r_wm = [], max(r["ts"] for r in rrows[:cut_r])
        for q in queries[:2]:
            expected(q, lrows, rrows, sides, pairs)
        waits = sum(l["id"] <= cut_l and r["we"] - 1 > r_wm for l, r in pairs if "we" in r)
        if queries[0]["kind"] == "bounded":
            case.counts["restored with rows of a bounded time-key join waiting%s" % ("" if waits else " (none)")] += 1
        opts = ["-D", "state.checkpoints.dir=ckpt"] + diffrun.engine_options(case, par, batch, rng.random() < 0.4)
    else:
        write_rows(case, "l", sides["l"], lrows, "part0.json")
        if changelog:
            write_changes(case, "r", sides["r"], changes, "part0.json")
            case.counts["r a changelog"] += 1
            case.counts["r's updates and deletes"] += sum(op != "c" for op, _, _ in changes)
        else:
            write_rows(case, "r", sides["r"], rrows, "part0.json")
        opts = diffrun.engine_options(case, par, batch)
    p = case.run_weir(["run", "job.sql"] + opts)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    if restore and "restoring from" not in p.stderr:
        return ["the last run did not restore the checkpoint: " + p.stderr[-600:]]
    problems = []
    for qi, q in enumerate(queries):
        what = "q%d (%s)" % (qi, query_sql(q, sides))
        names = ["c%d" % i for i in range(len(q["out"]))]
        try:
            folder = case.path("q%d" % qi)
            raw = diffrun.fold_debezium(folder, names, diffrun.committed_files(folder), numbers_as_text=True)
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        got = collections.Counter()
        for row, n in raw.items():
            got[tuple(canon(out_value(c.t, x)) for (_, c), x in zip(q["out"], row))] += n
        problems += diffrun.multiset_problems(what, expected(q, lrows, rrows, sides), got)
        case.counts["%s %s" % (q["kind"], q["type"])] += 1
    return problems


def main():
    return diffrun.main("join_layout_diff", run_case, jobs_env="WEIR_LAYOUT_JOBS", jobs=30, asan_jobs=16,
                        one_env="WEIR_LAYOUT_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
