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
EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_csv SELECT id, dt, name, hm FROM src;
  INSERT INTO out_json SELECT id, name, dt FROM src;
END;
