#!/usr/bin/env python3
"""Randomized differential test of PRINTF against a Python model of Java's
java.util.Formatter (Locale.US), the rules Flink's PRINTF follows.

Each job is a set of random rows (INT, BIGINT, DOUBLE, two DECIMALs, a
STRING, a BOOLEAN and a per-row format string, some of them NULL) and a
set of random PRINTF calls: format strings put together from literal text
and specifiers with random argument indexes (n$ and <), flags, widths,
precisions and conversions (b s c d o x e f g, their upper-case forms, %%
and %n, now and then an invalid one), over random argument lists. They run
through `weir run` at a random parallelism in one projection, written as
JSON.

The oracle shares no code with weir. It parses the format with the
regular expression of Java's Formatter documentation and formats with
Python's decimal module: a DOUBLE is the shortest decimal that reads back
as it (Python's repr) - but at least two significant digits, the nearer
ones, as the JDK's digit loop for Formatter keeps (5e-324 is 4.9e-324) -
rounded half-up as Java's FormattedFloatingDecimal does; a DECIMAL is a BigDecimal. Where Java throws (an unknown
conversion, a flag the conversion does not take, a missing argument, %d
of a DOUBLE, ...) the expected value is NULL, as Flink's PRINTF gives.

Usage: printf_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_PRINTFDIFF_JOBS (jobs), WEIR_PRINTFDIFF_JOB (one job).
"""

import decimal
import json
import os
import re
import sys
from decimal import Context, Decimal, ROUND_HALF_EVEN, ROUND_HALF_UP

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
from javanum import double_text  # noqa: E402  (Java's Double.toString)

decimal.getcontext().prec = 400

SPEC = re.compile(r"%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([tT])?([a-zA-Z%])")


class Throws(Exception):
    """Java's Formatter would throw: PRINTF gives NULL."""


def u16len(s):
    return sum(2 if ord(c) >= 0x10000 else 1 for c in s)


def justify(s, flags, width):
    if width is None or u16len(s) >= width:
        return s
    pad = " " * (width - u16len(s))
    return s + pad if "-" in flags else pad + s


def upper(s):
    return "".join(c.upper() if len(c.upper()) == 1 else c for c in s)


def text(s, flags, width, prec, up):
    """Java's print(String): cut to prec UTF-16 units, upper case, width."""
    if prec is not None:
        out, n = [], 0
        for c in s:
            u = 2 if ord(c) >= 0x10000 else 1
            if n + u > prec:
                if n < prec:
                    out.append("?")
                break
            out.append(c)
            n += u
        s = "".join(out)
    return justify(upper(s) if up else s, flags, width)


def group(digits):
    """',' every three digits of the integer part."""
    ip, dot, fp = digits.partition(".")
    out = []
    for k, c in enumerate(ip):
        out.append(c)
        rest = len(ip) - k - 1
        if rest and rest % 3 == 0:
            out.append(",")
    return "".join(out) + dot + fp


def signed(body, neg, flags, width, extra=0, tail=""):
    """The sign, the magnitude (zero padded under '0' so that the sign and
    the magnitude fill width - extra), the tail (an exponent), then ')'."""
    lead = ("(" if "(" in flags else "-") if neg else ("+" if "+" in flags else " " if " " in flags else "")
    w = None if width is None else width - extra - (1 if neg and "(" in flags else 0)
    if "0" in flags and w is not None and len(lead) + len(body) < w:
        body = "0" * (w - len(lead) - len(body)) + body
    return lead + body + tail + (")" if neg and "(" in flags else "")


def plain(d, frac):
    """d (>= 0) rounded half-up to frac fraction digits, in plain notation."""
    q = d.quantize(Decimal(1).scaleb(-frac), rounding=ROUND_HALF_UP)
    return format(q, "f")


def sci_parts(d, p):
    """d (> 0) as mantissa with p fraction digits and exponent, half-up."""
    e = d.adjusted()
    m = d.scaleb(-e).quantize(Decimal(1).scaleb(-p), rounding=ROUND_HALF_UP)
    if m >= 10:
        e += 1
        m = d.scaleb(-e).quantize(Decimal(1).scaleb(-p), rounding=ROUND_HALF_UP)
    return format(m, "f"), e


