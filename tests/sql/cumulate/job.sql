-- CUMULATE: running totals in 1-hour steps within a day.
CREATE TABLE sales (item STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'sales.csv', 'format' = 'csv');
SELECT window_start, window_end, SUM(amount) AS total, COUNT(DISTINCT item) AS items
FROM TABLE(CUMULATE(TABLE sales, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '3' HOUR))
GROUP BY window_start, window_end;
