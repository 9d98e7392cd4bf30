#!/usr/bin/env python3
"""Randomized differential test of weir's regular expression functions.

Each *job* is a random set of strings (JSON lines) and a few random
patterns written in the part of Java's regex language whose meaning
Python's `re` (with re.ASCII) shares exactly: literals (one non-ASCII),
'.', classes and negated classes, \\d \\w \\s \\D, capturing and
non-capturing groups, leftmost-first alternation, greedy and lazy
quantifiers on single characters, look-ahead, one-character look-behind,
^ $ \\b \\B. weir computes, per string and pattern, REGEXP,
REGEXP_EXTRACT (group 0 and 1), REGEXP_REPLACE, REGEXP_COUNT,
REGEXP_INSTR and REGEXP_SUBSTR with `weir run` at a random parallelism.

The oracle shares no code with weir: Python's `re` finds each match, and
the iteration over matches is Java's Matcher.find as documented (after an
empty match the next search starts one character further, after a
non-empty one at its end), written here; the replacement is literal, as
Flink quotes it; positions are 1-based characters.

Usage: regex_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_REGEXDIFF_JOBS (jobs).
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

ALPHA = ["a", "b", "c", "1", "2", " ", "-", "\u00e9", "\n"]
LITS = ["a", "b", "c", "1", " ", "-", "\u00e9"]
CLASSES = ["[ab]", "[^a]", "[a-c1]", "[\\d-]", "[^ \\n]", "[\u00e9b]", "\\d", "\\w", "\\s", "\\D", "."]


def gen_string(rng):
    n = rng.choice([0, 1, 2, 3, 5, 8, 12])
    return "".join(rng.choice(ALPHA) for _ in range(n))


def gen_char_atom(rng):
    return rng.choice(LITS + CLASSES)


def gen_quant(rng):
    q = rng.choice(["", "", "", "*", "+", "?", "{1,2}", "{2}", "{0,2}"])
    if q and rng.random() < 0.4:
        q += "?"
    return q


def gen_seq(rng, depth, groups):
    parts = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.55 or depth >= 2:
            parts.append(gen_char_atom(rng) + gen_quant(rng))
        elif r < 0.72:
            groups[0] += 1
            parts.append("(" + gen_alt(rng, depth + 1, groups) + ")")
        elif r < 0.80:
            parts.append("(?:" + gen_alt(rng, depth + 1, groups) + ")")
        elif r < 0.86:
            parts.append(rng.choice(["(?=", "(?!"]) + gen_char_atom(rng) + gen_quant(rng) + ")")
        elif r < 0.90:
            parts.append(rng.choice(["(?<=", "(?<!"]) + rng.choice(LITS) + ")")
        else:
            parts.append(rng.choice(["^", "$", "\\b"]))
    return "".join(parts)


def gen_alt(rng, depth, groups):
    alts = [gen_seq(rng, depth, groups)]
    while rng.random() < 0.3 and len(alts) < 3:
        alts.append(gen_seq(rng, depth, groups))
    return "|".join(alts)


def gen_pattern(rng):
    groups = [0]
    p = gen_alt(rng, 0, groups)
    return p, groups[0]


def java_finds(rx, s):
    """Matches in Java's Matcher.find order (a list of re.Match)."""
    out = []
    pos = 0
    while pos <= len(s):
        m = rx.search(s, pos)
        if not m:
            break
        out.append(m)
        pos = m.end() if m.end() != m.start() else m.end() + 1
    return out


def oracle(pattern, ngroups, s):
    rx = re.compile(pattern, re.ASCII)
    ms = java_finds(rx, s)
    first = ms[0] if ms else None
    rep, app = [], 0
    for m in ms:
        rep.append(s[app:m.start()])
        rep.append("<>")
        app = m.end()
    rep.append(s[app:])
    return {
        "m": first is not None,
        "e0": first.group(0) if first else None,
        "e1": (first.group(1) if first and ngroups >= 1 else None),
        "r": "".join(rep),
        "c": len(ms),
        "i": first.start() + 1 if first else 0,
        "u": first.group(0) if first else None,
    }


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def run_job(weir, rng, folder, timeout=120):
    strings = [gen_string(rng) for _ in range(rng.choice([1, 5, 20, 60]))]
    pats = [gen_pattern(rng) for _ in range(rng.randint(1, 4))]
    with open(os.path.join(folder, "in.json"), "w", encoding="utf-8") as f:
        for i, s in enumerate(strings):
            f.write(json.dumps({"id": i, "s": s}) + "\n")
    cols, outcols = [], []
    for k, (p, ng) in enumerate(pats):
        q = sql_str(p)
        cols += ["m%d BOOLEAN" % k, "e0_%d STRING" % k, "e1_%d STRING" % k, "r%d STRING" % k,
                 "c%d INT" % k, "i%d INT" % k, "u%d STRING" % k]
        outcols += ["REGEXP(s, %s)" % q, "REGEXP_EXTRACT(s, %s)" % q,
                    ("REGEXP_EXTRACT(s, %s, 1)" % q) if ng >= 1 else "CAST(NULL AS STRING)",
                    "REGEXP_REPLACE(s, %s, '<>')" % q, "REGEXP_COUNT(s, %s)" % q,
                    "REGEXP_INSTR(s, %s)" % q, "REGEXP_SUBSTR(s, %s)" % q]
    par = rng.choice([1, 2, 4])
    sql = ["CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', "
           "'path' = 'in.json', 'format' = 'json');",
           "CREATE TABLE o (id INT, %s) WITH ('connector' = 'filesystem', 'path' = 'out', "
           "'format' = 'json');" % ", ".join(cols),
           "INSERT INTO o SELECT id, %s FROM t;" % ", ".join(outcols)]
    with open(os.path.join(folder, "job.sql"), "w", encoding="utf-8") as f:
        f.write("\n".join(sql) + "\n")
    cmd = [weir, "run", "job.sql", "-D", "parallelism.default=%d" % par]
    p = subprocess.run(cmd, cwd=folder, capture_output=True, timeout=timeout)
    problems = []
    if p.returncode != 0:
        return ["weir exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-2000:])]
    got = diffrun.json_rows_by_id(os.path.join(folder, "out"))
    if len(got) != len(strings):
        problems.append("expected %d rows, got %d" % (len(strings), len(got)))
    for i, s in enumerate(strings):
        row = got.get(i)
        if row is None:
            continue
        for k, (pat, ng) in enumerate(pats):
            want = oracle(pat, ng, s)
            for key, w in want.items():
                col = "%s%d" % (key, k) if key not in ("e0", "e1") else "%s_%d" % (key, k)
                if row.get(col) != w:
                    problems.append("string %r pattern %r: %s = %r, expected %r"
                                    % (s, pat, col, row.get(col), w))
    return problems


def main():
    return diffrun.main("regex_diff", lambda c: run_job(c.weir, c.rng, c.folder), jobs_env="WEIR_REGEXDIFF_JOBS",
                        jobs=30, asan_jobs=8, one_env="WEIR_REGEXDIFF_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
