#!/usr/bin/env python3
"""Randomized metamorphic test of sub-plan reuse (tests/test_reuse_diff.sh
runs it).

weir plans equal sub-plans once: a source, calc or aggregation whose digest
(its input node and its parameters) equals one already in the job reads that
operator instead of adding its own (docs/sql.md, Sub-plan reuse). A digest
that leaves out something that decides the values merges two different
operators, and one INSERT silently gets the other's rows. Reuse must never
change a row, so the oracle is each query run alone: a case draws a base
query over one bounded source (a JSON file or datagen, each with a
watermark, or a table partitioned into folders) and near-duplicates of it
that each change one thing that decides values - the window's kind, size,
slide, offset or gap, or its GROUP BY function form; the GROUP BY keys
(order, one more, one fewer) or their grouping sets; an aggregate's
function, argument, DISTINCT, FILTER or LISTAGG separator; HAVING; a WHERE
literal (on the partition column too: pruned folders); a Top-N's N, order or
partition; a deduplication's order; a join's condition or type; an OVER
aggregation's function, partition, frame (ROWS or RANGE) or bound; a window
Top-N's (over a window table function or a window aggregation) N, order,
partition, rank function or window; an interval join's bounds or a window
join's window (both also their type and keys); an OPTIONS
hint on the table (another path, datagen seed or bound); a STATE_TTL hint;
UNION against UNION ALL; DISTINCT - adds the base once more unchanged, runs
them all as the INSERTs of one job and each alone in a job of its own (with
the same job settings: mini-batch, two phases, split distinct aggregation,
drawn per case), and compares every sink's rows, an updating sink's
changelog folded into its final table, with its query's alone. The exact
duplicate must show as Reused in EXPLAIN, so the test knows reuse happens.
What it cannot see: a STATE_TTL longer than the job decides no row, and a
text that reads like the digest's own delimiters (golden
reuse_digest_texts) is not drawn.
"""
import collections
import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

KEYS = ["k", "g"]


def file_source(name, path):
    return ("CREATE TABLE %s (id INT, k STRING, g INT, v INT, ts TIMESTAMP(3), "
            "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', "
            "'path' = '%s', 'format' = 'json');" % (name, path))


def parted_source(name, path):
    # partitioned by dt (a folder per value): a WHERE on dt prunes the folders it reads
    return ("CREATE TABLE %s (id INT, k STRING, g INT, v INT, ts TIMESTAMP(3), dt STRING) PARTITIONED BY (dt) "
            "WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');" % (name, path))


