-- A moving average: 10-minute windows every 5 minutes (HOP: slide first).
CREATE TABLE readings (
  sensor STRING,
  temp DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'readings.json', 'format' = 'json');

SELECT sensor, window_start, window_end, AVG(temp) AS avg_temp, MAX(temp) AS max_temp
FROM TABLE(HOP(TABLE readings, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))
GROUP BY sensor, window_start, window_end;
