#!/usr/bin/env python3
"""Randomized differential test of the numeric functions and of INT /
BIGINT / DOUBLE arithmetic (tests/test_math_diff.sh runs it) against a
model of docs/functions.md ("Types and arithmetic", "Math functions",
GREATEST / LEAST, BIN / HEX) and of the Java methods Flink calls, written
with no code of weir's:
  + - * / % and MOD of INT and BIGINT wrap around as Java's int and long
  do (% of DOUBLEs as Java's, C's fmod; + - * with a DECIMAL by Flink's
  DECIMAL rules, HALF_UP, NULL past the precision), / truncates toward zero, % and MOD take the dividend's sign
  (INT_MIN / -1 is INT_MIN, INT_MIN % -1 is 0), the result is INT for two
  INTs and BIGINT otherwise; a zero divisor fails the job; with a DOUBLE
  operand IEEE arithmetic (1.0 / 0 is Infinity), a BIGINT read as the
  nearest double; unary minus wraps;
  ABS (ABS(INT_MIN) wraps), SIGN (Math.signum: SIGN(-0.0) is -0.0, a NaN
  stays NaN), FLOOR and CEIL (Math.floor / ceil: CEIL(-0.5) is -0.0; a
  DECIMAL(p, s) gives DECIMAL(p - s + 1, 0) when s > 0);
  ROUND and TRUNCATE as Flink's BigDecimal code: an INT or BIGINT rounded
  HALF_UP (or truncated) at d digits, d negative included, then narrowed
  to its low 32 or 64 bits (intValue / longValue); a DOUBLE through its
  Double.toString text, a zero result 0.0, NaN and the infinities
  unchanged; a DECIMAL(p, s) with a literal d to Flink's round type
  (d >= s: the same; d < 0: DECIMAL(1 + p - s, 0); else DECIMAL(1 + p - s
  + d, d), at most 38 digits), NULL when it does not fit;
  POWER, SQRT, EXP, LN, LOG, LOG10, LOG2, LOG(b, x), the trigonometric and
  hyperbolic functions, DEGREES and RADIANS as java.lang.Math: every
  special case Math's documentation lists exactly (POWER(1, NaN) is NaN,
  POWER(-1, Infinity) NaN, COSH(-0.0) 1.0, ATAN2 of zeros and infinities,
  an integral power that a double holds exactly, LOG10 of 10^n is n), SQRT
  correctly rounded, DEGREES and RADIANS one multiplication (x * 180/pi,
  x * pi/180, as Java 9 and later), LOG2, LOG(b, x) and COT as Flink's
  formulas (ln x / ln 2, ln x / ln b, 1 / tan x); elsewhere within Math's
  error bound of the exact value (computed with mpmath): 1 ulp, 2 for
  ATAN2, 2.5 for SINH, COSH, TANH, 3 for the formulas, and 2 for LOG10
  (the C library's log10 is off by more than Java's 1 ulp for some
  arguments: docs/functions.md says so); without mpmath those are not
  compared (counted);
  GREATEST / LEAST over the common type (INT < BIGINT < DECIMAL < DOUBLE,
  two DECIMALs to the integral digits of both and the larger scale), NULL
  when any argument is NULL, compared as Flink's boxed compareTo does (a
  DOUBLE NaN above everything, -0.0 below 0.0, the first of equals kept);
  BIN and HEX of an INT or BIGINT as Long.toBinaryString / toHexString
  (upper case) of its 64-bit value.
Each expression's type is checked with TYPEOF; its value printed through
CAST(... AS STRING) (a DOUBLE as Double.toString: tests/support/javanum.py).
Some cases also run a job whose integer or DECIMAL division, % or MOD meets
a zero divisor, which must fail naming it, and one of RAND(seed) and
RAND_INTEGER(seed, bound) at parallelism 1, which must replay
java.util.Random's sequences (nextDouble, nextInt(bound) with its rejection
of draws past the last whole multiple of bound).
"""
import decimal
import math
import os
import re
import struct
import sys
from decimal import Decimal, ROUND_HALF_UP, ROUND_DOWN
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
from javanum import double_text, double_text_problem, fit, got_double, low_bits, same_double  # noqa: E402

try:
    import mpmath
    mpmath.mp.prec = 200
except ImportError:  # then only the exact cases of the transcendental functions are compared
    mpmath = None

CTX = decimal.Context(prec=400, rounding=ROUND_DOWN, Emax=999999, Emin=-999999)
decimal.setcontext(CTX)

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
LONG_MIN, LONG_MAX = -2 ** 63, 2 ** 63 - 1
NAN, INF = float("nan"), float("inf")


# ---- the model -------------------------------------------------------------------

def is_int(t):
    return t in ("INT", "BIGINT")


def dec_parts(t):
    """(p, s) of a DECIMAL type, INT as (10, 0), BIGINT as (19, 0)."""
    return {"INT": (10, 0), "BIGINT": (19, 0)}.get(t) if isinstance(t, str) else t[1:]


def type_text(t):
    return t if isinstance(t, str) else "DECIMAL(%d, %d)" % t[1:]


