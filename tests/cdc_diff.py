#!/usr/bin/env python3
"""Randomized differential test of queries over changelog (CDC) sources.

Each job is two random debezium-json inputs: t(id, k, v, s) (in one to
five files of a folder, read in name order, sometimes cut into byte
ranges by source.split-size: one history all the same) and
u(uid, k, name), each a consistent history of one table - snapshot reads
("r"), creates, updates that may change any column (also the join and
grouping key, also to and from NULL, also to the same row) and deletes,
every update's "before" being the row as it then is - sometimes wrapped
in {"schema": ..., "payload": ...}. A batch of random queries over them
(filters and projections, GROUP BY with COUNT/SUM/MIN/MAX and HAVING, a
global aggregation, DISTINCT, COUNT(DISTINCT), a GROUP BY of a GROUP BY,
inner and left joins of the two changelogs, a GROUP BY over a join, a
Top-N and its rank number over the changelog) is run by `weir run` at a
random parallelism (1/2/4), with or without a PRIMARY KEY declared on
the sources, batch size (1/2/3/7/1024: an update decodes
to two rows), mini-batch and agg-phase strategy, on the memory or the
RocksDB state backend, and every result goes to a debezium-json file.

About one job in three writes instead into sinks with a PRIMARY KEY (a
unique, non-NULL key of the query's result: an id, a group key) with
table.exec.sink.upsert-materialize = FORCE, and folds each result as a
key-value store applies upserts (a create sets its key's row, a delete
removes its key): the changes of one key come from several subtasks when
a join moves a row from one join key to another, and the sink's
materializer must put them back in order. Half of those jobs (when
weir-kafka-mock and kcat are there) write instead into upsert-kafka
sinks on librdkafka's mock cluster over TCP with the default
upsert-materialize = AUTO: weir adds the materializer only where it knows
no upsert key of the query within the PRIMARY KEY (joins on the sides'
keys, Top-N with its rank number, Top-1, a global Top-N of a GROUP BY, a
semi join of a GROUP BY need none), so a key wrongly taken for one shows
as a wrong result. The topics are read back (kcat) and folded by key, a
tombstone deleting its key.

Each result changelog is folded into its table (a delete must find its
row) and compared as a multiset with the oracle, which shares no code
with weir: SQLite (python3's sqlite3) applies the same history to two
tables and runs the same query over the final tables. A global
aggregation over a table that ends empty has no row (a changelog's global
aggregate retracts its row when its count reaches zero, as Flink).

Usage: cdc_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_CDCDIFF_JOB=i runs one job;
WEIR_CDCDIFF_JOBS sets the number of jobs.
"""

import argparse
import collections
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
from dbzhist import envelope, gen_history, maybe  # noqa: E402

KEYS = ["a", "b", "c", "d", "e"]
STRS = ["x", "y", "zz", "\u00e9t\u00e9", "q\"uote"]
NAMES = ["n1", "n2", "n3"]


def same_or_new(new_row):
    """An update's new row: sometimes unchanged (still a retraction and an add), else a new one."""
    return lambda rng, i, row: dict(row) if rng.random() < 0.1 else new_row(i)


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 2, 3, 7, 1024])
    j.rocksdb = rng.random() < 0.3
    j.mini = rng.random() < 0.4
    j.phase = rng.choice([None, "ONE_PHASE", "TWO_PHASE"]) if j.mini else None
    j.schema_t = rng.random() < 0.25
    j.pk = rng.random() < 0.4  # the sources declare PRIMARY KEY (id) NOT ENFORCED
    # t's history in several files of a folder (read in name order) and/or
    # cut into byte ranges: still one history, whose changes of a row must
    # not overtake each other
    j.t_files = rng.choice([1, 1, 2, 3, 5])
    j.split_size = rng.choice([None, None, 64, 400])
    nk = rng.randint(1, len(KEYS))

    def t_row(i):
        return {"id": i, "k": maybe(rng, 0.1, rng.choice(KEYS[:nk])),
                "v": maybe(rng, 0.15, rng.randint(-5, 20)), "s": maybe(rng, 0.15, rng.choice(STRS))}

    def u_row(i):
        return {"uid": i, "k": maybe(rng, 0.1, rng.choice(KEYS[:nk])), "name": maybe(rng, 0.1, rng.choice(NAMES))}
    j.t_events, j.t_final = gen_history(rng, rng.randint(1, 40), t_row, same_or_new(t_row), 8, 160)
    j.u_events, j.u_final = gen_history(rng, rng.randint(1, 8), u_row, same_or_new(u_row), 8, 160)
    j.queries = [rng.choice(QUERIES)(rng) for _ in range(rng.randint(3, 8))]
    # about one job in three writes into PRIMARY KEY sinks through the upsert materializer
    j.upsert = rng.random() < 0.35
    if j.upsert:
        j.queries = [rng.choice(UPSERT_QUERIES)(rng) for _ in range(rng.randint(3, 6))]
    return j


