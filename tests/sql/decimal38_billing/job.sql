-- Billing sums past 18 digits: DECIMAL(38, 2) amounts read exactly from JSON
-- numbers and strings (HALF_UP to the scale), hourly SUM per account
-- (Flink: SUM of DECIMAL(p, s) is DECIMAL(38, s)), tax with Flink's
-- multiplication type rule, and a total that overflows 38 digits (NULL).
CREATE TABLE usage_events (
  account STRING,
  amount DECIMAL(38, 2),
  rate DECIMAL(5, 4),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'usage.json', 'format' = 'json');

CREATE TABLE bills (
  account STRING,
  hour_start TIMESTAMP(3),
  total DECIMAL(38, 2),
  tax DECIMAL(38, 6),
  doubled DECIMAL(38, 2),
  total_text STRING,
  avg_amount DECIMAL(38, 6),
  n BIGINT
) WITH ('connector' = 'print');

INSERT INTO bills
SELECT account, window_start, SUM(amount), SUM(amount * rate), SUM(amount) * 2,
       CAST(SUM(amount) AS STRING), AVG(amount), COUNT(*)
FROM TABLE(TUMBLE(TABLE usage_events, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY account, window_start, window_end;