def write_parted(folder, json_path):
    """The rows of json_path under folder/dt=a, dt=b, dt=c (by id), without the dt field."""
    with open(json_path) as f:
        rows = [json.loads(line) for line in f]
    for d in "abc":
        os.makedirs(os.path.join(folder, "dt=" + d), exist_ok=True)
        with open(os.path.join(folder, "dt=" + d, "part-0.json"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows if "abc"[r["id"] * 7 % 3] == d)


def datagen_source(name, rows, seed):
    # k and g as text and numbers of few values, v random, ts a function of the row number
    return ("CREATE TABLE %s (id BIGINT, g INT, v INT, k AS CAST(g + 1 AS STRING), "
            "ts AS TO_TIMESTAMP_LTZ(id * 700, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
            "WITH ('connector' = 'datagen', 'number-of-rows' = '%d', 'seed' = '%d', "
            "'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '100000', "
            "'fields.g.min' = '0', 'fields.g.max' = '2', 'fields.v.min' = '-4', 'fields.v.max' = '12', "
            "'fields.v.null-rate' = '0.1');" % (name, rows, seed))


def write_rows(path, rng, n):
    """n JSON rows with ids 0.., out of order by less than the watermark's second."""
    t = 1704067200000
    with open(path, "w") as f:
        for i in range(n):
            t += rng.choice([0, 300, 700, 1500, 2500])
            ts = t + rng.randrange(0, 900)
            f.write(json.dumps({"id": i, "k": rng.choice("abc"), "g": rng.randint(0, 2),
                                "v": None if rng.random() < 0.1 else rng.randint(-4, 12),
                                "ts": "%s.%03d" % (fmt_ms(ts), ts % 1000)}) + "\n")


def fmt_ms(ms):
    return datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


class Query:
    """A query as its parts; near-duplicates copy it and change one part."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def copy(self, **kw):
        d = dict(self.__dict__)
        d.update(kw)
        return Query(**d)


def src_ref(q):
    return q.table + (" /*+ OPTIONS(%s) */" % q.hint if q.hint else "")


# ---- window aggregation (window TVF) ------------------------------------------------------------------

def win_text(q):
    kind, a, b, off = q.win
    if kind == "TUMBLE":
        args = "INTERVAL '%d' SECOND" % a
    elif kind == "SESSION":
        # sessions are formed per group: a PARTITION BY names exactly the GROUP BY keys (others are refused)
        keys = list(getattr(q, "group_keys", ()) or ())
        part = ""
        if keys and all(re.fullmatch(r"\w+", k) for k in keys):
            part = " PARTITION BY %s" % (keys[0] if len(keys) == 1 else "(%s)" % ", ".join(keys))
        return "SESSION(TABLE %s%s, DESCRIPTOR(ts), INTERVAL '%d' SECOND)" % (src_ref(q), part, a)
    else:
        args = "INTERVAL '%d' SECOND, INTERVAL '%d' SECOND" % (a, b)
    if off:
        args += ", INTERVAL '%d' SECOND" % off
    return "%s(TABLE %s, DESCRIPTOR(ts), %s)" % (kind, src_ref(q), args)


def agg_text(a):
    fn, arg, distinct, filt = a
    inner = "*" if arg == "*" else ("DISTINCT " if distinct else "") + arg
    return "%s(%s)%s" % (fn, inner, " FILTER (WHERE %s)" % filt if filt else "")


def draw_window(rng, sessions=True):
    kind = rng.choice(["TUMBLE", "HOP", "CUMULATE"] + (["SESSION"] if sessions else []))
    if kind == "TUMBLE":
        return (kind, rng.choice([2, 3, 5]), 0, rng.choice([0, 0, 1]))
    if kind in ("HOP", "CUMULATE"):
        size = rng.choice([4, 6])
        s = rng.choice([x for x in (1, 2, 3) if size % x == 0])
        return (kind, s, size, rng.choice([0, 0, 1]) if s > 1 and kind == "HOP" else 0)
    return (kind, rng.choice([1, 2, 3]), 0, 0)


# LISTAGG's separators (as SQL text): texts with the characters a digest writes between its parts
SEPS = ["'-'", "','", "'|'", "''''", "' AS '", "'sep'", "'x''|y'", "':'"]


def draw_agg(rng, listagg=False):
    """An aggregate call (function, argument, DISTINCT, FILTER); LISTAGG (its argument k and a
    separator) only where the rows of a key arrive in one order (the file read by one reader)."""
    if listagg and rng.random() < 0.2:
        return ("LISTAGG", "k, " + rng.choice(SEPS), False, rng.choice([None, "v > 2"]))
    fn = rng.choice(["COUNT", "SUM", "MIN", "MAX", "AVG"])
    arg = "*" if fn == "COUNT" and rng.random() < 0.4 else rng.choice(["v", "g", "id"])
    distinct = arg != "*" and fn in ("COUNT", "SUM") and rng.random() < 0.3
    filt = rng.choice([None, None, "v > %d" % rng.randint(-2, 6), "g <> %d" % rng.randint(0, 2)])
    return (fn, arg, distinct, filt)


def mutate_agg(rng, a, listagg=False):
    fn, arg, distinct, filt = a
    what = rng.choice(["fn", "arg", "distinct", "filter"])
    if fn == "LISTAGG" and what in ("fn", "arg", "distinct"):
        if what == "fn" and rng.random() < 0.3:
            return (rng.choice(["COUNT", "MAX", "MIN"]), "k", False, filt)
        return (fn, "k, " + rng.choice([x for x in SEPS if "k, " + x != arg]), False, filt)
    if listagg and what == "fn" and rng.random() < 0.2:
        return ("LISTAGG", "k, " + rng.choice(SEPS), False, filt)
    if what == "fn":
        fn = rng.choice([f for f in ["COUNT", "SUM", "MIN", "MAX", "AVG"] if f != fn])
        if arg == "*":
            arg = "v"
    elif what == "arg":
        arg = rng.choice([x for x in ["v", "g", "id"] if x != arg])
    elif what == "distinct" and arg != "*" and fn in ("COUNT", "SUM"):
        distinct = not distinct
    else:
        filt = rng.choice([x for x in [None, "v > 2", "v > 3", "g <> 1", "g <> 0"] if x != filt])
    return (fn, arg, distinct, filt)


def cond_text(col, n, qual=""):
    """col > n; over the partition column dt, a comparison with one of its values."""
    if col == "dt":
        return "%sdt %s '%s'" % (qual, "<>" if n % 2 else ">", "abc"[n % 3])
    return "%s%s > %d" % (qual, col, n)


def where_text(q):
    return " WHERE " + cond_text(*q.where) if q.where else ""


def having_text(q):
    return " HAVING COUNT(*) > %d" % q.having if q.having is not None else ""


def legacy_ok(q):
    """Whether the window has a GROUP BY window function form (no CUMULATE, no offset)."""
    return q.win[0] != "CUMULATE" and not q.win[3]


def window_sql(q):
    if q.legacy and legacy_ok(q):
        kind, a, b, _ = q.win
        args = ("ts, INTERVAL '%d' SECOND" % a if kind != "HOP"
                else "ts, INTERVAL '%d' SECOND, INTERVAL '%d' SECOND" % (a, b))
        items = list(q.keys) + ["%s_START(%s)" % (kind, args), "%s_END(%s)" % (kind, args)] + \
            [agg_text(x) for x in q.aggs]
        keys = list(q.group_keys) + ["%s(%s)" % (kind, args)]
        return "SELECT %s FROM %s%s GROUP BY %s%s" % (
            ", ".join(items), src_ref(q), where_text(q), ", ".join(keys), having_text(q))
    items = list(q.keys) + ["window_start", "window_end"] + [agg_text(a) for a in q.aggs]
    keys = list(q.group_keys) + ["window_start", "window_end"]
    return "SELECT %s FROM TABLE(%s)%s GROUP BY %s%s" % (
        ", ".join(items), win_text(q), where_text(q), ", ".join(keys), having_text(q))


def window_variant(rng, q):
    what = rng.choice(["kind", "size", "slide", "slide", "offset", "keys", "agg", "agg", "having", "where", "hint",
                       "legacy"])
    kind, a, b, off = q.win
    if what == "kind":
        # another kind with the same numbers where it takes them (HOP and CUMULATE of one slide and size)
        other = rng.choice([k for k in ("TUMBLE", "HOP", "CUMULATE", "SESSION") if k != kind])
        if kind in ("HOP", "CUMULATE") and rng.random() < 0.6:
            other = "HOP" if kind == "CUMULATE" else "CUMULATE"
        if kind in ("HOP", "CUMULATE") and other in ("HOP", "CUMULATE"):
            return q.copy(win=(other, a, b, 0)), "window kind"
        if other in ("TUMBLE", "SESSION"):
            return q.copy(win=(other, a if kind in ("TUMBLE", "SESSION") else b, 0, 0)), "window kind"
        return q.copy(win=draw_window(rng)), "window"
    if what == "size":
        return q.copy(win=(kind, a + 1, 0, off) if kind in ("TUMBLE", "SESSION") else (kind, a, b + a, off)), \
            "window size"
    if what == "slide" and kind in ("HOP", "CUMULATE"):
        s = [x for x in (1, 2, 3) if x != a and b % x == 0 and x < b]
        rng.shuffle(s)
        if s:
            return q.copy(win=(kind, s[0], b, off if off < s[0] else 0)), "window slide or step"
    if what == "offset" and kind in ("TUMBLE", "HOP") and (kind == "TUMBLE" or a > 1):
        return q.copy(win=(kind, a, b, 0 if off else 1)), "window offset"
    if what in ("keys", "having", "where", "hint"):
        return shared_variant(rng, q, what)
    if what == "legacy" and legacy_ok(q):
        return q.copy(legacy=not q.legacy), "GROUP BY window function or window table function"
    return agg_variant(rng, q)


def shared_variant(rng, q, what):
    """The changes window and group aggregations share: their keys, HAVING, WHERE or an OPTIONS hint."""
    if what == "keys":
        return keys_variant(rng, q)
    if what == "having":
        return q.copy(having=None if q.having is not None and rng.random() < 0.3 else (q.having or 0) + 1), "HAVING"
    if what == "where":
        return where_variant(rng, q)
    return hint_variant(rng, q)


def keys_variant(rng, q):
    keys = list(q.keys)
    how = rng.choice(["order", "more", "fewer"])
    if how == "order" and len(keys) > 1:
        return q.copy(group_keys=tuple(reversed(q.group_keys))), "GROUP BY order"
    if how == "fewer" and keys:
        k = rng.choice(keys)
        keys.remove(k)
        return q.copy(keys=tuple(keys), group_keys=tuple(keys)), "one key fewer"
    more = [k for k in KEYS if k not in keys]
    if more:
        keys.append(rng.choice(more))
        return q.copy(keys=tuple(keys), group_keys=tuple(keys)), "one key more"
    return q.copy(group_keys=tuple(reversed(q.group_keys))), "GROUP BY order"


def agg_variant(rng, q):
    aggs = list(q.aggs)
    i = rng.randrange(len(aggs))
    aggs[i] = mutate_agg(rng, aggs[i], q.table == "t")
    return q.copy(aggs=tuple(aggs)), "aggregate %d" % i


def where_variant(rng, q):
    if q.where and rng.random() < 0.7:
        return q.copy(where=(q.where[0], q.where[1] + rng.choice([-1, 1]))), "WHERE literal"
    if q.where:
        return q.copy(where=None), "no WHERE"
    return q.copy(where=(rng.choice(where_cols(q)), rng.randint(-1, 3))), "a WHERE"


def where_cols(q):
    return ["v", "g", "dt", "dt"] if q.table == "p" else ["v", "g"]


def hint_variant(rng, q):
    if q.table == "t":
        return q.copy(hint=None if q.hint else "'path' = 'in2.json'"), "OPTIONS path"
    if q.table == "p":
        return q.copy(hint=None if q.hint else "'path' = 'in_p2'"), "OPTIONS path"
    seed = rng.choice(["7", "8"])
    opts = rng.choice(["'seed' = '%s'" % seed, "'number-of-rows' = '%d'" % rng.randint(5, 30),
                       "'fields.v.max' = '%d'" % rng.randint(3, 9)])
    return q.copy(hint=None if q.hint and rng.random() < 0.3 else opts), "OPTIONS on datagen"


# ---- group aggregation --------------------------------------------------------------------------------

def group_sql(q):
    items = list(q.keys) + [agg_text(a) for a in q.aggs]
    ttl = "/*+ STATE_TTL('%s' = '%s') */ " % (q.table, q.ttl) if q.ttl else ""
    gb = " GROUP BY %s" % ", ".join(q.group_keys) if q.group_keys else ""
    keys = ", ".join(q.group_keys)
    if q.gsets == "ROLLUP" and q.group_keys:
        gb = " GROUP BY ROLLUP (%s)" % keys
    elif q.gsets == "CUBE" and q.group_keys:
        gb = " GROUP BY CUBE (%s)" % keys
    elif q.gsets == "SETS" and q.group_keys:
        # each key alone, and once more the first one: a set twice gives its rows twice
        gb = " GROUP BY GROUPING SETS (%s, (%s))" % (", ".join("(%s)" % k for k in q.group_keys), q.group_keys[0])
    return "SELECT %s%s FROM %s%s%s%s" % (ttl, ", ".join(items), src_ref(q), where_text(q), gb, having_text(q))


def group_variant(rng, q):
    what = rng.choice(["keys", "agg", "agg", "having", "where", "hint", "ttl", "sets"])
    if what == "sets":
        return q.copy(gsets=rng.choice([x for x in [None, "ROLLUP", "CUBE", "SETS"] if x != q.gsets])), \
            "grouping sets"
    if what in ("keys", "having", "where", "hint"):
        return shared_variant(rng, q, what)
    if what == "ttl":
        # a TTL far longer than the job decides nothing here: the rows must be the same, merged or not
        return q.copy(ttl=None if q.ttl else rng.choice(["1d", "2d"])), "STATE_TTL"
    return agg_variant(rng, q)


# ---- Top-N and deduplication --------------------------------------------------------------------------

def topn_sql(q):
    part = "PARTITION BY %s " % q.part if q.part else ""
    where = "rn <= %d" % q.n if q.n > 1 or not q.dedup else "rn = 1"
    cols = "id, k, v, rn" if q.show_rn else "id, k, v"
    return ("SELECT %s FROM (SELECT id, k, v, ROW_NUMBER() OVER (%sORDER BY %s) AS rn FROM %s%s) WHERE %s"
            % (cols, part, q.order, src_ref(q), where_text(q), where))


def topn_variant(rng, q):
    if q.dedup:
        what = rng.choice(["order", "part", "where", "hint"])
        if what == "order":
            return q.copy(order="ts ASC" if q.order == "ts DESC" else "ts DESC"), "first row or last row"
    else:
        what = rng.choice(["n", "order", "part", "where", "hint"])
        if what == "n":
            return q.copy(n=q.n + rng.choice([-1, 1]) if q.n > 1 else 2), "N"
        if what == "order":
            return q.copy(order=rng.choice([o for o in TOPN_ORDERS if o != q.order])), "ORDER BY"
    if what == "part":
        return q.copy(part=rng.choice([p for p in [None, "k", "g"] if p != q.part])), "PARTITION BY"
    if what == "where":
        return where_variant(rng, q)
    return hint_variant(rng, q)


TOPN_ORDERS = ["v DESC, id", "v ASC, id", "id DESC", "g DESC, id"]


# ---- joins --------------------------------------------------------------------------------------------

def join_sql(q):
    cond = " AND ".join("a.%s = b.%s" % (c, c) for c in q.on)
    if q.extra:
        cond += " AND " + q.extra
    return ("SELECT a.id, b.id, a.v, b.v FROM %s AS a %s JOIN %s AS b ON %s%s"
            % (src_ref(q), q.jtype, q.table + (" /*+ OPTIONS(%s) */" % q.hint_b if q.hint_b else ""), cond,
               " WHERE " + cond_text(q.where[0], q.where[1], "a.") if q.where else ""))


def join_variant(rng, q):
    what = rng.choice(["type", "on", "extra", "where", "hint", "hint_b"])
    if what == "type":
        return q.copy(jtype=rng.choice([j for j in ["INNER", "LEFT", "RIGHT", "FULL"] if j != q.jtype])), "join type"
    if what == "on":
        on = ("k",) if q.on != ("k",) else rng.choice([("g",), ("k", "g")])
        return q.copy(on=on), "join condition"
    if what == "extra":
        return q.copy(extra=rng.choice([e for e in [None, "a.v < b.v", "a.v > b.v", "a.id <> b.id"]
                                        if e != q.extra])), "join condition (non-equi part)"
    if what == "where":
        return where_variant(rng, q)
    if what == "hint_b" and q.table in ("t", "p"):
        return q.copy(hint_b=None if q.hint_b else "'path' = '%s'" % ("in2.json" if q.table == "t" else "in_p2")), \
            "OPTIONS on the right side"
    return hint_variant(rng, q)


# ---- set operations and DISTINCT ----------------------------------------------------------------------

def setop_sql(q):
    if q.setop == "DISTINCT":
        return "SELECT DISTINCT k, g FROM %s%s" % (src_ref(q), where_text(q))
    if q.setop == "PLAIN":
        return "SELECT k, g FROM %s%s" % (src_ref(q), where_text(q))
    return "SELECT k, g FROM %s%s %s SELECT k, g FROM %s WHERE v < %d" % (
        src_ref(q), where_text(q), q.setop, q.table, q.lit2)


def setop_variant(rng, q):
    what = rng.choice(["op", "op", "where", "lit2", "hint"])
    if what == "op":
        return q.copy(setop=rng.choice([o for o in ["UNION", "UNION ALL", "DISTINCT", "PLAIN"] if o != q.setop])), \
            "UNION, UNION ALL or DISTINCT"
    if what == "lit2" and q.setop.startswith("UNION"):
        return q.copy(lit2=q.lit2 + 1), "second branch's WHERE literal"
    if what == "where":
        return where_variant(rng, q)
    return hint_variant(rng, q)


# ---- OVER aggregation ---------------------------------------------------------------------------------

OVER_FNS = ["SUM(v)", "COUNT(v)", "MAX(v)", "MIN(v)", "AVG(v)", "COUNT(*)"]


def over_frame(q):
    if q.frame[0] == "ROWS":
        return "ROWS BETWEEN %d PRECEDING AND CURRENT ROW" % q.frame[1]
    return "RANGE BETWEEN INTERVAL '%d' SECOND PRECEDING AND CURRENT ROW" % q.frame[1]


def over_sql(q):
    part = "PARTITION BY %s " % q.part if q.part else ""
    return ("SELECT id, k, v, %s OVER (%sORDER BY ts %s) FROM %s%s"
            % (q.fn, part, over_frame(q), src_ref(q), where_text(q)))


def over_variant(rng, q):
    what = rng.choice(["fn", "part", "frame", "bound", "where", "hint"])
    if what == "fn":
        return q.copy(fn=rng.choice([f for f in OVER_FNS if f != q.fn])), "OVER function"
    if what == "part":
        return q.copy(part=rng.choice([p for p in [None, "k", "g"] if p != q.part])), "OVER PARTITION BY"
    if what == "frame":
        return q.copy(frame=("RANGE" if q.frame[0] == "ROWS" else "ROWS", q.frame[1])), "ROWS or RANGE"
    if what == "bound":
        return q.copy(frame=(q.frame[0], q.frame[1] + 1)), "frame bound"
    if what == "where":
        return where_variant(rng, q)
    return hint_variant(rng, q)


# ---- window Top-N (over a window table function or a window aggregation) ----------------------------

def wrank_sql(q):
    part = ", ".join(["window_start", "window_end"] + ([q.part] if q.part else []))
    if q.over_agg:
        # over a window aggregation: the aggregation below may be reused, the rank never
        inner = ("SELECT k, g, window_start, window_end, SUM(v) AS v, MAX(id) AS id FROM TABLE(%s)%s "
                 "GROUP BY k, g, window_start, window_end" % (win_text(q), where_text(q)))
    else:
        inner = "SELECT * FROM TABLE(%s)%s" % (win_text(q), where_text(q))
    return ("SELECT window_start, id, k, v, rn FROM (SELECT *, %s() OVER (PARTITION BY %s ORDER BY %s) AS rn "
            "FROM (%s)) WHERE rn <= %d" % (q.rankfn, part, q.order, inner, q.n))


def wrank_variant(rng, q):
    what = rng.choice(["n", "order", "part", "fn", "window", "where", "hint"])
    if what == "n":
        return q.copy(n=q.n + rng.choice([-1, 1]) if q.n > 1 else 2), "N"
    if what == "order":
        return q.copy(order=rng.choice([o for o in WRANK_ORDERS if o != q.order])), "ORDER BY"
    if what == "part":
        return q.copy(part=rng.choice([p for p in [None, "k", "g"] if p != q.part])), "PARTITION BY"
    if what == "fn":
        return q.copy(rankfn=rng.choice([f for f in ["ROW_NUMBER", "RANK", "DENSE_RANK"] if f != q.rankfn])), \
            "rank function"
    if what == "window":
        return q.copy(win=draw_window(rng, sessions=False)), "window"
    if what == "where":
        return where_variant(rng, q)
    return hint_variant(rng, q)


WRANK_ORDERS = ["v DESC, id", "v ASC, id", "id DESC"]


# ---- interval and window joins ------------------------------------------------------------------------

def tjoin_sql(q):
    other = q.table + (" /*+ OPTIONS(%s) */" % q.hint_b if q.hint_b else "")
    cond = " AND ".join("a.%s = b.%s" % (c, c) for c in q.on)
    if q.tj == "interval":
        lo, hi = q.bounds
        return ("SELECT a.id, b.id, a.v, b.v FROM %s AS a %s JOIN %s AS b ON %s AND a.ts BETWEEN "
                "b.ts - INTERVAL '%d' SECOND AND b.ts + INTERVAL '%d' SECOND%s"
                % (src_ref(q), q.jtype, other, cond, lo, hi,
                   " WHERE " + cond_text(q.where[0], q.where[1], "a.") if q.where else ""))
    win_b = win_text(q.copy(hint=q.hint_b))
    return ("SELECT a.id, b.id, a.v, b.v, COALESCE(a.window_start, b.window_start) FROM "
            "(SELECT * FROM TABLE(%s)%s) AS a %s JOIN (SELECT * FROM TABLE(%s)) AS b "
            "ON a.window_start = b.window_start AND a.window_end = b.window_end AND %s"
            % (win_text(q), where_text(q), q.jtype, win_b, cond))


def tjoin_variant(rng, q):
    what = rng.choice(["type", "on", "bounds", "where", "hint", "hint_b"])
    if what == "type":
        return q.copy(jtype=rng.choice([j for j in ["INNER", "LEFT", "RIGHT", "FULL"] if j != q.jtype])), "join type"
    if what == "on":
        on = ("k",) if q.on != ("k",) else rng.choice([("g",), ("k", "g")])
        return q.copy(on=on), "join condition"
    if what == "bounds":
        if q.tj == "interval":
            lo, hi = q.bounds
            return q.copy(bounds=(lo + 1, hi) if rng.random() < 0.5 else (lo, hi + 1)), "interval bounds"
        return q.copy(win=draw_window(rng, sessions=False)), "window"
    if what == "where":
        return where_variant(rng, q)
    if what == "hint_b" and q.table == "t":
        return q.copy(hint_b=None if q.hint_b else "'path' = 'in2.json'"), "OPTIONS on the right side"
    return hint_variant(rng, q)


FAMILIES = {
    "window": (window_sql, window_variant),
    "group": (group_sql, group_variant),
    "topn": (topn_sql, topn_variant),
    "join": (join_sql, join_variant),
    "setop": (setop_sql, setop_variant),
    "over": (over_sql, over_variant),
    "wrank": (wrank_sql, wrank_variant),
    "tjoin": (tjoin_sql, tjoin_variant),
}


def draw_base(rng, kind, table):
    q = Query(kind=kind, table=table, hint=None, where=None, having=None, ttl=None)
    if rng.random() < 0.4:
        q.where = (rng.choice(where_cols(q)), rng.randint(-1, 3))
    if kind in ("window", "group"):
        keys = tuple(rng.sample(KEYS, rng.randint(0, 2)))
        q.keys = q.group_keys = keys
        q.aggs = tuple(draw_agg(rng, table == "t") for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.3:
            q.having = rng.randint(0, 2)
        if kind == "window":
            q.win = draw_window(rng)
            q.legacy = rng.random() < 0.25
            if q.win[0] == "SESSION" and "k" not in keys:
                # a session window partitioned by k groups by k
                q.keys = q.group_keys = ("k",) + keys
        else:
            q.gsets = rng.choice([None, None, "ROLLUP", "CUBE", "SETS"])
            if rng.random() < 0.3:
                q.ttl = "1d"
    elif kind == "topn":
        q.dedup = table != "p" and rng.random() < 0.4  # p has no time attribute
        q.part = rng.choice([None, "k", "g"]) if not q.dedup else rng.choice(["k", "g"])
        q.order = rng.choice(["ts ASC", "ts DESC"]) if q.dedup else rng.choice(TOPN_ORDERS)
        q.n = 1 if q.dedup else rng.randint(1, 3)
        q.show_rn = not q.dedup and rng.random() < 0.5
    elif kind == "join":
        q.jtype = rng.choice(["INNER", "LEFT", "RIGHT", "FULL"])
        q.on = rng.choice([("k",), ("g",), ("k", "g")])
        q.extra = rng.choice([None, None, "a.v < b.v", "a.id <> b.id"])
        q.hint_b = None
    elif kind == "over":
        q.fn = rng.choice(OVER_FNS)
        q.part = rng.choice([None, "k", "g"])
        q.frame = (rng.choice(["ROWS", "RANGE"]), rng.randint(0, 3))
    elif kind == "wrank":
        q.win = draw_window(rng, sessions=False)
        q.over_agg = rng.random() < 0.4
        q.part = rng.choice([None, "k", "g"])
        q.order = rng.choice(WRANK_ORDERS)
        q.rankfn = rng.choice(["ROW_NUMBER", "ROW_NUMBER", "RANK", "DENSE_RANK"])
        q.n = rng.randint(1, 3)
    elif kind == "tjoin":
        q.tj = rng.choice(["interval", "window"])
        q.jtype = rng.choice(["INNER", "LEFT", "RIGHT", "FULL"])
        q.on = rng.choice([("k",), ("g",), ("k", "g")])
        q.bounds = (rng.randint(0, 2), rng.randint(0, 2))
        q.win = draw_window(rng, sessions=False)
        q.hint_b = None
    else:
        q.setop = rng.choice(["UNION", "UNION ALL", "DISTINCT", "PLAIN"])
        q.lit2 = rng.randint(0, 6)
    return q


def fix(q):
    """A variant that the SQL cannot say as drawn, made sayable (a SESSION window groups by its partition key)."""
    if q.kind == "window" and q.win[0] == "SESSION" and "k" not in q.keys:
        q = q.copy(keys=("k",) + tuple(q.keys), group_keys=("k",) + tuple(q.group_keys))
    if q.kind == "window" and q.win[0] == "SESSION":
        q = q.copy(group_keys=("k",) + tuple(x for x in q.group_keys if x != "k"))
    return q


def n_columns(q):
    if q.kind in ("window", "group"):
        return len(q.keys) + (2 if q.kind == "window" else 0) + len(q.aggs)
    if q.kind == "topn":
        return 4 if q.show_rn else 3
    if q.kind in ("join", "over") or (q.kind == "tjoin" and q.tj == "interval"):
        return 4
    if q.kind in ("tjoin", "wrank"):
        return 5
    return 2


def insert(name, q):
    n = n_columns(q)
    sql = FAMILIES[q.kind][0](q)
    cols = ", ".join("CAST(c%d AS STRING)" % i for i in range(n))
    return ("INSERT INTO %s SELECT %s FROM (%s) AS x (%s);"
            % (name, cols, sql, ", ".join("c%d" % i for i in range(n))))


def sink(name, q):
    n = n_columns(q)
    return ("CREATE TABLE %s (%s) WITH ('connector' = 'print', 'print-identifier' = '%s');"
            % (name, ", ".join("c%d STRING" % i for i in range(n)), name))


def final_tables(stdout):
    """{sink: Counter of rows} with every changelog folded into its final table, and problems."""
    tables, problems = collections.defaultdict(collections.Counter), []
    for line in stdout.splitlines():
        head, _, rest = line.partition("> ")
        kind = rest[:3]
        if kind not in ("+I[", "+U[", "-U[", "-D[") or not rest.endswith("]"):
            problems.append("unexpected line: " + line)
            continue
        t = tables[head.split(":")[0]]
        t[rest[3:-1]] += 1 if kind[0] == "+" else -1
    for name, t in tables.items():
        neg = [r for r, c in t.items() if c < 0]
        if neg:
            problems.append("%s: retracts rows it never had: %s" % (name, neg[:5]))
        tables[name] = collections.Counter({r: c for r, c in t.items() if c > 0})
    return tables, problems


def run_case(case):
    rng = case.rng
    write_rows(case.path("in.json"), rng, case.args.rows)
    write_rows(case.path("in2.json"), rng, case.args.rows)
    write_parted(case.path("in_p"), case.path("in.json"))
    write_parted(case.path("in_p2"), case.path("in2.json"))
    kind = rng.choice(["window"] * 3 + ["group"] * 2 + ["topn", "join", "setop", "over", "wrank", "tjoin"])
    # p: a partitioned table with no watermark (its folders are read one after another)
    timed = kind in ("window", "over", "wrank", "tjoin")
    table = rng.choice(["d", "t", "t"] + (["p", "p"] if not timed else []))
    base = draw_base(rng, kind, table)
    queries, whats = [base], ["base"]
    for _ in range(rng.randint(2, 4)):
        q, what = FAMILIES[kind][1](rng, base)
        queries.append(fix(q))
        whats.append(what)
    queries.append(base)  # the exact duplicate: must be Reused
    whats.append("exact duplicate")
    # settings of the whole job (the same alone): they change the plan (local and global phases, a split
    # distinct aggregation, mini-batches) and so what the digests of its aggregations hold
    sets = [x for x in ["SET 'table.exec.mini-batch.enabled' = 'true';",
                        "SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';",
                        "SET 'table.optimizer.distinct-agg.split.enabled' = 'true';"] if rng.random() < 0.25]
    ddl = sets + [file_source("t", "in.json"), datagen_source("d", case.args.rows, rng.randint(0, 5)),
                  parted_source("p", "in_p")]
    par = rng.choice([1, 2])
    case.note = "(%s over %s, %d queries, parallelism %d)" % (kind, table, len(queries), par)
    case.write("job.sql", "\n".join(ddl + [sink("q%d" % i, q) for i, q in enumerate(queries)] +
                                    ["EXECUTE STATEMENT SET BEGIN"] +
                                    [insert("q%d" % i, q) for i, q in enumerate(queries)] + ["END;"]) + "\n")
    opts = ["-D", "parallelism.default=%d" % par]
    ex = case.run_weir(["explain", "job.sql"] + opts)
    if ex.returncode != 0:
        return [diffrun.failed_run(ex) + " (explain)"]
    problems = []
    top = {"window": "WindowAggregate", "group": "GroupAggregate"}.get(kind, "source")
    if not any(line.strip().startswith("Reused[") and top in line for line in ex.stdout.splitlines()):
        problems.append("EXPLAIN shows no Reused %s for the exact duplicate" % top)
    r = case.run_weir(["run", "job.sql"] + opts)
    if r.returncode != 0:
        return [diffrun.failed_run(r)]
    together, pr = final_tables(r.stdout)
    problems += pr
    for i, q in enumerate(queries):
        alone = "alone%d" % i
        os.makedirs(case.path(alone), exist_ok=True)
        job = sets + [file_source("t", "../in.json"), ddl[len(sets) + 1], parted_source("p", "../in_p"),
                      sink("q%d" % i, q), insert("q%d" % i, q)]
        case.write(os.path.join(alone, "job.sql"),
                   "\n".join(job).replace("'in2.json'", "'../in2.json'").replace("'in_p2'", "'../in_p2'") + "\n")
        ra = case.run_weir(["run", "job.sql"] + opts, cwd=case.path(alone))
        if ra.returncode != 0:
            return problems + [diffrun.failed_run(ra) + " (alone: query %d)" % i]
        want, pr = final_tables(ra.stdout)
        problems += pr
        case.counts["queries"] += 1
        name = "q%d" % i
        problems += diffrun.multiset_problems("query %d (%s) %s" % (i, whats[i], FAMILIES[kind][0](q)),
                                              want.get(name, collections.Counter()),
                                              together.get(name, collections.Counter()))
    case.counts["rows"] += sum(sum(t.values()) for t in together.values())
    case.counts["%s rows" % kind] += sum(sum(t.values()) for t in together.values())
    return problems


def main():
    def add(ap):
        ap.add_argument("--rows", type=int, default=int(os.environ.get("WEIR_REUSEDIFF_ROWS", "24")))
    return diffrun.main("reuse_diff", run_case, jobs_env="WEIR_REUSEDIFF_JOBS", jobs=40, asan_jobs=12,
                        one_env="WEIR_REUSEDIFF_JOB", add_args=add)


if __name__ == "__main__":
    sys.exit(main())
