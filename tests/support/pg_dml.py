#!/usr/bin/env python3
"""tests/support/pg_dml.py SEED N_TXNS MAX_OLD_ID FIRST_NEW_ID [SLEEP_S] - prints a
random DML script for the table t (id INT PRIMARY KEY, grp TEXT, v BIGINT,
note TEXT): transactions of 1-4 statements mixing inserts, updates of values
and groups, updates of the primary key, deletes and upserts, valid whatever
rows exist. Statements on existing rows pick ids in [1, MAX_OLD_ID);
new rows (and moved keys) get ids from FIRST_NEW_ID on, unique across
scripts given disjoint ranges (at most 4 new ids per transaction). With SLEEP_S
each transaction is followed by pg_sleep(SLEEP_S), so the script runs while
a job is killed and restarted."""
import random
import sys

seed, n, hi, next_id = (int(a) for a in sys.argv[1:5])
sleep = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
rnd = random.Random(seed)


def stmt():
    global next_id
    k = rnd.randrange(1, hi)
    r = rnd.random()
    if r < 0.25:
        next_id += 1
        note = rnd.choice(["NULL", "'x'", "'it''s'", "'%s'" % ("y" * rnd.randrange(1, 40))])
        return "INSERT INTO t VALUES (%d, 'g%d', %d, %s);" % (next_id, rnd.randrange(8), rnd.randrange(-50, 1000), note)
    if r < 0.50:
        return "UPDATE t SET v = v + %d WHERE id = %d;" % (rnd.randrange(-20, 20), k)
    if r < 0.60:
        return "UPDATE t SET grp = 'g%d', note = NULL WHERE id BETWEEN %d AND %d;" % (rnd.randrange(8), k, k + rnd.randrange(3))
    if r < 0.70:
        next_id += 1
        return "UPDATE t SET id = %d WHERE id = %d;" % (next_id, k)
    if r < 0.85:
        return "DELETE FROM t WHERE id = %d;" % k
    return ("INSERT INTO t VALUES (%d, 'g%d', %d, NULL) ON CONFLICT (id) DO UPDATE SET v = t.v * 2;"
            % (k, rnd.randrange(8), rnd.randrange(100)))


for _ in range(n):
    body = [stmt() for _ in range(rnd.randrange(1, 5))]
    print("BEGIN;")
    print("\n".join(body))
    print("COMMIT;")
    if sleep:
        print("SELECT pg_sleep(%g);" % sleep)
