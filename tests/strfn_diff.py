#!/usr/bin/env python3
"""Randomized differential test of weir's string, URL, encoding and hash
functions: OVERLAY, TRANSLATE, SUBSTRING_INDEX, ELT, CHR, IS_ALPHA,
IS_DIGIT, IS_DECIMAL, URL_ENCODE, URL_DECODE, PARSE_URL, STR_TO_MAP, ENCODE,
DECODE, HEX, BIN, UNHEX, MD5, SHA1, SHA224, SHA256, SHA384, SHA512, SHA2;
and of ARRAY_AGG (RESPECT / IGNORE NULLS), JSON_ARRAYAGG (ABSENT / NULL
ON NULL) and JSON_OBJECTAGG (NULL / ABSENT ON NULL, keyed by the row
number's text) in tumbling windows, against lists kept in arrival order
per key and window and dicts by key (JSON text from Python's json module),
and PERCENTILE (with and without DISTINCT, with a frequency, with an ARRAY of
percentages) against sorted lists; ARRAY_AGG(DISTINCT) against first-seen
lists, in windows and over a bounded ROWS frame (which retracts).

Each job is a set of random rows (strings over an alphabet of ASCII,
accented and CJK letters, digits of other scripts, an emoji, delimiters and
percent escapes; numbers; URLs put together from random parts, some of them
broken), run through `weir run` at a random parallelism with every function
in one projection, written as JSON.

The oracle shares no code with weir: Python's hashlib, urllib.parse,
codecs, unicodedata and str methods, and the rules of Flink's functions
written out here (OVERLAY keeps the string for a start outside [1, length]
and the rest only for a positive length ending inside it; TRANSLATE maps
by the first occurrence in fromStr and drops characters without a
partner; SUBSTRING_INDEX searches overlapping occurrences; IS_DECIMAL is
what Java's Long.parseLong or Double.parseDouble accepts; PARSE_URL's parts
are known because the URL was put together from them).

Usage: strfn_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED (seed), WEIR_STRFNDIFF_JOBS (jobs), WEIR_STRFNDIFF_JOB (one job).
"""

import hashlib
import json
import math
import os
import re
import sys
import unicodedata
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

ALPHABET = (list("abcxyzABZ019 .,;:=&/?#%+-*_~@") + ["\u00e9", "\u00f6", "\u4e2d", "\u0663", "\u0969", "\U0001F600",
                                                     "\u00df", "'", "\"", "\\"])
NUMERIC = ["1", "-12", "+3", "1.5", ".5", "5.", "1e10", "1.5E-3", " 7 ", "2f", "2.5D", "NaN", "-Infinity",
           "0x1p3", "0X1.8P-1", "\u0663\u0664", "9223372036854775807", "9223372036854775808", "1e", "e5", ".",
           "1.2.3", "--1", "nan", "0x1", "1 2", "Inf", "12a", "", "\u0969"]


def rand_str(rng, maxlen=12):
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, maxlen)))


def short(rng):
    return "".join(rng.choice(ALPHABET[:12] + ["\u00e9", "\u4e2d", "."]) for _ in range(rng.randint(0, 3)))


# ---- the models ----

def overlay(s, r, start, length):
    if s is None or r is None or start is None or length is None:
        return None
    n = len(s)
    if start < 1 or start > n:
        return s
    out = s[:start - 1] + r
    if length > 0 and start + length <= n:
        out += s[start - 1 + length:]
    return out


def translate(s, f, t):
    if s is None:
        return None
    if not f:
        return s
    t = t or ""
    out = []
    for ch in s:
        k = f.find(ch)
        if k < 0:
            out.append(ch)
        elif k < len(t):
            out.append(t[k])
    return "".join(out)


def substring_index(s, d, count):
    if s is None or d is None or count is None:
        return None
    if not d or not count or not s:
        return ""
    if count > 0:
        idx = -1
        for _ in range(count):
            idx = s.find(d, idx + 1)
            if idx < 0:
                return s
        return s[:idx]
    idx = len(s)
    for _ in range(-count):
        idx = s.rfind(d, 0, idx - 1 + len(d)) if idx - 1 >= 0 else -1
        if idx < 0:
            return s
    return s[idx + len(d):]


def is_alpha(s):
    return bool(s) and all(unicodedata.category(c).startswith("L") for c in s)


