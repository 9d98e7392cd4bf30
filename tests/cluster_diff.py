#!/usr/bin/env python3
"""Randomized differential test of jobs run by several weir processes.

Each case draws one job from an existing generator and checks it against
that generator's oracle (both imported, no code shared with weir):
  window     sql_diff.py: window aggregations (TUMBLE, HOP, CUMULATE,
             SESSION, WHERE before and under the window, HAVING, cascades,
             grouping sets, allowed lateness: a changelog, late-row tables),
             several tables with their own watermark delays over one input;
  changelog  changelog_diff.py: GROUP BY and ROLLUP, OVER, Top-N (also
             over a GROUP BY), deduplication, regular and interval joins,
             semi/anti joins.
The job runs on N = 2 or 3 processes (docs/cluster.md) that meet through
librdkafka's mock cluster over TCP (weir-kafka-mock, next to the weir
binary): every keyed exchange of the job becomes a repartition topic with R
partitions (1 to 5, so some readers have no partition when R is below
N x parallelism, and key-group ranges are uneven), rows, watermarks and end
markers crossing the processes; each process runs the job at the
generator's parallelism (at most 8 subtasks an operator over all the
processes; lateness-dependent jobs too: one reader a process makes the
late rows those of one process) and batch size, on RocksDB in some jobs; in a quarter of the
jobs one process starts late (its share of the input is then minutes
behind the others' in wall-clock time, never in event time). The print
sinks of every process are read together (each sink subtask renamed by its
index in the whole job, so that the generators' per-subtask order checks
hold across processes) and compared with the oracle.

The repartition topics must exist before the start, under names of the
job's graph: each job first runs on one process (processes=1) against a
mock cluster that creates topics on first use (with 4 partitions, or the
count the first start names); that run's
output is checked against the oracle as well, and the topics it created
name those the N processes get, with R partitions, on a fresh mock cluster.

In a third of the jobs (--ckpt-share) the N processes take checkpoints
together (a control topic, one checkpoint folder, every 30 to 100 ms) and
write exactly-once file sinks (debezium-json, one folder for all
processes); half of those have a process killed with SIGKILL at a random
moment: in half of those one process, started again with the same index
(the others restart in their process, restart-strategy); in a quarter
every process at once, all started again at another parallelism (1, 2 or
4; splits, key groups and operator state then move between the
processes); in a quarter every process, 0.3 to 1 s after the first
checkpoint, the job started again on another number of processes (1 to
3, each started with the new count, at a parallelism drawn anew: it
rescales from its last checkpoint, docs/cluster.md), over enough
repartition partitions that some change process (moving_partitions). Such a job watches
its input folder until the kill (source.monitor-interval: it never ends,
so its checkpoints hold its pending windows and state, which the rescale
must deal out) and reads it bounded after it. The committed output,
folded in the order it was written, must equal the oracle - nothing
lost, nothing twice.

Queries whose plan reads a global (single-instance) or broadcast exchange
(a global GROUP BY, Top-N, OVER or deduplication without PARTITION BY,
ORDER BY LIMIT, temporal sort) are refused in this mode by name
(docs/cluster.md, "Only keyed exchanges cross processes"): `weir explain`
shows them, and they are left out of the job (counted); the first of them
must be refused with that message when started on the N processes.

A failing case's folder (kept under --out) holds job.sql, in.json and
repro.sh, which starts a mock cluster with the topics and the N processes
as the case did (`sh repro.sh path/to/build`).

Runs on the shared differential driver (tests/support/diffrun.py).
Usage: cluster_diff.py --weir BIN [--jobs N] [--seed S] [--job I] [--out DIR]
[--families F] [--max-queries N]
Environment: WEIR_SEED replays a run; WEIR_CLUSTERDIFF_JOB=i runs job i of
it; WEIR_CLUSTERDIFF_JOBS sets the number of jobs (default 16, 4 under
ASan); WEIR_CLUSTERDIFF_FAMILIES (comma list, "-name" leaves one out);
WEIR_CLUSTERDIFF_OUT keeps failed jobs' folders; WEIR_CLUSTERDIFF_RESCALE=1 makes
every job whose SQL allows it a rescaled one (to check a change to the
rescale's restore: a plain run draws about one in 25).
"""

