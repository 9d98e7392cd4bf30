#!/usr/bin/env python3
"""Randomized differential test of CAST and TRY_CAST between STRING, INT,
BIGINT, DOUBLE, DECIMAL(p, s) and BOOLEAN, of STRING to DATE, TIME and
TIMESTAMP, and of TIMESTAMP, TIMESTAMP_LTZ, STRING, DATE, TIME and BIGINT to
TIMESTAMP(p) / TIMESTAMP_LTZ(p) (tests/test_cast_diff.sh runs it)
against a model of the rules in docs/functions.md ("CAST and TRY_CAST"),
written from them and from the Java semantics they name, with no code of
weir's:
  STRING -> INT/BIGINT: trimmed of blanks, an optional sign, digits, and a
  fraction that is truncated (Flink's rule: '1.' and '.5' read, '.5' as 0;
  at least one digit: '.' and '-.' are not numbers); out of range, an
  exponent, a blank inside, '1_000', '0x1A' are invalid. "Trimmed" leaves
  control characters at the ends open (Flink trims spaces, Java's trim
  all up to U+0020): INT/BIGINT/BOOLEAN of such a text is not compared;
  STRING -> DOUBLE: Java's Double.parseDouble (trimmed of every character
  up to U+0020; NaN, Infinity, exponents, f/F/d/D suffixes, hexadecimal
  floating-point text with its binary exponent), rounded to nearest;
  STRING -> BOOLEAN: trimmed, any case, true/t/yes/y/1 and false/f/no/n/0;
  DOUBLE -> INT/BIGINT: Java's (int) / (long) casts (truncated, saturated,
  NaN is 0); BIGINT -> INT and DECIMAL -> INT/BIGINT: the low 32/64 bits of
  the truncated value; numbers -> DECIMAL(p, s): HALF_UP, NULL on overflow,
  a DOUBLE through its Double.toString text; numbers -> BOOLEAN: non-zero;
  BOOLEAN -> INT: 1/0; numbers -> DOUBLE: the nearest double;
  -> STRING: INT/BIGINT in decimal, DECIMAL plain with all its scale digits,
  BOOLEAN TRUE/FALSE, DOUBLE as Java's Double.toString (plain for
  1e-3 <= |x| < 1e7, else d.dddE[-]n; the shortest digits that read back,
  at least two when one would do (the closest two: 4.9E-324)). Java 17
  writes more digits than the shortest for some values (docs/sql.md:
  9.9999999999999984E16, 9.999999999999999E22 for 1e23; about 3% of the
  doubles drawn here), and for a few as many digits but not the closest
  (3.0817732144379813E25 where the shortest is ...814E25): a text of no
  fewer digits than the shortest, laid out as Java lays out those digits,
  that reads back to the same double is counted ("double text longer",
  "double text other digits"), not failed, and DOUBLE -> DECIMAL then
  rounds that text. DOUBLE -> DECIMAL of NaN or an infinity is not compared (the
  docs say nothing of it).
  STRING -> DATE: trimmed y-M-d (one to four year digits, one or two of
  month and day), what follows a blank left out; -> TIMESTAMP(3):
  yyyy-M[M]-d[d][ H[H]:m[m][:s[s][.f{1,9}]]], T for the blank and a Z after
  the time accepted, the fraction cut to milliseconds (blanks around it
  not compared: the docs say nothing); -> TIME(p): trimmed H:m[:s[.f]], the
  fraction cut to p digits; a day the calendar lacks or a field past its
  range is invalid. Each printed through CAST(... AS STRING) (yyyy-MM-dd,
  yyyy-MM-dd HH:mm:ss.SSS, HH:mm:ss[.SSS]); TRY_CASTs of one value to
  several types under CAST(... AS STRING) must each keep their own value.
  -> TIMESTAMP(p) / TIMESTAMP_LTZ(p), p = 0 to 3: the fraction of the second
  cut to p digits toward the past, 1969-12-31 23:59:59.5 included (it
  becomes 23:59:59), from a TIMESTAMP(3) (random milliseconds, years 1 to
  9999, many before 1970 and around it), a TIMESTAMP_LTZ(3), a text, a DATE,
  a TIME(3) (on 1970-01-01) and BIGINT epoch seconds (to TIMESTAMP_LTZ), in
  a session zone drawn for the case (offsets of 30 and 45 minutes, DST gaps
  at midnight); wall time and instant meet there as in java.time (a gap moves
  forward, an overlap takes the earlier instant), through Python's zoneinfo,
  compared in 1900-2100 only. Each family at two precisions a case, CAST or
  TRY_CAST, all in one SELECT (the cuts of one value at two precisions stay
  apart). A second job counts the rows per key of GROUP BY CAST(ts AS
  TIMESTAMP(p)) (or of the TIMESTAMP_LTZ, or its wall time), p mostly 0.
A CAST (not TRY_CAST) of an invalid text must fail the job, naming the text.
"""
import collections
import datetime
import decimal
import json
import math
import os
import re
import struct
import sys
import zoneinfo
from decimal import Decimal, ROUND_DOWN

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
from javanum import double_text, double_text_problem, fit, got_double, low_bits, same_double  # noqa: E402

CTX = decimal.Context(prec=400, rounding=ROUND_DOWN, Emax=999999, Emin=-999999)
decimal.setcontext(CTX)

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
LONG_MIN, LONG_MAX = -2 ** 63, 2 ** 63 - 1
NAN = float("nan")
INF = float("inf")


# ---- the model -------------------------------------------------------------

def java_trim(t):
    """Java's String.trim: every character up to U+0020 off both ends."""
    i, j = 0, len(t)
    while i < j and t[i] <= " ":
        i += 1
    while j > i and t[j - 1] <= " ":
        j -= 1
    return t[i:j]


INTEGRAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


