-- Rider sessions: a session closes after 15 minutes without a ping, and is
-- capped at one hour (the fourth SESSION argument is a weir extension), so
-- a rider who never pauses still gets billed every hour instead of holding
-- state forever.
CREATE TABLE pings (
  rider STRING,
  ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '30' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'pings.json', 'format' = 'json');

SELECT rider, window_start, window_end, COUNT(*) AS pings
FROM TABLE(SESSION(TABLE pings PARTITION BY rider, DESCRIPTOR(ts), INTERVAL '15' MINUTE, INTERVAL '1' HOUR))
GROUP BY rider, window_start, window_end;
