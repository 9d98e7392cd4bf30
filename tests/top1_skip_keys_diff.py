#!/usr/bin/env python3
"""Randomized differential test of a regular join that skips the rows its
Top-1 would drop (ops/top1_hint.h, planner/top1_skip.c), over the keys and
sort keys that tests/top1_skip_diff.py does not draw.

Each case: two JSON inputs l and r of one schema,

    (id INT, k0 K0 [, k1 K1], c1 T1, c2 T2)

a join key of one or two columns (BIGINT, INT, STRING, DOUBLE with 0.0 and
-0.0, TIMESTAMP(3), DECIMAL(10, 2)), duplicate keys on both sides, a NULL
key now and then, and c1, c2 of those types or BOOLEAN (NULL now and then;
strings up to 60 bytes, longer than a hint entry holds). Then one query

    SELECT <partition>, l.id, r.id, <ordered side>.c1, .c2 FROM (
      SELECT ..., ROW_NUMBER() OVER (PARTITION BY <one side's key columns,
                                     in the key's order or reversed>
                                     ORDER BY 1 to 3 of c1, c2, id of one side,
                                     ASC|DESC [NULLS FIRST|LAST]) AS rn
      FROM l JOIN r ON l.k0 = r.k0 [AND l.k1 = r.k1]) WHERE rn = 1

into a debezium-json file, with 'weir.join.top1-skip' on (the default) and
off; parallelism 1, 2 or 4, batches of 1, 3 or 1 024 rows, RocksDB in
about three cases in ten. The ordered side is mostly the one with more rows
(its rows come after the Top-1 holds a row for their key, so rows are
skipped); the partition mostly the left key (the shape that links).

Which pair of a partition the Top-1 keeps among equal sort keys depends on
how the inputs interleave, so the oracle is the final table: per partition
of the pairs that meet the join, exactly one row, a pair of rows of l and r
(by their ids) with that partition's key, whose sort key (SQL order: NULL
the smallest unless NULLS FIRST/LAST says otherwise, -0.0 = 0.0) is the
least of the partition's pairs. The changelog must fold: each delete finds
its row. The summary counts the cases where the join was linked (EXPLAIN)
and the rows the joins skipped.

Usage: top1_skip_keys_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_TOP1KEYS_JOBS sets the count,
WEIR_TOP1KEYS_JOB=i runs one case (defaults: 24 cases, 8 under ASan).
"""

import datetime
import decimal
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

KEY_TYPES = ["BIGINT", "INT", "STRING", "DOUBLE", "TIMESTAMP(3)", "DECIMAL(10, 2)"]
COL_TYPES = KEY_TYPES + ["BOOLEAN"]
LONG = "x" * 60  # a sort key longer than a hint entry's 54 bytes


def draw(rng, t):
    """A value of type t: small ranges (ties), the edges where they matter."""
    if t == "BIGINT":
        return rng.choice([rng.randint(-3, 3), -(1 << 62)])
    if t == "INT":
        return rng.randint(-5, 5)
    if t == "STRING":
        return rng.choice(["", "a", "ab", "b", "a\u00e9", LONG, LONG + "y"])
    if t == "DOUBLE":
        return rng.choice([0.0, -0.0, 1.5, -2.25, 1e300])
    if t == "TIMESTAMP(3)":
        return rng.choice([0, 1, 999, 86400000])  # ms since the epoch
    if t == "DECIMAL(10, 2)":
        return rng.choice(["1.50", "-2.25", "0.00", "99999999.99"])
    return rng.random() < 0.5  # BOOLEAN


def json_value(t, v):
    if v is None:
        return None
    if t == "TIMESTAMP(3)":
        d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=v)
        return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (v % 1000)
    if t == "DECIMAL(10, 2)":
        return float(v)
    return v


def same(v):
    """A value as SQL compares it (-0.0 = 0.0, decimals by value)."""
    if isinstance(v, float) and v == 0:
        return 0.0
    return v


