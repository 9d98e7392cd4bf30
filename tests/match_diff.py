#!/usr/bin/env python3
"""Randomized differential test of MATCH_RECOGNIZE.

Each job is one random stream (JSON lines: id, k, v, ts_ms, and a DECIMAL(10,
2) p and a DATE d) whose times are
out of order by less than the watermark's delay (no row is late), read by
four random MATCH_RECOGNIZE queries in one `weir run` at parallelism 1, 2
or 4. A query has PARTITION BY k (or none), ORDER BY ts, id, a random
PATTERN of 1 to 4 variables with greedy and reluctant quantifiers (*, +, ?,
{n}, {n,}, {n,m}, {,m}), random DEFINE conditions (comparisons of V.v with
constants, with other variables, PREV, FIRST/LAST with offsets, COUNT, SUM,
AVG, MIN, MAX over a variable's rows, AND/OR; in half the queries also
SUM, AVG, MIN, MAX of p and SUM, MIN, MAX, FIRST, LAST of an expression of
one variable's columns in conditions, and those of p and MIN and MAX of d
in measures), a random AFTER MATCH SKIP and sometimes WITHIN.

The oracle shares no code with weir. It is a plain backtracking matcher
written from the SQL standard's rules:
  - a partition's rows are ordered by (ts, id);
  - from a start row the pattern's terms are tried left to right; a greedy
    quantifier first tries to take one more row, then to stop, a reluctant
    one the other way round; the first complete match in that order wins;
  - a condition of variable V is evaluated with the candidate row mapped to
    V: V.v and LAST(V.v, 0) are the candidate row's; X.v is the last row
    mapped to X so far (NULL when none); LAST(X.v, n) / FIRST(X.v, n) count
    n rows back from the last / on from the first row mapped to X; PREV(X.v,
    n) is the row n rows before the last row of X, inside the match;
    aggregates see the non-NULL values of X's rows (AVG of INT truncates;
    SUM of a DECIMAL(10, 2) is a DECIMAL(38, 2), AVG a DECIMAL(38, 6)
    rounded half up; SUM of nothing is NULL; COUNT(X.*) counts rows); NULL
    is not TRUE;
  - WITHIN d: a row may join the match only while its time is less than d
    after the first row's;
  - after a match, matching resumes per AFTER MATCH SKIP (PAST LAST ROW: the
    row after the match; TO NEXT ROW: the row after its first; TO FIRST /
    LAST V: the first / last row mapped to V - where V has no row in the
    match, or that row is the match's first, the job fails before emitting
    the match); a start without a match moves on one row;
  - MEASURES are evaluated over the whole match as conditions are over a
    candidate row (V.v is the last row of V).

Job 0 is a long-match job instead: per key, segments of rows - a run of
non-negative values (non-decreasing), then one negative value - one of them
WEIR_MATCHDIFF_LONG rows long (default 21 000), keys interleaved, read by
three queries whose matches are the segments by construction:
PATTERN (A+ B) with A AS A.v >= 0, B AS B.v < 0; the same through
conditions that read the match (A.v >= LAST(A.v, 1), B.v < LAST(A.v));
PATTERN (A{2,} B) AFTER MATCH SKIP TO LAST A (segments of 2+ A rows). The
expected rows are computed from the segments directly (FIRST/LAST id,
COUNT, SUM, MAX, AVG, LAST(A.v, 1), FIRST(A.v, 2), B.v). A match stays
undecided over the whole long run while rows keep arriving.

Usage: match_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_MATCHDIFF_JOBS (count), WEIR_MATCHDIFF_JOB (one job),
WEIR_MATCHDIFF_LONG (rows of the long match of job 0).
"""

import datetime
import decimal
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

LINE_RE = re.compile(r"^(q\d+)(?::\d+)?> \+I\[(.*)\]$")
QUERIES_PER_JOB = 4
VARS = ["A", "B", "C", "D"]


