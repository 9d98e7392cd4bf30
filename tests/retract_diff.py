#!/usr/bin/env python3
"""Randomized differential test of every aggregate function over an
updating (retracting) input.

Each job is one random debezium-json history of a table
t(id, k, v INT, d DOUBLE, e DOUBLE, m DECIMAL(10, 2), s STRING,
ts TIMESTAMP(3), b BOOLEAN, f INT) in one file - snapshot reads, creates,
updates that may change any column (the group key too, to and from NULL,
or nothing at all) and deletes, every update's "before" being the row as it
then is - and a batch of random GROUP BY queries (by k, or global) over it
whose aggregates are drawn from: COUNT(*), COUNT(x), SUM, AVG (INT, DOUBLE,
DECIMAL), the variance family, MIN/MAX of every type (STRING, DECIMAL,
DOUBLE with NaN and -0.0, TIMESTAMP before 1970 too, BOOLEAN),
FIRST_VALUE/LAST_VALUE, LISTAGG with and without a separator, COUNT/SUM/AVG/
MIN/MAX(DISTINCT), COLLECT, ARRAY_AGG (RESPECT/IGNORE NULLS, DISTINCT),
JSON_ARRAYAGG (ABSENT/NULL ON NULL), JSON_OBJECTAGG, PERCENTILE and
APPROX_PERCENTILE (within its documented alpha), each with or without
FILTER (WHERE ...). The view w over t turns e = 7.0 into NaN and 8.0 into
-Infinity. One query in
four reads an inner GROUP BY instead (whose results change as t does) and
takes only the functions whose result does not depend on arrival order.

The job runs at a random parallelism (1/2/4: one file is one split, so the
rows of a group reach its aggregation in file order), batch size, on the
memory or RocksDB backend, with table.exec.mini-batch.*,
table.optimizer.agg-phase-strategy and
table.optimizer.distinct-agg.split.enabled drawn at random. Each result is a
debezium-json changelog folded into its final table (a delete must find its
row) and compared with a Python model of each function's documented
retraction semantics (docs/aggregates.md, docs/sql.md, docs/functions.md),
which shares no code with weir: every function keeps the live values of its
group in arrival order; a retraction removes the oldest live equal value
(FIRST_VALUE/LAST_VALUE/LISTAGG/JSON_ARRAYAGG; ARRAY_AGG compares DOUBLEs
bit for bit, as Java's Double.equals in Flink's list); a group exists while
it holds a row (filtered-out rows included), a global aggregation has no
row once its table is empty. Variances and PERCENTILE are compared within
rounding (weir runs Welford's update, backwards for a retraction),
APPROX_PERCENTILE within 1%; everything else exactly, DECIMALs as numbers.

Where the changelog's order is defined - no split distinct aggregation, none
of those inexact results (whose rounding may make an equal result differ) -
it is checked
too: without mini-batch each input row's change of its group on its own
(nothing for a result that stays equal), row by row at one subtask and key
by key at several (one split: each key's rows arrive in file order; over
the inner GROUP BY, whose changelog is modelled the same way, at one
subtask only); with mini-batch at one subtask, key by key,
each batch's net change (a batch is weir.batch-size rows of the changelog,
an update being two), as docs/sql.md's "Updating results" says. One job in
six also checks that an aggregate that cannot run over this input
(LISTAGG/FIRST_VALUE/LAST_VALUE(DISTINCT ...), APPROX_COUNT_DISTINCT) is
refused when the job is planned, naming it.

restore_diff.py's "retract" family runs these jobs (gen_job, job_sql) with
checkpoints, stopped and restored part way through the history, and
checks their final tables (fold, model, compare).

Usage: retract_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_RETRACTDIFF_JOB=i runs one job;
WEIR_RETRACTDIFF_JOBS sets the number of jobs.
"""

import argparse
import collections
import decimal
import fractions
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
from dbzhist import envelope, gen_history, maybe  # noqa: E402

D = decimal.Decimal
decimal.getcontext().prec = 80
NAN = float("nan")
KEYS = ["a", "b", "c"]
# values that hold a separator too: LISTAGG cuts a retracted value out by its length
STRS = ["x", "y", "", "zz", "\u00e9t\u00e9", "q\"u", "Y", "a,b", "|", "-"]
# e: 7.0 becomes NaN and 8.0 -Infinity in the view w
EDGES = [0.0, -0.0, 7.0, 8.0, 1.5, -2.25, 1e300, -1e-300, 3.0]
DECS = ["0.00", "-0.01", "1.25", "-3.50", "999.99", "-1000.00", "12.34", "0.10"]
TSS = ["1969-12-31 23:59:59.999", "1970-01-01 00:00:00.000", "2020-02-29 12:00:00.001",
       "1900-01-01 00:00:00.000", "2038-01-19 03:14:08.500"]


