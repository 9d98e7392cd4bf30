#!/usr/bin/env python3
"""Randomized differential test of every join kind over key columns of
different types on the two sides.

Each job draws a key type for each side from TINYINT, SMALLINT, INT,
BIGINT, DECIMAL(p, s) (p 1..38, s 0..p), DOUBLE and FLOAT, or a string
type for both (STRING, VARCHAR(n), CHAR(n)), and two JSON inputs

    l (id INT, k TL, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
    r (id INT, k TR, ms BIGINT, ts ..., PRIMARY KEY (k) NOT ENFORCED when r is versioned)

rows in time order (so no row is late), keys drawn from one pool where the
column's type holds them exactly: NULL, values equal only once compared in
the common type (7 and 7.00, 7.5 and 7.50), values equal only after a
lossy cast (7.5 and 7, 0.1 as a DECIMAL and as a DOUBLE, 2^53 + 1 and
2^53 as a DOUBLE), BIGINT and 38-digit DECIMAL edges, -0.0 and 0.0, NaN.
Then one `weir run` (parallelism 1, 2 or 4, batch size 1, 7 or 1024) of
a statement set of random queries, each into a debezium-json file:

    regular    l [INNER|LEFT|RIGHT|FULL] JOIN r ON l.k = r.k
               (or IS NOT DISTINCT FROM, or USING (k))
    semi/anti  l WHERE l.k [NOT] IN (SELECT r.k FROM r),
               [NOT] EXISTS (SELECT * FROM r WHERE r.k = l.k | IS NOT DISTINCT FROM)
    interval   l [INNER|LEFT|RIGHT|FULL] JOIN r ON l.k = r.k AND l.ts BETWEEN ...
    window     TUMBLE of each, [INNER|LEFT|RIGHT|FULL] JOIN on the key and
               both bounds; and the window semi and anti joins ([NOT] IN, [NOT] EXISTS)
    temporal   l [LEFT] JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k
               (r versioned by its key)
    lookup     l [LEFT] JOIN r FOR SYSTEM_TIME AS OF l.p ON l.k = r.k
               (l with a processing-time attribute p; r read whole)

Now and then a job pairs a number with a STRING, BOOLEAN or TIMESTAMP key
(or a string with a number): weir must refuse it at plan time, naming
both types and asking for a CAST, as Flink refuses such a comparison.

The oracle shares no code with weir (Python's Decimal, int and float). The
keys compare as docs/joins.md says: integers and DECIMALs exactly (7.5
never meets 7, 2^53 + 1 never meets 2^53); anything beside a DOUBLE or
FLOAT as the nearest double (a DECIMAL 0.1 meets the DOUBLE 0.1, a BIGINT
2^53 + 1 the DOUBLE 2^53), -0.0 meeting 0.0 and NaN meeting nothing, as
SQL's `=` compares them; strings by their bytes. NULL meets nothing under
`=` and meets NULL under IS NOT DISTINCT FROM; NOT IN excludes a row when
any right row equals it or either key is NULL. A temporal join meets the
versioned table's key by its value as stored: -0.0 and 0.0 are two of
its rows and meet only their own sign (NaN still meets nothing). weir's FLOAT is a DOUBLE, so
FLOAT columns draw only values a 32-bit float holds exactly.

Usage: join_keytypes_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_KEYTYPES_JOB=i runs one job.
"""

import collections
import decimal
import json
import math
import os
import struct
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

decimal.getcontext().prec = 100  # 38-digit values stay exact

INT_RANGE = {"TINYINT": 2 ** 7, "SMALLINT": 2 ** 15, "INT": 2 ** 31, "BIGINT": 2 ** 63}
BIG = "12345678901234567890123456789012345678"  # 38 digits
NUM_POOL = ["0", "1", "-1", "7", "7.5", "7.50", "-7.5", "0.1", "0.5", "2.25", "127", "-128", "300", "32767",
            "40000", "2147483647", "2147483648", "-3000000000", "9007199254740992", "9007199254740993",
            "9223372036854775807", "-9223372036854775808", "100000000000000000000", BIG, "-" + BIG,
            "1234567890123456789012345678.9012345678", "0.000000000000000001", "12345678901234567.89",
            "123.456", "1.00000000000000000000000000000000000001"]
