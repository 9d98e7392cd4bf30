-- A LOOKUP hint's retry needs its four options together, as in Flink
-- (there are no defaults for them): here 'max-attempts' is missing.
CREATE TABLE o (id INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE c (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
CREATE TABLE s (id INT, v STRING) WITH ('connector' = 'blackhole');
INSERT INTO s
SELECT /*+ LOOKUP('table' = 'c', 'retry-predicate' = 'lookup_miss', 'retry-strategy' = 'fixed_delay', 'fixed-delay' = '1s') */ o.id, c.v
FROM o JOIN c FOR SYSTEM_TIME AS OF o.pt AS c ON o.id = c.id;