import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "support"))
import diffrun  # noqa: E402
import sql_diff as sd  # noqa: E402
import changelog_diff as cl  # noqa: E402
import restore_diff as rd  # noqa: E402

ALL_FAMILIES = {"window", "changelog"}

GROUP = "m"  # pipeline.name of the N processes ("d" for the discovery run)
HEAD = re.compile(r"^([A-Za-z]\w*)(?::(\d+))?> ")
FILE_SINK = re.compile(r"WITH \('connector' = 'print', 'print-identifier' = '(q\d+|late)'\)")
GLOBAL_EDGE = re.compile(r"-> (GLOBAL|BROADCAST)\b")


# --------------------------------------------------------------------------
# The families: the generator's job, its SQL (print sinks, or exactly-once
# file sinks with checkpoints) and the oracle's problems with its output.

class WindowFamily:
    name = "window"

    def gen(self, case, max_queries):
        return sd.gen_job(case.rng.randrange(1 << 30), case.index, sd.ALL_FEATS, max_queries)

    def sql(self, j, queries):
        return sd.job_sql(j, queries)

    def check_lines(self, j, queries, lines):
        return sd.check_lines(j, queries, lines)

    def sinks(self, j, queries):
        late = [("late", ["big", "str", "int", "ts", "big"] if j.late_cols else ["ts", "big"])]
        return [("q%d" % q.qid, sd.out_kinds(q)) for q in queries] + (late if j.late_table else [])


class ChangelogFamily(WindowFamily):
    name = "changelog"

    def gen(self, case, max_queries):
        return cl.gen_job(case.rng.randrange(1 << 30), case.index, cl.ALL_FAMILIES, max_queries)

    def sql(self, j, queries):
        return cl.job_sql(j, queries)

    def check_lines(self, j, queries, lines):
        return cl.check_lines(j, queries, lines)

    def sinks(self, j, queries):
        return [("%s%d" % (cl.LINE_PREFIX, q.qid), q.kinds) for q in queries]


FAMILIES = {f.name: f for f in (WindowFamily(), ChangelogFamily())}


# --------------------------------------------------------------------------
# Processes