def exp_text(e):
    return ("-" if e < 0 else "+") + "%02d" % abs(e)


def fmt_float(conv, arg, flags, width, prec):
    kind, v = arg
    if kind == "d":
        if v != v:
            return "NaN"
        neg = v < 0 or (v == 0 and str(v).startswith("-"))
        if v in (float("inf"), float("-inf")):
            return signed("Infinity", neg, flags.replace("0", ""), None)
        d = abs(Decimal(repr(v)))
        if v != 0 and len(d.as_tuple().digits) == 1 and Decimal(abs(v)) != d:
            # one shortest digit: the JDK generates two (the nearer pair)
            exact = Decimal(abs(v))
            d = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 1), rounding=ROUND_HALF_EVEN)
        dec_zero_exp = 0
        zero = v == 0
    else:
        neg = v < 0
        d = abs(v)
        zero = v == 0
        dec_zero_exp = v.as_tuple().exponent  # -scale
    alt = "#" in flags
    if conv == "g" and kind == "m":
        p = 6 if prec is None else (1 if prec == 0 else prec)
        # Java rounds (half up) to p significant digits, then chooses
        r = d if zero else Context(prec=p, rounding=ROUND_HALF_UP).plus(d)
        if (zero and dec_zero_exp == 0) or (not zero and -4 <= r.adjusted() < p):
            e = 0 if zero else r.adjusted()
            conv, prec = "f", p - e - 1
        else:
            conv, prec = "e", p - 1
    if conv == "f":
        p = 6 if prec is None else prec
        body = plain(d, p) + ("." if alt and p == 0 else "")
        if "," in flags:
            body = group(body)
        return signed(body, neg, flags, width)
    if conv == "e":
        p = 6 if prec is None else prec
        if zero:
            mant, e = ("0." + "0" * p if p else "0"), dec_zero_exp
        else:
            mant, e = sci_parts(d, p)
        mant += "." if alt and p == 0 else ""
        et = exp_text(e)
        return signed(mant, neg, flags, width, len(et) + 1, "e" + et)
    # g of a DOUBLE
    p = 6 if prec is None else (1 if prec == 0 else prec)
    if zero:
        body = plain(d, p - 1)
        return signed(group(body) if "," in flags else body, neg, flags, width)
    mant, e = sci_parts(d, p - 1)
    if e < -4 or e >= p:
        et = exp_text(e)
        return signed(mant, neg, flags, width, len(et) + 1, "e" + et)
    body = plain(d, p - 1 - e)
    return signed(group(body) if "," in flags else body, neg, flags, width)




def to_string(arg):
    kind, v = arg
    if kind == "b":
        return "true" if v else "false"
    if kind in ("i", "l"):
        return str(v)
    if kind == "d":
        return double_text(v)
    if kind == "m":
        return str(v)  # Python's Decimal text is BigDecimal.toString's
    return v


def check(conv, flags, width, prec):
    f = set(flags)
    if len(flags) != len(f):
        raise Throws("duplicate flag")
    if conv in "bs":
        if conv == "b" and "#" in f:
            raise Throws()
        if width is None and "-" in f:
            raise Throws()
        if f & set("+ 0,("):
            raise Throws()
    elif conv == "c":
        if prec is not None or f & set("#+ 0,(") or (width is None and "-" in f):
            raise Throws()
    elif conv in "doxefg":
        if width is None and f & set("-0"):
            raise Throws()
        if {"+", " "} <= f or {"-", "0"} <= f:
            raise Throws()
        if conv in "dox" and prec is not None:
            raise Throws()
        if (conv == "d" and "#" in f) or (conv in "ox" and "," in f) or (conv == "e" and "," in f) or \
                (conv == "g" and "#" in f):
            raise Throws()
    elif conv == "%":
        if prec is not None or f - {"-"} or (width is None and "-" in f):
            raise Throws()
    elif conv == "n":
        if prec is not None or width is not None or f:
            raise Throws()
    else:
        raise Throws("conversion")


