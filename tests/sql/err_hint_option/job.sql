-- A wrong option given in an OPTIONS hint is reported where the hint
-- writes it (line 6), not at the table's WITH clause.
CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE o (id INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t
  /*+ OPTIONS('path' = 'a.csv', 'format' = 'csv', 'csv.ignore-parse-error' = 'true') */;