def new_row(rng, i, nk):
    return {"id": i, "k": maybe(rng, 0.1, rng.choice(KEYS[:nk])),
            "v": maybe(rng, 0.15, rng.randint(-5, 20)),
            "d": maybe(rng, 0.15, rng.randint(-40, 40) / 4.0),
            "e": maybe(rng, 0.15, rng.choice(EDGES)),
            "m": maybe(rng, 0.15, rng.choice(DECS)),
            "s": maybe(rng, 0.15, rng.choice(STRS)),
            "ts": maybe(rng, 0.15, rng.choice(TSS)),
            "b": maybe(rng, 0.15, rng.random() < 0.5),
            "f": maybe(rng, 0.2, rng.randint(0, 5))}


def updated(nk):
    """An update's new row: unchanged (still a retraction and an add), one column changed, or a new row."""
    def up(rng, i, row):
        if rng.random() < 0.15:
            return dict(row)
        if rng.random() < 0.5:
            after = dict(row)
            c = rng.choice(["k", "v", "d", "e", "m", "s", "ts", "b", "f"])
            after[c] = new_row(rng, i, nk)[c]
            return after
        return new_row(rng, i, nk)
    return up


# ---- values as the model sees them ------------------------------------------------------------

def view_row(r):
    """A row of t as the view w gives it (e = 7.0 is NaN; m a Decimal)."""
    w = dict(r)
    if w["e"] == 7.0:
        w["e"] = NAN
    elif w["e"] == 8.0:
        w["e"] = -math.inf
    if w["m"] is not None:
        w["m"] = D(w["m"])
    return w


def canon(x):
    """docs/aggregates.md's equality and kept form: -0.0 is 0.0, one NaN."""
    if isinstance(x, float):
        if math.isnan(x):
            return ("nan",)
        return x + 0.0
    return x


def bits(x):
    """Java's Double.equals: bit for bit (NaN canonical from CAST)."""
    if isinstance(x, float):
        return ("nan",) if math.isnan(x) else struct.pack("<d", x)
    return x


def sort_key(x):
    if isinstance(x, float):
        return (1, 0.0) if math.isnan(x) else (0, x + 0.0)
    if isinstance(x, str):
        return x.encode("utf-8")
    return x


# ---- the aggregate functions: (SQL, sink type, model, order dependent?) --------------------------

def f_count(vals):
    return sum(1 for x in vals if x is not None)


def nn(vals):
    return [x for x in vals if x is not None]


def exact_sum(xs):
    if not xs:
        return None
    if isinstance(xs[0], D):
        return sum(xs, D(0))
    if isinstance(xs[0], float):
        return float(sum(fractions.Fraction(x) for x in xs))  # dyadic: exact in any order
    return sum(xs)


def f_sum(vals):
    return exact_sum(nn(vals))


def f_avg(vals):
    xs = nn(vals)
    if not xs:
        return None
    s = exact_sum(xs)
    if isinstance(s, D):
        return (s / len(xs)).quantize(D("0.000001"), rounding=decimal.ROUND_HALF_UP)
    if isinstance(s, float):
        return float(fractions.Fraction(s) / len(xs))
    q = abs(s) // len(xs)
    return q if s >= 0 else -q


def variance(xs, samp):
    n = len(xs)
    if n == 0 or (samp and n == 1):
        return None
    fx = [fractions.Fraction(x) for x in xs]
    mean = sum(fx) / n
    m2 = sum((x - mean) ** 2 for x in fx)
    return float(m2 / (n - 1 if samp else n))


def f_var(samp, sqrt):
    def f(vals):
        v = variance(nn(vals), samp)
        return None if v is None else ("approx", v, sqrt)
    return f


def f_min(vals):
    xs = nn(vals)
    return canon_out(min(xs, key=sort_key)) if xs else None


def f_max(vals):
    xs = nn(vals)
    return canon_out(max(xs, key=sort_key)) if xs else None


def canon_out(x):
    if isinstance(x, float):
        return x if math.isnan(x) else x + 0.0
    return x


def f_first(vals):
    xs = nn(vals)
    return canon_out(xs[0]) if xs else None


def f_last(vals):
    xs = nn(vals)
    return canon_out(xs[-1]) if xs else None


def f_percentile(p):
    """PERCENTILE(x, p): interpolated between the values of ranks floor and
    ceil of p (n - 1) (docs/sql.md), compared within rounding."""
    def f(vals):
        xs = sorted(fractions.Fraction(x) for x in nn(vals))
        if not xs:
            return None
        pos = fractions.Fraction(p) * (len(xs) - 1)
        lo, hi = math.floor(pos), math.ceil(pos)
        v = xs[lo] if lo == hi else (hi - pos) * xs[lo] + (pos - lo) * xs[hi]
        return ("approx", float(v), False)
    return f