# more digits than a double keeps, in a DECIMAL of 18 digits or fewer (LONG_DECIMALS hold them)
LONG_POOL = ["12345678901234.567", "0.12345678901234567", "123456789012345.678", "-442750539.86255251",
             "98765.4321098765432"]
LONG_DECIMALS = [(17, 3), (18, 3), (18, 8), (18, 17), (18, 13)]
DOUBLE_POOL = ["-0.0", "NaN", "Infinity", "0.30000000000000004", "1e300"]
STR_POOL = ["", "a", "ab", "abc", "a ", " a", "A", "\u00e9", "7"]
SIZE = 10  # the window size, ms
QUERY_KINDS = ["regular", "regular", "using", "semi", "semi", "interval", "window", "window_semi", "temporal",
               "lookup"]


def sql_type(t):
    if t[0] == "DECIMAL":
        return "DECIMAL(%d, %d)" % (t[1], t[2])
    if t[0] in ("VARCHAR", "CHAR"):
        return "%s(%d)" % t
    return t[0]


def gen_num_type(rng):
    r = rng.random()
    if r < 0.1:
        return ("DECIMAL",) + rng.choice(LONG_DECIMALS)
    if r < 0.4:
        p = rng.choice([1, 2, 3, 5, 10, 18, 19, 20, 28, 37, 38, rng.randint(1, 38)])
        return ("DECIMAL", p, min(p, rng.choice([0, 0, 1, 2, p, rng.randint(0, p)])))
    if r < 0.75:
        return (rng.choice(["TINYINT", "SMALLINT", "INT", "BIGINT", "BIGINT"]),)
    return (rng.choice(["DOUBLE", "DOUBLE", "FLOAT"]),)


def gen_str_type(rng):
    k = rng.choice(["STRING", "VARCHAR", "CHAR"])
    return ("STRING",) if k == "STRING" else (k, rng.randint(3, 10))


def is_str(t):
    return t[0] in ("STRING", "VARCHAR", "CHAR")


def is_double(t):
    return t[0] in ("DOUBLE", "FLOAT")


def holds(t, text):
    """Whether a column of type t holds the value of text exactly."""
    if is_str(t):
        return True
    if text in ("-0.0", "NaN", "Infinity"):
        return is_double(t)
    d = Decimal(text)
    if t[0] in INT_RANGE:
        return d == d.to_integral_value() and -INT_RANGE[t[0]] <= d < INT_RANGE[t[0]]
    if t[0] == "DOUBLE":
        return True  # the nearest double, as the oracle reads it too
    if t[0] == "FLOAT":  # exact in a 32-bit float (weir's FLOAT is a DOUBLE; Flink's is not)
        try:
            return Decimal(struct.unpack("f", struct.pack("f", float(d)))[0]) == d
        except OverflowError:
            return False
    p, s = t[1], t[2]
    return abs(d) < Decimal(10) ** (p - s) and d == d.quantize(Decimal(1).scaleb(-s))


def value(t, text):
    """The value a column of type t holds for text: str, float or Decimal."""
    if text is None:
        return None
    if is_str(t):
        return text
    if is_double(t):
        return float(text)
    return Decimal(text)


def equal(a, b):
    """SQL's a = b of two held values in their common type (None: NULL)."""
    if a is None or b is None:
        return False
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, float) or isinstance(b, float):
        return float(a) == float(b)  # the nearest double of a Decimal; -0.0 == 0.0, NaN != NaN
    return a == b  # exactly


def same_key(a, b):
    """A temporal join's key match: '=' in the common type, -0.0 and 0.0
    apart (a versioned table's key is an identity, met by its bytes)."""
    if not equal(a, b):
        return False
    if isinstance(a, float) or isinstance(b, float):
        return math.copysign(1.0, float(a)) == math.copysign(1.0, float(b))
    return True


def not_distinct(a, b):
    return (a is None and b is None) or equal(a, b)


def gen_rows(rng, t, n, id0, pool):
    rows, ms = [], rng.randint(0, 5)
    for i in range(n):
        text = None if rng.random() < 0.12 else rng.choice(pool)
        rows.append({"id": id0 + i, "text": text, "k": value(t, text), "ms": ms})
        ms += rng.choice([0, 1, 2, 3, 5, 8])
    return rows


