#!/usr/bin/env python3
"""Randomized differential test of set operations whose inputs have
different numeric column types (UNION [ALL], INTERSECT [ALL], EXCEPT [ALL]).

Each job is two random CSV inputs

    l (x TL1, y TL2, k STRING, ts TIMESTAMP(3))    r (x TR1, y TR2, k STRING, ts TIMESTAMP(3))

(event time ts with a watermark an hour behind it, so no row is late)
whose numeric types are drawn from TINYINT, SMALLINT, INT, BIGINT,
DECIMAL(p, s) of several p and s, DOUBLE and FLOAT, NULLs included unless
a column is NOT NULL, values drawn from a small pool so that the two sides
meet: values equal only once widened (3 and 3.00, 1.5 and 1.50 at another
scale, 0.1 as a DECIMAL and as a DOUBLE), BIGINT values beyond INT, 38-digit
DECIMALs, DECIMALs with more digits than a DOUBLE keeps. Random queries:

    setop    SELECT CAST(c AS STRING), TYPEOF(c), ... FROM
                 (SELECT cl, ... FROM l  OP  SELECT cr, ... FROM r)
             for OP in UNION, UNION ALL, INTERSECT [ALL], EXCEPT [ALL]:
             the values as text and the type each column widened to
    raw      SELECT cl FROM l OP SELECT cr FROM r, into a debezium-json
             column of the widened type: the values as the format encodes them
    group    SELECT k, SUM(c), COUNT(c), MIN(c), MAX(c) (as text, with the
             SUM's type) FROM (l.cl UNION ALL r.cr) GROUP BY k
    changelog (SELECT SUM(cl), k FROM l GROUP BY k) OP (... FROM r ...):
             changelogs of sums of different types, widened
    tumble   SELECT window_start, SUM(c), COUNT(*), MAX(c) FROM TUMBLE over a
             view of (SELECT cl, ts FROM l UNION ALL SELECT cr, ts FROM r)
    error    now and then a job whose set operation pairs a number with a
             STRING, BOOLEAN or TIMESTAMP column: refused, as Flink refuses
             it, with the column and both types named

run by `weir run` at a random parallelism (1/2/4) and batch size
(1/7/1024), on the memory or the RocksDB state backend; each result
changelog folded into its table and compared with the oracle.

The oracle shares no code with weir (Python's decimal, int and float). The
widened type is Calcite's leastRestrictive, which Flink's planner uses: two
integer types give the wider; either beside DOUBLE gives DOUBLE; with a
DECIMAL, integers count as DECIMAL(3/5/10/19, 0) and the result keeps the
integral digits of both and as much of the larger scale as fits in 38
digits: d = max(p1 - s1, p2 - s2), s = min(max(s1, s2), 38 - d),
DECIMAL(d + s, s); NOT NULL when both columns are. weir has no TINYINT,
SMALLINT or FLOAT of their own (they are INT, INT and DOUBLE), and its
SUM of an integer column is BIGINT: the oracle widens those as weir types
them (docs/sql.md, docs/aggregates.md). A value widened to DECIMAL(p, s)
is rounded half-up to s digits; to DOUBLE, the nearest double. Set
operations compare the widened values (NULL equal to NULL). A DECIMAL
prints with its scale's digits, a DOUBLE as Java's Double.toString.

Usage: setop_widen_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_SETOPWIDEN_JOB=i runs one job.
"""

import argparse
import collections
import os
import decimal
import struct
import sys
from decimal import Decimal, ROUND_HALF_UP

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diffrun  # noqa: E402
from javanum import double_text  # noqa: E402  (Java's Double.toString)

decimal.getcontext().prec = 100  # 38-digit values and their sums stay exact

OPS = ["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"]
INT_RANGE = {"TINYINT": 2 ** 7, "SMALLINT": 2 ** 15, "INT": 2 ** 31, "BIGINT": 2 ** 63}
INT_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}
DECIMALS = [(3, 1), (5, 2), (10, 0), (12, 4), (19, 0), (20, 10), (30, 2), (38, 0), (38, 10), (38, 18), (38, 36)]
BIG = Decimal("12345678901234567890123456789012345678")  # 38 digits

# The pool of values; a column takes those its type holds exactly. Ties
# (2.5, 0.00000000005, ...) meet the rounding of a scale cut past 38 digits.
POOL = [Decimal(v) for v in [
    "0", "1", "-1", "2", "3", "-3", "100", "127", "-128", "300", "40000", "3000000000", "-3000000000",
    "9007199254740993", "1.5", "-1.25", "0.25", "2.75", "2.5", "-2.5", "0.5", "0.1", "1.05", "123.456", "-0.001",
    "12345678901234567.89", "99.999", "0.000000000000000001", "0.00000000005", "-0.0000000000000000005"]]