def control_blank(t):
    """Whether t, trimmed of spaces, starts or ends with a control character:
    "trimmed" leaves open whether those go (Flink trims spaces only, Java's
    String.trim all of them), so INT/BIGINT/BOOLEAN of such a text is not
    compared."""
    t = t.strip(" ")
    return bool(t) and (t[0] < " " or t[-1] < " ")


def to_integral(t, lo, hi):
    """STRING -> INT/BIGINT: None where invalid. At least one digit ('.',
    '-.' are not numbers; Flink's reader takes them as 0)."""
    if control_blank(t):
        return "skip"
    t = t.strip(" ")
    if not INTEGRAL.fullmatch(t):
        return None
    whole = t.lstrip("+-").split(".")[0]
    v = int(whole or "0")
    if t[0] == "-":
        v = -v
    return v if lo <= v <= hi else None


DEC_FLOAT = re.compile(r"([+-]?)((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?")
HEX_FLOAT = re.compile(r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?")


def to_double(t):
    """STRING -> DOUBLE as Java's Double.parseDouble: None where it throws."""
    t = java_trim(t)
    m = re.fullmatch(r"([+-]?)(NaN|Infinity)", t)
    if m:
        v = NAN if m.group(2) == "NaN" else INF
        return -v if m.group(1) == "-" else v
    m = DEC_FLOAT.fullmatch(t)
    if m:
        body = m.group(2)
        mant, _, xs = body.replace("E", "e").partition("e")
        x = int(xs) if xs else 0
        if not Decimal(mant).is_zero() and x > 100000:
            v = INF  # Python refuses exponents past its own range
        elif Decimal(mant).is_zero() or x < -100000:
            v = 0.0
        else:
            v = float(mant + "e" + str(x))
        return -v if m.group(1) == "-" else v
    m = HEX_FLOAT.fullmatch(t)
    if m:
        body = m.group(2)
        mant, _, xs = body.replace("P", "p").partition("p")
        x = int(xs)
        if int(mant.replace(".", "") or "0", 16) == 0 or x < -100000:
            v = 0.0
        elif x > 100000:
            v = INF
        else:
            try:
                v = float.fromhex("0x" + mant + "p" + str(x))
            except OverflowError:
                v = INF
        return -v if m.group(1) == "-" else v
    return None


TRUE_WORDS = ("true", "t", "yes", "y", "1")
FALSE_WORDS = ("false", "f", "no", "n", "0")


def to_boolean(t):
    if control_blank(t):
        return "skip"
    t = t.strip(" ").lower()
    return True if t in TRUE_WORDS else False if t in FALSE_WORDS else None


def java_to_integral(d, lo, hi):
    """Java's (int) d / (long) d."""
    if math.isnan(d):
        return 0
    if math.isinf(d):
        return hi if d > 0 else lo
    v = int(d)  # truncates
    return max(lo, min(hi, v))








DATE_TEXT = re.compile(r"([0-9]{1,4})-([0-9]{1,2})-([0-9]{1,2})")
TS_TEXT = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
                     r"(?:([ T])([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]{1,9}))?)?(Z?))?")
TIME_TEXT = re.compile(r"([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]+))?)?")


def real_date(y, mo, d):
    """(y, mo, d) when it is a day of the calendar, else None; "skip" for
    year 0 (Python's calendar has none)."""
    if y == 0:
        return "skip"
    try:
        datetime.date(y, mo, d)
    except ValueError:
        return None
    return (y, mo, d)


def to_date(t):
    """STRING -> DATE as its text yyyy-MM-dd: trimmed y-M-d (one to four
    year digits, one or two of month and day), what follows a space left
    out."""
    if control_blank(t):
        return "skip"
    m = DATE_TEXT.fullmatch(t.strip(" ").split(" ")[0])
    if not m:
        return None
    d = real_date(*map(int, m.groups()))
    return d if d in (None, "skip") else "%04d-%02d-%02d" % d


def to_timestamp(t, p=3):
    """STRING -> TIMESTAMP(p) as its text yyyy-MM-dd HH:mm:ss.SSS:
    yyyy-M[M]-d[d][ H[H]:m[m][:s[s][.f{1,9}]]], a T for the blank and a Z
    after the time of day accepted too; the fraction cut to milliseconds,
    and below 3 to p digits (CAST to TIMESTAMP(p)). Blanks around it: the
    docs say nothing, so not compared."""
    if t != t.strip(" ") or control_blank(t):
        return "skip"
    m = TS_TEXT.fullmatch(t)
    if not m:
        return "skip" if TS_TEXT.fullmatch(t[:-1]) and t.endswith("Z") else None  # a Z after a date alone
    d = real_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if d in (None, "skip"):
        return d
    h, mi, se = (int(m.group(k) or 0) for k in (5, 6, 7))
    if h > 23 or mi > 59 or se > 59:
        return None
    ms = (m.group(8) or "")[:min(p, 3)].ljust(3, "0")
    return "%04d-%02d-%02d %02d:%02d:%02d.%s" % (d + (h, mi, se, ms))


def to_time(t, p):
    """STRING -> TIME(p) as its text HH:mm:ss[.f of p digits]: trimmed
    H:m[:s[.f]], the fraction cut to p digits (TIME keeps milliseconds).
    A fraction of more than 9 digits: the docs say nothing, not compared."""
    if control_blank(t):
        return "skip"
    m = TIME_TEXT.fullmatch(t.strip(" "))
    if not m:
        return None
    if m.group(4) and len(m.group(4)) > 9:
        return "skip"
    h, mi, se = (int(m.group(k) or 0) for k in (1, 2, 3))
    if h > 23 or mi > 59 or se > 59:
        return None
    txt = "%02d:%02d:%02d" % (h, mi, se)
    return txt + ("." + (m.group(4) or "").ljust(3, "0")[:p] if p else "")