def gen_rows(rng):
    n = rng.choice([5, 20, 40, 70])
    keys = ["a", "b", "c"][:rng.randint(1, 3)]
    t = 1_700_000_000_000
    rows = []
    for i in range(n):
        t += rng.choice([0, 1, 200, 500, 1000, 2000])
        rows.append({"id": i + 1, "k": rng.choice(keys),
                     "v": None if rng.random() < 0.1 else rng.randint(0, 9), "ts_ms": t,
                     # a DECIMAL(10, 2) of quarters (exact in JSON) and a DATE, for the decimal queries
                     "p": None if rng.random() < 0.1 else rng.randint(-10, 10) / 4,
                     "d": None if rng.random() < 0.1 else "2024-01-%02d" % rng.randint(1, 28)})
    # out of order by less than the watermark delay (1 s): never late
    arrival = sorted(rows, key=lambda r: r["ts_ms"] + rng.randint(0, 900))
    return rows, arrival


# ---------------------------------------------------------------- the model

def cmp3(a, op, b):
    if a is None or b is None:
        return None
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": a == b, "<>": a != b}[op]


def and3(a, b):
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def or3(a, b):
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


class Ctx:
    """A candidate match: the partition's rows, the start, each row's variable."""

    def __init__(self, part, start, asg):
        self.part, self.start, self.asg = part, start, asg

    def idx(self, var):
        return [self.start + j for j, a in enumerate(self.asg) if var is None or a == var]

    def last(self, var, n=0):
        ix = self.idx(var)
        return self.part[ix[-1 - n]]["v"] if n < len(ix) else None

    def first(self, var, n=0):
        ix = self.idx(var)
        return self.part[ix[n]]["v"] if n < len(ix) else None

    def prev(self, var, n=1):
        ix = self.idx(var)
        if not ix or ix[-1] - n < self.start:
            return None
        return self.part[ix[-1] - n]["v"]

    def agg(self, fn, var):
        vs = [self.part[i]["v"] for i in self.idx(var) if self.part[i]["v"] is not None]
        if fn == "COUNT":
            return len(vs)
        if not vs:
            return None
        if fn == "SUM":
            return sum(vs)
        if fn == "AVG":
            return int(sum(vs) / len(vs))
        return min(vs) if fn == "MIN" else max(vs)

    def count_rows(self, var):
        return len(self.idx(var))

    def agg_expr(self, fn, var, f):
        """SUM, MIN, MAX of f(row) over var's rows where v is not NULL (f is then NULL)."""
        vs = [f(self.part[i]) for i in self.idx(var) if self.part[i]["v"] is not None]
        if not vs:
            return None
        return sum(vs) if fn == "SUM" else min(vs) if fn == "MIN" else max(vs)

    def nav_expr(self, fn, var, n, f):
        """LAST / FIRST(f(X row), n): f of the row n back from the last / on from the first row of var."""
        ix = self.idx(var)
        if n >= len(ix):
            return None
        r = self.part[ix[-1 - n] if fn == "LAST" else ix[n]]
        return None if r["v"] is None else f(r)

    def agg_col(self, fn, var, col):
        """SUM, AVG, MIN, MAX of the DECIMAL(10, 2) p (as Decimals: SUM a
        DECIMAL(38, 2), AVG a DECIMAL(38, 6) rounded half up) or MIN, MAX of
        the DATE d, over var's rows' non-NULL values."""
        vs = [self.part[i][col] for i in self.idx(var) if self.part[i][col] is not None]
        if not vs:
            return None
        if col == "d":
            vs = [datetime.date.fromisoformat(x) for x in vs]
        else:
            vs = [decimal.Decimal(repr(x)).quantize(decimal.Decimal("0.01")) for x in vs]
        if fn == "SUM":
            return sum(vs)
        if fn == "AVG":
            return (sum(vs) / len(vs)).quantize(decimal.Decimal("0.000001"), rounding=decimal.ROUND_HALF_UP)
        return min(vs) if fn == "MIN" else max(vs)


