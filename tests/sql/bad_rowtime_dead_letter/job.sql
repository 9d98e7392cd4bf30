-- A row whose rowtime column is empty (NULL) has no event time: with
-- 'dead-letter' it goes to the dead-letter file, located (file, line,
-- column) and named by its field, and the job goes on.
CREATE TABLE sales (item STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'sales.csv', 'format' = 'csv',
      'source.bad-input' = 'dead-letter', 'source.dead-letter.path' = 'dead.jsonl');
SELECT window_start, window_end, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE sales, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end;
