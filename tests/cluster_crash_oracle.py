#!/usr/bin/env python3
"""tests/cluster_crash_oracle.py ROWS - the committed output of the job of
tests/test_cluster_crash.sh, computed without weir.

Row g (0 <= g < ROWS) has k = g * 7919 mod 41, v = g mod 100 and event time
1.7e12 + 7 g ms. Per key and 1-second tumbling window: the window start
(UTC), COUNT(*) and SUM(v), one CSV line each ("k,ws,n,s"). Event time
only grows within every generator subtask, so no row is late.
"""
import datetime
import sys


def main(rows):
    acc = {}
    for g in range(rows):
        ts = 1_700_000_000_000 + 7 * g
        key = ((g * 7919) % 41, ts // 1000)
        c = acc.setdefault(key, [0, 0])
        c[0] += 1
        c[1] += g % 100
    for (k, ws), (n, s) in acc.items():
        t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=ws)
        print("%d,%s.000,%d,%d" % (k, t.strftime("%Y-%m-%d %H:%M:%S"), n, s))


if __name__ == "__main__":
    main(int(sys.argv[1]))
