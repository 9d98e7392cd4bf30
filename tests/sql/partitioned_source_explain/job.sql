-- EXPLAIN of a partitioned source: the partition columns, and the
-- conjuncts of the WHERE that read partition columns alone (dt = ... and
-- the OR of two conditions on hr) as the partition filter; v > 1 and the
-- OR that reads v are not partition conditions. A query without a WHERE
-- on partition columns reads every partition.
CREATE TABLE src (k STRING, dt STRING, v BIGINT, hr INT)
PARTITIONED BY (dt, hr)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
EXPLAIN SELECT k FROM src WHERE dt = '2024-01-01' AND v > 1 AND (hr < 3 OR hr > 20) AND (hr = 1 OR v = 2);
EXPLAIN SELECT k FROM src s WHERE s.hr IS NOT NULL;
EXPLAIN SELECT k FROM src WHERE v > 1;
