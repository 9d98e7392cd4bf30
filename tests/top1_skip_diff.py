#!/usr/bin/env python3
"""Randomized differential test of a regular join that skips the rows its
Top-1 would drop (ops/top1_hint.h, planner/top1_skip.c).

Each case: two JSON inputs, o with at most one row per key and m with many
rows per key (a hot key takes about half of them; NULL keys; keys o lacks),

    o (id KEY, a STRING, lo BIGINT, hi BIGINT, ts TIMESTAMP(3))
    m (mid INT, k KEY, p INT, t BIGINT, x STRING, ts TIMESTAMP(3))

KEY drawn from BIGINT, INT and STRING; p and t from small ranges (ties in
the sort key), p and x NULL now and then, a NULL in o.a too. Then a
statement set of 2 to 4 queries, each

    SELECT key, ..., m's columns [, rn] FROM (
      SELECT ..., ROW_NUMBER() OVER (PARTITION BY <the left input's key>
                                     ORDER BY 1 or 2 of m.p, m.t, m.x, m.mid
                                     ASC|DESC [NULLS FIRST|LAST]) AS rn
      FROM o JOIN m ON o.id = m.k [AND m.t BETWEEN o.lo AND o.hi]   (or m JOIN o)
      [then, in a query around it: WHERE x IS NULL OR x <> a])
    WHERE rn <= 1 | rn = 1 | rn < 2

with the rank number in the output or not, into a debezium-json file. m
(the Top-1's ORDER BY side) is the join's left or right input.

Since o holds one row per key, the rows of a key reach its Top-1 in m's
order, however the two inputs interleave: each key's changelog is
determined, and is compared, change by change, with the oracle's - with
the skipping on (the default), and with 'weir.join.top1-skip' = 'false',
which must give the same changelog. In about four cases in ten the run
with the skipping on is stopped with a checkpoint once both inputs' first
files are read, and restored at another parallelism after the rest came
(the hint starts empty then). Batches of 1, 7 or 1 024 rows, parallelism
1, 2 or 4, RocksDB in about three cases in ten. In about one case in five o
has thousands of keys and m a few rows for each, no hot key: more partitions
than the hint table's first 1 024 slots, so keys overwrite each other's
entries there and the table grows (a join that took another key's entry for
its own would skip rows its Top-1 keeps). The summary of the runs counts the rows the joins skipped, so
that a run shows the skipping happened.

The oracle: per key, m's rows in order that meet o's row (and the
residual, and the filter); a row replaces the kept one when its sort key
(SQL order, NULL the smallest unless NULLS FIRST/LAST says otherwise) is
strictly less; the changes are +I for the first, then -U old, +U new with
the rank number, else +I new, -D old (debezium: c for +I and +U, d for -U
and -D).

Usage: top1_skip_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_TOP1SKIP_JOBS sets the count,
WEIR_TOP1SKIP_JOB=i runs one case (defaults: 24 cases, 10 under ASan).
"""

import collections
import datetime
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

T0 = 1767225600000  # 2026-01-01 00:00:00 UTC, ms


def ts_text(ms):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)


def gen(rng, ktype, many):
    """many: thousands of keys with a few m rows each and no hot key (the hint
    table holds one entry per slot: keys overwrite each other's and it grows)."""
    n_keys = rng.randint(1200, 2500) if many else rng.randint(1, 10)
    keys = [(i * 7 + 3) if ktype != "STRING" else "k%d" % i for i in range(n_keys)]
    o = []
    for i, k in enumerate(keys):
        if rng.random() < 0.85:
            lo = rng.randint(0, 10)
            o.append({"id": k, "a": rng.choice(["a", "b", "", None]), "lo": lo, "hi": lo + rng.randint(0, 15),
                      "ts": T0 + i})
    rng.shuffle(o)
    m = []
    hot = rng.choice(keys)
    for i in range(rng.randint(2 * n_keys, 4 * n_keys) if many else rng.randint(0, 160)):
        r = 0.6 if many else rng.random()
        k = hot if r < 0.5 else None if r < 0.55 else rng.choice(keys + [keys[0] * 2 + 1 if ktype != "STRING" else "zz"])
        m.append({"mid": i, "k": k, "p": None if rng.random() < 0.1 else rng.randint(0, 6),
                  "t": rng.randint(0, 20), "x": rng.choice(["a", "b", "c", None]), "ts": T0 + 100 + i})
    return o, m


def gen_query(rng):
    order = rng.sample(["p", "t", "x", "mid"], rng.choice([1, 1, 2]))
    return {
        "m_left": rng.random() < 0.5,
        "order": [(c, rng.random() < 0.5, rng.choice([None, None, True, False])) for c in order],
        "residual": rng.random() < 0.5,
        "filter": rng.random() < 0.3,
        "rn_out": rng.random() < 0.4,
        "rn_cond": rng.choice(["rn <= 1", "rn = 1", "rn < 2"]),
    }


