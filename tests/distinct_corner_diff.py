#!/usr/bin/env python3
"""Randomized differential test of COUNT(DISTINCT) at the corners of the
cache of distinct views (ops/group_distinct.c) and of the memory backend's
compact records (state/memory_backend.c), against a Python model.

Each case is one GROUP BY k (or a global aggregation) with several
COUNT(DISTINCT x) [FILTER (WHERE ...)] over a BIGINT, a STRING, a DOUBLE,
a DECIMAL(10, 2) and a DECIMAL(38, 4) column, and up to two COUNT(DISTINCT
x, y [, z]) over two or three of them (tuples where none is NULL): one to six aggregates
share a column's view (its records hold one counter per sharer: up to four
in 7 bits each, five or more as int32s), beside COUNT(*); one case in ten
has 62 - 67 aggregates (FILTER answers are a bit per aggregate up to 64). The input is a JSON file (append-only)
or a debezium-json changelog (c, d, and u with its before and after in
other groups now and then) in phases that insert, then retract, so that a
hot (group, value) counter climbs past 127 (its counters held aside) and
comes back down, to 0 (the value gone) and up again. Values: BIGINTs at
their extremes, strings of 0, 7, 8, 9 and 250 - 260 bytes (in some cases
only 8-byte ones until a point mid-input: the view's 16-byte records are
rebuilt with int32 counters while some are held aside), -0.0 and 0.0,
DECIMALs written with other trailing zeros, NULLs; group keys of 252 - 261
bytes encoded (about the 254 a state record's narrow header holds) and
NULL. With a TTL the aggregates keep their value sets in the group's
value state instead (records past the slab's largest block: wide).
Engine: batches of 1 to 1024 rows, parallelism 1 or 2, mini-batch, RocksDB,
a state TTL (the views' cache is off then), a tiny bound of the cache
(weir.distinct-cache.size: drained to state and emptied between batches),
checkpoints every few ms (drains mid-input). In about a third of the cases
the job is stopped with a checkpoint after a first part of the input and
restored at the other parallelism for the rest.

The sink writes debezium-json files. Checked: the folded final table equals
the model's; every delete finds its row; and, per group, the rows the job
created are, in order, a subsequence of the model's states of the group
after each of its input rows (a count that was never right is caught even
when a later one repairs it).

Runs on the shared differential driver (tests/support/diffrun.py).
Usage: distinct_corner_diff.py --weir BIN [--jobs N] [--seed S] [--case I]
"""

import collections
import decimal
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

FILTERS = [None, "f > 0", "f <> 1", "f < 3", "f = 2", "f IS NULL", "f >= 1 AND f <= 2"]
COLS_IN = ["k", "b", "s", "d", "m", "w", "f"]
HOT = [(1, "abcdefgh", 1.5, "1.50", "1.5"), (2, "bcdefghi", 2.5, "2.5", "-0.0000"),
       (-3, "cdefghij", -0.0, "-3.00", "12345678901234567890123.4560")]
decimal.getcontext().prec = 80
LENGTHS = [0, 1, 6, 7, 8, 8, 8, 9, 10, 16, 250, 253, 254, 255, 256, 260]


def filter_passes(flt, f):
    """FILTER (WHERE flt) for a row whose f is f (None: NULL, which no comparison passes)."""
    if flt is None:
        return True
    if flt == "f IS NULL":
        return f is None
    if f is None:
        return False
    if flt.startswith("f + "):  # "f + i <> j"
        _, _, i, _, j = flt.split()
        return f + int(i) != int(j)
    return {"f > 0": f > 0, "f <> 1": f != 1, "f < 3": f < 3, "f = 2": f == 2,
            "f >= 1 AND f <= 2": 1 <= f <= 2}[flt]


def rand_str(rng, n):
    return "".join(rng.choice("abcxyz") for _ in range(n))