def is_digit(s):
    return bool(s) and all(unicodedata.category(c) == "Nd" for c in s)


DOUBLE_RE = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|"
                       r"\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)", re.ASCII)


def is_decimal(s):
    if not s:
        return False
    body = s[1:] if s[0] in "+-" else s
    if body and all(unicodedata.category(c) == "Nd" for c in body):
        v = int("".join(str(unicodedata.decimal(c)) for c in body))
        if (-v if s[0] == "-" else v) in range(-2 ** 63, 2 ** 63):
            return True
    t = s
    while t and ord(t[0]) <= 32:
        t = t[1:]
    while t and ord(t[-1]) <= 32:
        t = t[:-1]
    return DOUBLE_RE.fullmatch(t) is not None


def url_encode(s):
    return None if s is None else urllib.parse.quote_plus(s, safe="*").replace("~", "%7E")


def url_decode(s):
    """Java's URLDecoder: '+' is a space; each run of %XX escapes is bytes
    decoded as UTF-8 (U+FFFD for what is not); the two characters after a
    '%' are read by Integer.parseInt(x, 16), which takes a sign and refuses
    a negative value; anything else malformed throws (NULL)."""
    if s is None:
        return None
    out, k = [], 0
    while k < len(s):
        if s[k] != "%":
            out.append(" " if s[k] == "+" else s[k])
            k += 1
            continue
        run = bytearray()
        while k < len(s) and s[k] == "%":
            two = s[k + 1:k + 3]
            if len(two) < 2 or not re.fullmatch(r"[+-]?[0-9A-Fa-f]+", two, re.ASCII):
                return None
            v = int(two, 16)
            if v < 0:
                return None
            run.append(v)
            k += 3
        out.append(run.decode("utf-8", errors="replace"))
    return "".join(out)


def str_to_map(s, ld, kd):
    if s is None:
        return None
    m = {}
    if not s:
        return m
    pieces = s.split(ld)
    if len(pieces) > 1:
        while pieces and pieces[-1] == "":
            pieces.pop()
    for p in pieces:
        k, sep, v = p.partition(kd)
        m[k] = v if sep else None
    return m


def java_encode(s, cs):
    if cs == "UTF-16":
        return b"\xfe\xff" + s.encode("utf-16-be")
    return s.encode({"US-ASCII": "ascii", "ISO-8859-1": "latin-1", "UTF-8": "utf-8", "UTF-16BE": "utf-16-be",
                     "UTF-16LE": "utf-16-le"}[cs], errors="replace")


def java_decode(b, cs):
    if cs == "UTF-16":
        if b[:2] == b"\xfe\xff":
            return java_decode(b[2:], "UTF-16BE")
        if b[:2] == b"\xff\xfe":
            return java_decode(b[2:], "UTF-16LE")
        return java_decode(b, "UTF-16BE")
    if cs == "US-ASCII":
        return "".join(chr(x) if x < 128 else "\ufffd" for x in b)
    return b.decode({"ISO-8859-1": "latin-1", "UTF-8": "utf-8", "UTF-16BE": "utf-16-be",
                     "UTF-16LE": "utf-16-le"}[cs], errors="replace")


def twos(n, base):
    v = n & (2 ** 64 - 1)
    return format(v, "b" if base == 2 else "X")


def unhex(h):
    if h is None:
        return None
    if len(h) % 2:  # the odd first digit is checked, then read as 0
        if not re.fullmatch(r"[0-9A-Fa-f]", h[0]):
            return None
        h = "00" + h[1:]
    try:
        if not re.fullmatch(r"[0-9A-Fa-f]*", h):
            return None
        return bytes.fromhex(h).decode("latin-1")
    except ValueError:
        return None


SCHEMES = ["http", "https", "ftp", "file", "HTTP", "gopher", "x-y"]


