#!/usr/bin/env python3
"""Randomized differential test of reading PARTITIONED BY filesystem tables.

Each case is a table of two data columns (id BIGINT, s STRING) and one to
three partition columns of random scalar types (STRING, TINYINT, SMALLINT,
INT, BIGINT, DOUBLE, FLOAT, DECIMAL(p, s), BOOLEAN, DATE, TIME(p),
TIMESTAMP(p) for p in 0, 3, 6, 9, TIMESTAMP_LTZ; values at the edges:
-0.0, NaN, infinities, 1e22, 1e-7, 0.1, the smallest subnormal, a
DECIMAL's largest digits, the first and last timestamps of 0001..9999 and
one just before 1970), the columns in a random order in the DDL, in CSV
or JSON, sometimes under a session time zone other than UTC, and a layout
of k=v folders made one of two ways:

  * round trip: a first `weir run` writes random rows through a
    PARTITIONED BY filesystem sink, each key CAST from a text (timestamps
    with digits below the millisecond, which weir does not keep: two texts
    that differ only there are one value and one partition); an empty
    STRING value goes to the default partition and so reads back as NULL.
    The folders the sink made must be exactly those of a model of
    docs/connectors.md ("Partitioned output": each type's folder text,
    Flink's %XX escaping, the default partition for NULL);
  * by hand: the test writes the folders itself, with Flink's %XX
    escaping of special characters, the default partition (sometimes a
    custom 'partition.default-name'), partition folders of a key order
    other than the DDL's, a subfolder inside a partition, and files that
    must not be read (above the partition level, hidden '_'/'.' names);
    a value's folder text is the sink's or another text that reads as
    the same value (Flink's `2024-01-01T10:00` for a TIMESTAMP, `1e-07`
    for a DOUBLE, more fraction digits than a TIME(p) keeps), sometimes
    two folders of different texts for one partition.

A second `weir run` reads the table at parallelism 1, 2 or 4 (sometimes in
byte ranges) with a random WHERE: conjunctions of conditions on partition
columns (=, <>, <, >, IN, IS [NOT] NULL, LIKE, OR of two) and on data
columns. The oracle shares no code with weir: it keeps the rows whose WHERE
is TRUE under SQL's three-valued logic (=, <, > with NaN FALSE and <> TRUE,
as Java compares doubles; -0.0 = 0.0), printed as the print connector prints
them (Double.toString, BigDecimal.toString, LocalDateTime / LocalTime /
Instant.toString), and counts the rows the source must read: those of the
partitions that make every conjunct reading partition columns alone TRUE
(the pruning), compared with the source's "rows read".

Cases whose files the test writes by hand also declare random METADATA
columns ('file.path', 'file.name', 'file.size', 'file.modification-time',
each file's time set by the test), among the others; the oracle takes them
from the file it wrote each row to (the absolute path with "." and ".."
resolved by name, whichever way the table's 'path' reaches the folder, its last part, its
size from the file system, the time as the print connector writes it).

Usage: partition_source_diff.py --weir BIN [--jobs N] [--seed S] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_PARTDIFF_JOB=i runs one case.
"""

import datetime
import decimal
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diffrun  # noqa: E402
from javanum import double_text  # noqa: E402  (Java's Double.toString)

KEY_TYPES = ["STRING", "INT", "BIGINT", "DATE", "TINYINT", "SMALLINT", "DOUBLE", "FLOAT", "DECIMAL",
             "BOOLEAN", "TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)", "TIMESTAMP_LTZ",
             "TIME", "TIME(1)", "TIME(3)", "TIME(6)"]
STRINGS = ["a", "b c", "x/y", "p=q", "50%", "#1", "k:v", "z"]
DATES = [datetime.date(2024, 1, 1) + datetime.timedelta(days=d) for d in (0, 1, 31, 400)]
DOUBLES = [-0.0, 0.0, float("nan"), 1e22, 1e-7, 0.1, 1.5, -2.5, 1e7, float("inf"), float("-inf"), 4.9e-324]
EPOCH = datetime.datetime(1970, 1, 1)
# wall-clock times (TIMESTAMP) and instants (TIMESTAMP_LTZ) in ms since 1970-01-01 00:00 UTC
MOMENTS = [(datetime.datetime(*t) - EPOCH) // datetime.timedelta(milliseconds=1) for t in
           [(2024, 1, 1), (2024, 1, 1, 10, 0, 0, 123000), (2024, 1, 1, 10, 0, 0, 124000),
            (1969, 12, 31, 23, 59, 59, 999000), (2024, 2, 29, 23, 59, 59, 500000), (1, 1, 1),
            (9999, 12, 31, 23, 59, 59, 999000), (2024, 1, 1, 10, 0, 30)]]