def gen_value(rng, col, only8):
    """A random value of column col (None: NULL), as the model sees it; the
    DECIMAL as the text the input writes (trailing zeros vary)."""
    if rng.random() < 0.08:
        return None
    hot = rng.random() < 0.5
    if col == "b":
        if hot:
            return rng.choice([0, 1, -1])
        if rng.random() < 0.7:  # many values that come again: fuller tables, longer probes
            return rng.randrange(-400, 400)
        return rng.choice([2 ** 63 - 1, -2 ** 63, 2 ** 31, -2 ** 31 - 1, 127, 128, 255, 256,
                           rng.randrange(-2 ** 40, 2 ** 40)])
    if col == "s":
        if only8:
            return rng.choice(["abcdefgh", "ABCDEFGH", "xyzxyzxy"]) if hot else "%08d" % rng.randrange(500)
        if hot:
            return rng.choice(["", "abcdefg", "abcdefgh", "abcdefghi"])
        if rng.random() < 0.7:  # many values that come again, of every length below
            i = rng.randrange(600)
            return ("s%d-" % i + "abcxyz" * 50)[:LENGTHS[i % len(LENGTHS)]]
        return rand_str(rng, rng.choice(LENGTHS))
    if col == "d":
        if hot:
            return rng.choice([0.0, -0.0, 1.5])
        return rng.choice([-2.25, 1e300, -1e-300, 5e-324, 0.1, rng.randrange(-20, 20) / 4])
    if col == "w":  # DECIMAL(38, 4) as text: past an int64's digits
        if hot:
            return rng.choice(["0", "-0.0000", "1.5", "1.50000", "-12345678901234567890.1"])
        return rng.choice(["9999999999999999999999999999999999.9999", "-9999999999999999999999999999999999.9999",
                           "922337203685477.5807", "922337203685477.5808", "-922337203685477.5809",
                           "%d.%04d" % (rng.randrange(-10 ** 30, 10 ** 30), rng.randrange(10 ** 4)),
                           "%d.%d" % (rng.randrange(-300, 300), rng.randrange(10))])
    # DECIMAL(10, 2) as text
    if hot:
        return rng.choice(["0", "-0.00", "0.0", "1.5", "1.50", "-3"])
    return rng.choice(["99999999.99", "-99999999.99", "0.01", "12.3", "12.30",
                       "%d.%02d" % (rng.randrange(-99, 100), rng.randrange(100))])


def gen_key(rng, long_keys):
    r = rng.random()
    if r < 0.45:
        return rng.choice(["h0", "h1"])
    if r < 0.5:
        return None
    if long_keys and r < 0.65:
        # encoded (a NULL flag, a 4-byte length, the bytes): 252 - 257 and 261 bytes, about the 254 a
        # state record's narrow header holds
        return "K" + rand_str(rng, rng.choice([246, 247, 248, 249, 250, 251, 255]))
    return "g%d" % rng.randrange(12)


def gen_row(rng, long_keys, only8, hot_val):
    row = {"k": gen_key(rng, long_keys), "f": rng.choice([None, 0, 1, 2, 3])}
    for c in ("b", "s", "d", "m", "w"):
        row[c] = gen_value(rng, c, only8)
    if hot_val and rng.random() < 0.6:
        # the same few values of a group again and again, at other rates: counters past 127 (held aside
        # by several records of a view at once), and back as they are retracted
        i = rng.choice([0, 0, 0, 1, 1, 2])
        row["k"] = "h0" if rng.random() < 0.9 else "h1"
        row["b"], row["s"], row["d"], row["m"], row["w"] = HOT[i]
    return row


