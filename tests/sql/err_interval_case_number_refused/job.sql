-- an INTERVAL and a plain number have no common type (as Flink): refused at plan time
CREATE TABLE t (id INT, s TIMESTAMP(3), e TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id, CASE WHEN id > 2 THEN (e - s) DAY TO SECOND ELSE CAST(id AS BIGINT) END FROM t;
