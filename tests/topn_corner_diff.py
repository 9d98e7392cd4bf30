#!/usr/bin/env python3
"""Randomized differential test of the continuous Top-N (ops/rank.c) at its
corners: the exact changelog of each partition, change by change, against a
python model that shares no code with weir (tests/test_topn_corner_diff.sh
runs it).

Each case is one input stream of a few partitions (one of them hot, so its
list stays full and every new row shifts many ranks; a NULL partition key
now and then), read by one source subtask:

    t (id INT, k KEY, v INT, w BIGINT, s1 STRING, s2 STRING, s3 STRING,
       s4 STRING, ts TIMESTAMP(3))

KEY an INT, a BIGINT or a STRING; v and w from small ranges (ties), w
now and then far from 0 (varints of 9 and 10 bytes); NULLs in v, w and the
strings; strings of length 0, short, a few hundred bytes, and now and then
over 16 KiB (a kept row whose length field takes three varint bytes). Either

  - append-only: a JSON file (ts a time attribute), or
  - retracting: a debezium-json changelog of the same rows (c, u - a -U of
    the row as it was, then +U - and d), with now and then a retraction of
    a row that is not there (Flink's lenient mode: nothing changes),

and a statement set of 2 to 5 queries

    SELECT k, id, v, w, s1, s2, s3, s4 [, rn] FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY k [, s3] ORDER BY 1 to 3 of
             v, w, s1, id, ts ASC|DESC [NULLS FIRST|LAST]) AS rn FROM t)
    WHERE rn <= N | rn < N + 1 | rn = N | rn BETWEEN M AND N | rn >= M AND rn <= N

(N from 1 to 10; the rank number in the output or not; Top-1 by ts without
it, over the append-only input, is a deduplication), or now and then

    SELECT k, id, v, w, s1, s2, s3, s4 FROM t ORDER BY ... LIMIT n [OFFSET m]

(one partition; with OFFSET the ranks m + 1 to m + n, numbered, no number), each into a print
sink, in one `weir run` at parallelism 1, 2 or 4, batches of 1, 2, 3, 7 or
1024 rows (an output batch fills in the middle of an input batch: a kept row
emitted as -U at its old rank is emitted as +U at the next one from the
batch sent before), on the heap or RocksDB, with or without
table.exec.state.ttl (an hour: nothing expires, the values carry the TTL
clock). In about three cases in ten the job (its sinks debezium-json files
then, which keep a change's sign but not its kind) is stopped with a
checkpoint once a first part of the input is read, and restored at another
parallelism for the rest.

The model (docs/sql.md, "Top-N and deduplication", "Top-N over an updating
input"): per partition, the rows in rank order, equal ORDER BY values in
arrival order (the earlier first; a deduplication by ts DESC puts the newer
first); NULL the smallest value (ASC: first, DESC: last) unless NULLS
FIRST/LAST says. Append-only: a row ranked past N is dropped for good.
Retracting: every row is kept; +I/+U ranks a row in after the equal ones,
-U/-D takes out the first kept row equal to it in every column. With the
rank number or a lower bound, each rank in [M, N] whose row changed is
-U old, +U new (a rank that fills +I, one that empties -D), in rank order;
without them the row entering [1, N] is +I and the one leaving it -D
(append-only: +I first; retracting: -D first); a deduplication replaces
its row with -U old, +U new. Each partition's changes are compared in
order (a partition's rows take one path to its sink subtask).

Usage: topn_corner_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_TOPNC_JOBS sets the number of
cases, WEIR_TOPNC_JOB=i runs case i alone (defaults: 120 cases, 25 under
ASan); WEIR_TOPNC_ROWS the most rows of a case (default 300).
"""

import collections
import datetime
import functools
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

T0 = 1767225600000  # 2026-01-01 00:00:00 UTC, ms
COLS = ["k", "id", "v", "w", "s1", "s2", "s3", "s4"]
BIG = [-(1 << 63), (1 << 63) - 1, -(1 << 40), 1 << 56, -1]
ALPHA = "abcdefghijklmnopqrstuvwxyz0123456789"  # no ", " (the print sink's separator), never "null"


def ts_text(ms):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)