def java_format(fmt, args):
    """String.format(Locale.US, fmt, args), or None where Java throws."""
    try:
        return _format(fmt, args)
    except Throws:
        return None


def _format(fmt, args):
    out, i, last, ordinary = [], 0, -1, -1
    while i < len(fmt):
        j = fmt.find("%", i)
        if j < 0:
            out.append(fmt[i:])
            break
        out.append(fmt[i:j])
        m = SPEC.match(fmt, j)
        if not m:
            raise Throws("unknown conversion")
        i = m.end()
        index, flags, width, prec, tt, conv = m.groups()
        if tt or conv in "hHaA":
            raise Throws("not built")
        width = int(width) if width else None
        prec = int(prec[1:]) if prec else None
        if (width or 0) > 2 ** 31 - 1 or (prec or 0) > 2 ** 31 - 1:
            raise Throws()
        up = conv in "BSCXEG"
        conv = conv.lower() if up else conv
        if conv not in "bscdoxefg%n":
            raise Throws()
        check(conv, flags, width, prec)
        if conv == "%":
            out.append(justify("%", flags, width))
            continue
        if conv == "n":
            out.append("\n")
            continue
        if "<" in flags:
            k = last
        elif index:
            k = int(index[:-1]) - 1
            if k < 0:
                raise Throws()
        else:
            ordinary += 1
            k = ordinary
        if k < 0 or k >= len(args):
            raise Throws("missing argument")
        last = k
        a = args[k]
        if conv == "b":
            s = "false" if a is None or a == ("b", False) else "true"
            out.append(text(s, flags, width, prec, up))
        elif conv == "s":
            if "#" in flags:
                raise Throws()
            out.append(text("null" if a is None else to_string(a), flags, width, prec, up))
        elif a is None:
            out.append(text("null", flags, width, prec, up))
        elif conv == "c":
            if a[0] != "i" or not 0 <= a[1] <= 0x10FFFF:
                raise Throws()
            ch = "?" if 0xD800 <= a[1] <= 0xDFFF else chr(a[1])
            out.append(text(ch, flags, width, None, up))
        elif conv in "dox":
            if a[0] not in ("i", "l"):
                raise Throws()
            v = a[1]
            if conv == "d":
                body = str(abs(v))
                if "," in flags:
                    body = group(body)
                s = signed(body, v < 0, flags, width)
            else:
                if set(flags) & set("( +"):
                    raise Throws()
                if v < 0:
                    v += 2 ** 32 if a[0] == "i" else 2 ** 64
                digits = format(v, "o" if conv == "o" else "x")
                pre = ("0" if conv == "o" else "0x") if "#" in flags else ""
                if "0" in flags and width is not None:
                    digits = "0" * (width - len(pre) - len(digits)) + digits
                s = pre + digits
            out.append(justify(s.upper() if up else s, flags, width))
        else:
            if a[0] not in ("d", "m"):
                raise Throws()
            s = fmt_float(conv, a, flags, width, prec)
            out.append(justify(s.upper() if up else s, flags, width))
    return "".join(out)


# ---- hand-checked values of Java's String.format (a check of the model) ----

KNOWN = [
    ("%.1f", [("d", 0.25)], "0.3"),
    ("%.2f", [("d", 0.125)], "0.13"),
    ("%08.2f", [("d", -3.14159)], "-0003.14"),
    ("%,d", [("i", 1234567)], "1,234,567"),
    ("%(d", [("i", -5)], "(5)"),
    ("%x", [("i", -1)], "ffffffff"),
    ("%X", [("l", -1)], "FFFFFFFFFFFFFFFF"),
    ("%#o", [("i", 8)], "010"),
    ("%e", [("d", 12345.678)], "1.234568e+04"),
    ("%g", [("d", 0.0001)], "0.000100000"),
    ("%g", [("d", 123456789.0)], "1.23457e+08"),
    ("%g", [("d", 0.0)], "0.00000"),
    ("%10.3s|", [("s", "abcdef")], "       abc|"),
    ("%-6b|", [None], "false |"),
    ("%S", [("s", "abc")], "ABC"),
    ("%c", [("i", 65)], "A"),
    ("%5%", [], "    %"),
    ("%2$s %1$s", [("s", "a"), ("s", "b")], "b a"),
    ("%s %<s", [("s", "x")], "x x"),
    ("%d", [("d", 1.5)], None),
    ("%s", [("d", 1e10)], "1.0E10"),
    ("%s", [("d", 100.0)], "100.0"),
    ("%05d", [None], " null"),
    ("%+.3e", [("m", Decimal("0.00"))], "+0.000e-02"),
    ("%.3f", [("m", Decimal("2.0005"))], "2.001"),
    ("%s", [("m", Decimal("0.00000001"))], "1E-8"),
    ("%d %d", [("i", 1)], None),
    ("%q", [("i", 1)], None),
]


