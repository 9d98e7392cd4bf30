#!/usr/bin/env python3
"""Randomized differential test of the csv, json and debezium-json formats: read, bad input, write.

Each case draws a random schema (an INT id, then INT, BIGINT, DOUBLE,
DECIMAL(p, s), BOOLEAN, STRING, BYTES, DATE, TIME(p), TIMESTAMP(p),
TIMESTAMP_LTZ(p) columns and, for json, ARRAY<INT>, ROW<a INT, b STRING> and
MAP<STRING, INT>) and random rows, and writes them into one or more files in
random legal spellings:

  csv:  quoted or not, doubled quotes, delimiters and line breaks inside
        quotes, spaces around numbers, the null literal, comments, a header,
        \\r\\n line ends, a byte-order mark, a random delimiter;
  json: random member order and whitespace, escapes (\\uXXXX, surrogate
        pairs), missing members (NULL) and extra members (skipped, nested
        ones too), numbers as 1e2 / 1.0 / -0 where the type takes them,
        numbers, booleans and timestamps written as strings, numbers past
        a double's range, numbers, objects and arrays into STRING (their
        text), json.fail-on-missing-field;
  debezium-json: each row as the json one, the "after" image of a create or
        snapshot read in a random envelope (member order, "before" null or
        left out, other members; schema-include).

A `filesystem` source reads them at parallelism 1 or 2 (sometimes in
`source.split-size` byte ranges) into a print sink, and into a csv or json
`filesystem` sink (debezium-json for a debezium-json source; random
csv.quote-character, json ISO-8601 timestamps, ignore-null-fields). The
printed rows must be the oracle's values as the print
connector writes them (Java's Row.toString); the sink's files, parsed with
Python's csv and json modules, must hold the same values as the docs say
they are written; and those files read back by weir must print the same rows
again (a round trip).

Some cases damage records (a bad number, a value out of range, an
unterminated quote or string, a wrong field count, invalid UTF-8 (in quoted
fields too), raw control characters and lone surrogates in JSON strings, a field
missing under json.fail-on-missing-field, also in a nested ROW; for
debezium-json a bad op, a create without "after", or any of the json damage
inside "after") and read
them under a policy: fail (the error must be FILE:LINE:COL: error: ...
(offset N) with the position of the error exactly), skip (the count on
standard error, and the other rows exact), dead-letter (each JSON line's
file, line, column, offset and raw record exact).

The oracle shares no code with weir: the values are Python's, the texts are
written here from docs/connectors.md's rules and Java's toString forms.

Usage: format_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_FMTDIFF_JOBS (cases), WEIR_FMTDIFF_JOB (one case).
"""

import base64
import collections
import csv
import datetime
import decimal
import io
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
from javanum import double_text  # noqa: E402  (Java's Double.toString)

D = decimal.Decimal
decimal.getcontext().prec = 200  # exact for every DECIMAL(38, s) and double here
csv.field_size_limit(1 << 30)  # a field may be longer than the read buffer (1 MiB)
EPOCH = datetime.datetime(1970, 1, 1)

# ---- types and values -------------------------------------------------------


def gen_type(rng, fmt):
    kinds = ["INT", "BIGINT", "DOUBLE", "DECIMAL", "BOOLEAN", "STRING", "BYTES", "DATE", "TIME",
             "TIMESTAMP", "TIMESTAMP_LTZ"]
    if fmt != "csv":
        kinds += ["ARRAY", "ROW", "MAP"]
    k = rng.choice(kinds)
    if k == "DECIMAL":
        p = rng.choice([rng.randint(1, 18), rng.randint(19, 38)])  # 64 and 128 bits
        return ("DECIMAL", p, rng.randint(0, min(p, rng.choice([8, 20]))))
    if k in ("TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return (k, rng.randint(0, 3))
    return (k,)


def sql_type(t):
    if t[0] == "DECIMAL":
        return "DECIMAL(%d, %d)" % (t[1], t[2])
    if t[0] in ("TIME", "TIMESTAMP"):
        return "%s(%d)" % t
    if t[0] == "TIMESTAMP_LTZ":
        return "TIMESTAMP_LTZ(%d)" % t[1]
    if t[0] == "ARRAY":
        return "ARRAY<INT>"
    if t[0] == "ROW":
        return "ROW<a INT, b STRING>"
    if t[0] == "MAP":
        return "MAP<STRING, INT>"
    return t[0]


ALPHABET = "abcxyz 019,;|\"'\t#\\/\né日😀\u2028"


def gen_str(rng, newlines=True):
    s = "".join(rng.choice(ALPHABET) for _ in range(rng.choice([0, 1, 2, 5, 9])))
    if not newlines:
        s = s.replace("\n", "n")
    if rng.random() < 0.1:
        s = rng.choice([" 12 ", "null", "NULL", "true", "#x", "\"", "a\r\nb" if newlines else "ab",
                        "1.50", "-0", "1e2", "false", '{"a": [1,2 ], "b":{}}', "[]", "[ null]"])
    return s


def gen_double(rng):
    r = rng.random()
    if r < 0.05:
        return rng.choice([float("nan"), float("inf"), float("-inf"), -0.0, 0.0])
    digits = rng.randint(1, 6)
    m = rng.randint(0, 10 ** digits - 1) * rng.choice([1, -1])
    # Java 17's Double.toString is not the shortest text above 2^63 (weir
    # writes what Java writes); the model knows the shortest one only
    e = rng.choice([rng.randint(-5, 3), rng.randint(-30, 12)])
    return float(D(m).scaleb(e))


def gen_value(rng, t, newlines=True):
    if rng.random() < 0.12:
        return None
    k = t[0]
    if k == "INT":
        return rng.choice([rng.randint(-2 ** 31, 2 ** 31 - 1), rng.randint(-999, 999), 2 ** 31 - 1, -2 ** 31])
    if k == "BIGINT":
        return rng.choice([rng.randint(-2 ** 63, 2 ** 63 - 1), rng.randint(-999, 999), 2 ** 63 - 1, -2 ** 63])
    if k == "DOUBLE":
        return gen_double(rng)
    if k == "DECIMAL":
        p, s = t[1], t[2]
        nd = rng.randint(0, p)
        u = rng.randint(0, 10 ** nd - 1) * rng.choice([1, -1])
        return D(u).scaleb(-s)
    if k == "BOOLEAN":
        return rng.random() < 0.5
    if k == "STRING":
        return gen_str(rng, newlines)
    if k == "BYTES":
        return bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 2, 3, 7])))
    if k == "DATE":
        return datetime.date(rng.choice([rng.randint(1, 9999), rng.randint(1900, 2100)]), rng.randint(1, 12),
                             rng.randint(1, 28))
    if k == "TIME":
        ms = rng.randrange(86400000)
        unit = 10 ** (3 - t[1])
        return ms - ms % unit  # ms of the day, at the type's precision
    if k in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        d = datetime.datetime(rng.choice([rng.randint(1, 9999), rng.randint(1960, 2100)]), rng.randint(1, 12),
                              rng.randint(1, 28), rng.randrange(24), rng.randrange(60), rng.randrange(60))
        ms = rng.randrange(1000)
        unit = 10 ** (3 - t[1])
        return d + datetime.timedelta(milliseconds=ms - ms % unit)
    if k == "ARRAY":
        return [gen_value(rng, ("INT",)) for _ in range(rng.randint(0, 3))]
    if k == "ROW":
        return {"a": gen_value(rng, ("INT",)), "b": gen_value(rng, ("STRING",))}
    if k == "MAP":  # at most one entry: the print text of a map is in no set order
        return {gen_str(rng, newlines).replace("=", "-"): gen_value(rng, ("INT",)) for _ in range(rng.randint(0, 1))}
    raise AssertionError(k)


