#!/usr/bin/env python3
"""Randomized differential test of weir's SQL/JSON functions.

Each *job* is a set of random documents (random nested objects and arrays,
written with random spacing and escapes; some of them then damaged so that
they are no longer JSON; one NULL) and a few random paths over them (keys
and indexes that exist and that do not, with 'lax', 'strict' or no mode,
and some malformed paths). weir computes, per document and path,
JSON_VALUE (with DEFAULT ... ON EMPTY / ON ERROR markers, so that empty
and error are told apart), JSON_EXISTS (with UNKNOWN ON ERROR), JSON_QUERY (with a
random wrapper; EMPTY ARRAY ON EMPTY, EMPTY OBJECT ON ERROR), JSON_VALUE
RETURNING a random type (INT, INTEGER, BIGINT, DOUBLE, BOOLEAN, VARCHAR,
STRING) with random NULL / DEFAULT ON EMPTY / ON ERROR (ERROR ON ... where
no document is empty / an error, as the job would fail) and, per
document, IS JSON [VALUE|SCALAR|ARRAY|OBJECT], with `weir run` at a random
parallelism. The values include the hard cases for RETURNING: -0, -0.0,
1e2, integers beyond BIGINT, 1e400, numbers and words in strings.

The oracle shares no code with weir: Python's json module decides what is
JSON (NaN and Infinity refused, as RFC 8259 does) and parses it; the path
is walked here as Flink documents the modes: in strict mode (the default) a
missing key, an index past the end or a step on the wrong kind of value is
an error, in lax mode it is empty. JSON_VALUE gives strings unquoted,
true/false, integers as written and other numbers as Java prints a double;
JSON null, objects and arrays give the empty result in lax mode, and
objects and arrays an error in strict mode. RETURNING converts the scalar
as Flink's JSON_VALUE does (convert below).

Usage: json_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_JSONDIFF_JOBS (jobs).
"""

import decimal
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402
from javanum import double_text  # noqa: E402  (Java's Double.toString)

KEYS = ["a", "b", "c", "name", "x y", "k.1", "\u00e9t\u00e9", "n"]
STRS = ["", "a", "hello", "x\"y", "back\\slash", "tab\there", "\u00e9", "\U0001F600", "1", "true", "line\nbreak"]
# strings that RETURNING reads as numbers or booleans (or nearly)
NUM_STRS = ["12", " 12 ", "-0", "-0.0", "+7", "1.5", "1e2", ".5", "5.", "2147483648", "9223372036854775808",
            "0.30000000000000004", "NaN", "Infinity", "1e400", "0x10", "1 2", "TRUE", " t", "yes", "NO", "0", "f", "Y", " n"]
INTS = ["0", "-0", "1", "-7", "42", "123456789", str(2 ** 40), str(-(2 ** 62)), "2147483647", "-2147483648",
        "2147483648", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "-123456789012345678901234567890"]
FLOATS = ["1.5", "-0.25", "2.50", "1e2", "1E+2", "1.5E1", "0.125", "-3.0", "100.75", "-0.0", "-0e0",
          "0.30000000000000004", "0.1", "2147483647.0", "9223372036854775807.0", "1e400", "-2.5e-3", "1E-400"]


class Raw:
    """A number kept as its JSON text."""

    def __init__(self, text):
        self.text = text