# ---- TIMESTAMP(p) / TIMESTAMP_LTZ(p): the cut of the fraction ----------------
# A TIMESTAMP is a wall time, a TIMESTAMP_LTZ an instant, both held here as
# milliseconds since 1970-01-01 00:00 (of the wall clock / UTC). A CAST to
# precision p < 3 cuts the fraction of the second to p digits toward the past
# (1969-12-31 23:59:59.5 to TIMESTAMP(0) is 23:59:59): the milliseconds less
# their floor remainder modulo 10^(3 - p). Wall time and instant meet in the
# session zone as java.time has them (a wall time in a gap moves forward by
# the gap, one in an overlap is the earlier instant: Python's fold=0).

EPOCH = datetime.datetime(1970, 1, 1)
MS = datetime.timedelta(milliseconds=1)
EPOCH_DAY = EPOCH.toordinal()
ZONES = ["UTC", "Asia/Kolkata", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe", "America/St_Johns",
         "Europe/Dublin", "America/Sao_Paulo", "Pacific/Apia"]
WIDE_LO = (datetime.datetime(1, 1, 1) - EPOCH) // MS
WIDE_HI = (datetime.datetime(9999, 12, 31, 23, 59, 59, 999000) - EPOCH) // MS
# zone rules are compared from 1900 to 2100 only (as sql_time_diff draws them)
ZONE_LO = (datetime.datetime(1900, 1, 2) - EPOCH) // MS
ZONE_HI = (datetime.datetime(2099, 12, 30) - EPOCH) // MS


def cut(ms, p):
    return ms - ms % 10 ** (3 - p)


def wall_text(ms):
    """yyyy-MM-dd HH:mm:ss.SSS of a wall time."""
    days, rest = divmod(ms, 86400000)
    d = datetime.date.fromordinal(EPOCH_DAY + days)
    s, f = divmod(rest, 1000)
    return "%04d-%02d-%02d %02d:%02d:%02d.%03d" % (d.year, d.month, d.day, s // 3600, s // 60 % 60, s % 60, f)


def wall_of(z, ms):
    """The wall time in zone z of the instant ms."""
    s, f = divmod(ms, 1000)
    d = datetime.datetime.fromtimestamp(s, z).replace(tzinfo=None)
    return (d - EPOCH) // MS + f


def instant_of(z, ms):
    """The instant of wall time ms in zone z (java.time's choice in a gap or overlap)."""
    d = (EPOCH + datetime.timedelta(milliseconds=ms)).replace(tzinfo=z, fold=0)
    return (d.replace(tzinfo=None) - d.utcoffset() - EPOCH) // MS


def zoned(ms, f):
    """f() where ms lies in 1900-2100, where the zone's rules are compared,
    else "skip"."""
    return f() if ZONE_LO <= ms <= ZONE_HI else "skip"


def text_wall(t):
    """The wall time of a text yyyy-MM-dd HH:mm:ss.SSS."""
    d = datetime.datetime.strptime(t, "%Y-%m-%d %H:%M:%S.%f")
    return (d - EPOCH) // MS


def string_to_ltz(u, z, p):
    """STRING -> TIMESTAMP_LTZ(p), shown in zone z: the text's wall time as an
    instant of z, cut."""
    t = to_timestamp(u)
    if t in (None, "skip"):
        return t
    w = text_wall(t)
    return zoned(w, lambda: to_ltz_shown(z, instant_of(z, w), p))


def to_ltz_shown(z, instant, p):
    return wall_text(wall_of(z, cut(instant, p)))


def timestamp_outputs(rng, z):
    """The casts to TIMESTAMP(p) and TIMESTAMP_LTZ(p) from each type that
    reaches them, each family at two precisions of 0 to 3 drawn for the case
    (the TIMESTAMP(3) text cast is among outputs()), each printed through
    CAST(... AS STRING) (TIMESTAMP_LTZ in the session zone)."""
    def on(col, f):
        return lambda r: None if r[col] is None else f(r[col])

    fams = [
        # (name, source column, target, CAST or TRY_CAST, precisions, model of (value, p))
        ("ts", "ts", "TIMESTAMP", None, range(4), lambda v, p: wall_text(cut(v, p))),
        ("tl", "ts", "TIMESTAMP_LTZ", None, range(4),
         lambda v, p: zoned(v, lambda: to_ltz_shown(z, instant_of(z, v), p))),
        ("ls", "lz", "TIMESTAMP", None, range(4), lambda v, p: wall_text(cut(wall_of(z, v), p))),
        ("ll", "lz", "TIMESTAMP_LTZ", None, range(4), lambda v, p: to_ltz_shown(z, v, p)),
        ("us", "u", "TIMESTAMP", "TRY_CAST", range(3), lambda v, p: to_timestamp(v, p)),
        ("ul", "u", "TIMESTAMP_LTZ", "TRY_CAST", range(4), lambda v, p: string_to_ltz(v, z, p)),
        ("ds", "dd", "TIMESTAMP", None, range(4), lambda v, p: wall_text(cut(v * 86400000, p))),
        ("dl", "dd", "TIMESTAMP_LTZ", None, range(4),
         lambda v, p: zoned(v * 86400000, lambda: to_ltz_shown(z, instant_of(z, v * 86400000), p))),
        ("hs", "tm", "TIMESTAMP", None, range(4), lambda v, p: wall_text(cut(v, p))),
        ("bl", "es", "TIMESTAMP_LTZ", None, range(4), lambda v, p: to_ltz_shown(z, v * 1000, p)),
    ]
    outs = []
    for name, col, target, fn, ps, model in fams:
        fn = fn or rng.choice(["CAST", "TRY_CAST"])
        for p in sorted(rng.sample(list(ps), 2)):
            outs.append(("%s%d" % (name, p), "STRING", "CAST(%s(%s AS %s(%d)) AS STRING)" % (fn, col, target, p),
                         "text", on(col, lambda v, model=model, p=p: model(v, p))))
    return outs


def show(v):
    if v is None:
        return "null"
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)



