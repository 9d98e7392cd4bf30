#!/usr/bin/env python3
"""Runs the Flink SQL corpus through weir and measures what it refuses.

Every file q/<family>/<name>.sql is one query (or one statement shape) in
the form Flink's documentation and Flink's own SQL tests write it, over the
tables of tables.sql (prepended, unless the file says `-- standalone`) and
the small files under data/. Its first line is a comment naming the Flink
feature or documentation page it stands for. Optional header lines:

  -- mode: explain        run `weir explain` instead of `weir run` (the
                          query is unbounded or depends on the clock)
  -- standalone           do not prepend tables.sql
  -- oracle: <SQLite SQL> the expected final table, computed by SQLite over
                          the same data files (several lines are joined);
                          `VALUES (...), (...)` writes it by hand
  -- ordered              the oracle's rows must come out in its order
  -- output: DIR          the rows to check are the ones the job wrote to
                          files under DIR (json, csv or debezium-json
                          lines; a partition folder k=v adds v after the
                          file's columns), not the printed ones
  -- flink-refuses        Flink refuses this query too (in streaming mode):
                          a refusal here is no gap, and the figure of
                          refusals where Flink runs the query leaves it out
  -- names: W1|W2         a refusal must name one of these words (for
                          queries whose construct a message could miss)

`@WEIR_DIR@` in a query is the folder of the weir binary (where the build
puts the example C function library).

Each query is classified:

  ran       exit 0; with an oracle, the final table (the changelog folded:
            +I/+U add a row, -U/-D take one away) equals the oracle's rows
  refused   exit 3 with a located message that names what is unsupported
  generic   exit 3 with a message that names no construct (a bare parse
            error: "expected X, found Y", "syntax error"), or an internal
            error
  wrong     exit 0 with a final table other than the oracle's
  crashed   killed by a signal, a sanitizer report, a job failure (exit 1)
            of a bounded query, any other exit status, or no exit within
            the time limit (hung)

passed = ran + refused; failed = wrong + crashed + generic. Failures listed
in known-failures.txt (name, then why) are reported but do not fail the
run; the exit status is 1 when any other query failed. A listed one that
passes is reported as FIXED (take it off the list), without failing: the
work that fixes it may land before the list is edited.

Usage: run.py WEIR [--jobs N] [--every K] [--only REGEX] [--timeout S]
               [-v] [--refused] [--families]
Environment: WEIR_CORPUS_EVERY=K runs every K-th query only (the ASan run
sets it), WEIR_CORPUS_ONLY=REGEX the queries whose name matches,
WEIR_CORPUS_PARALLELISM the parallelism (default 1).
"""

import argparse
import collections
import concurrent.futures
import csv
import datetime
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The data files as SQLite sees them: (file, columns with SQLite affinity).
# This is the oracle's own reading of data/, written apart from tables.sql.
ORACLE_TABLES = {
    "orders": ("orders.csv", [("order_id", "INTEGER"), ("user_id", "TEXT"),
                              ("product", "TEXT"), ("amount", "INTEGER"),
                              ("price", "REAL"), ("currency", "TEXT"),
                              ("order_time", "TEXT")]),
    "bids": ("bids.csv", [("bid_id", "INTEGER"), ("item", "TEXT"),
                          ("price", "INTEGER"), ("supplier", "TEXT"),
                          ("bidtime", "TEXT")]),
    "shipments": ("shipments.csv", [("ship_id", "INTEGER"),
                                    ("order_id", "INTEGER"),
                                    ("ship_time", "TEXT")]),
    "rates": ("rates.csv", [("currency", "TEXT"), ("rate", "REAL"),
                            ("rate_time", "TEXT")]),
    "customers": ("customers.csv", [("user_id", "TEXT"), ("name", "TEXT"),
                                    ("country", "TEXT")]),
    "clicks": ("clicks.csv", [("user_name", "TEXT"), ("url", "TEXT"),
                              ("ctime", "TEXT")]),
    "ticker": ("ticker.csv", [("symbol", "TEXT"), ("price", "INTEGER"),
                              ("tax", "INTEGER"), ("rowtime", "TEXT")]),
    "scores": ("scores.csv", [("player", "TEXT"), ("team", "TEXT"),
                              ("points", "INTEGER"), ("stime", "TEXT")]),
}

GENERIC = re.compile(r"\bexpected\b.*\bfound\b|syntax error|internal error|"
                     r"unexpected|assert|not reached|BUG", re.I)
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehavior|"
                       r"runtime error:|ThreadSanitizer")


