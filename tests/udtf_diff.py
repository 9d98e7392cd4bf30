#!/usr/bin/env python3
"""Randomized differential test of table functions written in C (LATERAL TABLE).

Each job is one random JSON-lines input t (id INT, s STRING, n INT, ts
TIMESTAMP(3) with a watermark 2 seconds behind; s of random words with
runs of spaces, "" or NULL; n from -1 to 3 or NULL; ts out of order now and
then) and eleven queries over the example library libweir_udtf_example.so,
written to debezium-json files:

    q0  t, LATERAL TABLE(split_words(s))                 (inner)
    q1  t LEFT JOIN LATERAL TABLE(split_words_pos(s)) ON TRUE
    q2  t CROSS JOIN LATERAL TABLE(repeat_n(s, n))        (NULL arguments passed)
    q3  t LEFT JOIN LATERAL TABLE(repeat_n(s, n)) ON TRUE
    q4  a 10-second TUMBLE window count per word over a view of q0's rows
    q5  split_words over an updating input (COUNT(*) per s): -U/+U per word
    q6  a GROUP BY word over q0's rows (COUNT(*)): an updating result
    q7  TABLE(split_words(c)) alone in FROM (c a random constant string, ""
        or NULL), grouped by word: COUNT(*)
    q8  t JOIN TABLE(split_words_pos(c)) ON t.n = pos   (a regular join)
    q9  t LEFT JOIN TABLE(split_words_pos(c)) ON t.n = pos
    q10 LATERAL TABLE(repeat_n(c, m)) alone (m from -1 to 3 or NULL)

run by `weir run` at a random parallelism (1/2/4) and batch size
(1/7/1024). Each changelog is folded into its table and compared with the
oracle, which shares no code with weir: the functions as Python models, a
row's words s.split(' ') without empty ones, and for q4 the window rules of
docs/sql.md (the watermark is the largest ts before the row minus 2 s; a
row whose window end is at or below it is late and dropped).

Usage: udtf_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_UDTFDIFF_JOB=i runs one job.
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

WORDS = ["a", "bb", "c", "dd", "a"]


def gen_job(rng):
    j = argparse.Namespace()
    j.parallelism = rng.choice([1, 2, 4])
    j.batch = rng.choice([1, 7, 1024])
    rows, t = [], 0
    for i in range(rng.randint(0, 60)):
        r = rng.random()
        if r < 0.1:
            s = None
        elif r < 0.18:
            s = ""
        else:
            parts = [" " * rng.randint(0, 2)]
            for _ in range(rng.randint(0, 4)):
                parts.append(rng.choice(WORDS) + " " * rng.randint(1, 2))
            s = "".join(parts)
            if rng.random() < 0.5:
                s = s.rstrip(" ")
        n = None if rng.random() < 0.15 else rng.randint(-1, 3)
        t += rng.randint(0, 1500)
        ts = t - rng.randint(0, 6000) if rng.random() < 0.2 else t  # now and then out of order
        rows.append((i, s, n, max(ts, 0)))
    j.rows = rows
    r = rng.random()
    j.c = None if r < 0.1 else "" if r < 0.2 else " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
    j.m = None if rng.random() < 0.15 else rng.randint(-1, 3)
    return j


def words(s):
    return [] if s is None else [w for w in s.split(" ") if w]


def repeat(s, n):
    return [] if n is None else [(i, s) for i in range(1, n + 1)]


def oracle(j):
    q = [collections.Counter() for _ in range(len(QUERIES))]
    for i, s, n, ts in j.rows:
        ws = words(s)
        for w in ws:
            q[0][(i, w)] += 1
        for p, w in enumerate(ws, 1):
            q[1][(i, w, p, len(w))] += 1
        if not ws:
            q[1][(i, None, None, None)] += 1
        rs = repeat(s, n)
        for k, v in rs:
            q[2][(i, k, v)] += 1
            q[3][(i, k, v)] += 1
        if not rs:
            q[3][(i, None, None)] += 1
    # q4: windows of 10 s; the watermark before a row is max(ts before it) - 2000
    wm, acc = None, collections.Counter()
    for i, s, n, ts in j.rows:
        end = ts - ts % 10000 + 10000
        if wm is None or end > wm:
            for w in words(s):
                acc[(ts - ts % 10000, w)] += 1
        wm = max(wm, ts - 2000) if wm is not None else ts - 2000
    for (start, w), c in acc.items():
        q[4][(start // 1000, w, c)] += 1
    per_word = collections.Counter(w for _, s, _, _ in j.rows for w in words(s))
    for w, c in per_word.items():
        q[6][(w, c)] += 1
    counts = collections.Counter(s for _, s, _, _ in j.rows)
    for s, c in counts.items():
        for w in words(s):
            q[5][(s, c, w)] += 1
    cw = words(j.c)
    for w in set(cw):
        q[7][(w, cw.count(w))] += 1
    for i, s, n, ts in j.rows:
        hit = n is not None and 1 <= n <= len(cw)
        if hit:
            q[8][(i, cw[n - 1])] += 1
        q[9][(i, cw[n - 1] if hit else None)] += 1
    for k, v in repeat(j.c, j.m):
        q[10][(k, v)] += 1
    return q


def const(v, typ):
    return "CAST(NULL AS %s)" % typ if v is None else "'%s'" % v if typ == "STRING" else str(v)


QUERIES = [
    ("id INT, word STRING", ["id", "word"],
     "SELECT t.id, w.word FROM t, LATERAL TABLE(split_words(t.s)) AS w(word)"),
    ("id INT, word STRING, pos INT, len INT", ["id", "word", "pos", "len"],
     "SELECT t.id, x.word, x.pos, x.len FROM t LEFT JOIN LATERAL TABLE(split_words_pos(t.s)) AS x ON TRUE"),
    ("id INT, i INT, s STRING", ["id", "i", "s"],
     "SELECT t.id, r.i, r.s FROM t CROSS JOIN LATERAL TABLE(repeat_n(t.s, t.n)) AS r(i, s)"),
    ("id INT, i INT, s STRING", ["id", "i", "s"],
     "SELECT t.id, r.i, r.s FROM t LEFT JOIN LATERAL TABLE(repeat_n(s, n)) AS r(i, s) ON TRUE"),
    ("ws BIGINT, word STRING, c BIGINT", ["ws", "word", "c"],
     "SELECT CAST(EXTRACT(HOUR FROM window_start) * 3600 + EXTRACT(MINUTE FROM window_start) * 60 "
     "+ EXTRACT(SECOND FROM window_start) AS BIGINT), word, COUNT(*) "
     "FROM TABLE(TUMBLE(TABLE words, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
     "GROUP BY window_start, window_end, word"),
    ("s STRING, c BIGINT, word STRING", ["s", "c", "word"],
     "SELECT g.s, g.c, w.word FROM (SELECT s, COUNT(*) AS c FROM t GROUP BY s) AS g, "
     "LATERAL TABLE(split_words(g.s)) AS w(word)"),
    ("word STRING, c BIGINT", ["word", "c"],
     "SELECT w.word, COUNT(*) FROM t, LATERAL TABLE(split_words(t.s)) AS w(word) GROUP BY w.word"),
    ("word STRING, c BIGINT", ["word", "c"],
     "SELECT w.word, COUNT(*) FROM TABLE(split_words({c})) AS w(word) GROUP BY w.word"),
    ("id INT, word STRING", ["id", "word"],
     "SELECT t.id, x.word FROM t JOIN TABLE(split_words_pos({c})) AS x ON t.n = x.pos"),
    ("id INT, word STRING", ["id", "word"],
     "SELECT t.id, x.word FROM t LEFT JOIN TABLE(split_words_pos({c})) AS x ON t.n = x.pos"),
    ("i INT, s STRING", ["i", "s"],
     "SELECT r.i, r.s FROM LATERAL TABLE(repeat_n({c}, {m})) AS r"),
]


def job_sql(j, lib):
    out = ["-- udtf_diff seed %d job %d: parallelism %d, batch size %d" % (j.seed, j.index, j.parallelism, j.batch)]
    for name, sym in [("split_words", "split_words"), ("split_words_pos", "split_words_pos"),
                      ("repeat_n", "repeat_n")]:
        out.append("CREATE FUNCTION %s AS 'weir_example_%s' LANGUAGE C USING JAR '%s';" % (name, sym, lib))
    out.append("CREATE TABLE t (id INT, s STRING, n INT, ts TIMESTAMP(3), "
               "WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) "
               "WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');")
    out.append("CREATE VIEW words AS SELECT t.ts, w.word FROM t, LATERAL TABLE(split_words(t.s)) AS w(word);")
    for qi, (cols, _, _) in enumerate(QUERIES):
        out.append("CREATE TABLE q%d (%s) WITH ('connector' = 'filesystem', 'path' = 'q%d', "
                   "'format' = 'debezium-json');" % (qi, cols, qi))
    out.append("EXECUTE STATEMENT SET BEGIN")
    for qi, (_, _, sql) in enumerate(QUERIES):
        out.append("  INSERT INTO q%d %s;" % (qi, sql.format(c=const(j.c, "STRING"), m=const(j.m, "INT"))))
    out.append("END;")
    return "\n".join(out) + "\n"


def ts_text(ms):
    s, m = divmod(ms, 1000)
    return "2024-01-01 %02d:%02d:%02d.%03d" % (s // 3600, s // 60 % 60, s % 60, m)


def run_case(case):
    j = gen_job(case.rng)
    j.seed, j.index = case.seed, case.index
    case.note = "(parallelism %d, batch %d, %d rows)" % (j.parallelism, j.batch, len(j.rows))
    lib = os.path.join(os.path.dirname(os.path.abspath(case.weir)), "libweir_udtf_example.so")
    with open(case.path("t.json"), "w") as f:
        for i, s, n, ts in j.rows:
            f.write(json.dumps({"id": i, "s": s, "n": n, "ts": ts_text(ts)}) + "\n")
    case.write("job.sql", job_sql(j, lib))
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, j.parallelism, j.batch))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    want = oracle(j)
    problems = []
    for qi, (_, cols, _) in enumerate(QUERIES):
        try:
            got = diffrun.fold_debezium(case.path("q%d" % qi), cols)
        except ValueError as e:
            problems.append("q%d: %s" % (qi, e))
            continue
        case.counts["rows"] += sum(want[qi].values())
        problems += diffrun.multiset_problems("q%d" % qi, want[qi], got)
    return problems


def main():
    return diffrun.main("udtf_diff", run_case, jobs_env="WEIR_UDTFDIFF_JOBS", jobs=6, asan_jobs=3,
                        one_env="WEIR_UDTFDIFF_JOB", unit="jobs of %d queries" % len(QUERIES))


if __name__ == "__main__":
    sys.exit(main())
