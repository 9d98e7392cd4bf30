-- SELECT * of a two-column table meets one operand: refused, counting the expanded columns
CREATE TABLE t (a INT, b INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE s (c INT, d INT) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
SELECT a FROM t WHERE a IN (SELECT * FROM s);