def gen_query(rng, kind, versioned_ok):
    q = {"kind": kind}
    if kind in ("regular", "interval", "window"):
        q["type"] = rng.choice(["INNER", "LEFT", "RIGHT", "FULL"])
    if kind == "regular":
        q["nsafe"] = rng.random() < 0.3
    if kind == "using":
        q["type"] = rng.choice(["INNER", "LEFT", "RIGHT", "FULL"])
    if kind in ("semi", "window_semi"):
        q["shape"] = rng.choice(["in", "not_in", "exists", "not_exists"])
        q["nsafe"] = kind == "semi" and q["shape"] in ("exists", "not_exists") and rng.random() < 0.3
    if kind == "interval":
        q["lo"], q["hi"] = sorted(rng.randint(-6, 6) for _ in range(2))
    if kind == "temporal":
        if not versioned_ok:
            return None
        q["type"] = rng.choice(["INNER", "LEFT"])
    if kind == "lookup":
        q["type"] = rng.choice(["INNER", "LEFT"])
    return q


def tumble(name):
    return "TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND))" % (name, SIZE)


def query_sql(q):
    k = q["kind"]
    if k == "regular":
        op = "IS NOT DISTINCT FROM" if q["nsafe"] else "="
        return "SELECT l.id, r.id FROM l %s JOIN r ON l.k %s r.k" % (q["type"], op)
    if k == "using":
        return "SELECT l.id, r.id FROM l %s JOIN r USING (k)" % q["type"]
    if k == "semi":
        shape = q["shape"]
        if shape in ("in", "not_in"):
            cond = "l.k %sIN (SELECT r.k FROM r)" % ("NOT " if shape == "not_in" else "")
        else:
            cond = "%sEXISTS (SELECT * FROM r WHERE r.k %s l.k)" % (
                "NOT " if shape == "not_exists" else "", "IS NOT DISTINCT FROM" if q["nsafe"] else "=")
        return "SELECT l.id, CAST(NULL AS INT) FROM l WHERE " + cond
    if k == "interval":
        return ("SELECT l.id, r.id FROM l %s JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '%d' "
                "MILLISECOND AND r.ts + INTERVAL '%d' MILLISECOND" % (q["type"], -q["lo"], q["hi"]))
    if k == "window":
        return ("SELECT L.id, R.id FROM (SELECT * FROM %s) L %s JOIN (SELECT * FROM %s) R ON L.k = R.k AND "
                "L.window_start = R.window_start AND L.window_end = R.window_end"
                % (tumble("l"), q["type"], tumble("r")))
    if k == "window_semi":
        bounds = "L.window_start = R.window_start AND L.window_end = R.window_end"
        shape = q["shape"]
        if shape in ("in", "not_in"):
            cond = "L.k %sIN (SELECT R.k FROM (SELECT * FROM %s) R WHERE %s)" % (
                "NOT " if shape == "not_in" else "", tumble("r"), bounds)
        else:
            cond = "%sEXISTS (SELECT * FROM %s R WHERE L.k = R.k AND %s)" % (
                "NOT " if shape == "not_exists" else "", tumble("r"), bounds)
        return "SELECT L.id, CAST(NULL AS INT) FROM (SELECT * FROM %s) L WHERE %s" % (tumble("l"), cond)
    if k == "lookup":
        return "SELECT l.id, r.id FROM lp AS l %sJOIN rl FOR SYSTEM_TIME AS OF l.p AS r ON l.k = r.k" % (
            "LEFT " if q["type"] == "LEFT" else "")
    return "SELECT l.id, r.id FROM l %sJOIN rv FOR SYSTEM_TIME AS OF l.ts AS r ON l.k = r.k" % (
        "LEFT " if q["type"] == "LEFT" else "")


def outer(pairs, lrows, rrows, jtype):
    """The result of a join of type jtype whose matching (left, right) id pairs are pairs."""
    out = collections.Counter(pairs)
    if jtype in ("LEFT", "FULL"):
        met = {a for a, _ in pairs}
        out.update((l["id"], None) for l in lrows if l["id"] not in met)
    if jtype in ("RIGHT", "FULL"):
        met = {b for _, b in pairs}
        out.update((None, r["id"]) for r in rrows if r["id"] not in met)
    return out


