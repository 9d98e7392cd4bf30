-- Queries > Joins > Temporal Joins: versioned view (deduplication as a versioned table)
-- oracle: SELECT o.order_id, (SELECT r.rate FROM rates r WHERE r.currency = o.currency AND r.rate_time <= o.order_time ORDER BY r.rate_time DESC LIMIT 1) FROM orders o WHERE o.currency IN (SELECT currency FROM rates)
CREATE TABLE rate_log (currency STRING, rate DECIMAL(10, 2), rate_time TIMESTAMP(3), WATERMARK FOR rate_time AS rate_time)
  WITH ('connector' = 'filesystem', 'path' = 'data/rates.csv', 'format' = 'csv');
CREATE VIEW versioned AS SELECT currency, rate, rate_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY rate_time DESC) AS rownum FROM rate_log) WHERE rownum = 1;
SELECT o.order_id, v.rate FROM orders AS o JOIN versioned FOR SYSTEM_TIME AS OF o.order_time AS v ON o.currency = v.currency;