# ---- Java's texts (the print connector) --------------------------------------


def java_bigdecimal(v):
    """BigDecimal.toString."""
    sign, digits, exp = v.as_tuple()
    coeff = "".join(map(str, digits)).lstrip("0") or "0"
    scale = -exp
    adjusted = -scale + (len(coeff) - 1)
    neg = "-" if sign and coeff != "0" else ""
    if scale >= 0 and adjusted >= -6:
        if scale == 0:
            return neg + coeff
        c = coeff.rjust(scale + 1, "0")
        return neg + c[:-scale] + "." + c[-scale:]
    s = coeff[0] + ("." + coeff[1:] if len(coeff) > 1 else "")
    return neg + s + "E" + ("+" if adjusted > 0 else "") + str(adjusted)


def java_nanos(ms):
    return "" if ms == 0 else ".%03d" % ms


def java_time(ms):
    """LocalTime.toString (ms of the day)."""
    h, rem = divmod(ms, 3600000)
    m, rem = divmod(rem, 60000)
    s, f = divmod(rem, 1000)
    if s == 0 and f == 0:
        return "%02d:%02d" % (h, m)
    return "%02d:%02d:%02d%s" % (h, m, s, java_nanos(f))


def java_date(d):
    return "%04d-%02d-%02d" % (d.year, d.month, d.day)


