-- Two INSERTs from one source into file sinks, as one job.
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE out_json (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'out_json', 'format' = 'json');
CREATE TABLE out_csv (name STRING, twice BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_csv', 'format' = 'csv');
CREATE TABLE counts (name STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_cdc', 'format' = 'debezium-json');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_json SELECT id, name FROM src WHERE id > 1;
  INSERT INTO out_csv SELECT name, id * 2 FROM src;
  INSERT INTO counts SELECT name, COUNT(*) FROM src GROUP BY name;
END;