# Each query: (text, [(column, sink type)], global?) - the same text runs in
# weir and in SQLite (both take || and the window function).
def q_filter(rng):
    c = rng.randint(-2, 15)
    w = rng.choice(["v > %d" % c, "v <= %d OR k IS NULL" % c, "k IN ('a', 'c') AND s IS NOT NULL"])
    return ("SELECT id, k, v FROM t WHERE " + w, [("id", "INT"), ("k", "STRING"), ("v", "INT")], False)


def q_project(rng):
    return ("SELECT id, v * 2 + 1 AS w, k || s AS ks FROM t",
            [("id", "INT"), ("w", "INT"), ("ks", "STRING")], False)


def q_group(rng):
    return ("SELECT k, COUNT(*) AS n, COUNT(v) AS nv, SUM(v) AS sv, MIN(v) AS lo, MAX(v) AS hi "
            "FROM t GROUP BY k",
            [("k", "STRING"), ("n", "BIGINT"), ("nv", "BIGINT"), ("sv", "INT"), ("lo", "INT"), ("hi", "INT")],
            False)


def q_minmax_s(rng):
    return ("SELECT k, MIN(s) AS lo, MAX(s) AS hi FROM t GROUP BY k",
            [("k", "STRING"), ("lo", "STRING"), ("hi", "STRING")], False)


def q_having(rng):
    return ("SELECT k, SUM(v) AS sv FROM t GROUP BY k HAVING COUNT(*) > %d" % rng.randint(0, 3),
            [("k", "STRING"), ("sv", "INT")], False)


def q_global(rng):
    return ("SELECT COUNT(*) AS n, SUM(v) AS sv, MAX(v) AS hi FROM t",
            [("n", "BIGINT"), ("sv", "INT"), ("hi", "INT")], True)


def q_distinct(rng):
    return ("SELECT DISTINCT k, s FROM t", [("k", "STRING"), ("s", "STRING")], False)


def q_count_distinct(rng):
    return ("SELECT k, COUNT(DISTINCT v) AS dv FROM t GROUP BY k", [("k", "STRING"), ("dv", "BIGINT")], False)


def q_two_level(rng):
    return ("SELECT n, COUNT(*) AS c FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY n",
            [("n", "BIGINT"), ("c", "BIGINT")], False)


def q_join(rng):
    return ("SELECT t.id, t.v, u.name FROM t JOIN u ON t.k = u.k",
            [("id", "INT"), ("v", "INT"), ("name", "STRING")], False)


def q_left_join(rng):
    return ("SELECT t.id, u.uid, u.name FROM t LEFT JOIN u ON t.k = u.k",
            [("id", "INT"), ("uid", "INT"), ("name", "STRING")], False)


def q_join_group(rng):
    return ("SELECT u.name, COUNT(*) AS n, SUM(t.v) AS sv FROM t JOIN u ON t.k = u.k GROUP BY u.name",
            [("name", "STRING"), ("n", "BIGINT"), ("sv", "INT")], False)


def q_topn(rng):
    n = rng.randint(1, 3)
    order = rng.choice(["v DESC, id", "v, id DESC"])
    if rng.random() < 0.5:
        return ("SELECT id, k, v FROM (SELECT id, k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY %s) AS rn "
                "FROM t WHERE v IS NOT NULL) WHERE rn <= %d" % (order, n),
                [("id", "INT"), ("k", "STRING"), ("v", "INT")], False)
    return ("SELECT id, k, v, rn FROM (SELECT id, k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY %s) AS rn "
            "FROM t WHERE v IS NOT NULL) WHERE rn <= %d" % (order, n),
            [("id", "INT"), ("k", "STRING"), ("v", "INT"), ("rn", "BIGINT")], False)


