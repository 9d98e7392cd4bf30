-- Per-advertiser click billing in 5-minute windows.
--
-- Clicks can arrive up to 45 minutes after they happen (bundled data: an
-- outage holds back 45 minutes of clicks, then delivers them in one burst).
-- Event time bills every click to the 5-minute window it happened in, so a
-- burst never inflates one window: the watermark waits 45 minutes.
CREATE TABLE clicks (
  click_id   BIGINT,
  advertiser STRING,
  user_id    STRING,
  cost       DECIMAL(10, 2),
  ts_ms      BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '45' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = 'clicks.json',
  'format' = 'json'
);

CREATE TABLE billing (
  advertiser   STRING,
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  clicks       BIGINT,
  amount       DECIMAL(10, 2)
) WITH ('connector' = 'print');

INSERT INTO billing
SELECT advertiser, window_start, window_end, COUNT(*) AS clicks, SUM(cost) AS amount
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
GROUP BY advertiser, window_start, window_end;