def rand_str(rng, long_ok):
    r = rng.random()
    if r < 0.08:
        return None
    if r < 0.2:
        return ""
    if r < 0.75:
        return rng.choice(["a", "b", "bb", "c", "a0"])
    if r < 0.97 or not long_ok:
        n = rng.randint(20, 400)
    else:
        n = rng.randint(16300, 20000)  # a row of over 16 KiB: three bytes of length
    # a long string's tail differs, so that long strings compare and retract by all their bytes
    return "".join(rng.choice(ALPHA[:3]) for _ in range(8)) + "x" * (n - 12) + "".join(
        rng.choice(ALPHA) for _ in range(4))


def gen_row(rng, i, keys, hot, long_ok):
    r = rng.random()
    k = hot if r < 0.55 else rng.choice(keys)
    return {"id": i, "k": k,
            "v": None if rng.random() < 0.1 else rng.randint(0, 8),
            "w": None if rng.random() < 0.1 else (rng.choice(BIG) if rng.random() < 0.15 else rng.randint(-3, 3)),
            "s1": rand_str(rng, long_ok), "s2": rand_str(rng, long_ok), "s3": rng.choice(["p", "q", "", None]),
            "s4": rand_str(rng, long_ok), "ts": T0 + rng.randint(0, 40) * 7}


def gen(rng, ktype, n_rows, retract):
    """The rows in arrival order: [(kind, row)], kind +I (append-only) or
    +I/-U/+U/-D (a debezium changelog: "u" is -U then +U)."""
    nk = rng.randint(1, 4)
    keys = [("k%d" % i if i else "") if ktype == "STRING" else (i * 5 - 3) for i in range(nk)]
    if rng.random() < 0.3:
        keys.append(None)
    hot = rng.choice(keys)
    long_ok = rng.random() < 0.3
    out, live, i = [], [], 0
    while len(out) < n_rows:
        r = rng.random()
        if not retract or r < 0.55 or not live:
            row = gen_row(rng, i, keys, hot, long_ok)
            i += 1
            out.append(("+I", row))
            live.append(row)
        elif r < 0.8:
            old = live.pop(rng.randrange(len(live)))
            new = dict(old)
            for c in rng.sample(["v", "w", "s1", "s2", "ts"], rng.randint(0, 2)):
                new[c] = gen_row(rng, old["id"], keys, hot, long_ok)[c]
            if rng.random() < 0.1:
                new["k"] = rng.choice(keys)  # the row moves to another partition
            out += [("-U", old), ("+U", new)]
            live.append(new)
        elif r < 0.95:
            out.append(("-D", live.pop(rng.randrange(len(live)))))
        else:  # a row that is not kept (never was, or already gone)
            ghost = gen_row(rng, 10 ** 6 + i, keys, hot, False)
            out.append((rng.choice(["-D", "-U"]), ghost))
            if out[-1][0] == "-U":
                row = gen_row(rng, i, keys, hot, long_ok)
                i += 1
                out.append(("+U", row))
                live.append(row)
    return out


def gen_query(rng, retract):
    n = rng.randint(1, 10)
    order = [(c, rng.random() < 0.5, rng.choice([None, None, True, False]))
             for c in rng.sample(["v", "w", "s1", "id", "ts"], rng.choice([1, 1, 2, 3]))]
    with_rank = rng.random() < 0.5
    if not retract and rng.random() < 0.12:  # a deduplication: Top-1 by the time attribute
        order, n, with_rank = [("ts", rng.random() < 0.5, None)], 1, False
    r = rng.random()
    if r < 0.45:
        start, bound = 1, "rn <= %d" % n
    elif r < 0.6:
        start, bound = 1, "rn < %d" % (n + 1)
    elif r < 0.75:
        start, bound = n, "rn = %d" % n
    else:
        start = rng.randint(1, n)
        bound = rng.choice(["rn BETWEEN %d AND %d", "rn >= %d AND rn <= %d"]) % (start, n)
    # Top-1 by the time attribute alone, without the rank number, however the bound is written
    dedup = not retract and not with_rank and n == 1 and [c for c, _, _ in order] == ["ts"]
    q = {"order": order, "end": n, "start": start, "bound": bound, "with_rank": with_rank, "dedup": dedup,
         "part": ["k"] if rng.random() < 0.8 else ["k", "s3"], "limit": False}
    if rng.random() < 0.15:  # ORDER BY ... LIMIT n [OFFSET m]: one partition, no rank number
        m = rng.choice([0, 0, rng.randint(1, 4)])
        q.update(order=[o for o in order if o[0] != "ts"] or [("v", True, None)], start=m + 1, end=m + n,
                 with_rank=False, dedup=False, part=[], limit=True,
                 bound="LIMIT %d%s" % (n, " OFFSET %d" % m if m else ""))
    return q