# Queries whose result has a unique, non-NULL key: with
# table.exec.sink.upsert-materialize = FORCE their sink declares it as its
# PRIMARY KEY and the result is folded as upserts (by key: a create sets
# the key's row, a delete removes the key), as a key-value store applies
# it. The keys' changes come from several subtasks (a join moves an order
# from one customer's subtask to another's): the materializer must put
# them in order. Each: (text, cols, key columns).
def u_filter(rng):
    return ("SELECT id, k, v FROM t WHERE v > %d" % rng.randint(-2, 15),
            [("id", "INT"), ("k", "STRING"), ("v", "INT")], ["id"])


def u_group(rng):
    return ("SELECT k, COUNT(*) AS n, SUM(v) AS sv, MAX(v) AS hi FROM t WHERE k IS NOT NULL GROUP BY k",
            [("k", "STRING"), ("n", "BIGINT"), ("sv", "INT"), ("hi", "INT")], ["k"])


def u_join(rng):
    return ("SELECT t.id, t.v, d.name FROM t JOIN (SELECT k, MAX(name) AS name FROM u GROUP BY k) d "
            "ON t.k = d.k", [("id", "INT"), ("v", "INT"), ("name", "STRING")], ["id"])


def u_left_join(rng):
    return ("SELECT t.id, d.name FROM t LEFT JOIN (SELECT k, MIN(name) AS name FROM u GROUP BY k) d "
            "ON t.k = d.k", [("id", "INT"), ("name", "STRING")], ["id"])


def u_join_group(rng):
    return ("SELECT d.name, COUNT(*) AS n FROM t JOIN (SELECT k, MAX(name) AS name FROM u GROUP BY k) d "
            "ON t.k = d.k WHERE d.name IS NOT NULL GROUP BY d.name",
            [("name", "STRING"), ("n", "BIGINT")], ["name"])


def u_join_groups(rng):
    kind = rng.choice(["", "LEFT", "RIGHT"])
    side = "b" if kind == "RIGHT" else "a"
    return ("SELECT %s.k, a.n, b.name FROM (SELECT k, COUNT(*) AS n FROM t WHERE k IS NOT NULL GROUP BY k) a %s JOIN "
            "(SELECT k, MAX(name) AS name FROM u WHERE k IS NOT NULL GROUP BY k) b ON a.k = b.k" % (side, kind),
            [("k", "STRING"), ("n", "BIGINT"), ("name", "STRING")], ["k"])


def u_join_ids(rng):
    kind = rng.choice(["", "LEFT"])
    return ("SELECT t.id, t.v, u.name FROM t %s JOIN u ON t.id = u.uid" % kind,
            [("id", "INT"), ("v", "INT"), ("name", "STRING")], ["id"])


def u_topn_rank(rng):
    return ("SELECT k, rn, id, v FROM (SELECT id, k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn "
            "FROM t WHERE v IS NOT NULL AND k IS NOT NULL) WHERE rn <= %d" % rng.randint(1, 3),
            [("k", "STRING"), ("rn", "BIGINT"), ("id", "INT"), ("v", "INT")], ["k", "rn"])


def u_top1(rng):
    order = rng.choice(["v DESC, id", "v, id DESC"])
    return ("SELECT k, id, v FROM (SELECT id, k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY %s) AS rn "
            "FROM t WHERE v IS NOT NULL AND k IS NOT NULL) WHERE rn = 1" % order,
            [("k", "STRING"), ("id", "INT"), ("v", "INT")], ["k"])


def u_topn_global(rng):
    return ("SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM t WHERE k IS NOT NULL GROUP BY k) "
            "ORDER BY n DESC, k LIMIT %d" % rng.randint(1, 3), [("k", "STRING"), ("n", "BIGINT")], ["k"])


def u_semi(rng):
    return ("SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM t WHERE k IS NOT NULL GROUP BY k) "
            "WHERE k IN (SELECT k FROM u)", [("k", "STRING"), ("n", "BIGINT")], ["k"])


def u_topn(rng):
    return ("SELECT id, k, v FROM (SELECT id, k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn "
            "FROM t WHERE v IS NOT NULL) WHERE rn <= %d" % rng.randint(1, 3),
            [("id", "INT"), ("k", "STRING"), ("v", "INT")], ["id"])


