-- A SESSION window TVF's PARTITION BY must name the window aggregation's
-- GROUP BY keys (sessions are formed per group): sessions per k aggregated
-- by (k, g) are refused, not silently formed per (k, g).
CREATE TABLE s (k STRING, g STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, g, window_start, window_end, COUNT(*) AS n
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY k, g, window_start, window_end;