def order_value(t, v, desc, nulls_last):
    """One column's place in SQL order, as a tuple that Python orders so."""
    if v is None:
        return (1 if nulls_last else -1, 0)
    if t == "DECIMAL(10, 2)":
        v = decimal.Decimal(v)
    elif t == "BOOLEAN":
        v = int(v)
    elif t == "STRING":
        b = tuple(v.encode())
        # bytes compared lexicographically; a prefix first (ASC) or last (DESC)
        return (0, tuple(255 - x for x in b) + (256,) if desc else b + (-1,))
    v = same(v)
    return (0, -v if desc else v)


def gen(rng):
    c = {"nk": rng.choice([1, 2])}
    c["ktypes"] = [rng.choice(KEY_TYPES) for _ in range(c["nk"])]
    c["ctypes"] = {"c1": rng.choice(COL_TYPES), "c2": rng.choice(COL_TYPES), "id": "INT"}
    keys = sorted({tuple(draw(rng, t) for t in c["ktypes"]) for _ in range(rng.randint(1, 8))}, key=repr)
    c["side"] = rng.choice(["l", "r"])  # the ORDER BY side, mostly the bigger input
    c["part"] = "r" if rng.random() < 0.15 else "l"
    c["reversed"] = c["nk"] == 2 and rng.random() < 0.2
    many = rng.random() < 0.85

    def rows(n):
        out = []
        for i in range(n):
            key = rng.choice(keys)
            r = {"id": i}
            for j in range(c["nk"]):
                r["k%d" % j] = key[j] if rng.random() > 0.03 else None
            for col in ("c1", "c2"):
                r[col] = draw(rng, c["ctypes"][col]) if rng.random() > 0.15 else None
            out.append(r)
        return out

    for s in ("l", "r"):
        c[s] = rows(rng.randint(0, 80 if (s == c["side"]) == many else 15))
    c["order"] = [(col, rng.random() < 0.5, rng.choice([None, True, False]))
                  for col in rng.sample(["c1", "c2", "id"], rng.choice([1, 2, 3]))]
    c["par"], c["batch"], c["rocksdb"] = rng.choice([1, 2, 4]), rng.choice([1, 3, 1024]), rng.random() < 0.3
    return c


def job_sql(c, out):
    nk, ktypes, ctypes = c["nk"], c["ktypes"], c["ctypes"]
    cols = "id INT, %s, c1 %s, c2 %s" % (", ".join("k%d %s" % (j, t) for j, t in enumerate(ktypes)),
                                         ctypes["c1"], ctypes["c2"])
    part = ["%s.k%d" % (c["part"], j) for j in range(nk)]
    if c["reversed"]:
        part.reverse()
    order = ", ".join("%s.%s %s%s" % (c["side"], col, "DESC" if d else "ASC",
                                       "" if n is None else " NULLS LAST" if n else " NULLS FIRST")
                      for col, d, n in c["order"])
    pks = ", ".join("pk%d" % j for j in range(nk))
    sql = ["CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');" % (s, cols, s)
           for s in ("l", "r")]
    sql.append("CREATE TABLE %s (%s, lid INT, rid INT, o1 %s, o2 %s) WITH ('connector' = 'filesystem', "
               "'path' = '%s', 'format' = 'debezium-json');"
               % (out, ", ".join("pk%d %s" % (j, t) for j, t in enumerate(ktypes)), ctypes["c1"], ctypes["c2"], out))
    sql.append("INSERT INTO %s SELECT %s, lid, rid, o1, o2 FROM (SELECT %s, l.id AS lid, r.id AS rid, %s.c1 AS o1, "
               "%s.c2 AS o2, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM l JOIN r ON %s) WHERE rn = 1;"
               % (out, pks, ", ".join("%s.k%d AS pk%d" % (c["part"], j, j) for j in range(nk)), c["side"],
                  c["side"], ", ".join(part), order,
                  " AND ".join("l.k%d = r.k%d" % (j, j) for j in range(nk))))
    return "\n".join(sql) + "\n"


def sort_key(c, row):
    return tuple(order_value(c["ctypes"][col], row[col], d, d if n is None else n) for col, d, n in c["order"])