# A Top-N over an input whose key (k, id) holds the partition: with the rank
# number kept, or ranks from above 1, a row that climbs is emitted at its
# new place before its old one is retracted, so (k, id) is no upsert key of
# the result (the sink's PRIMARY KEY is (k, id) all the same).
def u_topn_moving(rng):
    inner = ("SELECT k, id, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM "
             "(SELECT k, id, SUM(v) AS v FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, id)")
    if rng.random() < 0.5:
        return ("SELECT k, id, v, rn FROM (%s) WHERE rn <= %d" % (inner, rng.randint(2, 3)),
                [("k", "STRING"), ("id", "INT"), ("v", "INT"), ("rn", "BIGINT")], ["k", "id"])
    lo = rng.randint(2, 3)
    return ("SELECT k, id, v FROM (%s) WHERE rn BETWEEN %d AND %d" % (inner, lo, lo + rng.randint(0, 2)),
            [("k", "STRING"), ("id", "INT"), ("v", "INT")], ["k", "id"])


UPSERT_QUERIES = [u_filter, u_group, u_join, u_left_join, u_join_group, u_topn, u_join_groups, u_join_ids,
                  u_topn_rank, u_top1, u_topn_global, u_semi, u_topn_moving]

QUERIES = [q_filter, q_project, q_group, q_minmax_s, q_having, q_global, q_distinct, q_count_distinct,
           q_two_level, q_join, q_left_join, q_join_group, q_topn]


def job_sql(j):
    out = ["-- cdc_diff seed %d job %d: parallelism %d, batch size %d%s"
           % (j.seed, j.index, j.parallelism, j.batch, ", RocksDB" if j.rocksdb else "")]
    out.append("CREATE TABLE t (id INT, k STRING, v INT, s STRING%s) WITH ('connector' = 'filesystem', "
               "'path' = 't', 'format' = 'debezium-json'%s%s);"
               % (", PRIMARY KEY (id) NOT ENFORCED" if j.pk else "",
                  ", 'debezium-json.schema-include' = 'true'" if j.schema_t else "",
                  ", 'source.split-size' = '%d'" % j.split_size if j.split_size else ""))
    out.append("CREATE TABLE u (uid INT, k STRING, name STRING%s) WITH ('connector' = 'filesystem', "
               "'path' = 'u.json', 'format' = 'debezium-json');" % (", PRIMARY KEY (uid) NOT ENFORCED" if j.pk else ""))
    if j.mini:
        out.append("SET 'table.exec.mini-batch.enabled' = 'true';")
    if j.phase:
        out.append("SET 'table.optimizer.agg-phase-strategy' = '%s';" % j.phase)
    if j.upsert:
        out.append("SET 'table.exec.sink.upsert-materialize' = '%s';" % ("AUTO" if j.kafka else "FORCE"))
    for qi, (_, cols, key) in enumerate(j.queries):
        pk = ", PRIMARY KEY (%s) NOT ENFORCED" % ", ".join(key) if j.upsert else ""
        if j.kafka:
            sink = ("'connector' = 'upsert-kafka', 'topic' = 'q%d', 'properties.bootstrap.servers' = '%s', "
                    "'key.format' = 'json', 'value.format' = 'json'" % (qi, j.boot))
        else:
            sink = "'connector' = 'filesystem', 'path' = 'q%d', 'format' = 'debezium-json'" % qi
        out.append("CREATE TABLE q%d (%s%s) WITH (%s);" % (qi, ", ".join("%s %s" % c for c in cols), pk, sink))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for qi, (text, _, _) in enumerate(j.queries):
        out.append("  INSERT INTO q%d %s;" % (qi, text))
    out.append("END;")
    return "\n".join(out) + "\n"


def oracle_db(j):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER, k TEXT, v INTEGER, s TEXT)")
    db.execute("CREATE TABLE u (uid INTEGER, k TEXT, name TEXT)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)",
                   [(r["id"], r["k"], r["v"], r["s"]) for r in j.t_final.values()])
    db.executemany("INSERT INTO u VALUES (?, ?, ?)",
                   [(r["uid"], r["k"], r["name"]) for r in j.u_final.values()])
    return db


def oracle(db, j, query):
    text, _, is_global = query
    if is_global is True and not j.t_final:
        return collections.Counter()
    return collections.Counter(tuple(r) for r in db.execute(text))


def kafka_tools(weir):
    """weir-kafka-mock (beside weir) and kcat, or None when either is missing."""
    mock = os.path.join(os.path.dirname(os.path.abspath(weir)), "weir-kafka-mock")
    kcat = shutil.which("kcat")
    return (mock, kcat) if os.access(mock, os.X_OK) and kcat else None


