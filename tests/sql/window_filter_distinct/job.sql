-- FILTER (WHERE ...) in a window aggregation: the aggregate sees only the
-- rows where the condition holds (COUNT(*) counts them; no row -> NULL for
-- SUM/MIN); DISTINCT in COUNT, MIN and MAX.
CREATE TABLE e (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');

SELECT k, window_start, COUNT(*) AS n,
       COUNT(*) FILTER (WHERE v > 1) AS big,
       SUM(v) FILTER (WHERE v > 1) AS sbig,
       COUNT(DISTINCT v) AS dv,
       MAX(DISTINCT v) AS mx,
       MIN(DISTINCT v) FILTER (WHERE v > 0) AS mn
FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
