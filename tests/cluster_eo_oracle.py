#!/usr/bin/env python3
"""tests/cluster_eo_oracle.py - models for tests/test_cluster_eo.sh, computed
without weir.

  cluster_eo_oracle.py idle SEED ROWS min|max DATA WANT PARTITION...
        -> DATA: lines "partition<TAB>json"; WANT: the windows the job
           prints once its watermark has settled (sorted), for a watermark
           delay of 500 ms and windows of 1 s
  cluster_eo_oracle.py txn PROCESS LOG RESTORED
        -> checks one process's transaction log of the Kafka sink

The rows: ROWS rows in each PARTITION given (the others stay silent), keys k0..k9,
event times that never go down within a partition (so no row is ever late,
whatever the interleaving of partitions and processes), partition p shifted
by p * 2.5 s so that the partitions end at different event times.

The job: a tumbling window of 1 s per key, COUNT(*) and SUM(v), fires
once the watermark reaches its end. Each partition's watermark ends at its
largest event time minus 500 ms. A producer whose partition is silent (or
that has none) is idle and holds nobody back: the watermark downstream
settles at the minimum over the partitions with rows ("min": they never go
idle) or, when they go idle too once read, at the maximum ("max": every
producer idle, as inside one process when every input is idle).

txn: the sink's steps (WEIR_KAFKA_SINK_LOG lines "<event> <tid> <checkpoint>
<messages> <ms>", "run i" between the runs of the process) against the
checkpoint each run restored (one number a line, 0: none): every
transactional id is this process's ("<prefix>-<process>-<n>" with one sink
subtask a process), a transaction commits only after its pre-commit and
only if its checkpoint completed (the next run restores it or a later
one), every run first commits what the restored checkpoint pre-committed
and aborts whatever else the run before left open, and nothing is left
open at the end.
"""
import json
import random
import sys

from cluster_oracle import fmt  # TIMESTAMP(3) as the print sink writes it

SKEW_MS = 2_500


def gen(seed, rows, parts):
    rng = random.Random(seed)
    base = 1_700_000_000_000
    out = []
    for p in parts:
        for i in range(rows):
            ts = base + p * SKEW_MS + i * 13 + rng.randrange(13)
            rec = {"k": "k%d" % rng.randrange(10), "v": rng.randrange(100), "ts_ms": ts}
            out.append("%d\t%s\n" % (p, json.dumps(rec, separators=(",", ":"))))
    return out


def expect(lines, delay, size, rule):
    acc, top = {}, {}
    out = []
    for line in lines:
        p, js = line.split("\t", 1)
        r = json.loads(js)
        top[p] = max(top.get(p, r["ts_ms"]), r["ts_ms"])
        ws = r["ts_ms"] - r["ts_ms"] % size
        c = acc.setdefault((r["k"], ws), [0, 0])
        c[0] += 1
        c[1] += r["v"]
    wms = [t - delay for t in top.values()]
    wm = min(wms) if rule == "min" else max(wms)
    for (k, ws), (n, s) in acc.items():
        if wm >= ws + size:
            out.append("+I[%s, %s, %s, %d, %d]\n" % (k, fmt(ws), fmt(ws + size), n, s))
    return sorted(out, key=lambda x: x.encode())


def txn(proc, log, restored_path):
    runs, cur = [], None
    for line in open(log):
        f = line.split()
        if f[0] == "run":
            cur = []
            runs.append(cur)
        else:
            cur.append((f[0], f[1], int(f[2]), int(f[3])))
    restored = [int(x) for x in open(restored_path)]
    errors = []

    def err(*a):
        errors.append(" ".join(str(x) for x in a))

    if len(runs) != len(restored):
        err("runs", len(runs), "but restore lines", len(restored))
    state, ckpt_of = {}, {}
    commits = aborts = recovered = 0
    for i, ev in enumerate(runs):
        R = restored[i] if i < len(restored) else 0
        last = i == len(runs) - 1
        began = any(e == "begin" for (e, _, _, _) in ev)
        # What the run before left: committed again (the restored
        # checkpoint pre-committed it) or aborted, before this run begins
        # a transaction of its own. A run killed before its sink restored
        # leaves that to the next run.
        for tid, st in state.items():
            if st == "done":
                continue
            seen = [e for (e, t, _, _) in ev if t == tid]
            if not seen and not last and not began:
                continue
            c = ckpt_of[tid]
            if st == "pre" and c <= R:
                if not any(e in ("recover-commit", "recover-skip") for e in seen):
                    err("run", i, "restored chk", R, "but did not commit", tid, "pre-committed at", c)
            elif not seen or seen[0] != "abort":
                err("run", i, "restored chk", R, "and did not abort", tid, st, "first", seen[:1])
            state[tid] = "done"
        for (e, tid, c, n) in ev:
            parts = tid.rsplit("-", 2)
            if len(parts) != 3 or parts[1] != str(proc):
                err("run", i, "transactional id", tid, "is not process", proc, "'s")
            if e == "begin":
                if state.get(tid) == "open":
                    err("run", i, "began", tid, "twice without ending it")
                state[tid] = "open"
                ckpt_of[tid] = c
            elif e == "precommit":
                if state.get(tid) != "open":
                    err("run", i, "pre-committed", tid, "which is not open")
                state[tid] = "pre"
                ckpt_of[tid] = c
            elif e == "commit":
                commits += 1
                if state.get(tid) != "pre":
                    err("run", i, "committed", tid, "before its pre-commit")
                state[tid] = "done"
                if i + 1 < len(runs) and i + 1 < len(restored) and restored[i + 1] < c:
                    err("run", i, "committed", tid, "of chk", c,
                        "but the next run restored chk", restored[i + 1])
            elif e in ("recover-commit", "recover-skip"):
                recovered += 1
                state[tid] = "done"
            elif e == "abort":
                aborts += 1
    left = [t for t, st in state.items() if st != "done"]
    if left:
        err("left open at the end:", left)
    if commits == 0:
        err("no transaction committed")
    for e in errors[:20]:
        print("    process %s: %s" % (proc, e))
    print("    process %s: %d runs, %d commits, %d recovered, %d aborted at restart"
          % (proc, len(runs), commits, recovered, aborts))
    return 1 if errors else 0


if __name__ == "__main__":
    if sys.argv[1] == "idle":
        data = gen(int(sys.argv[2]), int(sys.argv[3]), [int(p) for p in sys.argv[7:]])
        open(sys.argv[5], "w").writelines(data)
        open(sys.argv[6], "w").writelines(expect(data, 500, 1000, sys.argv[4]))
    else:
        sys.exit(txn(int(sys.argv[2]), sys.argv[3], sys.argv[4]))