def common_type(types):
    """Flink's common type of numbers: INT < BIGINT < DECIMAL < DOUBLE; two
    DECIMALs to the integral digits of both and the larger scale, the scale
    cut where that passes 38 digits."""
    if "DOUBLE" in types:
        return "DOUBLE"
    if all(t == "INT" for t in types):
        return "INT"
    if all(is_int(t) for t in types):
        return "BIGINT"
    ps = [dec_parts(t) for t in types]
    intd = max(p - s for p, s in ps)
    s = max(s for _, s in ps)
    if intd + s > 38:
        s = max(0, 38 - intd)
    return ("DECIMAL", min(38, intd + s), s)


def to_type(v, frm, to):
    """A value of type frm in type to (the widening casts)."""
    if v is None or frm == to:
        return v
    if to == "DOUBLE":
        return float(v)
    if is_int(to):
        return v
    return fit(Decimal(v), *to[1:])


def wrap(v, t):
    return low_bits(v, 32 if t == "INT" else 64)


def ieee(op, a, b):
    """a op b in IEEE doubles (Python raises where IEEE gives NaN or an infinity)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        if a == 0 or math.isnan(a):
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)
    return a / b


def arith(op, a, ta, b, tb):
    """a op b: (value, type); None for NULL; "fail" for a zero integer divisor."""
    t = common_type([ta, tb])
    if isinstance(t, tuple):  # exact with a DECIMAL: Flink's rules (+ - *), the result HALF_UP, NULL past p
        (p1, s1), (p2, s2) = dec_parts(ta), dec_parts(tb)
        if op in "+-":
            s = max(s1, s2)
            p = max(p1 - s1, p2 - s2) + s + 1
        elif op == "%":
            s = max(s1, s2)
            p = min(p1 - s1, p2 - s2) + s
        else:
            p, s = p1 + p2 + 1, s1 + s2
        if p > 38:
            p, s = 38, max(38 - (p - s), min(s, 6))
        t = ("DECIMAL", p, s)
        if a is None or b is None:
            return None, t
        a, b = Decimal(a), Decimal(b)
        if op == "%" and b == 0:
            return "fail", t
        v = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a % b  # % : the dividend's sign
        return fit(v, p, s), t
    if a is None or b is None:
        return None, t
    a, b = to_type(a, ta, t), to_type(b, tb, t)
    if t == "DOUBLE":
        if op == "%":  # Java's % of doubles: C's fmod
            if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
                return NAN, t
            return (a if math.isinf(b) else math.fmod(a, b)), t
        return ieee(op, a, b), t
    if op in "/%" and b == 0:
        return "fail", t
    if op == "+":
        v = a + b
    elif op == "-":
        v = a - b
    elif op == "*":
        v = a * b
    else:
        q = abs(a) // abs(b)
        q = q if (a < 0) == (b < 0) else -q  # toward zero
        v = q if op == "/" else a - b * q
    return wrap(v, t), t


def java_signum(x):
    return x if x == 0 or math.isnan(x) else math.copysign(1.0, x)


def java_floor_ceil(x, ceil):
    if not math.isfinite(x) or x == 0 or abs(x) >= 2.0 ** 52:
        return x
    r = float(math.ceil(x) if ceil else math.floor(x))
    return math.copysign(0.0, x) if r == 0 else r  # Math.ceil(-0.5) is -0.0


def round_at(v, d, trunc):
    """Decimal v rounded HALF_UP (or truncated) at d fraction digits (d may be negative)."""
    if d >= -v.as_tuple().exponent:
        return v  # no digit to drop
    return v.scaleb(d).quantize(Decimal(1), rounding=ROUND_DOWN if trunc else ROUND_HALF_UP).scaleb(-d)


def round_type(t, d):
    """Flink's ROUND / TRUNCATE type of a DECIMAL(p, s) at d digits."""
    p, s = t[1:]
    if d >= s:
        return t
    if d < 0:
        return ("DECIMAL", min(38, 1 + p - s), 0)
    return ("DECIMAL", min(38, 1 + p - s + d), d)


def round_value(x, t, d, trunc, text=None):
    """ROUND / TRUNCATE(x, d) of a value of type t (None for NULL); a DOUBLE
    rounds its Double.toString text (text: the one weir printed for it,
    checked against the model on its own: Java 17 writes some doubles with
    more digits than the shortest)."""
    if x is None or d is None:
        return None
    if is_int(t):
        return wrap(int(round_at(Decimal(x), d, trunc)), t)
    if t == "DOUBLE":
        if not math.isfinite(x):
            return x
        if x == 0:
            return 0.0
        r = float(round_at(Decimal(text or double_text(x)), d, trunc))
        return 0.0 if r == 0 else r
    rt = round_type(t, d)
    return fit(round_at(x, d, trunc), *rt[1:])


def floor_type(t):
    if not isinstance(t, tuple):
        return t
    p, s = t[1:]
    return ("DECIMAL", min(38, p - s + 1), 0) if s > 0 else t


# java.lang.Math: each function of doubles gives ("exact", value) or ("near", exact mpf, ulps)

def is_odd_int(y):
    return math.isfinite(y) and y == math.floor(y) and abs(y) < 2.0 ** 53 and int(y) % 2 == 1


def is_integral(y):
    return math.isfinite(y) and y == math.floor(y)


