-- The variance family takes a number (Flink types its operand NUMERIC): an INTERVAL is refused at plan time
CREATE TABLE t (id INT, s TIMESTAMP(3), e TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id, STDDEV_SAMP(x) FROM (SELECT id, (e - s) DAY TO SECOND AS x FROM t) GROUP BY id;