def gen_operand(rng, me, others, extra=False):
    """(sql, fn(ctx)) of an INT operand of a condition of variable me (with
    extra, also a DECIMAL aggregate of p, or an aggregate or navigation
    call over an expression of a variable's columns)."""
    x = rng.choice([me] * 3 + others) if others else me
    kind = rng.choice(["col", "col", "last", "first", "prev", "agg", "count", "const", "const"] +
                      (["pagg", "pagg", "xagg", "xagg"] if extra else []))
    if kind == "pagg":
        fn = rng.choice(["SUM", "AVG", "MIN", "MAX"])
        return "%s(%s.p)" % (fn, x), lambda c, fn=fn, x=x: c.agg_col(fn, x, "p")
    if kind == "xagg":
        # an aggregate or navigation over an expression of one variable's columns
        fn = rng.choice(["SUM", "MIN", "MAX", "LAST", "FIRST"])
        a, b = rng.randint(1, 3), rng.randint(-5, 5)
        sql = "%s(%s.v * %d + %s.id %% 3 + %d)" % (fn, x, a, x, b)
        if fn in ("LAST", "FIRST"):
            n = rng.randint(0, 1)
            sql = sql[:-1] + ", %d)" % n
            return sql, lambda c, fn=fn, x=x, a=a, b=b, n=n: c.nav_expr(fn, x, n, lambda r: r["v"] * a + r["id"] % 3 + b)
        return sql, lambda c, fn=fn, x=x, a=a, b=b: c.agg_expr(fn, x, lambda r: r["v"] * a + r["id"] % 3 + b)
    if kind == "col":
        return "%s.v" % x, lambda c, x=x: c.last(x)
    if kind == "last":
        n = rng.randint(0, 2)
        return "LAST(%s.v, %d)" % (x, n), lambda c, x=x, n=n: c.last(x, n)
    if kind == "first":
        n = rng.randint(0, 1)
        return "FIRST(%s.v, %d)" % (x, n), lambda c, x=x, n=n: c.first(x, n)
    if kind == "prev":
        n = rng.randint(1, 2)
        return "PREV(%s.v, %d)" % (x, n), lambda c, x=x, n=n: c.prev(x, n)
    if kind == "agg":
        fn = rng.choice(["SUM", "AVG", "MIN", "MAX", "COUNT"])
        return "%s(%s.v)" % (fn, x), lambda c, fn=fn, x=x: c.agg(fn, x)
    if kind == "count":
        return "COUNT(%s.*)" % x, lambda c, x=x: c.count_rows(x)
    k = rng.randint(0, 9)
    return str(k), lambda c, k=k: k


def gen_cond(rng, me, others, depth=0, extra=False):
    if depth < 1 and rng.random() < 0.3:
        a_sql, a_fn = gen_cond(rng, me, others, depth + 1, extra)
        b_sql, b_fn = gen_cond(rng, me, others, depth + 1, extra)
        if rng.random() < 0.5:
            return "(%s AND %s)" % (a_sql, b_sql), lambda c: and3(a_fn(c), b_fn(c))
        return "(%s OR %s)" % (a_sql, b_sql), lambda c: or3(a_fn(c), b_fn(c))
    if rng.random() < 0.1:
        return "%s.v IS NULL" % me, lambda c: c.last(me) is None
    op = rng.choice(["<", "<=", ">", ">=", "=", "<>"])
    l_sql, l_fn = "%s.v" % me, (lambda c: c.last(me))
    if rng.random() < 0.3:
        l_sql, l_fn = gen_operand(rng, me, others, extra)
    r_sql, r_fn = gen_operand(rng, me, others, extra)
    return "%s %s %s" % (l_sql, op, r_sql), lambda c: cmp3(l_fn(c), op, r_fn(c))


