CREATE TABLE readings (sensor STRING, v DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '100', 'fields.sensor.length' = '4');
CREATE TABLE out_avg WITH ('connector' = 'print') LIKE readings (EXCLUDING ALL);
INSERT INTO out_avg
SELECT sensor, AVG(v) AS avg_v, window_start, window_end
FROM TABLE(HOP(DATA => TABLE readings, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '1' MINUTE, SIZE => INTERVAL '10' MINUTE))
GROUP BY sensor, window_start, window_end
HAVING COUNT(*) >= 3;