def gen_value(rng, depth):
    r = rng.random()
    if depth < 3 and r < 0.25:
        return {rng.choice(KEYS): gen_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if depth < 3 and r < 0.40:
        return [gen_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    r = rng.random()
    if r < 0.2:
        return rng.choice(STRS)
    if r < 0.3:
        return rng.choice(NUM_STRS)
    if r < 0.55:
        return Raw(rng.choice(INTS))
    if r < 0.7:
        return Raw(rng.choice(FLOATS))
    if r < 0.85:
        return rng.choice([True, False])
    return None


def ws(rng):
    return rng.choice(["", "", "", " ", "\n", " \t", "\r\n "])


def enc_str(rng, s):
    if rng.random() < 0.5:
        return json.dumps(s, ensure_ascii=rng.random() < 0.5)
    out = []
    for ch in s:
        if rng.random() < 0.3 and ord(ch) < 0x10000:
            out.append("\\u%04x" % ord(ch))
        elif ch == "/" or rng.random() < 0.05:
            out.append("\\/" if ch == "/" else json.dumps(ch)[1:-1])
        else:
            out.append(json.dumps(ch, ensure_ascii=False)[1:-1])
    return '"' + "".join(out) + '"'


def write(rng, v):
    if isinstance(v, dict):
        items = [ws(rng) + enc_str(rng, k) + ws(rng) + ":" + ws(rng) + write(rng, x) + ws(rng)
                 for k, x in v.items()]
        # a duplicate key now and then: the last one wins
        if items and rng.random() < 0.1:
            k = rng.choice(list(v.keys()))
            items.insert(0, enc_str(rng, k) + ":" + write(rng, gen_value(rng, 3)))
        return "{" + ",".join(items) + ws(rng) + "}"
    if isinstance(v, list):
        return "[" + ",".join(ws(rng) + write(rng, x) + ws(rng) for x in v) + ws(rng) + "]"
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, str):
        return enc_str(rng, v)
    return json.dumps(v)


def damage(rng, text):
    r = rng.random()
    if r < 0.25 and len(text) > 1:
        return text[: rng.randrange(1, len(text))]
    if r < 0.5:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(["}", ",", "x", "'", "NaN", "\x01", "]"]) + text[i:]
    if r < 0.7:
        return text + rng.choice([" x", ",", "}", " 1"])
    if r < 0.85:
        return rng.choice(["", " ", "tru", "nul", "01", "1.", "-", "[1,]", "{\"a\" 1}", "{'a': 1}", "Infinity"])
    return text.replace('"', "'", 1)


def parse(text):
    """The parsed document, or an exception if text is not JSON."""
    def no_const(c):
        raise ValueError("not JSON: " + c)
    return json.loads(text, parse_constant=no_const)


def gen_path(rng, doc):
    """(path text, steps or None if malformed, strict)."""
    mode = rng.choice(["", "", "lax ", "strict ", "LAX  "])
    strict = not mode.strip() or mode.strip().lower() == "strict"
    if rng.random() < 0.08:
        return mode + rng.choice(["$.", "$[", "a.b", "$[x]", "$.a b", "$[1", "$[-1]", ""]), None, strict
    steps = []
    cur = doc
    for _ in range(rng.randint(0, 4)):
        if isinstance(cur, dict) and cur and rng.random() < 0.8:
            k = rng.choice(list(cur.keys()))
            steps.append(k)
            cur = cur[k]
        elif isinstance(cur, list) and cur and rng.random() < 0.8:
            i = rng.randrange(len(cur))
            steps.append(i)
            cur = cur[i]
        else:
            steps.append(rng.choice(KEYS) if rng.random() < 0.6 else rng.randint(0, 3))
            cur = None
    text = "$"
    for s in steps:
        if isinstance(s, int):
            text += "[%d]" % s
        elif s.isidentifier() and s.isascii():
            text += "." + s
        else:
            text += '["%s"]' % s
    return mode + text, steps, strict


EMPTY, ERROR = object(), object()


def walk(doc, steps, strict):
    cur = doc
    for s in steps:
        if isinstance(s, int):
            ok = isinstance(cur, list) and s < len(cur)
        else:
            ok = isinstance(cur, dict) and s in cur
        if not ok:
            return ERROR if strict else EMPTY
        cur = cur[s]
    return cur




def scalar_text(raw_doc_value):
    v = raw_doc_value
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    return double_text(v)


def oracle(text, path, steps, strict):
    """(JSON_VALUE with markers, JSON_EXISTS with UNKNOWN ON ERROR)."""
    if text is None:
        return None, None
    try:
        doc = parse(text)
    except (ValueError, RecursionError):
        return "ERR", None
    if steps is None:
        return "ERR", None
    v = walk(doc, steps, strict)
    if v is ERROR:
        return "ERR", None
    if v is EMPTY:
        return "EMPTY", False
    exists = v is not None
    if v is None:
        return "EMPTY", exists
    if isinstance(v, (dict, list)):
        return ("ERR" if strict else "EMPTY"), exists
    return scalar_text(v), exists


def parse_nums(text):
    """parse(text), numbers as Raw."""
    def no_const(c):
        raise ValueError("not JSON: " + c)
    return json.loads(text, parse_int=Raw, parse_float=Raw, parse_constant=no_const)


# A number as Java's BigDecimal reads it (what a string may hold for RETURNING a number type).
DECIMAL_TEXT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
JAVA_BLANKS = "".join(chr(c) for c in range(33))  # what Java's String.trim() removes
INT_RANGE = {"INT": 31, "BIGINT": 63}


def convert_number(t, rtype):
    """The decimal text t as rtype (INT, BIGINT, DOUBLE), or ERROR: INT and BIGINT
    take whole numbers in range (exactly: 9223372036854775807.0 fits, 1.5 and
    2147483648 do not fit INT), DOUBLE any finite number, the integer -0 (no
    point, no exponent) being 0."""
    if rtype == "DOUBLE":
        f = float(t)
        if math.isinf(f):
            return ERROR
        if f == 0 and not any(c in t for c in ".eE"):
            return 0.0
        return f
    d = decimal.Decimal(t)
    if d != d.to_integral_value():
        return ERROR
    i = int(d)
    bits = INT_RANGE[rtype]
    return i if -(2 ** bits) <= i < 2 ** bits else ERROR


def convert(v, rtype):
    """The scalar v (bool, str or Raw) as rtype, or ERROR."""
    if isinstance(v, bool):
        return v if rtype == "BOOLEAN" else ERROR
    if isinstance(v, Raw):
        return ERROR if rtype == "BOOLEAN" else convert_number(v.text, rtype)
    t = v.strip(JAVA_BLANKS)
    if rtype == "BOOLEAN":
        w = t.lower()
        if w in ("true", "t", "yes", "y", "1"):
            return True
        if w in ("false", "f", "no", "n", "0"):
            return False
        return ERROR
    return convert_number(t, rtype) if DECIMAL_TEXT.match(t) else ERROR


def oracle_returning(text, path, steps, strict, rtype):
    """JSON_VALUE ... RETURNING rtype before ON EMPTY / ON ERROR: the value, EMPTY,
    ERROR, or None for a NULL document."""
    if rtype == "STRING":
        v = oracle(text, path, steps, strict)[0]
        return {"EMPTY": EMPTY, "ERR": ERROR}.get(v, v)
    if text is None:
        return None
    try:
        doc = parse_nums(text)
    except (ValueError, RecursionError):
        return ERROR
    if steps is None:
        return ERROR
    v = walk(doc, steps, strict)
    if v is ERROR or v is EMPTY or v is None:
        return EMPTY if v is None else v
    if isinstance(v, (dict, list)):
        return ERROR if strict else EMPTY
    return convert(v, rtype)


RETURNING = ["INT", "INTEGER", "BIGINT", "DOUBLE", "BOOLEAN", "VARCHAR", "STRING"]


def gen_returning(rng):
    """(SQL type, type for the oracle, [ON EMPTY, ON ERROR] as (SQL, value) or None if left out)."""
    sql = rng.choice(RETURNING)
    rtype = {"INTEGER": "INT", "VARCHAR": "STRING"}.get(sql, sql)
    marks = {"INT": [("-111", -111), ("-222", -222)],
             "BIGINT": [("7000000000", 7000000000), ("-7000000000", -7000000000)],
             "DOUBLE": [("-1.5", -1.5), ("2.25E3", 2250.0)],
             "BOOLEAN": [("TRUE", True), ("FALSE", False)],
             "STRING": [("'EMPTY'", "EMPTY"), ("'ERR'", "ERR")]}[rtype]
    clauses = []
    for k in range(2):
        r = rng.random()
        if r < 0.2:
            clauses.append(None)  # NULL, left out
        elif r < 0.4:
            clauses.append(("NULL", None))
        else:
            lit, v = marks[k] if rtype != "BOOLEAN" else rng.choice(marks)
            clauses.append(("DEFAULT " + lit, v))
    return sql, rtype, clauses


def same(got, want):
    """got (read back from JSON) is want, by type; a DOUBLE's sign of zero counts."""
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return got is want
    if isinstance(want, float):
        return isinstance(got, (int, float)) and got == want and math.copysign(1, got) == math.copysign(1, want)
    return type(got) is type(want) and got == want


def ser(v):
    """Compact JSON as Flink writes it (integers as written, other numbers as Java doubles,
    one past a double's range as the string "Infinity")."""
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + ser(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(ser(x) for x in v) + "]"
    if v is None:
        return "null"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, float) and math.isinf(v):
        return json.dumps(double_text(v))  # not a JSON number: a string, as Jackson writes one
    return scalar_text(v)


def has_dup_keys(text):
    dup = [False]

    def hook(pairs):
        if len({k for k, _ in pairs}) != len(pairs):
            dup[0] = True
        return dict(pairs)
    try:
        json.loads(text, object_pairs_hook=hook)
    except ValueError:
        pass
    return dup[0]


def oracle_query(text, steps, strict, wrapper):
    """JSON_QUERY with EMPTY ARRAY ON EMPTY, EMPTY OBJECT ON ERROR."""
    if text is None:
        return None
    try:
        doc = parse(text)
    except (ValueError, RecursionError):
        return "{}"
    if steps is None:
        return "{}"
    v = walk(doc, steps, strict)
    if v is ERROR:
        return "{}"
    if v is EMPTY or v is None:
        return "[]"
    if wrapper == "" and not isinstance(v, (dict, list)):
        return "{}" if strict else "[]"
    if wrapper == "WITH UNCONDITIONAL ARRAY WRAPPER" or (wrapper and not isinstance(v, list)):
        return "[" + ser(v) + "]"
    return ser(v)


def is_json(text):
    if text is None:
        return [False] * 4
    try:
        d = parse(text)
    except (ValueError, RecursionError):
        return [False] * 4
    return [True, not isinstance(d, (dict, list)), isinstance(d, list), isinstance(d, dict)]


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def run_job(weir, rng, folder, timeout=120):
    docs = []
    values = []
    for _ in range(rng.choice([1, 5, 20, 60])):
        v = gen_value(rng, 0) if rng.random() < 0.5 else {k: gen_value(rng, 1) for k in rng.sample(KEYS, 3)}
        text = ws(rng) + write(rng, v) + ws(rng)
        if rng.random() < 0.2:
            text = damage(rng, text)
        docs.append(text)
        try:
            values.append(parse(text))
        except (ValueError, RecursionError):
            values.append(None)
    docs.append(None)
    values.append(None)
    paths = []
    parsed = [v for v in values if v is not None] or [None]
    for _ in range(rng.randint(2, 6)):
        base = rng.choice(parsed)
        paths.append(gen_path(rng, base))
    with open(os.path.join(folder, "in.json"), "w", encoding="utf-8") as f:
        for i, s in enumerate(docs):
            f.write(json.dumps({"id": i, "s": s}) + "\n")
    wrappers = [rng.choice(["", "WITH CONDITIONAL ARRAY WRAPPER", "WITH UNCONDITIONAL ARRAY WRAPPER"])
                for _ in paths]
    cols = ["j0 BOOLEAN", "j1 BOOLEAN", "j2 BOOLEAN", "j3 BOOLEAN"]
    outcols = ["s IS JSON", "s IS JSON SCALAR", "s IS JSON ARRAY", "s IS JSON OBJECT"]
    rets = []  # per path: JSON_VALUE ... RETURNING: (SQL type, oracle type, clauses, expected per document)
    for k, (p, steps, strict) in enumerate(paths):
        q = sql_str(p)
        sql_type, rtype, clauses = gen_returning(rng)
        want = [oracle_returning(s, p, steps, strict, rtype) for s in docs]
        # ERROR ON EMPTY / ON ERROR fails the job: only where no document is empty / an error
        for c, case in enumerate((EMPTY, ERROR)):
            if all(w is not case for w in want) and rng.random() < 0.5:
                clauses[c] = ("ERROR", None)
        rets.append((sql_type, rtype, clauses, want))
        on = " ".join("%s ON %s" % (c[0], ("EMPTY", "ERROR")[i]) for i, c in enumerate(clauses) if c)
        cols += ["v%d STRING" % k, "e%d BOOLEAN" % k, "q%d STRING" % k,
                 "r%d %s" % (k, {"INT": "INT", "STRING": "STRING"}.get(rtype, rtype))]
        outcols += ["JSON_VALUE(s, %s DEFAULT 'EMPTY' ON EMPTY DEFAULT 'ERR' ON ERROR)" % q,
                    "JSON_EXISTS(s, %s UNKNOWN ON ERROR)" % q,
                    "JSON_QUERY(s, %s %s EMPTY ARRAY ON EMPTY EMPTY OBJECT ON ERROR)" % (q, wrappers[k]),
                    "JSON_VALUE(s, %s RETURNING %s %s)" % (q, sql_type, on)]
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
    if p.returncode != 0:
        return ["weir exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-2000:])]
    got = diffrun.json_rows_by_id(os.path.join(folder, "out"))
    problems = []
    if len(got) != len(docs):
        problems.append("expected %d rows, got %d" % (len(docs), len(got)))
    for i, s in enumerate(docs):
        row = got.get(i)
        if row is None:
            continue
        for k, w in enumerate(is_json(s)):
            if row.get("j%d" % k) != w:
                problems.append("doc %r: j%d = %r, expected %r" % (s, k, row.get("j%d" % k), w))
        for k, (path, steps, strict) in enumerate(paths):
            wv, we = oracle(s, path, steps, strict)
            if row.get("v%d" % k) != wv:
                problems.append("doc %r path %r: JSON_VALUE = %r, expected %r" % (s, path, row.get("v%d" % k), wv))
            if row.get("e%d" % k) != we:
                problems.append("doc %r path %r: JSON_EXISTS = %r, expected %r" % (s, path, row.get("e%d" % k), we))
            sql_type, rtype, clauses, want = rets[k]
            w = want[i]
            if w is EMPTY or w is ERROR:
                c = clauses[0 if w is EMPTY else 1]
                w = c[1] if c else None
            if not same(row.get("r%d" % k), w):
                problems.append("doc %r path %r: JSON_VALUE RETURNING %s %s = %r, expected %r"
                                % (s, path, sql_type, clauses, row.get("r%d" % k), w))
            if s is not None and has_dup_keys(s):
                continue  # JSON_QUERY writes duplicate keys as they are; Flink keeps the last
            wq = oracle_query(s, steps, strict, wrappers[k])
            if row.get("q%d" % k) != wq:
                problems.append("doc %r path %r %s: JSON_QUERY = %r, expected %r"
                                % (s, path, wrappers[k], row.get("q%d" % k), wq))
    return problems


def main():
    return diffrun.main("json_diff", lambda c: run_job(c.weir, c.rng, c.folder), jobs_env="WEIR_JSONDIFF_JOBS",
                        jobs=20, asan_jobs=6, one_env="WEIR_JSONDIFF_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