def parse_header(text):
    h = {"mode": "run", "standalone": False, "oracle": None, "ordered": False,
         "title": "", "names": [], "output": None,
         "flink_refuses": False}
    lines = text.splitlines()
    if lines and lines[0].startswith("--"):
        h["title"] = lines[0][2:].strip()
    oracle = []
    for line in lines[1:]:
        s = line.strip()
        if not s.startswith("--"):
            if s:
                break
            continue
        body = s[2:].strip()
        if body.startswith("mode:"):
            h["mode"] = body[5:].strip()
        elif body == "standalone":
            h["standalone"] = True
        elif body == "flink-refuses":
            h["flink_refuses"] = True
        elif body == "ordered":
            h["ordered"] = True
        elif body.startswith("output:"):
            h["output"] = body[7:].strip()
        elif body.startswith("names:"):
            h["names"] = [w.strip() for w in body[6:].split("|") if w.strip()]
        elif body.startswith("oracle:"):
            oracle.append(body[7:].strip())
    if oracle:
        h["oracle"] = " ".join(oracle)
    return h


def _epoch(ts):
    d = datetime.datetime.strptime(ts[:19], "%Y-%m-%d %H:%M:%S")
    frac = float("0" + ts[19:]) if len(ts) > 19 else 0.0
    return (d - datetime.datetime(1970, 1, 1)).total_seconds() + frac


def _show(secs):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
    # Whole seconds as the data files write them, so that SQLite compares
    # them with the files' timestamps as text.
    if d.microsecond == 0:
        return d.strftime("%Y-%m-%d %H:%M:%S")
    return d.strftime("%Y-%m-%d %H:%M:%S.%f")[:23]


def tumble(ts, size):
    """Start of the tumbling window of `size` seconds that holds ts."""
    if ts is None:
        return None
    e = _epoch(ts)
    return _show(e - e % size)


def tsadd(ts, secs):
    return None if ts is None else _show(_epoch(ts) + secs)


def connect():
    db = sqlite3.connect(":memory:")
    db.create_function("tumble", 2, tumble, deterministic=True)
    db.create_function("tsadd", 2, tsadd, deterministic=True)
    return db


def oracle_db():
    db = connect()
    for name, (fname, cols) in ORACLE_TABLES.items():
        db.execute("CREATE TABLE %s (%s)" % (
            name, ", ".join("%s %s" % c for c in cols)))
        with open(os.path.join(HERE, "data", fname), newline="") as f:
            rows = []
            for rec in csv.reader(f):
                row = []
                for (cname, ctype), v in zip(cols, rec):
                    if v == "":
                        row.append(None)
                    elif ctype == "INTEGER":
                        row.append(int(v))
                    elif ctype == "REAL":
                        row.append(float(v))
                    else:
                        row.append(v)
                rows.append(row)
        db.executemany("INSERT INTO %s VALUES (%s)" % (
            name, ", ".join("?" * len(cols))), rows)
    return db


TIME = re.compile(r"^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?$")
TS = re.compile(r"^(\d{4}-\d\d-\d\d)[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?$")


def norm(v):
    """One cell, as text both sides agree on."""
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    if isinstance(v, float):
        return "%.6f" % v
    if isinstance(v, int):
        return "%.6f" % v
    s = str(v)
    if s == "null":
        return s
    if s in ("true", "TRUE"):
        return "%.6f" % 1
    if s in ("false", "FALSE"):
        return "%.6f" % 0
    m = TS.match(s)
    if m:
        frac = (m.group(5) or "").ljust(3, "0")[:3]
        return "%s %s:%s:%s.%s" % (m.group(1), m.group(2), m.group(3),
                                   m.group(4) or "00", frac)
    m = TIME.match(s)
    if m:
        frac = (m.group(4) or "").ljust(3, "0")[:3]
        return "%s:%s:%s.%s" % (m.group(1), m.group(2), m.group(3) or "00",
                                frac)
    try:
        return "%.6f" % float(s)
    except ValueError:
        return s


def split_cells(body):
    """Top-level cells of a printed row: 'a, [b, c], d' -> 3 cells."""
    cells, depth, cur = [], 0, ""
    i = 0
    while i < len(body):
        ch = body[i]
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if depth == 0 and body.startswith(", ", i):
            cells.append(cur)
            cur = ""
            i += 2
            continue
        cur += ch
        i += 1
    cells.append(cur)
    return cells