POOL += [BIG, -BIG, BIG / 10 ** 10, Decimal("1.5") * 10 ** 20]
# Sums and windows add values up: those of this pool are exact in a double, in any order.
AGG_POOL = [Decimal(v) for v in ["0", "1", "-1", "2", "3", "-3", "100", "300", "40000", "3000000000",
                                 "1.5", "-1.25", "0.25", "2.75", "2.5", "-2.5", "0.5"]]


def decimal_type(p, s):
    return ("DECIMAL", p, s)


def sql_type(t):
    return "DECIMAL(%d, %d)" % (t[1], t[2]) if t[0] == "DECIMAL" else t[0]


def weir_type(t):
    """The type weir gives a column declared t."""
    return {"TINYINT": ("INT",), "SMALLINT": ("INT",), "FLOAT": ("DOUBLE",)}.get(t[0], t)


def ps(t):
    return (t[1], t[2]) if t[0] == "DECIMAL" else (INT_DIGITS[t[0]], 0)


def common(a, b):
    """Calcite's leastRestrictive of two numeric types (as weir types them)."""
    if a == b:
        return a
    if "DOUBLE" in (a[0], b[0]):
        return ("DOUBLE",)
    if "DECIMAL" not in (a[0], b[0]):
        return a if INT_DIGITS[a[0]] >= INT_DIGITS[b[0]] else b
    (p1, s1), (p2, s2) = ps(a), ps(b)
    d = min(max(p1 - s1, p2 - s2), 38)
    s = min(max(s1, s2), 38 - d)
    return decimal_type(d + s, s)


def type_name(t, not_null):
    return sql_type(t) + (" NOT NULL" if not_null else "")


def fits(v, t):
    """Whether a column of declared type t holds v exactly."""
    k = t[0]
    if k in INT_RANGE:
        return v == v.to_integral_value() and -INT_RANGE[k] <= v < INT_RANGE[k]
    if k == "DECIMAL":
        p, s = t[1], t[2]
        return abs(v) < Decimal(10) ** (p - s) and v == v.quantize(Decimal(1).scaleb(-s))
    if k == "FLOAT":  # exact in a 32-bit float too (weir's FLOAT is a DOUBLE; Flink's is not)
        return Decimal(struct.unpack("f", struct.pack("f", float(v)))[0]) == v
    return True  # DOUBLE: the nearest double


def held(v, t):
    """The value a column of declared type t holds when v is read into it."""
    if v is None:
        return None
    return Decimal(float(v)) if t[0] in ("DOUBLE", "FLOAT") else v


def widen(v, t):
    """v (exact) as a value of weir type t: the oracle's comparable value."""
    if v is None:
        return None
    if t[0] == "DOUBLE":
        return float(v)
    if t[0] == "DECIMAL":
        return v.quantize(Decimal(1).scaleb(-t[2]), rounding=ROUND_HALF_UP)
    return int(v)


def text(w, t):
    """The text of a widened value (CAST AS STRING, the print connector)."""
    if w is None:
        return None
    if t[0] == "DOUBLE":
        return double_text(w)
    if t[0] == "DECIMAL":
        s = format(w, "f")
        return s[1:] if s.startswith("-") and w == 0 else s
    return str(w)


def csv_text(v, t, rng):
    if v is None:
        return ""
    if t[0] == "DECIMAL" and t[2] > 0 and rng.random() < 0.5:
        return format(v.quantize(Decimal(1).scaleb(-t[2])), "f")  # with the trailing zeros of the scale
    if t[0] in ("DOUBLE", "FLOAT"):
        return repr(float(v)) if rng.random() < 0.5 else format(v, "f")
    return format(v, "f")