def gen_query(rng, extra=False):
    """A random query; with extra its conditions and measures also read
    SUM, AVG, MIN and MAX of the DECIMAL column p, MIN, MAX of the DATE d,
    and SUM, MIN, MAX, FIRST, LAST of expressions (X.v * a + X.id % 3 + b)
    (restore_change_diff draws without them; restore_diff in half its queries)."""
    n_terms = rng.randint(1, 4)
    nvars = rng.randint(1, min(n_terms, 3))
    terms = []
    for i in range(n_terms):
        var = VARS[i] if i < nvars else rng.choice(VARS[:nvars])
        last = i == n_terms - 1
        q = rng.choice(["", "", "*", "+", "?", "{n}", "{n,}", "{n,m}", "{,m}"])
        rel = q not in ("", "{n}", "?") and rng.random() < 0.4
        if last and q not in ("", "{n}"):
            rel = True
            if q in ("?", "{,m}"):  # a reluctant optional last variable: refused
                q, rel = "", False
        lo, hi, text = 1, 1, ""
        if q == "*":
            lo, hi, text = 0, None, "*"
        elif q == "+":
            lo, hi, text = 1, None, "+"
        elif q == "?":
            lo, hi, text = 0, 1, "?"
        elif q == "{n}":
            n = rng.randint(1, 3)
            lo, hi, text = n, n, "{%d}" % n
        elif q == "{n,}":
            n = rng.randint(0, 2)
            lo, hi, text = n, None, "{%d,}" % n
        elif q == "{n,m}":
            n = rng.randint(0, 2)
            m = rng.randint(max(n, 1), 3)
            lo, hi, text = n, m, "{%d,%d}" % (n, m)
        elif q == "{,m}":
            m = rng.randint(1, 3)
            lo, hi, text = 0, m, "{,%d}" % m
        if rel and lo == 0 and hi == 1:
            if last:
                lo, hi, text = 1, 1, ""
            rel = False
        terms.append((var, lo, hi, rel, var + text + ("?" if rel else "")))
    if sum(t[1] for t in terms) == 0:
        v, lo, hi, rel, text = terms[0]
        terms[0] = (v, 1, 1, False, v)
    used = sorted(set(t[0] for t in terms))
    defines = {}
    for v in used:
        if rng.random() < 0.85:
            defines[v] = gen_cond(rng, v, [o for o in used if o != v], extra=extra)
    skip = rng.choice(["PAST LAST ROW", "TO NEXT ROW", "TO FIRST", "TO LAST", "TO"])
    if skip in ("TO FIRST", "TO LAST", "TO"):
        # A variable that may have no row in a match, or whose row may be the
        # match's first, can fail the job: only now and then, to keep rows to
        # compare. Safe: the first term has a row and another variable, and
        # the skip variable has a term with a row.
        cand = [v for v in used if terms[0][1] > 0 and v != terms[0][0] and
                any(t[0] == v and t[1] > 0 for t in terms)]
        if rng.random() < 0.08:
            cand = used
        if not cand:
            skip = "TO NEXT ROW"
        else:
            skip = "%s %s" % (skip, rng.choice(cand))
    within = rng.choice([None, None, 1, 3, 5])
    partitioned = rng.random() < 0.75
    mvars = [rng.choice(used) for _ in range(3)]
    measures = [("FIRST(id)", lambda c: c.part[c.start]["id"]),
                ("LAST(id)", lambda c: c.part[c.start + len(c.asg) - 1]["id"])]
    x = mvars[0]
    measures += [("COUNT(%s.*)" % x, lambda c, x=x: c.count_rows(x)),
                 ("LAST(%s.v)" % mvars[1], lambda c, x=mvars[1]: c.last(x)),
                 ("SUM(%s.v)" % mvars[2], lambda c, x=mvars[2]: c.agg("SUM", x)),
                 ("FIRST(%s.v, 1)" % mvars[1], lambda c, x=mvars[1]: c.first(x, 1)),
                 ("MAX(%s.v)" % mvars[0], lambda c, x=mvars[0]: c.agg("MAX", x)),
                 ("AVG(v)", lambda c: c.agg("AVG", None))]
    if extra:
        x, y = rng.choice(used), rng.choice(used)
        measures += [("SUM(%s.p)" % x, lambda c, x=x: c.agg_col("SUM", x, "p"), "DECIMAL(38, 2)"),
                     ("AVG(%s.p)" % y, lambda c, y=y: c.agg_col("AVG", y, "p"), "DECIMAL(38, 6)"),
                     ("MIN(%s.p)" % x, lambda c, x=x: c.agg_col("MIN", x, "p"), "DECIMAL(10, 2)"),
                     ("MAX(%s.d)" % y, lambda c, y=y: c.agg_col("MAX", y, "d"), "DATE"),
                     ("MIN(d)", lambda c: c.agg_col("MIN", None, "d"), "DATE"),
                     ("SUM(%s.v * 2 - %s.id %% 5)" % (x, x),
                      lambda c, x=x: c.agg_expr("SUM", x, lambda r: r["v"] * 2 - r["id"] % 5), "INT"),
                     ("LAST(v + id, 1)", lambda c: c.nav_expr("LAST", None, 1, lambda r: r["v"] + r["id"]), "INT")]
    return {"terms": terms, "defines": defines, "skip": skip, "within": within,
            "partitioned": partitioned, "measures": measures}


