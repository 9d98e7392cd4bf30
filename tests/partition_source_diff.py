#!/usr/bin/env python3
"""Randomized differential test of reading PARTITIONED BY filesystem tables.

Each case is a table of two data columns (id BIGINT, s STRING) and one to
three partition columns of random types (STRING, INT, BIGINT, DATE), the
columns in a random order in the DDL, in CSV or JSON, and a layout of
k=v folders made one of two ways:

  * round trip: a first `weir run` writes random rows through a
    PARTITIONED BY filesystem sink (an empty STRING value goes to the
    default partition and so reads back as NULL);
  * by hand: the test writes the folders itself, with Flink's %XX
    escaping of special characters, the default partition (sometimes a
    custom 'partition.default-name'), partition folders of a key order
    other than the DDL's, a subfolder inside a partition, and files that
    must not be read (above the partition level, hidden '_'/'.' names).

A second `weir run` reads the table at parallelism 1, 2 or 4 (sometimes in
byte ranges) with a random WHERE: conjunctions of conditions on partition
columns (=, <>, <, >, IN, IS [NOT] NULL, LIKE, OR of two) and on data
columns. The oracle shares no code with weir: it keeps the rows whose WHERE
is TRUE under SQL's three-valued logic, printed as the print connector
prints them, and counts the rows the source must read: those of the
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
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import diffrun  # noqa: E402

KEY_TYPES = ["STRING", "INT", "BIGINT", "DATE"]
STRINGS = ["a", "b c", "x/y", "p=q", "50%", "#1", "k:v", "z"]
DATES = [datetime.date(2024, 1, 1) + datetime.timedelta(days=d) for d in (0, 1, 31, 400)]
ESCAPED = set('"#%\'*/:=?\\{[]^') | {chr(c) for c in range(0x20)} | {"\x7f"}


def escape(text):
    return "".join("%%%02X" % ord(c) if c in ESCAPED else c for c in text)


def rand_key(rng, ty, allow_empty):
    if rng.random() < 0.12:
        return None
    if ty == "STRING":
        return rng.choice(STRINGS + ([""] if allow_empty else []))
    if ty == "DATE":
        return rng.choice(DATES)
    return rng.randint(-3, 8)


def text_of(v):
    if isinstance(v, datetime.date):
        return v.isoformat()
    return str(v)


def show(v):
    """A value as the print connector writes it."""
    return "null" if v is None else text_of(v)


def literal(ty, v):
    if ty == "STRING":
        return "'" + v.replace("'", "''") + "'"
    if ty == "DATE":
        return "DATE '%s'" % v.isoformat()
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
        vals = [v for v in vals if v is not None] or [{"STRING": "a", "DATE": DATES[0]}.get(ty, 1)]

        def f(row, vals=vals):
            v = row[name]
            return None if v is None else v in vals
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
    keys = [("p%d" % i, rng.choice(KEY_TYPES)) for i in range(nk)]
    data = [("id", "BIGINT"), ("s", "STRING")]
    fmt = rng.choice(["csv", "json"])
    par = rng.choice([1, 2, 4])
    round_trip = rng.random() < 0.4
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
    ignored = 0
    if round_trip:
        case.write("flat.json", "".join(json.dumps({k: (text_of(v) if isinstance(v, datetime.date) else v)
                                                    for k, v in r.items()}) + "\n" for r in rows))
        case.write("write.sql", "CREATE TABLE flat (%s) WITH ('connector' = 'filesystem', 'path' = 'flat.json', "
                   "'format' = 'json');\n%s);\nINSERT INTO t SELECT %s FROM flat;\n"
                   % (ddl_cols, table, ", ".join(c for c, _ in cols if c not in meta_of)))
        p = case.run_weir(["run", "write.sql", "-D", "parallelism.default=%d" % rng.choice([1, 2])])
        if p.returncode:
            return ["writing: " + diffrun.failed_run(p)]
        for r in rows:  # the sink writes an empty value as the default partition
            for name, ty in keys:
                if r[name] == "":
                    r[name] = None
    else:
        # by hand: one or more files per partition, folders in a random key order per partition
        parts = {}
        for r in rows:
            parts.setdefault(tuple(r[k] for k, _ in keys), []).append(r)
        dflt = default_name or "__DEFAULT_PARTITION__"
        for pv, prs in parts.items():
            order = list(range(nk))
            if rng.random() < 0.2:
                rng.shuffle(order)
            folder = os.path.join(case.folder, "tbl", *["%s=%s" % (keys[i][0], dflt if pv[i] is None
                                                                    else escape(text_of(pv[i]))) for i in order])
            if rng.random() < 0.2:
                folder = os.path.join(folder, "sub")  # files below the partition level are read
            os.makedirs(folder, exist_ok=True)
            n_files = rng.randint(1, 2)
            for fi in range(n_files):
                chunk = prs[fi::n_files]
                fpath = os.path.join(folder, "f%d.%s" % (fi, fmt))
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
    case.write("read.sql", "%s);\nSELECT %s FROM t%s;\n" % (read_table, ", ".join(c for c, _ in cols), where))
    case.note = "%s, %d keys, parallelism %d%s%s%s, where:%s" % (
        fmt, nk, par, ", round trip" if round_trip else "", ", ranges" if split else "",
        ", metadata " + ",".join(k for _, (k, _) in metas) if metas else "", where or " none")
    want, n_read = [], 0
    for r in rows:
        if and3(f(r) for _, f, ko in conj if ko) is True:
            n_read += 1
        if and3(f(r) for _, f, _ in conj) is True:
            want.append(tuple(meta_value(meta_of[c], r["_file"], case.folder) if c in meta_of else show(r[c])
                              for c, _ in cols))
    case.counts["rows"] += len(want)
    case.counts["metadata values"] += len(want) * len(metas)
    p = case.run_weir(["run", "read.sql", "-D", "parallelism.default=%d" % par])
    if p.returncode:
        return [diffrun.failed_run(p)]
    got_rows, problems = diffrun.print_inserts("\n".join(
        line if "> " in line else "x> " + line for line in p.stdout.splitlines()))
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
