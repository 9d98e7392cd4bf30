#!/usr/bin/env python3
"""Randomized differential test of the key columns a regular join writes
back into the rows it stored.

An insert-only side that counts no matches keeps its rows in a row log
whose elements leave out the key columns (a key column whose pair on the
other side is an output column of the same type): when a row of the other
side probes the log, those values come from the probing row, whose key has
the same bytes. And a stored row met again in one output batch is not
decoded again: the output row takes the values of the earlier row that
decoded the same bytes, the left-out key columns still from its own probe.
Rows of different keys whose other columns are the same bytes (nothing but
the key selected, or a short text of few values), a NULL key under IS NOT
DISTINCT FROM among them, are met in one batch here, so an output row that
keeps a value, or a NULL, of another key's row shows.

Each job: two inputs l and r, each

    id INT, k0 .. kn-1 (the key columns, 1 to 3), v STRING ('p', 'q' or NULL)

the key pairs of one type on both sides mostly (BIGINT, INT, DECIMAL(10, 2),
DECIMAL(30, 5), TIMESTAMP(3), TIMESTAMP_LTZ(3), DATE, TIME(3), BOOLEAN,
BYTES, STRING, DOUBLE: the 8-byte values that the join writes with one move
most often), now and then of two types that
meet once widened (INT and BIGINT, DECIMAL(10, 2) and DECIMAL(12, 4) or
DECIMAL(30, 5), INT and DECIMAL(10, 2), BIGINT and DECIMAL(38, 0), TIME(0)
and TIME(3), either way round: each side must print its own value and type,
and TIME(0) 12:00:00 miss TIME(3) 12:00:00.500); few values
a key and many NULLs (one row in four). l is append-only (json); r too, or
in about one job in four a debezium-json changelog (each row inserted, now
and then an update of a row still there - new keys, the same id - or its
delete), whose retractions meet l's row log. Then a statement set of 2 to 5
queries into debezium-json files:

    SELECT <cols> FROM l [INNER|LEFT|RIGHT|FULL] JOIN r ON the keys
           (each '=' or IS NOT DISTINCT FROM) [AND MOD(l.id + r.id, 3) <> 0
           | AND (l|r.kI IS NULL) = (l|r.v IS NULL)]

selecting every key column of both sides (some twice), the ids only now and
then (a stored row holding its id is the same bytes as no other), v now and
then. Parallelism 1, 2 or 4, batch size 1, 7 or 1024, the memory backend or
RocksDB. In about one job in four the job is stopped with a checkpoint once
it read a first part of both inputs (SIGTERM) and run to the end from it,
at another parallelism, after the rest came: the result must be that of
one run.

The oracle: nested loops. '=' meets no NULL and no NaN, -0.0 meets 0.0 (each
side printing its own); IS NOT DISTINCT FROM meets NULL with NULL; values of
two types meet when equal as numbers. The final table of each query (its
changelog folded) must equal the oracle's over the rows l and r hold at the
end, column by column.

Usage: join_keyfill_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_KEYFILL_JOBS sets the count,
WEIR_KEYFILL_JOB=i runs one job (defaults: 30 jobs, 10 under ASan).
"""

import base64
import collections
import datetime
import json
import math
import os
import re
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

EPOCH = datetime.datetime(1970, 1, 1)
T0 = 1767225600000  # 2026-01-01 00:00:00 UTC, ms

# A key pair's types (left, right) and the values its keys draw from (as the oracle
# holds them: int, Decimal, float, str; a TIMESTAMP or DATE as ms or days since 1970).
SAME = {
    "BIGINT": [0, 1, -1, 2 ** 63 - 1, -2 ** 63, 7],
    "INT": [0, 1, -7, 2 ** 31 - 1],
    "DECIMAL(10, 2)": [Decimal("0.00"), Decimal("1.50"), Decimal("-3.25"), Decimal("99999999.99")],
    "DECIMAL(30, 5)": [Decimal("0.00000"), Decimal("12345678901234567890.12345"), Decimal("-0.00001")],
    "TIMESTAMP(3)": [T0, T0 + 123, -1, 0],
    "TIMESTAMP_LTZ(3)": [T0, T0 + 123, -1],
    "DATE": [0, -1, 20454],
    "TIME(3)": [0, 43200500, 86399999],
    "BOOLEAN": [True, False],
    "BYTES": [b"", b"\x00", b"\xff\x00"],
    "STRING": ["", "a", "\u00fc\u20ac", "a "],
    "DOUBLE": [0.0, -0.0, 1.5, float("nan")],
}
MIXED = [
    ("INT", "BIGINT", [0, 1, -7, 2 ** 31 - 1]),
    ("DECIMAL(10, 2)", "DECIMAL(12, 4)", [Decimal("0"), Decimal("1.5"), Decimal("-3.25"), Decimal("99999999.99")]),
    ("INT", "DECIMAL(10, 2)", [0, 1, -7, 99999999]),
    ("DECIMAL(10, 2)", "DECIMAL(30, 5)", [Decimal("0"), Decimal("-3.25"), Decimal("99999999.99")]),
    ("BIGINT", "DECIMAL(38, 0)", [0, -1, 2 ** 63 - 1, -2 ** 63]),
    # compared as TIME(3), whichever side has it: 12:00:00 misses 12:00:00.500
    ("TIME(0)", "TIME(3)", [0, 43200000, 43200500, 86399999]),
]


