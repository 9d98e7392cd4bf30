#!/usr/bin/env python3
"""Randomized differential test of CASE over string equalities and of IN
over string literals.

weir evaluates `CASE WHEN x = 'a' THEN .. WHEN x = 'b' THEN .. END` (every
WHEN the same subject against a string literal) as one lookup per row, and
`x IN ('a', 'b', ..)` through a hash set of the literals. Each *job* is a
random set of strings (upper and lower case, one non-ASCII letter in both
cases, empty strings, NULLs) in JSON lines and a few random expressions of
those forms, or of forms that must not take the lookup (one WHEN with
another subject or another comparison), with THEN values that fail where
they are not meant to be evaluated (a division by zero in every row of
three characters), literals on either side of `=`, repeated literals, no
ELSE, NOT IN, NULL in the IN list. weir runs them with `weir run` at a
random parallelism and batch size.

The oracle shares no code with weir: it goes WHEN by WHEN in Python, with
SQL's three-valued logic for = and IN, LOWER/UPPER as Python's (the same as
Java's on these letters), and Java's integer division.

Usage: case_switch_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_CASEDIFF_JOBS (jobs), WEIR_CASEDIFF_JOB
(one job of the seed).
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

ALPHA = ["a", "b", "A", "B", "\u00e9", "\u00c9", "1", "-"]


def gen_string(rng):
    if rng.random() < 0.08:
        return None
    return "".join(rng.choice(ALPHA) for _ in range(rng.choice([0, 1, 2, 2, 3, 3, 4])))


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


# subjects: (SQL over column s or t, python function of the row)
def subj_fn(name):
    return {
        "s": lambda r: r["s"],
        "t": lambda r: r["t"],
        "LOWER(s)": lambda r: None if r["s"] is None else r["s"].lower(),
        "UPPER(s)": lambda r: None if r["s"] is None else r["s"].upper(),
        "CONCAT(s, 'x')": lambda r: None if r["s"] is None else r["s"] + "x",
    }[name]


SUBJECTS = ["s", "t", "LOWER(s)", "UPPER(s)", "CONCAT(s, 'x')"]


def gen_lit(rng, strings, f):
    """A literal that the subject f gives for some input string, mostly."""
    known = [s for s in strings if s is not None]
    if known and rng.random() < 0.75:
        k = rng.choice(known)
        return f({"s": k, "t": k})
    return gen_string(rng) or ""


def gen_value(rng, lit):
    """A THEN / ELSE value: (SQL, python function of the row). lit: the
    literal its WHEN compares with (None for ELSE)."""
    r = rng.random()
    if lit is not None and len(lit) != 3 and r < 0.4:
        r = 1.0
    if r < 0.35:
        v = rng.choice(["0", "1", "x", "", "\u00e9\u00e9"])
        return sql_str(v), lambda row, v=v: v
    if r < 0.5:
        return "CAST(NULL AS STRING)", lambda row: None
    if r < 0.65:
        return "s", lambda row: row["s"]
    if r < 0.8:
        return "CONCAT(t, '!')", lambda row: None if row["t"] is None else row["t"] + "!"
    if lit is not None and len(lit) != 3:
        # fails (division by zero) on every row of three characters: only
        # rows whose subject equals lit may evaluate it
        def guard(row):
            n = len(row["s"]) - 3
            q = abs(10) // abs(n)
            return str(q if n > 0 else -q)
        return "CAST(10 / (CHAR_LENGTH(s) - 3) AS STRING)", guard
    return sql_str("g"), lambda row: "g"


def gen_case(rng, strings):
    """(SQL, python function of the row) of a random CASE."""
    subj = rng.choice(SUBJECTS + ["s"])
    n = rng.randint(1, 6)
    whens = []  # (sql, cond fn, value fn)
    lits = []
    for k in range(n):
        lit = rng.choice(lits) if lits and rng.random() < 0.15 else gen_lit(rng, strings, subj_fn(subj))
        lits.append(lit)
        sj, f = subj, subj_fn(subj)
        op = "="
        if rng.random() < 0.08:
            sj = rng.choice(SUBJECTS)
            f = subj_fn(sj)
        if rng.random() < 0.05:
            op = "<>"
        left_lit = rng.random() < 0.3
        cond = ("%s %s %s" % (sql_str(lit), op, sj)) if left_lit else ("%s %s %s" % (sj, op, sql_str(lit)))
        if op == "=":
            cf = (lambda row, f=f, lit=lit: None if f(row) is None else f(row) == lit)
        else:
            cf = (lambda row, f=f, lit=lit: None if f(row) is None else f(row) != lit)
        guarded = subj == "s" and sj == "s" and op == "="
        vs, vf = gen_value(rng, lit if guarded else None)
        whens.append(("WHEN %s THEN %s" % (cond, vs), cf, vf))
    els = None
    if rng.random() < 0.75:
        els = gen_value(rng, None)
    sql = "CASE " + " ".join(w[0] for w in whens) + (" ELSE %s" % els[0] if els else "") + " END"

    def fn(row):
        for _, cf, vf in whens:
            if cf(row) is True:
                return vf(row)
        return els[1](row) if els else None
    return sql, fn


def gen_in(rng, strings):
    subj = rng.choice(SUBJECTS)
    f = subj_fn(subj)
    lits = [gen_lit(rng, strings, f) for _ in range(rng.randint(1, 7))]
    has_null = rng.random() < 0.2
    neg = rng.random() < 0.3
    items = [sql_str(x) for x in lits] + (["CAST(NULL AS STRING)"] if has_null else [])
    rng.shuffle(items)
    sql = "%s %sIN (%s)" % (subj, "NOT " if neg else "", ", ".join(items))

    def fn(row):
        x = f(row)
        if x is None:
            return None
        if x in lits:
            return not neg
        return None if has_null else neg
    return sql, fn


REGEXES = [("(a+)", 1), ("([aA]b)", 1), ("^(b)", 1), ("(\u00e9)(a)?", 2)]


def gen_atom(rng, strings):
    """A BOOLEAN operand of AND/OR: (SQL, python function of the row)."""
    r = rng.random()
    if r < 0.25:
        return gen_in(rng, strings)
    if r < 0.45:
        pat, g = rng.choice(REGEXES)

        def fn(row, pat=pat, g=g):
            m = None if row["s"] is None else re.search(pat, row["s"])
            return m is not None and m.group(g) is not None
        return "REGEXP_EXTRACT(s, %s, %d) IS NOT NULL" % (sql_str(pat), g), fn
    if r < 0.55:
        pat = rng.choice(REGEXES)[0]
        return "REGEXP(t, %s)" % sql_str(pat), \
            lambda row, pat=pat: None if row["t"] is None else re.search(pat, row["t"]) is not None
    if r < 0.7:
        lit = gen_lit(rng, strings, subj_fn("s"))
        return "s = %s" % sql_str(lit), lambda row, lit=lit: None if row["s"] is None else row["s"] == lit
    if r < 0.8:
        return "t IS NULL", lambda row: row["t"] is None
    # operands that fail (division by zero on rows of three characters)
    # unless their own AND/OR keeps its order (the expensive guard first):
    # neither they nor an AND/OR above them may be reordered
    if r < 0.9:
        return "(REGEXP_EXTRACT(s, '^...$', 0) IS NOT NULL OR 10 / (CHAR_LENGTH(s) - 3) > 0)", \
            lambda row: None if row["s"] is None else len(row["s"]) >= 3
    return "(REGEXP_EXTRACT(s, '^...$', 0) IS NULL AND 10 / (CHAR_LENGTH(s) - 3) < 0)", \
        lambda row: None if row["s"] is None else len(row["s"]) < 3


def gen_bool(rng, strings, depth=0):
    """A tree of AND/OR over gen_atom operands, with SQL's three-valued logic."""
    if depth >= 2 or rng.random() < 0.3:
        return gen_atom(rng, strings)
    op = rng.choice(["AND", "OR"])
    kids = [gen_bool(rng, strings, depth + 1) for _ in range(rng.randint(2, 4))]
    sql = "(" + (" %s " % op).join(k[0] for k in kids) + ")"

    def fn(row):
        vals = [k[1](row) for k in kids]
        decide = op == "OR"  # the value that decides: TRUE for OR, FALSE for AND
        if decide in vals:
            return decide
        return None if None in vals else not decide
    return sql, fn


