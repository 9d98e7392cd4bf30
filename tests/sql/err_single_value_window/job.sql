-- SINGLE_VALUE in a window aggregation: the window [00:00, 00:10) gets a
-- second row (p = 6), and the job fails naming the call's line and column,
-- as a group aggregation's does for a scalar subquery.
CREATE TABLE w (k INT, p INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'w.csv', 'format' = 'csv');
CREATE TABLE out_w (ws TIMESTAMP(3), v INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_w', 'format' = 'csv');
INSERT INTO out_w SELECT window_start, SINGLE_VALUE(p)
  FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