def gen_stream(rng, n, retract, long_keys, only8_until):
    """[(kind, row)]: +I, -D, or -U followed by its +U; retractions only of
    live rows; phases of inserts and of retractions."""
    live, out = [], []
    hot_val = rng.random() < 0.7
    phase_len = rng.choice([60, 400, 800])
    for i in range(n):
        deleting = retract and (i // phase_len) % 2 == 1
        only8 = i < only8_until
        r = rng.random()
        if live and retract and r < (0.8 if deleting else 0.08):
            j = rng.randrange(len(live))
            old = live[j]
            if rng.random() < 0.3:
                new = gen_row(rng, long_keys, only8, hot_val)
                if rng.random() < 0.5:
                    new["k"] = old["k"]  # same group, another value
                live[j] = new
                out += [("-U", old), ("+U", new)]
            else:
                live[j] = live[-1]
                live.pop()
                out.append(("-D", old))
        else:
            row = gen_row(rng, long_keys, only8, hot_val)
            live.append(row)
            out.append(("+I", row))
    return out


def canon(col, v):
    """The value as COUNT(DISTINCT) tells values apart (None: NULL)."""
    if v is None:
        return None
    if col in "mw":
        return decimal.Decimal(v).quantize(decimal.Decimal("0.01" if col == "m" else "0.0001"))
    if col == "d":
        return v + 0.0  # -0.0 == 0.0 and they hash alike
    return v


def canon_tuple(cols, row):
    """The value of COUNT(DISTINCT cols...): one column's canonical value,
    or for several columns the tuple of theirs, None when any is NULL."""
    vs = tuple(canon(c, row[c]) for c in cols)
    if any(v is None for v in vs):
        return None
    return vs[0] if len(vs) == 1 else vs


def model_states(stream, aggs, global_agg, counts):
    """Per group, its output row after each of its input rows (None when it
    has no rows), and the final table as a Counter of rows. Counts in
    counts the cases where a value's counter (its occurrences in a group
    that pass an aggregate's filter) went past 127, and came back."""
    groups = {}
    past, back = set(), set()
    states = collections.defaultdict(list)
    for kind, row in stream:
        k = None if global_agg else row["k"]
        g = groups.setdefault(k, [0] + [collections.Counter() for _ in aggs])
        sign = 1 if kind in ("+I", "+U") else -1
        g[0] += sign
        for a, (col, flt) in enumerate(aggs):
            v = canon_tuple(col, row)
            if v is not None and filter_passes(flt, row["f"]):
                g[1 + a][v] += sign
                if g[1 + a][v] > 127:
                    past.add((k, a, v))
                elif (k, a, v) in past:
                    back.add((k, a, v))
                if g[1 + a][v] == 0:
                    del g[1 + a][v]
        states[k].append(state_row(k, g) if g[0] > 0 else None)
    counts["cases with a counter past 127"] += bool(past)
    counts["cases with a counter past 127 and back"] += bool(back)
    final = collections.Counter()
    for k, g in groups.items():
        if g[0] > 0:
            final[state_row(k, g)] += 1
    return states, final


def state_row(k, g):
    return (k,) + tuple(len(c) for c in g[1:]) + (g[0],)


def gen_aggs(rng):
    aggs = []
    if rng.random() < 0.1:
        # 62 - 67 aggregates (beside COUNT(*)): FILTER answers are kept as a bit per aggregate in 64 bits,
        # and not at all past 64; a view of up to 30 counters
        n = rng.randint(62, 67)
        return [(rng.choice("bbsdmw"), None if i == 0 else "f + %d <> %d" % (i, rng.randrange(8)))
                for i in range(n)]
    for col, most in (("b", 6), ("s", 5), ("d", 2), ("m", 2), ("w", 2)):
        n = rng.randint(1 if col in "bs" else 0, most)
        aggs += [(col, flt) for flt in rng.sample(FILTERS, n)]
    # COUNT(DISTINCT a, b [, c]): the tuples of rows where none is NULL
    for _ in range(rng.choice([0, 0, 1, 2])):
        aggs.append(("".join(rng.sample("bsdmw", rng.choice([2, 2, 3]))), rng.choice(FILTERS)))
    rng.shuffle(aggs)
    return aggs


def job_sql(case, aggs, global_agg, retract, watched):
    watch = ", 'source.monitor-interval' = '20ms'" if watched else ""
    fmt = "debezium-json" if retract else "json"
    sel = ", ".join("COUNT(DISTINCT %s)%s AS c%d" % (", ".join(col), " FILTER (WHERE %s)" % flt if flt else "", i)
                    for i, (col, flt) in enumerate(aggs))
    outs = ", ".join("c%d BIGINT" % i for i in range(len(aggs)))
    return "\n".join([
        "-- distinct_corner_diff seed %d case %d" % (case.seed, case.index),
        "CREATE TABLE src (k STRING, b BIGINT, s STRING, d DOUBLE, m DECIMAL(10, 2), w DECIMAL(38, 4), f INT) "
        "WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = '%s'%s);" % (fmt, watch),
        "CREATE TABLE out (k STRING, %s, n BIGINT) "
        "WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'debezium-json');" % outs,
        "INSERT INTO out SELECT %s%s, COUNT(*) FROM src%s;"
        % ("CAST(NULL AS STRING), " if global_agg else "k, ", sel, "" if global_agg else " GROUP BY k"),
    ]) + "\n"


def json_row(row):
    """The row as a JSON object, the DECIMAL's text as written (json.dumps
    would write a float's shortest digits)."""
    parts = []
    for c in COLS_IN:
        v = row[c]
        if v is None:
            t = "null"
        elif c in "mw":
            t = v
        elif c == "d":
            t = repr(v)
        else:
            t = json.dumps(v)
        parts.append('"%s": %s' % (c, t))
    return "{" + ", ".join(parts) + "}"


def write_input(case, stream, retract, name):
    os.makedirs(case.path("in"), exist_ok=True)
    with open(case.path("in", "." + name), "w") as f:
        i = 0
        while i < len(stream):
            kind, row = stream[i]
            if not retract:
                f.write(json_row(row) + "\n")
            elif kind == "+I":
                f.write('{"before": null, "after": %s, "op": "c"}\n' % json_row(row))
            elif kind == "-D":
                f.write('{"before": %s, "after": null, "op": "d"}\n' % json_row(row))
            else:
                f.write('{"before": %s, "after": %s, "op": "u"}\n' % (json_row(row), json_row(stream[i + 1][1])))
                i += 1
            i += 1
    os.rename(case.path("in", "." + name), case.path("in", name))


def check_output(case, aggs, states, final):
    cols = ["k"] + ["c%d" % i for i in range(len(aggs))] + ["n"]
    folder = case.path("out")
    names = diffrun.committed_files(folder)
    try:
        got = diffrun.fold_debezium(folder, cols, names)
    except ValueError as e:
        return ["the sink's changelog: %s" % e]
    problems = diffrun.multiset_problems("final table", final, got)
    # per group, the created rows in order: a subsequence of the model's states after each row
    at = collections.defaultdict(int)
    for op, row in diffrun.debezium_changes(folder, names):
        if op != "c":
            continue
        v = tuple(row[c] for c in cols)
        seq = states.get(v[0], [])
        i = at[v[0]]
        while i < len(seq) and seq[i] != v:
            i += 1
        if i == len(seq):
            problems.append("group %r: created %s, which is no state of the model's after the row that "
                            "made the one before" % (None if v[0] is None else v[0][:20], v[1:]))
            if len(problems) >= 6:
                break
            continue
        at[v[0]] = i + 1
        case.counts["output rows checked against the model's states"] += 1
    return problems


def run_case(case):
    rng = case.rng
    retract = rng.random() < 0.65
    global_agg = rng.random() < 0.1
    long_keys = rng.random() < 0.3
    most = int(os.environ.get("WEIR_DCDIFF_ROWS", "3000"))
    n = rng.randint(20, most // 10) if rng.random() < 0.3 else rng.randint(most // 2, most)
    only8_until = rng.choice([0, 0, n // 2, n])
    stream = gen_stream(rng, n, retract, long_keys, only8_until)
    aggs = gen_aggs(rng)
    par, batch = rng.choice([1, 2]), rng.choice([1, 2, 3, 7, 64, 1024])
    rocksdb, ttl, mini = rng.random() < 0.2, rng.random() < 0.25, rng.random() < 0.25
    cache = rng.choice([None, None, "1kb", "16kb"])
    ckpt_ms = rng.choice([None, 1, 5, 20])
    case.note = "(%s, %d rows, %d aggregates, parallelism %d, batch %d%s%s%s%s%s%s%s%s)" % (
        "debezium-json" if retract else "append-only", len(stream), len(aggs), par, batch,
        ", global" if global_agg else "", ", long keys" if long_keys else "",
        ", 8-byte strings until row %d" % only8_until if only8_until else "",
        ", RocksDB" if rocksdb else "", ", TTL 1 h" if ttl else "", ", mini-batch" if mini else "",
        ", distinct cache " + cache if cache else "", "")
    opts = []
    if ttl:
        opts += ["-D", "table.exec.state.ttl=1 h"]
    if mini:
        opts += ["-D", "table.exec.mini-batch.enabled=true"]
    if cache:
        opts += ["-D", "weir.distinct-cache.size=" + cache]
    case.counts["debezium-json cases"] += retract
    case.counts["cases with batches of 1 to 3 rows"] += batch <= 3
    case.counts["cases with 62 - 67 aggregates"] += len(aggs) >= 62
    case.counts["cases with a COUNT(DISTINCT) of two or three columns"] += any(len(col) > 1 for col, _ in aggs)
    case.counts["cases with five or more aggregates on one column"] += max(
        collections.Counter(col for col, _ in aggs).values()) >= 5
    cuts = [i for i in range(1, len(stream)) if stream[i][0] != "+U"]
    restore = rng.random() < 0.33 and bool(cuts)
    if restore:
        cut = rng.choice(cuts)
        case.note = case.note[:-1] + ", stopped after %d rows and restored)" % cut
        write_input(case, stream[:cut], retract, "part0.json")
        case.write("watched.sql", job_sql(case, aggs, global_agg, retract, True))
        ended = diffrun.stop_for_restore(case, diffrun.engine_options(case, par, batch, rocksdb) + opts, n_inputs=1)
        if ended is not None:
            return ended
        write_input(case, stream[cut:], retract, "part1.json")
        par = 3 - par
        opts += ["-D", "state.checkpoints.dir=ckpt"]
        case.counts["cases stopped and restored at another parallelism"] += 1
    else:
        write_input(case, stream, retract, "part0.json")
        if ckpt_ms:
            opts += ["-D", "state.checkpoints.dir=ckpt", "-D", "execution.checkpointing.interval=%dms" % ckpt_ms]
            case.note = case.note[:-1] + ", checkpoints every %d ms)" % ckpt_ms
    case.write("job.sql", job_sql(case, aggs, global_agg, retract, False))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch, rocksdb) + opts)
    if p.returncode:
        return [diffrun.failed_run(p)]
    if restore and "restoring from" not in p.stderr:
        return ["the second run did not restore the checkpoint: " + p.stderr[-600:]]
    states, final = model_states(stream, aggs, global_agg, case.counts)
    return check_output(case, aggs, states, final)


def main():
    return diffrun.main("distinct_corner_diff", run_case, jobs_env="WEIR_DCDIFF_JOBS", jobs=80, asan_jobs=16,
                        one_env="WEIR_DCDIFF_JOB", out_env="WEIR_DCDIFF_OUT")


if __name__ == "__main__":
    sys.exit(main())
