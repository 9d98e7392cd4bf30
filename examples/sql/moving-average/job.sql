-- A moving average: the mean temperature of the last 10 minutes, every
-- minute (HOP takes the slide first, then the size, as in Flink SQL).
-- DECIMAL keeps the average exact, whatever order the runtime adds in.
CREATE TABLE readings (
  sensor STRING,
  temp   DECIMAL(6, 2),
  ts_ms  BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'readings.json', 'format' = 'json');

SELECT sensor, window_end, ROUND(AVG(temp), 2) AS avg_temp, MAX(temp) AS max_temp
FROM TABLE(HOP(TABLE readings, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE))
GROUP BY sensor, window_start, window_end
HAVING AVG(temp) > 85;
