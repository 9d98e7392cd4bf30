CREATE TABLE t (a STRING, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