def java_pow(x, y):
    if y == 0:
        return 1.0
    if y == 1.0:
        return x
    if math.isnan(y) or math.isnan(x):
        return NAN
    if math.isinf(y):
        if abs(x) == 1:
            return NAN
        return INF if (abs(x) > 1) == (y > 0) else 0.0
    if x == 0 or math.isinf(x):
        # +0 / +inf, and -0 / -inf (odd integer powers keep the sign)
        big = (x == 0) == (y < 0)
        neg = math.copysign(1.0, x) < 0 and is_odd_int(y)
        v = INF if big else 0.0
        return -v if neg else v
    if x < 0:
        if not is_integral(y):
            return NAN
        r = java_pow(-x, y)
        if isinstance(r, tuple):
            return near(lambda: -r[1]() if is_odd_int(y) else r[1](), r[2]) if r[1] else r
        return -r if is_odd_int(y) else r
    if is_integral(y) and is_integral(x) and abs(y) * math.log2(x) < 1100:
        # both integers: exact when the double holds the power exactly
        ex = Fraction(int(x)) ** int(y)
        try:
            f = float(ex)
        except OverflowError:
            f = None
        if f is not None and math.isfinite(f) and Fraction(f) == ex:
            return f
    return near(lambda: mpmath.power(mpmath.mpf(x), mpmath.mpf(y)), 1)


def near(exact, ulps):
    return ("near", exact, ulps) if mpmath else ("near", None, ulps)


def java_math(fn, args):
    """java.lang.Math's fn (or Flink's formula over it) of doubles: a double
    for the cases Math documents exactly, else ("near", exact thunk, ulps)."""
    x = args[0]
    mp = mpmath
    if fn == "POWER":
        return java_pow(x, args[1])
    if fn == "ATAN2":
        y, xx = x, args[1]
        if math.isnan(y) or math.isnan(xx):
            return NAN
        if y == 0:
            if xx > 0 or (xx == 0 and math.copysign(1.0, xx) > 0):
                return y
            return math.copysign(math.pi, y)
        if xx == 0:
            return math.copysign(math.pi / 2, y)
        if math.isinf(y):
            if math.isinf(xx):
                return math.copysign(math.pi / 4 if xx > 0 else 3 * math.pi / 4, y)
            return math.copysign(math.pi / 2, y)
        if math.isinf(xx):
            return math.copysign(0.0, y) if xx > 0 else math.copysign(math.pi, y)
        return near(lambda: mp.atan2(mp.mpf(y), mp.mpf(xx)), 2)
    if fn == "LOGB":  # LOG(b, x) = ln x / ln b
        b, v = x, args[1]
        lb, lv = java_math("LN", [b]), java_math("LN", [v])
        if isinstance(lb, float) and isinstance(lv, float):
            return ieee("/", lv, lb)
        if isinstance(lb, float):  # 0 or an infinity over a finite non-zero ln v of a known sign
            return NAN if math.isnan(lb) else ieee("/", 1.0 if v > 1 else -1.0, lb)
        if isinstance(lv, float):
            return NAN if math.isnan(lv) else ieee("/", lv, 1.0 if b > 1 else -1.0)
        return near(lambda: mp.log(mp.mpf(v)) / mp.log(mp.mpf(b)), 3)
    if math.isnan(x):
        return NAN
    if fn == "SQRT":
        return NAN if x < 0 else math.sqrt(x)
    if fn == "DEGREES":
        return x * 57.29577951308232
    if fn == "RADIANS":
        return x * 0.017453292519943295
    if fn == "EXP":
        if math.isinf(x):
            return INF if x > 0 else 0.0
        if x == 0:
            return 1.0
        return near(lambda: mp.exp(mp.mpf(x)), 1)
    if fn in ("LN", "LOG10", "LOG2"):
        if x < 0:
            return NAN
        if x == 0:
            return -INF
        if math.isinf(x):
            return INF
        if x == 1:
            return 0.0
        if fn == "LOG10":
            if x == math.floor(x) and str(int(x)).rstrip("0") == "1":
                return float(len(str(int(x))) - 1)  # Math.log10(10^n) is n
            return near(lambda: mp.log10(mp.mpf(x)), 2)  # the C library's bound (Java's is 1)
        if fn == "LOG2":
            return near(lambda: mp.log(mp.mpf(x)) / mp.log(2), 3)
        return near(lambda: mp.log(mp.mpf(x)), 1)
    if fn in ("SIN", "TAN", "ASIN", "ATAN", "SINH", "TANH") and x == 0:
        return x
    if fn in ("SIN", "COS", "TAN", "COT") and math.isinf(x):
        return NAN
    if fn in ("ASIN", "ACOS") and abs(x) > 1:
        return NAN
    if fn == "COT":
        if x == 0:
            return math.copysign(INF, x)
        return near(lambda: mp.cot(mp.mpf(x)), 3)
    if fn == "ATAN" and math.isinf(x):
        return math.copysign(math.pi / 2, x)
    if fn == "SINH" and math.isinf(x):
        return x
    if fn == "COSH":
        if math.isinf(x):
            return INF
        if x == 0:
            return 1.0
    if fn == "TANH" and math.isinf(x):
        return math.copysign(1.0, x)
    f = {"SIN": mp.sin, "COS": mp.cos, "TAN": mp.tan, "ASIN": mp.asin, "ACOS": mp.acos, "ATAN": mp.atan,
         "SINH": mp.sinh, "COSH": mp.cosh, "TANH": mp.tanh}[fn] if mp else None
    ulps = 2.5 if fn in ("SINH", "COSH", "TANH") else 1
    return near(lambda: f(mp.mpf(x)), ulps)