# A printed row: "[ident[:subtask]> ][subtask> ]+I[cells]". A print
# identifier (print-identifier, to tell sinks apart) becomes the row's first
# cell; the subtask number is dropped.
ROW = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_-]*)(?::\d+)?> |\d+> )?([+-][IUD])\[(.*)\]$")


def final_table(stdout):
    """Folds the printed changelog; returns (rows in order, problems)."""
    table, problems = [], []
    for line in stdout.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        ident, kind, body = m.group(1), m.group(2), m.group(3)
        row = tuple(norm(c) for c in split_cells(body)) if body != "" else ()
        if ident:
            row = (ident,) + row
        if kind in ("+I", "+U"):
            table.append(row)
        else:
            try:
                table.remove(row)
            except ValueError:
                problems.append("%s of a row not in the result: %s" %
                                (kind, line))
    return table, problems


def file_table(folder):
    """The rows of the files a file sink wrote under folder."""
    table, problems = [], []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        parts = [seg.split("=", 1)[1] for seg in
                 os.path.relpath(root, folder).split(os.sep) if "=" in seg]
        for fname in sorted(files):
            if fname.startswith((".", "_")):
                continue
            with open(os.path.join(root, fname)) as f:
                for line in f:
                    line = line.rstrip("\n")
                    if not line:
                        continue
                    if line.startswith("{"):
                        rec = json.loads(line)
                        if set(rec) == {"before", "after", "op"}:
                            if rec["op"] in ("u", "d") and rec["before"]:
                                old = tuple(norm(v) for v in rec["before"].values())
                                if old in table:
                                    table.remove(old)
                                else:
                                    problems.append("delete of a row not written: " + line)
                            if rec["op"] in ("c", "r", "u") and rec["after"]:
                                table.append(tuple(norm(v) for v in rec["after"].values()))
                            continue
                        cells = list(rec.values())
                    else:
                        cells = next(csv.reader([line]))
                    table.append(tuple(norm(v) for v in cells + parts))
    return table, problems


def check_oracle(h, stdout, db, work):
    want = [tuple(norm(c) for c in r) for r in db.execute(h["oracle"])]
    if h["output"]:
        got, problems = file_table(os.path.join(work, h["output"]))
    else:
        got, problems = final_table(stdout)
    if h["ordered"]:
        if got != want:
            problems.append("rows differ in order or content")
    elif collections.Counter(got) != collections.Counter(want):
        problems.append("final table differs")
    if problems:
        extra = collections.Counter(got) - collections.Counter(want)
        missing = collections.Counter(want) - collections.Counter(got)
        for r in sorted(missing)[:6]:
            problems.append("  missing  " + ", ".join(r))
        for r in sorted(extra)[:6]:
            problems.append("  extra    " + ", ".join(r))
    return problems