def gen_url(rng):
    """A URL put together from parts, and the parts java.net.URL gives for it
    (None for the whole: a scheme without a handler)."""
    scheme = rng.choice(SCHEMES)
    auth = rng.random() < 0.85
    user = rng.choice([None, None, "alice", "a:b", ""])
    host = rng.choice(["example.com", "H.EXAMPLE.org", "127.0.0.1", "[::1]", ""])
    port = rng.choice([None, None, "8080", ""])
    path = rng.choice(["", "/", "/a", "/a/b.html", "/x%20y", "/\u00e9"])
    query = rng.choice([None, "", "k=v", "k1=v1&k2=v2&k1=v3", "a=&b", "k=a=b"])
    frag = rng.choice([None, "", "top", "s?x"])
    text = scheme + ":"
    authority = None
    if auth:
        authority = ("" if user is None else user + "@") + host + ("" if port is None else ":" + port)
        text += "//" + authority
    elif path.startswith("//"):
        path = path[1:]
    text += path
    if query is not None:
        text += "?" + query
    if frag is not None:
        text += "#" + frag
    if scheme.lower() not in ("http", "https", "ftp", "file"):
        return text, None
    parts = {"HOST": host if auth else "", "PATH": path, "QUERY": query, "REF": frag, "PROTOCOL": scheme.lower(),
             "FILE": path + ("" if query is None else "?" + query), "AUTHORITY": authority,
             "USERINFO": user if auth else None}
    return text, parts


def query_key(query, key):
    if query is None:
        return None
    m = re.search("(&|^)" + re.escape(key) + "=([^&]*)", query)
    return m.group(2) if m else None


CHARSETS = ["US-ASCII", "ISO-8859-1", "UTF-8", "UTF-16BE", "UTF-16LE", "UTF-16"]
HASHES = [("MD5", "md5"), ("SHA1", "sha1"), ("SHA224", "sha224"), ("SHA256", "sha256"), ("SHA384", "sha384"),
          ("SHA512", "sha512")]