# ---- random inputs -----------------------------------------------------------

def digits(rng, n):
    return "".join(rng.choice("0123456789") for _ in range(n))


EDGE_INTS = [INT_MAX, INT_MAX + 1, INT_MIN, INT_MIN - 1, LONG_MAX, LONG_MAX + 1, LONG_MIN, LONG_MIN - 1,
             10 ** 19, 10 ** 20 - 1, 18446744073709551615, 0, 1, -1, 99999999999]
BROKEN_INTS = ["", " ", "+", "-", ".", "-.", "+.", "1 2", "1_000", "0x1A", "1e5", "1E2", "1,5", "--1", "+-1",
               "1.2.3", "1.a", "abc", "1-", "١٢", "１２", "1.5d", "NaN", "- 1", "1.-5", "1 .5", "1. 5"]
BOOL_WORDS = ["true", "t", "yes", "y", "1", "false", "f", "no", "n", "0", "tru", "yes!", "2", "on", "off",
              "10", "t rue", "nope", "", "+1", "1.0", "ye", "truee"]
DOUBLE_SHAPES = ["NaN", "Infinity", "-Infinity", "+Infinity", "+NaN", "-NaN", "nan", "inf", "Inf", "infinity",
                 "INFINITY", "NaNd", "Infinityf", "1e", "1e+", ".e1", "e5", ".", "1.5d", "1.5F", "1d5", "2f",
                 "1.d", ".5D", "0x1.8p1", "0X.8P-2", "0x1A", "0x1p", "0x1p3d", "0xp1", "0x.p1", "0x1.p-1074",
                 "0x1p-1075", "0x1.000001p-1075", "0x1.fffffffffffff8p1023", "0x1.fffffffffffff7p1023",
                 "-0x0p0", "0x10", "4.9e-324", "2.4703282292062328e-324", "2.4703282292062327e-324",
                 "1.7976931348623158e308", "1.7976931348623159e308", "1e400", "-1e-400", "1e-99999999999",
                 "1e99999999999", "0e99999999999", "1_0", "1 0", "1.0 d", "1e 5", "٣", "+.5", "-.5e-3",
                 "00001.0000", "1.7976931348623157E308", "2.2250738585072011e-308", "9007199254740993",
                 "0.1", "1E23", "1e22", "8.98846567431158e307"]


def rand_int_text(rng):
    r = rng.random()
    if r < 0.12:
        t = rng.choice(BROKEN_INTS)
    elif r < 0.4:
        v = rng.choice(EDGE_INTS) + rng.choice([0, 0, 0, 1, -1])
        t = str(abs(v))
        t = ("-" if v < 0 else rng.choice(["", "", "+"])) + "0" * rng.choice([0, 0, 0, 1, 5, 20]) + t
    else:
        n = rng.choice([1, 1, 2, 3, 5, 9, 10, 11, 18, 19, 19, 20, 25])
        t = rng.choice(["", "", "-", "+"]) + "0" * rng.choice([0, 0, 0, 2]) + digits(rng, n)
    if rng.random() < 0.25:
        t += rng.choice([".", ".5", ".999", ".0", "." + digits(rng, rng.randint(1, 30))])
    elif rng.random() < 0.05:
        t = rng.choice(["", "-", "+"]) + "." + digits(rng, rng.randint(0, 3))
    if rng.random() < 0.3:
        t = " " * rng.randint(0, 3) + t + " " * rng.randint(0, 3)
    return t


def rand_double_text(rng):
    r = rng.random()
    if r < 0.2:
        t = rng.choice(DOUBLE_SHAPES)
    elif r < 0.3:
        t = repr(rand_double(rng))
        if rng.random() < 0.3:
            t = t.replace("e", "E")
    else:
        t = rng.choice(["", "", "-", "+"])
        n = rng.choice([0, 1, 1, 2, 5, 10, 16, 17, 18, 25, 40, 400])
        t += "0" * rng.choice([0, 0, 1]) + digits(rng, n)
        if rng.random() < 0.6 or n == 0:
            t += "." + digits(rng, rng.choice([0, 1, 3, 10, 17, 30, 300] if n else [1, 3, 17, 30]))
        if rng.random() < 0.5:
            x = rng.choice([rng.randint(-30, 30), rng.randint(-340, 330), rng.choice([308, 309, -307, -308, -323,
                                                                                       -324, -325, 2 ** 31])])
            t += rng.choice("eE") + ("-" if x < 0 else rng.choice(["", "+"])) + "0" * rng.choice([0, 0, 3]) + str(abs(x))
        if rng.random() < 0.15:
            t += rng.choice("fFdD")
    if rng.random() < 0.25:
        t = rng.choice(["", " ", "  ", "\t", "\n ", "\x01"]) + t + rng.choice(["", " ", "\t", "\r\n", "\x1f"])
    return t


def rand_bool_text(rng):
    w = rng.choice(BOOL_WORDS)
    w = "".join(c.upper() if rng.random() < 0.3 else c for c in w)
    if rng.random() < 0.3:
        w = " " * rng.randint(0, 2) + w + " " * rng.randint(0, 2)
    return w


def rand_text(rng):
    r = rng.random()
    return rand_int_text(rng) if r < 0.45 else rand_double_text(rng) if r < 0.85 else rand_bool_text(rng)