def self_check():
    bad = []
    for fmt, args, want in KNOWN:
        got = java_format(fmt, args)
        if got != want:
            bad.append("model: %r %r = %r, Java gives %r" % (fmt, args, got, want))
    return bad


# ---- random jobs ----

ALPHA = list("abcxyzAB019 .,;:-") + ["\u00e9", "\u4e2d", "\U0001F600", "'"]
COLS = [("i", "INT"), ("l", "BIGINT"), ("d", "DOUBLE"), ("m", "DECIMAL(12, 4)"), ("m8", "DECIMAL(20, 8)"),
        ("s", "STRING"), ("b", "BOOLEAN")]
KIND = {"i": "i", "l": "l", "d": "d", "m": "m", "m8": "m", "s": "s", "b": "b"}
DOUBLES = [0.0, -0.0, 1.0, -1.0, 0.5, 0.25, 0.125, 0.15, 2.5, -2.5, 1e-5, 1e-4, 9.9995, 99999.95, 123456789.0,
           1e7, 1e21, 1.5e-7, 3.141592653589793, -2.718281828459045, 0.1, 1e100, 5e-324, 1.7976931348623157e308,
           999999.5, 0.00095, 12345.678]


def rand_double(rng):
    r = rng.random()
    if r < 0.5:
        return rng.choice(DOUBLES)
    if r < 0.8:
        return round(rng.uniform(-1000, 1000), rng.randint(0, 6))
    return rng.uniform(-1, 1) * 10 ** rng.randint(-10, 12)


def rand_dec(rng, scale, digits):
    if rng.random() < 0.15:
        return Decimal(0).scaleb(-scale)
    mag = rng.choice([rng.randint(0, 10 ** rng.randint(1, digits) - 1), 5 * 10 ** rng.randint(0, digits - 1),
                      10 ** rng.randint(0, digits - 1) - 1])
    return (Decimal(mag if rng.random() < 0.6 else -mag)).scaleb(-scale)


def rand_row(rng, i):
    def maybe(v):
        return None if rng.random() < 0.08 else v
    return {
        "id": i,
        "i": maybe(rng.choice([0, 1, -1, 65, 0x4e2d, 0x1F600, 0xD800, 0x110000, 2 ** 31 - 1, -2 ** 31,
                               rng.randint(-10 ** 6, 10 ** 6)])),
        "l": maybe(rng.choice([0, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 40, rng.randint(-10 ** 12, 10 ** 12)])),
        "d": maybe(rand_double(rng)),
        "m": maybe(rand_dec(rng, 4, 12)),
        "m8": maybe(rand_dec(rng, 8, 20)),
        "s": maybe("".join(rng.choice(ALPHA) for _ in range(rng.randint(0, 8)))),
        "b": maybe(rng.random() < 0.5),
    }


CONVS = list("bscdoxefg") + list("BSCXEG") + ["%", "n"]


FITS = {"i": "dxXocCsSbB", "l": "dxXosSbB", "d": "efgEGsSbB", "m": "efgEGsSbB", "s": "sSbB", "b": "bBsS"}


