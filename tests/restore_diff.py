#!/usr/bin/env python3
"""Randomized differential test of stop, crash and restore over the random
queries of the other differential tests.

Each case draws one job from an existing generator and checks it against
that generator's oracle (both imported, no code shared with weir):
  window     sql_diff.py: window aggregations (TUMBLE, HOP, CUMULATE,
             SESSION, WHERE under the window, HAVING, cascades, grouping
             sets, allowed lateness: a changelog), several tables with
             their own watermark delays over one input; in half the
             jobs early firings (table.exec.emit.early-fire, on every
             record or every 1 or 100 ms), in some late firings (per
             late row or every hour: pending until the window is
             cleaned up, across the restores where the allowed lateness
             is a minute): each firing retracts the window's row before
             it, which the restored state must hold;
  changelog  changelog_diff.py: GROUP BY and ROLLUP, OVER, Top-N (also
             over a GROUP BY), ORDER BY LIMIT, temporal sort,
             deduplication, regular and interval joins, semi/anti joins;
             some (ENDED_JOIN_SHARE) of its join queries only, their
             tables t and t2 in folders of their own (the same rows),
             one ended before the restore (CutInputs, below), a quarter
             of those join_bounded_diff.py's (Nexmark q7's regular join
             of bids with a window aggregation, whose state the
             watermark bounds) likewise over tables bid and bid1;
  cdc        cdc_diff.py: debezium-json sources (one history per table in
             a folder) under filters, GROUP BY, DISTINCT, joins, Top-N,
             and PRIMARY KEY sinks with the upsert materializer (FORCE);
  rank       window_rank_diff.py: window Top-N (ROW_NUMBER, RANK,
             DENSE_RANK; over window table functions and window
             aggregations) and window deduplication, TUMBLE, HOP and
             CUMULATE windows, late rows;
  wjoin      window_join_diff.py: window joins (INNER / LEFT / RIGHT /
             FULL) of two inputs with watermarks of their own, over
             window table functions or window aggregations (SESSION
             too), with a window aggregation or a second window join
             after some; about one case in nine (WEIGHTS); some
             (ENDED_JOIN_SHARE) with one input ended before the restore
             (CutInputs, below);
  retract    retract_diff.py: GROUP BY (by key or global, also over an
             inner GROUP BY) of every aggregate function over one
             debezium-json history (LISTAGG, COLLECT, ARRAY_AGG,
             JSON_ARRAYAGG/JSON_OBJECTAGG, MIN/MAX with their retraction
             lists, FIRST/LAST_VALUE, PERCENTILE, APPROX_PERCENTILE within
             its alpha, the DISTINCT aggregates and their distinct cache,
             FILTER), with mini-batch, two-phase and split distinct
             aggregation drawn; about one case in six (WEIGHTS);
  match      match_diff.py: four MATCH_RECOGNIZE queries (random
             patterns with greedy and reluctant quantifiers, DEFINE
             conditions over the match so far, AFTER MATCH SKIP, WITHIN)
             over one stream out of order within the watermark's delay;
             most (LATE_CUT_SHARE) get their input cut in two anywhere,
             the second file added before the last run, so that restored
             partial matches go on over rows read after the restore;
             most of those (CUT_RESCALE_SHARE) restore there at another
             parallelism (rescale_last);
  temporal   temporal_join_diff.py: [LEFT] event-time temporal joins of
             a probe stream with a versioned table (PRIMARY KEY, or a
             versioned view), both inputs with late rows of their own;
             most cut as the match jobs (the probe rows), most of those
             restored there at another parallelism, and about half of
             those with the versioned table bounded in the live runs: it
             ends, the join holds it at its own watermark (the probe's)
             across the restore (held_wm.h), which is at another
             parallelism, and the rest of its versions come as a second
             file before the last run (ended_cut: on time, or late behind
             the held watermark).
The joins with an input ended before the restore (CutInputs: the
temporal jobs above, some changelog jobs of joins only or of q7's bounded
join, and some window join jobs): one input is bounded in the live runs, so it ends in the
first and the join runs by the other's watermark alone; the other is cut
in two, its rows from the cut on a second file added before the last run,
and the last restore is mostly (ENDED_RESCALE_SHARE) at another
parallelism, where the ended input's new subtasks must end again: the
rows, windows and timers the ended input left in the join's state must
wait for the going input's rows after the restore and join them, not
dropped (a watermark that went to +infinity at the restore). (A join
whose watermark is held back after the restore, the ended input not
ended again, shows in no committed row: the last run ends every input
and fires all.)
Where nothing reads the ended input alone (no window aggregation over it,
no self-join: those fired everything at its end) it gets the rest of its
rows as a second file too, each on time or late by the watermark the join
holds it at (the other input's at the checkpoint, held_wm.h) as by the
oracle's (ended_cut); a join that restored it at +infinity drops them all.
Every result goes to a filesystem sink in debezium-json (the print sinks of
the first two generators are swapped for one), so what a case compares is
the committed output: the visible files, which the sinks make visible
only when a checkpoint completes (exactly-once).

The job runs with checkpoints (a short interval, 20 to 100 ms) and its
sources watch their folders (source.monitor-interval), so the job does not
end on its own. It is interrupted 1 to 3 times, each time in one of these
ways, at a random moment:
  kill           SIGKILL; the next run restores the newest checkpoint of
                 the same folder (in 3 of 10 at a new parallelism and
                 backend, as below);
  term           SIGTERM (a stop: final checkpoint, no final watermark);
                 the next run resumes there (new settings as for kill);
  savepoint-stop `weir savepoint PID --stop`; the next run starts with
                 --from that savepoint at a random parallelism (1/2/4), on
                 a random backend (memory or RocksDB, incremental or not);
  savepoint-kill `weir savepoint PID` while the job goes on, then SIGKILL a
                 little later; the next run starts --from the savepoint
                 (older than the newest checkpoint: the sinks must take
                 back what they committed after it), with new settings;
  again          SIGKILL after a checkpoint of its own; the next run
                 starts --from the savepoint this run started from, once
                 more (the sinks must take back what this run committed,
                 also at subtasks the savepoint has no state of), with new
                 settings; a run not started from a savepoint: as kill.
For cdc and retract jobs the input grows between runs: each table's
history is cut into chunks of files added to its folder before each run
(under a hidden name, then renamed), so the restored job has more history
to read, retracting rows that the restored state holds; a retract job's
chunk is sometimes two files, the second added while the run runs (after
a checkpoint of its own), so a checkpoint or savepoint may cut the history
inside a run's chunk too. A changelog is read by one subtask in file
order, so each key's rows keep their order at every parallelism; over
the inner GROUP BY, whose groups' changes come from several subtasks at
parallelism above 1, a retract job keeps the functions that follow
arrival order only when every run has one subtask. Half
the window jobs, and most of those with early firings (whose windows
fire again across a restore only over rows read after it), read their
input as several files of a watched folder (WatchedFiles): one or two there at the start, up to three more added
while each run runs (after a restored run completed a checkpoint), the
rest before the last run, at the parallelisms of the runs; their rows are
laid out so that no row is late in any timing weir allows (the rules are
in WatchedFiles), yet some files start behind what other subtasks read, so
a restored subtask that did not hold its watermark until its next file
drops their rows as late. Their oracle is the plain aggregation of all
rows. Of the other window jobs, which read one file, most (LATE_CUT_SHARE)
get it cut in two before a row that comes behind a window that fired (by
the oracle's rules, for one query): the rows from there on come in a
second file added before the last run, so that row meets the watermark
the last run restores - late, or within the allowed lateness, a late
firing of the window maybe pending across the restore - and the oracle
stays the same rows in the same order. Most rank jobs (one file, window
Top-N and deduplication with no allowed lateness) get the same cut before
a row late in some of its windows by window_rank_diff's rules
(rank_late_cut): the restored window Top-N must drop it there as the
uninterrupted run does. weir reads them in that order
only if the first file had been read whole by the checkpoint or
savepoint the last run restores (`weir inspect` shows its split
finished); else the case is skipped (counted). At parallelism above 1
the second file goes to another source subtask than the first (the last
run is bounded: files are dealt out by index), whose subtask, its splits
all read, ends at a moment of its own: the windows' own restored
watermark is then what makes the row late, and a cut is drawn only where
no row of the second file would be late or not by that moment
(timed_fate). The
last run reads the same job with bounded sources (no monitor interval:
the restore must accept that), reads what is left to its end, fires every
window (end of input) and ends with a final checkpoint; its committed
output is folded in the order the files were written (each subtask's
history in order, across runs) and compared with the oracle over all the
input: no row lost or doubled, no retraction of a row that is not there;
a window query's changelog must stay one across the restores: a group
(key and window) gets a row only while it holds none and loses only the
row it holds (sql_diff.changelog_breaks), so a restored window whose state
forgot its last emitted row fails even where a later firing hides it.

What it does not cover: the changelogs of retract jobs row by row (only
their final tables: a restore at another parallelism changes how keys
interleave, one under mini-batch how changes fold) and the aggregates
retract_diff refuses over an updating input; changelog jobs (but for
those of joins with an input ended), the rank jobs not cut and the
window jobs of one file not cut read one input file that is there
from the start (their oracles model the watermark of one split), so their
restored runs mostly resume with all rows read and windows, timers and
state pending, not half way through the file; a cut job's late row
comes only in the last run (a bounded one), after all of its first file;
window jobs over several files have no late rows (so no allowed
lateness at work, and no late firing across a restore unless its delay
was pending at the checkpoint), no FIRST_VALUE / LAST_VALUE (arrival order across
files), and rely on the file source's assignment of a watched folder's
file to a subtask (owner below) to know which subtask holds a watermark;
a restore that took over 10 s skips its case; Kafka, NATS, Postgres and
object-storage sources and sinks; unaligned checkpoints; jobs run by
several processes; late-row tables and OPTIONS hints (sql_diff features
"late", "late-columns" and "hint-options" are off); a kill during the
last run.

Known bugs keep their shapes out of the draw by a named skip (SKIPS below,
counted in the closing line); none is drawn out today.

Runs on the shared differential driver (tests/support/diffrun.py).
Usage: restore_diff.py --weir BIN [--jobs N] [--seed S] [--job I] [--out DIR]
[--families F]
Environment: WEIR_SEED replays a run; WEIR_RDIFF_JOB=i runs job i of it;
WEIR_RDIFF_JOBS sets the number of jobs (default 16, 4 under ASan);
WEIR_RDIFF_FAMILIES (comma list, "-name" leaves one out);
WEIR_RDIFF_OUT keeps failed jobs' folders; WEIR_RDIFF_NO_SKIP=1 draws the
skipped shapes too.
"""

