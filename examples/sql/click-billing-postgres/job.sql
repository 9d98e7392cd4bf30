-- Per-advertiser click billing in 5-minute windows, written into PostgreSQL
-- exactly once, and each advertiser's running total kept up to date by
-- upserts. The same windows as ../click-billing/job.sql (clicks can arrive
-- up to 45 minutes late; the watermark waits for them).
--
-- run.sh starts a throwaway server, creates the two tables and runs this
-- job against it (with the server's port in place of 5432); see README.md.
SET 'execution.checkpointing.interval' = '1 s';
SET 'state.checkpoints.dir' = 'ckpt';
SET 'restart-strategy.type' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.attempts' = '3';

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
  'path' = '../click-billing/clicks.json',
  'format' = 'json'
);

-- Append mode (no primary key): one row per advertiser and window, each
-- checkpoint's rows committed in one transaction (two-phase commit).
CREATE TABLE billing (
  advertiser   STRING,
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  clicks       BIGINT,
  amount       DECIMAL(10, 2)
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5432/postgres',
  'table-name' = 'billing',
  'username' = 'postgres',
  'sink.delivery-guarantee' = 'exactly-once'
);

-- Upsert mode (primary key): INSERT ... ON CONFLICT (advertiser) DO UPDATE.
CREATE TABLE totals (
  advertiser STRING,
  clicks     BIGINT,
  amount     DECIMAL(10, 2),
  PRIMARY KEY (advertiser) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5432/postgres',
  'table-name' = 'totals',
  'username' = 'postgres',
  'sink.delivery-guarantee' = 'exactly-once'
);

INSERT INTO billing
SELECT advertiser, window_start, window_end, COUNT(*) AS clicks, SUM(cost) AS amount
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
GROUP BY advertiser, window_start, window_end;

INSERT INTO totals
SELECT advertiser, COUNT(*), SUM(cost) FROM clicks GROUP BY advertiser;