def rand_when_text(rng):
    """A text for DATE / TIME / TIMESTAMP: mostly well formed, with days
    past the month's end, hours, minutes and seconds past their range,
    fractions of 0 to 10 digits, T and Z, blanks and text after a blank."""
    r = rng.random()
    if r < 0.35:  # a time of day
        parts = [str(rng.choice([rng.randint(0, 23), rng.randint(0, 25)])).zfill(rng.choice([1, 2, 2])),
                 str(rng.choice([rng.randint(0, 59)] * 4 + [60, 61])).zfill(rng.choice([1, 2, 2]))]
        if rng.random() < 0.7:
            parts.append(str(rng.choice([rng.randint(0, 59)] * 4 + [60])).zfill(rng.choice([1, 2, 2])))
        t = ":".join(parts)
        if len(parts) == 3 and rng.random() < 0.6:
            t += "." + digits(rng, rng.choice([0, 1, 2, 3, 4, 6, 9, 10]))
    else:
        y = rng.choice([rng.randint(1900, 2100), rng.randint(1, 9999), 2000, 1900, 2024, 2023])
        mo = rng.choice([rng.randint(1, 12)] * 6 + [2, 2, 0, 13])
        d = rng.choice([rng.randint(1, 28)] * 6 + [29, 30, 31, 31, 0, 32])
        t = "%s-%s-%s" % (str(y).zfill(rng.choice([4, 4, 4, 1, 5])), str(mo).zfill(rng.choice([1, 2, 2])),
                          str(d).zfill(rng.choice([1, 2, 2])))
        if rng.random() < 0.6:
            t += rng.choice([" ", " ", "T"]) + rand_when_text_time(rng)
            if rng.random() < 0.1:
                t += "Z"
        elif rng.random() < 0.1:
            t += rng.choice(["Z", " x", "  ", "/", "-1"])
    if rng.random() < 0.1:
        t = rng.choice(["x", "2020/01/02", "12:34:56:78", "2020-01-02 12", "1:2:3.", "-1:00", "", "T12:00",
                        "2020-1-2 3:4:5.", "+2020-01-01", "12.5:00"])
    if rng.random() < 0.15:
        t = " " * rng.randint(0, 2) + t + " " * rng.randint(0, 2)
    return t


def rand_when_text_time(rng):
    t = "%s:%s" % (str(rng.choice([rng.randint(0, 23), 24])).zfill(rng.choice([1, 2, 2])),
                   str(rng.choice([rng.randint(0, 59), 60])).zfill(rng.choice([1, 2, 2])))
    if rng.random() < 0.7:
        t += ":" + str(rng.choice([rng.randint(0, 59), 60])).zfill(rng.choice([1, 2, 2]))
        if rng.random() < 0.6:
            t += "." + digits(rng, rng.choice([0, 1, 2, 3, 4, 6, 9, 10]))
    return t


def rand_double(rng):
    r = rng.random()
    if r < 0.3:
        while True:
            d = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if not math.isnan(d):
                return d
    if r < 0.55:  # short decimals at every scale, the plain/E edges included
        n = rng.randint(1, 17)
        e = rng.choice([rng.randint(-12, 12), rng.randint(-3, 7), rng.randint(-325, 308)])
        return float(("-" if rng.random() < 0.3 else "") + digits(rng, n) + "e" + str(e))
    if r < 0.7:
        v = rng.choice(EDGE_INTS + [2 ** 53, 2 ** 53 + 1, 2 ** 62, 10 ** 7, 10 ** 7 - 1]) + rng.randint(-2, 2)
        return float(v) + rng.choice([0, 0, 0.5, -0.5, 0.25, 0.999])
    if r < 0.85:
        return rng.uniform(-1e10, 1e10) * rng.choice([1, 1e-12, 1e-3, 1e6])
    return rng.choice([0.0, -0.0, NAN, INF, -INF, 5e-324, -5e-324, 1.7976931348623157e308, 2.2250738585072014e-308,
                       1e23, 9.999999999999999e22, 1e-3, 9.999999999999998e-4, 1e7, 9999999.999999998, 0.1, 1e16,
                       1e17, 123456789012345680.0, 0.5, -2147483648.9, 2147483647.9, 9.223372036854776e18])


def dtext(d):
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "Infinity" if d > 0 else "-Infinity"
    return repr(d)


def rand_dec(rng, p, s):
    nd = rng.randint(1, p)
    u = rng.randint(0, 10 ** nd - 1)
    return Decimal(-u if rng.random() < 0.5 else u).scaleb(-s)


def rand_long(rng):
    r = rng.random()
    if r < 0.3:
        return low_bits(rng.getrandbits(64), 64)
    if r < 0.6:
        return low_bits(rng.choice([INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, 2 ** 32, 2 ** 53 + 1, 10 ** 18]) +
                        rng.choice([0, 1, -1, 12345]) * rng.choice([1, -1]), 64)
    return rng.randint(-10 ** rng.randint(1, 12), 10 ** rng.randint(1, 12))


