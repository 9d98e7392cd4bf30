-- A lookup join on a DECIMAL key of more than 18 digits (a 16-byte value):
-- each stream row meets the table row of its own key, and only that one.
CREATE TABLE t (k DECIMAL(20, 0), name STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE s (id INT, k INT, p AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
CREATE TABLE out_t (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO out_t SELECT s.id, t.name FROM s LEFT JOIN t FOR SYSTEM_TIME AS OF s.p AS t ON s.k = t.k;
