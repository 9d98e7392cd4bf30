#!/usr/bin/env python3
"""Randomized differential test of COLLECT and MULTISET against Python.

Each round writes random rows (k, v: a short word or NULL, n: a small INT
or NULL, ts: strictly increasing event time) and runs one weir job at a
random parallelism with four queries, each compared with what Python's
collections.Counter computes from the same rows:

  tumble   COLLECT(v), COLLECT(n), COLLECT(DISTINCT v), CARDINALITY(COLLECT(v))
           per key and TUMBLE window;
  grouped  COLLECT(v) in an updating GROUP BY k (the changelog replayed
           into its final table);
  retract  COLLECT(k) GROUP BY lv over the changelog of
           SELECT k, LAST_VALUE(v') AS lv ... GROUP BY k, so a key moving to
           another group takes one occurrence out of the old multiset;
  over     COLLECT(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2
           PRECEDING AND CURRENT ROW).

Multisets print as Flink prints them ({x=2, y=1}); Python writes the same
text with the elements in weir's documented order (strings bytewise,
numbers by value). The seed is printed; --seed replays a run.
"""
import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

WORDS = ["a", "b", "cc", "x y", "z"]
KEYS = ["k1", "k2", "k3"]
WINDOW_MS = 5000


def ms_text(counter, numeric=False):
    items = sorted(counter.items(), key=lambda kv: kv[0] if numeric else kv[0].encode())
    return "{" + ", ".join(f"{k}={c}" for k, c in items if c > 0) + "}"


def ts_text(ms):
    s = ms // 1000
    return f"2024-01-01 00:{s // 60:02d}:{s % 60:02d}.{ms % 1000:03d}"


def win_text(ms):
    s = ms // 1000
    t = f"2024-01-01T00:{s // 60:02d}:{s % 60:02d}"
    return t[:-3] if s % 60 == 0 else t  # Java's LocalDateTime drops :00 seconds


def final_rows(lines):
    final = collections.Counter()
    for text in lines:
        kind, row = text[:2], text[2:]
        final[row] += 1 if kind in ("+I", "+U") else -1
    return sorted(r for r, n in final.items() for _ in range(n) if n > 0)


def one_round(weir, rng, seed, rows):
    ts, data = 0, []
    for _ in range(rows):
        ts += rng.randint(1, 900)
        data.append({"k": rng.choice(KEYS),
                     "v": None if rng.random() < 0.15 else rng.choice(WORDS),
                     "n": None if rng.random() < 0.15 else rng.randint(-3, 3),
                     "ts": ts})
    p = rng.choice([1, 2, 4])
    d = tempfile.mkdtemp(prefix="weir-collect-diff-")
    try:
        with open(os.path.join(d, "t.json"), "w") as f:
            for i, r in enumerate(data):
                f.write(json.dumps({"id": i, "k": r["k"], "v": r["v"], "n": r["n"], "ts": ts_text(r["ts"])}) + "\n")
        sql = f"""
CREATE TABLE t (id INT, k STRING, v STRING, n INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE tumble (k STRING, ws TIMESTAMP(3), a MULTISET<STRING>, b MULTISET<INT>, c MULTISET<STRING>, n INT)
  WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE grouped (k STRING, a MULTISET<STRING>) WITH ('connector' = 'print', 'print-identifier' = 'grouped');
CREATE TABLE retract (lv STRING, ks MULTISET<STRING>) WITH ('connector' = 'print', 'print-identifier' = 'retract');
CREATE TABLE over_ (k STRING, id INT, a MULTISET<STRING>) WITH ('connector' = 'print', 'print-identifier' = 'over');
EXECUTE STATEMENT SET BEGIN
INSERT INTO tumble
SELECT k, window_start, COLLECT(v), COLLECT(n), COLLECT(DISTINCT v), CARDINALITY(COLLECT(v))
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '{WINDOW_MS}' MILLISECOND))
GROUP BY k, window_start, window_end;
INSERT INTO grouped SELECT k, COLLECT(v) FROM t GROUP BY k;
INSERT INTO retract
SELECT lv, COLLECT(k) FROM (SELECT k, LAST_VALUE(COALESCE(v, '-')) AS lv FROM t GROUP BY k) GROUP BY lv;
INSERT INTO over_
SELECT k, id, COLLECT(v) OVER (PARTITION BY k ORDER BY ts
  ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t;
END;
"""
        with open(os.path.join(d, "job.sql"), "w") as f:
            f.write(sql)
        r = subprocess.run([weir, "run", "job.sql", "-D", f"parallelism.default={p}"], cwd=d,
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            print(r.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"weir failed (exit {r.returncode}), seed {seed}")
        got = collections.defaultdict(list)
        for line in r.stdout.splitlines():
            ident, text = line.split("> ", 1)
            got[ident.split(":")[0]].append(text)

        want = {}
        wins = collections.defaultdict(list)
        for row in data:
            wins[(row["k"], row["ts"] // WINDOW_MS * WINDOW_MS)].append(row)
        want["tumble"] = sorted(
            f"+I[{k}, {win_text(w)}, "
            f"{ms_text(collections.Counter(x['v'] for x in rs if x['v'] is not None))}, "
            f"{ms_text(collections.Counter(x['n'] for x in rs if x['n'] is not None), True)}, "
            f"{ms_text(collections.Counter(set(x['v'] for x in rs if x['v'] is not None)))}, "
            f"{sum(1 for x in rs if x['v'] is not None)}]"
            for (k, w), rs in wins.items())
        per_key = collections.defaultdict(collections.Counter)
        last = {}
        for row in data:
            per_key[row["k"]]
            if row["v"] is not None:
                per_key[row["k"]][row["v"]] += 1
            last[row["k"]] = row["v"] if row["v"] is not None else "-"
        want["grouped"] = sorted(f"[{k}, {ms_text(c)}]" for k, c in per_key.items())
        groups = collections.defaultdict(collections.Counter)
        for k, lv in last.items():
            groups[lv][k] += 1
        want["retract"] = sorted(f"[{lv}, {ms_text(c)}]" for lv, c in groups.items())
        over, hist = [], collections.defaultdict(list)
        for i, row in enumerate(data):
            hist[row["k"]].append(row["v"])
            frame = hist[row["k"]][-3:]
            over.append(f"+I[{row['k']}, {i}, "
                        f"{ms_text(collections.Counter(x for x in frame if x is not None))}]")
        want["over"] = sorted(over)

        have = {"tumble": sorted(got["tumble"]), "grouped": final_rows(got["grouped"]),
                "retract": final_rows(got["retract"]), "over": sorted(got["over"])}
        for q in want:
            if have[q] != want[q]:
                print(f"MISMATCH in {q} (seed {seed}, parallelism {p})", file=sys.stderr)
                for line in sorted(set(have[q]) ^ set(want[q]))[:10]:
                    print(("  weir:   " if line in have[q] else "  python: ") + line, file=sys.stderr)
                raise SystemExit(1)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weir", required=True)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--rows", type=int, default=150)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(os.environ.get("WEIR_SEED", random.randrange(2**31)))
    print(f"collect_diff: seed {seed} (WEIR_SEED={seed} replays), {a.rounds} rounds of {a.rows} rows")
    rng = random.Random(seed)
    for _ in range(a.rounds):
        one_round(a.weir, rng, seed, a.rows)
    print("collect_diff: all rounds agree")


if __name__ == "__main__":
    main()