def query_sql(q):
    order = ", ".join("%s %s%s" % (c, "DESC" if d else "ASC", "" if nl is None else " NULLS LAST" if nl else " NULLS FIRST")
                      for c, d, nl in q["order"])
    if q["limit"]:
        return "SELECT %s FROM t ORDER BY %s %s" % (", ".join(COLS), order, q["bound"])
    ranked = "SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM t" % (", ".join(q["part"]), order)
    return "SELECT %s%s FROM (%s) WHERE %s" % (", ".join(COLS), ", rn" if q["with_rank"] else "", ranked, q["bound"])


def cmp_rows(q, a, b):
    """SQL order of rows a and b by the query's ORDER BY (0: equal values)."""
    for c, desc, nulls in q["order"]:
        x, y = a[c], b[c]
        if x is None or y is None:
            if x is None and y is None:
                continue
            nulls_last = desc if nulls is None else nulls
            return (1 if x is None else -1) * (1 if nulls_last else -1)
        if isinstance(x, str):
            x, y = x.encode(), y.encode()
        if x != y:
            return (1 if x > y else -1) * (-1 if desc else 1)
    return 0


def shown(v):
    return "null" if v is None else str(v)


def change(kind, row, rank, q):
    return (kind, tuple(shown(row[c]) for c in COLS) + ((str(rank),) if q["with_rank"] else ()))


def expected(q, stream, retract):
    """Per partition (the texts of its PARTITION BY values), the changes in order."""
    lists, out = {}, collections.defaultdict(list)
    start, end = q["start"], q["end"]
    numbered = q["with_rank"] or start > 1
    newer_first = q["dedup"] and q["order"][0][1]  # keep-last deduplication: an equal newer row wins
    uid = 0
    for kind, row in stream:
        part = tuple(shown(row[c]) for c in q["part"])
        L = lists.setdefault(part, [])  # [(uid, row)] in rank order
        before = list(L)
        if kind in ("+I", "+U"):
            uid += 1
            p = 0
            while p < len(L) and (cmp_rows(q, L[p][1], row) < 0 or
                                  (cmp_rows(q, L[p][1], row) == 0 and not newer_first)):
                p += 1
            if not retract and p >= end:
                continue  # ranked past N: it can never climb back
            L.insert(p, (uid, row))
            if not retract:
                del L[end:]
        else:
            at = next((i for i, (_, r) in enumerate(L) if all(r[c] == row[c] for c in row)), None)
            if at is None:
                continue  # not kept: nothing to take back
            del L[at]
        ch = out[part]
        if numbered:
            for rank in range(start, end + 1):
                o = before[rank - 1] if rank <= len(before) else None
                n = L[rank - 1] if rank <= len(L) else None
                if o and n and o[0] != n[0]:
                    ch += [change("-U", o[1], rank, q), change("+U", n[1], rank, q)]
                elif n and not o:
                    ch.append(change("+I", n[1], rank, q))
                elif o and not n:
                    ch.append(change("-D", o[1], rank, q))
            continue
        old_ids, new_ids = {u for u, _ in before[:end]}, {u for u, _ in L[:end]}
        gone = [r for u, r in before[:end] if u not in new_ids]
        came = [r for u, r in L[:end] if u not in old_ids]
        assert len(gone) <= 1 and len(came) <= 1
        if q["dedup"] and gone and came:
            ch += [change("-U", gone[0], 1, q), change("+U", came[0], 1, q)]
        elif retract:
            ch += [change("-D", r, 0, q) for r in gone] + [change("+I", r, 0, q) for r in came]
        else:
            ch += [change("+I", r, 0, q) for r in came] + [change("-D", r, 0, q) for r in gone]
    return out


LINE = re.compile(r"^(q\d+)(?::\d+)?> ([+-][IUD])\[(.*)\]$")


