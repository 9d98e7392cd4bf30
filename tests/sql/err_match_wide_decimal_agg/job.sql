-- A MATCH_RECOGNIZE aggregate over a DECIMAL of more than 18 digits is
-- refused, naming the types it takes.
CREATE TABLE t (id INT, k STRING, p DECIMAL(30, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ts
  MEASURES SUM(A.p) AS s
  ONE ROW PER MATCH
  PATTERN (A B)
  DEFINE B AS B.id > 0
);
