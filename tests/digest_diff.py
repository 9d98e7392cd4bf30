#!/usr/bin/env python3
"""Randomized metamorphic test of expression sharing (tests/test_digest_diff.sh
runs it).

weir computes an expression that stands twice in a SELECT once (common
subexpressions), and two INSERTs that read one source through the same
projection share it (sub-plan reuse). Both decide "the same" by a digest of
the expression's text; two expressions that differ only in a literal's
quotes, a CAST's or TRY_CAST's type, or a function's result type once got
one digest and the second gave the first's values. Sharing must never change
a value, so the oracle is the expression computed alone: each case draws
expressions as near-duplicates of each other (one literal, one type or one
function changed: strings with quotes, commas, blanks and backslashes, the
types of a CAST, CONCAT's last arguments two literals or one that once read
alike), computes them all in one SELECT and in two INSERTs over one
source, and compares every value with the same expression run alone in a job
of its own.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

LITS = ["a", "b", "a' 'b", "'", "''", "", "x,y", "\\", "a b", "12", "1.5", "2020-01-02", "true", "' , '"]
TEXTS = ["12", "-7", "1.5", "2020-01-02", "true", "abc", "", "a' 'b", " 3 ", "1e2", "x,y"]
FNS = ["UPPER", "LOWER", "TRIM"]
# CONCAT's last arguments, as SQL: two literals, or one whose text once printed alike ('a' 'b')
TAILS = ["'a', 'b'", "'a'' ''b'", "'x', ''", "'x'' '''", "'b'"]
TYPES = ["INT", "BIGINT", "DOUBLE", "DECIMAL(10, 2)", "DECIMAL(12, 4)", "DATE", "BOOLEAN", "TIMESTAMP(3)"]


def lit(v):
    return "'" + v.replace("'", "''") + "'"


class Expr:
    """A random STRING expression over s (STRING) and n (INT): a template whose
    slots (literals, CAST types, function names) a near-duplicate changes."""

    def __init__(self, rng, depth):
        self.slots = []  # [kind, value]
        self.text = self.gen(rng, depth)

    def slot(self, kind, value):
        self.slots.append([kind, value])
        return "{%d}" % (len(self.slots) - 1)

    def gen(self, rng, depth):
        if depth <= 0 or rng.random() < 0.25:
            k = rng.randrange(3)
            return "s" if k == 0 else "CAST(n AS STRING)" if k == 1 else self.slot("lit", rng.choice(LITS))
        k = rng.randrange(8)
        a = self.gen(rng, depth - 1)
        if k == 7:
            return "CONCAT(%s, %s)" % (a, self.slot("tail", rng.choice(TAILS)))
        if k == 0:
            return "CONCAT(%s)" % ", ".join([a] + [self.gen(rng, depth - 1) for _ in range(rng.choice([1, 2]))])
        if k == 1:
            return "%s(%s)" % (self.slot("fn", rng.choice(FNS)), a)
        if k == 2:
            return "REPLACE(%s, %s, %s)" % (a, self.slot("lit", rng.choice(LITS[:9])), self.slot("lit", rng.choice(LITS)))
        if k == 3:
            return "CAST(TRY_CAST(%s AS %s) AS STRING)" % (a, self.slot("type", rng.choice(TYPES)))
        if k == 4:
            return "COALESCE(%s, %s)" % (a, self.slot("lit", rng.choice(LITS)))
        if k == 5:
            return "IF(n > %d, %s, %s)" % (rng.randint(-5, 5), a, self.gen(rng, depth - 1))
        return "SUBSTRING(%s, %d)" % (a, rng.randint(1, 3))

    def render(self, slots=None):
        out = self.text
        for i, (kind, v) in enumerate(slots or self.slots):
            out = out.replace("{%d}" % i, lit(v) if kind == "lit" else v)
        return out

    def mutant(self, rng):
        """The expression with one slot changed (the same shape), or as it is when it has none."""
        if not self.slots:
            return self.render()
        slots = [list(x) for x in self.slots]
        i = rng.randrange(len(slots))
        pool = {"lit": LITS, "type": TYPES, "fn": FNS, "tail": TAILS}[slots[i][0]]
        slots[i][1] = rng.choice(pool)
        return self.render(slots)


def read_rows(folder):
    """{id: [values]} from the JSON files under folder."""
    rows = {}
    for root, _, files in os.walk(folder):
        for f in files:
            if f.startswith(".") or f.endswith(".inprogress"):
                continue
            with open(os.path.join(root, f)) as fh:
                for line in fh:
                    if line.strip():
                        o = json.loads(line)
                        rows[o["id"]] = [o["v%d" % i] for i in range(len(o) - 1)]
    return rows


def table(name, path, n):
    cols = ", ".join("v%d STRING" % i for i in range(n))
    return ("CREATE TABLE %s (id INT, %s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');"
            % (name, cols, path))


SOURCE = ("CREATE TABLE t (id INT, s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', "
          "'format' = 'json');")


def run_case(case):
    rng = case.rng
    with open(case.path("in.json"), "w") as f:
        for i in range(case.args.rows):
            s = None if rng.random() < 0.1 else rng.choice(TEXTS + LITS)
            f.write(json.dumps({"id": i, "s": s, "n": rng.randint(-6, 6)}) + "\n")
    exprs = []
    while len(exprs) < case.args.exprs:
        e = Expr(rng, rng.randint(1, 3))
        exprs.append(e.render())
        for _ in range(rng.randint(1, 3)):
            exprs.append(e.mutant(rng))
    exprs = exprs[:case.args.exprs]
    half = len(exprs) // 2
    sql = [SOURCE, table("all_", "out_all", len(exprs)), table("one", "out_one", half),
           table("two", "out_two", len(exprs) - half),
           "INSERT INTO all_ SELECT id, %s FROM t;" % ", ".join(exprs),
           "INSERT INTO one SELECT id, %s FROM t WHERE n <> 100;" % ", ".join(exprs[:half]),
           "INSERT INTO two SELECT id, %s FROM t WHERE n <> 100;" % ", ".join(exprs[half:])]
    case.write("job.sql", "\n".join(sql) + "\n")
    par = rng.choice([1, 2])
    case.note = "(%d expressions, parallelism %d)" % (len(exprs), par)
    r = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par))
    if r.returncode != 0:
        return [diffrun.failed_run(r)]
    got_all = read_rows(case.path("out_all"))
    got_split = read_rows(case.path("out_one"))
    for k, v in read_rows(case.path("out_two")).items():
        got_split[k] = got_split.get(k, []) + v
    problems = []
    for i, e in enumerate(exprs):
        alone = "alone%d" % i
        os.makedirs(case.path(alone), exist_ok=True)
        case.write(os.path.join(alone, "job.sql"), "\n".join([
            SOURCE.replace("'in.json'", "'../in.json'"), table("o", "out", 1),
            "INSERT INTO o SELECT id, %s FROM t;" % e]) + "\n")
        ra = case.run_weir(["run", "job.sql"], cwd=case.path(alone))
        if ra.returncode != 0:
            return [diffrun.failed_run(ra) + " (alone: %s)" % e]
        want = {k: v[0] for k, v in read_rows(case.path(alone, "out")).items()}
        case.counts["expressions"] += 1
        for k in sorted(want):
            for how, got in (("in one SELECT", got_all), ("in two INSERTs", got_split)):
                g = got.get(k, [None] * len(exprs))[i] if k in got else "<missing row>"
                if g != want[k]:
                    problems.append("expression %d %s, row %d: got %r, alone %r: %s" % (i, how, k, g, want[k], e))
        if len(problems) > 10:
            break
    return problems[:10]


def main():
    def add(ap):
        ap.add_argument("--rows", type=int, default=int(os.environ.get("WEIR_DIGESTDIFF_ROWS", "20")))
        ap.add_argument("--exprs", type=int, default=int(os.environ.get("WEIR_DIGESTDIFF_EXPRS", "12")))
    return diffrun.main("digest_diff", run_case, jobs_env="WEIR_DIGESTDIFF_JOBS", jobs=4, asan_jobs=2,
                        one_env="WEIR_DIGESTDIFF_JOB", add_args=add)


if __name__ == "__main__":
    sys.exit(main())
