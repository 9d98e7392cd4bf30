"""Java's numbers as weir's randomized tests model them (no code of weir's).

Double.toString (double_text: the shortest digits that read back, at least
two, laid out plain for 1e-3 <= |x| < 1e7 and as d.dddE[-]n otherwise), the
test of a text that Java 17 may write instead (double_text_problem: more
digits than the shortest, or as many but not the closest, accepted when it
reads back to the same double), the bits of a double (same_double), the low
bits of an integer (Java's narrowing), and a DECIMAL(p, s)'s HALF_UP fit.

    import javanum
    javanum.double_text(0.1)        # '0.1'
    javanum.low_bits(2 ** 31, 32)   # -2147483648
"""
import decimal
import math
import re
import struct
from decimal import Decimal, ROUND_HALF_UP, ROUND_DOWN
from fractions import Fraction

CTX = decimal.Context(prec=400, rounding=ROUND_DOWN, Emax=999999, Emin=-999999)


def low_bits(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def fit(v, p, s):
    """v rounded HALF_UP to scale s, or None when it needs more than p digits."""
    q = v.quantize(Decimal(1).scaleb(-s), rounding=ROUND_HALF_UP, context=CTX)
    if abs(q.scaleb(s)) >= Decimal(10) ** p:
        return None
    return q.copy_abs() if q == 0 else q


def double_digits(d):
    """The digits and decimal exponent of Java's Double.toString of a finite
    non-zero |d|: (digits, e) with |d| ~ 0.digits * 10^e... written here as
    d1.d2d3... * 10^sci. The shortest digits that read back (Python's repr),
    two when one would do: the closest two-digit decimal that reads back."""
    d = abs(d)
    r = repr(d)
    mant, _, xs = r.partition("e")
    x = int(xs) if xs else 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = (ip + fp).lstrip("0")
    # the exponent of the first significant digit
    lead = len((ip + fp)) - len((ip + fp).lstrip("0"))
    sci = len(ip) - 1 - lead + x
    digits = digits.rstrip("0") or "0"
    if len(digits) == 1:
        # the closest two-digit decimal that reads back (it may not be d.0)
        exact = Fraction(d)
        unit = Fraction(10) ** (sci - 1)
        k = round(exact / unit)
        best = None
        for c in (k - 1, k, k + 1):
            if 10 <= c <= 99 and float(Fraction(c) * unit) == d:
                if best is None or abs(Fraction(c) * unit - exact) < abs(Fraction(best) * unit - exact):
                    best = c
        if best is not None:
            digits = str(best)
        else:
            digits += "0"
    return digits, sci


def layout(neg, digits, sci):
    """Java's Double.toString layout of the digits d1 d2 ... times 10^sci."""
    s = "-" if neg else ""
    if -3 <= sci < 7:
        if sci >= 0:
            ip = digits[:sci + 1].ljust(sci + 1, "0")
            fp = digits[sci + 1:].rstrip("0") or "0"
        else:
            ip = "0"
            fp = ("0" * (-sci - 1) + digits).rstrip("0") or "0"
        return s + ip + "." + fp
    fp = digits[1:].rstrip("0") or "0"
    return s + digits[0] + "." + fp + "E" + str(sci)


def double_text(d):
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "Infinity" if d > 0 else "-Infinity"
    if d == 0:
        return "-0.0" if math.copysign(1, d) < 0 else "0.0"
    digits, sci = double_digits(d)
    return layout(d < 0, digits, sci)


def java_laid_out(t):
    """(digits, sci) when t is a Double.toString text laid out as Java lays
    out those digits (layout(digits, sci) gives t back), else None."""
    m = re.fullmatch(r"(-?)([0-9]+)\.([0-9]+)(?:E(-?[0-9]+))?", t)
    if not m:
        return None
    allds = m.group(2) + m.group(3)
    lead = len(allds) - len(allds.lstrip("0"))
    ds = allds.strip("0")
    if not ds:
        return None
    sci = len(m.group(2)) - 1 - lead + int(m.group(4) or 0)
    return (ds, sci) if layout(m.group(1) == "-", ds, sci) == t else None


def same_double(a, b):
    if a is None or b is None:
        return a is None and b is None
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)


def got_double(t):
    """The double a printed text reads as (None for null), or a reason."""
    if t == "null":
        return None
    try:
        return float(t)  # Java's texts: NaN, Infinity, 1.0E7
    except ValueError:
        return "unreadable %r" % t


def double_text_problem(want, got, counts):
    """None when got (a printed text) is Double.toString's text want, or one
    Java 17 writes for the same double: laid out as Java lays out its
    digits, of no fewer digits than the shortest, reading back to the same
    double (counted in counts as "double text longer" / "double text other
    digits"); else a reason."""
    if got == want:
        return None
    mine, theirs = java_laid_out(want), java_laid_out(got)
    if mine and theirs and len(theirs[0]) >= len(mine[0]) and same_double(got_double(got), got_double(want)):
        counts["double text longer" if len(theirs[0]) > len(mine[0]) else "double text other digits"] += 1
        return None
    return "want %s" % want