def near_problem(want, got):
    """None when the printed double got lies within want's ulps of the exact value, else a reason."""
    _, exact, ulps = want
    g = got_double(got)
    if not isinstance(g, float):
        return "want a double near the exact value, got %s" % got
    if exact is None:
        return None  # no mpmath: not compared
    e = exact()
    cr = float(e) if abs(e) < mpmath.mpf(2) ** 1024 else math.copysign(INF, float(mpmath.sign(e)))
    if math.isinf(cr):
        big = math.copysign(1.7976931348623157e308, cr)
        if g == cr or (g == big and abs(e) < mpmath.mpf(2) ** 1024 * (1 + mpmath.mpf(2) ** -50)):
            return None
        return "want %s (exact %s)" % (double_text(cr), mpmath.nstr(e, 20))
    if math.isnan(g) or math.isinf(g):
        return "want %s (exact %s)" % (double_text(cr), mpmath.nstr(e, 20))
    u = math.ulp(cr) if cr != 0 else 5e-324
    err = abs(mpmath.mpf(g) - e) / u
    if err <= ulps:
        return None
    return "want %s within %s ulp (exact %s, off by %s ulp)" % (double_text(cr), ulps, mpmath.nstr(e, 20),
                                                              mpmath.nstr(err, 4))


def greatest(vals, types, least):
    """GREATEST / LEAST as Flink's generated code: the common type, NULL when
    any is NULL, the first kept unless compareTo says a later one wins."""
    t = common_type(types)
    if any(v is None for v in vals):
        return None, t
    conv = [to_type(v, ty, t) for v, ty in zip(vals, types)]

    def key(v):
        if t != "DOUBLE":
            return (0, v)
        if math.isnan(v):
            return (1, 0)  # Double.compareTo: NaN above every other, +Infinity included
        return (0, v, math.copysign(1.0, v))  # -0.0 below 0.0
    best = conv[0]
    for v in conv[1:]:
        c = (key(v) > key(best)) - (key(v) < key(best))
        if (c > 0 and not least) or (c < 0 and least):
            best = v
    return best, t


# ---- random values ----------------------------------------------------------------