def f_approx_percentile(p):
    """APPROX_PERCENTILE(x, p): within alpha = 0.01 of the value of rank
    floor(p (n - 1)) (docs/aggregates.md's guarantee; no bucket collapses
    over this data's range)."""
    def f(vals):
        xs = sorted(float(x) for x in nn(vals))
        if not xs:
            return None
        return ("within", xs[math.floor(fractions.Fraction(p) * (len(xs) - 1))], 0.01)
    return f


def f_listagg(sep):
    def f(vals):
        xs = nn(vals)
        return sep.join(xs) if xs else None
    return f


def distinct_vals(vals):
    seen = collections.OrderedDict()
    for x in nn(vals):
        seen.setdefault(canon(x), x)
    return list(seen.values())


def f_distinct(g):
    return lambda vals: g(distinct_vals(vals))


def f_collect(vals):
    return dict(collections.Counter(nn(vals)))


def f_array_agg(ignore_nulls):
    def f(vals):
        xs = nn(vals) if ignore_nulls else list(vals)
        return xs or None
    return f


class DistinctOrder:
    """ARRAY_AGG(DISTINCT x)'s list: a value enters at the end when its
    number of live rows goes from 0 to 1 and leaves when it drops back to 0
    (NULL is a value), as docs/sql.md says."""

    def __init__(self):
        self.count = collections.Counter()
        self.order = []

    def add(self, x):
        self.count[bits(x)] += 1
        if self.count[bits(x)] == 1:
            self.order.append(x)

    def retract(self, x):
        self.count[bits(x)] -= 1
        if self.count[bits(x)] == 0:
            del self.count[bits(x)]
            self.order = [y for y in self.order if bits(y) != bits(x)]


def f_array_agg_distinct(state):
    return list(state.order) or None


def json_str(x):
    return json.dumps(x, ensure_ascii=False)


def f_json_arrayagg(null_on_null):
    def f(vals):
        xs = [("null" if x is None else json_str(x)) for x in vals if x is not None or null_on_null]
        return "[" + ",".join(xs) + "]"
    return f


def f_json_objectagg(absent):
    def f(vals):
        pairs = [(kk, vv) for kk, vv in vals if not (absent and vv is None)]
        pairs.sort(key=lambda p: p[0].encode("utf-8"))
        return "{" + ",".join("%s:%s" % (json_str(kk), "null" if vv is None else json_str(vv))
                              for kk, vv in pairs) + "}"
    return f


# (sql text, sink type, model over the live argument values, removal equality, order dependent?)
# the argument is the column the text names in braces' place: each spec lists the columns it takes
NUM = {"v": "INT", "d": "DOUBLE", "m": "DECIMAL(10, 2)"}
SUM_T = {"v": "BIGINT", "d": "DOUBLE", "m": "DECIMAL(38, 2)"}
AVG_T = {"v": "INT", "d": "DOUBLE", "m": "DECIMAL(38, 6)"}
ALL_T = {"v": "INT", "d": "DOUBLE", "e": "DOUBLE", "m": "DECIMAL(10, 2)", "s": "STRING",
         "ts": "TIMESTAMP(3)", "b": "BOOLEAN"}


