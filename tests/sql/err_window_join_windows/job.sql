CREATE TABLE a (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
SELECT x.k FROM
  (SELECT k, window_start, window_end FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) x
  JOIN
  (SELECT k, window_start, window_end FROM TABLE(HOP(TABLE b, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) y
  ON x.k = y.k AND x.window_start = y.window_start AND x.window_end = y.window_end;
