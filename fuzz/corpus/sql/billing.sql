-- Per-advertiser 5-minute click billing, clicks up to 45 minutes late.
SET 'parallelism.default' = '2';
SET 'table.exec.emit.allow-lateness' = '45 min';
CREATE TABLE clicks (
  click_id STRING,
  advertiser_id BIGINT,
  cost_micros BIGINT,
  ts_ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '45' MINUTES
) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.json', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE bills (advertiser_id BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), clicks BIGINT, cost DECIMAL(18, 6))
WITH ('connector' = 'filesystem', 'path' = 'out/bills', 'format' = 'csv');
INSERT INTO bills
SELECT advertiser_id, window_start, window_end, COUNT(*), CAST(SUM(cost_micros) AS DECIMAL(18, 6)) / 1000000
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTES))
GROUP BY advertiser_id, window_start, window_end;
