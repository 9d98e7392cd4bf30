-- IS [NOT] DISTINCT FROM on DOUBLE compares as '=' does where neither side
-- is NULL, as in Flink (a IS NOT DISTINCT FROM b is a and b both NULL, or
-- a = b TRUE): -0.0 is not distinct from 0.0, and NaN is distinct from
-- everything, NaN included (weir once found NaN not distinct from any
-- number). l = 0.0, -0.0, NaN, NULL. Worked by hand, not distinct:
-- (1, 1), (1, 2), (2, 1), (2, 2), (4, 4); every other pair is distinct.
CREATE TABLE l (id INT, k DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE p (a INT, b INT, nd BOOLEAN, d BOOLEAN) WITH ('connector' = 'print', 'print-identifier' = 'p');
INSERT INTO p SELECT x.id, y.id, x.k IS NOT DISTINCT FROM y.k, y.k IS DISTINCT FROM x.k FROM l AS x, l AS y;
