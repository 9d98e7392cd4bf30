-- EXPLAIN prints the plan and runs nothing.
CREATE TABLE t (a STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (a STRING, n BIGINT) WITH ('connector' = 'blackhole');
EXPLAIN PLAN FOR INSERT INTO o SELECT a, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY a, window_start, window_end;