def gen_type(rng):
    r = rng.random()
    if r < 0.45:
        return decimal_type(*rng.choice(DECIMALS))
    if r < 0.85:
        return (rng.choice(["TINYINT", "SMALLINT", "INT", "INT", "BIGINT", "BIGINT"]),)
    return (rng.choice(["DOUBLE", "DOUBLE", "FLOAT"]),)


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    j.rocksdb = rng.random() < 0.3
    j.agg = rng.random() < 0.4  # sums and windows: values exact in a double
    pool = rng.sample(AGG_POOL if j.agg else POOL, rng.randint(3, 8))
    ks = ["a", "b", "c"][:rng.randint(1, 3)]
    j.sides = {}
    for side in ("l", "r"):
        cols = {}
        for c in ("x", "y"):
            t = gen_type(rng)
            vals = [v for v in pool if fits(v, t)]
            not_null = bool(vals) and rng.random() < 0.3
            cols[c] = (t, not_null, vals)
        rows = []
        for _ in range(rng.randint(0, 30)):
            row = {}
            for c, (t, not_null, vals) in cols.items():
                if not vals or (not not_null and rng.random() < 0.15):
                    row[c] = None
                else:
                    row[c] = rng.choice(vals)
            row["k"] = rng.choice(ks)
            row["ts"] = rng.randrange(0, 60000)
            rows.append(row)
        j.sides[side] = argparse.Namespace(cols=cols, rows=rows)
    j.queries = []
    if rng.random() < 0.08:
        j.error = (rng.choice(OPS), rng.choice(["x", "y"]), rng.choice(["k", "ts", "b"]), rng.random() < 0.5)
        return j
    j.error = None
    for _ in range(rng.randint(3, 6)):
        shape = rng.choice(["setop", "setop", "setop", "raw"] + (["group", "tumble", "changelog"] if j.agg else []))
        pairs = [(rng.choice("xy"), rng.choice("xy")) for _ in range(rng.choice([1, 1, 2]))]
        if shape != "setop":
            pairs = pairs[:1]
        op = "UNION ALL" if shape in ("group", "tumble") else rng.choice(OPS)
        j.queries.append((shape, op, pairs, shape == "setop" and rng.random() < 0.4))
    return j


def col_type(j, side, c):
    t, not_null, _ = j.sides[side].cols[c]
    return weir_type(t), not_null


def sum_type(t):
    """SUM's type in weir: BIGINT for integers, DOUBLE, DECIMAL(38, s)."""
    return {"INT": ("BIGINT",), "BIGINT": ("BIGINT",), "DOUBLE": ("DOUBLE",)}.get(t[0]) or decimal_type(38, t[2])


def sum_of(vs, st):
    """SUM of the non-null values vs as weir gives it in type st: NULL for
    no value, and NULL for a DECIMAL sum that does not fit DECIMAL(38, s)
    (docs/aggregates.md: Flink returns NULL on decimal overflow)."""
    if not vs:
        return None
    total = sum(vs)
    if st[0] == "DECIMAL" and abs(total) >= Decimal(10) ** (st[1] - st[2]):
        return None
    return total


def pair_type(j, cl, cr):
    (tl, nl), (tr, nr) = col_type(j, "l", cl), col_type(j, "r", cr)
    return common(tl, tr), nl and nr


def side_rows(j, side, cols):
    """The rows of a side's projection on cols as (held values, k, ts)."""
    s = j.sides[side]
    return [(tuple(held(row[c], s.cols[c][0]) for c in cols), row["k"], row["ts"]) for row in s.rows]


def combine(op, L, R):
    """l OP r of two tables (Counters of rows): with n_l and n_r a row's
    multiplicity in each, UNION 1 if n_l + n_r > 0, UNION ALL n_l + n_r,
    INTERSECT 1 if both > 0, INTERSECT ALL min, EXCEPT 1 if n_l > 0 and
    n_r == 0, EXCEPT ALL max(n_l - n_r, 0)."""
    out = collections.Counter()
    for v in set(L) | set(R):
        nl, nr = L[v], R[v]
        out[v] = {"UNION": int(nl + nr > 0), "UNION ALL": nl + nr,
                  "INTERSECT": int(nl > 0 and nr > 0), "INTERSECT ALL": min(nl, nr),
                  "EXCEPT": int(nl > 0 and nr == 0), "EXCEPT ALL": max(nl - nr, 0)}[op]
    return +out


def setop_table(j, op, pairs, with_k):
    """The result of l OP r on the pairs' columns: a Counter of tuples of
    widened values (and k)."""
    types = [pair_type(j, cl, cr)[0] for cl, cr in pairs]

    def table(side, cols):
        out = collections.Counter()
        for vals, k, _ in side_rows(j, side, cols):
            key = tuple(widen(v, t) for v, t in zip(vals, types))
            out[key + ((k,) if with_k else ())] += 1
        return out
    L, R = table("l", [p[0] for p in pairs]), table("r", [p[1] for p in pairs])
    return combine(op, L, R), types


