#!/usr/bin/env python3
"""Randomized differential test of DECIMAL(p, s) up to p = 38 against
Python's decimal module (tests/test_decimal_diff.sh runs it).

Each case draws two DECIMAL types and rows of random values, runs one weir
job that computes + - * / %, a CAST, comparisons, IN and NOT IN (over
columns of different scales and over lists of literals: values of the data
at more digits of scale, 38-digit integers, 1.5, NULL), and SUM / AVG / COUNT per
key, MIN / MAX / FIRST_VALUE / LAST_VALUE / COUNT, SUM and AVG with
DISTINCT of a DECIMAL of 19-38 digits (NULLs and repeated values) per key
and per key and 10-second TUMBLE window, and compares the printed rows with what Flink's rules give, computed
here with no code of weir's:
  result types (Flink's LogicalTypeMerging, precision capped at 38 by keeping
  the integral digits and shrinking the scale, not below min(scale, 6));
  values exact, rounded HALF_UP to the result scale, NULL when they need more
  digits than the precision; SUM is DECIMAL(38, s), AVG DECIMAL(38, max(6, s))
  and NULL where its sum is;
  printed as Java's BigDecimal.toString (Python's str of a Decimal is the
  same notation);
  x IN (v1, ...) compares exact numbers exactly, each at its own scale, as
  x = v1 OR ...: TRUE when one equals x, else NULL when x or one is NULL,
  else FALSE; NOT IN is its NOT;
  TRY_CAST of a text to DECIMAL as Java's BigDecimal(String) reads it
  (java_decimal below: sign, digits, point, exponent; an exponent or a
  scale past an int's range is not a number), then rounded HALF_UP, NULL
  where it is not a number or does not fit: texts of up to 45 digits,
  exponents at the int's edges, leading zeros, and broken ones.
"""
import decimal
import os
import re
import sys
from decimal import Decimal, ROUND_HALF_UP, ROUND_DOWN

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

CTX = decimal.Context(prec=400, rounding=ROUND_DOWN, Emax=999999, Emin=-999999)
decimal.setcontext(CTX)


def adjust(p, s):
    if p <= 38:
        return p, s
    digits = p - s
    return 38, max(38 - digits, min(s, 6))


def rtype(op, p1, s1, p2, s2):
    if op in "+-":
        s = max(s1, s2)
        return adjust(max(p1 - s1, p2 - s2) + s + 1, s)
    if op == "*":
        return adjust(p1 + p2 + 1, s1 + s2)
    if op == "/":
        s = max(6, s1 + p2 + 1)
        return adjust(p1 - s1 + s2 + s, s)
    s = max(s1, s2)
    return adjust(min(p1 - s1, p2 - s2) + s, s)


def fit(v, p, s):
    """v rounded HALF_UP to scale s, or None when it needs more than p digits."""
    q = v.quantize(Decimal(1).scaleb(-s), rounding=ROUND_HALF_UP, context=CTX)
    if abs(q.scaleb(s)) >= Decimal(10) ** p:
        return None
    return q.copy_abs() if q == 0 else q  # BigDecimal has no negative zero


def avg(total, n, s):
    """AVG of n values of scale s summing to total: NULL when the sum overflows its DECIMAL(38, s), as SUM."""
    return None if fit(total, 38, s) is None else fit(total / n, 38, max(6, s))


def show(v):
    return "null" if v is None else str(v)


def rand_dec(rng, p, s, nonzero=False):
    while True:
        nd = rng.randint(1, p)
        u = rng.randint(0, 10 ** nd - 1)
        if rng.random() < 0.5:
            u = -u
        if u or not nonzero:
            return Decimal(u).scaleb(-s)


def lit(v, extra):
    """v as a SQL literal with extra more digits of scale (at most 38 digits), or None when it has no room."""
    sv = max(0, -v.as_tuple().exponent) + extra
    intd = len(str(abs(int(v)))) if abs(v) >= 1 else 1
    if intd + sv > 38:
        return None
    return format(v.quantize(Decimal(1).scaleb(-sv)), "f")