def run_one(args, path, prelude, db_sql):
    name = os.path.relpath(path, os.path.join(HERE, "q"))[:-4]
    with open(path) as f:
        text = f.read()
    h = parse_header(text)
    work = tempfile.mkdtemp(prefix="weir-corpus-")
    try:
        os.symlink(os.path.join(HERE, "data"), os.path.join(work, "data"))
        text = text.replace("@WEIR_DIR@", os.path.dirname(args.weir))
        job = text if h["standalone"] else prelude + "\n" + text
        with open(os.path.join(work, "job.sql"), "w") as f:
            f.write(job)
        cmd = [args.weir, h["mode"], "job.sql", "-D", "rest.enabled=false",
               "-D", "parallelism.default=%d" % args.parallelism]
        if h["mode"] == "explain":
            cmd = [args.weir, "explain", "job.sql"]
        try:
            p = subprocess.run(cmd, cwd=work, capture_output=True, text=True,
                               timeout=args.timeout,
                               errors="replace")
        except subprocess.TimeoutExpired:
            return name, h, "crashed", "no exit within %d s (hung)" % args.timeout
        err = "\n".join(l for l in p.stderr.splitlines()
                        if " INFO " not in l and " WARN " not in l)
        first_err = next((l for l in err.splitlines() if "error" in l),
                         err.splitlines()[0] if err.strip() else "")
        if SANITIZER.search(p.stderr):
            return name, h, "crashed", "sanitizer report: " + \
                next(l for l in p.stderr.splitlines() if SANITIZER.search(l))
        if p.returncode < 0:
            return name, h, "crashed", "killed by signal %d: %s" % (
                -p.returncode, first_err)
        if p.returncode == 3:
            if h["names"]:
                if any(w.lower() in first_err.lower() for w in h["names"]):
                    return name, h, "refused", first_err
                return name, h, "generic", first_err + \
                    " (names none of: %s)" % ", ".join(h["names"])
            if GENERIC.search(first_err) or "error:" not in first_err:
                return name, h, "generic", first_err
            return name, h, "refused", first_err
        if p.returncode != 0:
            return name, h, "crashed", "exit %d: %s" % (p.returncode, first_err)
        if h["oracle"] and h["mode"] == "run":
            db = connect()
            db.executescript(db_sql)
            problems = check_oracle(h, p.stdout, db, work)
            if problems:
                return name, h, "wrong", "\n    ".join(problems)
            return name, h, "ran", "checked"
        return name, h, "ran", ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("weir")
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--every", type=int,
                    default=int(os.environ.get("WEIR_CORPUS_EVERY", "1")))
    ap.add_argument("--only", default=os.environ.get("WEIR_CORPUS_ONLY", ""))
    ap.add_argument("--timeout", type=int, default=30)
    ap.add_argument("--parallelism", type=int,
                    default=int(os.environ.get("WEIR_CORPUS_PARALLELISM", "1")))
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--refused", action="store_true",
                    help="list every refused query with its message")
    ap.add_argument("--families", action="store_true",
                    help="print the refused share per family")
    args = ap.parse_args()
    args.weir = os.path.abspath(args.weir)

    paths = []
    for root, _, files in os.walk(os.path.join(HERE, "q")):
        paths += [os.path.join(root, f) for f in files if f.endswith(".sql")]
    paths.sort()
    if args.only:
        paths = [p for p in paths if re.search(args.only, p)]
    paths = paths[::max(args.every, 1)]
    with open(os.path.join(HERE, "tables.sql")) as f:
        prelude = f.read()
    db_sql = "\n".join(oracle_db().iterdump())

    known = {}
    kpath = os.path.join(HERE, "known-failures.txt")
    if os.path.exists(kpath):
        with open(kpath) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    n, _, why = line.partition(" ")
                    known[n] = why.strip()

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(lambda p: run_one(args, p, prelude, db_sql),
                              paths))

    counts = collections.Counter(r[2] for r in results)
    fam = collections.defaultdict(collections.Counter)
    unexpected, fixed = [], []
    checked = 0
    for name, h, cls, msg in results:
        fam[name.split("/")[0]][cls] += 1
        if cls == "ran" and msg == "checked":
            checked += 1
        bad = cls in ("wrong", "crashed", "generic")
        if bad:
            tag = "KNOWN " if name in known else "FAIL  "
            print("%s%-40s %s: %s" % (tag, name, cls, msg))
            if name not in known:
                unexpected.append(name)
        elif name in known:
            fixed.append(name)
            print("FIXED %-40s %s (take it off known-failures.txt)" % (name, cls))
        if args.verbose and not bad:
            print("      %-40s %s %s" % (name, cls, msg))
    if args.refused:
        print("\nrefused:")
        for name, h, cls, msg in results:
            if cls == "refused":
                print("  %-40s %s" % (name, re.sub(r"^job\.sql:\d+:\d+: ", "", msg)))
    refusing = ("refused", "generic")
    if args.families:
        print("\n%-16s %5s %5s %8s %6s" % ("family", "total", "ran", "refused", "share"))
        for f in sorted(fam):
            c = fam[f]
            t = sum(c.values())
            r = c["refused"] + c["generic"]
            print("%-16s %5d %5d %8d %5.0f%%" % (f, t, c["ran"], r, 100.0 * r / t))
    total = len(results)
    passed = counts["ran"] + counts["refused"]
    failed = counts["wrong"] + counts["crashed"] + counts["generic"]
    refused = counts["refused"] + counts["generic"]
    flink_runs = [r for r in results if not r[1]["flink_refuses"]]
    gap = sum(1 for r in flink_runs if r[2] in refusing)
    print("%d passed, %d failed (%d wrong, %d crashed, %d generic messages; "
          "%d of the failures known)" % (passed, failed, counts["wrong"],
                                        counts["crashed"], counts["generic"],
                                        failed - len(unexpected)))
    print("%d queries: %d ran (%d checked against an oracle), %d refused "
          "(%.1f%%; %d naming the construct, %d with a generic message)" %
          (total, counts["ran"], checked, refused,
           100.0 * refused / max(total, 1), counts["refused"], counts["generic"]))
    print("refused where Flink runs the query: %d of %d (%.1f%%)" %
          (gap, len(flink_runs), 100.0 * gap / max(len(flink_runs), 1)))
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