def meets(c, a, b):
    return all(a["k%d" % j] is not None and b["k%d" % j] is not None and same(a["k%d" % j]) == same(b["k%d" % j])
               for j in range(c["nk"]))


def partition(c, a, b):
    return tuple(same((a if c["part"] == "l" else b)["k%d" % j]) for j in range(c["nk"]))


def expected(c):
    """Per partition, the least sort key of its pairs."""
    best = {}
    for a in c["l"]:
        for b in c["r"]:
            if meets(c, a, b):
                p, s = partition(c, a, b), sort_key(c, a if c["side"] == "l" else b)
                if p not in best or s < best[p]:
                    best[p] = s
    return best


def got_table(c, folder):
    """Per partition, the sort key of the pair the final table holds; problems."""
    cols = ["pk%d" % j for j in range(c["nk"])] + ["lid", "rid"]
    try:
        table = diffrun.fold_debezium(folder, cols, diffrun.committed_files(folder))
    except ValueError as e:
        return {}, ["the changelog does not fold: %s" % e]
    by_id = {s: {r["id"]: r for r in c[s]} for s in ("l", "r")}
    got, problems = {}, []
    for v, n in sorted(table.items(), key=repr):
        a, b = by_id["l"].get(v[-2]), by_id["r"].get(v[-1])
        if n != 1 or a is None or b is None or not meets(c, a, b):
            problems.append("row %r (count %d) is no pair of the join once" % (v, n))
            continue
        p = partition(c, a, b)
        if p in got:
            problems.append("partition %r holds two rows" % (p,))
        got[p] = sort_key(c, a if c["side"] == "l" else b)
    return got, problems


def run_case(case):
    c = gen(case.rng)
    case.note = "(key %s, %s ordered, %s key, %d l rows, %d r rows, parallelism %d, batch %d%s)" % (
        " + ".join(c["ktypes"]), c["side"], c["part"] + (" reversed" if c["reversed"] else ""), len(c["l"]),
        len(c["r"]), c["par"], c["batch"], ", RocksDB" if c["rocksdb"] else "")
    types = dict(c["ctypes"], **{"k%d" % j: t for j, t in enumerate(c["ktypes"])})
    for s in ("l", "r"):
        os.makedirs(case.path(s))
        with open(case.path(s, "part0.json"), "w") as f:
            for r in c[s]:
                f.write(json.dumps({k: json_value(types[k], v) for k, v in r.items()}) + "\n")
    want = expected(c)
    problems = []
    for mode in ("on", "off"):
        case.write(mode + ".sql", job_sql(c, "out_" + mode))
        opts = ["-D", "weir.join.top1-skip=false"] if mode == "off" else []
        p = case.run_weir(["run", mode + ".sql"] + opts + diffrun.engine_options(case, c["par"], c["batch"], c["rocksdb"]))
        if p.returncode:
            return problems + [diffrun.failed_run(p)]
        if mode == "on":
            ex = case.run_weir(["explain", "on.sql"])
            if ex.returncode:
                return [diffrun.failed_run(ex)]
            linked = "skips for Join" in ex.stdout
            n = sum(int(x) for x in re.findall(r"summary: operator Join \(task \d+\): (\d+) rows? (?:not joined|neither joined nor stored)", p.stderr))
            case.counts["cases linked"] += linked
            case.counts["rows skipped by the joins"] += n
            if n and not linked:
                problems.append("rows skipped by a join EXPLAIN does not link")
        got, bad = got_table(c, case.path("out_" + mode))
        problems += ["skipping %s: %s" % (mode, b) for b in bad[:5]]
        for p_ in sorted(set(want) | set(got), key=repr):
            if want.get(p_) != got.get(p_):
                problems.append("skipping %s: partition %r: want the sort key %r, got %r"
                                % (mode, p_, want.get(p_), got.get(p_)))
                if len(problems) >= 8:
                    return problems
    return problems


def main():
    return diffrun.main("top1_skip_keys_diff", run_case, jobs_env="WEIR_TOP1KEYS_JOBS", jobs=24, asan_jobs=8,
                        one_env="WEIR_TOP1KEYS_JOB")


if __name__ == "__main__":
    sys.exit(main())