def oracle(j, q):
    shape, op, pairs, with_k = q
    if shape in ("setop", "raw"):
        table, types = setop_table(j, op, pairs, with_k)
        out = collections.Counter()
        for v, n in table.items():
            row = []
            for i, ((cl, cr), t) in enumerate(zip(pairs, types)):
                row.append(text(v[i], t))
                if shape == "setop":
                    row.append(type_name(t, pair_type(j, cl, cr)[1]))
            if with_k:
                row.append(v[-1])
            out[tuple(row)] = n
        return out
    (cl, cr), = pairs
    if shape == "changelog":
        return changelog_oracle(j, op, cl, cr)
    t = pair_type(j, cl, cr)[0]
    st = sum_type(t)
    rows = [(widen(v[0], t), k, ts) for v, k, ts in side_rows(j, "l", [cl]) + side_rows(j, "r", [cr])]
    groups = collections.defaultdict(list)
    for w, k, ts in rows:
        groups[k if shape == "group" else ts - ts % 10000].append(w)
    out = collections.Counter()
    for g, ws in groups.items():
        nn = [w for w in ws if w is not None]
        total = text(sum_of(nn, st), st)  # exact: the values have st's scale, or are dyadic
        if shape == "group":
            out[(g, total, type_name(st, False), str(len(nn)),
                 text(min(nn), t) if nn else None, text(max(nn), t) if nn else None)] += 1
        else:
            out[(ts_text(g), total, type_name(st, False), str(len(ws)), text(max(nn), t) if nn else None)] += 1
    return out


def changelog_oracle(j, op, cl, cr):
    """(SELECT k, SUM(cl) FROM l GROUP BY k) OP (SELECT k, SUM(cr) FROM r
    GROUP BY k): each side's final table, its sums widened."""
    sts = {"l": sum_type(col_type(j, "l", cl)[0]), "r": sum_type(col_type(j, "r", cr)[0])}
    t = common(sts["l"], sts["r"])

    def table(side, c):
        groups = collections.defaultdict(list)
        for (v,), k, _ in side_rows(j, side, [c]):
            groups[k].append(v)
        out = collections.Counter()
        for k, vs in groups.items():
            nn = [v for v in vs if v is not None]
            out[(widen(sum_of(nn, sts[side]), t), k)] += 1
        return out
    L, R = table("l", cl), table("r", cr)
    return collections.Counter({(text(v[0], t), type_name(t, False), v[1]): n for v, n in combine(op, L, R).items()})


def ts_text(ms):
    return "2024-01-01 00:%02d:%02d.%03d" % (ms // 60000, ms // 1000 % 60, ms % 1000)


def out_cols(q):
    shape, op, pairs, with_k = q
    if shape == "setop":
        cols = []
        for i in range(len(pairs)):
            cols += ["v%d" % i, "t%d" % i]
        return cols + (["k"] if with_k else [])
    if shape == "raw":
        return ["v0"] + (["k"] if with_k else [])
    if shape == "group":
        return ["k", "s", "st", "n", "mn", "mx"]
    if shape == "changelog":
        return ["s", "st", "k"]
    return ["ws", "s", "st", "n", "mx"]


def query_sql(j, qi, q):
    """(the sink's DDL, the INSERT)"""
    shape, op, pairs, with_k = q
    kcol = [", k"] if with_k else [""]
    if shape in ("setop", "raw"):
        left = "SELECT %s%s FROM l" % (", ".join(cl for cl, _ in pairs), kcol[0])
        right = "SELECT %s%s FROM r" % (", ".join(cr for _, cr in pairs), kcol[0])
        if shape == "raw":
            t = pair_type(j, *pairs[0])[0]
            cols = "v0 %s%s" % (sql_type(t), ", k STRING" if with_k else "")
            return cols, "%s %s %s" % (left, op, right)
        names = [cl for cl, _ in pairs]
        if len(set(names)) < len(names):  # the union takes the left's names: make them differ
            left = "SELECT %s%s FROM l" % (", ".join("%s AS c%d" % (cl, i) for i, (cl, _) in enumerate(pairs)),
                                           kcol[0])
            names = ["c%d" % i for i in range(len(pairs))]
        sel = ", ".join("CAST(%s AS STRING), TYPEOF(%s)" % (n, n) for n in names)
        cols = ", ".join("v%d STRING, t%d STRING" % (i, i) for i in range(len(pairs)))
        return (cols + (", k STRING" if with_k else ""),
                "SELECT %s%s FROM (%s %s %s) AS u" % (sel, kcol[0], left, op, right))
    (cl, cr), = pairs
    if shape == "changelog":
        return ("s STRING, st STRING, k STRING",
                "SELECT CAST(s AS STRING), TYPEOF(s), k FROM (SELECT SUM(%s) AS s, k FROM l GROUP BY k %s "
                "SELECT SUM(%s), k FROM r GROUP BY k) AS u" % (cl, op, cr))
    if shape == "group":
        return ("k STRING, s STRING, st STRING, n STRING, mn STRING, mx STRING",
                "SELECT k, CAST(SUM(c) AS STRING), TYPEOF(SUM(c)), CAST(COUNT(c) AS STRING), CAST(MIN(c) AS STRING), "
                "CAST(MAX(c) AS STRING) FROM (SELECT k, %s AS c FROM l UNION ALL SELECT k, %s FROM r) AS u GROUP BY k"
                % (cl, cr))
    return ("ws STRING, s STRING, st STRING, n STRING, mx STRING",
            "SELECT CAST(window_start AS STRING), CAST(SUM(c) AS STRING), TYPEOF(SUM(c)), CAST(COUNT(*) AS STRING), "
            "CAST(MAX(c) AS STRING) FROM TABLE(TUMBLE(TABLE w%d, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
            "GROUP BY window_start, window_end" % qi)


def table_ddl(j, side):
    s = j.sides[side]
    cols = ", ".join("%s %s%s" % (c, sql_type(t), " NOT NULL" if nn else "") for c, (t, nn, _) in s.cols.items())
    return ("CREATE TABLE %s (%s, k STRING, b BOOLEAN, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) "
            "WITH ('connector' = 'filesystem', 'path' = '%s.csv', 'format' = 'csv');" % (side, cols, side))


def job_sql(j):
    out = ["-- setop_widen_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else ""),
           table_ddl(j, "l"), table_ddl(j, "r")]
    if j.error:
        op, c, other, num_left = j.error
        left, right = (c, other) if num_left else (other, c)
        out.append("CREATE TABLE q0 (v STRING) WITH ('connector' = 'blackhole');")
        out.append("INSERT INTO q0 SELECT CAST(%s AS STRING) FROM (SELECT %s FROM l %s SELECT %s FROM r) AS u;"
                   % (left, left, op, right))
        return "\n".join(out) + "\n"
    for qi, q in enumerate(j.queries):
        if q[0] == "tumble":
            (cl, cr), = q[2]
            out.append("CREATE VIEW w%d AS SELECT %s AS c, ts FROM l UNION ALL SELECT %s, ts FROM r;" % (qi, cl, cr))
    inserts = []
    for qi, q in enumerate(j.queries):
        cols, sel = query_sql(j, qi, q)
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, cols, qi))
        inserts.append("  INSERT INTO q%d %s;" % (qi, sel))
    out += ["EXECUTE STATEMENT SET BEGIN"] + inserts + ["END;"]
    return "\n".join(out) + "\n"