def java_text(v, t):
    if v is None:
        return "null"
    k = t[0]
    if k == "DOUBLE":
        return double_text(v)
    if k == "DECIMAL":
        return java_bigdecimal(v)
    if k == "BOOLEAN":
        return "true" if v else "false"
    if k == "BYTES":
        return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in v) + "]"
    if k == "DATE":
        return java_date(v)
    if k == "TIME":
        return java_time(v)
    if k == "TIMESTAMP":
        return java_date(v) + "T" + java_time(v.hour * 3600000 + v.minute * 60000 + v.second * 1000
                                              + v.microsecond // 1000)
    if k == "TIMESTAMP_LTZ":
        ms = v.microsecond // 1000
        return java_date(v) + "T%02d:%02d:%02d%sZ" % (v.hour, v.minute, v.second, java_nanos(ms))
    if k == "ARRAY":
        return "[" + ", ".join(java_text(e, ("INT",)) for e in v) + "]"
    if k == "ROW":
        return "+I[" + java_text(v["a"], ("INT",)) + ", " + java_text(v["b"], ("STRING",)) + "]"
    if k == "MAP":
        return "{" + ", ".join("%s=%s" % (mk, java_text(mv, ("INT",))) for mk, mv in v.items()) + "}"
    return str(v)


def print_line(row, types):
    return "+I[" + ", ".join(java_text(v, t) for v, t in zip(row, types)) + "]"


def printed_rows(stdout):
    """The records the print sink wrote (a string may hold line breaks: a
    record starts where a line starts with "+I[" after an optional prefix)."""
    recs = re.split(r"\n(?=(?:[^\n>]*> )?\+I\[)", stdout.rstrip("\n")) if stdout.strip() else []
    return collections.Counter(re.sub(r"^[^\n>+]*> ", "", r, count=1) for r in recs)


# ---- spellings ---------------------------------------------------------------


def ts_text(v, t, rng, iso=None):
    ms = v.microsecond // 1000
    frac = ""
    if ms or rng.random() < 0.3:
        nd = rng.randint(max(1, len(("%03d" % ms).rstrip("0"))), 3) if ms else rng.randint(1, 3)
        frac = "." + ("%03d" % ms)[:nd]
    sep = "T" if (iso if iso is not None else rng.random() < 0.4) else " "
    z = "Z" if sep == "T" and rng.random() < 0.5 else ""
    return java_date(v) + sep + "%02d:%02d:%02d" % (v.hour, v.minute, v.second) + frac + z


def epoch_ms(v):
    return (v - EPOCH) // datetime.timedelta(milliseconds=1)


def time_text(v, rng, t):
    h, rem = divmod(v, 3600000)
    m, rem = divmod(rem, 60000)
    s, f = divmod(rem, 1000)
    text = "%02d:%02d:%02d" % (h, m, s)
    extra = rng.randrange(1000) % (10 ** (3 - t[1])) if rng.random() < 0.3 else 0
    f2 = f + extra  # digits past the precision are cut off when read
    if f2 or rng.random() < 0.2:
        text += "." + ("%03d" % f2)[:rng.randint(max(1, len(("%03d" % f2).rstrip("0"))), 3)] if f2 else ".0"
    return text


def number_text(v, t, rng, fmt):
    """A legal spelling of a number of type t (a JSON number or CSV text)."""
    k = t[0]
    if k in ("INT", "BIGINT"):
        if v == 0 and rng.random() < 0.3:
            return "-0"
        if rng.random() < 0.1 and v >= 0 and fmt == "csv":
            return "+" + str(v)
        return str(v)
    if k == "DOUBLE":
        if math.isnan(v):
            return None  # no JSON number for it
        if math.isinf(v):  # past the largest double: an infinity, as Java's parseDouble
            return ("-" if v < 0 else "") + rng.choice(["1e400", "1.5E+309", "9" * 400])
        r = rng.random()
        if v == 0 and rng.random() < 0.2:  # below the smallest double: a zero of its sign
            return ("-" if math.copysign(1, v) < 0 else "") + rng.choice(["1e-400", "2.4e-324"])
        if v == 0:
            return rng.choice(["0", "0.0", "-0" if math.copysign(1, v) < 0 else "0e5", "0E-3"]) \
                if math.copysign(1, v) > 0 else rng.choice(["-0", "-0.0", "-0e2"])
        if r < 0.1:
            # many digits (past the 19 a fast path takes), or every digit of the double
            text = repr(v) + "0" * rng.randint(1, 25) + "1" if "e" not in repr(v) else "{:f}".format(D(v))
            return text if float(text) == v else repr(v)
        if r < 0.3:
            return repr(v)
        if r < 0.6:
            return double_text(v).replace("E", rng.choice(["E", "e"]))
        dv = D(repr(v))
        return "%se%d" % (dv.scaleb(-dv.adjusted()), dv.adjusted())
    if k == "DECIMAL":
        r = rng.random()
        if r < 0.15 and v != 0:
            # a 5 past the scale: Java's HALF_UP rounds it away from zero, to v
            ulp = D(1).scaleb(-t[2])
            return ("-" if v < 0 else "") + "{:f}".format(abs(v) - ulp) + ("" if t[2] else ".") + "5"
        if r < 0.5:
            return "{:f}".format(v)
        if r < 0.7 and v != 0:
            # extra digits, rounded HALF_UP to the scale when read
            return "{:f}".format(v) + ("" if t[2] else ".") + rng.choice(["0", "4", "49", "0001"])
        if r < 0.85:
            return "{:f}E-2".format(v.scaleb(2))
        return "{:f}".format(v.normalize()) if v != 0 else "0"
    raise AssertionError(k)


def csv_field(v, t, rng, opt):
    """(text, may be quoted) of a value; None for a value with no csv spelling."""
    k = t[0]
    if v is None:
        if opt["null"] is not None and (rng.random() < 0.7 or k in ("STRING", "BYTES")):
            return opt["null"], False
        if k in ("STRING", "BYTES"):
            return None  # an empty field is the empty value
        return "", True
    if k == "STRING":
        if opt["quote"] in v[:1]:
            return v, "must"
        if opt["null"] is not None and v == opt["null"]:
            return v, "must"
        if v.startswith("#") and opt["comments"]:
            return v, "must"
        return v, True
    if k == "BYTES":
        return base64.b64encode(v).decode(), True
    if k == "BOOLEAN":
        text = "true" if v else "false"
        if rng.random() < 0.3:
            text = "".join(c.upper() if rng.random() < 0.5 else c for c in text)
    elif k == "DOUBLE" and (math.isnan(v) or (math.isinf(v) and rng.random() < 0.5)):
        text = double_text(v)
    elif k in ("INT", "BIGINT", "DOUBLE", "DECIMAL"):
        text = number_text(v, t, rng, "csv")
    elif k == "DATE":
        text = java_date(v)
    elif k == "TIME":
        text = time_text(v, rng, t)
    elif k in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        if rng.random() < 0.15 and (v.microsecond == 0 or t[1] == 3) and v.year >= 1970:
            text = str(epoch_ms(v))
        else:
            text = ts_text(v, t, rng)
    else:
        raise AssertionError(k)
    if rng.random() < 0.2 and k not in ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
        text = rng.choice([" ", "\t", "  "]) + text + rng.choice(["", " ", "\t"])
    return text, True


def csv_quote(text, q):
    return q + text.replace(q, q + q) + q


def csv_needs_quote(text, opt):
    return opt["delim"] in text or opt["quote"] == text[:1] or "\n" in text or "\r" in text


def csv_record(row, types, rng, opt):
    out = []
    for v, t in zip(row, types):
        f = csv_field(v, t, rng, opt)
        if f is None:
            return None
        text, quotable = f
        if quotable == "must" or (quotable and (csv_needs_quote(text, opt) or rng.random() < 0.25)):
            if t[0] == "STRING" or text != "":
                text = csv_quote(text, opt["quote"])
        out.append(text)
    return opt["delim"].join(out)


JSON_WS = ["", " ", "  ", "\t", "\n "[1:]]


def json_string(s, rng):
    out = ['"']
    for ch in s:
        c = ord(ch)
        r = rng.random()
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append(rng.choice(["\\n", "\\u000a", "\\u000A"]))
        elif ch == "\r":
            out.append(rng.choice(["\\r", "\\u000d"]))
        elif ch == "\t":
            out.append(rng.choice(["\\t", "\\u0009"]))
        elif c < 0x20:
            out.append("\\u%04x" % c)
        elif ch == "/" and r < 0.5:
            out.append("\\/")
        elif r < 0.2:
            if c > 0xFFFF:
                c -= 0x10000
                out.append("\\u%04x\\u%04X" % (0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF)))
            else:
                out.append(("\\u%04x" if rng.random() < 0.5 else "\\u%04X") % c)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_value(v, t, rng, strict=False):
    """A JSON text of a value; None: leave the member out (NULL; never when
    strict: json.fail-on-missing-field)."""
    k = t[0]
    if v is None:
        return None if rng.random() < 0.4 and not strict else "null"
    if k in ("INT", "BIGINT", "DECIMAL") or (k == "DOUBLE" and not math.isnan(v)):
        text = number_text(v, t, rng, "json")
        if rng.random() < 0.1:
            return json_string(rng.choice(["", " "]) + text + rng.choice(["", " "]), rng)
        return text
    if k == "DOUBLE":
        return json_string(double_text(v), rng)
    if k == "BOOLEAN":
        if rng.random() < 0.15:
            return json_string(("true" if v else "false").upper() if rng.random() < 0.5 else
                               ("true" if v else "false"), rng)
        return "true" if v else "false"
    if k == "STRING":
        if v in ("1.50", "-0", "1e2", "true", "false", '{"a": [1,2 ], "b":{}}', "[]", "[ null]") and rng.random() < 0.6:
            return v  # a number, boolean, object or array into STRING: its JSON text as written
        return json_string(v, rng)
    if k == "BYTES":
        return json_string(base64.b64encode(v).decode(), rng)
    if k == "DATE":
        return json_string(java_date(v), rng)
    if k == "TIME":
        return json_string(time_text(v, rng, t), rng)
    if k in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        if rng.random() < 0.15 and (v.microsecond == 0 or t[1] == 3):
            return str(epoch_ms(v))
        return json_string(ts_text(v, t, rng), rng)
    if k == "ARRAY":
        return "[" + ",".join(json_value(e, ("INT",), rng) or "null" for e in v) + "]"
    if k == "ROW":
        return json_object([("a", v["a"], ("INT",)), ("b", v["b"], ("STRING",))], rng, strict=strict)
    if k == "MAP":
        return "{" + ",".join(json_string(mk, rng) + ":" + (json_value(mv, ("INT",), rng) or "null")
                              for mk, mv in v.items()) + "}"
    raise AssertionError(k)