def got_changes(stdout, queries):
    """Per query, per partition, the changes the print sinks wrote, in order;
    and the lines that are not changes."""
    got = [collections.defaultdict(list) for _ in queries]
    bad = []
    for line in stdout.splitlines():
        m = LINE.match(line)
        if not m:
            bad.append(line)
            continue
        i = int(m.group(1)[1:])
        fields = tuple(m.group(3).split(", "))
        q = queries[i]
        part = tuple(fields[COLS.index(c)] for c in q["part"])
        got[i][part].append((m.group(2), fields))
    return got, bad


def short(ch):
    return [(k, tuple(f if len(f) <= 24 else "%s..(%d)" % (f[:12], len(f)) for f in row)) for k, row in ch]


def compare(what, want, got):
    problems = []
    for part in sorted(set(want) | set(got), key=repr):
        w, g = want.get(part, []), got.get(part, [])
        if w != g:
            i = next((i for i in range(min(len(w), len(g))) if w[i] != g[i]), min(len(w), len(g)))
            problems.append("%s: partition %r: %d changes wanted, %d got; first difference at change %d: want %s, got %s"
                            % (what, part, len(w), len(g), i, short(w[i:i + 3]), short(g[i:i + 3])))
            if len(problems) >= 4:
                break
    return problems


def job_sql(case, ktype, queries, retract, files=False, watched=False):
    """The job: its sinks print (files: debezium-json files in o<i>), its
    source reads its folder once (watched: and watches it for more)."""
    watch = ", 'source.monitor-interval' = '20ms'" if watched else ""
    if retract:
        src = ("CREATE TABLE t (id INT, k %s, v INT, w BIGINT, s1 STRING, s2 STRING, s3 STRING, s4 STRING, "
               "ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'debezium-json'%s);"
               % (ktype, watch))
    else:
        src = ("CREATE TABLE t (id INT, k %s, v INT, w BIGINT, s1 STRING, s2 STRING, s3 STRING, s4 STRING, "
               "ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
               "WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'json'%s);" % (ktype, watch))
    sql = ["-- topn_corner_diff seed %d case %d" % (case.seed, case.index), src]
    for i, q in enumerate(queries):
        sink = ("'connector' = 'filesystem', 'path' = 'o%d', 'format' = 'debezium-json'" % i if files
                else "'connector' = 'print', 'print-identifier' = 'q%d'" % i)
        sql.append("CREATE TABLE o%d (k %s, id INT, v INT, w BIGINT, s1 STRING, s2 STRING, s3 STRING, s4 STRING%s) "
                   "WITH (%s);" % (i, ktype, ", rn BIGINT" if q["with_rank"] else "", sink))
    sql.append("EXECUTE STATEMENT SET BEGIN")
    sql += ["  INSERT INTO o%d %s;" % (i, query_sql(q)) for i, q in enumerate(queries)]
    sql.append("END;")
    return "\n".join(sql) + "\n"


def write_input(case, stream, retract, name="part0.json"):
    """The stream into in/<name> (written aside, then renamed: a watching
    source never reads half a file)."""
    os.makedirs(case.path("in"), exist_ok=True)
    with open(case.path("in", "." + name), "w") as f:
        i = 0
        while i < len(stream):
            kind, row = stream[i]
            r = dict(row, ts=ts_text(row["ts"]))
            if not retract:
                f.write(json.dumps(r) + "\n")
            elif kind == "+I":
                f.write(json.dumps({"before": None, "after": r, "op": "c"}) + "\n")
            elif kind == "-D":
                f.write(json.dumps({"before": r, "after": None, "op": "d"}) + "\n")
            else:  # -U, then its +U
                after = dict(stream[i + 1][1], ts=ts_text(stream[i + 1][1]["ts"]))
                f.write(json.dumps({"before": r, "after": after, "op": "u"}) + "\n")
                i += 1
            i += 1
    os.rename(case.path("in", "." + name), case.path("in", name))