def rand_int(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice([INT_MIN, INT_MIN + 1, -1, 0, 1, INT_MAX, INT_MAX - 1, 2, -2, 46341, -46341, 65536, 5, -5,
                           15, -15, 25, 1000000007])
    if r < 0.6:
        return rng.randint(-1000, 1000)
    return rng.randint(INT_MIN, INT_MAX)


def rand_long(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice([LONG_MIN, LONG_MIN + 1, -1, 0, 1, LONG_MAX, LONG_MAX - 1, INT_MIN, INT_MAX, 2 ** 32,
                           3037000500, -3037000500, 5 * 10 ** 18, -5 * 10 ** 18, 9 * 10 ** 18, 25, -15])
    if r < 0.55:
        return rng.randint(-10 ** 6, 10 ** 6)
    return rng.randint(LONG_MIN, LONG_MAX)


def rand_double(rng):
    r = rng.random()
    if r < 0.2:
        return rng.choice([0.0, -0.0, 1.0, -1.0, NAN, INF, -INF, 5e-324, -5e-324, 1.7976931348623157e308,
                           -1.7976931348623157e308, 2.2250738585072014e-308, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.675,
                           1.005, 0.1, 10.0, 100.0, 1e-5, 1e22, 1e23, 2.0, 3.0, 0.7, 709.78, -745.2, 710.0, 1e300,
                           1e-300, math.pi, math.e, 9007199254740993.0, 4.5e15, 2147483648.5, -2147483648.5,
                           9.223372036854776e18, 1e16, 0.49999999999999994, 123456.789, -0.0001])
    if r < 0.35:
        while True:
            d = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if not math.isnan(d):
                return d
    if r < 0.55:
        return rng.uniform(-10, 10)
    if r < 0.65:
        return rng.uniform(-1, 1)
    if r < 0.8:  # short decimals, halves among them
        return float("%s%d.%de%d" % (rng.choice(["", "-"]), rng.randint(0, 999), rng.choice([0, 5, 25, 125, 675]),
                                     rng.randint(-8, 12)))
    if r < 0.9:
        return float(rng.randint(-100, 100)) * rng.choice([1, 0.5, 0.25])
    return rng.uniform(-1e6, 1e6) * 10.0 ** rng.randint(-300, 300)


def rand_dec(rng, p, s):
    r = rng.random()
    if r < 0.15:
        u = 10 ** p - 1  # the precision's limit
    elif r < 0.25:
        u = rng.choice([0, 1, 5 * 10 ** max(0, s - 1), 10 ** s, 10 ** s // 2])
        u = min(u, 10 ** p - 1)
    else:
        u = rng.randint(0, 10 ** rng.randint(1, p) - 1)
    return Decimal(-u if rng.random() < 0.5 else u).scaleb(-s)


def rand_digits(rng):
    r = rng.random()
    if r < 0.6:
        return rng.randint(-3, 4)
    if r < 0.9:
        return rng.randint(-20, 20)
    return rng.choice([-40, -19, -18, -10, 10, 18, 19, 40, 320, -320])


def dtext(d):
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "Infinity" if d > 0 else "-Infinity"
    return repr(d)


# ---- expressions --------------------------------------------------------------------
# An expression: (SQL, model(row) -> value | None | "fail" | "skip" | ("near", ...), type)

COLS = {"i": "INT", "j": "INT", "b": "BIGINT", "c": "BIGINT", "d": "DOUBLE", "e": "DOUBLE"}
# literals as operands (Flink's literal types, a minus before a number part of it as Calcite's parser
# makes it; a call of literals only is folded when planned)
LITS = {"3": ("INT", 3), "-7": ("INT", -7), "2147483647": ("INT", INT_MAX), "2147483648": ("BIGINT", 2 ** 31),
        "9223372036854775807": ("BIGINT", LONG_MAX), "-9223372036854775807": ("BIGINT", -LONG_MAX),
        "-2147483648": ("INT", INT_MIN), "-9223372036854775808": ("BIGINT", LONG_MIN),  # a minus in the literal
        "0.5": (("DECIMAL", 1, 1), Decimal("0.5")), "12.25": (("DECIMAL", 4, 2), Decimal("12.25")),
        "1.5E0": ("DOUBLE", 1.5), "1E308": ("DOUBLE", 1e308), "CAST(NULL AS INT)": ("INT", None),
        "CAST(NULL AS DOUBLE)": ("DOUBLE", None), "CAST(NULL AS BIGINT)": ("BIGINT", None)}
NONZERO_LITS = ["3", "-7", "2147483648", "-9223372036854775807", "CAST(NULL AS INT)"]
TRANSCENDENTAL = ["SQRT", "EXP", "LN", "LOG10", "LOG2", "SIN", "COS", "TAN", "COT", "ASIN", "ACOS", "ATAN", "SINH",
                  "COSH", "TANH", "DEGREES", "RADIANS"]


def rand_expr(rng, xt, yt):
    """One random expression over the columns (x: DECIMAL xt, y: DECIMAL yt of at most 18 digits)."""
    types = dict(COLS, x=xt, y=yt, **{k: t for k, (t, _) in LITS.items()})
    num = ["i", "j", "b", "c", "d", "e"]
    lits = list(LITS) if rng.random() < 0.3 else []
    k = rng.random()
    if k < 0.3:  # arithmetic
        op = rng.choice("+-*/%")
        if op in "/%":
            a = rng.choice(num + ["x"] if op == "/" else num + lits)
            b = rng.choice(["j", "c", "e", "d"] + (NONZERO_LITS if lits else []))  # j, c are never 0
        else:  # a DECIMAL with an INT, a BIGINT, a DOUBLE or another DECIMAL too
            a, b = rng.choice(num + ["x", "y"] + lits), rng.choice(num + ["x", "y"] + lits)
        if a == "x" and op == "/":
            b = rng.choice(["j", "c"])
            a = rng.choice(["x", "y"])
            ty = types[a]
            # DECIMAL / INT: exact, rounded HALF_UP to Flink's scale (decimal_diff covers it widely)
            pp, ss = ty[1:]
            p2 = 10 if b == "j" else 19
            sr = max(6, ss + p2 + 1)
            pr = pp - ss + sr
            if pr > 38:
                sr = max(38 - (pp - ss), min(sr, 6))
                pr = 38
            rt = ("DECIMAL", pr, sr)
            return ("%s / %s" % (a, b), lambda r, a=a, b=b, rt=rt: None if r[a] is None or r[b] is None
                    else fit(r[a] / Decimal(r[b]), *rt[1:]), rt)
        sql = "%s %s %s" % (a, op, b)
        if op == "%" and rng.random() < 0.5:
            sql = "MOD(%s, %s)" % (a, b)
        t = arith(op, 0, types[a], 1, types[b])[1]
        return sql, lambda r, a=a, b=b, op=op: arith(op, r[a], types[a], r[b], types[b])[0], t
    if k < 0.35:  # unary minus
        a = rng.choice(num + ["x"])
        t = types[a]
        return "-%s" % a, lambda r, a=a, t=t: None if r[a] is None else (
            -r[a] if t == "DOUBLE" else wrap(-r[a], t) if is_int(t) else (-r[a]).copy_abs() if r[a] == 0 else -r[a]), t
    if k < 0.42:  # ABS, SIGN
        fn, a = rng.choice(["ABS", "SIGN"]), rng.choice(num + ["x", "y"])
        t = types[a]

        def m(r, fn=fn, a=a, t=t):
            v = r[a]
            if v is None:
                return None
            if t == "DOUBLE":
                return abs(v) if fn == "ABS" else java_signum(v)
            if is_int(t):
                return wrap(abs(v), t) if fn == "ABS" else (v > 0) - (v < 0)
            if fn == "ABS":
                return abs(v)
            # a DECIMAL(p, p) holds no 1: its SIGN is +-1 at scale p all the same (docs/functions.md)
            return Decimal((v > 0) - (v < 0)).quantize(Decimal(1).scaleb(-t[2]))
        return "%s(%s)" % (fn, a), m, t
    if k < 0.5:  # FLOOR, CEIL
        fn, a = rng.choice(["FLOOR", "CEIL", "CEILING"]), rng.choice(num + ["x", "y"])
        t = types[a]
        ceil = fn != "FLOOR"

        def m(r, a=a, t=t, ceil=ceil):
            v = r[a]
            if v is None:
                return None
            if t == "DOUBLE":
                return java_floor_ceil(v, ceil)
            if is_int(t):
                return v
            q = v.to_integral_value(rounding=decimal.ROUND_CEILING if ceil else decimal.ROUND_FLOOR)
            return fit(q, *floor_type(t)[1:])
        return "%s(%s)" % (fn, a), m, floor_type(t)
    if k < 0.64:  # ROUND, TRUNCATE
        fn = rng.choice(["ROUND", "TRUNCATE"])
        trunc = fn == "TRUNCATE"
        a = rng.choice(["i", "b", "d", "d", "x", "y"])
        t = types[a]
        if isinstance(t, tuple) or rng.random() < 0.5:
            dd = rand_digits(rng)
            if isinstance(t, tuple) and abs(dd) > 38:
                dd = rng.randint(-5, 5)
            if fn == "ROUND" and dd == 0 and rng.random() < 0.5:
                sql = "ROUND(%s)" % a
            else:
                sql = "%s(%s, %d)" % (fn, a, dd)
            rt = round_type(t, dd) if isinstance(t, tuple) else t
            return sql, lambda r, a=a, t=t, dd=dd, trunc=trunc: round_value(r[a], t, dd, trunc, r.get("d text")), rt
        return "%s(%s, n)" % (fn, a), \
            lambda r, a=a, t=t, trunc=trunc: round_value(r[a], t, r["n"], trunc, r.get("d text")), t
    if k < 0.82:  # java.lang.Math
        fn = rng.choice(TRANSCENDENTAL + ["POWER", "POWER", "ATAN2", "LOG", "LOGB"])
        if fn in ("POWER", "ATAN2", "LOGB"):
            a, b = rng.choice(["d", "d", "e", "i", "y"]), rng.choice(["e", "e", "d", "j", "y"])
            if fn == "POWER" and rng.random() < 0.3:
                lit = rng.choice(["2", "3", "0.5", "-1", "1E0", "0", "-2", "1.5E0"])
                sql, b = "POWER(%s, %s)" % (a, lit), lit
            else:
                sql = "%s(%s, %s)" % ("LOG" if fn == "LOGB" else fn, a, b)

            def m(r, a=a, b=b, fn=fn):
                av = r[a]
                bv = r[b] if b in r else float(Decimal(b))
                if av is None or bv is None:
                    return None
                return java_math(fn, [float(av), float(bv)])
            return sql, m, "DOUBLE"
        a = rng.choice(["d", "d", "d", "e", "i", "b", "y"])  # a DECIMAL of up to 18 digits as its nearest double
        name = "LN" if fn == "LOG" else fn
        return "%s(%s)" % (fn, a), lambda r, a=a, name=name: None if r[a] is None else java_math(name, [float(r[a])]), \
            "DOUBLE"
    if k < 0.94:  # GREATEST, LEAST
        fn = rng.choice(["GREATEST", "LEAST"])
        args = [rng.choice(["i", "j", "b", "c", "d", "e", "y", "y"] + lits) for _ in range(rng.randint(2, 4))]
        if any(isinstance(types[a], tuple) for a in args):  # DECIMALs of up to 18 digits only: y alone,
            args = [a if types[a] != "BIGINT" else "i" for a in args]  # no BIGINT
            args = [a if not isinstance(types[a], tuple) else "y" for a in args]
            if max(10, yt[1] - yt[2]) + yt[2] > 18:
                args = [a if types[a] != "INT" else "y" for a in args]
        ts = [types[a] for a in args]
        least = fn == "LEAST"
        return "%s(%s)" % (fn, ", ".join(args)), \
            lambda r, args=args, ts=ts, least=least: greatest([r[a] for a in args], ts, least)[0], common_type(ts)
    fn, a = rng.choice(["BIN", "HEX"]), rng.choice(["i", "b"])
    return "%s(%s)" % (fn, a), lambda r, a=a, fn=fn: None if r[a] is None else (
        format(r[a] & (2 ** 64 - 1), "b" if fn == "BIN" else "X")), "STRING"


# ---- one case ------------------------------------------------------------------------

def compare(t, want, got, counts):
    """None when got (the printed text) is what the model wants, else a reason."""
    if want == "skip":
        counts["not compared"] += 1
        return None
    if isinstance(want, tuple) and want[0] == "near":
        counts["near" if want[1] is not None else "near, not compared (no mpmath)"] += 1
        return near_problem(want, got)
    if want is None:
        return None if got == "null" else "want null"
    if t == "DOUBLE":
        if isinstance(want, float) and math.isfinite(want) and want != 0:
            return double_text_problem(double_text(want), got, counts)
        g = got_double(got)
        return None if isinstance(g, float) and same_double(want, g) else "want %s" % double_text(want)
    if isinstance(t, tuple):
        return None if got == format(want, "f") else "want %s" % format(want, "f")
    if t == "STRING":
        return None if got == want else "want %s" % want
    return None if got == str(want) else "want %s" % want


def run_case(case):
    rng = case.rng
    rows = case.args.rows
    p1 = rng.choice([rng.randint(1, 38), 38, 18, 19, rng.randint(1, 18)])
    s1 = rng.choice([rng.randint(0, p1), 0, p1])
    p2 = rng.randint(1, 18)
    s2 = rng.choice([rng.randint(0, p2), 0, p2])
    xt, yt = ("DECIMAL", p1, s1), ("DECIMAL", p2, s2)
    data = []
    for i in range(rows):
        def maybe(v):
            return None if rng.random() < 0.05 else v
        data.append({"id": i, "i": maybe(rand_int(rng)), "j": maybe(rand_int(rng) or 1), "b": maybe(rand_long(rng)),
                     "c": maybe(rand_long(rng) or -1), "d": maybe(rand_double(rng)), "e": maybe(rand_double(rng)),
                     "x": maybe(rand_dec(rng, p1, s1)), "y": maybe(rand_dec(rng, p2, s2)), "n": maybe(rand_digits(rng))})
        if rng.random() < 0.03:  # the one quotient that overflows: MIN / -1 (and MIN % -1)
            data[-1].update(i=INT_MIN, j=-1, b=LONG_MIN, c=-1)
    with open(case.path("in.json"), "w", encoding="utf-8") as f:
        for r in data:
            f.write('{"id": %d, "i": %s, "j": %s, "b": %s, "c": %s, "dt": %s, "et": %s, "x": %s, "y": %s, "n": %s}\n' % (
                r["id"], *("null" if r[k] is None else r[k] for k in "ijbc"),
                *("null" if r[k] is None else '"%s"' % dtext(r[k]) for k in "de"),
                *("null" if r[k] is None else format(r[k], "f") for k in "xy"), "null" if r["n"] is None else r["n"]))
    exprs = [rand_expr(rng, xt, yt) for _ in range(case.args.exprs)]
    for r in data:
        r.update((k, v) for k, (_, v) in LITS.items())
    sel = "CAST(d AS STRING), " + ", ".join("CAST(%s AS STRING), TYPEOF(%s)" % (e, e) for e, _, _ in exprs)
    sql = [
        "CREATE TABLE t (id BIGINT, i INT, j INT, b BIGINT, c BIGINT, dt STRING, et STRING, x DECIMAL(%d, %d), "
        "y DECIMAL(%d, %d), n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');"
        % (p1, s1, p2, s2),
        "CREATE TABLE o (id BIGINT, dtext STRING, %s) WITH ('connector' = 'print');"
        % ", ".join("v%d STRING, t%d STRING" % (k, k) for k in range(len(exprs))),
        "INSERT INTO o SELECT id, %s FROM (SELECT *, CAST(dt AS DOUBLE) AS d, CAST(et AS DOUBLE) AS e FROM t);" % sel,
    ]
    case.write("job.sql", "\n".join(sql) + "\n")
    case.note = "(x %s, y %s; %s)" % (type_text(xt), type_text(yt), "; ".join(e for e, _, _ in exprs))
    r = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, rng.choice([1, 2]), batch=rng.choice([None, 1, 7])))
    if r.returncode != 0:
        return [diffrun.failed_run(r)]
    got, problems = {}, []
    for line in r.stdout.splitlines():
        line = re.sub(r"DECIMAL\((\d+), (\d+)\)", r"DECIMAL(\1,\2)", line.split("> ", 1)[-1])
        cells = line[3:-1].split(", ")
        if not line.startswith("+I[") or not line.endswith("]") or len(cells) != 2 * len(exprs) + 2:
            problems.append("unexpected line: " + line)
            continue
        got[int(cells[0])] = cells[1:]
    for row in data:
        cells = got.get(row["id"])
        if cells is None or row["d"] is None:
            continue
        # the text ROUND and TRUNCATE of d round: Double.toString's, or Java 17's longer one
        want = double_text(row["d"])
        why = None if cells[0] == want else double_text_problem(want, cells[0], case.counts)
        if why:
            problems.append("CAST(d AS STRING) with d %s: got %s, %s" % (dtext(row["d"]), cells[0], why))
        elif math.isfinite(row["d"]) and row["d"] != 0:
            row["d text"] = cells[0]
    for row in data:
        cells = got.get(row["id"])
        if cells is None:
            problems.append("row %d missing" % row["id"])
            continue
        for k, (sql_e, model, t) in enumerate(exprs):
            gv, gt = cells[2 * k + 1], cells[2 * k + 2]
            if gt.replace(" NOT NULL", "") != type_text(t).replace(", ", ","):
                problems.append("TYPEOF(%s): got %s, want %s" % (sql_e, gt, type_text(t)))
                continue
            want = model(row)
            case.counts["values"] += 1
            why = compare(t, want, gv, case.counts)
            if why:
                names = re.findall(r"\b[ijbcdexyn]\b", sql_e)
                args = {c: dtext(row[c]) if isinstance(row[c], float) else str(row[c]) for c in names}
                problems.append("%s with %s: got %s, %s" % (sql_e, args, gv, why))
    if rng.random() < case.args.fail_share:
        problems += zero_divisor(case, xt)
    if rng.random() < 0.3:
        problems += seeded_rand(case, rows)
    return problems


class JavaRandom:
    """java.util.Random: RAND(seed) and RAND_INTEGER(seed, bound) replay its sequence."""
    MULT, MASK = 0x5DEECE66D, (1 << 48) - 1

    def __init__(self, seed):
        self.seed = (seed ^ self.MULT) & self.MASK

    def next(self, bits):
        self.seed = (self.seed * self.MULT + 0xB) & self.MASK
        return low_bits(self.seed >> (48 - bits), 32)

    def next_double(self):
        return ((self.next(26) << 27) + self.next(27)) * 2.0 ** -53

    def next_int(self, bound):
        if bound & -bound == bound:
            return (bound * self.next(31)) >> 31
        while True:
            bits = self.next(31)
            val = bits % bound
            if low_bits(bits - val + bound - 1, 32) >= 0:  # Java's int overflow rejects the draw
                return val


def seeded_rand(case, rows):
    """RAND(seed) and RAND_INTEGER(seed, bound), one generator per call, row after row at parallelism 1."""
    rng = case.rng
    seeds = [rng.choice([0, 1, 42, -1, INT_MIN, INT_MAX, rng.randint(INT_MIN, INT_MAX)]) for _ in range(3)]
    bounds = [rng.choice([1, 2, 1024, 2 ** 30, 7, 10, 1000, 1431655766, INT_MAX, rng.randint(1, INT_MAX)])
              for _ in range(2)]
    sql = ("CREATE TABLE t (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');\n"
           "SELECT id, RAND(%d), RAND_INTEGER(%d, %d), RAND_INTEGER(%d, %d) FROM t;\n"
           % (seeds[0], seeds[1], bounds[0], seeds[2], bounds[1]))
    case.write("rand.sql", sql)
    r = case.run_weir(["run", "rand.sql", "-D", "parallelism.default=1"])
    case.counts["seeded RAND jobs"] += 1
    if r.returncode != 0:
        return [diffrun.failed_run(r)]
    gens = [JavaRandom(sd) for sd in seeds]
    problems = []
    lines = [ln.split("> ", 1)[-1] for ln in r.stdout.splitlines()]
    if len(lines) != rows:
        return ["seeded RAND: %d rows, want %d" % (len(lines), rows)]
    for k, line in enumerate(lines):
        want = [str(k), None, str(gens[1].next_int(bounds[0])), str(gens[2].next_int(bounds[1]))]
        d = gens[0].next_double()
        cells = line[3:-1].split(", ")
        if len(cells) != 4 or cells[0] != want[0] or cells[2:] != want[2:] or \
                double_text_problem(double_text(d), cells[1], case.counts):
            want[1] = double_text(d)
            problems.append("%s: got %s, want +I[%s]" % (sql.splitlines()[1], line, ", ".join(want)))
            break  # the sequences are off from here on
    return problems


def zero_divisor(case, xt):
    """An integer or DECIMAL / % MOD by zero fails the job, naming the division."""
    rng = case.rng
    a = rng.choice(["i", "b", "x"])
    op = rng.choice(["/", "%", "MOD"] if a != "x" else ["/", "%"])
    z = rng.choice(["(j - j)", "CAST(0 AS BIGINT) * c", "0"])
    e = "MOD(%s, %s)" % (a, z) if op == "MOD" else "%s %s %s" % (a, op, z)
    sql = ("CREATE TABLE t (id BIGINT, i INT, j INT, b BIGINT, c BIGINT, x DECIMAL(%d, %d)) WITH ("
           "'connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');\n"
           "CREATE TABLE o (v STRING) WITH ('connector' = 'print');\n"
           "INSERT INTO o SELECT CAST(%s AS STRING) FROM t WHERE i IS NOT NULL AND b IS NOT NULL AND "
           "x IS NOT NULL AND j IS NOT NULL AND c IS NOT NULL;\n" % (xt[1], xt[2], e))
    case.write("zero.sql", sql)
    r = case.run_weir(["run", "zero.sql"])
    case.counts["zero divisors"] += 1
    if r.returncode == 0:
        return ["%s did not fail the job: %s" % (e, r.stdout.strip()[-200:])]
    if "division by zero" not in r.stderr and "by zero" not in r.stderr:
        return ["%s failed without saying division by zero: %s" % (e, r.stderr.strip()[-500:])]
    return []


def main():
    def add_args(ap):
        ap.add_argument("--rows", type=int, default=int(os.environ.get("WEIR_MATHDIFF_ROWS", "300")))
        ap.add_argument("--exprs", type=int, default=int(os.environ.get("WEIR_MATHDIFF_EXPRS", "24")))
        ap.add_argument("--fail-share", type=float, default=0.5)
    return diffrun.main("math_diff", run_case, jobs_env="WEIR_MATHDIFF_JOBS", jobs=40, asan_jobs=16,
                        one_env="WEIR_MATHDIFF_JOB", out_env="WEIR_MATHDIFF_OUT", add_args=add_args)


if __name__ == "__main__":
    sys.exit(main())