def json_extra(rng, depth=0):
    r = rng.random()
    if r < 0.3 or depth > 2:
        return rng.choice(["1", "-2.5e3", "true", "null", '"x\\"y"', '"\\ud83d\\ude00"'])
    if r < 0.6:
        return "[" + ",".join(json_extra(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    return "{" + ",".join('"k%d":%s' % (i, json_extra(rng, depth + 1)) for i in range(rng.randint(0, 3))) + "}"


def json_object(members, rng, extras=True, strict=False):
    parts = []
    for name, v, t in members:
        text = json_value(v, t, rng, strict)
        if text is not None:
            parts.append((json_string(name, rng) if rng.random() < 0.2 else '"%s"' % name, text))
    if extras:
        for i in range(rng.choice([0, 0, 1, 2])):
            parts.append(('"zz_extra%d"' % i, json_extra(rng)))
    rng.shuffle(parts) if rng.random() < 0.5 else None
    ws = lambda: rng.choice(JSON_WS)  # noqa: E731
    return "{" + ws() + ("," + ws()).join(k + ws() + ":" + ws() + v for k, v in parts) + ws() + "}"


# ---- the sink's files --------------------------------------------------------


def ts_out(v, ltz, iso):
    ms = v.microsecond // 1000
    return java_date(v) + ("T" if iso else " ") + "%02d:%02d:%02d.%03d" % (v.hour, v.minute, v.second, ms) + \
        ("Z" if ltz else "")


def time_out(v):
    h, rem = divmod(v, 3600000)
    m, rem = divmod(rem, 60000)
    s, f = divmod(rem, 1000)
    return "%02d:%02d:%02d" % (h, m, s) + (("." + ("%03d" % f).rstrip("0")) if f else "")


def json_out_value(v, t, iso=False):
    """What the json sink's value parses to with json.loads(parse_float=str, parse_int=str)."""
    if v is None:
        return None
    k = t[0]
    if k in ("INT", "BIGINT"):
        return str(v)
    if k == "DOUBLE":
        return double_text(v)
    if k == "DECIMAL":
        return "{:f}".format(v)
    if k in ("BOOLEAN", "STRING"):
        return v
    if k == "BYTES":
        return base64.b64encode(v).decode()
    if k == "DATE":
        return java_date(v)
    if k == "TIME":
        return time_out(v)
    if k in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return ts_out(v, k == "TIMESTAMP_LTZ", iso)
    if k == "ARRAY":
        return [json_out_value(e, ("INT",)) for e in v]
    if k == "ROW":
        return {"a": json_out_value(v["a"], ("INT",)), "b": json_out_value(v["b"], ("STRING",))}
    if k == "MAP":
        return {mk: json_out_value(mv, ("INT",)) for mk, mv in v.items()}
    raise AssertionError(k)


def csv_out_value(v, t):
    """The text of a value in the csv sink's file, as Python's csv module reads it."""
    if v is None:
        return ""
    k = t[0]
    if k == "BOOLEAN":
        return "true" if v else "false"
    if k == "DOUBLE":
        return double_text(v)
    j = json_out_value(v, t)
    return j


def no_constant(name):
    raise ValueError("%s is not JSON" % name)


def canon_json_out(row):
    return json.dumps(row, sort_keys=True, ensure_ascii=True)


# ---- bad records -------------------------------------------------------------


def bad_token(rng, t):
    """A bad text for a scalar column (None: none drawn for the type)."""
    k = t[0]
    if k in ("INT",):
        # 1.0 and 1e2: docs say INT and BIGINT take integers only (Flink's json truncates)
        return rng.choice(["12x", "2147483648", "-2147483649", "1.5", "--1", "0x10", "1.0", "1e2"])
    if k == "BIGINT":
        return rng.choice(["9223372036854775808", "1e", "abc", "-7.0"])
    if k == "DOUBLE":
        return rng.choice(["1.2.3", "e5", "1e", "nan"])
    if k == "DECIMAL":
        return rng.choice(["1" * (t[1] - t[2] + 1), "1.2.3", "x"])
    if k == "BOOLEAN":
        return rng.choice(["yes", "1", "tru"])
    if k == "DATE":
        return rng.choice(["2020-13-01", "2020-02-30", "20200101"])
    if k in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return rng.choice(["2020-01-01 25:00:00", "2020-01-01X12:00:00", "yesterday"])
    if k == "TIME":
        return rng.choice(["25:00:00", "12:60:00", "noon"])
    return None


# ---- one case ----------------------------------------------------------------


def gen_case(rng):
    fmt = rng.choice(["csv", "csv", "json", "json", "debezium-json"])
    ncols = rng.randint(1, 6)
    types = [("INT",)] + [gen_type(rng, fmt) for _ in range(ncols)]
    names = ["id"] + ["c%d" % i for i in range(1, ncols + 1)]
    return fmt, names, types


def run_case(case):
    try:
        return run_case1(case)
    except (ValueError, KeyError, csv.Error) as e:  # a file weir wrote that does not parse
        return ["%s: %s" % (type(e).__name__, e)]


def run_case1(case):
    rng = case.rng
    fmt, names, types = gen_case(rng)
    par = rng.choice([1, 2])
    split = rng.random() < 0.3
    nfiles = 1 if split else rng.choice([1, 2, 3])
    policy = rng.choice(["none", "none", "fail", "skip", "dead-letter"])
    opt = {"delim": rng.choice([",", ",", ";", "|", "\t"]), "null": rng.choice([None, None, "\\N", "NULL"]),
           "comments": rng.random() < 0.3, "header": rng.random() < 0.3, "quote": rng.choice(['"', '"', "'"]),
           "iso": rng.random() < 0.3, "ignore_nulls": rng.random() < 0.3, "strict": rng.random() < 0.4 and fmt == "json",
           "schema": rng.random() < 0.3}
    if fmt == "debezium-json":
        opt["ignore_nulls"] = False
    newlines = not (split and fmt == "csv")
    nrows = rng.randint(5, 40)
    rows = []
    for i in range(nrows):
        r = [i] + [gen_value(rng, t, newlines) for t in types[1:]]
        if fmt == "csv" and opt["null"] is None:  # no spelling of a NULL STRING or BYTES
            r = [{"STRING": "", "BYTES": b""}.get(t[0], v) if v is None else v for v, t in zip(r, types)]
        rows.append(r)
    strs = [i for i, t in enumerate(types) if t[0] == "STRING"]
    if strs and rng.random() < 0.03:  # a record longer than the 1 MiB read buffer
        piece = gen_str(rng, newlines) + "x"
        rows[rng.randrange(nrows)][rng.choice(strs)] = piece * (rng.randint(1000000, 1150000) // len(piece))
        case.counts["long records"] += 1
    case.note = "%s %s p=%d split=%s files=%d policy=%s opt=%s" % (
        fmt, ", ".join("%s %s" % (n, sql_type(t)) for n, t in zip(names, types)), par, split, nfiles, policy, opt)
    batch = rng.choice([None, None, 1, 3, 8])  # rows per batch: records across batches
    case.note += " batch=%s" % batch

    # files: (name, bytes) with the rows in them; bad records noted.
    os.mkdir(case.path("in"))
    files = [[] for _ in range(nfiles)]
    for r in rows:
        files[rng.randrange(nfiles)].append(r)
    want = collections.Counter()
    bads = []  # (file, line, col, offset of the error, offset of the record, raw)
    crlf = rng.random() < 0.3
    nl = "\r\n" if crlf else "\n"
    fail_left = 1
    for fi, frows in enumerate(files):
        fname = "in/part%d.%s" % (fi, fmt)
        data = bytearray()
        if rng.random() < 0.2:
            data += b"\xef\xbb\xbf"
        if fmt == "csv" and opt["header"]:
            data += (opt["delim"].join(names) + nl).encode()
        for ri, r in enumerate(frows):
            if fmt == "csv" and opt["comments"] and rng.random() < 0.1:
                data += ("# a comment, with \"quote" + nl).encode()
            if rng.random() < 0.05:
                data += (rng.choice(["", " ", "\t"]) + nl).encode()
            if fmt == "csv":
                rec = csv_record(r, types, rng, opt)
            else:
                rec = json_object(list(zip(names, r, types)), rng, strict=opt["strict"])
                if fmt == "debezium-json":
                    rec = dbz_envelope(rec, rng, opt)
            bad = None
            if policy != "none" and (policy != "fail" or fail_left) and rng.random() < (0.2 if policy != "fail"
                                                                                         else 0.1):
                if fmt == "debezium-json":
                    bad = make_bad_dbz(rng, r, names, types, opt)
                else:
                    bad = make_bad(rng, fmt, r, names, types, opt, last=(ri == len(frows) - 1), newlines=newlines)
            if bad is not None:
                brec, at, what = bad
                full = bytes(data) + brec  # the error's line and column (a record may span lines)
                line = full[:len(data) + at].count(b"\n") + 1
                lstart = full.rfind(b"\n", 0, len(data) + at) + 1
                if lstart == 0 and data.startswith(b"\xef\xbb\xbf"):
                    lstart = 3  # columns count from after the byte-order mark
                # an unterminated quote runs to the end of the file, line break included
                raw = brec + nl.encode() if what == "unterminated" and fmt == "csv" else brec
                bads.append((fname, line, len(data) + at - lstart + 1, len(data) + at, len(data), raw))
                case.counts["bad " + what] += 1
                data += brec + nl.encode()
                if policy == "fail":
                    fail_left = 0
                continue
            want[print_line(r, types)] += 1
            data += rec.encode() + nl.encode()
        if fmt != "csv" and rng.random() < 0.2:
            data = data.rstrip(b"\n").rstrip(b"\r")  # no line break after the last record
        with open(case.path(fname), "wb") as f:
            f.write(data)
    if policy == "fail" and not bads:
        policy = "none"

    def ddl(tname, path, kind):
        o = ["'connector' = 'filesystem'", "'path' = '%s'" % path, "'format' = '%s'" % kind]
        if kind == "csv":
            o.append("'csv.field-delimiter' = '%s'" % ("\\t" if opt["delim"] == "\t" else opt["delim"]))
            if opt["null"] is not None:
                o.append("'csv.null-literal' = '%s'" % opt["null"])
            if opt["comments"]:
                o.append("'csv.allow-comments' = 'true'")
            if opt["header"]:
                o.append("'csv.header' = 'true'")
            if opt["quote"] != '"':
                o.append("'csv.quote-character' = '%s'" % opt["quote"].replace("'", "''"))
        elif kind == "json" and path == "in" and opt["strict"]:
            o.append("'json.fail-on-missing-field' = 'true'")
        elif kind == "debezium-json" and path == "in" and opt["schema"]:
            o.append("'debezium-json.schema-include' = 'true'")
        elif kind != "csv" and path == "out":
            if opt["iso"]:
                o.append("'%s.timestamp-format.standard' = 'ISO-8601'" % kind)
            if opt["ignore_nulls"]:
                o.append("'json.encode.ignore-null-fields' = 'true'")
        return "CREATE TABLE %s (%s) WITH (%s);\n" % (
            tname, ", ".join("%s %s" % (n, sql_type(t)) for n, t in zip(names, types)), ", ".join(o))

    src = ddl("src", "in", fmt)
    if split:
        src = src.replace("WITH (", "WITH ('source.split-size' = '%d', " % rng.choice([7, 50, 200, 1000]))
    if policy in ("skip", "fail"):
        if policy == "skip":
            src = src.replace("WITH (", "WITH (%s, " % rng.choice(
                ["'source.bad-input' = 'skip'", "'%s.ignore-parse-errors' = 'true'" % fmt]))
    elif policy == "dead-letter":
        src = src.replace("WITH (", "WITH ('source.bad-input' = 'dead-letter', "
                                    "'source.dead-letter.path' = 'dead.jsonl', ")
    outfmt = rng.choice(["csv", "json"]) if fmt == "csv" else fmt
    if outfmt == "csv" and any(t[0] in ("ARRAY", "ROW", "MAP") for t in types):
        outfmt = "json"
    sink = ddl("out", "out", outfmt).replace("CREATE TABLE out", "CREATE TABLE out_t")
    prn = "CREATE TABLE prn (%s) WITH ('connector' = 'print');\n" % ", ".join(
        "%s %s" % (n, sql_type(t)) for n, t in zip(names, types))
    case.write("job.sql", src + sink + prn + "INSERT INTO prn SELECT * FROM src;\nINSERT INTO out_t SELECT * FROM src;\n")
    p = run_weir(case, "job.sql", par, batch)
    case.counts["cases"] += 1
    case.counts[fmt] += 1
    if policy == "fail":
        fname, line, col, off, _, _ = bads[0]
        if p.returncode == 0:
            return ["the job ended with status 0 over a bad record at %s:%d:%d" % (fname, line, col)]
        pat = r"%s:%d:%d: error: expected [^\n]* \(offset %d\)" % (re.escape(fname), line, col, off)
        case.counts["fail"] += 1
        if not re.search(pat, p.stderr):
            return ["want an error %s:%d:%d: error: ... (offset %d); got: %s"
                    % (fname, line, col, off, p.stderr.strip()[-1500:])]
        return []
    if p.returncode:
        return [diffrun.failed_run(p)]
    problems = diffrun.multiset_problems("printed", want, printed_rows(p.stdout))
    if policy == "skip":
        case.counts["skipped"] += len(bads)
        n = sum(int(m) for m in re.findall(r"(\d+) bad records? skipped", p.stderr))
        if n != len(bads):
            problems.append("skipped %d bad records by standard error, want %d: %s" % (n, len(bads), p.stderr))
    if policy == "dead-letter":
        case.counts["dead-letter"] += len(bads)
        n = sum(int(m) for m in re.findall(r"(\d+) bad records? written to the dead-letter file", p.stderr))
        if n != len(bads):
            problems.append("%d bad records written to the dead-letter file by standard error, want %d: %s"
                            % (n, len(bads), p.stderr))
        got = []
        if os.path.exists(case.path("dead.jsonl")):
            with open(case.path("dead.jsonl"), encoding="utf-8") as f:
                for ln in f:
                    e = json.loads(ln)
                    if not e.get("error"):
                        problems.append("a dead-letter entry without an error: " + ln)
                    got.append((e["file"], e["line"], e["column"], e["offset"], e["raw"]))
        wantd = [(fn, line, col, roff, dl_raw(raw)) for fn, line, col, _, roff, raw in bads]
        problems += diffrun.multiset_problems("dead-letter entries", wantd, got)
    # the sink's files
    problems += check_sink(case, outfmt, names, types, want, rows, bads, opt)
    if problems:
        return problems
    # read back
    back = ddl("src", "out", outfmt)
    case.write("back.sql", back + prn + "INSERT INTO prn SELECT * FROM src;\n")
    p = run_weir(case, "back.sql", par, batch)
    if p.returncode:
        return ["read back: " + diffrun.failed_run(p)]
    wantb = collections.Counter()
    for r in rows:
        line = print_line(r, types)
        if line in want:
            rb = list(r)
            if outfmt == "csv" and opt["null"] is None:
                rb = [("" if v is None and t[0] == "STRING" else b"" if v is None and t[0] == "BYTES" else v)
                      for v, t in zip(r, types)]
            wantb[print_line(rb, types)] += 1
    case.counts["round trips"] += 1
    return diffrun.multiset_problems("read back", wantb, printed_rows(p.stdout))


def run_weir(case, job, par, batch=None):
    """weir run, its output decoded without turning \r\n into \n."""
    p = case.run_weir(["run", job] + diffrun.engine_options(case, par, batch), text=False)
    p.stdout = p.stdout.decode("utf-8")
    p.stderr = p.stderr.decode("utf-8", errors="replace")
    return p


def dl_raw(raw):
    """A dead-letter entry's raw text of a record: bytes that are not UTF-8 as \\u00XX."""
    return "".join(ch if ord(ch) < 0xDC80 or ord(ch) > 0xDCFF else chr(ord(ch) - 0xDC00)
                   for ch in raw.decode("utf-8", errors="surrogateescape"))


def check_sink(case, outfmt, names, types, want, rows, bads, opt):
    kept = [r for r in rows if print_line(r, types) in want]
    files = diffrun.committed_files(case.path("out"))
    got = collections.Counter()
    for fn in files:
        with open(case.path("out", fn), encoding="utf-8", newline="") as f:
            text = f.read()
        if outfmt != "csv":
            for ln in text.split("\n"):
                if ln.strip():
                    o = json.loads(ln, parse_float=str, parse_int=str, parse_constant=no_constant)
                    if outfmt == "debezium-json":
                        if list(o) != ["before", "after", "op"] or o["before"] is not None or o["op"] != "c":
                            return ["the debezium-json sink wrote %s for an insertion" % ln]
                        o = o["after"]
                    keys = [n for n in names if n in o] if opt["ignore_nulls"] else names
                    if list(o) != keys or (opt["ignore_nulls"] and None in o.values()):
                        return ["the json sink's keys are %s, want %s (%s)" % (list(o), keys, ln)]
                    got[canon_json_out([o.get(n) for n in names])] += 1
        else:
            rd = csv.reader(io.StringIO(text), delimiter=opt["delim"], quotechar=opt["quote"], strict=True)
            recs = list(rd)
            if opt["header"]:
                if not recs or recs[0] != names:
                    return ["the csv sink's header is %s, want %s" % (recs[:1], names)]
                recs = recs[1:]
            for rec in recs:
                got[canon_json_out(rec)] += 1
    wantc = collections.Counter()
    for r in kept:
        if outfmt != "csv":
            wantc[canon_json_out([json_out_value(v, t, opt["iso"]) for v, t in zip(r, types)])] += 1
        else:
            wantc[canon_json_out([opt["null"] if v is None and opt["null"] is not None else csv_out_value(v, t)
                                  for v, t in zip(r, types)])] += 1
    return diffrun.multiset_problems("%s sink" % outfmt, wantc, got)


def make_bad(rng, fmt, r, names, types, opt, last, newlines=False):
    """A damaged record: (bytes, offset of the error in it, what)."""
    cols = [i for i, t in enumerate(types) if bad_token(rng, t) is not None]
    kinds = ["token"] if cols else []
    kinds += ["count", "utf8"] if fmt == "csv" else ["unterminated", "utf8", "control", "surrogate"] + \
        ["missing"] * 3 * opt["strict"]
    if fmt == "csv" and last:
        kinds.append("unterminated")
    kind = rng.choice(kinds)
    d = opt["delim"]
    if fmt == "csv":
        # a plain record: each field unquoted, simple texts
        texts = [simple_csv_text(v, t, opt) for v, t in zip(r, types)]
        if kind == "token":
            c = rng.choice(cols)
            texts[c] = bad_token(rng, types[c])
            sc = [i for i in range(c) if types[i][0] == "STRING"]
            if sc and newlines and rng.random() < 0.5:  # a line break in a quoted field before it
                q = opt["quote"]
                texts[rng.choice(sc)] = q + rng.choice(["\n", "x\ny", "\r\n\n"]) + q
            at = sum(len(x.encode()) + 1 for x in texts[:c])
            return d.join(texts).encode(), at, kind
        if kind == "count":
            if rng.random() < 0.5 or len(texts) == 1:
                rec = d.join(texts + ["9"])
                return rec.encode(), len(d.join(texts).encode()), kind
            rec = d.join(texts[:-1])
            return rec.encode(), len(rec.encode()), kind
        if kind == "utf8":
            sc = [i for i, t in enumerate(types) if t[0] == "STRING"]
            if not sc:
                rec = d.join(texts + ["9"])
                return rec.encode(), len(d.join(texts).encode()), "count"
            c = rng.choice(sc)
            pre = d.join(texts[:c]) + (d if c else "")
            fld = rng.choice([b"ab\xff", b"\xc3", b"\xed\xa0\x80x", b"\xc0\xafz"])  # bad, cut, a surrogate, overlong
            q = opt["quote"].encode()
            if rng.random() < 0.5:  # quoted, with or without doubled quotes (and a delimiter) before the bad byte
                fld = q + rng.choice([b"", q + q + d.encode(), d.encode() + q + q + b"x" + q + q]) + fld + q
            rest = (d + d.join(texts[c + 1:])) if c + 1 < len(texts) else ""
            bad_at = min(fld.index(x) for x in (b"\xff", b"\xc3", b"\xed", b"\xc0") if x in fld)
            return pre.encode() + fld + rest.encode(), len(pre.encode()) + bad_at, kind
        # unterminated quote in the last field of the last record
        c = len(texts) - 1
        pre = d.join(texts[:c]) + (d if c else "")
        return (pre + opt["quote"] + "abc").encode(), len(pre.encode()), kind
    members = [(n, v, t) for n, v, t in zip(names, r, types)]
    if kind == "token":
        c = rng.choice(cols)
        tok = bad_token(rng, types[c])
        head = "{" + ",".join('"%s":%s' % (n, simple_json(v, t)) for n, v, t in members[:c])
        head += ("," if c else "") + '"%s":' % names[c]
        val = '"%s"' % tok if rng.random() < 0.5 or types[c][0] not in ("INT", "BIGINT", "DOUBLE", "DECIMAL") \
            else tok
        if val == tok and not re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", tok):
            val = '"%s"' % tok
        tail = "".join(',"%s":%s' % (n, simple_json(v, t)) for n, v, t in members[c + 1:]) + "}"
        return (head + val + tail).encode(), len(head.encode()), kind
    if kind == "missing":  # json.fail-on-missing-field: at the brace of the object that lacks it
        c = rng.randrange(len(types))
        rows = [i for i, (v, t) in enumerate(zip(r, types)) if t[0] == "ROW" and v is not None]
        if rows and rng.random() < 0.7:
            c = rng.choice(rows)
            keep = rng.choice(["a", "b"])
            head = "{" + ",".join('"%s":%s' % (n, simple_json(v, t)) for n, v, t in members[:c])
            head += ("," if c else "") + '"%s":{"%s":%s' % (names[c], keep, simple_json(r[c][keep], (
                "INT",) if keep == "a" else ("STRING",)))
            tail = "}" + "".join(',"%s":%s' % (n, simple_json(v, t)) for n, v, t in members[c + 1:]) + "}"
            return (head + tail).encode(), len(head.encode()), "missing nested"
        rec = "{" + ",".join('"%s":%s' % (n, simple_json(v, t)) for n, v, t in members if n != names[c]) + "}"
        return rec.encode(), len(rec.encode()) - 1, kind
    if kind == "control":  # a raw control character in a string
        head = '{"id":%d,"zz":"a' % r[0]
        return head.encode() + rng.choice([b"\t", b"\x01", b"\x1f", b"\r"]) + b'"}', len(head.encode()), kind
    if kind == "surrogate":  # a lone surrogate: at the escape after a high one, or at a low one's
        head = '{"id":%d,"zz":"a' % r[0]
        if rng.random() < 0.5:
            return (head + "\\ud83dx\"}").encode(), len(head) + 6, kind
        return (head + "\\ude00\"}").encode(), len(head), kind
    if kind == "utf8":
        head = '{"id":%d,"zz":"a' % r[0]
        return head.encode() + b"\xff" + b'"}', len(head.encode()), kind
    head = '{"id":%d,"zz":"abc' % r[0]
    return head.encode(), len(head.encode()), kind


def dbz_envelope(after, rng, opt):
    """A create (or snapshot read) of row image `after` in Debezium's envelope."""
    members = [('"after"', after), ('"op"', rng.choice(['"c"', '"r"']))]
    if rng.random() < 0.6:
        members.append(('"before"', "null"))
    if rng.random() < 0.3:
        members.append(('"source"', '{"db":"x","ts_ms":1}'))
    rng.shuffle(members)
    env = "{" + ",".join(k + rng.choice(["", " "]) + ":" + v for k, v in members) + "}"
    if opt["schema"]:
        env = '{"schema":{"type":"struct","fields":[]},"payload":' + env + "}"
    return env


def make_bad_dbz(rng, r, names, types, opt):
    """A damaged debezium-json record: (bytes, offset of the error, what)."""
    pre = '{"schema":null,"payload":' if opt["schema"] else ""
    post = "}" if opt["schema"] else ""
    kind = rng.choice(["op", "no after", "row"])
    if kind == "op":
        head = pre + '{"before":null,"after":{"id":%d},"op":' % r[0]
        return (head + rng.choice(['"x"', '"C"', "1", "null"]) + "}" + post).encode(), len(head.encode()), kind
    if kind == "no after":  # at the start of the envelope
        return (pre + '{"before":null,"op":"c"}' + post).encode(), len(pre.encode()), kind
    brec, at, what = make_bad(rng, "json", r, names, types, dict(opt, strict=False), last=False)
    head = (pre + '{"op":"c","after":').encode()
    if what == "unterminated":
        return head + brec, len(head) + at, "row " + what
    return head + brec + ("}" + post).encode(), len(head) + at, "row " + what


def simple_csv_text(v, t, opt):
    k = t[0]
    if v is None:
        return "" if k not in ("STRING", "BYTES") else "x" if k == "STRING" else ""
    if k == "STRING":
        return "s"
    if k == "BYTES":
        return ""
    if k == "BOOLEAN":
        return "true" if v else "false"
    if k == "DOUBLE":
        return double_text(v)
    return str(json_out_value(v, t))


def simple_json(v, t):
    if v is None:
        return "null"
    k = t[0]
    if k in ("INT", "BIGINT"):
        return str(v)
    if k == "DOUBLE":
        return double_text(v) if not (math.isnan(v) or math.isinf(v)) else '"%s"' % double_text(v)
    if k == "DECIMAL":
        return "{:f}".format(v)
    return json.dumps(json_out_value(v, t))


if __name__ == "__main__":
    sys.exit(diffrun.main("format_diff", run_case, jobs_env="WEIR_FMTDIFF_JOBS", jobs=100, asan_jobs=24,
                          one_env="WEIR_FMTDIFF_JOB", out_env="WEIR_FMTDIFF_OUT"))