class Mock:
    """librdkafka's mock cluster (weir-kafka-mock) in the case's folder."""

    def __init__(self, case, name, topics):
        self.boot = case.path(name + ".boot")
        binary = os.path.join(os.path.dirname(case.weir), "weir-kafka-mock")
        with open(case.path(name + ".log"), "w") as log:
            self.p = subprocess.Popen([binary, "-f", self.boot] + list(topics), cwd=case.folder,
                                      stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        end = time.time() + 30
        while not os.path.exists(self.boot) and time.time() < end and self.p.poll() is None:
            time.sleep(0.02)
        if not os.path.exists(self.boot):
            self.stop()
            raise RuntimeError("the mock cluster did not start")
        with open(self.boot) as f:
            self.servers = f.read().strip()

    def topics(self):
        """{name: partitions} of the topics the cluster has now."""
        p = subprocess.run(["kcat", "-L", "-b", self.servers], capture_output=True, text=True, timeout=60)
        return {m.group(1): int(m.group(2))
                for m in re.finditer(r'topic "([^"]+)" with (\d+) partitions', p.stdout)}

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


class Setup:
    """How the processes of one case run (drawn once per case)."""

    def __init__(self, rng, j):
        self.n = rng.choice([2, 3])
        self.parallelism = min(j.parallelism, 8 // self.n)
        self.partitions = rng.choice([1, 2, 3, 4, 5])
        self.late = rng.randrange(self.n) if rng.random() < 0.25 else None
        self.late_s = rng.uniform(0.1, 0.8)
        self.batch = j.batch
        self.rocksdb = getattr(j, "rocksdb", False) or rng.random() < 0.2
        self.ckpt = None  # checkpoint interval (ms) with exactly-once file sinks
        self.kill = None  # (process, seconds after the start) with checkpoints
        self.repar = None  # with kill: every process killed, restarted at this parallelism
        self.rescale = None  # with kill: every process killed, restarted as (processes, parallelism)

    def __str__(self):
        s = "%d processes x parallelism %d, %d partitions, batch %d%s" % (
            self.n, self.parallelism, self.partitions, self.batch, ", rocksdb" if self.rocksdb else "")
        if self.late is not None:
            s += ", process %d starts %.1f s late" % (self.late, self.late_s)
        if self.ckpt:
            s += ", checkpoints every %d ms into exactly-once files" % self.ckpt
        if self.kill and self.repar:
            s += ", every process killed after %.2f s and restarted at parallelism %d" % (self.kill[1], self.repar)
        elif self.kill and self.rescale:
            s += ", every process killed %.2f s after the first checkpoint and restarted as %d processes x " \
                "parallelism %d" % (
                (self.kill[1],) + self.rescale)
        elif self.kill:
            s += ", process %d killed after %.2f s" % self.kill
        return s


def options(st, folder, group, servers, n, index, partitions, parallelism=None):
    """weir run's -D options of process `index` of n."""
    a = ["-D", "rest.enabled=false", "-D", "pipeline.name=" + group,
         "-D", "weir.cluster.bootstrap-servers=" + servers, "-D", "weir.cluster.processes=%d" % n,
         "-D", "weir.cluster.process-index=%d" % index,
         "-D", "weir.cluster.repartition-partitions=%d" % partitions,
         "-D", "parallelism.default=%d" % (parallelism or st.parallelism), "-D", "weir.batch-size=%d" % st.batch]
    if st.rocksdb:
        a += ["-D", "state.backend.type=rocksdb",
              "-D", "weir.state.dir=" + os.path.join(folder, "state-%s-%d" % (group, index))]
    if st.ckpt and group == GROUP:
        a += ["-D", "state.checkpoints.dir=ck", "-D", "execution.checkpointing.interval=%dms" % st.ckpt,
              "-D", "restart-strategy.type=fixed-delay", "-D", "restart-strategy.fixed-delay.attempts=1000",
              "-D", "restart-strategy.fixed-delay.delay=0ms"]
    return a


def start(case, folder, script, opts, name):
    out = open(os.path.join(folder, name + ".out"), "ab")
    log = open(os.path.join(folder, name + ".log"), "ab")
    try:
        return subprocess.Popen([case.weir, "run", script] + opts, cwd=folder,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=log)
    finally:
        out.close()
        log.close()


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def renamed_lines(text, index):
    """Print sink lines with each sink subtask named by its place in the
    whole job (process index * 100 + subtask)."""
    out = []
    for line in text.splitlines():
        m = HEAD.match(line)
        if m:
            line = "%s:%d> %s" % (m.group(1), index * 100 + int(m.group(2) or 1), line[m.end():])
        out.append(line)
    return out


# --------------------------------------------------------------------------
# One job run by the processes

def global_queries(case, fam, j, queries, folder, st):
    """The queries whose plan reads a global or broadcast exchange (weir
    explain, each query alone once the whole job shows one)."""
    def explain(qs):
        path = os.path.join(folder, "explain.sql")
        with open(path, "w") as f:
            f.write(fam.sql(j, qs))
        p = case.run_weir(["explain", path, "-D", "parallelism.default=%d" % st.parallelism], cwd=folder)
        if p.returncode:
            raise RuntimeError("weir explain failed: " + p.stderr[-600:])
        return GLOBAL_EDGE.search(p.stdout.split("== Job graph ==")[-1]) is not None
    if not explain(queries):
        return set()
    return {q.qid for q in queries if explain([q])}


def wait_all(procs, timeout):
    end = time.time() + timeout
    for p in procs:
        try:
            p.wait(timeout=max(1, end - time.time()))
        except subprocess.TimeoutExpired:
            pass


def kill_all(procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def run_cluster(case, fam, j, queries, folder, st):
    """Runs the queries on one process (discovery), then on st.n; returns
    (lines of each run that printed, problems)."""
    os.makedirs(folder, exist_ok=True)
    sd.write_job(j, queries, folder, fam.sql)
    # 1. one process against a mock that creates every topic on first use
    # (with 4 partitions; another count the first start reports is taken)
    auto = 4
    for _ in range(2):
        mock = Mock(case, os.path.join(folder, "mock1"), [])
        try:
            for name in ("d0.out", "d0.log"):
                if os.path.exists(os.path.join(folder, name)):
                    os.remove(os.path.join(folder, name))
            p = start(case, folder, "job.sql", options(st, folder, "d", mock.servers, 1, 0, auto), "d0")
            wait_all([p], case.args.timeout)
            kill_all([p])
            topics = mock.topics()
        finally:
            mock.stop()
        log = read(os.path.join(folder, "d0.log"))
        m = re.search(r"must exist with %d partitions .*found (\d+)" % auto, log)
        if not p.returncode or not m or int(m.group(1)) == auto:
            break
        auto = int(m.group(1))
    if p.returncode:
        return None, ["one process over the mock cluster exited %s: %s" % (p.returncode, log.strip()[-1500:])]
    one = renamed_lines(read(os.path.join(folder, "d0.out")), 0)
    names = sorted(t[len("d-"):] for t in topics if t.startswith("d-") and t.endswith("-repartition"))
    case.counts["repartition topics"] += len(names)
    # 2. n processes over the topics with st.partitions partitions
    want = ["%s-%s:%d" % (GROUP, t, st.partitions) for t in names]
    if st.ckpt:
        want.append("%s-control:1" % GROUP)
    script = "job.sql"
    if st.ckpt:
        script = "files.sql"
        with open(os.path.join(folder, script), "w") as f:
            f.write(FILE_SINK.sub(r"WITH ('connector' = 'filesystem', 'path' = 'out/\1', 'format' = 'debezium-json')",
                                  fam.sql(j, queries)))
    if st.rescale:
        script = watched_input(folder, script)
    write_repro(folder, st, names, script)
    mock = Mock(case, os.path.join(folder, "mock2"), want)
    procs = [None] * st.n
    try:
        order = [i for i in range(st.n) if i != st.late] + ([st.late] if st.late is not None else [])
        t0 = time.time()
        for i in order:
            if i == st.late:
                time.sleep(st.late_s)
            procs[i] = start(case, folder, script, options(st, folder, GROUP, mock.servers, st.n, i,
                                                           st.partitions), "p%d" % i)
        if st.kill:
            victim, after = st.kill
            if st.rescale:
                # after the first checkpoint: the job, watching its input,
                # holds its windows and state until its end
                while not checkpointed(folder, st.n) and time.time() < t0 + 30 and procs[victim].poll() is None:
                    time.sleep(0.01)
                t0 = time.time()
            while time.time() < t0 + after and procs[victim].poll() is None:
                time.sleep(0.01)
            if procs[victim].poll() is None:
                victims = range(st.n) if st.repar or st.rescale else [victim]
                for v in victims:
                    if procs[v].poll() is None:
                        procs[v].send_signal(signal.SIGKILL)
                    procs[v].wait()
                    with open(os.path.join(folder, "p%d.log" % v), "a") as f:
                        f.write("--- killed by cluster_diff\n")
                    case.counts["kills"] += 1
                if st.repar:
                    case.counts["restarts of every process at another parallelism"] += 1
                if st.rescale:
                    procs = rescale(case, folder, st, mock)
                else:
                    for v in victims:
                        procs[v] = start(case, folder, script, options(st, folder, GROUP, mock.servers, st.n,
                                                                       v, st.partitions, st.repar), "p%d" % v)
            else:
                case.counts["kills too late (the job had ended)"] += 1
        wait_all(procs, case.args.timeout)
        running = [i for i, p in enumerate(procs) if p.poll() is None]
        kill_all(procs)
    finally:
        kill_all([p for p in procs if p is not None])
        mock.stop()
    if running:
        return None, ["processes %s still ran after %d s: %s" % (running, case.args.timeout, "; ".join(
            "p%d: %s" % (i, read(os.path.join(folder, "p%d.log" % i)).strip()[-300:]) for i in running))]
    failed = [i for i, p in enumerate(procs) if p.returncode]
    if failed:
        return None, ["process %d of %d exited %s: %s" % (i, len(procs), procs[i].returncode,
                                                          read(os.path.join(folder, "p%d.log" % i)).strip()[-1500:])
                      for i in failed]
    if st.rescale:
        count_rescaled_restore(case, folder)
    if st.ckpt:
        many = rd.print_lines(Folder(folder), fam.sinks(j, queries))
    else:
        many = []
        for i in range(st.n):
            many += renamed_lines(read(os.path.join(folder, "p%d.out" % i)), i)
    return (one, many), []


def rescale(case, folder, st, mock):
    """Starts the job again, after every process was killed, on another
    number of processes (and parallelism in each): every one started anew
    with the new count, which rescales the job from its last checkpoint
    (docs/cluster.md, Rescaling); the old processes past the new count
    stay dead. Returns the new processes."""
    n, par = st.rescale
    case.counts["restarts of every process on %s processes" % ("fewer" if n < st.n else "more")] += 1
    return [start(case, folder, "final.sql", options(st, folder, GROUP, mock.servers, n, v, st.partitions, par),
                  "p%d" % v) for v in range(n)]


WATCH = "'source.monitor-interval' = '50ms'"


def watched_input(folder, script):
    """A rescaled job's scripts (returns the first): until the kill it
    watches its input (in.json copied into the folder in/), so it never
    ends and every checkpoint holds its pending windows and state; the job
    started again on the new count reads the same folder bounded, to its
    end (a restore takes that: the split is the same file)."""
    os.makedirs(os.path.join(folder, "in"), exist_ok=True)
    shutil.copy(os.path.join(folder, "in.json"), os.path.join(folder, "in", "in.json"))
    old = "'path' = 'in.json', 'format' = 'json')"
    text = read(os.path.join(folder, script))
    assert old in text
    bounded = text.replace(old, "'path' = 'in', 'format' = 'json')")
    with open(os.path.join(folder, "final.sql"), "w") as f:
        f.write(bounded)
    with open(os.path.join(folder, "watch.sql"), "w") as f:
        f.write(bounded.replace("'path' = 'in', 'format' = 'json')", "'path' = 'in', 'format' = 'json', %s)" % WATCH))
    return "watch.sql"


def checkpointed(folder, n):
    """Whether every one of the n processes wrote its part of one
    checkpoint (its _metadata)."""
    parts = [glob.glob(os.path.join(folder, "ck", "process-%d" % i, "chk-*", "_metadata")) for i in range(n)]
    ids = [{os.path.basename(os.path.dirname(m)) for m in ms} for ms in parts]
    return bool(set.intersection(*ids))


def count_rescaled_restore(case, folder):
    """Counts what the job rescaled from: a checkpoint taken while it
    ran, its final one (nothing left to do), or none complete (a fresh
    start), as process 0 of the new count logged it."""
    log = read(os.path.join(folder, "p0.log")).split("--- killed by cluster_diff")[-1]
    if "the job had ended there" in log:
        what = "its final checkpoint"
    elif "restoring from" in log:
        what = "a checkpoint taken while it ran"
    else:
        what = "no checkpoint (a fresh start)"
    case.counts["rescaled jobs restored from " + what] += 1


class Folder:
    """What restore_diff.print_lines needs of a case: its folder."""

    def __init__(self, folder):
        self.folder = folder

    def path(self, *names):
        return os.path.join(self.folder, *names)


def write_repro(folder, st, names, script):
    """repro.sh: the mock cluster with the topics and the n processes of
    the case (no late start, no kill), their output in p<i>.out."""
    topics = " ".join("%s-%s:%d" % (GROUP, t, st.partitions) for t in names)
    if st.ckpt:
        topics += " %s-control:1" % GROUP
    lines = ["#!/bin/sh",
             "# run from this folder: sh repro.sh path/to/build (weir and weir-kafka-mock there)",
             "B=${1:-build}; rm -f repro.boot; rm -rf ck out state-*",
             "\"$B/weir-kafka-mock\" -f repro.boot %s > repro-mock.log 2>&1 &" % topics,
             "M=$!; trap 'kill $M' EXIT",
             "while [ ! -s repro.boot ]; do sleep 0.05; done",
             "S=$(cat repro.boot)"]
    for i in range(st.n):
        opts = options(st, ".", GROUP, "SERVERS", st.n, i, st.partitions)
        text = " ".join("'%s'" % o if " " in o else o for o in opts).replace("SERVERS", "$S")
        lines.append("\"$B/weir\" run %s %s > p%d.out 2> p%d.log & P=\"$P $!\"" % (script, text, i, i))
    lines.append("wait $P")
    with open(os.path.join(folder, "repro.sh"), "w") as f:
        f.write("\n".join(lines) + "\n")


def check(case, fam, j, queries, folder, st):
    """{qid: [problems]} of the queries run together by the processes
    (job-level problems under None)."""
    try:
        got, problems = run_cluster(case, fam, j, queries, folder, st)
    except subprocess.TimeoutExpired as e:
        return {None: ["timed out: %s" % e]}
    if problems:
        return {None: problems}
    one, many = got
    result = {}
    for what, lines in (("one process over Kafka", one), ("%d processes" % st.n, many)):
        for qid, probs in fam.check_lines(j, queries, lines).items():
            result.setdefault(qid, []).extend("%s: %s" % (what, p) for p in probs)
    return result


def run_case(case):
    fams = diffrun.families(case.args.families, ALL_FAMILIES)
    fam = FAMILIES[case.rng.choice(sorted(fams))]
    j = fam.gen(case, case.args.max_queries)
    st = Setup(case.rng, j)
    rescale_all = os.environ.get("WEIR_CLUSTERDIFF_RESCALE") == "1"
    if case.rng.random() < case.args.ckpt_share or rescale_all:
        st.ckpt = case.rng.choice([30, 50, 100])
        if case.rng.random() < 0.5 or rescale_all:
            st.kill = (case.rng.randrange(st.n), case.rng.uniform(0.2, 1.5))
            # half of those: every process killed at once and restarted at
            # another parallelism (splits, key groups and operator state
            # move between the processes)
            pars = [p for p in (1, 2, 4) if p * st.n <= 8 and p != st.parallelism]
            draw = case.rng.random()
            if pars and draw < 0.25 and not rescale_all:
                st.repar = case.rng.choice(pars)
            elif (draw < 0.5 or rescale_all) and "OPTIONS(" not in fam.sql(j, j.queries):
                # a quarter (not with table hints, which read in.json
                # bounded): every process killed at once and the job
                # started again on another number of processes, at a
                # parallelism in each drawn anew (key groups, operator
                # state and splits dealt out over the new count)
                n = case.rng.choice([m for m in (1, 2, 3) if m != st.n])
                st.rescale = (n, case.rng.choice([p for p in (1, 2, 4) if p * n <= 8]))
                st.kill = (st.kill[0], case.rng.uniform(0.3, 1))
                st.partitions = moving_partitions(case.rng, st)
    glob = global_queries(case, fam, j, j.queries, case.folder, st)
    case.counts["queries refused (global exchange)"] += len(glob)
    if glob:
        # weir refuses such a query by name (before it reaches the brokers)
        q = next(q for q in j.queries if q.qid in glob)
        case.write("global.sql", fam.sql(j, [q]))
        p = case.run_weir(["run", "global.sql", "-D", "parallelism.default=%d" % st.parallelism] +
                          options(st, case.folder, "g", "127.0.0.1:9", st.n, 0, st.partitions)[:10])
        if p.returncode == 0 or not re.search(r"reads its input through a (global \(single-instance\)|broadcast) "
                                              r"exchange, which a job run by several processes cannot split yet",
                                              p.stderr):
            return ["q%d needs a global exchange (weir explain) but a run on %d processes said: %s"
                    % (q.qid, st.n, p.stderr.strip()[-600:] or "nothing, status %d" % p.returncode)]
    j.queries = [q for q in j.queries if q.qid not in glob]
    case.note = "(%s, %s, %d queries)" % (fam.name, st, len(j.queries))
    if not j.queries:
        case.counts["jobs with no query left"] += 1
        return []
    case.counts["%s jobs" % fam.name] += 1
    if st.ckpt:
        case.counts["jobs with checkpoints"] += 1
    return sd.job_problems(case, j, lambda c, jj, qs, folder: check(c, fam, jj, qs, folder, st))


def moving_partitions(rng, st):
    """A rescaled job's number of repartition partitions, drawn where
    partitions change process both ways: read in process
    (r mod N*p) / p, partition r < R moves under the old parallelism, and
    under the new one, only when R > min(old N, new N) * p. With fewer, every
    key group's state stays where it was (and the generators' few keys
    hold state in few key groups), so a restore that takes a key group's
    state from the wrong old process, or restores it in the wrong new one,
    passes unseen."""
    n, par = st.rescale
    low = min(st.n, n) * max(st.parallelism, par) + 1
    if low > 5:
        low = min(st.n, n) * min(st.parallelism, par) + 1
    return rng.randint(low, 5) if low <= 5 else st.partitions


def add_args(ap):
    ap.add_argument("--families", default=os.environ.get("WEIR_CLUSTERDIFF_FAMILIES", ""),
                    help="comma list; -name leaves a family out (%s)" % ", ".join(sorted(ALL_FAMILIES)))
    ap.add_argument("--max-queries", type=int, default=6, help="queries a job at the most (default 6)")
    ap.add_argument("--ckpt-share", type=float, default=0.33,
                    help="share of the jobs run with checkpoints into exactly-once files (default 0.33)")


def main():
    if not shutil.which("kcat"):
        print("cluster_diff: SKIPPED (no kcat)")
        return 0
    return diffrun.main("cluster_diff", run_case, jobs_env="WEIR_CLUSTERDIFF_JOBS", jobs=16, asan_jobs=4,
                        one_env="WEIR_CLUSTERDIFF_JOB", unit="jobs", add_args=add_args,
                        out_env="WEIR_CLUSTERDIFF_OUT", max_failures=5, timeout=120,
                        describe=lambda a: "families %s, up to %d queries, %s" % (
                            ",".join(sorted(diffrun.families(a.families, ALL_FAMILIES))), a.max_queries,
                            "every job rescaled (WEIR_CLUSTERDIFF_RESCALE=1)"
                            if os.environ.get("WEIR_CLUSTERDIFF_RESCALE") == "1"
                            else "%.0f%% with checkpoints" % (100 * a.ckpt_share)))


if __name__ == "__main__":
    sys.exit(main())