def specs():
    out = [("COUNT(*)", "BIGINT", "*", lambda vals: len(vals), False),
           ("COUNT(s)", "BIGINT", "s", f_count, False),
           ("COUNT(e)", "BIGINT", "e", f_count, False)]
    for c in NUM:
        out.append(("SUM(%s)" % c, SUM_T[c], c, f_sum, False))
        out.append(("AVG(%s)" % c, AVG_T[c], c, f_avg, False))
        for fn, samp, sq in (("VAR_POP", False, False), ("VAR_SAMP", True, False),
                             ("STDDEV_POP", False, True), ("STDDEV_SAMP", True, True)):
            out.append(("%s(%s)" % (fn, c), "DOUBLE", c, f_var(samp, sq), False))
    for c in ("v", "m"):
        out.append(("SUM(DISTINCT %s)" % c, SUM_T[c], c, f_distinct(f_sum), False))
        out.append(("AVG(DISTINCT %s)" % c, AVG_T[c], c, f_distinct(f_avg), False))
    for c in ("v", "e", "m", "s"):
        out.append(("COUNT(DISTINCT %s)" % c, "BIGINT", c, f_distinct(f_count), False))
    for c, t in ALL_T.items():
        out.append(("MIN(%s)" % c, t, c, f_min, False))
        out.append(("MAX(%s)" % c, t, c, f_max, False))
    for c in ("v", "s"):
        out.append(("MIN(DISTINCT %s)" % c, ALL_T[c], c, f_min, False))
        out.append(("MAX(DISTINCT %s)" % c, ALL_T[c], c, f_max, False))
    for c in ("v", "e", "m", "s", "ts", "b"):
        out.append(("FIRST_VALUE(%s)" % c, ALL_T[c], c, f_first, True))
        out.append(("LAST_VALUE(%s)" % c, ALL_T[c], c, f_last, True))
    for c, p in (("v", "0.3"), ("d", "0.5"), ("m", "0.75"), ("v", "1.0")):
        out.append(("PERCENTILE(%s, %s)" % (c, p), "DOUBLE", c, f_percentile(p), False))
    for c, p in (("v", "0.5"), ("d", "0.9")):
        out.append(("APPROX_PERCENTILE(%s, %s)" % (c, p), "DOUBLE", c, f_approx_percentile(p), False))
    out.append(("LISTAGG(s)", "STRING", "s", f_listagg(","), True))
    out.append(("LISTAGG(s, '|')", "STRING", "s", f_listagg("|"), True))
    out.append(("LISTAGG(s, '')", "STRING", "s", f_listagg(""), True))
    out.append(("LISTAGG(s, '--')", "STRING", "s", f_listagg("--"), True))
    out.append(("COLLECT(s)", "MULTISET<STRING>", "s", f_collect, False))
    out.append(("ARRAY_AGG(v)", "ARRAY<INT>", "v", f_array_agg(False), True))
    out.append(("ARRAY_AGG(v IGNORE NULLS)", "ARRAY<INT>", "v", f_array_agg(True), True))
    out.append(("ARRAY_AGG(e)", "ARRAY<DOUBLE>", "e", f_array_agg(False), True))
    out.append(("ARRAY_AGG(s IGNORE NULLS)", "ARRAY<STRING>", "s", f_array_agg(True), True))
    out.append(("ARRAY_AGG(DISTINCT v)", "ARRAY<INT>", "v", f_array_agg_distinct, True))
    out.append(("JSON_ARRAYAGG(v)", "STRING", "v", f_json_arrayagg(False), True))
    out.append(("JSON_ARRAYAGG(s NULL ON NULL)", "STRING", "s", f_json_arrayagg(True), True))
    out.append(("JSON_ARRAYAGG(s ABSENT ON NULL)", "STRING", "s", f_json_arrayagg(False), True))
    out.append(("JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE s)", "STRING", "id,s", f_json_objectagg(False),
                False))
    out.append(("JSON_OBJECTAGG(CAST(id AS STRING) VALUE v ABSENT ON NULL)", "STRING", "id,v",
                f_json_objectagg(True), False))
    return out


SPECS = specs()
FILTERS = [("f > 2", lambda r: r["f"] is not None and r["f"] > 2),
           ("f IS NULL", lambda r: r["f"] is None),
           ("f <> 1", lambda r: r["f"] is not None and r["f"] != 1),
           ("b", lambda r: r["b"] is True),
           ("v < f", lambda r: r["v"] is not None and r["f"] is not None and r["v"] < r["f"])]


def arg_of(spec, r):
    a = spec[2]
    if a == "*":
        return 1
    if "," in a:
        kk, vv = a.split(",")
        return (str(r[kk]), r[vv])
    return r[a]


def removal_key(spec, x):
    # ARRAY_AGG takes its element out as Java's List.remove (Double.equals);
    # the others by docs/aggregates.md's equality (-0.0 = 0.0, one NaN)
    if spec[0].startswith("ARRAY_AGG"):
        return bits(x)
    if isinstance(x, tuple):
        return tuple(canon(y) for y in x)
    return canon(x)


# ---- a job --------------------------------------------------------------------------------

def gen_query(rng, j, qi):
    inner = rng.random() < 0.25
    # over the inner GROUP BY the functions that follow arrival order only
    # where its changelog's order is defined (one subtask, no mini-batch)
    ordered = j.parallelism == 1 and not j.mini
    pool = [s for s in SPECS if (ordered or not s[4]) and "id" not in s[2]] if inner else SPECS
    aggs = []
    if rng.random() < 0.25:
        # several DISTINCT aggregates of one column, some filtered: they share
        # the column's distinct entries (one per value, behind a cache)
        c = rng.choice(["v", "m", "s", "e"])
        dpool = [s for s in pool if "(DISTINCT %s)" % c in s[0]]
        for _ in range(rng.randint(2, 4)):
            aggs.append((rng.choice(dpool), rng.choice(FILTERS) if rng.random() < 0.6 else None))
    for _ in range(rng.randint(0 if aggs else 1, 4 if aggs else 6)):
        s = rng.choice(pool)
        flt = rng.choice(FILTERS) if rng.random() < 0.3 else None
        aggs.append((s, flt))
    q = argparse.Namespace(index=qi, aggs=aggs, inner=inner, global_=rng.random() < 0.2)
    if inner:
        # an inner GROUP BY whose rows change: one row per (k, MOD(id, n))
        # with the MAX, SUM or MIN of its rows' columns, so the outer
        # aggregation sees retractions of rows that a GROUP BY emits
        q.inner_mod = rng.choice([2, 3, 5])
    return q


