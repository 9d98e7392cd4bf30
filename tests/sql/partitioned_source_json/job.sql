-- A partitioned JSON table with a DATE partition column, a custom
-- 'partition.default-name' ('none' is NULL), and a file in a subfolder of
-- a partition (read, as Flink reads a partition's folder recursively).
-- The WHERE's condition on d prunes by the folder values: d IS NULL keeps
-- only d=none, d >= DATE '2024-03-01' only d=2024-03-01.
CREATE TABLE src (id BIGINT, s STRING, d DATE)
PARTITIONED BY (d)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'json',
      'partition.default-name' = 'none');
CREATE TABLE all_rows (id BIGINT, s STRING, d DATE, next_day DATE)
WITH ('connector' = 'print', 'print-identifier' = 'all');
CREATE TABLE nulls (id BIGINT, d DATE) WITH ('connector' = 'print', 'print-identifier' = 'nulls');
CREATE TABLE march (id BIGINT, s STRING) WITH ('connector' = 'print', 'print-identifier' = 'march');
EXECUTE STATEMENT SET BEGIN
INSERT INTO all_rows SELECT id, s, d, d + INTERVAL '1' DAY FROM src;
INSERT INTO nulls SELECT id, d FROM src WHERE d IS NULL;
INSERT INTO march SELECT id, s FROM src WHERE d >= DATE '2024-03-01';
END;