import collections
import copy
import datetime
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "support"))
import diffrun  # noqa: E402
import sql_diff as sd  # noqa: E402
import changelog_diff as cl  # noqa: E402
import cdc_diff as cdc  # noqa: E402
import window_rank_diff as wr  # noqa: E402
import retract_diff as rd  # noqa: E402
import window_join_diff as wj  # noqa: E402
import match_diff as md  # noqa: E402
import temporal_join_diff as tj  # noqa: E402
import join_bounded_diff as jb  # noqa: E402

ALL_FAMILIES = {"window", "changelog", "cdc", "rank", "retract", "wjoin", "match", "temporal"}
# How often a family is drawn, against 1 for each of the others: a retract
# job is about one case in six, and one case more per run (13, not 12)
# keeps the others' share near what it was, for about 5 % more time (a
# retract case costs a little less than the average).
# A window join job, about one in nine, came with one case more (14).
# A MATCH_RECOGNIZE job and a temporal join job, about one in twelve each,
# came with a case more each (16).
WEIGHTS = {"retract": 0.8, "wjoin": 0.7, "match": 0.6, "temporal": 0.6}
WINDOW_FEATS = sd.ALL_FEATS - {"late", "late-columns", "hint-options"}
HOWS = ["kill", "kill", "term", "savepoint-stop", "savepoint-kill", "again"]
# Window jobs with early firings (sql_diff's feature emit draws them in a
# quarter), and the share of those that read a watched folder of files
# that come across the restores (WindowJob.watch).
EARLY_SHARE = 0.5
WATCHED_EARLY_SHARE = 0.85
# Late firings of window jobs: mostly every hour, which leaves a late
# row's firing pending until its window is cleaned up (W >= end + allowed
# lateness) or the input ends, so across the restores where the lateness
# is a minute (the late rows come in the first run, which reads one input
# file: WindowJob.watch); that firing must retract the row the window
# emitted before the checkpoint.
LATE_FIRE_DELAYS = ["", "0 ms", "1 h", "1 h"]
LATENESSES = [0, 0, 0, 1000, 3000, 60000]
# Window jobs over one input file whose rows from one behind the watermark
# on come in a second file before the last run (WindowJob.last_file).
LATE_CUT_SHARE = 0.7
# MATCH_RECOGNIZE and temporal join jobs whose input is cut: the share whose
# last restore (where the second part comes) is at another parallelism
# (rescale_last); and of the cut temporal join jobs, the share whose
# versioned table is bounded in the live runs (TemporalJoinJob.ended).
CUT_RESCALE_SHARE = 0.7
ENDED_SHARE = 0.5
# Changelog jobs of join queries only, and window join jobs, whose tables
# read folders of their own, one of them bounded in the live runs (it ends
# before the restore) and the other cut (CutInputs); the share of those
# whose last restore is at another parallelism.
ENDED_JOIN_SHARE = 0.4
ENDED_RESCALE_SHARE = 0.8

# Shapes kept out of the draw because of a known bug: (name, test on the
# job and the settings of its runs in order, the bug). WEIR_RDIFF_NO_SKIP=1
# draws them too (to replay a bug).
SKIPS = [
]

PRINT_SINK = re.compile(r"WITH \('connector' = 'print', 'print-identifier' = '(q\d+)'\)")


# --------------------------------------------------------------------------
# The job text: print sinks become exactly-once file sinks; the sources
# watch their folders (live) or read them to their end (final).

def file_sinks(text):
    return PRINT_SINK.sub(r"WITH ('connector' = 'filesystem', 'path' = 'out/\1', 'format' = 'debezium-json')", text)


def monitor(interval):
    return ", 'source.monitor-interval' = '%dms'" % interval if interval else ""


def json_job_text(text, interval):
    """A sql_diff or changelog_diff job over in/in.json instead of in.json."""
    old = "'path' = 'in.json', 'format' = 'json')"
    assert old in text
    return file_sinks(text).replace(old, "'path' = 'in', 'format' = 'json'%s)" % monitor(interval))


def cdc_job_text(text, interval):
    """A cdc_diff job over the folders t and u."""
    old_t, old_u = "'path' = 't', 'format' = 'debezium-json'", "'path' = 'u.json', 'format' = 'debezium-json'"
    assert old_t in text and old_u in text
    return (text.replace(old_t, old_t + monitor(interval))
            .replace(old_u, "'path' = 'u', 'format' = 'debezium-json'" + monitor(interval)))


# --------------------------------------------------------------------------
# The committed output

def print_lines(case, sinks):
    """The committed changes of each file sink out/<name>, in the order
    they were written, as the print sink would have printed them
    (`name> +I[a, b]`, `name> -D[a, b]`), for the generators' own checks.
    sinks: [(name, kinds of the columns)]."""
    lines = []
    for name, kinds in sinks:
        folder = case.path("out", name)
        for fn in diffrun.committed_files(folder):
            with open(os.path.join(folder, fn), encoding="utf-8") as f:
                for line in f:
                    if not line.strip():
                        continue
                    e = json.loads(line, parse_float=str, parse_int=str,
                                   object_pairs_hook=collections.OrderedDict)
                    row = e["after"] if e["op"] == "c" else e["before"]
                    vals = []
                    for kind, v in zip(kinds, row.values()):
                        if v is None:
                            vals.append("null")
                        elif kind.startswith("ts") or kind == "ltz":
                            # debezium-json writes "2020-01-31 10:00:00.123"
                            # where the print sink writes a T (every
                            # timestamp kind of the generators: ts, ts0..ts9, ltz)
                            vals.append(str(v).replace(" ", "T"))
                        else:
                            vals.append(str(v))
                    lines.append("%s> %s[%s]" % (name, "+I" if e["op"] == "c" else "-D", ", ".join(vals)))
    return lines


def flat(result):
    return ["%s: %s" % ("job" if qid is None else "q%d" % qid, p) for qid, probs in sorted(
        result.items(), key=lambda kv: -1 if kv[0] is None else kv[0]) for p in probs]


# --------------------------------------------------------------------------
# The families: each gives the job's text (live or final), how to lay out
# its input before run i, and the problems of the committed output.