def query_sql(q):
    src = "w"
    if q.inner:
        src = ("(SELECT k, MOD(id, %d) AS id, MAX(v) AS v, SUM(d) AS d, MIN(e) AS e, MAX(m) AS m, MIN(s) AS s, "
               "MAX(ts) AS ts, MIN(b) AS b, MAX(f) AS f FROM w GROUP BY k, MOD(id, %d))" % (q.inner_mod, q.inner_mod))
    cols = []
    for ai, (s, flt) in enumerate(q.aggs):
        cols.append("%s%s AS a%d" % (s[0], " FILTER (WHERE %s)" % flt[0] if flt else "", ai))
    if q.global_:
        return "SELECT %s FROM %s" % (", ".join(cols), src)
    return "SELECT k, %s FROM %s GROUP BY k" % (", ".join(cols), src)


def sink_cols(q):
    cols = [] if q.global_ else [("k", "STRING")]
    return cols + [("a%d" % ai, s[1]) for ai, (s, _) in enumerate(q.aggs)]


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 1, 2, 4])
    # the cache of the distinct values in front of state: small ones make it
    # write its entries to state and read them back
    j.cache = rng.choice([None, None, "1kb", "16kb"])
    j.batch = rng.choice([1, 2, 3, 7, 1024])
    j.rocksdb = rng.random() < 0.3
    j.mini = rng.random() < 0.4
    j.mini_size = rng.choice([1, 2, 5, 1000])
    j.phase = rng.choice([None, "ONE_PHASE", "TWO_PHASE", "AUTO"])
    j.split = rng.random() < 0.3
    j.schema = rng.random() < 0.2
    nk = rng.randint(1, len(KEYS))
    j.events, j.final = gen_history(rng, rng.randint(1, 25), lambda i: new_row(rng, i, nk), updated(nk), 6,
                                      rng.choice([10, 40, 120]))
    j.queries = [gen_query(rng, j, qi) for qi in range(rng.randint(2, 5))]
    return j


def job_sql(j):
    out = ["-- retract_diff seed %d job %d" % (j.seed, j.index)]
    out.append("CREATE TABLE t (id INT, k STRING, v INT, d DOUBLE, e DOUBLE, m DECIMAL(10, 2), s STRING, "
               "ts TIMESTAMP(3), b BOOLEAN, f INT) WITH ('connector' = 'filesystem', 'path' = 't.json', "
               "'format' = 'debezium-json'%s);"
               % (", 'debezium-json.schema-include' = 'true'" if j.schema else ""))
    out.append("CREATE VIEW w AS SELECT id, k, v, d, CASE WHEN e = 7.0 THEN CAST('NaN' AS DOUBLE) "
               "WHEN e = 8.0 THEN CAST('-Infinity' AS DOUBLE) ELSE e END AS e, "
               "m, s, ts, b, f FROM t;")
    if j.mini:
        out.append("SET 'table.exec.mini-batch.enabled' = 'true';")
        out.append("SET 'table.exec.mini-batch.allow-latency' = '1 s';")
        out.append("SET 'table.exec.mini-batch.size' = '%d';" % j.mini_size)
    if j.phase:
        out.append("SET 'table.optimizer.agg-phase-strategy' = '%s';" % j.phase)
    if j.split:
        out.append("SET 'table.optimizer.distinct-agg.split.enabled' = 'true';")
    for q in j.queries:
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');"
                   % (q.index, ", ".join("%s %s" % c for c in sink_cols(q)), q.index))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for q in j.queries:
        out.append("  INSERT INTO q%d %s;" % (q.index, query_sql(q)))
    out.append("END;")
    return "\n".join(out) + "\n"


# ---- the model ------------------------------------------------------------------------------

def changes(events):
    """The rows the source gives, in order: (+1 | -1, row of w)."""
    for op, before, after in events:
        if before is not None:
            yield -1, view_row(before)
        if after is not None:
            yield 1, view_row(after)