def semi(shape, lrows, rrows, eq):
    out = collections.Counter()
    for l in lrows:
        if shape == "not_in":
            hit = any(l["k"] is None or r["k"] is None or eq(l["k"], r["k"]) for r in rrows)
        else:
            hit = any(eq(l["k"], r["k"]) for r in rrows)
        if hit == (shape in ("in", "exists")):
            out[(l["id"], None)] += 1
    return out


def windows(rows):
    w = collections.defaultdict(list)
    for row in rows:
        w[row["ms"] - row["ms"] % SIZE].append(row)
    return w


def expected(q, lrows, rrows):
    k = q["kind"]
    if k in ("regular", "using", "lookup"):  # a lookup join reads the table whole before the first row
        eq = not_distinct if q.get("nsafe") else equal
        pairs = [(l["id"], r["id"]) for l in lrows for r in rrows if eq(l["k"], r["k"])]
        return outer(pairs, lrows, rrows, q["type"])
    if k == "semi":
        return semi(q["shape"], lrows, rrows, not_distinct if q["nsafe"] else equal)
    if k == "interval":
        pairs = [(l["id"], r["id"]) for l in lrows for r in rrows
                 if equal(l["k"], r["k"]) and q["lo"] <= l["ms"] - r["ms"] <= q["hi"]]
        return outer(pairs, lrows, rrows, q["type"])
    if k in ("window", "window_semi"):
        lw, rw = windows(lrows), windows(rrows)
        out = collections.Counter()
        for ws in set(lw) | (set(rw) if k == "window" else set()):
            ls, rs = lw.get(ws, []), rw.get(ws, [])
            if k == "window":
                out += outer([(l["id"], r["id"]) for l in ls for r in rs if equal(l["k"], r["k"])], ls, rs,
                             q["type"])
            else:
                out += semi(q["shape"], ls, rs, equal)
        return out
    out = collections.Counter()  # temporal: the latest version at the row's time among the equal keys
    for l in lrows:
        vs = [r for r in rrows if r["ms"] <= l["ms"] and same_key(l["k"], r["k"])]
        if vs:
            out[(l["id"], max(vs, key=lambda r: (r["ms"], r["id"]))["id"])] += 1
        elif q["type"] == "LEFT":
            out[(l["id"], None)] += 1
    return out


def table_sql(name, t, pk=False, path=None):
    return ("CREATE TABLE %s (id INT, k %s%s, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts%s) "
            "WITH ('connector' = 'filesystem', 'path' = '%s.json', 'format' = 'json');"
            % (name, sql_type(t), " NOT NULL" if pk else "", ", PRIMARY KEY (k) NOT ENFORCED" if pk else "",
               path or name))


def lookup_sql(tl, tr):
    """lp: l's rows with a processing-time attribute; rl: r's rows as a lookup table (no computed columns)."""
    return ["CREATE TABLE lp (id INT, k %s, ms BIGINT, p AS PROCTIME()) WITH ('connector' = 'filesystem', "
            "'path' = 'l.json', 'format' = 'json');" % sql_type(tl),
            "CREATE TABLE rl (id INT, k %s, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 'r.json', "
            "'format' = 'json');" % sql_type(tr)]


def json_lines(rows):
    return "".join(json.dumps({"id": r["id"], "k": r["text"], "ms": r["ms"]}) + "\n" for r in rows)