def query_sql(q):
    pk = "m.k" if q["m_left"] else "o.id"
    order = ", ".join("%s %s%s" % (c, "DESC" if d else "ASC", "" if n is None else " NULLS LAST" if n else " NULLS FIRST")
                      for c, d, n in q["order"])
    frm = "m JOIN o ON m.k = o.id" if q["m_left"] else "o JOIN m ON o.id = m.k"
    if q["residual"]:
        frm += " AND m.t BETWEEN o.lo AND o.hi"
    inner = "SELECT %s AS pk, o.a, m.mid, m.p, m.t, m.x FROM %s" % (pk, frm)
    if q["filter"]:
        inner = "SELECT * FROM (%s) WHERE x IS NULL OR x <> a" % inner
    ranked = "SELECT pk, a, mid, p, t, x, ROW_NUMBER() OVER (PARTITION BY pk ORDER BY %s) AS rn FROM (%s)" % (
        order, inner)
    return "SELECT pk, a, mid, p, t, x%s FROM (%s) WHERE %s" % (", rn" if q["rn_out"] else "", ranked, q["rn_cond"])


def sort_key(q, r):
    """The row's place in SQL order as a tuple: per column (NULL flag, value), DESC by negation."""
    out = []
    for c, desc, nulls in q["order"]:
        nulls_last = desc if nulls is None else nulls
        v = r[c]
        if v is None:
            out.append((1 if nulls_last else -1, 0))
            continue
        if isinstance(v, str):
            b = tuple(v.encode())
            v = tuple(255 - x for x in b) + (256,) if desc else b + (-1,)
            # bytes compared lexicographically; a prefix first (ASC) or last (DESC)
        elif desc:
            v = -v
        out.append((0, v))
    return tuple(out)


def expected(q, o, m):
    """Per key, the changes in order: [(op, row)]."""
    by_key = {r["id"]: r for r in o}
    kept, out = {}, collections.defaultdict(list)
    for r in m:
        a = by_key.get(r["k"]) if r["k"] is not None else None
        if a is None:
            continue
        if q["residual"] and not (a["lo"] <= r["t"] <= a["hi"]):
            continue
        # x IS NULL OR x <> a: NULL (dropped) where a is NULL and x is not
        if q["filter"] and not (r["x"] is None or (a["a"] is not None and r["x"] != a["a"])):
            continue
        row = (r["k"], a["a"], r["mid"], r["p"], r["t"], r["x"]) + ((1,) if q["rn_out"] else ())
        sk = sort_key(q, r)
        old = kept.get(r["k"])
        if old is None:
            out[r["k"]].append(("c", row))
        elif sk < old[0]:
            if q["rn_out"]:
                out[r["k"]] += [("d", old[1]), ("c", row)]
            else:
                out[r["k"]] += [("c", row), ("d", old[1])]
        else:
            continue
        kept[r["k"]] = (sk, row)
    return out


def got_changes(case, folder, q, ktype):
    out = collections.defaultdict(list)
    names = ["pk", "a", "mid", "p", "t", "x"] + (["rn"] if q["rn_out"] else [])
    for op, row in diffrun.debezium_changes(case.path(folder), diffrun.committed_files(case.path(folder))):
        v = tuple(row[c] for c in names)
        out[v[0]].append((op, v))
    return out


def job_sql(case, ktype, queries, prefix, watched):
    src = ", 'source.monitor-interval' = '20ms'" if watched else ""
    sql = ["-- top1_skip_diff seed %d case %d" % (case.seed, case.index),
           "CREATE TABLE o (id %s, a STRING, lo BIGINT, hi BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
           "WITH ('connector' = 'filesystem', 'path' = 'o', 'format' = 'json'%s);" % (ktype, src),
           "CREATE TABLE m (mid INT, k %s, p INT, t BIGINT, x STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
           "WITH ('connector' = 'filesystem', 'path' = 'm', 'format' = 'json'%s);" % (ktype, src)]
    for i, q in enumerate(queries):
        sql.append("CREATE TABLE %s%d (pk %s, a STRING, mid INT, p INT, t BIGINT, x STRING%s) WITH "
                   "('connector' = 'filesystem', 'path' = '%s%d', 'format' = 'debezium-json');"
                   % (prefix, i, ktype, ", rn BIGINT" if q["rn_out"] else "", prefix, i))
    sql.append("EXECUTE STATEMENT SET BEGIN")
    sql += ["  INSERT INTO %s%d %s;" % (prefix, i, query_sql(q)) for i, q in enumerate(queries)]
    sql.append("END;")
    return "\n".join(sql) + "\n"