def draw_keys(rng):
    """1 to 3 key pairs: (left type, right type, values)."""
    keys = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        if rng.random() < 0.2:
            a, b, vals = rng.choice(MIXED)
            keys.append((a, b, vals) if rng.random() < 0.5 else (b, a, vals))
        else:
            # the 8-byte keys the join writes with one move most often
            t = rng.choice(list(SAME) + ["BIGINT", "DECIMAL(10, 2)", "TIMESTAMP(3)"] * 2)
            keys.append((t, t, SAME[t]))
    return keys


def json_value(t, v):
    if v is None:
        return None
    if t.startswith("DECIMAL"):
        return str(v)
    if t == "DOUBLE":
        return "NaN" if math.isnan(v) else v
    if t.startswith("TIME("):
        return "%02d:%02d:%02d.%03d" % (v // 3600000, v // 60000 % 60, v // 1000 % 60, v % 1000)
    if t == "BYTES":
        return base64.b64encode(v).decode()
    if t.startswith("TIMESTAMP"):
        d = EPOCH + datetime.timedelta(milliseconds=v)
        return "%04d-%02d-%02d %02d:%02d:%02d.%03d" % (d.year, d.month, d.day, d.hour, d.minute, d.second,
                                                       d.microsecond // 1000)
    if t == "DATE":
        return (EPOCH.date() + datetime.timedelta(days=v)).isoformat()
    return v


def out_value(t, text):
    """A value of the output (numbers read as text) as the oracle holds it."""
    if text is None:
        return None
    if t in ("INT", "BIGINT"):
        return int(text)
    if t.startswith("DECIMAL"):
        scale = int(t.split(",")[1].strip(" )"))
        if not re.fullmatch(r"-?\d+" + (r"\.\d{%d}" % scale if scale else ""), text):
            raise ValueError("not a %s as weir writes it: %r" % (t, text))
        return Decimal(text)
    if t == "DOUBLE":
        return float(text)
    if t.startswith("TIME("):  # the fraction's digits without trailing zeros, none when it is 0
        m = re.fullmatch(r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?", text)
        if not m or (m.group(4) or "1")[-1] == "0":
            raise ValueError("not a TIME as weir writes it: %r" % text)
        return ((int(m.group(1)) * 60 + int(m.group(2))) * 60 + int(m.group(3))) * 1000 + \
            int((m.group(4) or "0").ljust(3, "0"))
    if t == "BYTES":
        return base64.b64decode(text, validate=True)
    if t.startswith("TIMESTAMP"):
        m = re.fullmatch(r"(-?\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})%s" % ("Z" if "LTZ" in t else ""),
                         text)
        if not m:
            raise ValueError("not a TIMESTAMP(3): %r" % text)
        d = datetime.datetime(*map(int, m.groups()[:6]), microsecond=int(m.group(7)) * 1000)
        return (d - EPOCH) // datetime.timedelta(milliseconds=1)
    if t == "DATE":
        return (datetime.date.fromisoformat(text) - EPOCH.date()).days
    return text


def canon(t, v):
    """A value as the result compares it: a DOUBLE by its text (-0.0 apart from
    0.0), a DECIMAL with its type's scale (1.5 is 1.5000 in DECIMAL(12, 4))."""
    if v is None:
        return None
    if t == "DOUBLE":
        return repr(v)
    if t.startswith("DECIMAL"):
        return str(Decimal(v).quantize(Decimal(1).scaleb(-int(t.split(",")[1].strip(" )")))))
    return v


def equal(a, b):
    """SQL a = b (None: NULL): no NULL, no NaN meets; -0.0 meets 0.0; numbers as numbers."""
    return a is not None and b is not None and a == b


def key_value(rng, key, side):
    """A value of key pair `key` for side l or r: NULL one time in four; a
    TIME(0) cut to whole seconds, as it is read."""
    if rng.random() < 0.25:
        return None
    v = rng.choice(key[2])
    return v - v % 1000 if key[0 if side == "l" else 1] == "TIME(0)" else v


def gen_rows(rng, keys, side, n, id0):
    rows = []
    for i in range(n):
        r = {"id": id0 + i, "v": rng.choice(["p", "q", None])}
        for k, key in enumerate(keys):
            r["k%d" % k] = key_value(rng, key, side)
        rows.append(r)
    return rows


def gen_changes(rng, rows, keys):
    """r as a changelog: (op, before, after) per change, and the rows left."""
    def updated(row):
        new = dict(row, v=rng.choice(["p", "q", None]))
        for k, key in enumerate(keys):
            new["k%d" % k] = key_value(rng, key, "r")
        return new
    return diffrun.random_changes(rng, rows, updated, 0.3)


def col_type(keys, side, name):
    if name == "id":
        return "INT"
    if name == "v":
        return "STRING"
    return keys[int(name[1:])][0 if side == "l" else 1]


def gen_query(rng, keys):
    q = {"type": rng.choice(["INNER", "INNER", "INNER", "LEFT", "RIGHT", "FULL"]),
         "conds": [(k, rng.random() < 0.5) for k in range(len(keys))],
         "residual": rng.choice([None] * 6 + ["ids", "keys", "keys"]),
         # (keys) a key column of one side against v of either: read from a stored row, written back
         "rk": (rng.choice("lr"), rng.randrange(len(keys)), rng.choice("lr"))}
    rng.shuffle(q["conds"])
    out = [(s, "k%d" % k) for s in "lr" for k in range(len(keys))]
    out += [rng.choice(out) for _ in range(rng.randint(0, 2))]  # a key column twice
    for s in "lr":
        if rng.random() < 0.2:
            out.append((s, "id"))
        if rng.random() < 0.35:
            out.append((s, "v"))
    rng.shuffle(out)
    q["out"] = out
    return q


def query_sql(q):
    cols = ", ".join("%s.%s" % c for c in q["out"])
    on = " AND ".join("l.k%d %s r.k%d" % (k, "IS NOT DISTINCT FROM" if ns else "=", k) for k, ns in q["conds"])
    if q["residual"] == "ids":
        on += " AND MOD(l.id + r.id, 3) <> 0"
    elif q["residual"] == "keys":
        on += " AND (%s.k%d IS NULL) = (%s.v IS NULL)" % q["rk"]
    return "SELECT %s FROM l %s JOIN r ON %s" % (cols, q["type"], on)


def expected(q, keys, lrows, rrows):
    def meets(l, r):
        for k, ns in q["conds"]:
            a, b = l["k%d" % k], r["k%d" % k]
            if not (equal(a, b) or (ns and a is None and b is None)):
                return False
        if q["residual"] == "ids":
            return (l["id"] + r["id"]) % 3 != 0
        if q["residual"] == "keys":
            s, k, t = q["rk"]
            return ((l if s == "l" else r)["k%d" % k] is None) == ((l if t == "l" else r)["v"] is None)
        return True

    def row(l, r):
        return tuple(None if (l if s == "l" else r) is None else
                     canon(col_type(keys, s, c), (l if s == "l" else r)[c]) for s, c in q["out"])

    return diffrun.nested_loop_join(q["type"], lrows, rrows, meets, row)


def table_sql(name, keys, fmt, watched):
    cols = ["id INT"] + ["k%d %s" % (k, key[0 if name == "l" else 1]) for k, key in enumerate(keys)] + ["v STRING"]
    return "CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = '%s'%s);" % (
        name, ", ".join(cols), name, fmt, ", 'source.monitor-interval' = '20ms'" if watched else "")


def job_sql(case, keys, queries, changelog, watched=False):
    sql = ["-- join_keyfill_diff seed %d job %d" % (case.seed, case.index), table_sql("l", keys, "json", watched),
           table_sql("r", keys, "debezium-json" if changelog else "json", watched)]
    for qi, q in enumerate(queries):
        cols = ", ".join("c%d %s" % (i, col_type(keys, s, c)) for i, (s, c) in enumerate(q["out"]))
        sql.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, cols, qi))
    sql.append("EXECUTE STATEMENT SET BEGIN")
    sql += ["  INSERT INTO q%d %s;" % (qi, query_sql(q)) for qi, q in enumerate(queries)]
    sql.append("END;")
    return "\n".join(sql) + "\n"


def side_json(keys, side, r):
    return {c: json_value(col_type(keys, side, c), r[c]) for c in r}


def write_part(case, side, lines, name):
    """One file of an input's folder, whole or not at all (a watching source may list it at once)."""
    os.makedirs(case.path(side), exist_ok=True)
    case.write(os.path.join(side, "." + name), "".join(json.dumps(x) + "\n" for x in lines))
    os.rename(case.path(side, "." + name), case.path(side, name))


def run_case(case):
    rng = case.rng
    keys = draw_keys(rng)
    n_l, n_r = rng.randint(0, 200), rng.randint(0, 200)
    lrows = gen_rows(rng, keys, "l", n_l, 1)
    rrows = gen_rows(rng, keys, "r", n_r, 1001)
    changelog = rng.random() < 0.25
    queries = [gen_query(rng, keys) for _ in range(rng.randint(2, 5))]
    par, batch, rocksdb = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024, 1024]), rng.random() < 0.5
    # stopped with a checkpoint mid-input and restored at another parallelism: the rows
    # stored before it met by rows after it
    restore = rng.random() < 0.25 and n_l > 1 and n_r > 1
    case.note = "(keys %s, parallelism %d, batch %d, %s%s%s)" % (
        ", ".join(a if a == b else "%s = %s" % (a, b) for a, b, _ in keys), par, batch,
        "RocksDB" if rocksdb else "memory", ", r a changelog" if changelog else "",
        ", stopped and restored" if restore else "")
    case.write("job.sql", job_sql(case, keys, queries, changelog))
    lines = {"l": [side_json(keys, "l", r) for r in lrows]}
    if changelog:
        changes, rrows = gen_changes(rng, rrows, keys)
        lines["r"] = [{"before": b and side_json(keys, "r", b), "after": a and side_json(keys, "r", a), "op": op}
                      for op, b, a in changes]
        case.counts["r a changelog"] += 1
    else:
        lines["r"] = [side_json(keys, "r", r) for r in rrows]
    opts = diffrun.engine_options(case, par, batch, rocksdb)
    if restore:
        cut = {s: rng.randint(1, len(lines[s]) - 1) for s in "lr"}
        for s in "lr":
            write_part(case, s, lines[s][:cut[s]], "part0.json")
        case.write("watched.sql", job_sql(case, keys, queries, changelog, True))
        ended = diffrun.stop_for_restore(case, opts)
        if ended is not None:
            return ended
        for s in "lr":
            write_part(case, s, lines[s][cut[s]:], "part1.json")
        par = rng.choice([p for p in (1, 2, 4) if p != par])
        opts = ["-D", "state.checkpoints.dir=ckpt"] + diffrun.engine_options(case, par, batch, rocksdb)
        case.counts["stopped and restored at another parallelism"] += 1
    else:
        for s in "lr":
            write_part(case, s, lines[s], "part0.json")
    p = case.run_weir(["run", "job.sql"] + opts)
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    if restore and "restoring from" not in p.stderr:
        return ["the last run did not restore the checkpoint: " + p.stderr[-600:]]
    problems = []
    for qi, q in enumerate(queries):
        what = "q%d (%s)" % (qi, query_sql(q))
        names = ["c%d" % i for i in range(len(q["out"]))]
        folder = case.path("q%d" % qi)
        try:
            raw = diffrun.fold_debezium(folder, names, diffrun.committed_files(folder), numbers_as_text=True)
            got = collections.Counter()
            for row, n in raw.items():
                got[tuple(canon(col_type(keys, s, c), out_value(col_type(keys, s, c), x))
                          for (s, c), x in zip(q["out"], row))] += n
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, expected(q, keys, lrows, rrows), got)
        case.counts["%s JOIN" % q["type"]] += 1
        case.counts["NULL-safe key pairs"] += sum(ns for _, ns in q["conds"])
        if q["residual"]:
            case.counts["residuals over %s" % q["residual"]] += 1
    return problems


def main():
    return diffrun.main("join_keyfill_diff", run_case, jobs_env="WEIR_KEYFILL_JOBS", jobs=30, asan_jobs=10,
                        one_env="WEIR_KEYFILL_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
