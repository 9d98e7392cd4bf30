-- Late clicks to a dead-letter table (a weir extension).
--
-- The same clicks as click-billing, but the watermark waits only 10
-- minutes. Clicks held back longer than that are late: instead of being
-- dropped silently they go to the table named by weir.late-records.table,
-- with the watermark they met and how late they were.
CREATE TABLE clicks (
  click_id   BIGINT,
  advertiser STRING,
  cost       DECIMAL(10, 2),
  ts_ms      BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '10' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'clicks.json', 'format' = 'json');

CREATE TABLE billing (
  advertiser STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), amount DECIMAL(10, 2)
) WITH ('connector' = 'print', 'print-identifier' = 'billed');

CREATE TABLE late_clicks (
  advertiser STRING, cost DECIMAL(10, 2), `watermark` TIMESTAMP(3), lateness_ms BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'late');

SET 'weir.late-records.table' = 'late_clicks';

INSERT INTO billing
SELECT advertiser, window_start, window_end, SUM(cost)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
GROUP BY advertiser, window_start, window_end;