def refused_case(case, rng):
    """A key of a number and one of another kind: refused at plan time, both types named."""
    num = gen_num_type(rng)
    other = rng.choice([gen_str_type(rng), ("BOOLEAN",), ("TIMESTAMP(3)",)])
    tl, tr = (num, other) if rng.random() < 0.5 else (other, num)
    kind = rng.choice(["regular", "using", "semi", "interval", "window", "window_semi", "temporal", "lookup"])
    q = gen_query(rng, kind, True)
    if kind == "semi" and q["shape"] in ("exists", "not_exists"):
        q["nsafe"] = False
    case.note = "(refused: l.k %s, r.k %s, %s)" % (sql_type(tl), sql_type(tr), kind)
    sql = [table_sql("l", tl), table_sql("r", tr), table_sql("rv", tr, True, "r")] + lookup_sql(tl, tr) + [
           "CREATE TABLE q0 (a INT, b INT) WITH ('connector' = 'blackhole');",
           "INSERT INTO q0 %s;" % query_sql(q)]
    case.write("job.sql", "\n".join(sql) + "\n")
    case.write("l.json", "")
    case.write("r.json", "")
    p = case.run_weir(["run", "job.sql"])
    case.counts["refusals"] += 1
    names = [sql_type(t) if t[0] not in ("TINYINT", "SMALLINT", "FLOAT", "VARCHAR", "CHAR")
             else {"TINYINT": "INT", "SMALLINT": "INT", "FLOAT": "DOUBLE"}.get(t[0], "STRING") for t in (tl, tr)]
    if p.returncode == 0:
        return ["%s: ran, want a plan-time refusal" % query_sql(q)]
    err = p.stderr
    if "CAST" not in err or not all(n in err for n in names):
        return ["%s: want a refusal naming %s and %s and asking for a CAST, got: %s"
                % (query_sql(q), names[0], names[1], err.strip()[-600:])]
    return []


def run_case(case):
    rng = case.rng
    if rng.random() < 0.12:
        return refused_case(case, rng)
    strings = rng.random() < 0.15
    tl, tr = (gen_str_type(rng), gen_str_type(rng)) if strings else (gen_num_type(rng), gen_num_type(rng))
    base = STR_POOL if strings else NUM_POOL + DOUBLE_POOL
    pool = rng.sample(base, rng.randint(3, min(9, len(base))))
    if any(t[1:] in LONG_DECIMALS for t in (tl, tr)):
        pool += LONG_POOL
    if any(is_double(t) for t in (tl, tr)) and rng.random() < 0.6:
        pool += ["-0.0", "0", "NaN"]  # -0.0 meets 0 of any type, NaN nothing
    lpool, rpool = [v for v in pool if holds(tl, v)], [v for v in pool if holds(tr, v)]
    # so that the two sides meet: a value of one side's pool in the other's type when there is one
    for side_pool, t in ((lpool, tl), (rpool, tr)):
        if not side_pool:
            side_pool.extend(v for v in base if holds(t, v))
            side_pool[:] = rng.sample(side_pool, min(3, len(side_pool)))
    lrows = gen_rows(rng, tl, rng.randint(0, 25), 1, lpool)
    rrows = gen_rows(rng, tr, rng.randint(0, 25), 1001, rpool)
    # r versioned by its key (rv, for the temporal joins) needs a NOT NULL key
    versioned = rng.random() < 0.5
    if versioned:
        rrows = [r for r in rrows if r["k"] is not None]
    par, batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024])
    queries = []
    while len(queries) < 8:
        q = gen_query(rng, rng.choice(QUERY_KINDS), versioned)
        if q:
            queries.append(q)
    case.note = "(l.k %s, r.k %s, parallelism %d, batch %d%s)" % (sql_type(tl), sql_type(tr), par, batch,
                                                                  ", r versioned" if versioned else "")
    case.write("l.json", json_lines(lrows))
    case.write("r.json", json_lines(rrows))
    sql = ["-- join_keytypes_diff seed %d job %d" % (case.seed, case.index),
           table_sql("l", tl), table_sql("r", tr)] + lookup_sql(tl, tr)
    sql += [table_sql("rv", tr, True, "r")] if versioned else []
    for qi in range(len(queries)):
        sql.append("CREATE TABLE q%d (a INT, b INT) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, qi))
    sql.append("EXECUTE STATEMENT SET BEGIN")
    sql += ["  INSERT INTO q%d %s;" % (qi, query_sql(q)) for qi, q in enumerate(queries)]
    sql.append("END;")
    case.write("job.sql", "\n".join(sql) + "\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, q in enumerate(queries):
        what = "q%d (%s)" % (qi, query_sql(q))
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), ["a", "b"])
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, expected(q, lrows, rrows), got)
        case.counts[q["kind"]] += 1
    return problems


def main():
    return diffrun.main("join_keytypes_diff", run_case, jobs_env="WEIR_KEYTYPES_JOBS", jobs=30, asan_jobs=8,
                        one_env="WEIR_KEYTYPES_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