def rand_list(rng, pools, n):
    """n literals (text, value): values of the pools at more scale, 38-digit integers, 1.5, small integers, NULL."""
    out = []
    while len(out) < n:
        r = rng.random()
        if r < 0.55:
            pool = rng.choice(pools)
            v = rng.choice(pool) if pool else None
            if v is None:
                continue
            t = lit(v, rng.choice([0, 0, 1, 3]))
            if t is None:
                continue
            out.append((t, Decimal(t)))
        elif r < 0.7:
            u = rng.randint(10 ** 37, 10 ** 38 - 1) * rng.choice([1, -1])
            out.append((str(u), Decimal(u)))
        elif r < 0.8:
            out.append(("1.5", Decimal("1.5")))
        elif r < 0.9:
            u = rng.randint(-3, 3)
            out.append((str(u), Decimal(u)))
        else:
            out.append(("NULL", None))
    return out


BROKEN_TEXTS = ["1e", "e5", ".", "1e 2", "1.2.3", "--1", "1e+-2", "abc", "0x10", "1_000", "+", "-.", "1 2",
                ".e1", "1e2.5", "Infinity", "NaN", "1d", "1e+", "5-", "+-3"]
INT_MAX = 2 ** 31 - 1


def rand_digits(rng, n):
    return "".join(rng.choice("0123456789") for _ in range(n))


def rand_text(rng):
    """A text for TRY_CAST to DECIMAL: mostly numbers as Java writes them, some broken."""
    if rng.random() < 0.12:
        return rng.choice(BROKEN_TEXTS)
    sign = rng.choice(["", "", "-", "+"])
    nint = rng.choice([0, 1, 1, 2, 5, 10, 20, 37, 38, 39, 42])
    whole = ("0" * rng.choice([0, 0, 1, 3])) + rand_digits(rng, nint) if nint else ""
    frac = None
    if rng.random() < 0.7 or not whole:
        frac = rand_digits(rng, rng.choice([0, 1, 2, 6, 18, 30, 38, 39, 40, 45]))
        if not whole and not frac:
            frac = rand_digits(rng, 1)
    t = sign + whole + ("" if frac is None else "." + frac)
    if rng.random() < 0.4:
        x = rng.choice([rng.randint(-50, 50), rng.randint(-50, 50), INT_MAX, INT_MAX + 1, -INT_MAX - 1,
                        -INT_MAX - 2, INT_MAX - len(frac or ""), -INT_MAX - 1 + len(frac or ""),
                        10 ** 20 - 1])
        xs = ("-" if x < 0 else rng.choice(["", "+"])) + "0" * rng.choice([0, 0, 1, 12]) + str(abs(x))
        t += rng.choice("eE") + xs
    return t