def rand_ms(rng, bases, wide):
    """Milliseconds of a TIMESTAMP or TIMESTAMP_LTZ: a third in the seconds
    of bases (so that a GROUP BY of the cut meets several rows per group),
    near 1970, on and around the edges of tenths and hundredths, anywhere in
    1900-2100, and (wide) anywhere in years 1 to 9999."""
    r = rng.random()
    lo, hi = (WIDE_LO, WIDE_HI) if wide and rng.random() < 0.15 else (ZONE_LO, ZONE_HI)
    if r < 0.35:
        return rng.choice(bases) * 1000 + rng.randint(0, 999)
    if r < 0.45:
        return rng.randint(-3000, 3000)
    if r < 0.65:
        return rng.randint(lo // 1000, hi // 1000 - 1) * 1000 + rng.choice([0, 1, 9, 10, 11, 99, 100, 101, 500, 990, 999])
    return rng.randint(lo, hi)


def rand_bases(rng):
    """Three seconds that many rows share: one before 1970, one after, one at it."""
    return [rng.randint(ZONE_LO // 1000, -1), rng.randint(0, ZONE_HI // 1000), rng.randint(-2, 1)]


def rand_day(rng):
    lo, hi = (WIDE_LO, WIDE_HI) if rng.random() < 0.15 else (ZONE_LO, ZONE_HI)
    return rng.randint(lo // 86400000, hi // 86400000)


def rand_time_of_day(rng):
    if rng.random() < 0.4:
        return rng.randint(0, 86399) * 1000 + rng.choice([0, 1, 9, 10, 99, 100, 500, 999])
    return rng.randint(0, 86399999)


def zone_of(name):
    return datetime.timezone.utc if name == "UTC" else zoneinfo.ZoneInfo(name)


# ---- one case ------------------------------------------------------------------

# (column, its type, SQL, its kind for the comparison, the model of it from a row)
def outputs(p2, s2):
    def dec_of_double(r):
        d = r["d"]
        if d is None:
            return None
        if math.isnan(d) or math.isinf(d):
            return "skip"  # not documented: no comparison
        return fit(Decimal(r.get("d text") or double_text(d)), p2, s2)

    return [
        ("ti", "INT", "TRY_CAST(t AS INT)", "int", lambda r: None if r["t"] is None else to_integral(r["t"], INT_MIN, INT_MAX)),
        ("tb", "BIGINT", "TRY_CAST(t AS BIGINT)", "int",
         lambda r: None if r["t"] is None else to_integral(r["t"], LONG_MIN, LONG_MAX)),
        ("td", "DOUBLE", "TRY_CAST(t AS DOUBLE)", "double", lambda r: None if r["t"] is None else to_double(r["t"])),
        # under one function of one result type: each TRY_CAST its own value
        ("tis", "STRING", "CAST(TRY_CAST(t AS INT) AS STRING)", "text",
         lambda r: None if r["t"] is None else to_integral(r["t"], INT_MIN, INT_MAX)),
        ("tbs", "STRING", "CAST(TRY_CAST(t AS BIGINT) AS STRING)", "text",
         lambda r: None if r["t"] is None else to_integral(r["t"], LONG_MIN, LONG_MAX)),
        ("tzs", "STRING", "CAST(TRY_CAST(t AS BOOLEAN) AS STRING)", "text",
         lambda r: None if r["t"] is None else ({True: "TRUE", False: "FALSE"}.get(to_boolean(r["t"]),
                                                                                 to_boolean(r["t"])))),
        ("ud", "STRING", "CAST(TRY_CAST(u AS DATE) AS STRING)", "text",
         lambda r: None if r["u"] is None else to_date(r["u"])),
        ("ut", "STRING", "CAST(TRY_CAST(u AS TIMESTAMP(3)) AS STRING)", "text",
         lambda r: None if r["u"] is None else to_timestamp(r["u"])),
        ("uh0", "STRING", "CAST(TRY_CAST(u AS TIME(0)) AS STRING)", "text",
         lambda r: None if r["u"] is None else to_time(r["u"], 0)),
        ("uh3", "STRING", "CAST(TRY_CAST(u AS TIME(3)) AS STRING)", "text",
         lambda r: None if r["u"] is None else to_time(r["u"], 3)),
        ("tz", "BOOLEAN", "TRY_CAST(t AS BOOLEAN)", "text", lambda r: None if r["t"] is None else to_boolean(r["t"])),
        ("di", "INT", "CAST(d AS INT)", "int", lambda r: None if r["d"] is None else java_to_integral(r["d"], INT_MIN, INT_MAX)),
        ("db", "BIGINT", "CAST(d AS BIGINT)", "int",
         lambda r: None if r["d"] is None else java_to_integral(r["d"], LONG_MIN, LONG_MAX)),
        ("ds", "STRING", "CAST(d AS STRING)", "dtext", lambda r: None if r["d"] is None else double_text(r["d"])),
        ("dz", "BOOLEAN", "CAST(d AS BOOLEAN)", "text", lambda r: None if r["d"] is None else r["d"] != 0),
        ("dx", "DEC", "TRY_CAST(d AS DECIMAL(%d, %d))" % (p2, s2), "dec", dec_of_double),
        ("bi", "INT", "CAST(b AS INT)", "int", lambda r: None if r["b"] is None else low_bits(r["b"], 32)),
        ("bd", "DOUBLE", "CAST(b AS DOUBLE)", "double", lambda r: None if r["b"] is None else float(r["b"])),
        ("bs", "STRING", "CAST(b AS STRING)", "text", lambda r: None if r["b"] is None else str(r["b"])),
        ("bx", "DEC", "CAST(b AS DECIMAL(%d, %d))" % (p2, s2), "dec",
         lambda r: None if r["b"] is None else fit(Decimal(r["b"]), p2, s2)),
        ("bz", "BOOLEAN", "CAST(b AS BOOLEAN)", "text", lambda r: None if r["b"] is None else r["b"] != 0),
        ("ist", "STRING", "CAST(i AS STRING)", "text", lambda r: None if r["i"] is None else str(r["i"])),
        ("idb", "DOUBLE", "CAST(i AS DOUBLE)", "double", lambda r: None if r["i"] is None else float(r["i"])),
        ("ix", "DEC", "CAST(i AS DECIMAL(%d, %d))" % (p2, s2), "dec",
         lambda r: None if r["i"] is None else fit(Decimal(r["i"]), p2, s2)),
        ("xi", "INT", "CAST(x AS INT)", "int", lambda r: None if r["x"] is None else low_bits(int(r["x"]), 32)),
        ("xb", "BIGINT", "CAST(x AS BIGINT)", "int", lambda r: None if r["x"] is None else low_bits(int(r["x"]), 64)),
        ("xd", "DOUBLE", "CAST(x AS DOUBLE)", "double", lambda r: None if r["x"] is None else float(r["x"])),
        ("xs", "STRING", "CAST(x AS STRING)", "text", lambda r: None if r["x"] is None else format(r["x"], "f")),
        ("xz", "BOOLEAN", "CAST(x AS BOOLEAN)", "text", lambda r: None if r["x"] is None else r["x"] != 0),
        ("zs", "STRING", "CAST(z AS STRING)", "text", lambda r: None if r["z"] is None else ("TRUE" if r["z"] else "FALSE")),
        ("zi", "INT", "CAST(z AS INT)", "int", lambda r: None if r["z"] is None else int(r["z"])),
        ("zd", "DOUBLE", "CAST(z AS DOUBLE)", "double", lambda r: None if r["z"] is None else float(r["z"])),
    ]


def compare(kind, want, got, counts):
    """None when got (the printed text) is what the model wants, else a reason."""
    if want == "skip":
        return None
    if kind == "double":
        g = got_double(got)
        return None if same_double(want, g) else "want %s" % (show(want) if want is None else double_text(want))
    if kind == "dtext":
        if got == show(want):
            return None
        if want is None:
            return "want null"
        return double_text_problem(want, got, counts)
    if kind == "dec" and want is not None and got != "null":
        try:
            g = Decimal(got)
        except decimal.InvalidOperation:
            return "want %s" % format(want, "f")
        return None if g.as_tuple() == want.as_tuple() else "want %s" % format(want, "f")
    w = show(want)
    return None if got == w else "want %s" % w


TABLE = ("CREATE TABLE t (id BIGINT, t STRING, u STRING, dt STRING, b BIGINT, i INT, x DECIMAL(%d, %d), z BOOLEAN, "
         "ts TIMESTAMP(3), lz TIMESTAMP_LTZ(3), dd DATE, tm TIME(3), es BIGINT) "
         "WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');")


def when_json(row, col):
    """The JSON text of a TIMESTAMP (ts), TIMESTAMP_LTZ (lz, a UTC instant
    with a Z), DATE (dd) or TIME(3) (tm) value of the row."""
    v = row[col]
    if v is None:
        return None
    if col == "dd":
        return wall_text(v * 86400000)[:10]
    if col == "tm":
        return wall_text(v)[11:]
    return wall_text(v) + ("Z" if col == "lz" else "")


def run_case(case):
    rng = case.rng
    rows = case.args.rows
    p1 = rng.randint(1, 38)
    s1 = rng.randint(0, p1)
    p2 = rng.randint(1, 38)
    s2 = rng.randint(0, p2)
    zone_name = rng.choice([n for n in ZONES if n == "UTC" or os.path.isfile("/usr/share/zoneinfo/" + n)])
    zone = zone_of(zone_name)
    bases = rand_bases(rng)
    data = []
    for i in range(rows):
        def maybe(v):
            return None if rng.random() < 0.04 else v
        data.append({"id": i, "t": maybe(rand_text(rng)), "u": maybe(rand_when_text(rng)), "d": maybe(rand_double(rng)), "b": maybe(rand_long(rng)),
                     "i": maybe(low_bits(rand_long(rng), 32) if rng.random() < 0.5 else rng.randint(-999, 999)),
                     "x": maybe(rand_dec(rng, p1, s1)), "z": maybe(rng.random() < 0.5),
                     "ts": maybe(rand_ms(rng, bases, True)), "lz": maybe(rand_ms(rng, bases, False)),
                     "dd": maybe(rand_day(rng)), "tm": maybe(rand_time_of_day(rng)),
                     "es": maybe(rng.randint(ZONE_LO // 1000, ZONE_HI // 1000))})
    with open(case.path("in.json"), "w", encoding="utf-8") as f:
        for r in data:
            f.write('{"id": %d, "t": %s, "u": %s, "dt": %s, "b": %s, "i": %s, "x": %s, "z": %s, '
                    '"ts": %s, "lz": %s, "dd": %s, "tm": %s, "es": %s}\n' % (
                        r["id"], json.dumps(r["t"]), json.dumps(r["u"]),
                        "null" if r["d"] is None else json.dumps(dtext(r["d"])),
                        "null" if r["b"] is None else r["b"], "null" if r["i"] is None else r["i"],
                        "null" if r["x"] is None else format(r["x"], "f"), show(r["z"]),
                        *(json.dumps(when_json(r, c)) for c in ("ts", "lz", "dd", "tm")),
                        "null" if r["es"] is None else r["es"]))
    cut_outs = timestamp_outputs(rng, zone)
    cut_cols = {o[0] for o in cut_outs}
    outs = outputs(p2, s2) + cut_outs
    sql = [
        "SET 'table.local-time-zone' = '%s';" % zone_name,
        TABLE % (p1, s1),
        "CREATE TABLE o (id BIGINT, %s) WITH ('connector' = 'print');"
        % ", ".join("%s %s" % (c, "DECIMAL(%d, %d)" % (p2, s2) if ty == "DEC" else ty) for c, ty, _, _, _ in outs),
        "INSERT INTO o SELECT id, %s FROM (SELECT *, CAST(dt AS DOUBLE) AS d FROM t);"
        % ", ".join(e for _, _, e, _, _ in outs),
    ]
    case.write("job.sql", "\n".join(sql) + "\n")
    case.note = "(x DECIMAL(%d, %d), to DECIMAL(%d, %d), zone %s)" % (p1, s1, p2, s2, zone_name)
    r = case.run_weir(["run", "job.sql"] + diffrun.engine_options(case, rng.choice([1, 2])))
    if r.returncode != 0:
        return [diffrun.failed_run(r)]
    got = {}
    problems = []
    for line in r.stdout.splitlines():
        line = line.split("> ", 1)[-1]
        if not line.startswith("+I[") or not line.endswith("]"):
            problems.append("unexpected line: " + line)
            continue
        cells = line[3:-1].split(", ")
        if len(cells) != len(outs) + 1:
            problems.append("unexpected row: " + line)
            continue
        got[int(cells[0])] = cells[1:]
    for row in data:
        cells = got.get(row["id"])
        if cells is None:
            problems.append("row %d missing" % row["id"])
            continue
        for (col, _, expr, kind, model), g in zip(outs, cells):
            if col == "dx" and isinstance(row["d"], float) and math.isfinite(row["d"]):
                # a DOUBLE -> DECIMAL rounds the text CAST(d AS STRING) gave (checked above)
                row["d text"] = cells[[o[0] for o in outs].index("ds")]
            want = model(row)
            if col in cut_cols:
                case.counts["cut %s" % ("not compared" if want == "skip" else "compared")] += 1
            why = compare(kind, want, g, case.counts)
            if why:
                src = {"t": row["t"], "u": row["u"], "d": None if row["d"] is None else dtext(row["d"]), "b": row["b"],
                       "i": row["i"], "x": row["x"], "z": row["z"], "ts": when_json(row, "ts"),
                       "lz": when_json(row, "lz"), "dd": when_json(row, "dd"), "tm": when_json(row, "tm"),
                       "es": row["es"]}[re.search(r"\((\w+) AS", expr).group(1)]
                problems.append("%s of %r: got %s, %s" % (expr, src if not isinstance(src, Decimal) else str(src),
                                                          g, why))
        t = row["t"]
        if t is not None:
            for what, v in (("int", to_integral(t, INT_MIN, INT_MAX)), ("double", to_double(t)),
                            ("boolean", to_boolean(t))):
                case.counts["text %s %s" % (what, "invalid" if v is None else "not compared" if v == "skip"
                                            else "valid")] += 1
        if row["u"] is not None:
            for what, v in (("date", to_date(row["u"])), ("timestamp", to_timestamp(row["u"])),
                            ("time", to_time(row["u"], 3))):
                case.counts["text %s %s" % (what, "invalid" if v is None else "not compared" if v == "skip"
                                            else "valid")] += 1
    problems += cast_failures(case, data)
    problems += group_counts(case, data, sql[1], zone_name, zone)
    return problems


def group_counts(case, data, table, zone_name, zone):
    """GROUP BY a cast to a lower precision: the rows of each second (tenth,
    hundredth) of a TIMESTAMP or a TIMESTAMP_LTZ in one group, counted."""
    rng = case.rng
    p = rng.choice([0, 0, 0, 1, 2])
    col, target, model = rng.choices([
        ("ts", "TIMESTAMP", lambda v: wall_text(cut(v, p))),
        ("lz", "TIMESTAMP_LTZ", lambda v: to_ltz_shown(zone, v, p)),
        ("lz", "TIMESTAMP", lambda v: wall_text(cut(wall_of(zone, v), p))),
    ], weights=[2, 1, 1])[0]
    key = "CAST(%s AS %s(%d))" % (col, target, p)
    case.write("group.sql", "SET 'table.local-time-zone' = '%s';\n%s\n"
               "CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'print');\n"
               "INSERT INTO o SELECT CAST(k AS STRING), n FROM (SELECT %s AS k, COUNT(*) AS n FROM t GROUP BY %s);\n"
               % (zone_name, table, key, key))
    r = case.run_weir(["run", "group.sql"] + diffrun.engine_options(case, rng.choice([1, 2])))
    if r.returncode != 0:
        return ["GROUP BY %s: %s" % (key, diffrun.failed_run(r))]
    want = collections.Counter("null" if row[col] is None else model(row[col]) for row in data)
    got, problems = {}, []
    for line in r.stdout.splitlines():
        line = line.split("> ", 1)[-1]
        m = re.fullmatch(r"([+-][IUD])\[(.*), (-?[0-9]+)\]", line)
        if not m:
            problems.append("GROUP BY %s: unexpected line: %s" % (key, line))
        elif m.group(1) in ("+I", "+U"):
            got[m.group(2)] = int(m.group(3))
        else:
            got.pop(m.group(2), None)
    case.counts["GROUP BY cut groups"] += len(want)
    case.counts["GROUP BY cut groups of several rows"] += sum(1 for n in want.values() if n > 1)
    return problems + diffrun.multiset_problems("GROUP BY %s (key, count)" % key, want.items(), got.items())


def cast_failures(case, data):
    """CAST (not TRY_CAST) of an invalid text fails the job and names it."""
    rng = case.rng
    target = rng.choice(["INT", "BIGINT", "DOUBLE", "BOOLEAN"])
    model = {"INT": lambda t: to_integral(t, INT_MIN, INT_MAX), "BIGINT": lambda t: to_integral(t, LONG_MIN, LONG_MAX),
             "DOUBLE": to_double, "BOOLEAN": to_boolean}[target]
    bad = [r for r in data if r["t"] is not None and r["t"].strip(" ") and model(r["t"]) is None
           and "\\" not in r["t"] and all(" " <= c < "\x7f" for c in r["t"])]
    if not bad:
        return []
    row = rng.choice(bad)
    sql = ("CREATE TABLE t (id BIGINT, t STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', "
           "'format' = 'json');\nCREATE TABLE o (v %s) WITH ('connector' = 'print');\n"
           "INSERT INTO o SELECT CAST(t AS %s) FROM t WHERE id = %d;\n" % (target, target, row["id"]))
    case.write("fail.sql", sql)
    r = case.run_weir(["run", "fail.sql"])
    case.counts["CAST failures checked"] += 1
    if r.returncode == 0:
        return ["CAST(%r AS %s) did not fail the job: %s" % (row["t"], target, r.stdout.strip()[-200:])]
    if row["t"][:60] not in r.stderr:
        return ["CAST(%r AS %s) failed without naming the text: %s" % (row["t"], target, r.stderr.strip()[-500:])]
    return []


def main():
    return diffrun.main("cast_diff", run_case, jobs_env="WEIR_CASTDIFF_JOBS", jobs=12, asan_jobs=4,
                        one_env="WEIR_CASTDIFF_JOB", out_env="WEIR_CASTDIFF_OUT",
                        add_args=lambda ap: ap.add_argument("--rows", type=int,
                                                            default=int(os.environ.get("WEIR_CASTDIFF_ROWS", "500"))))


if __name__ == "__main__":
    sys.exit(main())
