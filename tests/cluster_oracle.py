#!/usr/bin/env python3
"""tests/cluster_oracle.py - input and expected output of tests/test_cluster.sh,
computed without weir.

  cluster_oracle.py gen SEED ROWS PARTITIONS  -> lines "partition<TAB>json"
  cluster_oracle.py expect DATA DELAY_MS SIZE_MS -> the rows the job prints

The job: a tumbling window of SIZE_MS per key k, COUNT(*) and SUM(v), over
a source whose watermark is max(ts) - DELAY_MS per partition. The generator
keeps every record within DELAY_MS of its partition's maximum, so no record
is ever late, whatever the interleaving of partitions and processes: every
window of every record fires once, with all its records.

Partition p's event times are shifted by p * SKEW_MS, so the processes that
read different partitions are far apart in event time: a downstream
watermark taken from any one producer rather than the minimum over all of
them would drop the records of the ones behind as late.
"""
import datetime
import json
import random
import sys

SKEW_MS = 60_000


def gen(seed, rows, parts):
    rng = random.Random(seed)
    base = 1_700_000_000_000
    for i in range(rows):
        p = i % parts
        k = "k%d" % rng.randrange(40)
        ts = base + p * SKEW_MS + (i // parts) * 29 + rng.randrange(-700, 700)
        print("%d\t%s" % (p, json.dumps({"k": k, "v": rng.randrange(100), "ts_ms": ts},
                                        separators=(",", ":"))))


def fmt(ms):
    # Java's LocalDateTime.toString, as weir's print sink writes TIMESTAMP(3):
    # seconds (and milliseconds) left out when zero.
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    s = d.strftime("%Y-%m-%dT%H:%M")
    if d.second or d.microsecond:
        s += ":%02d" % d.second
    if d.microsecond:
        s += ".%03d" % (d.microsecond // 1000)
    return s


def expect(path, delay, size):
    acc = {}
    for line in open(path):
        r = json.loads(line.split("\t", 1)[1])
        ws = r["ts_ms"] - r["ts_ms"] % size
        c = acc.setdefault((r["k"], ws), [0, 0])
        c[0] += 1
        c[1] += r["v"]
    for (k, ws), (n, s) in acc.items():
        print("+I[%s, %s, %s, %d, %d]" % (k, fmt(ws), fmt(ws + size), n, s))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        expect(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