URL_PARTS = ["HOST", "PATH", "QUERY", "REF", "PROTOCOL", "FILE", "AUTHORITY", "USERINFO"]


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def run_job(case):
    rng = case.rng
    n = rng.choice([1, 8, 40])
    rows = []
    for i in range(n):
        r = {"id": i}
        r["s"] = None if rng.random() < 0.08 else rand_str(rng)
        r["r"] = None if rng.random() < 0.05 else short(rng)
        r["a"] = None if rng.random() < 0.05 else rng.randint(-3, 16)
        r["b"] = None if rng.random() < 0.05 else rng.randint(-3, 16)
        r["c"] = rng.choice([None, -3, -2, -1, 0, 1, 2, 3])
        r["d"] = rng.choice([None, "", ".", "a", "aa", "\u00e9", ",", "=", "ab"])
        r["num"] = None if rng.random() < 0.05 else rng.choice(NUMERIC + [rand_str(rng, 3)])
        r["big"] = None if rng.random() < 0.05 else rng.choice([0, 1, -1, 255, 2 ** 40, -(2 ** 63), 2 ** 63 - 1,
                                                                  rng.randint(-10 ** 6, 10 ** 6)])
        r["hx"] = rng.choice([None, "", "A", "4142", "4G", "e9", "00ff7", "466C696E6B", "zz"])
        url, parts = gen_url(rng)
        if rng.random() < 0.05:
            url = rng.choice(["not a url", "", "http//x", "://x"])
            parts = None
        r["u"], r["parts"] = url, parts
        r["key"] = rng.choice(["k", "k1", "k2", "a", "b", ""])
        rows.append(r)
    f_from, f_to = rand_str(rng, 5), rng.choice([None, "", rand_str(rng, 5)])
    ld, kd = rng.choice([(",", "="), (";", ":"), ("&", "="), ("ab", "a"), ("=", ",")])
    cs1, cs2 = rng.choice(CHARSETS), rng.choice(CHARSETS)
    sha_bits = rng.choice([224, 256, 384, 512])
    part = rng.choice(URL_PARTS)
    cols, exprs = [], []

    def col(name, typ, expr):
        cols.append("%s %s" % (name, typ))
        exprs.append(expr)

    col("ov", "STRING", "OVERLAY(s PLACING r FROM a FOR b)")
    col("ov3", "STRING", "OVERLAY(s PLACING r FROM a)")
    col("tr", "STRING", "TRANSLATE(s, %s, %s)" % (sql_str(f_from), "CAST(NULL AS STRING)" if f_to is None
                                                   else sql_str(f_to)))
    col("si", "STRING", "SUBSTRING_INDEX(s, d, c)")
    col("el", "STRING", "ELT(MOD(ABS(a), 5), s, r, d)")  # 0 and 4: out of range, NULL
    col("ch", "STRING", "CHR(big)")
    col("ia", "BOOLEAN", "IS_ALPHA(s)")
    col("idg", "BOOLEAN", "IS_DIGIT(num)")
    col("idc", "BOOLEAN", "IS_DECIMAL(num)")
    col("ue", "STRING", "URL_ENCODE(s)")
    col("ud", "STRING", "URL_DECODE(s)")
    col("pu", "STRING", "PARSE_URL(u, %s)" % sql_str(part))
    col("pk", "STRING", "PARSE_URL(u, 'QUERY', key)")
    col("sm", "MAP<STRING, STRING>", "STR_TO_MAP(s, %s, %s)" % (sql_str(ld), sql_str(kd)))
    col("dc", "STRING", "DECODE(ENCODE(s, %s), %s)" % (sql_str(cs1), sql_str(cs2)))
    col("hs", "STRING", "HEX(s)")
    col("hn", "STRING", "HEX(big)")
    col("bn", "STRING", "BIN(big)")
    col("uh", "STRING", "DECODE(UNHEX(hx), 'ISO-8859-1')")
    for name, _ in HASHES:
        col("h_" + name, "STRING", "%s(s)" % name)
    col("h_sha2", "STRING", "SHA2(s, %d)" % sha_bits)
    with open(case.path("in.json"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({k: v for k, v in r.items() if k != "parts"}) + "\n")
    par = rng.choice([1, 2, 4])
    case.write("job.sql", "\n".join([
        "CREATE TABLE t (id INT, s STRING, r STRING, a INT, b INT, c INT, d STRING, num STRING, big BIGINT, "
        "hx STRING, u STRING, key STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');",
        "CREATE TABLE o (id INT, %s) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');"
        % ", ".join(cols),
        "INSERT INTO o SELECT id, %s FROM t;" % ", ".join(exprs)]) + "\n")
    case.note = "p=%d from=%r to=%r delims=%r charsets=%s,%s part=%s" % (par, f_from, f_to, (ld, kd), cs1, cs2, part)
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
        s = r["s"]
        want = {
            "ov": overlay(s, r["r"], r["a"], r["b"]),
            "ov3": overlay(s, r["r"], r["a"], None if r["r"] is None else len(r["r"])),
            "tr": translate(s, f_from, f_to),
            "si": substring_index(s, r["d"], r["c"]),
            "el": None if r["a"] is None else [None, s, r["r"], r["d"], None][abs(r["a"]) % 5],
            "ch": None if r["big"] is None else ("" if r["big"] < 0 else chr(r["big"] & 0xFF)),
            "ia": s is not None and is_alpha(s),
            "idg": r["num"] is not None and is_digit(r["num"]),
            "idc": r["num"] is not None and is_decimal(r["num"]),
            "ue": url_encode(s),
            "ud": url_decode(s),
            "pu": None if r["parts"] is None else r["parts"][part],
            "pk": None if r["parts"] is None or r["key"] is None else query_key(r["parts"]["QUERY"], r["key"]),
            "sm": str_to_map(s, ld, kd),
            "dc": None if s is None else java_decode(java_encode(s, cs1), cs2),
            "hs": None if s is None else s.encode().hex().upper(),
            "hn": None if r["big"] is None else twos(r["big"], 16),
            "bn": None if r["big"] is None else twos(r["big"], 2),
            "uh": unhex(r["hx"]),
            "h_sha2": None if s is None else hashlib.new("sha%d" % sha_bits, s.encode()).hexdigest(),
        }
        for name, algo in HASHES:
            want["h_" + name] = None if s is None else hashlib.new(algo, s.encode()).hexdigest()
        for k, w in want.items():
            case.counts["values"] += 1
            if g.get(k) != w:
                problems.append("row %r: %s = %r, expected %r" % ({x: r[x] for x in r if x != "parts"}, k,
                                                                 g.get(k), w))
    return problems


def ts_text(t):
    """ms since the epoch as TIMESTAMP(3) text."""
    return "1970-01-01 %02d:%02d:%02d.%03d" % (t // 3600000, t // 60000 % 60, t // 1000 % 60, t % 1000)


def run_array_agg(case):
    """ARRAY_AGG in a tumbling window per key: the values in arrival order,
    NULLs kept (RESPECT NULLS, the default) or skipped (IGNORE NULLS, NULL
    when nothing is left); JSON_ARRAYAGG: the same as JSON text, NULLs left
    out (ABSENT ON NULL, the default: `[]` when nothing is left) or `null`."""
    rng = case.rng
    rows, ts = [], 0
    for i in range(rng.choice([1, 10, 60])):
        ts += rng.choice([0, 1, 50, 400, 1500])
        rows.append({"id": i, "k": rng.choice(["a", "b", "c"]), "v": None if rng.random() < 0.25 else rng.randint(-5, 5),
                     "s": None if rng.random() < 0.2 else short(rng), "ts": ts,
                     "f": None if rng.random() < 0.1 else rng.choice([0, 1, 1, 2, 3, 7])})
    with open(case.path("agg.json"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"i": r["id"], "k": r["k"], "v": r["v"], "s": r["s"], "ts": ts_text(r["ts"]),
                                "f": r["f"]}) + "\n")
    size = rng.choice([1000, 5000])
    par = rng.choice([1, 2, 4])
    pct = rng.choice(["0", "1", "0.5", "0.3", "0.25", "0.99", "0.01"])
    pcts = sorted(set(rng.sample(["0", "1", "0.5", "0.3", "0.25", "0.99", "0.01"], rng.randint(1, 3))), key=float)
    rng.shuffle(pcts)
    frame = rng.randint(0, 4)
    case.write("agg.sql", "\n".join([
        "CREATE TABLE t (i INT, k STRING, v INT, s STRING, ts TIMESTAMP(3), f INT, WATERMARK FOR ts AS ts) "
        "WITH ('connector' = 'filesystem', 'path' = 'agg.json', 'format' = 'json');",
        "CREATE TABLE o (k STRING, ws STRING, av ARRAY<INT>, ai ARRAY<INT>, asv ARRAY<STRING>, jv STRING, js STRING, "
        "ov STRING, os STRING, pc DOUBLE, pd DOUBLE, dv ARRAY<INT>, di ARRAY<INT>, ds ARRAY<STRING>, pf DOUBLE, "
        "pa ARRAY<DOUBLE>, paf ARRAY<DOUBLE>, pad ARRAY<DOUBLE>) WITH ('connector' = 'filesystem', 'path' = 'aggout', "
        "'format' = 'json');",
        "CREATE TABLE o2 (i INT, dv ARRAY<INT>, pf DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'overout', "
        "'format' = 'json');",
        "INSERT INTO o SELECT k, CAST(window_start AS STRING), ARRAY_AGG(v), "
        "ARRAY_AGG(v IGNORE NULLS), ARRAY_AGG(s), JSON_ARRAYAGG(v), JSON_ARRAYAGG(s NULL ON NULL), "
        "JSON_OBJECTAGG(KEY CAST(i AS STRING) VALUE v), JSON_OBJECTAGG(CAST(i * 7 AS STRING) VALUE s ABSENT ON NULL), "
        "PERCENTILE(v, %s), PERCENTILE(DISTINCT v, %s), ARRAY_AGG(DISTINCT v), ARRAY_AGG(DISTINCT v IGNORE NULLS), "
        "ARRAY_AGG(DISTINCT s), PERCENTILE(v, %s, f), PERCENTILE(v, ARRAY[%s]), PERCENTILE(v, ARRAY[%s], f), "
        "PERCENTILE(DISTINCT v, ARRAY[%s]) "
        "FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '%d' SECOND)) "
        "GROUP BY k, window_start, window_end;" % (pct, pct, pct, ", ".join(pcts), ", ".join(pcts), ", ".join(pcts),
                                                    size // 1000),
        # a bounded ROWS frame retracts: the leaving row goes first, then the new one comes
        "INSERT INTO o2 SELECT i, ARRAY_AGG(DISTINCT v) OVER w, PERCENTILE(v, %s, f) OVER w FROM t "
        "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN %d PRECEDING AND CURRENT ROW);" % (pct, frame)]) + "\n")
    p = case.run_weir(["run", "agg.sql", "-D", "parallelism.default=%d" % par])
    if p.returncode:
        return [diffrun.failed_run(p)]
    want = {}
    for r in rows:
        g = want.setdefault((r["k"], r["ts"] - r["ts"] % size), ([], [], [], {}, {}, []))
        g[0].append(r["v"])
        if r["v"] is not None:
            g[1].append(r["v"])
        g[2].append(r["s"])
        g[3][str(r["id"])] = r["v"]  # JSON_OBJECTAGG: NULL ON NULL
        if r["s"] is not None:
            g[4][str(r["id"] * 7)] = r["s"]
        if r["v"] is not None and r["f"] is not None:  # PERCENTILE's frequency: v counts f times
            g[5].extend([r["v"]] * r["f"])

    def first_seen(vals):
        """ARRAY_AGG(DISTINCT): each value once, in the order it first came; NULL when empty."""
        out = []
        for x in vals:
            if x not in out:
                out.append(x)
        return out or None

    def percentile(vals, p):
        """Flink's PERCENTILE: interpolated between the two nearest ranks."""
        vals = sorted(float(x) for x in vals if x is not None)
        if not vals:
            return None
        pos = float(p) * (len(vals) - 1)
        lo, hi = math.floor(pos), math.ceil(pos)
        if lo == hi or vals[lo] == vals[hi]:
            return vals[lo]
        return (hi - pos) * vals[lo] + (pos - lo) * vals[hi]

    def obj(d):
        """A JSON object with the keys in ascending order, as weir writes them."""
        return "{" + ",".join("%s:%s" % (json.dumps(k), "null" if d[k] is None else json.dumps(d[k], ensure_ascii=False))
                              for k in sorted(d)) + "}"
    def percentiles(vals, ps):
        """PERCENTILE with an ARRAY: one element per percentage, NULL without values."""
        return None if all(x is None for x in vals) else [percentile(vals, p) for p in ps]

    want_rows = [json.dumps([k, ts_text(ws), a, i or None, sv, "[" + ",".join(str(x) for x in i) + "]",
                             "[" + ",".join("null" if x is None else json.dumps(x, ensure_ascii=False) for x in sv) + "]",
                             obj(ov), obj(os_), percentile(a, pct), percentile(set(i), pct), first_seen(a),
                             first_seen(i), first_seen(sv), percentile(fv, pct), percentiles(a, pcts),
                             percentiles(fv, pcts), percentiles(list(set(i)), pcts)])
                 for (k, ws), (a, i, sv, ov, os_, fv) in want.items()]
    got_rows = [json.dumps([o["k"], o["ws"], o["av"], o["ai"], o["asv"], o["jv"], o["js"], o["ov"], o["os"],
                            o["pc"], o["pd"], o["dv"], o["di"], o["ds"], o["pf"], o["pa"], o["paf"], o["pad"]])
                for o in diffrun.json_rows(case.path("aggout"))]
    case.counts["windows"] += len(want_rows)
    problems = diffrun.multiset_problems("ARRAY_AGG p=%d size=%d" % (par, size), want_rows, got_rows)
    if problems:
        return problems
    # ARRAY_AGG(DISTINCT v) over the last frame + 1 rows of the key (in ts order, ties in arrival order):
    # a value stays while a row of it is in the frame, at the place where it came after it was last absent
    want_over, live = [], {}
    for r in sorted(rows, key=lambda r: (r["ts"], r["id"])):
        part = [x for x in rows if x["k"] == r["k"] and (x["ts"], x["id"]) <= (r["ts"], r["id"])]
        part.sort(key=lambda x: (x["ts"], x["id"]))
        order = live.setdefault(r["k"], [])
        leaving = part[-frame - 2] if len(part) > frame + 1 else None
        in_frame = [x["v"] for x in part[-frame - 1:]]
        if leaving is not None and leaving["v"] not in in_frame[:-1] and leaving["v"] in order:
            order.remove(leaving["v"])
        if r["v"] not in order:
            order.append(r["v"])
        fv = [x["v"] for x in part[-frame - 1:] if x["v"] is not None and x["f"] is not None for _ in range(x["f"])]
        want_over.append(json.dumps([r["id"], list(order), percentile(fv, pct)]))
    got_over = [json.dumps([o["i"], o["dv"], o["pf"]]) for o in diffrun.json_rows(case.path("overout"))]
    return diffrun.multiset_problems("ARRAY_AGG(DISTINCT) OVER %d PRECEDING p=%d" % (frame, par), want_over, got_over)


def run_case(case):
    return run_job(case) or run_array_agg(case)


def main():
    return diffrun.main("strfn_diff", run_case, jobs_env="WEIR_STRFNDIFF_JOBS", jobs=12, asan_jobs=3,
                        one_env="WEIR_STRFNDIFF_JOB", unit="jobs")


if __name__ == "__main__":
    sys.exit(main())