def inner_row(key, rows):
    """query_sql's inner GROUP BY's row of a group of rows of w."""
    def col(c, fn):
        xs = [r[c] for r in rows if r[c] is not None]
        return fn(xs) if xs else None
    return {"k": key[0], "id": key[1], "v": col("v", max), "d": col("d", exact_sum),
            "e": col("e", lambda xs: canon_out(min(xs, key=sort_key))),
            "m": col("m", max), "s": col("s", lambda xs: min(xs, key=sort_key)),
            "ts": col("ts", max), "b": col("b", min), "f": col("f", max)}


def inner_changes(j, mod):
    """The changelog of query_sql's inner GROUP BY, as the outer aggregation
    gets it at one subtask without mini-batch: each input row's change of
    its group on its own (-U/+U as a retraction and an add; nothing when the
    row stays equal bit for bit)."""
    groups = collections.defaultdict(list)
    for sign, r in changes(j.events):
        key = (r["k"], r["id"] % mod)
        rows = groups[key]
        before = inner_row(key, rows) if rows else None
        if sign > 0:
            rows.append(r)
        else:
            rows.remove(next(x for x in rows if x["id"] == r["id"]))
        after = inner_row(key, rows) if rows else None
        if before is not None and after is not None and out_key(tuple(before.items())) == out_key(
                tuple(after.items())):
            continue
        if before is not None:
            yield -1, before
        if after is not None:
            yield 1, after


def model(j, q, batch=None):
    """(the final table: result rows as tuples, the changelog: [(op, row)])
    of q over the changes. With batch (mini-batch: rows of the changelog
    per batch), each batch's net change per key (docs/sql.md, "Updating
    results"). Without, the changelog is Flink's without mini-batch:
    each input row's change of its group on its own, "c" for a new group,
    "d" for one that lost its last row, "d" and "c" for a changed result,
    nothing for one that stays equal (bit for bit)."""
    if q.inner:
        stream = inner_changes(j, q.inner_mod)
    else:
        stream = changes(j.events)
    rows = collections.defaultdict(int)   # group -> live rows
    live = collections.defaultdict(lambda: [[] for _ in q.aggs])

    def result(g):
        vals = tuple(s[3](live[g][ai][0] if s[3] is f_array_agg_distinct and live[g][ai] else
                          DistinctOrder() if s[3] is f_array_agg_distinct else live[g][ai])
                     for ai, (s, _) in enumerate(q.aggs))
        return ((g,) if not q.global_ else ()) + vals

    log = []
    mini = []      # the mini-batch changelog: each batch's net change per key
    starts = {}    # key -> its result when the batch began (None: no group)
    for n, (sign, r) in enumerate(stream):
        if batch and n % batch == 0:
            net_changes(starts, result, rows, mini)
        g = None if q.global_ else r["k"]
        before = result(g) if rows[g] else None
        if g not in starts:
            starts[g] = before
        rows[g] += sign
        for ai, (s, flt) in enumerate(q.aggs):
            if flt and not flt[1](r):
                continue
            x = arg_of(s, r)
            lst = live[g][ai]
            if s[3] is f_array_agg_distinct:
                if not lst:
                    lst.append(DistinctOrder())
                (lst[0].add if sign > 0 else lst[0].retract)(x)
                continue
            if sign > 0:
                lst.append(x)
            else:
                key = removal_key(s, x)
                for i, y in enumerate(lst):
                    if removal_key(s, y) == key:
                        del lst[i]
                        break
                else:
                    raise AssertionError("model: retraction of %r not held" % (x,))
        after = result(g) if rows[g] else None
        if before is not None and (after is None or out_key(before) != out_key(after)):
            log.append(("d", before))
        if after is not None and (before is None or out_key(before) != out_key(after)):
            log.append(("c", after))
    net_changes(starts, result, rows, mini)
    return [result(g) for g, n in rows.items() if n], (mini if batch else log)


def net_changes(starts, result, rows, log):
    """Appends the net change of each key a batch touched: "c" for a new
    group, "d" for a removed one, "d" and "c" for a changed result, nothing
    for one that ends where it started; empties starts."""
    for g, before in starts.items():
        after = result(g) if rows[g] else None
        if before is not None and (after is None or out_key(before) != out_key(after)):
            log.append(("d", before))
        if after is not None and (before is None or out_key(before) != out_key(after)):
            log.append(("c", after))
    starts.clear()


def out_key(row):
    """A result row compared as Flink's binary rows are: DOUBLEs bit for bit."""
    def k(x):
        if isinstance(x, float):
            return bits(x)
        if isinstance(x, list):
            return tuple(k(y) for y in x)
        if isinstance(x, dict):
            return tuple(sorted(x.items()))
        if isinstance(x, D):
            return ("dec", x)
        if isinstance(x, tuple):
            return tuple(k(y) for y in x)
        return x
    return k(row)