def start_mock(case, mock, topics):
    """librdkafka's mock cluster with topics [(name, partitions)]: (process, bootstrap servers)."""
    boot = case.path("boot")
    p = subprocess.Popen([mock, "-f", boot] + ["%s:%d" % t for t in topics], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    for _ in range(400):
        if os.path.exists(boot) and os.path.getsize(boot):
            with open(boot) as f:
                return p, f.read().strip()
        time.sleep(0.05)
    p.kill()
    p.wait()
    raise RuntimeError("the mock cluster did not start")


def fold_upsert_topic(kcat, boot, topic, cols, key):
    """The table an upsert-kafka topic leaves (its messages applied in order
    per partition: a value sets its key's row, a tombstone removes the key
    and must find it), as a Counter of tuples of cols. A key's messages must
    all be in one partition (the order of two partitions is none)."""
    out = subprocess.run([kcat, "-b", boot, "-C", "-t", topic, "-e", "-q", "-Z", "-f", "%p\t%k\t%S\t%s\n"],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise ValueError("kcat could not read topic %s: %s" % (topic, out.stderr.strip()[-300:]))
    rows, part = {}, {}
    for line in out.stdout.splitlines():
        p, k, size, v = line.split("\t", 3)
        kj = json.loads(k)
        kt = tuple(kj[c] for c in key)
        if part.setdefault(kt, p) != p:
            raise ValueError("key %s has messages in partitions %s and %s" % (kt, part[kt], p))
        if size == "-1":
            if rows.pop(kt, None) is None:
                raise ValueError("a tombstone of a key not there: %s" % (kt,))
            continue
        vj = json.loads(v)
        rows[kt] = tuple(vj[c] for c in cols)
    return collections.Counter(rows.values())


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    tools = kafka_tools(case.weir)
    # half of the upsert jobs into upsert-kafka under AUTO (drawn whether or not the tools are there)
    j.kafka = case.rng.random() < 0.5 and j.upsert and tools is not None
    mock = None
    if j.kafka:
        mock, j.boot = start_mock(case, tools[0], [("q%d" % i, case.rng.randint(1, 3)) for i in range(len(j.queries))])
    try:
        return run_job(case, j, tools)
    finally:
        if mock:
            mock.kill()
            mock.wait()


def run_job(case, j, tools):
    case.note = "(parallelism %d, batch %d, %d files%s%s%s%s)" % (
        j.parallelism, j.batch, j.t_files, ", split size %d" % j.split_size if j.split_size else "",
        ", rocksdb" if j.rocksdb else "",
        ", mini-batch" if j.mini else "",
        ", upsert-kafka sinks, AUTO" if j.kafka else ", PRIMARY KEY sinks as upserts" if j.upsert else "")
    os.makedirs(case.path("t"))
    lines = [envelope(op, b, a, j.schema_t) + "\n" for op, b, a in j.t_events]
    cuts = sorted(case.rng.randint(0, len(lines)) for _ in range(j.t_files - 1))
    for i, (lo, hi) in enumerate(zip([0] + cuts, cuts + [len(lines)])):
        with open(case.path("t", "part-%02d.json" % i), "w") as f:
            f.writelines(lines[lo:hi])
    with open(case.path("u.json"), "w") as f:
        f.writelines(envelope(op, b, a, False) + "\n" for op, b, a in j.u_events)
    case.write("job.sql", job_sql(j))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch, j.rocksdb))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    case.counts["events"] += len(j.t_events) + len(j.u_events)
    db = oracle_db(j)
    problems = []
    for qi, q in enumerate(j.queries):
        what = "q%d (%s)" % (qi, q[0])
        try:
            cols = [c for c, _ in q[1]]
            if j.kafka:
                got = fold_upsert_topic(tools[1], j.boot, "q%d" % qi, cols, q[2])
            elif j.upsert:
                got = diffrun.fold_debezium_upserts(case.path("q%d" % qi), cols, q[2])
            else:
                got = diffrun.fold_debezium(case.path("q%d" % qi), cols)
        except ValueError as e:
            problems.append("%s: %s" % (what, e))
            continue
        problems += diffrun.multiset_problems(what, oracle(db, j, q), got)
    return problems


def main():
    return diffrun.main("cdc_diff", run_case, jobs_env="WEIR_CDCDIFF_JOBS", jobs=16, asan_jobs=6,
                        one_env="WEIR_CDCDIFF_JOB", unit="jobs", timeout=120)


if __name__ == "__main__":
    sys.exit(main())
