#!/usr/bin/env python3
"""Randomized differential test of restoring a CHANGED query: a job that
restores from a checkpoint or savepoint into a query that differs from the
one that took it must either restore to the exact result or be refused up
front, naming the operator and what changed (docs/checkpoints.md, "Restore
compatibility"); it must never restore silently into state that means
something else.

Each case draws a base query over two JSON input files of a watched
folder (in/a.json, then in/b.json, whose rows all come at or after the
last of a.json, sorted by time, but for late rows, below):
  window  a TUMBLE, HOP or CUMULATE window aggregation, GROUP BY one or two
          key columns and the window, COUNT / SUM / MIN / MAX; append-only
          output;
  group   a GROUP BY aggregation of one or two key columns (a changelog);
  topn    a Top-N (ROW_NUMBER per key, by v or w descending, then id);
  over    OVER aggregations per key, ROWS n PRECEDING, in time order;
  join    a regular or interval join (INNER or LEFT, `=` or IS NOT
          DISTINCT FROM) of the rows of even w with those of odd w, on the
          keys (a WHERE applies to both sides);
  dedup   a deduplication (ROW_NUMBER per key by the event time, rn = 1:
          keep each key's first row, or, DESC, its last);
  wtopn   a window Top-N (ROW_NUMBER per TUMBLE, HOP or CUMULATE window
          and key, by v or w descending, then id);
  wdedup  a window deduplication (ROW_NUMBER per window and key by the
          event time, rn = 1: each window's first row of a key, or, DESC,
          its last);
  wjoin   a window join (INNER or LEFT) of the rows of even w with those
          of odd w, each side windowed alike, on the keys and the window;
  match   a MATCH_RECOGNIZE query of match_diff.py (its random pattern,
          DEFINE, MEASURES, AFTER MATCH SKIP, WITHIN, PARTITION BY k or
          none; up to two more measures without calls) over its rows (out
          of order by less than the watermark's delay), a.json and b.json
          a cut of them anywhere, so that partial matches go on across the
          restore (run_match_case: its changes, among them DEFINE and
          MEASURES changed; match_expected: the oracle, which knows which
          rows the operator had processed before the stop).
A window or group job may also (each drawn apart):
  read a UNION ALL of two sources (src over in/, src2 over in2/, the
          rows dealt between them), each branch with a WHERE of its own
          and v + a constant of its own;
  read computed columns of the DDL: x AS v * 3, an aggregate's argument,
          kx AS CONCAT(k, '-3'), a key;
  run as a two-phase aggregation (`table.optimizer.agg-phase-strategy`
          TWO_PHASE; a group job with mini-batch on, which it needs).
Any job may come with a second INSERT (a statement set: COUNT(*) per k
into dst2, under out2/), which no change touches: its final table must
be every row's count. Any case may have NULLs: k in any job, v but in a Top-N's (SUM, MIN, MAX
skip them, NULL when all are; COUNT(*) counts them; a predicate on NULL
is not true; `=` matches no NULL key, IS NOT DISTINCT FROM does). A
window, window Top-N, window deduplication, window join, join, group or
Top-N job may have late rows: b.json
begins with rows behind the watermark a.json left (its last time less
the 1 s delay; with a UNION ALL the smaller of the two sources'), at and
around the end of a window that ended at it: the restored job goes on
from that watermark, so a row joins each of its windows that ends after
it (docs/windows.md: a window fires once W >= end; a row joins each
window with end > W) and is dropped from the others, which fired before
the stop (b.json's own rows, all later, move the watermark on only
after them); an interval join drops each row behind that watermark
(a regular join has none: it joins them). An OVER or deduplication job
may have them too: the OVER aggregation drops a late row at or behind
the last time its partition processed before the stop (a.json's rows
before the watermark) and takes the others in time order (each key's
late rows come in time order: one behind another of its key would be
late or not by when the restored watermark reached the operator); a
deduplication drops none (it keeps a key's first or last row by time,
a late row too).
It runs the base query with checkpoints until one shows (`weir inspect`)
that the split of a.json is finished, then stops it one of three ways
(SIGTERM: a final checkpoint; `weir savepoint --stop`; SIGKILL after that
checkpoint), adds b.json and runs a changed query, bounded, at a drawn
parallelism and state backend (memory or RocksDB), from that checkpoint
or savepoint. The change is one of:
  COMPATIBLE (must restore, and the committed output must be the
  oracle's): output aliases and sink column names renamed; a WHERE
  before the operator added, changed or removed (a.json's rows were
  filtered by the old one, b.json's by the new); for window jobs, columns
  of the final SELECT reordered, added (computed from the operator's
  output) or removed; whitespace, keyword case and comments. The run's
  parallelism and backend are drawn anew in every case.
  INCOMPATIBLE (must be refused: exit 3, a message naming the operator
  and a differing field, no new output file, the checkpoint folders
  byte for byte as they were; in about half of them the old query then
  restores and must give the exact result): another key column of the
  same type, the key columns' order swapped, another aggregate function
  or argument column (also two aggregates trading their arguments), the
  window's size, slide or kind, Top-N's N or order column, the OVER
  frame, the join type (also a window join's), the interval join's
  bounds (or none), `=` against
  IS NOT DISTINCT FROM, a column the operator reads renamed in the
  source's DDL (the input carries the same values under both names);
  an aggregate's argument expression changed under the same name and
  type (SUM(v + 1) -> SUM(v + 2)): only the fingerprint's `column
  origins` (what each input column is computed from) tells them apart;
  base queries draw such arguments too (WEIR_RESTORECHG_EXPR=0: none);
  a deduplication's first row against its last (`order ... DESC` against
  `ASC`) or its order by ts_ms, not a time attribute (a Top-1: another
  operator); a window deduplication's first row against its last
  (`order`); the windows of a window Top-N, window deduplication or
  window join (`windows`); a UNION ALL branch's
  v + c changed (`column origins`); a computed column's constant
  (`column origins`); two-phase aggregation toggled (the global phase
  reads partial accumulators, not rows: `input` differs, as
  docs/sql.md, Two-phase aggregation, says).
  COMPATIBLE also: a UNION ALL branch's WHERE added, changed or removed.

The oracle (Python over the rows, nothing shared with weir) computes each
group's (and window's) aggregates over a.json under the old query's
WHERE and b.json under the new one's. A window job's rows fired before
the stop are in the old query's projection and the rest in the new one's
(each projection keeps the keys and the window, so a result row tells
which group it is); the other jobs' committed changelog is folded by
column position into their final table (an OVER job's is append-only).

What it does not cover: projection
changes of the changelog jobs (their retractions would come in the new
shape: not a restore question);
aggregates reordered in the SELECT (weir refuses them:
same_aggregate_order);
late rows that only b.json's own rows make late (whether the
restored source's watermark still holds them back depends on timing:
docs/semantics.md); a change in the middle of a.json (the case waits for
a checkpoint holding it whole).

Runs on the shared differential driver (tests/support/diffrun.py).
Usage: restore_change_diff.py --weir BIN [--jobs N] [--seed S] [--case I] [--out DIR]
Environment: WEIR_SEED replays a run; WEIR_RESTORECHG_CASE=i runs case i of
it; WEIR_RESTORECHG_JOBS sets the number of cases (default 14, 3 under
ASan); WEIR_RESTORECHG_OUT keeps failed cases' folders;
WEIR_RESTORECHG_EXPR=0 draws no expression arguments or changes;
WEIR_RESTORECHG_FAMILIES=dedup,wtopn draws those families alone
("-join": all but joins).
"""

import collections
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "support"))
import diffrun  # noqa: E402
import match_diff as md  # noqa: E402

KEYS = ["k", "g"]  # STRING columns: one is another key of the same type
# A DDL rename reads the same values under another name: the input rows
# carry each column under both.
RENAMED = {"k": "kk", "g": "gg", "v": "val", "w": "ww"}
WINDOW_KINDS = ["TUMBLE", "HOP", "CUMULATE"]
COMPATIBLE = ["alias", "where", "where", "columns", "cosmetic", "branch where"]
FAMILIES = ["window", "window", "group", "topn", "over", "join", "dedup", "wtopn", "wdedup", "wjoin", "match"]
WINDOWED = {"window", "wtopn", "wdedup", "wjoin"}  # the families whose groups are windows
# "arguments swapped": two aggregates trade argument columns, so types,
# aggregates and the input's columns stay the same and only `aggregate
# columns` tells the states apart (the input's columns come in the order
# the aggregates first read them: the base query's first two aggregates
# read v, then w, for this change, and keep doing so: SWAP_BASE).
# "expression" (an argument's expression changed, only `column origins`
# tells it apart) three times: it is drawn for two families alone.
INCOMPATIBLE = ["key", "swap", "function", "argument", "arguments swapped", "window", "window-kind", "n", "order",
                "frame", "join type", "bounds", "null-safe", "rename", "keep", "dedup order", "branch expression",
                "computed", "phase"] + ["expression"] * 3
AGGREGATING = {"window", "group"}
# The changes each family can get (the rest: every family).
ONLY = {"columns": {"window"}, "window": WINDOWED, "window-kind": WINDOWED,
        "n": {"topn", "wtopn"}, "order": {"topn", "wtopn"}, "frame": {"over"}, "function": {"window", "group", "over"},
        "argument": {"window", "group", "over"}, "arguments swapped": {"window", "group", "over"},
        "join type": {"join", "wjoin"}, "bounds": {"join"}, "null-safe": {"join"},
        "where": {"window", "group", "topn", "over", "dedup", "wtopn", "wdedup", "join", "wjoin"},
        "expression": AGGREGATING,
        "keep": {"dedup", "wdedup"}, "dedup order": {"dedup"}, "branch where": AGGREGATING, "branch expression": AGGREGATING,
        "computed": AGGREGATING, "phase": AGGREGATING}