def java_decimal(t):
    """The value Java's new BigDecimal(t.trim()) gives, or None where it throws."""
    m = re.fullmatch(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?", t.strip())
    if not m or not (m.group(2) or m.group(3)):
        return None
    sign, whole, frac, xs = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    x = int(xs) if xs else 0
    if not -INT_MAX - 1 <= x <= INT_MAX or not -INT_MAX - 1 <= len(frac) - x <= INT_MAX:
        return None  # "Exponent overflow", "Scale out of range"
    u = int((whole + frac) or "0")
    if u == 0:
        return Decimal(0)
    if x - len(frac) > 200:
        return Decimal(10) ** 100  # too large for any DECIMAL(p, s)
    if x - len(frac) < -400:
        return Decimal(0)  # below half a unit of any scale up to 38
    v = Decimal(u).scaleb(x - len(frac), context=CTX)
    return -v if sign == "-" else v


def in_list(x, vals):
    """x IN (vals), three-valued; None for NULL."""
    if x is None:
        return None
    if any(v is not None and v == x for v in vals):
        return True
    return None if any(v is None for v in vals) else False


def not3(b):
    return None if b is None else not b


def show_bool(b):
    return "null" if b is None else "true" if b else "false"


WIDE_AGGS = ("MIN(w), MAX(w), FIRST_VALUE(w), LAST_VALUE(w), COUNT(DISTINCT w), SUM(DISTINCT w), "
             "AVG(DISTINCT w)")


def wide_row(g, vs, sw):
    """The row of WIDE_AGGS over vs (arrival order, None for NULL) in group g."""
    live = [v for v in vs if v is not None]
    dist = set(live)
    if not live:
        return "[%s, null, null, null, null, 0, null, null]" % g
    sd = sum(dist, Decimal(0))
    return "[%s, %s, %s, %s, %s, %d, %s, %s]" % (
        g, show(min(live)), show(max(live)), show(live[0]), show(live[-1]), len(dist),
        show(fit(sd, 38, sw)), show(avg(sd, len(dist), sw)))


def run_case(case):
    rng, rows = case.rng, case.args.rows
    p1 = rng.randint(1, 38)
    s1 = rng.randint(0, p1)
    p2 = rng.randint(1, 38)
    s2 = rng.randint(0, p2)
    p3 = rng.randint(1, 38)
    s3 = rng.randint(0, p3)
    pw = rng.randint(19, 38)  # a wide DECIMAL, NULLs and repeats
    sw = rng.randint(0, pw)
    data, ws = [], []
    texts = [rand_text(rng) for _ in range(rows)]
    for i in range(rows):
        a = rand_dec(rng, p1, s1)
        b = rand_dec(rng, p2, s2, nonzero=True)
        data.append((i, "k%d" % rng.randint(0, 3), a, b))
        r = rng.random()
        ws.append(None if r < 0.15 else rng.choice(ws[-8:]) if r < 0.4 and ws else rand_dec(rng, pw, sw))
    with open(case.path("in.csv"), "w") as f:
        for (i, k, a, b), w, txt in zip(data, ws, texts):
            f.write("%d,%s,%s,%s,%s,1970-01-01 %02d:%02d:%02d,%s\n" % (
                i, k, format(a, "f"), format(b, "f"), "" if w is None else format(w, "f"),
                i // 3600, i // 60 % 60, i % 60, txt))
    # IN / NOT IN: over columns of other scales (x = v1 OR ...), over literal lists (a set, or one by one)
    pools = [[a for _, _, a, _ in data], [b for _, _, _, b in data], [w for w in ws if w is not None]]
    probe = rng.choice(["a", "b", "w"])  # the literal list's operand (w: more than 18 digits)
    lists = [rand_list(rng, pools, rng.randint(1, 4)) for _ in range(3)]
    ids = [str(i) + rng.choice(["", ".0", ".000", ".5"]) for i in rng.sample(range(rows), 3)]
    ids = [(t, Decimal(t)) for t in ids] + lists[2][:1]  # a BIGINT against decimals
    in_sql = ["a IN (b, %s)" % ", ".join(t for t, _ in lists[0]),
              "%s IN (%s)" % (probe, ", ".join(t for t, _ in lists[1])),
              "%s NOT IN (%s)" % (probe, ", ".join(t for t, _ in lists[2])),
              "w NOT IN (a, b)",
              "b IN (w, %s)" % ", ".join(t for t, _ in lists[0]),
              "id IN (%s)" % ", ".join(t for t, _ in ids)]
    ops = ["+", "-", "*", "/", "%"]
    types = [rtype(op, p1, s1, p2, s2) for op in ops]
    sql = [
        "CREATE TABLE t (id BIGINT, k STRING, a DECIMAL(%d, %d), b DECIMAL(%d, %d), w DECIMAL(%d, %d), "
        "ts TIMESTAMP(3), txt STRING, WATERMARK FOR ts AS ts) "
        "WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');" % (p1, s1, p2, s2, pw, sw),
        "CREATE TABLE m (k STRING, mn DECIMAL(%d, %d), mx DECIMAL(%d, %d), f DECIMAL(%d, %d), l DECIMAL(%d, %d), "
        "cd BIGINT, sd DECIMAL(38, %d), ad DECIMAL(38, %d)) WITH ('connector' = 'print');"
        % (pw, sw, pw, sw, pw, sw, pw, sw, sw, max(6, sw)),
        "CREATE TABLE o (id BIGINT, %s, c DECIMAL(%d, %d), tc DECIMAL(%d, %d), lt BOOLEAN, eq BOOLEAN, %s) "
        "WITH ('connector' = 'print');"
        % (", ".join("r%d DECIMAL(%d, %d)" % (j, p, s) for j, (p, s) in enumerate(types)), p3, s3, p3, s3,
           ", ".join("in%d BOOLEAN" % j for j in range(len(in_sql)))),
        "CREATE TABLE g (k STRING, sa DECIMAL(38, %d), sb DECIMAL(38, %d), aa DECIMAL(38, %d), n BIGINT) "
        "WITH ('connector' = 'print');" % (s1, s2, max(6, s1)),
        "INSERT INTO o SELECT id, a + b, a - b, a * b, a / b, a %% b, CAST(a AS DECIMAL(%d, %d)), "
        "TRY_CAST(txt AS DECIMAL(%d, %d)), a < b, a = b, "
        "%s FROM t;" % (p3, s3, p3, s3, ", ".join(in_sql).replace("%", "%%")),
        "INSERT INTO g SELECT k, SUM(a), SUM(b), AVG(a), COUNT(*) FROM t GROUP BY k;",
        "INSERT INTO m SELECT CONCAT('m-', k), %s FROM t GROUP BY k;" % WIDE_AGGS,
        "INSERT INTO m SELECT CONCAT('w-', k, '-', CAST(window_start AS STRING)), %s "
        "FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY k, window_start, window_end;" % WIDE_AGGS,
    ]
    case.write("job.sql", "\n".join(sql) + "\n")
    want = []
    for (i, k, a, b), w, txt in zip(data, ws, texts):
        vals = [a + b, a - b, a * b, a / b, a % b]
        cells = [show(fit(v, p, s)) for v, (p, s) in zip(vals, types)]
        cells.append(show(fit(a, p3, s3)))
        tv = java_decimal(txt)
        cells.append(show(None if tv is None else fit(tv, p3, s3)))
        case.counts["text %s" % ("not a number" if tv is None else "null" if cells[-1] == "null" else "fits")] += 1
        cells += ["true" if a < b else "false", "true" if a == b else "false"]
        x = {"a": a, "b": b, "w": w}[probe]
        ins = [in_list(a, [b] + [v for _, v in lists[0]]), in_list(x, [v for _, v in lists[1]]),
               not3(in_list(x, [v for _, v in lists[2]])), not3(in_list(w, [a, b])),
               in_list(b, [w] + [v for _, v in lists[0]]), in_list(Decimal(i), [v for _, v in ids])]
        cells += [show_bool(v) for v in ins]
        case.counts.update("IN %s" % show_bool(v) for v in ins)
        want.append("+I[%d, %s]" % (i, ", ".join(cells)))
    # The group aggregate's final rows: the last +I/+U per key.
    final = {}
    for i, k, a, b in data:
        final.setdefault(k, []).append((a, b))
    want_g = {}
    for k, vs in final.items():
        sa = sum((a for a, _ in vs), Decimal(0))
        sb = sum((b for _, b in vs), Decimal(0))
        want_g[k] = "[%s, %s, %s, %s, %d]" % (k, show(fit(sa, 38, s1)), show(fit(sb, 38, s2)),
                                            show(avg(sa, len(vs), s1)), len(vs))
    groups = {}
    for (i, k, _, _), w in zip(data, ws):
        groups.setdefault("m-" + k, []).append(w)
        groups.setdefault("w-%s-1970-01-01 %02d:%02d:%02d.000" % (k, i // 10 * 10 // 3600, i // 10 * 10 // 60 % 60,
                                                           i // 10 * 10 % 60), []).append(w)
    for g, vs in groups.items():
        want_g[g] = wide_row(g, vs, sw)
    par = rng.choice([1, 2, 4])
    batch = rng.choice([None, None, 1, 7])
    rocks = rng.random() < 0.4  # accumulators through their serialised form
    r = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, par, batch=batch, rocksdb=rocks))
    case.note = "(types a DECIMAL(%d, %d), b DECIMAL(%d, %d), cast DECIMAL(%d, %d), w DECIMAL(%d, %d), " \
        "parallelism %d, batch %s, rocksdb %s; %s)" % (p1, s1, p2, s2, p3, s3, pw, sw, par, batch, rocks,
                                                       "; ".join(in_sql))
    if r.returncode != 0:
        return [diffrun.failed_run(r)]
    got, got_g = [], {}
    # window rows are final as printed (+I only); GROUP BY ones: the last per key
    for line in r.stdout.splitlines():
        line = line.split("> ", 1)[-1]
        if line.startswith("+I[") and line.count(",") >= 8 and line[3:].split(",")[0].isdigit():
            got.append(line)
        elif line[:3] in ("+I[", "+U["):
            got_g[line[3:].split(",")[0]] = line[2:]
    errors = diffrun.multiset_problems("rows", want, got)
    for k in sorted(want_g):
        if got_g.get(k) != want_g[k]:
            errors.append("group %s: want %s got %s" % (k, want_g[k], got_g.get(k)))
    return errors


def main():
    return diffrun.main("decimal_diff", run_case, jobs_env="WEIR_DECIMAL_CASES", jobs=8, asan_jobs=3,
                        one_env="WEIR_DECIMAL_CASE",
                        add_args=lambda ap: ap.add_argument("--rows", type=int,
                                                            default=int(os.environ.get("WEIR_DECIMAL_ROWS", "150"))))


if __name__ == "__main__":
    sys.exit(main())
