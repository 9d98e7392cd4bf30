-- AVG takes a number (Flink types its operand NUMERIC): an INTERVAL is refused at plan time, in OVER too
CREATE TABLE t (id INT, s TIMESTAMP(3), e TIMESTAMP(3), WATERMARK FOR s AS s)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id, AVG((e - s) YEAR TO MONTH) OVER (ORDER BY s ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;