PREDICATES = [("v > -4", lambda r: r["v"] is not None and r["v"] > -4), ("w < 8", lambda r: r["w"] < 8),
              ("k <> 'k1'", lambda r: r["k"] is not None and r["k"] != "k1"),
              ("MOD(w, 3) <> 0", lambda r: r["w"] % 3 != 0)]
STOPS = ["term", "term", "savepoint", "kill"]
SWAP_BASE = [("SUM", "v"), ("MAX", "w"), ("MIN", "v"), ("MIN", "w")]
# What a refusal of the aggregation-phase strategy toggled may name: the
# global phase reads partial accumulators, not rows (docs/sql.md).
PHASE_FIELDS = ["input", "not in the job", "partial rows", "columns"]
# Computed columns of the DDL (drawn for window and group jobs): x, an
# aggregate's argument, and kx, a key; the number in each expression is
# what a "computed" change changes (only `column origins` tells it).
COMPUTED = {"x": ("%(v)s * %(p)d", lambda r, p: None if r["v"] is None else r["v"] * p),
            "kx": ("CONCAT(%(k)s, '-%(p)d')", lambda r, p: None if r["k"] is None else "%s-%d" % (r["k"], p))}
# The watermark's delay (the DDL's `ts - INTERVAL '1' SECOND`).
DELAY = 1000


# --------------------------------------------------------------------------
# The input

def gen_rows(rng, q, nulls, late):
    """a.json's and b.json's rows: b.json's all after a.json's last time,
    every time another (an OVER frame's rows follow time), ids unique (a
    Top-N's order ends with it: no ties). nulls: some k (and, but for a
    Top-N's order, v) are NULL. late: b.json starts with rows behind the
    watermark a.json left (late_rows). Each row names the source of a
    UNION ALL job that reads it (src: 0 or 1)."""
    nkeys, ngroups = rng.randint(2, 5), rng.randint(1, 3)
    # an OVER or deduplication job's late rows may come before a key's first row (late_rows)
    t, files = 5000 if late and q.family in ("over", "dedup") else 0, []
    for n in (rng.randint(20, 80), rng.randint(10, 60)):
        rows = []
        for _ in range(n):
            t += rng.choice([100, 250, 400, 1000])
            rows.append({"id": len(rows) + 1000 * len(files), "k": "k%d" % rng.randrange(nkeys),
                         "g": "g%d" % rng.randrange(ngroups), "v": rng.randint(-9, 9),
                         "w": rng.randint(0, 12), "ts_ms": t, "src": rng.randrange(2) if q.union else 0})
            if nulls and rng.random() < 0.12:
                rows[-1]["k"] = None
            if nulls and q.family not in ("topn", "wtopn") and rng.random() < 0.15:
                rows[-1]["v"] = None
        files.append(rows)
        if late and len(files) == 1:
            if rng.random() < 0.6:  # a window ends at the watermark a.json leaves: W >= end fired it
                step = q.window[2]
                rows[-1]["ts_ms"] += (DELAY - rows[-1]["ts_ms"]) % step
            t = rows[-1]["ts_ms"]  # b.json's first rows are late; the rest come after a.json's last
    if q.union:  # each source reads rows of a.json: a source without any would hold the watermark back
        last = rng.randrange(2)
        files[0][0]["src"], files[0][-1]["src"] = 1 - last, last
    if late:
        files[1][:0] = late_rows(rng, q, restored_watermarks(files[0]), files[1][0]["id"])
    return files


def restored_watermarks(rows):
    """The watermarks the sources left at the end of a.json (each its last
    time less the delay), the smallest first: the restored job's windows
    go on from the smallest (docs/windows.md; a UNION ALL takes the
    smaller of its inputs')."""
    return sorted(max(r["ts_ms"] for r in rows if r["src"] == s) - DELAY for s in {r["src"] for r in rows})


def late_rows(rng, q, wms, first_id):
    """Rows behind the watermark (a.json's last time less the delay),
    which the restored job holds until b.json's rows pass it: at, just
    before and just after the end of a window that ended at it (dropped,
    or kept by a window that ends later), and others up to 7 s behind.
    Under a UNION ALL whose sources left different watermarks, a row
    whose window ends between them could be judged against either (it
    depends on which input the operator hears from first): none such."""
    wm = wms[0]
    step = q.window[2]
    end = wm - wm % step
    times = sorted({max(0, x) for x in [end - 1, end, end + 1, wm - 1, wm] +
                    [wm - rng.randint(1, 7000) for _ in range(rng.randint(0, 3))]})
    if q.family in ("over", "dedup"):
        # anywhere behind: before a key's first row (a deduplication's new
        # first), or between an OVER partition's processed rows
        times = sorted(set(times) | {rng.randint(0, wm) for _ in range(rng.randint(1, 3))})
    times = [t for t in times if not any(wms[0] < e <= wms[-1] for _, e in windows_of(t, q.window))]
    rng.shuffle(times)
    rows = [{"id": first_id + 500 + i, "k": "k%d" % rng.randrange(2), "g": "g0", "v": rng.randint(-9, 9),
             "w": rng.randint(0, 12), "ts_ms": t, "src": i % 2 if q.union else 0} for i, t in enumerate(times)]
    if q.family == "over":
        # each key's late rows in time order: a late row behind another of
        # its key that the OVER aggregation processed already is late by
        # that row, and whether the other was processed by then depends on
        # when the restored watermark reached the operator (timing)
        for k in {r["k"] for r in rows}:
            mine = [r for r in rows if r["k"] == k]
            for r, t in zip(mine, sorted(r["ts_ms"] for r in mine)):
                r["ts_ms"] = t
    return rows


def input_text(rows):
    if not rows:
        return ""
    out = []
    for r in rows:
        d = {c: x for c, x in r.items() if c != "src"}
        d.update({RENAMED[c]: r[c] for c in RENAMED})
        out.append(json.dumps(d))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# The query model: what both weir's SQL and the oracle are made from.

class Agg:
    def __init__(self, fn, arg, plus=None):
        self.fn, self.arg, self.plus = fn, arg, plus  # plus: SUM(arg + plus), an expression argument

    def sql(self, names):
        if self.fn == "COUNT":
            return "COUNT(*)"
        a = names[self.arg] + (" + %d" % self.plus if self.plus is not None else "")
        return "%s(%s)" % (self.fn, a)

    def value(self, rows):
        """SQL's: COUNT(*) counts every row, the others skip NULLs (NULL
        when all are)."""
        if self.fn == "COUNT":
            return len(rows)
        vals = [r[self.arg] + (self.plus or 0) for r in rows if r[self.arg] is not None]
        return {"SUM": sum, "MIN": min, "MAX": max}[self.fn](vals) if vals else None


class Query:
    """family (FAMILIES); keys (column names, in GROUP BY order);
    aggs; where (an index into PREDICATES or None); window (kind, size,
    slide) in ms; out: the projection, items ("key", i), ("ws",), ("we",),
    ("agg", i), ("agg10", i) (an aggregate times 10, a column computed
    after the operator), ("over", i), ("order",) and ("col", name) of a
    Top-N's row, ("left",) and ("right",): the joined rows' ids; n, order
    (Top-N), frame (OVER), join, bounds, null_safe (join); aliases: the sink's column names; names: the
    source's column names (a DDL rename); style: cosmetic variant."""

    def copy(self):
        q = Query()
        q.__dict__.update({k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
                           for k, v in self.__dict__.items()})
        return q