def rand_spec(rng, nargs, kind=None):
    """A specifier; kind: the kind of the argument an ordinary one takes."""
    index = ""
    r = rng.random()
    if r < 0.12:
        index = "%d$" % rng.randint(1, nargs + 1)
    conv = rng.choice(CONVS)
    if kind and not index and rng.random() < 0.85:
        conv = rng.choice(FITS[kind])
    if rng.random() < 0.03:
        conv = rng.choice(["q", "h", "D", "a", "tY"])
    flags = ""
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        flags += rng.choice("-#+ 0,(")
    if r >= 0.12 and rng.random() < 0.07:
        flags += "<"
    width = str(rng.randint(1, 14)) if rng.random() < 0.5 else ""
    prec = "." + str(rng.randint(0, 9)) if rng.random() < 0.4 else ""
    # a spec Java accepts is likelier to test formatting than a refusal
    lc = conv.lower() if conv in "BSCXEG" else conv
    try:
        check(lc, flags, int(width) if width else None, int(prec[1:]) if prec else None)
    except Throws:
        if rng.random() < 0.85:
            flags = ""
            if lc in "doxcn%":
                prec = ""
            if lc == "n":
                width = ""
    return "%" + index + flags + width + prec + conv


def rand_format(rng, kinds):
    parts = []
    for k in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            parts.append(rng.choice(["x=", " ", "[", "] ", "\u00e9:", "''", "a b"]))
        parts.append(rand_spec(rng, len(kinds), kinds[k] if k < len(kinds) else None))
    if rng.random() < 0.3:
        parts.append(rng.choice(["!", " end", "\u4e2d"]))
    return "".join(parts)


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def run_case(case):
    problems = self_check()
    if problems:
        return problems
    rng = case.rng
    n = rng.choice([1, 8, 30])
    rows = [rand_row(rng, i) for i in range(n)]
    row_formats = [rand_format(rng, ["i", "d", "s"]) for _ in range(4)]
    for r in rows:
        r["f"] = None if rng.random() < 0.1 else rng.choice(row_formats)
    calls = []
    for _ in range(rng.randint(6, 14)):
        argv = [rng.choice(COLS)[0] for _ in range(rng.randint(0, 3))]
        calls.append((rand_format(rng, [KIND[a] for a in argv]), argv))
    calls.append((None, ["i", "d", "s"]))  # the per-row format
    with open(case.path("in.json"), "w", encoding="utf-8") as f:
        for r in rows:
            items = []
            for k, v in r.items():
                items.append("%s: %s" % (json.dumps(k), "null" if v is None else str(v) if isinstance(v, Decimal)
                                         else json.dumps(v)))
            f.write("{" + ", ".join(items) + "}\n")
    exprs = ["PRINTF(%s%s)" % ("f" if fmt is None else sql_str(fmt), "".join(", " + a for a in argv))
             for fmt, argv in calls]
    par = rng.choice([1, 2, 4])
    case.write("job.sql", "\n".join([
        "CREATE TABLE t (id INT, %s, f STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', "
        "'format' = 'json');" % ", ".join("%s %s" % c for c in COLS),
        "CREATE TABLE o (id INT, %s) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');"
        % ", ".join("p%d STRING" % k for k in range(len(exprs))),
        "INSERT INTO o SELECT id, %s FROM t;" % ", ".join(exprs)]) + "\n")
    case.note = "p=%d" % par
    p = case.run_weir(["run", "job.sql", "-D", "parallelism.default=%d" % par])
    if p.returncode:
        return [diffrun.failed_run(p)]
    got = diffrun.json_rows_by_id(case.path("out"))
    problems = []
    if len(got) != n:
        problems.append("expected %d rows, got %d" % (n, len(got)))
    for r in rows:
        g = got.get(r["id"])
        if g is None:
            continue
        for k, (fmt, argv) in enumerate(calls):
            fmt = r["f"] if fmt is None else fmt
            args = [None if r[a] is None else (KIND[a], r[a]) for a in argv]
            want = None if fmt is None else java_format(fmt, args)
            case.counts["values"] += 1
            if g.get("p%d" % k) != want:
                problems.append("PRINTF(%r, %s) = %r, expected %r" % (fmt, ", ".join("%s=%r" % (a, r[a]) for a in argv),
                                                                     g.get("p%d" % k), want))
    return problems


def main():
    return diffrun.main("printf_diff", run_case, jobs_env="WEIR_PRINTFDIFF_JOBS", jobs=10, asan_jobs=3,
                        one_env="WEIR_PRINTFDIFF_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
