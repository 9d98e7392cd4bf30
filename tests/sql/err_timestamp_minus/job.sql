-- timestamp - timestamp has no result type in Flink: refused, pointing to TIMESTAMPDIFF.
CREATE TABLE t (id INT, a TIMESTAMP(3), b TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, b - a FROM t;
