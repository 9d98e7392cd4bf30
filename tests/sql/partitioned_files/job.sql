-- A partitioned filesystem sink: one folder per partition value,
-- key=value with Flink's escaping, the partition columns left out of the
-- files, NULL/empty values in __DEFAULT_PARTITION__; csv and json.
CREATE TABLE src (id BIGINT, name STRING, dt STRING, hm STRING) WITH (
  'connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE out_csv (id BIGINT, dt STRING, name STRING, hm STRING)
PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem', 'path' = 'out_csv', 'format' = 'csv');
CREATE TABLE out_json (id BIGINT, name STRING, dt STRING)
PARTITIONED BY (dt) WITH (
  'connector' = 'filesystem', 'path' = 'out_json/', 'format' = 'json');
-- Partition commit: every partition gets _SUCCESS by the end of input.
CREATE TABLE out_commit (id BIGINT, dt STRING, hm STRING)
PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem', 'path' = 'out_commit', 'format' = 'json',
  'sink.partition-commit.policy.kind' = 'success-file',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 min',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_commit SELECT id, dt, hm FROM src WHERE dt LIKE '2024-%';
  INSERT INTO out_csv SELECT id, dt, name, hm FROM src;
  INSERT INTO out_json SELECT id, name, dt FROM src;
END;