class Undecided(Exception):
    """A search from a start needs a row that has not come yet (search's known)."""


def search(q, part, s, defines=None, known=None, closed=False):
    """The preferred match from row s: the list of its rows' variables, or None.
    defines(i): the DEFINE conditions that judge row i (q's by default).
    known: only part[:known] has come (more rows may follow): raises
    Undecided where the preferred match depends on a later row, unless
    closed (every later row is too late for WITHIN)."""
    terms, asg = q["terms"], []
    ts0 = part[s]["ts_ms"]

    def go(t, c, i):
        if t == len(terms):
            return True
        var, lo, hi, rel, _ = terms[t]
        for take in ((False, True) if rel else (True, False)):
            if take:
                if hi is not None and c >= hi:
                    continue
                if known is not None and i >= known and not closed:
                    raise Undecided()
                if i >= len(part) or (known is not None and i >= known):
                    continue
                if q["within"] and part[i]["ts_ms"] - ts0 >= q["within"] * 1000:
                    continue
                asg.append(var)
                d = (defines(i) if defines else q["defines"]).get(var)
                if (d is None or d[1](Ctx(part, s, asg)) is True) and go(t, c + 1, i + 1):
                    return True
                asg.pop()
            elif c >= lo and go(t + 1, 0, i):
                return True
        return False

    return list(asg) if go(0, 0, s) else None


class SkipFails(Exception):
    """AFTER MATCH SKIP TO FIRST / LAST v found no row of v after the match's first."""


def partitions(q, rows):
    """{key: its rows in (ts, id) order, or in the order they arrive when q
    is ordered by processing time} ("" for all rows without PARTITION BY)."""
    parts = {}
    for r in rows:
        parts.setdefault(r["k"] if q["partitioned"] else "", []).append(r)
    order = (lambda r: r["_arrival"]) if q.get("proctime") else (lambda r: (r["ts_ms"], r["id"]))
    return {k: sorted(p, key=order) for k, p in parts.items()}


def measured(q, key, c):
    """The output row (text) of match c of q in partition key."""
    vals = ([key] if q["partitioned"] else []) + [m[1](c) for m in q["measures"]]
    return tuple("null" if v is None else str(v) for v in vals)


def resume(q, s, asg):
    """Where matching resumes after the match asg from row s (AFTER MATCH
    SKIP); raises SkipFails where the job fails before emitting it."""
    sk = q["skip"]
    if sk == "PAST LAST ROW":
        return s + len(asg)
    if sk == "TO NEXT ROW":
        return s + 1
    v = sk.split()[-1]
    ix = [s + j for j, a in enumerate(asg) if a == v]
    nxt = (ix[0] if sk.startswith("TO FIRST") else ix[-1]) if ix else s
    if nxt <= s:
        # no row of v, or the match's first row: the job fails there,
        # before this match is emitted
        raise SkipFails()
    return nxt


def oracle(q, rows):
    out = []
    for key, part in partitions(q, rows).items():
        s = 0
        while s < len(part):
            asg = search(q, part, s)
            if asg is None:
                s += 1
                continue
            out.append(measured(q, key, Ctx(part, s, asg)))
            s = resume(q, s, asg)
    return out


# ---------------------------------------------------------------- the job

TABLE_SQL = """CREATE TABLE t (id INT, k STRING, v INT, ts_ms BIGINT, p DECIMAL(10, 2), d DATE,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
"""

MEASURE_TYPES = ["INT", "INT", "BIGINT", "INT", "INT", "INT", "INT", "INT"]