# ---- comparison -------------------------------------------------------------------------------

def same(want, got, typ):
    if isinstance(want, tuple) and want and want[0] == "approx":
        if got is None:
            return False
        g = float(got)
        v = want[1]
        if want[2]:
            g = g * g if not math.isnan(g) else g
        return abs(g - v) <= 1e-9 * (1 + abs(v)) + 1e-7
    if isinstance(want, tuple) and want and want[0] == "within":
        return got is not None and abs(float(got) - want[1]) <= want[2] * abs(want[1]) * (1 + 1e-9) + 1e-12
    if want is None or got is None:
        return want is None and got is None
    if typ == "DOUBLE":
        g = float(got)  # "NaN", "-Infinity" too
        if math.isnan(want):
            return math.isnan(g)
        return g == want and math.copysign(1, g) == math.copysign(1, want)
    if typ.startswith("DECIMAL"):
        return D(got) == want
    if typ in ("INT", "BIGINT"):
        return int(got) == want
    if typ == "BOOLEAN":
        return got is want
    if typ == "ARRAY<DOUBLE>":
        return len(got) == len(want) and all(same(w, gg, "DOUBLE") for w, gg in zip(want, got))
    if typ == "ARRAY<INT>":
        return len(got) == len(want) and all(
            (w is None and gg is None) or (w is not None and gg is not None and int(gg) == w)
            for w, gg in zip(want, got))
    if typ.startswith("MULTISET"):
        return {kk: int(vv) for kk, vv in got.items()} == want
    return got == want


def compare(what, q, want, got):
    """Matches each wanted row with a got row (by group key), value by value."""
    types = [t for _, t in sink_cols(q)]
    problems = []
    got = list(got)
    if len(got) != len(want):
        problems.append("%s: %d rows, want %d: got %s; want %s" % (what, len(got), len(want), got[:6], want[:6]))
        return problems
    left = list(got)
    for w in want:
        for i, g in enumerate(left):
            if all(same(wv, gv, t) for wv, gv, t in zip(w, g, types)):
                del left[i]
                break
        else:
            problems.append("%s: no row matches %s; got %s" % (what, w, got[:6]))
            if len(problems) > 3:
                break
    return problems


# results compared within a tolerance: an equal result may come back with
# other bits, so their queries' changelogs are not checked row by row
INEXACT = ("VAR_", "STDDEV_", "PERCENTILE", "APPROX_PERCENTILE")


def shape_checked(j, q):
    """Whether q's changelog is checked (row by row at one subtask, key by
    key at several, where each key's rows keep file order; over the inner
    GROUP BY only at one subtask, as its groups' changes come from several
    subtasks otherwise): no mini-batch (which folds a batch's changes of a
    key), no split distinct aggregation (two levels of updates), and no
    variance (Welford's retraction may round a result that comes back to an
    earlier value differently)."""
    return (not j.mini and not j.split and (j.parallelism == 1 or not q.inner)
            and not any(s[0].startswith(INEXACT) for s, _ in q.aggs))


def mini_checked(j, q):
    """Whether q's mini-batch changelog is checked key by key: as
    shape_checked, but with mini-batch (a batch: weir.batch-size rows of the
    changelog, an update two), over t itself."""
    return (j.parallelism == 1 and j.mini and not j.split and not q.inner
            and not any(s[0].startswith(INEXACT) for s, _ in q.aggs))


def compare_changelog(what, q, log, folder, by_key=False):
    """The changelog in the sink's folder against log, row by row (by_key:
    each key's rows in order, keys of one batch coming in any order)."""
    cols = [c for c, _ in sink_cols(q)]
    types = [t for _, t in sink_cols(q)]
    got = [(op, tuple(row[c] for c in cols))
           for op, row in diffrun.debezium_changes(folder, diffrun.committed_files(folder), numbers_as_text=True)]
    if by_key and not q.global_:
        problems = []
        for k in sorted(set(r[1][0] for r in log) | set(r[1][0] for r in got), key=repr):
            problems += compare_rows("%s key %r" % (what, k), types, [r for r in log if r[1][0] == k],
                                     [r for r in got if r[1][0] == k])
        return problems[:3]
    return compare_rows(what, types, log, got)


def compare_rows(what, types, log, got):
    for i, (w, g) in enumerate(zip(log, got)):
        if w[0] != g[0] or not all(same(wv, gv, t) for wv, gv, t in zip(w[1], g[1], types)):
            return ["%s: changelog row %d is %s %s, want %s %s (rows before: %s)"
                    % (what, i, g[0], g[1], w[0], w[1], got[max(0, i - 3):i])]
    if len(log) != len(got):
        return ["%s: changelog of %d rows, want %d: %s" % (what, len(got), len(log),
                                                          got[len(log):len(log) + 3] or log[len(got):len(got) + 3])]
    return []


