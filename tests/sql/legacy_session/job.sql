-- Legacy group-window syntax: user sessions with a 15-minute gap.
CREATE TABLE rides (
  rider STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'rides.csv', 'format' = 'csv');

SELECT rider,
       SESSION_START(ts, INTERVAL '15' MINUTE) AS s,
       SESSION_END(ts, INTERVAL '15' MINUTE) AS e,
       COUNT(*) AS pings
FROM rides
GROUP BY rider, SESSION(ts, INTERVAL '15' MINUTE);