class WindowJob:
    family = "window"
    options = []  # the job's own -D options
    cut = None  # one input file: the rows from this one on come in a second file (last_file)

    def __init__(self, case):
        self.j = sd.gen_job(case.rng.randrange(1 << 30), case.index, WINDOW_FEATS, 8, early_share=EARLY_SHARE,
                            late_delays=LATE_FIRE_DELAYS, latenesses=LATENESSES)
        self.parallelism, self.batch = self.j.parallelism, self.j.batch
        self.files = None  # one input file; WatchedFiles for a watched folder of several
        if self.j.early:
            case.counts["window jobs with early firings"] += 1
        if self.j.late_fire is not None:
            case.counts["window jobs with late firings"] += 1

    def text(self, interval):
        text = json_job_text(sd.job_sql(self.j, self.j.queries), interval)
        if self.files:
            # no subtask that holds a watermark turns idle during a run (WatchedFiles)
            text = text.replace("'format' = 'json'", "'format' = 'json', 'scan.watermark.idle-timeout' = '%ds'"
                                % (IDLE_TIMEOUT_MS // 1000))
        return text

    def watch(self, case, sts):
        """Half the window jobs read several files added to the watched
        folder between runs and while they run (sts: the runs' settings);
        most of those with early firings do, as only rows read after a
        restore make it fire windows that fired before: one file is read
        whole by the first run, whose early firings leave nothing for the
        next to fire (each record fired its windows). Few of those with
        only late firings do: a watched folder has no late rows."""
        share = WATCHED_EARLY_SHARE if self.j.early else 0.2 if self.j.late_fire is not None else 0.5
        if case.rng.random() < share and any(not any(a.order for a in q.aggs) for q in self.j.queries):
            self.files = WatchedFiles(case.rng, self, sts)
        elif case.rng.random() < LATE_CUT_SHARE:
            cut = late_cut(case.rng, self.j)
            if cut:
                self.cut, self.cut_row = cut

    def last_file(self, case, restore, p):
        """Before the last run of a job whose input was cut (self.cut):
        the rows from the cut on, a second file of the folder, behind the
        watermark the last run restores (restore: the checkpoint or
        savepoint it starts from, None if none; p: the run's parallelism).
        The oracle's rows are the same rows in the same order - as one
        file read by one split - only if the first file had been read
        whole by that checkpoint (its split finished: the restored
        watermark is its watermark, and no subtask reads it alongside the
        second); False when it had not (the case is skipped). At p > 1 the
        second file goes to another source subtask than the first: the
        last run is bounded, and a bounded file source deals the sorted
        files out by index (see the docstring at the top, and
        timed_fate)."""
        if not read_whole(case, restore, ["in.json"]):
            return False
        if p > 1:
            case.counts["late files read by another source subtask"] += 1
        # after in.json: split 1 of the bounded run, subtask 1 % p
        put_file(case, "in", "late-0.json", self.input_text(self.j.rows[self.cut:]))
        case.counts["%s jobs with a row %s after the last restore" % (self.family, self.cut_row)] += 1
        return True

    def input_text(self, rows):
        """The lines of a file of the job's input holding rows."""
        return "".join(sd.json_line(r) + "\n" for r in rows)

    def grow(self, case, i, last):
        os.makedirs(case.path("in"), exist_ok=True)
        if self.files:
            for f in self.files.due(i, last):
                self.files.add(case, f)
        elif i == 0:
            with open(case.path("in", "in.json"), "w") as f:
                f.write(self.input_text(self.j.rows[:self.cut]))

    def live(self, i):
        """Whether files come while run i runs."""
        return bool(self.files) and self.files.live(i)

    def add_live(self, case, i, started):
        """Adds the files that come while run i runs (WatchedFiles); False
        when they could not come in time."""
        return self.files.add_live(case, i, started) if self.files else True

    def problems(self, case):
        lines = print_lines(case, [("q%d" % q.qid, sd.out_kinds(q)) for q in self.j.queries])
        if not self.files:
            return flat(sd.check_lines(self.j, self.j.queries, lines))
        return flat(sd.check_lines(self.files.oracle_job(), self.files.oracle_queries(), lines))


def read_whole(case, restore, names):
    """Whether every file of names (its name in its folder) had been read
    whole by the checkpoint or savepoint restore (None: none): `weir
    inspect` shows its split finished."""
    if restore is None:
        return False
    shown = case.run_weir(["inspect", restore])
    splits = re.findall(r"source split (\S+): (\w+)", shown.stdout or "")
    for name in names:
        states = [state for sid, state in splits if sid.endswith("/" + name) or sid == name]
        if shown.returncode != 0 or not states or any(state != "finished" for state in states):
            return False
    return True


def put_file(case, folder, name, text):
    """Adds the file folder/name, whole at once (a watching source never
    sees it half written)."""
    tmp = case.path(folder, "." + name)
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, case.path(folder, name))


def late_cut(rng, j):
    """Where to cut a job's one input file in two (None: no row to cut
    before): before a row that comes behind a window that fired - of one
    query, by the oracle's rules (sql_diff: W = max(ts before) - delay, a
    window fires once W >= end) - so that, coming in a second file after
    the last restore, it meets the restored watermark: late, or within the
    allowed lateness (a late firing, maybe pending across the restore)."""
    def ends(q, ts):
        if q.win[0] == "SESSION":
            return [ts + q.win[1]]
        return [e for _, e, _ in sd.fixed_windows(q.win, ts, q.offset)]

    cuts, top_ts = [], j.rows[0]["ts"] if j.rows else None
    for n in range(1, len(j.rows)):
        ts = j.rows[n]["ts"]
        for q in j.queries:
            W = top_ts - q.delay
            if min(ends(q, ts)) <= W:
                cuts.append((n, "late" if max(ends(q, ts)) + q.lateness <= W else "within the allowed lateness"))
                break
        top_ts = max(top_ts, ts)
    times = [r["ts"] for r in j.rows]
    cuts = [c for c in cuts
            if all(not timed_fate(times, c[0], q.delay, lambda ts, q=q: ends(q, ts), q.lateness) for q in j.queries)]
    return rng.choice(cuts) if cuts else None


def timed_fate(times, n, delay, ends, lateness):
    """Whether a row of the second file (times[n:], the rows' event times
    in arrival order) may be on time, late or within the allowed lateness
    by the timing of the last run: there the file's subtask is not the
    first file's (a bounded run deals files out by index), and the first's
    subtask announces the restored watermark W0 = max(times[:n]) - delay,
    then ends at a moment the rows of the second do not wait for. Until it
    ends the operators stay at W0; after, they follow the second file's
    own rows (max(W0, its times before) - delay, the oracle's one split).
    A row whose windows end (or end + lateness) between the two has no one
    answer: the cut is not drawn. ends(t): the ends of a row's windows
    (late in one when its end <= W; a row late when its time t < W: [t + 1])."""
    top = max(times[:n])
    w0 = top - delay
    for t in times[n:]:
        wm = top - delay
        if any(w0 < e <= wm or w0 < e + lateness <= wm for e in ends(t)):
            return True
        top = max(top, t)
    return False


def rank_late_cut(rng, j):
    """late_cut for a window_rank_diff job: before a row with a window
    that ended at or behind W = max(ts before) - delay (its model of one
    split), so that row is late there (no allowed lateness in it)."""
    cuts, top_ts = [], None
    for n, r in enumerate(j.rows):
        if top_ts is not None and n > 0:
            ends = [b for _, b in wr.windows_of(r["ts"], j.kind, j.size, j.slide, j.off)]
            if min(ends) <= top_ts - j.delay:
                cuts.append((n, "late" if max(ends) <= top_ts - j.delay else "late in some of its windows"))
        top_ts = r["ts"] if top_ts is None else max(top_ts, r["ts"])
    times = [r["ts"] for r in j.rows]
    cuts = [c for c in cuts if not timed_fate(times, c[0], j.delay,
                                              lambda ts: [b for _, b in wr.windows_of(ts, j.kind, j.size, j.slide, j.off)], 0)]
    return rng.choice(cuts) if cuts else None


def fate_cut(rng, times, delay, ends):
    """Where to cut an input whose rows have the event times `times` (in
    arrival order) in two, and what the second part starts with, or None:
    the rows from the cut on come as a second file before the last run.
    The oracle judges a row by W = max(times before) - delay (one split),
    late in a window of it whose end <= W (ends(t), as timed_fate's); the
    last run judges the second part's rows by the restored W0 until the
    first part's subtask ends, then by W (timed_fate): only a cut where no
    row's fate differs between the two is drawn; mostly one before a row
    late (in a window of it) behind W0."""
    late, others = [], []
    for n in range(1, len(times)):
        if timed_fate(times, n, delay, ends, 0):
            continue
        w0 = max(times[:n]) - delay
        behind = [any(e <= w0 for e in ends(t)) for t in times[n:]]
        (late if behind[0] else others).append((n, "late" if behind[0] else
                                                "with late rows after it" if any(behind) else "on time"))
    if late and rng.random() < 0.8:
        return rng.choice(late)
    return rng.choice(others) if others else None


def no_late(t):
    """No row is late (a regular join): no window to be late in, in the
    ends of timed_fate."""
    return []


def before_w(t):
    """A row late when its time is behind the watermark (t < W), in the
    ends of timed_fate: a window that ends at t + 1."""
    return [t + 1]


def rescale_last(case, job, sts, share):
    """In a share of the cut jobs, the last restore (the one the second
    part of the input comes after) at another parallelism than the run
    before it: the partial matches, probe rows and versions in state and
    the held watermarks (the smallest of the old subtasks', held_wm.h) go
    to other subtasks."""
    if case.rng.random() < share and sts[-1].parallelism == sts[-2].parallelism:
        sts[-1] = Settings(case.rng.choice([p for p in (1, 2, 4) if p != sts[-2].parallelism]),
                           sts[-1].rocksdb, sts[-1].incremental)
    if sts[-1].parallelism != sts[-2].parallelism:
        case.counts["%s jobs cut and restored at another parallelism before the last run" % job.family] += 1


def without_versions(j, n):
    """Temporal join job j with its versions from n on left out."""
    j = copy.copy(j)
    j.versions = j.versions[:n]
    return j


def ended_cut(times, delay, w_p, ends, strict=False):
    """Where to cut the rows of a join's input that is bounded in the live
    runs (times: their event times in arrival order; delay: its
    watermark's): it ends there, and the join holds it at its own
    watermark, the other input's w_p, across the restore (held_wm.h),
    and it gets the rest of its rows as a second file before the last
    run. ends(t): the ends of a row's windows, late in one whose end <= W
    (as timed_fate's; before_w for a row late when t < W). The oracle
    judges a row by W = max(times before) - delay (one split); weir judges
    a row of the second file by the larger of the held watermark (w_p, or
    the input's own w_1 where the checkpoint came before its end reached
    the join) and the watermark its source has reached by then (at most
    the oracle's W; at least the smaller of w_1 and that of the second
    file's rows before it). A cut is drawn only where each row of the
    second file is on time by every one of these (strict: and after w_p,
    where the other input's rows up to w_p came out before the stop,
    without it: a temporal join's probe rows) or late by every one. Every
    cut that fits, (n, rows late)."""
    cuts = []
    for n in range(len(times)):
        w_1 = max(times[:n]) - delay if n else None
        lo_held = w_p if w_1 is None else min(w_p, w_1)
        own, ok, late = None, True, 0
        top = None if w_1 is None else w_1 + delay
        for t in times[n:]:
            w = None if top is None else top - delay
            # until the first file's source subtask ends (at another
            # subtask than the second file's, at p > 1) its restored
            # watermark, w_1 at most, holds the input back
            t_lo = lo_held if own is None or w_1 is None else max(lo_held, min(own, w_1))
            t_hi = w_p if w is None else max(w_p, w)
            fates = set()
            for e in ends(t):
                if e > t_hi and (not strict or e > w_p + 1):
                    fates.add("on time")
                elif e <= t_lo and w is not None and e <= w:
                    fates.add("late")
                else:
                    ok = False
            if not ok:
                break
            late += "late" in fates
            own = t - delay if own is None else max(own, t - delay)
            top = t if top is None else max(top, t)
        if ok:
            cuts.append((n, late))
    return cuts


IDLE_TIMEOUT_MS = 20000
NEVER = 1 << 60


def fnv1a(text):
    h = 14695981039346656037
    for b in text.encode():
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def owner(name, parallelism):
    """The subtask of a watched folder's source that reads the file
    in/<name> (the file source's assignment of a split by its id)."""
    return (fnv1a("in/" + name) ^ fnv1a("")) % parallelism


class WatchedFiles:
    """A window job's input as files added to the watched folder in/: one or
    two there from the start, up to three more while the first run runs and
    two or three while each restored run runs (after it completed a
    checkpoint, 0.2 to 0.4 s apart), the rest before the last run. The rows
    are laid out so that no row is late in any timing weir allows, which
    makes the oracle the plain aggregation of all rows (every window keeps
    every row of it; no session closes before a row that touches it). With
    d the smallest watermark delay of the job's tables:
      - in its file, each row is later than every row before it less d (the
        file's watermark stays below each of its rows);
      - a file of run i > 0 starts above every row of the files of earlier
        runs less d (the operators may have got that far before the stop);
      - the files there when a run starts come in its first discovery: a
        subtask takes all of its own at once (its watermark is the minimum
        over them) and announces where it stands only then, so they need
        nothing more, whichever restored watermark a subtask holds;
      - a file added during a run at parallelism p goes to one subtask
        (owner); if that subtask owns a file added before, it holds its
        watermark, restored or not, until the new file comes (the idle
        timeout, 20 s, is longer than a run before its files come; a run
        slower than 10 s to get there skips its case), so the operators
        behind it stay below the largest event time of its files less d,
        and the new file starts above that, whatever the other subtasks
        read; the first file added during the run, or one whose subtask
        owns none (idle from the start), starts above every row before it.
    The files added during a run after its first start as low as these
    rules allow, mostly under a name that goes to a subtask that owns rows
    and is not the first file's: behind what that file's subtask read, so a
    restored subtask that did not hold its watermark (announced idle)
    would let the operators run past its new rows. FIRST_VALUE and
    LAST_VALUE (arrival order across files) are left out; a job without
    rows enough gets more (30 at least)."""

    def __init__(self, rng, job, sts):
        j = self.j = job.j
        j.queries = [q for q in j.queries if not any(a.order for a in q.aggs)]
        self.d = min(q.delay for q in j.queries)
        while len(j.rows) < 30:  # rows for every file
            j.rows += sd.gen_rows(rng)
        for n, r in enumerate(j.rows):
            r["id"] = n + 1
        n_runs = len(sts)  # runs 0 .. n_runs - 2 are interrupted, then the last
        plan = [(0, False)] * rng.randint(1, 2)
        for i in range(n_runs - 1):
            plan += [(i, True)] * rng.randint(0 if i == 0 else 2, 3)
        plan += [(n_runs - 1, False)] * rng.randint(0, 1)
        cuts = sorted(rng.randint(0, len(j.rows)) for _ in range(len(plan) - 1))
        parts = [j.rows[a:b] for a, b in zip([0] + cuts, cuts + [len(j.rows)])]
        base = rng.choice([0, -7000, 3000, 1_700_000_000_000])
        disorder = rng.choice([0, 300, 1500, 4000])
        self.files = []
        for n, ((run, live), rows) in enumerate(zip(plan, parts)):
            f = InputFile("part-%02d.json" % n, run, live, rows)
            lo = base
            earlier = top([x for x in self.files if x.run < run])
            if earlier is not None:
                lo = earlier - self.d + 1
            if live and top(self.files) is not None:
                p = sts[run].parallelism
                first = [x for x in self.files if x.run == run and x.live][:1]
                if first:
                    # mostly a name that goes to a subtask that holds rows, not the first's
                    for c in "abcdefgh":
                        if rng.random() < 0.2 or (top(self.mine(f.name, p)) is not None and
                                                  owner(f.name, p) != owner(first[0].name, p)):
                            break
                        f.name = "part-%02d%s.json" % (n, c)
                mine = self.mine(f.name, p)
                if not first or top(mine) is None:
                    lo = top(self.files) + 1 + rng.choice([0, 500, 3000])
                else:
                    lo = max(top(mine) - self.d + 1, lo)
                    f.behind = lo <= top(self.files) - self.d
            cursor = lo + rng.choice([0, 0, 1, 250, 1000])
            for r in rows:
                cursor += rng.choice([0, 1, 250, 500, 1000, 1499] if self.d else [1, 250, 500, 1000])
                back = rng.randint(0, min(disorder, self.d - 1)) if self.d and rng.random() < 0.5 else 0
                r["ts"] = max(lo, cursor - back)
            self.files.append(f)

    def mine(self, name, p):
        """The files so far that go to the subtask that reads name at parallelism p."""
        return [x for x in self.files if owner(x.name, p) == owner(name, p)]

    def due(self, i, last):
        """The files to add before run i: those there when it starts (all
        that are left before the last run)."""
        return [f for f in self.files if not f.added and (last or (f.run == i and not f.live))]

    def add(self, case, f):
        tmp = case.path("in", "." + f.name)
        with open(tmp, "w") as out:
            out.writelines(sd.json_line(r) + "\n" for r in f.rows)
        os.rename(tmp, case.path("in", f.name))  # never seen half written
        f.added = True
        case.counts["files added"] += 1
        if f.behind:
            case.counts["files added behind what other subtasks read"] += 1

    def live(self, i):
        return any(f.run == i and f.live for f in self.files)

    def add_live(self, case, i, started):
        """False when run i took so long that a subtask might have turned idle."""
        for f in self.files:
            if f.run != i or not f.live:
                continue
            if time.time() - started > IDLE_TIMEOUT_MS / 2000:
                return False
            self.add(case, f)
            case.counts["files added while running"] += 1
            time.sleep(case.rng.uniform(0.2, 0.4))
        return True

    def oracle_job(self):
        """The job for the oracle: all rows in time order."""
        j = copy.copy(self.j)
        j.rows = sorted(j.rows, key=lambda r: (r["ts"], r["id"]))
        return j

    def oracle_queries(self):
        """The queries with a watermark that never closes a window: no row is late."""
        out = []
        for q in self.j.queries:
            q = copy.copy(q)
            q.delay = NEVER
            out.append(q)
        return out


class InputFile:
    def __init__(self, name, run, live, rows):
        self.name, self.run, self.live, self.rows = name, run, live, rows
        self.added = False
        self.behind = False  # starts below rows another subtask may have read


def top(files):
    """The largest event time in files (None: no row)."""
    return max((r["ts"] for f in files for r in f.rows), default=None)


class ChangelogJob(WindowJob):
    family = "changelog"

    def __init__(self, case):
        self.j = cl.gen_job(case.rng.randrange(1 << 30), case.index, cl.ALL_FAMILIES, 8)
        self.parallelism, self.batch = self.j.parallelism, self.j.batch
        self.files = None

    def watch(self, case, sts):
        pass  # one file (see the docstring)

    def text(self, interval):
        return json_job_text(cl.job_sql(self.j, self.j.queries), interval)

    def problems(self, case):
        lines = print_lines(case, [("%s%d" % (cl.LINE_PREFIX, q.qid), q.kinds) for q in self.j.queries])
        return flat(cl.check_lines(self.j, self.j.queries, lines))


class RankJob(ChangelogJob):
    """One file (window_rank_diff's oracle models one split), most of
    them (LATE_CUT_SHARE) cut in two before a row behind a window that
    fired, as the window jobs' (WindowJob.last_file): the window Top-N,
    deduplication or aggregation under a ranking must restore the
    watermark that makes that row late."""
    family = "rank"

    def __init__(self, case):
        self.j = wr.gen_job(case.rng)
        self.parallelism, self.batch = self.j.parallelism, self.j.batch
        self.files = None

    def watch(self, case, sts):
        if case.rng.random() < LATE_CUT_SHARE:
            cut = rank_late_cut(case.rng, self.j)
            if cut:
                self.cut, self.cut_row = cut
                if any(q["shape"] == "dedup" or any(x["shape"] == "dedup" for x in q.get("sides") or [])
                       for q in self.j.queries):
                    case.counts["rank jobs cut with a window deduplication"] += 1

    def input_text(self, rows):
        return wr.input_text(self.j, rows)

    def text(self, interval):
        return json_job_text(wr.job_sql(self.j), interval)

    def problems(self, case):
        lines = print_lines(case, [("q%d" % q["qid"], ["big", "big", "big", "str", "ts", "ts"])
                                   for q in self.j.queries])
        return wr.check_lines(self.j, lines, collections.Counter())


class Part:
    """One input folder of a join job whose inputs have folders of their
    own: its rows in arrival order, the first file (rows[:n]) there from
    the start and, where n is not None, the second (rows[n:], named to
    sort after it: split 1 of the bounded run) added before the last run;
    ended: the input is bounded in the live runs (it ends there)."""

    def __init__(self, folder, ext, rows, n, text, ended=False):
        self.folder, self.rows, self.n, self.text, self.ended = folder, rows, n, text, ended
        self.first, self.second = folder + ext, folder + "2" + ext


class CutInputs:
    """A join job whose inputs are folders of their own (parts(): Part),
    the input that goes on cut in two (cut: the second file comes before
    the last run) and, in some jobs (ended), the other bounded in the live
    runs: it ends before the restore, and the join's watermark is the
    going input's alone; where rows of it come after the restore (vcut)
    the join holds it at its own watermark (held_wm.h). The last restore
    of such a job is mostly at another parallelism (rescale_last)."""
    ended = False
    vcut = None  # the ended input's rows from vcut on come after the restore
    vlate = 0  # how many of those are late by the held watermark

    def draw_ended(self, case, sts, going, stop, rows_after):
        """Cuts the going input where the last run judges each row of the
        second file as the oracle does (fate_cut); where rows_after, the
        ended input's rows too (ended_cut: on time or late by the held
        watermark as by the oracle's). going, stop: (event times in
        arrival order, watermark delay, ends as timed_fate's) of the input
        that goes on and of the one that ends. False where no cut fits."""
        cut = fate_cut(case.rng, *going)
        if not cut:
            return False
        self.cut, self.cut_row = cut
        self.ended = True
        self.w_p = w_p = max(going[0][:self.cut]) - going[1]
        if rows_after:
            cuts = ended_cut(stop[0], stop[1], w_p, stop[2])
            if cuts:
                self.vcut, self.vlate = case.rng.choice(cuts)
        rescale_last(case, self, sts, ENDED_RESCALE_SHARE)
        return True

    def source(self, folder, interval):
        """A table's folder in the job's text: watched in the live runs
        unless its input ends there."""
        ended = any(x.ended for x in self.parts() if x.folder == folder)
        return "'path' = '%s', 'format' = '%s'%s" % (folder, self.fmt, monitor(None if ended else interval))

    def grow(self, case, i, last):
        if i == 0:
            for x in self.parts():
                os.makedirs(case.path(x.folder), exist_ok=True)
                case.write(os.path.join(x.folder, x.first), x.text(x.rows[:x.n]))

    def last_file(self, case, restore, p):
        """As WindowJob.last_file, for each cut input's folder; an ended
        input's first file must be read whole by the restored checkpoint
        too (it ended there)."""
        parts = self.parts()
        if not read_whole(case, restore, [x.folder + "/" + x.first for x in parts if x.n is not None or x.ended]):
            return False
        for x in parts:
            if x.n is not None:
                put_file(case, x.folder, x.second, x.text(x.rows[x.n:]))
        self.count_last(case)
        return True

    def count_last(self, case):
        what = "%s jobs with an input ended before the last restore" % self.family
        case.counts["%s jobs with a row %s after the last restore" % (self.family, self.cut_row)] += 1
        if self.ended:
            case.counts[what] += 1
        if self.vcut is not None:
            case.counts[what + " and rows of it after that"] += 1
            case.counts["rows of an ended input late by its held watermark (%s)" % self.family] += self.vlate


class WindowJoinJob(CutInputs, RankJob):
    """Two input folders, l and r, each with one file there from the start
    (window_join_diff's oracle models one split per input): a restored run
    resumes with both read and the windows the watermarks have not closed
    in the join's state (and in the window aggregations before and after
    it), with their timers. Some of them (ENDED_JOIN_SHARE; not over
    SESSION windows, nor of self-joins only) are cut: one input goes on,
    its rows from the cut on in a second file (CutInputs), the other ends
    in the live runs (bounded there), so the windows it left in the join's
    state fire by the going input's watermark alone, and there and after
    the restore they must meet the going input's rows; where no window
    aggregation or self-join reads the ended input alone (an operator
    whose every input ended fired everything: every row after the restore
    is late there) the ended input gets rows after the restore too, held
    at the join's watermark."""
    family = "wjoin"
    fmt = "json"

    def watch(self, case, sts):
        j = self.j
        if j.win[0] == "SESSION" or case.rng.random() >= ENDED_JOIN_SHARE:
            return
        if all(q["tables"]["L"] == q["tables"]["R"] for q in j.queries):
            return  # self-joins only: a job of l alone, bounded when l ends
        stop = case.rng.choice("lr")
        go = "r" if stop == "l" else "l"
        alone = any(q["tables"]["L"] == q["tables"]["R"] == stop or
                    any(q["shapes"][s] == "agg" and q["tables"][s] == stop for s in "LR") for q in j.queries)
        def ends(t):
            return [e for _, e in wj.windows_of(t, j.win)]

        ins = {name: ([r["ts"] for r in rows], delay, ends) for name, (rows, delay) in j.inputs().items()}
        if self.draw_ended(case, sts, ins[go], ins[stop], not alone):
            self.stop = stop
            self.note = " with its input %s ended before the restore (%d rows of it after it)" % (
                stop, 0 if self.vcut is None else len(ins[stop][0]) - self.vcut)

    def __init__(self, case):
        self.j = wj.Job(case.rng)
        self.parallelism, self.batch = self.j.parallelism, self.j.batch
        self.files = None

    stop = None  # the input that ends in the live runs

    def parts(self):
        return [Part(name, ".json", rows, None if not self.ended else self.vcut if name == self.stop else self.cut,
                     wj.input_text, name == self.stop) for name, (rows, _) in self.j.inputs().items()]

    def text(self, interval):
        text = file_sinks(wj.job_sql(self.j))
        for name in self.j.inputs():
            old = "'path' = '%s.json', 'format' = 'json')" % name
            assert old in text
            text = text.replace(old, self.source(name, interval) + ")")
        return text

    def problems(self, case):
        lines = print_lines(case, [("q%d" % q["qid"], wj.out_kinds(q)) for q in self.j.queries])
        printed, probs = diffrun.print_inserts("\n".join(lines))  # append-only: a -D is a problem
        return probs + wj.check(self.j, printed, case.counts)


class ChangelogJoinJob(CutInputs, ChangelogJob):
    """A changelog_diff job of its join queries only (regular joins of every
    type, interval joins, a GROUP BY over a join, a join of two GROUP BYs)
    whose tables t and t2 read folders of their own, the same rows in each
    (the oracle's one file): one table goes on, cut in two (CutInputs), the
    other ends in the live runs, its rows in the join's state meeting the
    going table's after the restore, where it gets the rest of its rows
    too, held at the join's watermark (an interval join: rows on time or
    late by the held watermark as by the oracle's, ended_cut)."""
    family = "changelog"
    fmt = "json"

    def __init__(self, case):
        self.j = cl.gen_job(case.rng.randrange(1 << 30), case.index, {"join"}, 8)
        self.parallelism, self.batch = self.j.parallelism, self.j.batch
        self.files = None
        self.stop = None

    def watch(self, case, sts):
        j = self.j
        interval = any("a.ts BETWEEN" in q.weir for q in j.queries)  # gen_interval_join's condition
        stop = case.rng.choice(["t", "t2"])
        times = [r["ts"] for r in j.rows]
        ends = before_w if interval else no_late
        if len(times) > 1 and self.draw_ended(case, sts, (times, j.delay, ends), (times, j.delay, ends), True):
            self.stop = stop
            self.note = " with its table %s ended before the restore (%d rows of it after it)" % (
                stop, 0 if self.vcut is None else len(times) - self.vcut)

    def parts(self):
        return [Part(name, ".json", self.j.rows, None if not self.ended else self.vcut if name == self.stop else
                     self.cut, self.input_text, name == self.stop) for name in ("t", "t2")]

    def text(self, interval):
        old = "'path' = 'in.json', 'format' = 'json')"
        pieces = file_sinks(cl.job_sql(self.j, self.j.queries)).split(old)
        assert len(pieces) == 3  # CREATE TABLE t, then t2
        return pieces[0] + self.source("t", interval) + ")" + pieces[1] + self.source("t2", interval) + ")" + pieces[2]


class BoundedJoinJob(CutInputs, ChangelogJob):
    """join_bounded_diff's job, Nexmark q7's shape: each bid joined with
    the MAX(price) of TUMBLE windows over the bids under a condition
    between its time and the window's end - a regular join whose state
    weir bounds by the watermark (a bid is dropped once the join's
    watermark passes the last window end the condition allows) - over two
    tables of the same rows (the oracle's one file) in folders of their
    own: bid (B) and bid1 (the window aggregation's input). One ends in
    the live runs, the other is cut (CutInputs): where bid1 ends, its
    aggregation fired every window at its end and those rows wait in the
    join's state for the bids after the restore; where bid ends, its bids
    wait in the join's state (until the window aggregation's watermark
    alone drops them) for the windows that fire after the restore, and
    the rest of the bids come after it too (no bid is late in a regular
    join; a window aggregation over the ended bid1 alone would drop every
    row after the restore, so bid1 gets none)."""
    family = "changelog"
    fmt = "csv"

    def __init__(self, case):
        rng = case.rng
        self.size, self.delay, self.bids, self.form, x, y = jb.gen_case(rng)
        self.cond, self.pred = jb.condition(self.form, x, y)
        self.bid_left = rng.random() < 0.5
        self.parallelism, self.batch = rng.choice([1, 2, 4]), rng.choice([1, 7, 1024])
        self.files = None
        self.stop = None

    def watch(self, case, sts):
        stop = case.rng.choice(["bid", "bid1"])
        times = [ts for _, _, ts in self.bids]
        size = self.size
        ins = {"bid": (times, self.delay, no_late),
               "bid1": (times, self.delay, lambda t: [t - t % size + size])}
        if self.draw_ended(case, sts, ins["bid1" if stop == "bid" else "bid"], ins[stop], stop == "bid"):
            self.stop = stop
            self.note = " (q7's bounded join) with its table %s ended before the restore (%d rows of it after it)" % (
                stop, 0 if self.vcut is None else len(times) - self.vcut)

    def parts(self):
        return [Part(name, ".csv", self.bids, None if not self.ended else self.vcut if name == self.stop else
                     self.cut, self.input_text, name == self.stop) for name in ("bid", "bid1")]

    def input_text(self, rows):
        return "".join("%d,%s,%s\n" % (i, "" if price is None else price, jb.csv_ts(ts)) for i, price, ts in rows)

    def text(self, interval):
        tables = "".join("""CREATE TABLE %s (id INT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '%d' MILLISECOND) WITH ('connector' = 'filesystem', %s);
""" % (name, self.delay, self.source(name, interval)) for name in ("bid", "bid1"))
        frm = "bid B JOIN maxes B1" if self.bid_left else "maxes B1 JOIN bid B"
        return file_sinks(tables + """CREATE VIEW maxes AS
  SELECT MAX(price) AS maxprice, window_end AS wend
  FROM TABLE(TUMBLE(TABLE bid1, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND))
  GROUP BY window_start, window_end;
CREATE TABLE q0 (id INT, price BIGINT, ts TIMESTAMP(3), wend TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'q0');
INSERT INTO q0 SELECT B.id, B.price, B.ts, B1.wend FROM %s ON B.price = B1.maxprice WHERE %s;
""" % (self.size, frm, self.cond))

    def problems(self, case):
        def row(fields):
            return tuple(int(f) for f in fields[:2]) + tuple(
                round((datetime.datetime.fromisoformat(f) - jb.EPOCH).total_seconds() * 1000) for f in fields[2:])

        lines = print_lines(case, [("q0", ["int", "big", "ts", "ts"])])
        printed, probs = diffrun.print_inserts("\n".join(lines))  # append-only: a -D is a problem
        want = collections.Counter(row(line[3:-1].split(", "))
                                   for line in jb.oracle(self.size, self.delay, self.bids, self.pred))
        got = collections.Counter(row(fields) for fields in printed.get("q0", []))
        case.counts["bounded join rows"] += sum(want.values())
        return probs + diffrun.multiset_problems("q0 (%s, window %d ms, bid %s)" % (
            self.cond, self.size, "left" if self.bid_left else "right"), want, got)


class MatchJob(ChangelogJob):
    """match_diff's job: its rows (in arrival order) in one file, most of
    them (LATE_CUT_SHARE) cut in two anywhere, the rest added as a second
    file before the last run (WindowJob.last_file). No row is ever late:
    rows come out of order by less than the watermark's delay, so every row
    of the second file is after the watermark the first leaves. The oracle
    is match_diff's over all the rows; queries whose AFTER MATCH SKIP would
    fail the job are drawn again."""
    family = "match"

    def __init__(self, case):
        rng = case.rng
        rows, arrival = md.gen_rows(rng)
        while True:
            # half with DECIMAL and DATE aggregates (a DECIMAL sum is two words of a partial match) and calls over expressions
            self.qs = [md.gen_query(rng, extra=rng.random() < 0.5) for _ in range(md.QUERIES_PER_JOB)]
            try:
                self.wants = [md.oracle(q, rows) for q in self.qs]
                break
            except md.SkipFails:
                continue
        self.j = collections.namedtuple("MatchRows", "rows")(arrival)
        self.parallelism, self.batch = rng.choice([1, 2, 4]), None
        self.files = None

    def watch(self, case, sts):
        if len(self.j.rows) > 1 and case.rng.random() < LATE_CUT_SHARE:
            self.cut, self.cut_row = case.rng.randrange(1, len(self.j.rows)), "going on"
            rescale_last(case, self, sts, CUT_RESCALE_SHARE)

    def input_text(self, rows):
        return "".join(json.dumps(r) + "\n" for r in rows)

    def text(self, interval):
        parts = [md.sql_of(q, n) for n, q in enumerate(self.qs)]
        return json_job_text(md.TABLE_SQL + "".join(c for c, _ in parts) + "EXECUTE STATEMENT SET BEGIN\n" +
                             "".join(i for _, i in parts) + "END;\n", interval)

    def problems(self, case):
        lines = print_lines(case, [("q%d" % n, ["str"] * (len(q["measures"]) + 1)) for n, q in enumerate(self.qs)])
        printed, probs = diffrun.print_inserts("\n".join(lines))  # append-only: a -D is a problem
        for n, want in enumerate(self.wants):
            case.counts["matches"] += len(want)
            probs += diffrun.multiset_problems("q%d" % n, want, [tuple(r) for r in printed.get("q%d" % n, [])])
        return probs


class TemporalJoinJob(WindowJoinJob):
    """temporal_join_diff's job: a versioned table (a PRIMARY KEY table or
    a versioned view over an append-only one) and a probe stream, each one
    file there from the start (folders versions and probe; the oracle
    models one split per input, its late rows judged by that input's own
    watermark), four [LEFT] temporal joins FOR SYSTEM_TIME AS OF the probe's
    time: a restored run resumes with the versions and the probe rows the
    watermarks have not released in state, and each input's watermark."""
    family = "temporal"
    fmt = "csv"

    def __init__(self, case):
        self.j = tj.gen_job(case.rng)
        self.j.seed, self.j.index = case.seed, case.index
        self.parallelism, self.batch = self.j.parallelism, self.j.batch
        self.files = None

    def watch(self, case, sts):
        """Most jobs (LATE_CUT_SHARE) get their probe file cut in two: the
        rows from the cut on come as probe/probe2.csv before the last run
        (last_file), mostly from before a row behind the watermark the
        first part leaves, which the restored join must drop as late; about
        half of those (ENDED_SHARE) also get their versions cut (ended_cut)
        and read the versioned table bounded in the live runs (ended); the
        last restore of a cut job is mostly (all ended ones) at another
        parallelism (rescale_last)."""
        if case.rng.random() < LATE_CUT_SHARE:
            cut = fate_cut(case.rng, [r[1] for r in self.j.probes], self.j.pdelay, before_w)
            if cut:
                self.cut, self.cut_row = cut
                if case.rng.random() < ENDED_SHARE:
                    self.w_p = w_p = max(r[1] for r in self.j.probes[:self.cut]) - self.j.pdelay
                    cuts = ended_cut([r[0] for r in self.j.versions], self.j.vdelay, w_p, before_w, strict=True)
                    # one whose new versions change the result (dropped as late, they would not),
                    # else one with new versions behind the held watermark (late)
                    felt = [c for c in cuts if tj.oracle(self.j) != tj.oracle(without_versions(self.j, c[0]))]
                    cuts = felt or [c for c in cuts if c[1]]
                    if cuts:
                        (self.vcut, self.vlate), self.ended = case.rng.choice(cuts), True
                        if felt:
                            case.counts["temporal jobs whose versions after the restore change the result"] += 1
                        self.note = " with its versioned table ended before the restore (%d versions after it)" % (
                            len(self.j.versions) - self.vcut)
                rescale_last(case, self, sts, 1 if self.ended else CUT_RESCALE_SHARE)

    def parts(self):
        """The versioned table bounded in the live runs where ended:
        versions[:vcut] there, the rest as versions/versions2.csv before
        the last run, with the rest of the probe rows (probe/probe2.csv)."""
        return [Part("versions", ".csv", self.j.versions, self.vcut, lambda rs: "".join("%d,%d,%d,%d\n" % r for r in rs),
                     self.ended),
                Part("probe", ".csv", self.j.probes, self.cut,
                     lambda rs: "".join("%d,%d,%d,%d,%d\n" % r for r in rs))]

    def count_last(self, case):
        case.counts["temporal jobs with a probe row %s after the last restore" % self.cut_row] += 1
        if self.ended:
            case.counts["temporal jobs whose versioned table ended before the restore and got versions after it"] += 1
            case.counts["versions late by the held watermark of an ended table"] += self.vlate

    def text(self, interval):
        text = file_sinks(tj.job_sql(self.j))
        for name in ("versions", "probe"):
            old = "'path' = '%s.csv', 'format' = 'csv')" % name
            assert old in text
            text = text.replace(old, self.source(name, interval) + ")")
        return text

    def problems(self, case):
        lines = print_lines(case, [("q%d" % q, ["int"] * 6) for q in range(len(self.j.queries))])
        printed, probs = diffrun.print_inserts("\n".join(lines))  # append-only: a -D is a problem
        want = tj.oracle(self.j)
        for q in sorted(want):
            got = collections.Counter(tuple(None if x == "null" else int(x) for x in r) for r in printed.get(q, []))
            case.counts["temporal join rows"] += sum(want[q].values())
            probs += diffrun.multiset_problems(q, want[q], got)
        return probs


class CdcJob:
    family = "cdc"
    options = []

    def __init__(self, case, chunks):
        j = cdc.gen_job(case.rng)
        j.seed, j.index = case.seed, case.index
        j.kafka = False  # PRIMARY KEY sinks into files here, never upsert-kafka
        self.j = j
        self.parallelism, self.batch = j.parallelism, j.batch
        self.t_chunks = cut(case.rng, j.t_events, j.schema_t, chunks)  # sometimes wrapped in {"schema", "payload"}
        self.u_chunks = cut(case.rng, j.u_events, False, chunks)
        self.files = collections.Counter()

    def text(self, interval):
        return cdc_job_text(cdc.job_sql(self.j), interval)

    def watch(self, case, sts):
        pass  # its chunks come between runs (grow)

    def live(self, i):
        return False

    def add_live(self, case, i, started):
        return True

    def grow(self, case, i, last):
        for name, chunks in (("t", self.t_chunks), ("u", self.u_chunks)):
            os.makedirs(case.path(name), exist_ok=True)
            todo = chunks[i:] if last else chunks[i:i + 1]
            for c in todo:
                for ls in c:
                    add_file(case, name, self.files[name], ls)
                    self.files[name] += 1

    def problems(self, case):
        j = self.j
        db = cdc.oracle_db(j)
        problems = []
        for qi, q in enumerate(j.queries):
            what = "q%d (%s)" % (qi, q[0])
            cols = [c for c, _ in q[1]]
            folder = case.path("q%d" % qi)
            names = diffrun.committed_files(folder)
            try:
                if j.upsert:
                    got = diffrun.fold_debezium_upserts(folder, cols, q[2], names)
                else:
                    got = diffrun.fold_debezium(folder, cols, names)
            except ValueError as e:
                problems.append("%s: %s" % (what, e))
                continue
            problems += diffrun.multiset_problems(what, cdc.oracle(db, j, q), got)
        return problems


def cut(rng, events, schema, chunks):
    """A debezium history's records in `chunks` runs of 1 or 2 files each
    (lists of lines; a run may have none)."""
    lines = [cdc.envelope(op, b, a, schema) + "\n" for op, b, a in events]
    at = sorted(rng.randint(0, len(lines)) for _ in range(chunks - 1))
    out = []
    for lo, hi in zip([0] + at, at + [len(lines)]):
        mid = rng.randint(lo, hi) if rng.random() < 0.4 else hi
        out.append([ls for ls in (lines[lo:mid], lines[mid:hi]) if ls])
    return out


def add_file(case, folder, n, lines):
    """Adds lines as the file part-<n>.json of folder, whole at once."""
    put_file(case, folder, "part-%02d.json" % n, "".join(lines))


class RetractJob:
    """A retract_diff job: GROUP BY queries of every aggregate function
    (also over an inner GROUP BY; mini-batch, two-phase, split distinct,
    the distinct cache) over one debezium-json history of t, which comes
    as files of the watched folder t: run i's chunk of the history is one
    file there before it starts, or two, the second added while it runs
    (after a checkpoint of its own), so a checkpoint or savepoint holds the
    aggregates' state at random points of the history and the restored job
    retracts the rows of that state. A changelog is read by one subtask
    in file order, so each key's rows keep their order at any parallelism.
    What is compared is each query's final table (rd.model); the changelog
    row by row is not (a restore at another parallelism or mini-batch
    changes how changes interleave or fold)."""
    family = "retract"

    def __init__(self, case, chunks):
        j = self.j = rd.gen_job(case.rng)
        j.seed, j.index = case.seed, case.index
        self.parallelism, self.batch = j.parallelism, j.batch
        self.options = rd.cache_options(j)
        self.chunks = cut(case.rng, j.events, j.schema, chunks)
        self.files = 0

    def text(self, interval):
        old = "'path' = 't.json', 'format' = 'debezium-json'"
        text = rd.job_sql(self.j)
        assert old in text
        return text.replace(old, "'path' = 't', 'format' = 'debezium-json'" + monitor(interval))

    def watch(self, case, sts):
        """Over the inner GROUP BY the functions that follow arrival order
        only when every run has one subtask (retract_diff draws them at one
        subtask): at several, the changes of one outer group come from
        several inner subtasks in any interleaving."""
        if all(st.parallelism == 1 for st in sts):
            return
        for q in self.j.queries:
            if q.inner:
                q.aggs = [a for a in q.aggs if not a[0][4]] or [(rd.SPECS[0], None)]

    def grow(self, case, i, last):
        """Before run i its chunk's first file (the last run: all that are left)."""
        os.makedirs(case.path("t"), exist_ok=True)
        for c in self.chunks[i:] if last else self.chunks[i:i + 1]:
            for lines in c if last else c[:1]:
                self.add(case, lines)

    def add(self, case, lines):
        add_file(case, "t", self.files, lines)
        self.files += 1
        case.counts["files added"] += 1

    def live(self, i):
        return len(self.chunks[i]) > 1

    def add_live(self, case, i, started):
        for lines in self.chunks[i][1:]:
            self.add(case, lines)
            case.counts["files added while running"] += 1
        return True

    def problems(self, case):
        j = self.j
        problems = []
        for q in j.queries:
            case.counts["aggregates of retract jobs"] += len(q.aggs)
            what = "q%d (%s)" % (q.index, rd.query_sql(q))
            folder = case.path("q%d" % q.index)
            try:
                got = rd.fold(folder, [c for c, _ in rd.sink_cols(q)], diffrun.committed_files(folder))
            except ValueError as e:
                problems.append("%s: %s" % (what, e))
                continue
            problems += rd.compare(what, q, rd.model(j, q)[0], got)
        return problems


# --------------------------------------------------------------------------
# Runs and interruptions

class Settings:
    def __init__(self, parallelism, rocksdb, incremental):
        self.parallelism, self.rocksdb, self.incremental = parallelism, rocksdb, incremental

    def __str__(self):
        return "p%d %s" % (self.parallelism, ("rocksdb" + (" incremental" if self.incremental else ""))
                           if self.rocksdb else "memory")


def draw_settings(rng):
    rocksdb = rng.random() < 0.5
    return Settings(rng.choice([1, 2, 4]), rocksdb, rocksdb and rng.random() < 0.5)


def argv(case, job, script, st, interval, frm):
    a = ["run", script, "-D", "state.checkpoints.dir=ckpt", "-D", "state.savepoints.dir=sp",
         "-D", "execution.checkpointing.interval=%dms" % interval]
    a += diffrun.engine_options(case, st.parallelism, job.batch, st.rocksdb) + job.options
    if st.incremental:
        a += ["-D", "state.backend.incremental=true"]
    if frm:
        a += ["--from", frm]
    return a


def completed(case):
    """Ids of the checkpoints in ckpt/ that completed."""
    return {int(m.group(1)) for m in (re.search(r"chk-(\d+)/_metadata$", p)
                                      for p in glob.glob(case.path("ckpt", "chk-*", "_metadata"))) if m}


def wait_checkpoint(case, p, before, limit=60):
    """Waits until a checkpoint not in `before` completed (True) or p ended."""
    end = time.time() + limit
    while time.time() < end and p.poll() is None:
        if completed(case) - before:
            return True
        time.sleep(0.02)
    return False


def held_back(case, p, log, w_p, limit=20):
    """None once every join of a running job whose one input ended
    (CutInputs) has reached the going input's watermark w_p (its first
    file read whole; the ended input's end takes it out of the minimum),
    else what holds it back (the REST API's watermarks): after a restore,
    at any parallelism, the ended input must end again, or a join's
    watermark stays at the ended input's last one where that is below w_p
    and its windows never fire (the last run, which ends every input,
    would hide that). Where the REST API does not answer (or shows no
    join) nothing is checked (counted)."""
    end = time.time() + limit
    seen = None
    while time.time() < end and p.poll() is None:
        m = re.search(r"REST API at (http://[\d.:]+)/ \(job ([0-9a-f]+)", read(log))
        marks = None
        if m:
            try:
                with urllib.request.urlopen("%s/jobs/%s/watermarks" % m.groups(), timeout=5) as r:
                    marks = json.load(r)
            except (OSError, ValueError):
                pass
        if marks:
            seen = [(v["name"], [x.get("currentInputWatermark") for x in v["subtasks"]])
                    for v in marks.get("vertices", []) if "Join" in v["name"].split(" -> ")[0]]
            if not seen:
                break
            if all(w == "end" or (isinstance(w, int) and w >= w_p) for _, ws in seen for w in ws):
                case.counts["joins seen at the going input's watermark with the other ended"] += 1
                return None
        time.sleep(0.05)
    if p.poll() is not None:
        return None  # its end is a problem of its own
    if not seen:
        case.counts["joins' watermarks not checked (no REST API answer or no join)"] += 1
        return None
    return "a join's watermark stays below the going input's %d, its other input ended, for %d s: %s" % (
        w_p, limit, seen)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def savepoint(case, pid, stop):
    """`weir savepoint PID [--stop]`: (path or None, what it said)."""
    p = case.run_weir(["savepoint", str(pid)] + (["--stop"] if stop else []), timeout=120)
    out = (p.stdout or "").strip()
    if p.returncode != 0 or not out:
        return None, "exit %d: %s %s" % (p.returncode, out, (p.stderr or "").strip()[-400:])
    path = out.splitlines()[-1].strip()
    return path, out


def run_case(case):
    rng = case.rng
    fams = families(case.args.families)
    names = sorted(fams)
    family = rng.choices(names, [WEIGHTS.get(f, 1) for f in names])[0]
    n_int = rng.randint(1, 3)
    if family == "window":
        job = WindowJob(case)
    elif family == "changelog":
        x = rng.random()
        job = (BoundedJoinJob(case) if x < ENDED_JOIN_SHARE / 4 else ChangelogJoinJob(case) if x < ENDED_JOIN_SHARE
               else ChangelogJob(case))
    elif family == "rank":
        job = RankJob(case)
    elif family == "wjoin":
        job = WindowJoinJob(case)
    elif family == "match":
        job = MatchJob(case)
    elif family == "temporal":
        job = TemporalJoinJob(case)
    elif family == "retract":
        job = RetractJob(case, n_int + 1)
    else:
        job = CdcJob(case, n_int + 1)
    interval = rng.choice([20, 50, 100])
    st = Settings(job.parallelism, rng.random() < 0.3, False)
    st.incremental = st.rocksdb and rng.random() < 0.5
    # each interruption and the settings of the run after it (new ones after a savepoint)
    plan, sts = [], [st]
    for _ in range(n_int):
        how = rng.choice(HOWS)
        plan.append(how)
        # a checkpoint restores at another parallelism and backend too (kill, term: sometimes)
        sts.append(draw_settings(rng) if how.startswith("savepoint") or how == "again" or rng.random() < 0.3
                   else sts[-1])
    for i in range(1, n_int):
        # a savepoint restored again: mostly the first restore at a higher parallelism than
        # the savepoint's, where subtasks without its state commit
        if plan[i - 1].startswith("savepoint") and plan[i] == "again" and sts[i - 1].parallelism < 4 \
                and rng.random() < 0.7:
            sts[i] = Settings(4, sts[i].rocksdb, sts[i].incremental)
    job.watch(case, sts)
    no_skip = os.environ.get("WEIR_RDIFF_NO_SKIP")
    for name, skip, bug in SKIPS:
        if skip(job, sts) and not no_skip:
            case.counts["skipped (%s)" % name] += 1
            return []
    case.write("job.sql", job.text(interval=50))
    case.write("final.sql", job.text(interval=None))
    steps = []
    case.note = "(%s%s, checkpoints every %d ms: %s%s)" % (
        job.family, getattr(job, "note", ""), interval, sts[0],
        "".join(" -%s-> %s" % (h, x) for h, x in zip(plan, sts[1:])))
    frm = None
    problems = []
    for i, how in enumerate(plan):
        job.grow(case, i, False)
        before = completed(case)
        log = case.path("run%d.log" % i)
        cmd = argv(case, job, "job.sql", st, interval, frm)
        steps.append("run %d: weir %s; %s" % (i, " ".join(cmd), how))
        started = time.time()
        with open(log, "w") as lf:
            p = subprocess.Popen([case.weir] + cmd, cwd=case.folder, stdout=subprocess.DEVNULL, stderr=lf)
        case.counts["runs"] += 1
        try:
            if i and (st.parallelism != sts[i - 1].parallelism or st.rocksdb != sts[i - 1].rocksdb):
                case.counts["rescaled or switched restores"] += 1
            if how != "kill" or rng.random() < 0.5 or job.live(i):
                # the job has started (and restored) once a checkpoint of its own completed;
                # before weir blocks SIGTERM (as it starts) the signal kills it as SIGKILL would
                wait_checkpoint(case, p, before)
            if getattr(job, "ended", False):
                held = held_back(case, p, log, job.w_p)
                if held:
                    return problems + ["run %d: %s" % (i, held)]
            if not job.add_live(case, i, started):
                # a subtask holding its watermark may have turned idle (the idle timeout)
                case.counts["skipped (a run took over %d s to start)" % (IDLE_TIMEOUT_MS // 2000)] += 1
                return []
            time.sleep(rng.uniform(0, 0.6))
            if p.poll() is not None:
                return problems + ["run %d (%s) ended on its own with %s: %s"
                                   % (i, how, p.returncode, read(log)[-600:])]
            if how in ("kill", "again"):
                p.kill()
                p.wait()
                if how == "again" and frm:
                    # the same savepoint once more
                    case.counts["savepoints restored again"] += 1
                    steps[-1] += " -> --from %s, %s" % (os.path.relpath(frm, case.folder), sts[i + 1])
                else:
                    frm = None
                st = sts[i + 1]
                case.counts["kills"] += 1
            elif how == "term":
                p.send_signal(signal.SIGTERM)
                rc = p.wait(timeout=120)
                text = read(log)
                if rc != 143 or "final checkpoint" not in text:
                    return ["run %d: SIGTERM exited %s without a final checkpoint: %s" % (i, rc, text[-600:])]
                frm = None
                st = sts[i + 1]
                case.counts["stops"] += 1
            else:
                path, said = savepoint(case, p.pid, how == "savepoint-stop")
                if path is None:
                    return ["run %d: weir savepoint %s failed: %s; log: %s"
                            % (i, "--stop" if how == "savepoint-stop" else "", said, read(log)[-600:])]
                if how == "savepoint-stop":
                    rc = p.wait(timeout=120)
                    if rc != 0:
                        return ["run %d: stop with a savepoint exited %s: %s" % (i, rc, read(log)[-600:])]
                else:
                    time.sleep(rng.uniform(0, 0.4))
                    p.kill()
                    p.wait()
                frm = path if os.path.isabs(path) else case.path(path)
                st = sts[i + 1]
                case.counts["savepoints"] += 1
                steps[-1] += " -> --from %s, %s" % (os.path.relpath(frm, case.folder), st)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        listing(case, "after run %d (%s)" % (i, how))
    job.grow(case, len(plan), True)
    if getattr(job, "cut", None) is not None:
        restore = frm
        if restore is None and completed(case):
            restore = case.path("ckpt", "chk-%d" % max(completed(case)))
        if not job.last_file(case, restore, st.parallelism):
            case.counts["skipped (the input's first file not read whole at the last restore)"] += 1
            return []
    cmd = argv(case, job, "final.sql", st, interval, frm)
    steps.append("final: weir " + " ".join(cmd))
    case.write("steps.txt", "\n".join(steps) + "\n")
    p = case.run_weir(cmd)
    case.write("final.log", p.stderr)
    case.counts["runs"] += 1
    if p.returncode != 0:
        return [diffrun.failed_run(p)]
    if frm and "restoring from" not in p.stderr:
        return ["the last run did not restore the savepoint: " + p.stderr[-600:]]
    listing(case, "after the last run")
    return job.problems(case)


def listing(case, when):
    """Adds the visible output files, as they are now, to files.txt (for
    the failure's diagnosis: which run committed or removed which file)."""
    with open(case.path("files.txt"), "a") as f:
        f.write("%s:\n" % when)
        for root, _, names in sorted(os.walk(case.folder)):
            rel = os.path.relpath(root, case.folder)
            if rel.split(os.sep)[0] in ("out",) or re.match(r"q\d+$", rel):
                f.writelines("  %s/%s\n" % (rel, n) for n in diffrun.committed_files(root))


def families(spec):
    return diffrun.families(spec, ALL_FAMILIES)


def add_args(ap):
    ap.add_argument("--families", default=os.environ.get("WEIR_RDIFF_FAMILIES", ""),
                    help="comma list; -name leaves a family out (%s)" % ", ".join(sorted(ALL_FAMILIES)))


def main():
    return diffrun.main("restore_diff", run_case, jobs_env="WEIR_RDIFF_JOBS", jobs=16, asan_jobs=4,
                        one_env="WEIR_RDIFF_JOB", unit="jobs", add_args=add_args, out_env="WEIR_RDIFF_OUT",
                        max_failures=5, timeout=120,
                        describe=lambda a: "families " + ",".join(sorted(families(a.families))))


if __name__ == "__main__":
    sys.exit(main())