def sql_of(q, qid):
    cols = (["k STRING"] if q["partitioned"] else []) + \
        ["m%d %s" % (i, m[2] if len(m) > 2 else MEASURE_TYPES[i]) for i, m in enumerate(q["measures"])]
    create = "CREATE TABLE q%d (%s) WITH ('connector' = 'print', 'print-identifier' = 'q%d');\n" % (
        qid, ", ".join(cols), qid)
    defs = ",\n    ".join("%s AS %s" % (v, d[0]) for v, d in sorted(q["defines"].items()))
    if not defs:  # DEFINE is required: a condition that always holds
        v = q["terms"][0][0]
        defs = "%s AS TRUE" % v
    body = ("%sORDER BY %s\n  MEASURES %s\n  ONE ROW PER MATCH\n  AFTER MATCH SKIP %s\n"
            "  PATTERN (%s)%s\n  DEFINE %s" % (
                "PARTITION BY k " if q["partitioned"] else "", "pt" if q.get("proctime") else "ts, id",
                ", ".join("%s AS m%d" % (m[0], i) for i, m in enumerate(q["measures"])),
                q["skip"], " ".join(t[4] for t in q["terms"]),
                " WITHIN INTERVAL '%d' SECOND" % q["within"] if q["within"] else "", defs))
    insert = "INSERT INTO q%d SELECT * FROM t MATCH_RECOGNIZE (\n  %s\n) AS T;\n" % (qid, body)
    return create, insert


def printed_rows(stdout, n):
    """The rows each of the print sinks q0 .. q{n-1} printed (as tuples of text)."""
    got = [[] for _ in range(n)]
    for line in stdout.splitlines():
        m = LINE_RE.match(line)
        if m:
            got[int(m.group(1)[1:])].append(tuple(m.group(2).split(", ")))
    return got


LONG_QUERIES = [
    ("PARTITION BY k ORDER BY ts, id", "PATTERN (A+ B)", "AFTER MATCH SKIP PAST LAST ROW",
     "A AS A.v >= 0, B AS B.v < 0", 1),
    ("PARTITION BY k ORDER BY ts, id", "PATTERN (A+ B)", "AFTER MATCH SKIP PAST LAST ROW",
     "A AS A.v >= 0 AND (LAST(A.v, 1) IS NULL OR A.v >= LAST(A.v, 1)), B AS B.v < LAST(A.v)", 1),
    ("PARTITION BY k ORDER BY ts, id", "PATTERN (A{2,} B)", "AFTER MATCH SKIP TO LAST A",
     "A AS A.v >= 0, B AS B.v < 0", 2),
]
LONG_MEASURES = ("FIRST(id) AS m0, LAST(id) AS m1, COUNT(A.*) AS m2, SUM(A.v) AS m3, MAX(A.v) AS m4, "
                 "LAST(A.v, 1) AS m5, FIRST(A.v, 2) AS m6, AVG(A.v) AS m7, B.v AS m8")
LONG_TYPES = ["INT", "INT", "BIGINT", "INT", "INT", "INT", "INT", "INT", "INT"]


