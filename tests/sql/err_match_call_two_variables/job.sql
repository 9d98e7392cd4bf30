-- A MATCH_RECOGNIZE aggregate over an expression that reads two pattern
-- variables is refused (Flink refuses it too).
CREATE TABLE t (id INT, k STRING, p DECIMAL(10, 2), d DATE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ts
  MEASURES SUM(A.id + B.id) AS s
  ONE ROW PER MATCH
  PATTERN (A B)
  DEFINE B AS B.id > 0
);