TIMES = [0, 36000000, 36000500, 86399999, 45296789]  # ms of the day
ZONES = ["UTC", "Asia/Kolkata", "America/New_York"]
ESCAPED = set('"#%\'*/:=?\\{[]^') | {chr(c) for c in range(0x20)} | {"\x7f"}
decimal.getcontext().prec = 80


def escape(text):
    return "".join("%%%02X" % ord(c) if c in ESCAPED else c for c in text)


def base(ty):
    return ty.split("(")[0]


def precision(ty):
    """TIME and TIMESTAMP: the declared fractional digits (weir keeps at most 3)."""
    m = re.search(r"\((\d+)\)", ty)
    return int(m.group(1)) if m else (0 if ty == "TIME" else 6 if ty == "TIMESTAMP" else 3)


def key_type(rng, name):
    ty = rng.choice(KEY_TYPES)
    if ty == "DECIMAL":
        p = rng.choice([1, 5, 10, 18, 19, 38])
        ty = "DECIMAL(%d, %d)" % (p, rng.choice(sorted({0, min(2, p), p // 2, p})))
    return ty


def dec_scale(ty):
    return [int(x) for x in re.findall(r"\d+", ty)]


def rand_key(rng, ty, allow_empty):
    """A value of a partition column (None: NULL), as weir holds it: TIME, TIMESTAMP and
    TIMESTAMP_LTZ values are whole milliseconds (TIME(p) and TIMESTAMP(p) of p < 3 digits: fewer)."""
    if rng.random() < 0.12:
        return None
    b = base(ty)
    if b == "STRING":
        return rng.choice(STRINGS + ([""] if allow_empty else []))
    if b == "DATE":
        return rng.choice(DATES)
    if b in ("DOUBLE", "FLOAT"):
        return rng.choice(DOUBLES)
    if b == "BOOLEAN":
        return rng.random() < 0.5
    if b == "DECIMAL":
        p, s = dec_scale(ty)
        top = 10 ** p - 1
        u = rng.choice([0, 1, -1, 5, -150, top, -top, rng.randint(-top, top)])
        return decimal.Decimal(max(-top, min(top, u))).scaleb(-s)
    if b in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        # whole at the type's digits below 3: the round trip writes them through CAST(... AS TIMESTAMP(p)),
        # which cuts the fraction there (a source column itself keeps what it reads)
        t = rng.choice(MOMENTS)
        return t - t % 10 ** (3 - min(precision(ty), 3))
    if b == "TIME":
        t = rng.choice(TIMES)
        return t - t % 10 ** (3 - min(precision(ty), 3))
    if rng.random() < 0.15:
        lim = {"TINYINT": 127, "SMALLINT": 32767, "INT": 2 ** 31 - 1, "BIGINT": 2 ** 63 - 1}[b]
        return rng.choice([lim, -lim - 1])
    return rng.randint(-3, 8)


def wall(ms):
    return EPOCH + datetime.timedelta(milliseconds=ms)


def time_text(ms, digits):
    """HH:mm:ss, then `digits` digits of the fraction (up to 3, then zeros)."""
    t = "%02d:%02d:%02d" % (ms // 3600000, ms // 60000 % 60, ms // 1000 % 60)
    return t + ("." + ("%03d" % (ms % 1000) + "0" * 6)[:digits] if digits else "")


def ts_text(ms, digits=3, sep=" "):
    d = wall(ms)
    return "%04d-%02d-%02d%s%s" % (d.year, d.month, d.day, sep, time_text(ms % 86400000, digits))


def local_time_str(ms):
    """Java's LocalTime.toString of a time of whole milliseconds."""
    t = "%02d:%02d" % (ms // 3600000, ms // 60000 % 60)
    if ms % 60000:
        t += ":%02d" % (ms // 1000 % 60)
    if ms % 1000:
        t += ".%03d" % (ms % 1000)
    return t


def folder_text(ty, v):
    """The text weir's sink names a partition folder with (before escaping), as
    docs/connectors.md ("Partitioned output") states it per type."""
    b = base(ty)
    if b == "STRING":
        return v
    if b in ("DOUBLE", "FLOAT"):
        return double_text(v)
    if b == "BOOLEAN":
        return "true" if v else "false"
    if b == "DECIMAL":
        return format(v, "f")  # every digit of the scale, never an exponent
    if b == "DATE":
        return v.isoformat()
    if b == "TIME":
        return time_text(v, min(precision(ty), 3))
    if b in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return ts_text(v)  # milliseconds always; TIMESTAMP_LTZ in UTC
    return str(v)


def some_text(rng, ty, v):
    """Some text that CAST (and a partition folder) reads as v."""
    b = base(ty)
    if b in ("DOUBLE", "FLOAT") and v == v and abs(v) != float("inf") and rng.random() < 0.5:
        return repr(v)  # 1e+22, 1e-07
    if b == "BOOLEAN" and rng.random() < 0.3:
        return "TRUE" if v else "FALSE"
    if b == "DECIMAL" and rng.random() < 0.4 and v == v.to_integral_value():
        return str(int(v))  # no fraction
    if b == "TIME":
        d = min(precision(ty), 3)
        # more digits than the type keeps are cut off (TIME(0) of 10:00:00.5 is 10:00:00)
        extra = rng.choice(["", "", "7", "456", "999999"])
        if d == 0:
            return time_text(v, 0) + ("." + extra if extra else "")
        return time_text(v, d) + extra
    if b == "TIMESTAMP":
        r = rng.random()
        if r < 0.3:  # as Flink's sink writes it (LocalDateTime.toString)
            return ts_text(v - v % 86400000)[:10] + "T" + local_time_str(v % 86400000)
        if r < 0.7:  # digits below the millisecond, which weir does not keep
            return ts_text(v) + str(rng.randint(0, 999999)).zfill(6)[:rng.randint(1, 6)]
    return folder_text(ty, v)


def write_expr(ty, col):
    """The sink's column from the STRING column col of the flat input."""
    if base(ty) == "STRING":
        return col
    if base(ty) == "TIMESTAMP_LTZ":
        return "TO_TIMESTAMP_LTZ(CAST(%s AS BIGINT), 3)" % col
    return "CAST(%s AS %s)" % (col, ty)


def write_text(rng, ty, v):
    if base(ty) == "TIMESTAMP_LTZ":
        return str(v)
    return some_text(rng, ty, v)


def text_of(v):
    if isinstance(v, datetime.date):
        return v.isoformat()
    return str(v)


def show(ty, v):
    """A value as the print connector writes it."""
    if v is None:
        return "null"
    b = base(ty)
    if b in ("DOUBLE", "FLOAT"):
        return double_text(v)
    if b == "BOOLEAN":
        return "true" if v else "false"
    if b == "DECIMAL":
        return str(v)  # BigDecimal.toString: 1E-10, 0E-10, -1.50
    if b == "TIME":
        return local_time_str(v)
    if b == "TIMESTAMP":
        return ts_text(v)[:10] + "T" + local_time_str(v % 86400000)
    if b == "TIMESTAMP_LTZ":
        return ts_text(v, 3 if v % 1000 else 0, "T") + "Z"
    return text_of(v)


def literal(ty, v):
    b = base(ty)
    if b == "STRING":
        return "'" + v.replace("'", "''") + "'"
    if b == "DATE":
        return "DATE '%s'" % v.isoformat()
    if b in ("DOUBLE", "FLOAT", "DECIMAL"):
        return "CAST('%s' AS %s)" % (folder_text(ty, v), ty)
    if b == "BOOLEAN":
        return "TRUE" if v else "FALSE"
    if b == "TIME":
        return "TIME '%s'" % time_text(v, 3)
    if b == "TIMESTAMP":
        return "TIMESTAMP '%s'" % ts_text(v)
    if b == "TIMESTAMP_LTZ":
        return "TO_TIMESTAMP_LTZ(%d, 3)" % v
    return str(v)


# ---- three-valued conditions: (sql, fn(row) -> True/False/None, keys_only)

def cmp(op, a, b):
    if a is None or b is None:
        return None
    return {"=": a == b, "<>": a != b, "<": a < b, ">": a > b}[op]


def like_prefix(v, prefix):
    return None if v is None else v.startswith(prefix)


META_KEYS = [("file.path", "STRING"), ("file.name", "STRING"), ("file.size", "BIGINT"),
             ("file.modification-time", "TIMESTAMP_LTZ(3)")]


def meta_value(key, rel, folder):
    """What METADATA column key reads for the file at rel (below folder)."""
    path = os.path.join(folder, rel)
    if key == "file.path":
        # the path of the file's URI, as Flink gives it: absolute, "." and ".." resolved by name
        return os.path.normpath(os.path.join(os.path.abspath(folder), rel))
    if key == "file.name":
        return os.path.basename(rel)
    st = os.stat(path)
    if key == "file.size":
        return str(st.st_size)
    ms = st.st_mtime_ns // 1000000
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


def rand_key_cond(rng, name, ty):
    r = rng.random()
    if r < 0.15:
        neg = rng.random() < 0.5
        return ("%s IS %sNULL" % (name, "NOT " if neg else ""),
                lambda row: (row[name] is not None) if neg else (row[name] is None))
    if r < 0.3:
        vals = [rand_key(rng, ty, False) for _ in range(rng.randint(1, 3))]
        vals = [v for v in vals if v is not None and v == v]  # no NULL or NaN in the list
        while not vals:
            vals = [v for v in [rand_key(rng, ty, False)] if v is not None and v == v]

        def f(row, vals=vals):
            v = row[name]
            return None if v is None else any(v == x for x in vals)  # = of each: NaN is in none
        return ("%s IN (%s)" % (name, ", ".join(literal(ty, v) for v in vals)), f)
    if ty == "STRING" and r < 0.4:
        p = rng.choice(["a", "x", "5", "b"])
        return ("%s LIKE '%s%%'" % (name, p), lambda row, p=p: like_prefix(row[name], p))
    v = None
    while v is None:
        v = rand_key(rng, ty, False)
    op = rng.choice(["=", "<>", "<", ">"])
    return ("%s %s %s" % (name, op, literal(ty, v)), lambda row, op=op, v=v: cmp(op, row[name], v))


def or3(a, b):
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def and3(values):
    out = True
    for v in values:
        if v is False:
            return False
        if v is None:
            out = None
    return out


def rand_where(rng, keys):
    """Conjuncts: (sql, fn, keys_only)."""
    conj = []
    for _ in range(rng.randint(0, 3)):
        r = rng.random()
        name, ty = rng.choice(keys)
        if r < 0.55:
            s, f = rand_key_cond(rng, name, ty)
            conj.append((s, f, True))
        elif r < 0.7:
            name2, ty2 = rng.choice(keys)
            s1, f1 = rand_key_cond(rng, name, ty)
            s2, f2 = rand_key_cond(rng, name2, ty2)
            conj.append(("(%s OR %s)" % (s1, s2), lambda row, f1=f1, f2=f2: or3(f1(row), f2(row)), True))
        elif r < 0.85:
            k = rng.randint(0, 40)
            conj.append(("id > %d" % k, lambda row, k=k: cmp(">", row["id"], k), False))
        else:
            s1, f1 = rand_key_cond(rng, name, ty)
            k = rng.randint(0, 40)
            conj.append(("(%s OR id < %d)" % (s1, k),
                         lambda row, f1=f1, k=k: or3(f1(row), cmp("<", row["id"], k)), False))
    return conj


def run_case(case):
    rng = case.rng
    nk = rng.randint(1, 3)
    keys = [("p%d" % i, key_type(rng, "p%d" % i)) for i in range(nk)]
    data = [("id", "BIGINT"), ("s", "STRING")]
    fmt = rng.choice(["csv", "json"])
    par = rng.choice([1, 2, 4])
    round_trip = rng.random() < 0.5
    # METADATA columns (files written by hand only: the oracle knows each row's file)
    metas = [] if round_trip else [("m%d" % i, k) for i, k in
                                   enumerate(rng.sample(META_KEYS, rng.randint(0, len(META_KEYS))))]
    cols = keys + data + [(name, ty) for name, (_, ty) in metas]
    rng.shuffle(cols)
    default_name = None if round_trip or rng.random() < 0.6 else "NULLPART"
    rows = []
    for i in range(rng.randint(0, 60)):
        row = {"id": i, "s": "s%d" % rng.randint(0, 9)}
        for name, ty in keys:
            row[name] = rand_key(rng, ty, True)
        rows.append(row)
    meta_of = {name: key for name, (key, _) in metas}
    ddl_cols = ", ".join("%s %s" % c for c in cols if c[0] not in meta_of)
    read_cols = ", ".join("%s %s" % c + (" NOT NULL METADATA FROM '%s'%s" % (meta_of[c[0]], rng.choice(["", " VIRTUAL"]))
                                         if c[0] in meta_of else "") for c in cols)
    data_order = [c for c in cols if c in data]
    # the table's folder written in one of several ways that reach it (file.path is normalised)
    tpath = rng.choice(["tbl", "./tbl", "tbl/", ".//tbl", "../%s/tbl" % os.path.basename(case.folder)])
    opts = "'connector' = 'filesystem', 'path' = '%s', 'format' = '%s'" % (tpath, fmt)
    if default_name:
        opts += ", 'partition.default-name' = '%s'" % default_name
    table = "CREATE TABLE t (%s) PARTITIONED BY (%s) WITH (%s" % (ddl_cols, ", ".join(k for k, _ in keys), opts)
    # the session's time zone changes neither the folder of a TIMESTAMP_LTZ (UTC) nor how it reads
    zone = "SET 'table.local-time-zone' = '%s';\n" % rng.choice(ZONES) if rng.random() < 0.5 else ""
    key_type_of = dict(keys)
    problems = []
    ignored = 0
    if round_trip:
        # the key columns come in as text and are CAST to their types on the way in
        flat_cols = ", ".join("%s %s" % (c, "STRING" if c in key_type_of else ty)
                              for c, ty in cols if c not in meta_of)
        case.write("flat.json", "".join(json.dumps({k: (write_text(rng, key_type_of[k], v) if k in key_type_of
                                                        and v is not None else v)
                                                    for k, v in r.items()}) + "\n" for r in rows))
        case.write("write.sql", "%sCREATE TABLE flat (%s) WITH ('connector' = 'filesystem', 'path' = 'flat.json', "
                   "'format' = 'json');\n%s);\nINSERT INTO t SELECT %s FROM flat;\n"
                   % (zone, flat_cols, table, ", ".join(write_expr(key_type_of[c], c) if c in key_type_of else c
                                                         for c, _ in cols if c not in meta_of)))
        p = case.run_weir(["run", "write.sql", "-D", "parallelism.default=%d" % rng.choice([1, 2])])
        if p.returncode:
            return ["writing: " + diffrun.failed_run(p)]
        for r in rows:  # the sink writes an empty value as the default partition
            for name, ty in keys:
                if r[name] == "":
                    r[name] = None
        # the folders the sink made: one k=v level per key in PARTITIONED BY order, each value
        # its type's folder text, escaped; NULL the default partition
        want_dirs = {"/".join("%s=%s" % (name, "__DEFAULT_PARTITION__" if r[name] is None
                                         else escape(folder_text(ty, r[name]))) for name, ty in keys)
                     for r in rows}
        got_dirs = set()
        for d, _, files in os.walk(case.path("tbl")):
            if any(not f.startswith((".", "_")) for f in files):
                got_dirs.add(os.path.relpath(d, case.path("tbl")))
        case.counts["folders"] += len(got_dirs)
        if got_dirs != want_dirs:
            problems.append("the sink's folders: missing %s, not expected %s"
                            % (sorted(want_dirs - got_dirs), sorted(got_dirs - want_dirs)))
    else:
        # by hand: one or more files per partition, folders in a random key order per partition
        parts = {}
        for r in rows:  # by folder text: NaN is one partition, -0.0 and 0.0 two
            parts.setdefault(tuple(None if r[k] is None else folder_text(ty, r[k]) for k, ty in keys),
                             []).append(r)
        dflt = default_name or "__DEFAULT_PARTITION__"
        for prs in parts.values():
            order = list(range(nk))
            if rng.random() < 0.2:
                rng.shuffle(order)
            # a value's folder text: the sink's, or another that reads as the same value
            pv = [prs[0][k] for k, _ in keys]

            def make_folder(pv=pv, order=order):
                return os.path.join(case.folder, "tbl", *["%s=%s" % (keys[i][0], dflt if pv[i] is None else
                                                                      escape(some_text(rng, keys[i][1], pv[i])))
                                                          for i in order])
            folder = make_folder()
            if rng.random() < 0.2:
                folder = os.path.join(folder, "sub")  # files below the partition level are read
            n_files = rng.randint(1, 2)
            for fi in range(n_files):
                chunk = prs[fi::n_files]
                # sometimes one value in two folders of different texts (Flink's and weir's)
                ffolder = make_folder() if fi and rng.random() < 0.3 else folder
                os.makedirs(ffolder, exist_ok=True)
                fpath = os.path.join(ffolder, "f%d.%s" % (fi, fmt))
                with open(fpath, "w") as f:
                    for r in chunk:
                        r["_file"] = os.path.relpath(fpath, case.folder)
                        if fmt == "csv":
                            f.write(",".join(str(r[c]) for c, _ in data_order) + "\n")
                        else:
                            f.write(json.dumps({c: r[c] for c, _ in data_order}) + "\n")
                # a modification time of its own, with milliseconds (1..999: always printed)
                ms = 1700000000000 + rng.randint(0, 10 ** 9) * 1000 + rng.randint(1, 999)
                os.utime(fpath, ns=(ms * 1000000, ms * 1000000))
            if rng.random() < 0.3:
                with open(os.path.join(folder, "_SUCCESS"), "w") as f:
                    f.write("")
        os.makedirs(case.path("tbl"), exist_ok=True)
        if rng.random() < 0.5:  # above the partition level: not read
            with open(case.path("tbl", "stray.%s" % fmt), "w") as f:
                f.write("99,zz\n" if fmt == "csv" else '{"id": 99, "s": "zz"}\n')
            ignored += 1
        with open(case.path("tbl", ".hidden"), "w") as f:
            f.write("garbage\n")
    conj = rand_where(rng, keys)
    where = " WHERE " + " AND ".join(s for s, _, _ in conj) if conj else ""
    split = rng.random() < 0.3
    read_opts = opts + (", 'source.split-size' = '64'" if split else "")
    read_table = "CREATE TABLE t (%s) PARTITIONED BY (%s) WITH (%s" % (read_cols, ", ".join(k for k, _ in keys),
                                                                     read_opts)
    case.write("read.sql", "%s%s);\nSELECT %s FROM t%s;\n" % (zone, read_table, ", ".join(c for c, _ in cols), where))
    case.note = "%s, keys %s, parallelism %d%s%s%s, where:%s" % (
        fmt, ", ".join(ty for _, ty in keys), par, ", round trip" if round_trip else "", ", ranges" if split else "",
        ", metadata " + ",".join(k for _, (k, _) in metas) if metas else "", where or " none")
    want, n_read = [], 0
    for r in rows:
        if and3(f(r) for _, f, ko in conj if ko) is True:
            n_read += 1
        if and3(f(r) for _, f, _ in conj) is True:
            want.append(tuple(meta_value(meta_of[c], r["_file"], case.folder) if c in meta_of else
                              show(key_type_of.get(c, "STRING"), r[c])
                              for c, _ in cols))
    case.counts["rows"] += len(want)
    case.counts["metadata values"] += len(want) * len(metas)
    p = case.run_weir(["run", "read.sql", "-D", "parallelism.default=%d" % par])
    if p.returncode:
        return [diffrun.failed_run(p)]
    got_rows, more = diffrun.print_inserts("\n".join(
        line if "> " in line else "x> " + line for line in p.stdout.splitlines()))
    problems += more
    got = [tuple(r) for rs in got_rows.values() for r in rs]
    problems += diffrun.multiset_problems("rows", want, got)
    m = re.findall(r"source filesystem \(task \d+\): (\d+) rows? read", p.stderr)
    read = sum(int(x) for x in m)
    if read != n_read:
        problems.append("the source read %d rows, the partitions that pass the pruning hold %d" % (read, n_read))
    return problems


if __name__ == "__main__":
    sys.exit(diffrun.main("partition_source_diff", run_case, jobs_env="WEIR_PARTDIFF_JOBS", jobs=16,
                          asan_jobs=4, one_env="WEIR_PARTDIFF_JOB", out_env="WEIR_PARTDIFF_OUT"))