def run_long(case):
    """Job 0: long matches (see the module's docstring)."""
    rng = case.rng
    n_long = int(os.environ.get("WEIR_MATCHDIFF_LONG", "21000"))
    keys = ["a", "b", "c"]
    plan = {}  # key -> list of segments (lists of v; the last one negative)
    for k in keys:
        lens = [rng.randint(1, 6) for _ in range(rng.randint(2, 8))]
        if k != "c":
            lens.insert(rng.randint(0, len(lens)), n_long)
        segs = []
        for n in lens:
            v, seg = rng.randint(0, 5), []
            for _ in range(n):
                if rng.random() < 0.01:
                    v += rng.randint(1, 3)
                seg.append(v)
            segs.append(seg + [-1 - rng.randint(0, 3)])
        plan[k] = segs
    queue = {k: [v for seg in plan[k] for v in seg] for k in keys}
    pos = {k: 0 for k in keys}
    rows, t = [], 1_700_000_000_000
    ids = {k: [] for k in keys}
    while any(pos[k] < len(queue[k]) for k in keys):
        k = rng.choice([k for k in keys if pos[k] < len(queue[k])])
        t += rng.choice([0, 1, 1, 2])
        rows.append({"id": len(rows) + 1, "k": k, "v": queue[k][pos[k]], "ts_ms": t})
        ids[k].append(len(rows))
        pos[k] += 1
    arrival = sorted(rows, key=lambda r: r["ts_ms"] + rng.randint(0, 900))
    with open(case.path("in.json"), "w") as f:
        for r in arrival:
            f.write(json.dumps(r) + "\n")
    par = rng.choice([1, 2, 4])
    rocks = rng.random() < 0.5
    case.note = "(long matches of %d rows, parallelism %d%s)" % (n_long, par, ", rocksdb" if rocks else "")
    sql = TABLE_SQL
    for n, (part, pat, skip, defs, _) in enumerate(LONG_QUERIES):
        sql += "CREATE TABLE q%d (k STRING, %s) WITH ('connector' = 'print', 'print-identifier' = 'q%d');\n" % (
            n, ", ".join("m%d %s" % (i, ty) for i, ty in enumerate(LONG_TYPES)), n)
    sql += "EXECUTE STATEMENT SET BEGIN\n"
    for n, (part, pat, skip, defs, _) in enumerate(LONG_QUERIES):
        sql += ("INSERT INTO q%d SELECT * FROM t MATCH_RECOGNIZE (%s MEASURES %s ONE ROW PER MATCH %s %s "
                "DEFINE %s) AS T;\n" % (n, part, LONG_MEASURES, skip, pat, defs))
    case.write("job.sql", sql + "END;\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, rocksdb=rocks))
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    got = printed_rows(p.stdout, len(LONG_QUERIES))
    problems = []
    for n, (_, _, _, _, min_a) in enumerate(LONG_QUERIES):
        want = []
        for k in keys:
            at = 0
            for seg in plan[k]:
                a, b = seg[:-1], seg[-1]
                if len(a) >= min_a:
                    vals = [k, ids[k][at], ids[k][at + len(seg) - 1], len(a), sum(a), max(a),
                            a[-2] if len(a) >= 2 else None, a[2] if len(a) >= 3 else None, sum(a) // len(a), b]
                    want.append(tuple("null" if x is None else str(x) for x in vals))
                at += len(seg)
        case.counts["long matches"] += len(want)
        problems += diffrun.multiset_problems("long q%d" % n, want, got[n])
    return problems


def run_case(case):
    if case.index == 0:
        return run_long(case)
    rng = case.rng
    rows, arrival = gen_rows(rng)
    qs = [gen_query(rng, extra=rng.random() < 0.5) for _ in range(QUERIES_PER_JOB)]
    for q in qs:
        # one query in five ordered by processing time: the rows in the
        # order the file has them (one reader), WITHIN left out (the clock's)
        if rng.random() < 0.2:
            q["proctime"], q["within"] = True, None
            case.counts["queries ordered by processing time"] += 1
    for i, r in enumerate(arrival):
        r["_arrival"] = i
    par = rng.choice([1, 2, 4])
    case.note = "(parallelism %d)" % par
    with open(case.path("in.json"), "w") as f:
        for r in arrival:
            f.write(json.dumps({c: x for c, x in r.items() if c != "_arrival"}) + "\n")
    parts = [sql_of(q, n) for n, q in enumerate(qs)]
    case.write("job.sql", TABLE_SQL + "".join(c for c, _ in parts) + "EXECUTE STATEMENT SET BEGIN\n" +
               "".join(i for _, i in parts) + "END;\n")
    p = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par))
    wants = []
    for q in qs:
        try:
            wants.append(oracle(q, rows))
        except SkipFails:
            wants.append(None)
    if None in wants:
        # a skip that cannot move past a match's first row fails the job
        # (the rows printed before depend on timing: not compared)
        case.counts["skip failures"] += 1
        if p.returncode == 1 and "AFTER MATCH SKIP" in p.stderr:
            return []
        return ["q%d: the job should fail at AFTER MATCH SKIP, exit %d: %s" %
                (wants.index(None), p.returncode, p.stderr[-400:])]
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    got = printed_rows(p.stdout, len(qs))
    problems = []
    for n, q in enumerate(qs):
        case.counts["matches"] += len(wants[n])
        problems += diffrun.multiset_problems("q%d" % n, wants[n], got[n])
    return problems


def main():
    return diffrun.main("match_diff", run_case, jobs_env="WEIR_MATCHDIFF_JOBS", jobs=8, asan_jobs=3,
                        one_env="WEIR_MATCHDIFF_JOB", unit="jobs of %d queries" % QUERIES_PER_JOB)


if __name__ == "__main__":
    sys.exit(main())