def write_rows(case, side, rows, name):
    os.makedirs(case.path(side), exist_ok=True)
    tmp = case.path(side, "." + name)
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps(dict(r, ts=ts_text(r["ts"]))) + "\n")
    os.rename(tmp, case.path(side, name))


def skipped(text):
    return sum(int(n) for n in re.findall(r"summary: operator Join \(task \d+\): (\d+) rows? neither joined nor stored", text))


def compare(what, want, got):
    problems = []
    for k in sorted(set(want) | set(got), key=repr):
        if want.get(k, []) != got.get(k, []):
            problems.append("%s: key %r: want %s, got %s" % (what, k, want.get(k, []), got.get(k, [])))
            if len(problems) >= 5:
                break
    return problems


def run_case(case):
    rng = case.rng
    ktype = rng.choice(["BIGINT", "BIGINT", "INT", "STRING"])
    # drawn from a stream of their own: the other draws stay those of earlier seeds
    extra = random.Random("%d/%d/extra" % (case.seed, case.index))
    many, rocksdb = extra.random() < 0.2, extra.random() < 0.3
    o, m = gen(rng, ktype, many)
    queries = [gen_query(rng) for _ in range(rng.randint(2, 4))]
    par, batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 7, 1024])
    if many and batch == 1:
        batch = 7  # thousands of rows a batch each take seconds
    restore = rng.random() < 0.4 and len(o) > 1 and len(m) > 1
    case.note = "(key %s, %d o rows, %d m rows, parallelism %d, batch %d%s%s)" % (
        ktype, len(o), len(m), par, batch, ", RocksDB" if rocksdb else "", ", stopped and restored" if restore else "")
    case.counts["cases with thousands of keys"] += many
    case.counts["cases on RocksDB"] += rocksdb
    problems = []
    # off: one run, all input at once
    case.write("off.sql", job_sql(case, ktype, queries, "off", False))
    write_rows(case, "o", o, "part0.json")
    write_rows(case, "m", m, "part0.json")
    off = case.run_weir(["run", "off.sql", "-D", "weir.join.top1-skip=false"] + diffrun.engine_options(case, par, batch, rocksdb))
    if off.returncode:
        return [diffrun.failed_run(off)]
    if skipped(off.stderr):
        problems.append("the run with weir.join.top1-skip=false skipped rows: " + off.stderr[-400:])
    # on: the same, or stopped after a first part and restored
    if restore:
        for side, rows in (("o", o), ("m", m)):
            os.remove(case.path(side, "part0.json"))
        cut_o, cut_m = rng.randint(1, len(o) - 1), rng.randint(1, len(m) - 1)
        write_rows(case, "o", o[:cut_o], "part0.json")
        write_rows(case, "m", m[:cut_m], "part0.json")
        case.write("watched.sql", job_sql(case, ktype, queries, "on", True))
        ended = diffrun.stop_for_restore(case, diffrun.engine_options(case, par, batch, rocksdb))
        if ended is not None:
            return problems + ended
        write_rows(case, "o", o[cut_o:], "part1.json")
        write_rows(case, "m", m[cut_m:], "part1.json")
        par = rng.choice([p for p in (1, 2, 4) if p != par])
        case.counts["stopped and restored at another parallelism"] += 1
        opts = ["-D", "state.checkpoints.dir=ckpt"]
    else:
        opts = []
    case.write("on.sql", job_sql(case, ktype, queries, "on", False))
    on = case.run_weir(["run", "on.sql"] + opts + diffrun.engine_options(case, par, batch, rocksdb))
    if on.returncode:
        return problems + [diffrun.failed_run(on)]
    if restore and "restoring from" not in on.stderr:
        return problems + ["the last run did not restore the checkpoint: " + on.stderr[-600:]]
    first = open(case.path("run0.log")).read() if restore else ""
    n_skipped = skipped(on.stderr) + skipped(first)
    case.counts["rows skipped by the joins"] += n_skipped
    case.counts["cases with rows skipped"] += 1 if n_skipped else 0
    for i, q in enumerate(queries):
        what = "q%d (%s)" % (i, query_sql(q))
        want = expected(q, o, m)
        try:
            got_on = got_changes(case, "on%d" % i, q, ktype)
            got_off = got_changes(case, "off%d" % i, q, ktype)
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += compare(what + ", skipping on", want, got_on)
        problems += compare(what + ", skipping off", want, got_off)
        case.counts["queries"] += 1
    return problems


def main():
    return diffrun.main("top1_skip_diff", run_case, jobs_env="WEIR_TOP1SKIP_JOBS", jobs=24, asan_jobs=10,
                        one_env="WEIR_TOP1SKIP_JOB")


if __name__ == "__main__":
    sys.exit(main())