def file_changes(case, queries):
    """Per query, per partition, the changes its debezium-json files hold, in
    order (the files of both runs of a restored case: the restored run's were
    written after the first's), each as a print line's kind and fields would
    be: a create (+I, +U) as "+", a delete (-U, -D) as "-"."""
    got = [collections.defaultdict(list) for _ in queries]
    names = COLS + ["rn"]
    for i, q in enumerate(queries):
        folder = case.path("o%d" % i)
        for op, row in diffrun.debezium_changes(folder, diffrun.committed_files(folder)):
            fields = tuple(shown(row[c]) for c in names if c in row)
            got[i][tuple(fields[COLS.index(c)] for c in q["part"])].append(("+" if op == "c" else "-", fields))
    return got


def signs(changes):
    """Changes with their kinds as the debezium-json files keep them."""
    return {p: [(k[0], row) for k, row in ch] for p, ch in changes.items()}


def run_case(case):
    rng = case.rng
    retract = rng.random() < 0.4
    ktype = rng.choice(["INT", "BIGINT", "STRING"])
    n_rows = rng.randint(20, int(os.environ.get("WEIR_TOPNC_ROWS", "300")))
    stream = gen(rng, ktype, n_rows, retract)
    queries = [gen_query(rng, retract) for _ in range(rng.randint(2, 5))]
    par, batch = rng.choice([1, 2, 4]), rng.choice([1, 2, 3, 7, 7, 1024])
    rocksdb, ttl = rng.random() < 0.3, rng.random() < 0.25
    case.note = "(%s, key %s, %d rows, parallelism %d, batch %d%s%s)" % (
        "retracting" if retract else "append-only", ktype, len(stream), par, batch,
        ", RocksDB" if rocksdb else "", ", TTL 1 h" if ttl else "")
    case.counts["retracting cases"] += retract
    case.counts["cases with batches of 1 to 3 rows"] += batch <= 3
    ttl_opt = ["-D", "table.exec.state.ttl=1 h"] if ttl else []
    # stopped with a checkpoint after a first part of the input, restored at another parallelism for
    # the rest; a cut never between an update's -U and +U (one debezium record)
    cuts = [i for i in range(1, len(stream)) if stream[i][0] != "+U"]
    restore = rng.random() < 0.3 and bool(cuts)
    if restore:
        cut = rng.choice(cuts)
        case.note = case.note[:-1] + ", stopped after %d rows and restored)" % cut
        write_input(case, stream[:cut], retract)
        case.write("watched.sql", job_sql(case, ktype, queries, retract, files=True, watched=True))
        ended = diffrun.stop_for_restore(case, diffrun.engine_options(case, par, batch, rocksdb) + ttl_opt, n_inputs=1)
        if ended is not None:
            return ended
        write_input(case, stream[cut:], retract, "part1.json")
        par = rng.choice([p for p in (1, 2, 4) if p != par])
        case.counts["cases stopped and restored at another parallelism"] += 1
        case.write("job.sql", job_sql(case, ktype, queries, retract, files=True))
        ckpt = ["-D", "state.checkpoints.dir=ckpt"]
    else:
        write_input(case, stream, retract)
        case.write("job.sql", job_sql(case, ktype, queries, retract))
        ckpt = []
    p = case.run_weir(["run", "job.sql"] + ckpt + diffrun.engine_options(case, par, batch, rocksdb) + ttl_opt)
    if p.returncode:
        return [diffrun.failed_run(p)]
    if restore and "restoring from" not in p.stderr:
        return ["the second run did not restore the checkpoint: " + p.stderr[-600:]]
    problems = []
    if restore:
        try:
            got = file_changes(case, queries)
        except ValueError as e:
            return ["the sinks' files: %s" % e]
    else:
        got, bad = got_changes(p.stdout, queries)
        problems = ["unexpected output line: %s" % b[:200] for b in bad[:3]]
    for i, q in enumerate(queries):
        want = expected(q, stream, retract)
        problems += compare("q%d (%s)" % (i, query_sql(q)), signs(want) if restore else want, got[i])
        case.counts["queries"] += 1
        case.counts["LIMIT queries"] += q["limit"]
        case.counts["deduplications"] += q["dedup"]
        case.counts["queries with the rank number"] += q["with_rank"]
        case.counts["changes compared"] += sum(len(v) for v in want.values())
    return problems


def main():
    return diffrun.main("topn_corner_diff", run_case, jobs_env="WEIR_TOPNC_JOBS", jobs=120, asan_jobs=25,
                        one_env="WEIR_TOPNC_JOB")


if __name__ == "__main__":
    sys.exit(main())