def error_want(j):
    """The refusal of an error job: the column and both types named."""
    op, c, other, num_left = j.error
    t, nn = col_type(j, "l" if num_left else "r", c)
    num = type_name(t, nn)
    oth = {"k": "STRING", "ts": "TIMESTAMP(3)", "b": "BOOLEAN"}[other]
    return op, c if num_left else other, num if num_left else oth, oth if num_left else num


def fold_text(folder, cols):
    """fold_debezium with every value as its JSON text (numbers keep their digits)."""
    return diffrun.fold_debezium(folder, cols, numbers_as_text=True)


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d%s)" % (j.parallelism, j.batch, ", rocksdb" if j.rocksdb else "")
    for side in ("l", "r"):
        s = j.sides[side]
        with open(case.path(side + ".csv"), "w") as f:
            for row in s.rows:
                f.write("%s,%s,%s,%s,%s\n" % (csv_text(row["x"], s.cols["x"][0], case.rng),
                                              csv_text(row["y"], s.cols["y"][0], case.rng), row["k"],
                                              "true", ts_text(row["ts"])))
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if j.error:
        case.counts["refusals"] += 1
        op, name, lt, rt = error_want(j)
        want = "%s column 1 ('%s') has type %s on the left and %s on the right; add a CAST" % (op, name, lt, rt)
        if p.returncode == 0 or want not in p.stderr:
            return ["want the refusal %r; weir exited %d: %s" % (want, p.returncode, p.stderr.strip()[-1000:])]
        return []
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    problems = []
    for qi, q in enumerate(j.queries):
        case.counts[q[0]] += 1
        what = "q%d (%s %s %s)" % (qi, q[0], q[1], ", ".join(
            "%s %s | %s %s" % (cl, sql_type(j.sides["l"].cols[cl][0]), cr, sql_type(j.sides["r"].cols[cr][0]))
            for cl, cr in q[2]))
        try:
            got = fold_text(case.path("q%d" % qi), out_cols(q))
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, oracle(j, q), got)
    return problems


def main():
    return diffrun.main("setop_widen_diff", run_case, jobs_env="WEIR_SETOPWIDEN_JOBS", jobs=20, asan_jobs=4,
                        one_env="WEIR_SETOPWIDEN_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