def fold(folder, cols, names=None):
    """The final table of a debezium-json changelog (numbers as text so DECIMALs keep their digits); a
    delete must find its row. names: the files in the order to apply them (default: name order)."""
    table = collections.Counter()
    for op, row in diffrun.debezium_changes(folder, names, numbers_as_text=True):
        v = json.dumps([row[c] for c in cols], sort_keys=True)
        if op == "c":
            table[v] += 1
        elif table[v] <= 0:
            raise ValueError("a delete of a row not there: %s" % v)
        else:
            table[v] -= 1
    out = []
    for v, n in table.items():
        out += [tuple(json.loads(v))] * n
    return out


# Aggregates that must be refused over this updating input when the job is
# planned (exit 3), naming the function: those whose result follows arrival
# order with DISTINCT, and one that cannot retract a row.
REFUSED = [("LISTAGG(DISTINCT s)", "LISTAGG(DISTINCT ...) is not supported"),
           ("FIRST_VALUE(DISTINCT v)", "FIRST_VALUE(DISTINCT ...) is not supported"),
           ("LAST_VALUE(DISTINCT s)", "LAST_VALUE(DISTINCT ...) is not supported"),
           ("APPROX_COUNT_DISTINCT(v)", "APPROX_COUNT_DISTINCT over an updating (changelog) input is not supported"),
           ("APPROX_COUNT_DISTINCT(DISTINCT s)",
            "APPROX_COUNT_DISTINCT over an updating (changelog) input is not supported")]


def refusal_problems(case, j):
    """One job in six: a query with a refused aggregate beside accepted ones
    must fail to plan, naming it."""
    if case.rng.random() >= 1 / 6:
        return []
    text, msg = case.rng.choice(REFUSED)
    q = gen_query(case.rng, j, 0)
    q.inner = False
    sql = job_sql(j).split("EXECUTE STATEMENT SET")[0]
    sql += "SELECT k, %s, %s FROM w GROUP BY k;\n" % (text, ", ".join(
        "%s%s" % (s[0], " FILTER (WHERE %s)" % f[0] if f else "") for s, f in q.aggs))
    case.write("refused.sql", sql)
    p = case.run_weir(["run", "refused.sql"])
    case.counts["refusals"] += 1
    if p.returncode != 3 or msg not in p.stderr:
        return ["%s: want exit 3 and %r, got exit %d: %s" % (text, msg, p.returncode, p.stderr.strip()[-500:])]
    return []


def job_note(j):
    """The job's settings, for the report of a failed case."""
    return "parallelism %d, batch %d%s%s%s%s%s" % (
        j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "",
        ", mini-batch size %d" % j.mini_size if j.mini else "", ", %s" % j.phase if j.phase else "",
        ", split distinct" if j.split else "", ", distinct cache " + j.cache if j.cache else "")


def cache_options(j):
    """The -D options of the job's distinct cache (none: the default)."""
    return ["-D", "weir.distinct-cache.size=" + j.cache] if j.cache else []


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(%s)" % job_note(j)
    with open(case.path("t.json"), "w") as f:
        f.writelines(envelope(op, b, a, j.schema) + "\n" for op, b, a in j.events)
    case.write("job.sql", job_sql(j))
    opts = cache_options(j)
    p = case.run_weir(["run", "job.sql"] + opts + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    case.counts["events"] += len(j.events)
    problems = []
    for q in j.queries:
        case.counts["aggregates"] += len(q.aggs)
        what = "q%d (%s)" % (q.index, query_sql(q))
        try:
            got = fold(case.path("q%d" % q.index), [c for c, _ in sink_cols(q)])
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        want, log = model(j, q)
        problems += compare(what, q, want, got)
        if shape_checked(j, q):
            case.counts["changelogs"] += 1
            problems += compare_changelog(what, q, log, case.path("q%d" % q.index), by_key=j.parallelism > 1)
        elif mini_checked(j, q):
            case.counts["mini-batch changelogs"] += 1
            problems += compare_changelog(what, q, model(j, q, batch=j.batch)[1], case.path("q%d" % q.index),
                                          by_key=True)
    return problems + refusal_problems(case, j)


def main():
    return diffrun.main("retract_diff", run_case, jobs_env="WEIR_RETRACTDIFF_JOBS", jobs=40, asan_jobs=20,
                        one_env="WEIR_RETRACTDIFF_JOB", unit="jobs", timeout=120)


if __name__ == "__main__":
    sys.exit(main())
