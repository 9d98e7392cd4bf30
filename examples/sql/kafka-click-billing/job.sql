-- Per-advertiser click billing in 5-minute windows, from Kafka to Kafka.
--
-- The clicks topic has two partitions; partition 1 carries a few clicks at
-- the start and then goes silent. Its watermark would hold every window
-- open forever: the idle timeout excludes it once it has been silent (and
-- caught up) for 10 s, so the windows close on partition 0's watermark.
-- Bills go to the 'bills' topic exactly once: one Kafka transaction per
-- checkpoint, committed when the checkpoint completes.
SET 'execution.checkpointing.interval' = '2 s';
SET 'state.checkpoints.dir' = 'ckpt';
SET 'table.exec.source.idle-timeout' = '10 s';

CREATE TABLE clicks (
  click_id   BIGINT,
  advertiser STRING,
  user_id    STRING,
  cost       DECIMAL(10, 2),
  ts_ms      BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '45' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = 'clicks',
  'properties.bootstrap.servers' = 'localhost:9092',
  'properties.group.id' = 'click-billing',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE bills (
  advertiser   STRING,
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  clicks       BIGINT,
  amount       DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'bills',
  'properties.bootstrap.servers' = 'localhost:9092',
  'key.format' = 'json',
  'key.fields' = 'advertiser',
  'value.format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'click-billing'
);

INSERT INTO bills
SELECT advertiser, window_start, window_end, COUNT(*) AS clicks, SUM(cost) AS amount
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
GROUP BY advertiser, window_start, window_end;