def run_job(case):
    rng = case.rng
    strings = [gen_string(rng) for _ in range(rng.choice([3, 20, 80]))]
    rows = [{"id": i, "s": s, "t": rng.choice(strings)} for i, s in enumerate(strings)]
    exprs = []
    for _ in range(rng.randint(1, 4)):
        exprs.append(("c", gen_case(rng, strings)))
    for _ in range(rng.randint(0, 2)):
        exprs.append(("b", gen_in(rng, strings)))
    for _ in range(rng.randint(0, 2)):
        exprs.append(("b", gen_bool(rng, strings)))
    where = gen_bool(rng, strings) if rng.random() < 0.5 else None
    with open(case.path("in.json"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    cols = ["x%d %s" % (k, "STRING" if kind == "c" else "BOOLEAN") for k, (kind, _) in enumerate(exprs)]
    par = rng.choice([1, 2, 4])
    batch = rng.choice([1, 7, 1024])
    case.note = "parallelism %d, batch size %d" % (par, batch)
    case.write("job.sql", "\n".join([
        "CREATE TABLE t (id INT, s STRING, t STRING) WITH ('connector' = 'filesystem', "
        "'path' = 'in.json', 'format' = 'json');",
        "CREATE TABLE o (id INT, %s) WITH ('connector' = 'filesystem', 'path' = 'out', "
        "'format' = 'json');" % ", ".join(cols),
        "INSERT INTO o SELECT id, %s FROM t%s;" % (", ".join(e[1][0] for e in exprs),
                                                   " WHERE " + where[0] if where else "")]) + "\n")
    p = case.run_weir(["run", "job.sql", "-D", "parallelism.default=%d" % par, "-D", "weir.batch-size=%d" % batch])
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    got = diffrun.json_rows_by_id(case.path("out"))
    problems = []
    if where:
        rows = [r for r in rows if where[1](r) is True]
    if len(got) != len(rows):
        problems.append("expected %d rows, got %d" % (len(rows), len(got)))
    for r in rows:
        g = got.get(r["id"])
        if g is None:
            continue
        for k, (_, (sql, fn)) in enumerate(exprs):
            want = fn(r)
            if g.get("x%d" % k) != want:
                problems.append("row %r: %s = %r, expected %r" % (r, sql, g.get("x%d" % k), want))
        case.counts["values"] += len(exprs)
    return problems[:20]


def main():
    return diffrun.main("case_switch_diff", run_job, jobs_env="WEIR_CASEDIFF_JOBS", jobs=20, asan_jobs=6,
                        one_env="WEIR_CASEDIFF_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