def draw_query(rng, family, expr, kind):
    """The base query; kind: the change it will get."""
    q = Query()
    q.family = family
    q.keys = rng.sample(KEYS, rng.choice([1, 1, 2]))
    # UNION ALL of two sources (src: in/, src2: in2/), each branch adding
    # bplus[i] to v (None: v as it is) and filtering by bwhere[i]
    q.union = family in AGGREGATING and (kind.startswith("branch") or rng.random() < 0.2)
    q.bplus = [rng.choice([None, 1]), rng.choice([None, 2])]
    q.bwhere = [rng.choice([None, 0, 2]), rng.choice([None, 1, 3])]
    # computed columns of the DDL: {name: the number in its expression}
    q.comp = {}
    if family in AGGREGATING and (kind == "computed" or rng.random() < 0.2):
        q.comp = {c: rng.randint(2, 4) for c in rng.choice([["x"], ["kx"], ["x", "kx"]])}
    if "kx" in q.comp:
        q.keys[rng.randrange(len(q.keys))] = "kx"
    # two-phase aggregation (a group job's needs mini-batch)
    q.phase = family in AGGREGATING and (kind == "phase" or rng.random() < 0.25) and rng.random() < 0.6
    q.minibatch = family == "group" and (kind == "phase" or q.phase)
    # a statement set: a second INSERT (COUNT(*) per k into dst2) that no change touches
    q.second = rng.random() < 0.2
    q.keep = rng.choice(["first", "last"])  # deduplication: keep each key's first or last row ...
    q.dorder = "ts"  # ... by this column (ts_ms, not a time attribute: a Top-1, another operator)
    q.aggs = []
    for _ in range(rng.randint(1, 3)):
        fn = rng.choice(["COUNT", "SUM", "SUM", "MIN", "MAX"])
        q.aggs.append(Agg(fn, rng.choice(["v", "w"]), 1 if expr and fn == "SUM" and rng.random() < 0.5 else None))
    if "x" in q.comp:
        q.aggs[rng.randrange(len(q.aggs))] = Agg(rng.choice(["SUM", "MIN", "MAX"]), "x")
    if kind == "expression" and not any(a.plus is not None for a in q.aggs):
        q.aggs.append(Agg("SUM", "v", 1))
    if kind == "branch expression" and not any(a.arg == "v" and a.fn != "COUNT" for a in q.aggs):
        q.aggs.append(Agg("SUM", "v"))  # an aggregate reads the branch's v (else the change is no state's)
    if kind == "arguments swapped":
        q.aggs = [Agg(fn, arg) for fn, arg in SWAP_BASE]
    if family == "over" and kind != "arguments swapped":
        q.aggs = q.aggs[:2]
    q.where = rng.choice([None, None] + list(range(len(PREDICATES))))
    q.n = rng.randint(1, 3)  # Top-N: the best n rows of each key, by order (desc) then id
    q.order = rng.choice(["v", "w"])
    q.frame = rng.randint(0, 3)  # OVER: ROWS frame PRECEDING
    # a join of the rows of even w (left) with those of odd w (right), on
    # the keys; an interval join within bounds (lo, hi) s of the left row's time
    q.join = rng.choice(["INNER", "LEFT"])
    q.bounds = rng.choice([None, (1, 1), (2, 0), (0, 3)])
    q.null_safe = rng.random() < 0.3
    if family == "wjoin":  # a window join: `=` keys (weir refuses IS NOT DISTINCT FROM there), no bounds
        q.bounds, q.null_safe = None, False
    wkind = rng.choice(WINDOW_KINDS)
    size = rng.choice([2000, 4000, 6000])
    q.window = (wkind, size, size if wkind == "TUMBLE" else size // 2)
    q.out = [("key", i) for i in range(len(q.keys))]
    if family == "topn":
        q.out += [("order",), ("col", "id")]
    elif family == "wtopn":
        q.out += [("order",), ("col", "id"), ("ws",)]
    elif family == "dedup":
        q.out += [("col", "id"), ("col", "v")]
    elif family == "wdedup":
        q.out += [("col", "id"), ("col", "v"), ("ws",)]
    elif family == "join":
        q.out += [("left",), ("right",)]
    elif family == "wjoin":
        q.out += [("left",), ("right",), ("ws",)]
    elif family == "over":
        q.out += [("col", "id")] + [("over", i) for i in range(len(q.aggs))]
    else:
        q.out += [("agg", i) for i in range(len(q.aggs))]
    if family == "window":
        q.out += [("ws",)] + ([("we",)] if wkind == "CUMULATE" or rng.random() < 0.5 else [])
    rng.shuffle(q.out)
    if kind == "arguments swapped":
        q.out = same_aggregate_order([("agg", i) for i in range(len(q.aggs))], q.out)
    q.aliases = ["c%d" % i for i in range(len(q.out))]
    q.names = {c: c for c in list(RENAMED) + list(COMPUTED)}
    q.style = 0
    return q


def item_sql(q, item):
    side = "l." if q.family in ("join", "wjoin") else ""
    if item[0] == "key":
        return side + q.names[q.keys[item[1]]]
    if item[0] in ("left", "right"):
        return "l.id" if item[0] == "left" else "r.id"
    if item[0] in ("ws", "we"):
        return side + ("window_start" if item[0] == "ws" else "window_end")
    if item[0] in ("col", "order"):
        c = q.order if item[0] == "order" else item[1]
        return q.names.get(c, c)
    s = q.aggs[item[1]].sql(q.names)
    if item[0] == "over":
        return "%s OVER (PARTITION BY %s ORDER BY ts ROWS BETWEEN %d PRECEDING AND CURRENT ROW)" % (
            s, ", ".join(q.names[k] for k in q.keys), q.frame)
    return s if item[0] == "agg" else "%s * 10" % s


def item_type(item):
    return {"key": "STRING", "ws": "TIMESTAMP(3)", "we": "TIMESTAMP(3)"}.get(item[0], "BIGINT")


def join_rows(q, rows):
    """A join's result rows: (left row, right row or None)."""
    left = [r for r in rows if r["w"] % 2 == 0]
    right = [r for r in rows if r["w"] % 2 == 1]
    out = []
    for a in left:
        hits = [b for b in right if all(a[k] == b[k] and (q.null_safe or a[k] is not None) for k in q.keys) and
                (not q.bounds or a["ts_ms"] - 1000 * q.bounds[0] <= b["ts_ms"] <= a["ts_ms"] + 1000 * q.bounds[1])]
        out += [(a, b) for b in hits] or ([(a, None)] if q.join == "LEFT" else [])
    return out


def window_sql(q, table):
    kind, size, slide = q.window
    src = "TABLE %s, DESCRIPTOR(ts), " % table
    if kind == "TUMBLE":
        return "TUMBLE(%sINTERVAL '%d' SECOND)" % (src, size // 1000) if size % 1000 == 0 else \
            "TUMBLE(%sINTERVAL '%d' MILLISECOND)" % (src, size)
    return "%s(%sINTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND)" % (kind, src, slide, size)


def source_ddl(q, name, path, live):
    n = q.names
    monitor = ", 'source.monitor-interval' = '50ms'" if live else ""
    comp = "".join("  %s AS %s,\n" % (c, COMPUTED[c][0] % {"v": n["v"], "k": n["k"], "p": p})
                   for c, p in sorted(q.comp.items()))
    return ("CREATE TABLE %s (id BIGINT, %s STRING, %s STRING, %s BIGINT, %s BIGINT, ts_ms BIGINT,\n%s"
            "  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND\n"
            ") WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json'%s);\n"
            % (name, n["k"], n["g"], n["v"], n["w"], comp, path, monitor))


def union_view(q):
    """The view u: src's rows and src2's, each branch with its WHERE and
    its v (v + bplus)."""
    n = q.names
    branches = []
    for i, table in enumerate(["src", "src2"]):
        v = n["v"] if q.bplus[i] is None else "%s + %d AS %s" % (n["v"], q.bplus[i], n["v"])
        cols = ", ".join(["id", n["k"], n["g"], v, n["w"], "ts_ms", "ts"] + sorted(q.comp))
        where = "" if q.bwhere[i] is None else " WHERE " + rename_in(PREDICATES[q.bwhere[i]][0], n)
        branches.append("SELECT %s FROM %s%s" % (cols, table, where))
    return "CREATE TEMPORARY VIEW u AS\n%s;\n" % "\nUNION ALL\n".join(branches)


def job_sql(q, live):
    n = q.names
    sets = ""
    if q.minibatch:
        sets += "SET 'table.exec.mini-batch.enabled' = 'true';\n"
    if q.phase:
        sets += "SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';\n"
    ddl = source_ddl(q, "src", "in", live)
    table = "src"
    if q.union:
        ddl += source_ddl(q, "src2", "in2", live) + union_view(q)
        table = "u"
    sink = ("CREATE TABLE dst (%s)\nWITH ('connector' = 'filesystem', 'path' = 'out', "
            "'format' = 'debezium-json');\n"
            % ", ".join("%s %s" % (a, item_type(it)) for a, it in zip(q.aliases, q.out)))
    items = ", ".join("%s AS %s" % (item_sql(q, it), a) for it, a in zip(q.out, q.aliases))
    keys = ", ".join(n[k] for k in q.keys)
    where = "" if q.where is None else " WHERE " + rename_in(PREDICATES[q.where][0], n)
    both = "" if q.where is None else " AND " + rename_in(PREDICATES[q.where][0], n)  # a join's, on each side
    if q.family == "window":
        body = "SELECT %s\nFROM TABLE(%s)%s\nGROUP BY %s, window_start, window_end" % (
            items, window_sql(q, table), where, keys)
    elif q.family == "topn":
        inner = "SELECT %s, %s, id, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s DESC, id) AS rn FROM src%s" % (
            keys, n[q.order], keys, n[q.order], where)
        body = "SELECT %s\nFROM (%s)\nWHERE rn <= %d" % (items, inner, q.n)
    elif q.family == "wtopn":
        inner = ("SELECT %s, %s, id, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, "
                 "window_end, %s ORDER BY %s DESC, id) AS rn FROM TABLE(%s)%s" % (
                     keys, n[q.order], keys, n[q.order], window_sql(q, table), where))
        body = "SELECT %s\nFROM (%s)\nWHERE rn <= %d" % (items, inner, q.n)
    elif q.family == "dedup":
        inner = "SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s%s) AS rn FROM src%s" % (
            keys, q.dorder, " DESC" if q.keep == "last" else "", where)
        body = "SELECT %s\nFROM (%s)\nWHERE rn = 1" % (items, inner)
    elif q.family == "wdedup":
        inner = ("SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, %s ORDER BY ts%s) AS rn "
                 "FROM TABLE(%s)%s" % (keys, " DESC" if q.keep == "last" else "", window_sql(q, table), where))
        body = "SELECT %s\nFROM (%s)\nWHERE rn = 1" % (items, inner)
    elif q.family == "wjoin":
        on = " AND ".join("l.%s = r.%s" % (n[k], n[k]) for k in q.keys)
        side = "(SELECT * FROM TABLE(%s) WHERE MOD(%s, 2) = %%d%s)" % (window_sql(q, table), n["w"], both)
        body = ("SELECT %s\nFROM %s l\n%s JOIN %s r\nON %s AND l.window_start = r.window_start "
                "AND l.window_end = r.window_end" % (items, side % 0, q.join, side % 1, on))
    elif q.family == "over":
        body = "SELECT %s\nFROM src%s" % (items, where)
    elif q.family == "join":
        on = " AND ".join("l.%s %s r.%s" % (n[k], "IS NOT DISTINCT FROM" if q.null_safe else "=", n[k]) for k in q.keys)
        if q.bounds:
            on += " AND r.ts BETWEEN l.ts - INTERVAL '%d' SECOND AND l.ts + INTERVAL '%d' SECOND" % q.bounds
        body = ("SELECT %s\nFROM (SELECT * FROM src WHERE MOD(%s, 2) = 0%s) l\n%s JOIN "
                "(SELECT * FROM src WHERE MOD(%s, 2) = 1%s) r ON %s" % (items, n["w"], both, q.join, n["w"], both, on))
    else:
        body = "SELECT %s\nFROM %s%s\nGROUP BY %s" % (items, table, where, keys)
    text = sets + ddl + sink + "INSERT INTO dst " + body + ";\n"
    if q.second:
        text += ("CREATE TABLE dst2 (k STRING, n BIGINT)\nWITH ('connector' = 'filesystem', 'path' = 'out2', "
                 "'format' = 'debezium-json');\nINSERT INTO dst2 SELECT %s, COUNT(*) FROM src GROUP BY %s;\n"
                 % (n["k"], n["k"]))
    return restyle(text, q.style)


def rename_in(pred, names):
    return re.sub(r"\b([kgvw])\b", lambda m: names[m.group(1)], pred)


def restyle(text, style):
    """Whitespace, keyword case and comments: the same query."""
    if style == 0:
        return text
    if style == 1:
        return "-- the same job, restyled\n" + text.replace(", ", " ,\n    ").replace("SELECT ", "SELECT  /* out */ ")
    words = ["SELECT", "FROM", "GROUP BY", "WHERE", "INSERT INTO", "AS", "TABLE"]
    for w in words:
        text = re.sub(r"(?<![\w'])%s(?![\w'])" % w, w.lower(), text)
    return text


# --------------------------------------------------------------------------
# The changes

def draw_change(rng, q, kind):
    """(the changed query, a description, the fields a refusal may name)."""
    n = q.copy()
    if kind == "alias":
        n.aliases = ["o%d_%s" % (i, rng.choice("xyz")) for i in range(len(q.out))]
        return n, "aliases renamed", None
    if kind == "where":
        n.where = rng.choice([x for x in [None] + list(range(len(PREDICATES))) if x != q.where])
        return n, "WHERE %s -> %s" % (q.where, n.where), None
    if kind == "columns":
        extra = [it for it in [("we",)] + [("agg10", i) for i in range(len(q.aggs))] if it not in q.out]
        must = [it for it in q.out if it[0] in ("key", "ws", "agg") or (it[0] == "we" and q.window[0] == "CUMULATE")]
        out = must + [it for it in q.out if it not in must and rng.random() < 0.5] + \
            [it for it in extra if rng.random() < 0.4]
        rng.shuffle(out)
        n.out = same_aggregate_order(q.out, out)
        n.aliases = ["c%d" % i for i in range(len(out))]
        return n, "columns %s -> %s" % (q.out, n.out), None
    if kind == "cosmetic":
        n.style = rng.choice([1, 2])
        return n, "restyled %d" % n.style, None
    if kind == "expression":
        i = next(i for i, a in enumerate(q.aggs) if a.plus is not None)
        n.aggs[i] = Agg(q.aggs[i].fn, q.aggs[i].arg, q.aggs[i].plus + 1)
        return n, "aggregate %d's argument %s -> %s" % (i, q.aggs[i].sql(q.names), n.aggs[i].sql(n.names)), \
            ["aggregate columns", "columns", "column origins", "input"]
    if kind == "key":
        i = rng.randrange(len(q.keys))
        other = [k for k in KEYS if k not in q.keys]
        if not other:
            return None
        n.keys[i] = other[0]
        return n, "key %s -> %s" % (q.keys[i], n.keys[i]), ["key columns", "columns", "column origins"]
    if kind == "swap":
        if len(q.keys) < 2:
            return None
        n.keys = q.keys[::-1]
        return n, "key order swapped", ["key columns", "columns", "column origins"]
    if kind == "function":
        i = rng.randrange(len(q.aggs))
        a = q.aggs[i]
        fns = [f for f in ["SUM", "MIN", "MAX"] if f != a.fn]
        n.aggs[i] = Agg(rng.choice(fns), a.arg if a.fn != "COUNT" else rng.choice(["v", "w"]), a.plus)
        return n, "aggregate %s -> %s" % (a.sql(q.names), n.aggs[i].sql(n.names)), \
            ["aggregates", "aggregate columns", "columns", "column origins", "input"]
    if kind == "argument":
        cands = [i for i, a in enumerate(q.aggs) if a.fn != "COUNT"]
        if not cands:
            return None
        i = rng.choice(cands)
        a = q.aggs[i]
        n.aggs[i] = Agg(a.fn, "w" if a.arg == "v" else "v", a.plus)
        return n, "aggregate %s -> %s" % (a.sql(q.names), n.aggs[i].sql(n.names)), \
            ["aggregate columns", "columns", "column origins", "input"]
    if kind == "arguments swapped":
        i, j = 2, 3
        n.aggs[i] = Agg(q.aggs[i].fn, q.aggs[j].arg, q.aggs[i].plus)
        n.aggs[j] = Agg(q.aggs[j].fn, q.aggs[i].arg, q.aggs[j].plus)
        return n, "aggregates %s, %s -> %s, %s" % (q.aggs[i].sql(q.names), q.aggs[j].sql(q.names),
                                                   n.aggs[i].sql(n.names), n.aggs[j].sql(n.names)), \
            ["aggregate columns"] + (["column origins"] if q.phase else [])  # two phases: the partial columns
    if kind == "window":
        if q.family not in WINDOWED:
            return None
        k, size, slide = q.window
        if k == "TUMBLE" or rng.random() < 0.5:
            size = size * 2
            slide = size if k == "TUMBLE" else slide
        else:
            slide = size // 4
        n.window = (k, size, slide)
        return n, "window %s -> %s" % (q.window, n.window), ["size", "slide", "step", "max", "windows"]
    if kind == "n":
        n.n = q.n + rng.choice([-1, 1] if q.n > 1 else [1, 2])
        return n, "Top-%d -> Top-%d" % (q.n, n.n), ["ranks"]
    if kind == "order":
        n.order = "w" if q.order == "v" else "v"
        return n, "Top-N order %s -> %s" % (q.order, n.order), ["ranks", "columns", "column origins", "input"]
    if kind == "frame":
        n.frame = rng.choice([f for f in range(5) if f != q.frame])
        return n, "OVER frame ROWS %d -> %d PRECEDING" % (q.frame, n.frame), ["frame"]
    if kind == "join type":
        n.join = "LEFT" if q.join == "INNER" else "INNER"
        return n, "%s JOIN -> %s JOIN" % (q.join, n.join), ["join"]
    if kind == "bounds":
        n.bounds = rng.choice([b for b in [None, (1, 1), (2, 0), (0, 3), (1, 2)] if b != q.bounds])
        if (q.bounds is None) != (n.bounds is None):  # another operator: a regular join against an interval join
            return n, "join bounds %s -> %s" % (q.bounds, n.bounds), ["not in the job"]
        return n, "join bounds %s -> %s" % (q.bounds, n.bounds), ["join bounds"]
    if kind == "null-safe":
        n.null_safe = not q.null_safe
        return n, "null-safe keys %s -> %s" % (q.null_safe, n.null_safe), ["null-safe keys"]
    if kind == "window-kind":
        if q.family not in WINDOWED:
            return None
        k, size, slide = q.window
        nk = rng.choice([x for x in WINDOW_KINDS if x != k])
        n.window = (nk, size, size if nk == "TUMBLE" else size // 2)
        if nk != "CUMULATE" and k == "CUMULATE":
            pass  # ws alone names a window of the new kind
        elif nk == "CUMULATE" and ("we",) not in n.out:
            n.out.append(("we",))
            n.aliases.append("c%d" % len(n.aliases))
        return n, "window %s -> %s" % (q.window, n.window), ["not in the job", "windows"]
    if kind == "rename":
        used = set(q.keys) | ({q.order} if q.family in ("topn", "wtopn") else
                             set() if q.family in ("join", "dedup", "wjoin", "wdedup")
                             else {a.arg for a in q.aggs if a.fn != "COUNT"})
        used = {{"kx": "k", "x": "v"}.get(c, c) for c in used}  # a computed column's is the column it reads
        c = rng.choice(sorted(used))
        n.names[c] = RENAMED[c]
        return n, "DDL column %s renamed %s" % (c, RENAMED[c]), ["columns", "column origins"]
    if kind == "branch where":
        if not q.union:
            return None
        i = rng.randrange(2)
        n.bwhere[i] = rng.choice([x for x in [None] + list(range(len(PREDICATES))) if x != q.bwhere[i]])
        return n, "branch %d's WHERE %s -> %s" % (i, q.bwhere[i], n.bwhere[i]), None
    if kind == "branch expression":
        if not q.union:
            return None
        i = rng.randrange(2)
        n.bplus[i] = rng.choice([x for x in [None, 1, 2, 3] if x != q.bplus[i]])
        return n, "branch %d's v + %s -> v + %s" % (i, q.bplus[i], n.bplus[i]), ["column origins"]
    if kind == "computed":
        if not q.comp:
            return None
        c = rng.choice(sorted(q.comp))
        n.comp[c] = q.comp[c] + rng.choice([-1, 1])
        return n, "computed column %s: %s -> %s" % (c, q.comp[c], n.comp[c]), ["column origins"]
    if kind == "phase":
        n.phase = not q.phase
        return n, "agg-phase-strategy TWO_PHASE %s -> %s" % (q.phase, n.phase), PHASE_FIELDS
    if kind == "keep":
        n.keep = "last" if q.keep == "first" else "first"
        return n, "keep %s row -> %s" % (q.keep, n.keep), ["order"]
    if kind == "dedup order":
        n.dorder = "ts_ms"
        return n, "deduplication ORDER BY ts -> ts_ms (a Top-1)", ["not in the job"]
    raise ValueError(kind)


def same_aggregate_order(old, out):
    """out with its aggregate items put back in old's order of first
    appearance. The planner numbers a query's aggregate calls in the order
    the SELECT names them, so aggregates reordered in the SELECT reorder
    the window's aggregates (`aggregates MIN(BIGINT), SUM(BIGINT) in the
    checkpoint, SUM(BIGINT), MIN(BIGINT) now`): weir refuses that change,
    though the state would fit once permuted. Exact or refused holds, so
    the draw keeps their order (a gap: docs/checkpoints.md)."""
    order = []
    for it in old:
        if it[0] in ("agg", "agg10") and it[1] not in order:
            order.append(it[1])
    at = [i for i, it in enumerate(out) if it[0] in ("agg", "agg10")]
    aggs = sorted((out[i] for i in at), key=lambda it: (order.index(it[1]), it[0] == "agg10"))
    out = list(out)
    for i, it in zip(at, aggs):
        out[i] = it
    return out


# --------------------------------------------------------------------------
# The oracle

def windows_of(ts, window):
    kind, size, slide = window
    if kind == "TUMBLE":
        s = ts - ts % size
        return [(s, s + size)]
    if kind == "HOP":
        last = ts - ts % slide
        return [(s, s + size) for s in range(last - size + slide, last + 1, slide) if s <= ts < s + size]
    s = ts - ts % size
    return [(s, e) for e in range(s + slide, s + size + 1, slide) if ts < e]


def reaching(q, rows):
    """The rows that reach q's operator, as it sees them: with the DDL's
    computed columns, through a UNION ALL's branch (its WHERE, its v),
    past the query's WHERE."""
    out = []
    for r in rows:
        r = dict(r)
        for c, p in q.comp.items():
            r[c] = COMPUTED[c][1](r, p)
        if q.union:
            b = r["src"]
            if q.bwhere[b] is not None and not PREDICATES[q.bwhere[b]][1](r):
                continue
            if q.bplus[b] is not None and r["v"] is not None:
                r["v"] += q.bplus[b]
        if q.where is None or PREDICATES[q.where][1](r):
            out.append(r)
    return out


def results(q_old, q_new, files, counts=None):
    """{group: its rows}: a.json's rows under the old query's WHERE and
    b.json's under the new one's, grouped by the (common) keys and window.
    A row of b.json joins only its windows that end after the watermark
    that a.json left (its last time less the delay): the others fired
    before it came (the restored job goes on from that watermark, and
    b.json's late rows come first, before its own rows move it on).
    An OVER aggregation drops a row whose time is not after the last time
    its partition processed (docs/sql.md, OVER): a.json's rows of the
    partition before the watermark it left (a row of time t is processed
    once W > t), so a late row of b.json is dropped at or behind the last
    of those and kept, in time order, after it. A deduplication drops no
    row (below, expected_rows)."""
    groups = collections.defaultdict(list)
    wm = restored_watermarks(files[0])[0]
    processed = {}  # OVER: each partition's last time processed before the stop
    for i, (q, rows) in enumerate(((q_old, files[0]), (q_new, files[1]))):
        for r in reaching(q, rows):
            if i == 1 and q_old.family == "join" and q_old.bounds and r["ts_ms"] < wm:
                continue  # an interval join drops a row behind its side's watermark
            key = tuple(r[k] for k in q_old.keys)
            if q_old.family == "over":
                if i == 0 and r["ts_ms"] < wm:
                    processed[key] = max(processed.get(key, r["ts_ms"]), r["ts_ms"])
                elif i == 1 and key in processed and r["ts_ms"] <= processed[key]:
                    if counts is not None:
                        counts["late rows an OVER aggregation drops"] += 1
                    continue  # late: behind what its partition processed
                elif i == 1 and r["ts_ms"] < wm and counts is not None:
                    counts["late rows an OVER aggregation keeps"] += 1
            if q_old.family == "dedup" and i == 1 and r["ts_ms"] < wm and counts is not None:
                kept = groups[key] and (min if q_old.keep == "first" else max)(x["ts_ms"] for x in groups[key])
                if groups[key] and (r["ts_ms"] < kept if q_old.keep == "first" else r["ts_ms"] >= kept):
                    counts["late rows that replace a deduplication's row"] += 1
            if q_old.family not in WINDOWED:
                groups[key].append(r)
            else:
                for w in windows_of(r["ts_ms"], q_old.window):
                    if i == 0 or w[1] > wm:
                        groups[key + w].append(r)
    return groups


def ts_text(ms):
    return (datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def expected_rows(q, groups):
    """The rows a group, Top-N or OVER query's result holds in the end
    (the group's rows in time order)."""
    out = []
    for g, rows in groups.items():
        if q.family == "group":
            out.append(project(q, g, rows))
        elif q.family in ("join", "wjoin"):
            out += [project(q, g, [a, b]) for a, b in join_rows(q, rows)]
        elif q.family in ("topn", "wtopn"):
            best = sorted(rows, key=lambda r: (-r[q.order], r["id"]))[:q.n]
            out += [project(q, g, [r]) for r in best]
        elif q.family == "dedup":
            # by time, b.json's late rows too (no row is late here): the
            # first keeps the earliest, the first to arrive of equal ones;
            # the last the latest, where a row equal in time replaces it
            # (docs/sql.md, Top-N and deduplication)
            if q.keep == "first":
                kept = min(rows, key=lambda r: r["ts_ms"])
            else:
                kept = max(reversed(rows), key=lambda r: r["ts_ms"])
            out.append(project(q, g, [kept]))
        elif q.family == "wdedup":  # a window's rows: b.json's late rows came before its others
            out.append(project(q, g, [(min if q.keep == "first" else max)(rows, key=lambda r: r["ts_ms"])]))
        else:  # OVER: the partition's rows in time order (late ones kept among them), peers by arrival
            rows = sorted(rows, key=lambda r: r["ts_ms"])
            out += [project(q, g, rows[max(0, i - q.frame):i + 1]) for i in range(len(rows))]
    return collections.Counter(out)


def project(q, group, rows):
    """A result row: group's rows are a window's or a group's, a Top-N's
    one row, or an OVER frame's rows (the current row last)."""
    nk = len(q.keys)
    vals = []
    for it in q.out:
        if it[0] == "key":
            vals.append(group[it[1]])
        elif it[0] in ("left", "right"):
            r = rows[0 if it[0] == "left" else 1]
            vals.append(None if r is None else r["id"])
        elif it[0] in ("col", "order"):
            vals.append(rows[-1][q.order if it[0] == "order" else it[1]])
        elif it[0] in ("ws", "we"):
            vals.append(ts_text(group[nk] if it[0] == "ws" else group[nk + 1]))
        else:
            v = q.aggs[it[1]].value(rows)
            vals.append(v * 10 if it[0] == "agg10" and v is not None else v)
    return tuple(vals)


# --------------------------------------------------------------------------
# The committed output

def changes(case, names):
    """(op, row values in column order) of the committed files names."""
    return list(diffrun.debezium_changes(case.path("out"), names))


def window_problems(q1, q2, groups, before, after):
    """before: the changes committed before the stop, after: those
    committed since (a SIGKILL may leave files of the old query that the
    restored run commits): each group's row is there exactly once, in the
    old query's projection or the new one's, and only in the old one's
    before the stop. Both projections hold the keys and the window, so a
    row names its group."""
    if any(op != "c" for op, _ in before + after):
        return ["a window aggregation retracted a row"]
    got = collections.Counter(tuple(r.values()) for _, r in before + after)
    olds = set()
    want = collections.Counter()
    for g, rows in groups.items():
        old = project(q1, g, rows)
        olds.add(old)
        want[old if got[old] > want[old] else project(q2, g, rows)] += 1
    probs = ["a row committed before the stop is no result of the old query: %s" % (v,)
             for v in sorted({tuple(r.values()) for _, r in before} - olds, key=str)[:5]]
    return probs + diffrun.multiset_problems("committed rows", want, got)


def changelog_problems(q2, groups, changes_all):
    """A group's, Top-N's or OVER's committed changelog, folded by column
    position (the sink's names may have changed), against its result."""
    want = expected_rows(q2, groups)
    got = collections.Counter()
    for op, r in changes_all:
        v = tuple(r.values())
        if op == "c":
            got[v] += 1
        elif got[v] <= 0:
            return ["a delete of a row not there: %s" % (v,)]
        else:
            got[v] -= 1
    return diffrun.multiset_problems("final table", want, +got)


def output_problems(case, q1, q2, files, first_names):
    names = diffrun.committed_files(case.path("out"))
    later = [x for x in names if x not in first_names]
    groups = results(q1, q2, files, case.counts)
    probs = second_problems(case, q1, files)
    if q1.family == "window":
        return probs + window_problems(q1, q2, groups, changes(case, first_names), changes(case, later))
    all_changes = changes(case, first_names) + changes(case, later)
    if q1.family in ("over", "wtopn", "wdedup", "wjoin") and any(op != "c" for op, _ in all_changes):
        return probs + ["an append-only %s job retracted a row" % q1.family]
    return probs + changelog_problems(q2, groups, all_changes)


def second_problems(case, q, files):
    """A statement set's second INSERT, which both queries have alike: its
    final table (COUNT(*) per k of every row of src) from its changelog."""
    if not q.second:
        return []
    want = collections.Counter(collections.Counter(r["k"] for f in files for r in f if r["src"] == 0).items())
    got = collections.Counter()
    for op, r in diffrun.debezium_changes(case.path("out2"), diffrun.committed_files(case.path("out2"))):
        got[tuple(r.values())] += 1 if op == "c" else -1
    return diffrun.multiset_problems("the second INSERT's final table", want, +got)


# --------------------------------------------------------------------------
# Runs

def settings_argv(case, p, rocksdb):
    return ["-D", "state.checkpoints.dir=ckpt", "-D", "state.savepoints.dir=sp",
            "-D", "table.local-time-zone=UTC"] + diffrun.engine_options(case, p, None, rocksdb)


def completed(case):
    d = case.path("ckpt")
    if not os.path.isdir(d):
        return []
    return sorted(int(x[4:]) for x in os.listdir(d)
                  if re.match(r"chk-\d+$", x) and os.path.exists(os.path.join(d, x, "_metadata")))


def whole(case, path):
    """Whether the checkpoint or savepoint at path holds a.json read whole."""
    p = case.run_weir(["inspect", path])
    states = re.findall(r"source split \S*a\.json: (\w+)", p.stdout or "")
    return p.returncode == 0 and states and all(s == "finished" for s in states)


def first_run(case, q, st, stop, text=None):
    """Runs q live (or the job text) until a checkpoint holds a.json
    whole, stops it (stop); (the path to restore, None to resume the
    checkpoint folder) or a problem string."""
    case.write("job1.sql", text or job_sql(q, True))
    # A checkpoint every 100 ms, the last 50 kept: `weir inspect` (slow
    # under a sanitizer or load) must find the one it reads still there.
    argv = ["run", "job1.sql", "-D", "execution.checkpointing.interval=100ms",
            "-D", "state.checkpoints.num-retained=50"] + st
    with open(case.path("run1.log"), "w") as lf:
        p = subprocess.Popen([case.weir] + argv, cwd=case.folder, stdout=subprocess.DEVNULL, stderr=lf)
    try:
        # a.json is read at once; `weir inspect` is a process start (the
        # most of a case's CPU when run at every checkpoint): every 0.25 s
        end, seen = time.time() + 60, None
        while True:
            if p.poll() is not None:
                return "the first run ended on its own (%s): %s" % (p.returncode, read(case.path("run1.log"))[-600:])
            if time.time() > end:
                return "no checkpoint held a.json whole within 60 s"
            ids = completed(case)
            if ids and ids[-1] != seen:
                seen = ids[-1]
                if whole(case, case.path("ckpt", "chk-%d" % seen)):
                    break
                time.sleep(0.25)
            time.sleep(0.02)
        if stop == "term":
            p.send_signal(signal.SIGTERM)
            rc = p.wait(timeout=60)
            if rc != 143:
                return "SIGTERM exited %s: %s" % (rc, read(case.path("run1.log"))[-600:])
            return None
        if stop == "kill":
            p.kill()
            p.wait()
            return None
        sp = case.run_weir(["savepoint", str(p.pid), "--stop"], timeout=60)
        path = (sp.stdout or "").strip().splitlines()[-1:] if sp.returncode == 0 else []
        rc = p.wait(timeout=60)
        if not path or rc != 0:
            return "weir savepoint --stop: exit %s/%s: %s %s" % (sp.returncode, rc, sp.stdout, sp.stderr[-400:])
        return os.path.join(case.folder, path[0].strip())
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def first_part(case, q, st, stop, text=None):
    """first_run, and a check that what the next run restores holds a.json
    whole: (the path to restore or None, problems)."""
    frm = first_run(case, q, st, stop, text)
    if frm is not None and not frm.startswith("/"):
        return None, [frm]
    restore_at = frm or case.path("ckpt", "chk-%d" % completed(case)[-1])
    if not whole(case, restore_at):
        return None, ["the checkpoint or savepoint to restore (%s) does not hold a.json whole" % restore_at]
    return frm, []


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def snapshot(case):
    """Every file under out/, ckpt/ and sp/ with its bytes (but the lock
    that each run of a checkpoint folder takes, and a killed run leaves)."""
    files = {}
    for top in ("out", "out2", "ckpt", "sp"):
        for root, _, names in os.walk(case.path(top)):
            for x in names:
                if x == ".weir.lock":
                    continue
                with open(os.path.join(root, x), "rb") as f:
                    files[os.path.relpath(os.path.join(root, x), case.folder)] = f.read()
    return files


def restore(case, name, q, st, frm, text=None):
    case.write(name + ".sql", text or job_sql(q, False))
    argv = ["run", name + ".sql"] + st + (["--from", frm] if isinstance(frm, str) else [])
    p = case.run_weir(argv)
    case.write(name + ".log", p.stderr)
    case.steps.append("weir " + " ".join(argv) + "  -> exit %d" % p.returncode)
    return p


def refusal_problems(case, p, kind, fields, op, before):
    probs = []
    if p.returncode != 3:
        return ["a %s change was not refused (exit %d): %s" % (kind, p.returncode, p.stderr.strip()[-600:])]
    msg = p.stderr
    if "does not fit this job" not in msg or op not in msg:
        probs.append("the refusal does not name %s: %s" % (op, msg.strip()[-600:]))
    elif not any(f in msg for f in fields):
        probs.append("the refusal names none of %s: %s" % (fields, msg.strip()[-600:]))
    now = snapshot(case)
    if now != before:
        changed = sorted(set(now) ^ set(before) | {k for k in now if k in before and now[k] != before[k]})
        probs.append("the refused run changed files: %s" % changed[:8])
    return probs


def run_case(case):
    rng = case.rng
    expr = os.environ.get("WEIR_RESTORECHG_EXPR", "1") == "1"
    fams = diffrun.families(os.environ.get("WEIR_RESTORECHG_FAMILIES", ""), FAMILIES)
    family = rng.choice([f for f in FAMILIES if f in fams])
    if family == "match":
        return run_match_case(case)
    if rng.random() < 0.5:
        kind, compatible = rng.choice([k for k in COMPATIBLE if family in ONLY.get(k, {family})]), True
    else:
        kind, compatible = rng.choice([k for k in INCOMPATIBLE if family in ONLY.get(k, {family})
                                       and (expr or k != "expression")]), False
    q1 = draw_query(rng, family, expr, kind)
    nulls = rng.random() < 0.3
    late = family in ("window", "wtopn", "wdedup", "wjoin", "group", "topn", "join", "over", "dedup") \
        and rng.random() < (0.6 if family in ("over", "dedup") else 0.4)
    files = gen_rows(rng, q1, nulls, late)
    drawn = draw_change(rng, q1, kind)
    if drawn is None:  # not for this query (one key: no swap): a compatible rename instead
        kind, compatible = "alias", True
        drawn = draw_change(rng, q1, kind)
    q2, what, fields = drawn
    stop = rng.choice(STOPS)
    p1, p2 = rng.choice([1, 2, 4]), rng.choice([1, 2, 4])
    b1, b2 = rng.random() < 0.3, rng.random() < 0.4
    st1, st2 = settings_argv(case, p1, b1), settings_argv(case, p2, b2)
    extras = [x for x, on in (("statement set", q1.second), ("union", q1.union),
                              ("computed %s" % sorted(q1.comp), q1.comp),
                              ("two-phase", q1.phase), ("NULLs", nulls), ("late rows", late)) if on]
    case.note = "(%s%s, %s change: %s; p%d %s -%s-> p%d %s)" % (
        family, "".join(" + " + x for x in extras), "compatible" if compatible else "incompatible", what, p1,
        "rocksdb" if b1 else "memory", stop, p2, "rocksdb" if b2 else "memory")
    case.counts["%s cases" % family] += 1
    case.counts["%s %s" % (family, "compatible" if compatible else "refused")] += 1
    case.counts["%s changes" % kind] += 1
    for x in extras:
        case.counts["with " + x.split(" [")[0]] += 1
    case.steps = []
    folders = ["in", "in2"] if q1.union else ["in"]
    for i, d in enumerate(folders):
        os.mkdir(case.path(d))
        case.write(d + "/a.json", input_text([r for r in files[0] if r["src"] == i]))
    frm, probs = first_part(case, q1, st1, stop)
    if probs:
        return probs
    first_names = diffrun.committed_files(case.path("out"))
    for i, d in enumerate(folders):
        case.write(d + "/.b.json", input_text([r for r in files[1] if r["src"] == i]))
        os.rename(case.path(d + "/.b.json"), case.path(d + "/b.json"))
    before = snapshot(case)
    p = restore(case, "job2", q2, st2, frm)
    op = {"window": "window[0]", "group": "GroupAggregate[0]", "topn": "Rank[0]", "over": "OverAggregate[0]",
          "join": "IntervalJoin[0]" if q1.bounds else "Join[0]", "dedup": "Deduplicate[0]",
          "wtopn": "WindowRank[0]", "wdedup": "WindowDeduplicate[0]", "wjoin": "WindowJoin[0]"}[family]
    return verdict(case, p, compatible, kind, fields, op, before, q1, q2,
                   lambda q: restore(case, "job3", q, st2, frm),
                   lambda old, new: output_problems(case, old, new, files, first_names))


def verdict(case, p, compatible, kind, fields, op, before, q1, q2, rerun, check):
    """The problems of the restored run p of the changed query q2: a
    compatible change restored with check(q1, q2)'s result; an
    incompatible one refused (refusal_problems), after which, in half of
    the cases, the old query restores (rerun(q1)) with check(q1, q1)'s."""
    case.write("steps.txt", "\n".join(case.steps) + "\n")
    if compatible:
        if p.returncode != 0:
            return ["a compatible change (%s) did not restore: %s" % (kind, diffrun.failed_run(p))]
        if "restoring from" not in p.stderr:
            return ["the restored run did not say what it restored: " + p.stderr[-600:]]
        return check(q1, q2)
    case.counts["refusals"] += 1
    probs = refusal_problems(case, p, kind, fields, op, before)
    if probs or case.rng.random() < 0.5:
        return probs
    # after the refusal the old query restores the untouched state exactly
    case.counts["old queries restored after a refusal"] += 1
    p = rerun(q1)
    case.write("steps.txt", "\n".join(case.steps) + "\n")
    if p.returncode != 0:
        return ["the old query did not restore after the refusal: " + diffrun.failed_run(p)]
    return check(q1, q1)


# --------------------------------------------------------------------------
# MATCH_RECOGNIZE (match_diff's queries, rows and oracle)

MATCH_PREDICATES = [("v <> 3", lambda r: r["v"] is not None and r["v"] != 3),
                    ("MOD(id, 3) <> 0", lambda r: r["id"] % 3 != 0),
                    ("k <> 'a'", lambda r: r["k"] is not None and r["k"] != "a"),
                    ("v IS NOT NULL", lambda r: r["v"] is not None)]
MATCH_COMPATIBLE = ["alias", "cosmetic", "where", "where", "measure", "define", "define", "measures"]
MATCH_INCOMPATIBLE = ["pattern", "skip", "within", "partition", "running values", "measure calls",
                      "define reads more"]
# A call that gives a partial match a running value of its own (a slot).
MATCH_CALL = re.compile(r"\b(FIRST|LAST|PREV|SUM|AVG|MIN|MAX|COUNT)\(")


def match_sql(m, live):
    """The job of match query m (match_diff's query with the fields the
    changes touch: where, aliases, names of the measures, style) over the
    folder in/, into the file sink out/."""
    create, insert = md.sql_of(m["q"], 0)
    cols = re.search(r"CREATE TABLE q0 \((.*)\) WITH", create).group(1).split(", ")
    sink = "CREATE TABLE dst (%s)\nWITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'debezium-json');\n" \
        % ", ".join("%s %s" % (a, c.split(" ")[1]) for a, c in zip(m["aliases"], cols))
    src = "t" if m["where"] is None else "f"
    insert = insert.replace("INSERT INTO q0 SELECT * FROM t MATCH_RECOGNIZE",
                            "INSERT INTO dst SELECT * FROM %s MATCH_RECOGNIZE" % src)
    insert = re.sub(r"\bAS m(\d+)\b", lambda x: "AS %s%s" % (m["mname"], x.group(1)), insert)
    view = "" if m["where"] is None else \
        "CREATE TEMPORARY VIEW f AS SELECT * FROM t WHERE %s;\n" % MATCH_PREDICATES[m["where"]][0]
    table = md.TABLE_SQL.replace("'path' = 'in.json', 'format' = 'json')", "'path' = 'in', 'format' = 'json'%s)"
                                 % (", 'source.monitor-interval' = '50ms'" if live else ""))
    return restyle(table + view + sink + insert, m["style"])


def plain_measure(rng, q):
    """(sql, fn, type) of a measure that reads no running value of its own:
    a column of the last row of a variable or of the match."""
    x = rng.choice(sorted({t[0] for t in q["terms"]}))

    def last_id(c, var):
        ix = c.idx(var)
        return c.part[ix[-1]]["id"] if ix else None
    return rng.choice([("%s.v" % x, lambda c, x=x: c.last(x), "INT"), ("v", lambda c: c.last(None), "INT"),
                       ("%s.id" % x, lambda c, x=x: last_id(c, x), "INT"),
                       ("id * 2", lambda c: last_id(c, None) * 2, "INT")])


def draw_match(rng):
    q = md.gen_query(rng)
    q["measures"] = [(sql, fn, md.MEASURE_TYPES[i]) for i, (sql, fn) in enumerate(q["measures"])]
    for _ in range(rng.randint(0, 2)):  # measures that MEASURES changes may reorder, add or remove
        q["measures"].insert(rng.randint(0, len(q["measures"])), plain_measure(rng, q))
    return {"q": q, "where": rng.choice([None, None] + list(range(len(MATCH_PREDICATES)))),
            "aliases": match_aliases(q), "mname": "m", "style": 0}


def match_aliases(q):
    return ["c%d" % i for i in range(len(q["measures"]) + (1 if q["partitioned"] else 0))]


def match_copy(m):
    n = dict(m)
    n["q"] = dict(m["q"])
    n["q"]["terms"], n["q"]["defines"] = list(m["q"]["terms"]), dict(m["q"]["defines"])
    n["q"]["measures"] = list(m["q"]["measures"])
    return n


def draw_match_change(rng, m, kind):
    """(the changed query, a description, the fields a refusal may name;
    None: compatible)."""
    n = match_copy(m)
    q, nq = m["q"], n["q"]
    if kind == "alias":
        n["aliases"] = ["o%d_%s" % (i, rng.choice("xyz")) for i in range(len(m["aliases"]))]
        n["mname"] = rng.choice(["x", "measure_"])
        return n, "sink columns and measures renamed", None
    if kind == "cosmetic":
        n["style"] = rng.choice([1, 2])
        return n, "restyled %d" % n["style"], None
    if kind == "where":
        n["where"] = rng.choice([x for x in [None] + list(range(len(MATCH_PREDICATES))) if x != m["where"]])
        return n, "WHERE under the match %s -> %s" % (m["where"], n["where"]), None
    if kind == "measure":
        # an expression over a value the match carries already (LAST(X.v)): the same running values
        i = [j for j, x in enumerate(q["measures"]) if re.match(r"LAST\(\w\.v\)$", x[0])][0]
        sql, fn, ty = q["measures"][i]
        nq["measures"][i] = (sql + " + 10", lambda c, fn=fn: None if fn(c) is None else fn(c) + 10, ty)
        return n, "measure %s -> %s + 10" % (sql, sql), None
    if kind == "define":
        return draw_define_change(rng, n)
    if kind == "define reads more":
        # a condition from the first merged term on reads another variable's
        # row: the partial matches merged before the stop could have won
        # (`merged partial matches`); only with two variables or more
        mf = merged_from(q)
        vs = sorted({t[0] for t in q["terms"][mf:]})
        others = sorted({t[0] for t in q["terms"]})
        if not vs or len(others) < 2:
            return draw_match_change(rng, m, "running values")
        v = rng.choice(vs)
        w = rng.choice([x for x in others if x != v])
        old = q["defines"].get(v)
        extra = "(%s.v IS NULL OR %s.v >= %s.v)" % (w, v, w)
        nq["defines"][v] = ("(%s AND %s)" % (old[0], extra), old[1]) if old else (extra, lambda c: True)
        return n, "DEFINE %s: %s -> %s (merged from term %d)" % (v, old[0] if old else "TRUE", nq["defines"][v][0],
                                                                 mf + 1), ["merged partial matches"]
    if kind in ("measures", "measure calls"):
        # MEASURES reordered, added or removed: plain ones (no running
        # value of their own) restore, calls are refused (`running values`)
        ms, calls = nq["measures"], kind == "measure calls"
        mine = [j for j, x in enumerate(ms) if bool(MATCH_CALL.search(x[0])) == calls]
        how = rng.choice(["added"] + (["removed", "moved"] if mine else []))
        if how == "added":
            x = rng.choice(sorted({t[0] for t in q["terms"]}))
            new = ("MIN(%s.v)" % x, lambda c, x=x: c.agg("MIN", x), "INT") if calls else plain_measure(rng, q)
            ms.insert(rng.randint(0, len(ms)), new)
        elif how == "removed":
            new = ms.pop(rng.choice(mine))
        else:  # (a call among the other calls elsewhere: the slots come in another order)
            was = [x[0] for x in ms]
            j = rng.choice(mine)
            new = ms.pop(j)

            def moved(at):
                order = [x[0] for x in ms[:at] + [new] + ms[at:]]
                return [x for x in order if MATCH_CALL.search(x)] != [x for x in was if MATCH_CALL.search(x)] \
                    if calls else order != was
            ms.insert(rng.choice([at for at in range(len(ms) + 1) if moved(at)] or [j]), new)
        n["aliases"] = match_aliases(nq)
        return n, "MEASURES: %s %s -> %s" % (new[0], how, ", ".join(x[0] for x in ms)), \
            ["running values"] if calls else None
    if kind == "pattern":
        # the first variable once more in front: (A B*) -> (A A B*)
        v = q["terms"][0][0]
        nq["terms"] = [(v, 1, 1, False, v)] + q["terms"]
        return n, "pattern %s -> %s" % (" ".join(t[4] for t in q["terms"]), " ".join(t[4] for t in nq["terms"])), \
            ["pattern"]
    if kind == "skip":
        nq["skip"] = "TO NEXT ROW" if q["skip"] == "PAST LAST ROW" else "PAST LAST ROW"
        return n, "AFTER MATCH SKIP %s -> %s" % (q["skip"], nq["skip"]), ["pattern"]
    if kind == "within":
        nq["within"] = rng.choice([w for w in [None, 1, 3, 5, 7] if w != q["within"]])
        return n, "WITHIN %s -> %s s" % (q["within"], nq["within"]), ["pattern"]
    if kind == "partition":
        nq["partitioned"] = not q["partitioned"]
        n["aliases"] = match_aliases(nq)
        return n, "PARTITION BY k %s -> %s" % (q["partitioned"], nq["partitioned"]), \
            ["key", "key columns", "not in the job"]
    if kind == "running values":
        # a DEFINE that holds as before (ids are positive) but reads a value the
        # partial matches do not carry: SUM(X.id)
        v = rng.choice(sorted({t[0] for t in q["terms"]}))
        old = q["defines"].get(v)
        extra = "SUM(%s.id) > -1" % v
        nq["defines"][v] = (("(%s AND %s)" % (old[0], extra), old[1]) if old else (extra, lambda c: True))
        return n, "DEFINE %s: %s -> %s" % (v, old[0] if old else "TRUE", nq["defines"][v][0]), ["running values"]
    raise ValueError(kind)


def candidate_only(v, sql):
    """Whether condition sql of variable v reads the candidate row alone
    (its v, LAST(v.v, 0) or v unqualified; no call of another kind)."""
    sql = sql.replace("LAST(%s.v, 0)" % v, "%s.v" % v)
    return not MATCH_CALL.search(sql) and all(x == v for x in re.findall(r"\b(\w+)\.[v*]", sql))


def merged_from(q):
    """The first term (from 0) from which the operator merges the partial
    matches waiting at a term with the same count: those whose conditions,
    and every later term's, read the candidate row alone (ops/match.h)."""
    t = len(q["terms"])
    while t > 0 and (q["terms"][t - 1][0] not in q["defines"] or
                     candidate_only(q["terms"][t - 1][0], q["defines"][q["terms"][t - 1][0]][0])):
        t -= 1
    return t


def draw_define_change(rng, n):
    """A DEFINE changed without a change of the running values: a
    comparison of the candidate row's v ANDed or ORed to a variable's
    condition, or a condition without calls replaced by such a comparison
    or removed (`A.v > 3` -> `A.v > 4`). None of them makes a condition
    read more than the candidate row where it read only that (what the
    operator merges partial matches by, ops/match.c)."""
    nq = n["q"]
    v = rng.choice(sorted({t[0] for t in nq["terms"]}))
    old = nq["defines"].get(v)
    op, k = rng.choice(["<", "<=", ">", ">=", "=", "<>"]), rng.randint(0, 9)
    cmp_sql, cmp_fn = "%s.v %s %d" % (v, op, k), (lambda c, v=v, op=op, k=k: md.cmp3(c.last(v), op, k))
    hows = ["and"] + (["or"] + ([] if MATCH_CALL.search(old[0]) else ["replaced", "removed"]) if old else [])
    how = rng.choice(hows)
    if how == "and":
        nq["defines"][v] = ("(%s AND %s)" % (old[0], cmp_sql), lambda c, f=old[1]: md.and3(f(c), cmp_fn(c))) \
            if old else (cmp_sql, cmp_fn)
    elif how == "or":
        nq["defines"][v] = ("(%s OR %s)" % (old[0], cmp_sql), lambda c, f=old[1]: md.or3(f(c), cmp_fn(c)))
    elif how == "replaced":
        nq["defines"][v] = (cmp_sql, cmp_fn)
    else:
        del nq["defines"][v]
    return n, "DEFINE %s: %s -> %s" % (v, old[0] if old else "TRUE", nq["defines"][v][0] if v in nq["defines"]
                                       else "TRUE"), None


def match_rows(m, rows):
    return [r for r in rows if m["where"] is None or MATCH_PREDICATES[m["where"]][1](r)]


def match_expected(m1, m2, files, counts=None, replay=False):
    """The matches of the restored job, each (its row, whether it was
    decided before the stop): a.json's rows under the old WHERE, b.json's
    under the new one's (each partition's rows in (ts, id) order, none of
    them late); the operator has processed a.json's rows of a time before
    the watermark a.json left (W > t: released), one start after another,
    by the old query, as far as they decide (a start whose preferred match
    a later row could change is not decided; with WITHIN, a start at ts is
    once W > ts + WITHIN), each match in the old query's measures. The
    start the checkpoint was matching from goes on after the restore with
    its partial matches: the rows it took or refused before the stop were
    judged by the old DEFINE, the rows after by the new one; every later
    start, and every match decided after the restore, is the new query's
    (docs/checkpoints.md, Restore compatibility: MATCH_RECOGNIZE).
    replay: that start is matched again by the new query instead (what
    the old DEFINE's verdicts change: counted)."""
    q1, q2 = m1["q"], m2["q"]
    wm = max(r["ts_ms"] for r in files[0]) - DELAY
    out = []
    for key, part in md.partitions(q1, match_rows(m1, files[0]) + match_rows(m2, files[1])).items():
        known = sum(1 for r in part if r["ts_ms"] < wm)
        s = 0
        while s < known:
            closed = bool(q1["within"]) and part[s]["ts_ms"] + q1["within"] * 1000 < wm
            try:
                asg = md.search(q1, part, s, known=known, closed=closed)
            except md.Undecided:
                break
            if asg is None:
                s += 1
                continue
            out.append((md.measured(q1, key, md.Ctx(part, s, asg)), True))
            s = md.resume(q1, s, asg)
        if counts is not None and s < known:
            counts["match starts live at the stop"] += 1
        defines = None if replay else (lambda i: q1["defines"] if i < known else q2["defines"])
        while s < len(part):
            asg = md.search(q2, part, s, defines)
            defines = None
            if asg is None:
                s += 1
                continue
            out.append((md.measured(q2, key, md.Ctx(part, s, asg)), False))
            s = md.resume(q2, s, asg)
    return out


def match_problems(case, m1, m2, files, first_names):
    """The committed rows are match_expected's, each once; those committed
    before the stop among the matches decided before it."""
    want = match_expected(m1, m2, files, case.counts)
    if m1["q"]["defines"] != m2["q"]["defines"] and want != match_expected(m1, m2, files, replay=True):
        case.counts["DEFINE changes where the restored partial matches' old verdicts show"] += 1
    case.counts["matches"] += len(want)
    case.counts["matches decided before the stop"] += sum(1 for _, b in want if b)
    later = [x for x in diffrun.committed_files(case.path("out")) if x not in first_names]
    before, after = changes(case, first_names), changes(case, later)
    case.counts["matches committed before the stop"] += len(before)
    if any(op != "c" for op, _ in before + after):
        return ["MATCH_RECOGNIZE retracted a row"]

    def text(r):
        return tuple("null" if x is None else str(x) for x in r.values())
    got = collections.Counter(text(r) for _, r in before + after)
    early = collections.Counter(r for r, b in want if b)
    probs = ["a row committed before the stop is no match the old query decided before it: %s" % (v,)
             for v in sorted(collections.Counter(text(r) for _, r in before) - early, key=str)[:5]]
    return probs + diffrun.multiset_problems("committed matches", collections.Counter(r for r, _ in want), got)


def run_match_case(case):
    """A MATCH_RECOGNIZE job (match_diff's random query, rows out of order
    by less than the watermark's delay, so none is late) stopped with
    a.json read whole and restored into a changed query with b.json, the
    rest of its rows. Compatible: sink columns and measures renamed,
    restyled, the WHERE under the match (a view) added, changed or
    removed, a measure's expression over a value the partial matches carry
    already (LAST(X.v) + 10). Refused, naming Match[0]: the pattern, its
    AFTER MATCH SKIP or WITHIN (`pattern`), PARTITION BY added or removed
    (`key`), a DEFINE that reads a value the partial matches do not carry
    (`running values`; the condition holds as before), MEASURES with
    a call of their own reordered, added or removed (`running values`).
    Also compatible: a DEFINE changed without a change of the running
    values (AND / OR a comparison of the candidate row's v, a condition
    without calls replaced or removed), where the restored partial matches
    keep the old condition's verdicts on the rows before the stop
    (match_expected), and MEASURES without calls reordered, added or
    removed. A DEFINE change is drawn, up to 40 times, until the old
    verdicts of the partial matches live at the stop show in the result
    (a few in a hundred draw that at random). Refused too: a condition
    from the first term whose partial matches the operator merges on made
    to read another variable's row (`merged partial matches`: the merged
    ones could have won; drawn until the pattern has two variables)."""
    rng = case.rng
    compatible = rng.random() < 0.5
    kind = rng.choice(MATCH_COMPATIBLE if compatible else MATCH_INCOMPATIBLE)
    drawn = None
    for tries in range(50):
        m1 = draw_match(rng)
        rows, arrival = md.gen_rows(rng)
        cut = rng.randint(1, len(arrival) - 1) if len(arrival) > 1 else 1
        files = [arrival[:cut], arrival[cut:]]
        m2, what, fields = draw_match_change(rng, m1, kind)
        try:  # a query whose AFTER MATCH SKIP fails the job is drawn again (match_diff)
            md.oracle(m1["q"], arrival)
            want = match_expected(m1, m2, files)
            match_expected(m1, m1, files)
        except md.SkipFails:
            continue
        drawn = m1, files, m2, what, fields
        if tries >= 40 or kind not in ("define", "define reads more"):
            break
        if fields == ["merged partial matches"] if fields else want != match_expected(m1, m2, files, replay=True):
            break
    if drawn is None:
        return ["no MATCH_RECOGNIZE query without a failing AFTER MATCH SKIP in 50 draws"]
    m1, files, m2, what, fields = drawn
    stop = rng.choice(STOPS)
    p1, p2 = rng.choice([1, 2, 4]), rng.choice([1, 2, 4])
    b1, b2 = rng.random() < 0.3, rng.random() < 0.4
    st1, st2 = settings_argv(case, p1, b1), settings_argv(case, p2, b2)
    case.note = "(match, %s change: %s; p%d %s -%s-> p%d %s)" % (
        "compatible" if compatible else "incompatible", what, p1, "rocksdb" if b1 else "memory", stop, p2,
        "rocksdb" if b2 else "memory")
    case.counts["match cases"] += 1
    case.counts["match %s" % ("compatible" if compatible else "refused")] += 1
    case.counts["match %s changes" % kind] += 1
    case.steps = []
    os.mkdir(case.path("in"))
    case.write("in/a.json", "".join(json.dumps(r) + "\n" for r in files[0]))
    frm, probs = first_part(case, None, st1, stop, match_sql(m1, True))
    if probs:
        return probs
    first_names = diffrun.committed_files(case.path("out"))
    case.write("in/.b.json", "".join(json.dumps(r) + "\n" for r in files[1]))
    os.rename(case.path("in/.b.json"), case.path("in/b.json"))
    before = snapshot(case)
    p = restore(case, "job2", None, st2, frm, match_sql(m2, False))
    return verdict(case, p, compatible, kind, fields, "Match[0]", before, m1, m2,
                   lambda m: restore(case, "job3", None, st2, frm, match_sql(m, False)),
                   lambda old, new: match_problems(case, old, new, files, first_names))


def main():
    return diffrun.main("restore_change_diff", run_case, jobs_env="WEIR_RESTORECHG_JOBS", jobs=14, asan_jobs=3,
                        one_env="WEIR_RESTORECHG_CASE", unit="cases", out_env="WEIR_RESTORECHG_OUT",
                        max_failures=5, timeout=60)


if __name__ == "__main__":
    sys.exit(main())
