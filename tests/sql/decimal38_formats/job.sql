-- DECIMAL(38, 10) through CSV in and JSON and CSV out exactly: values past
-- 18 digits, HALF_UP to the scale on input, an exponent, 38 digits in all.
-- The expected files come from Python's decimal module (plain notation, all
-- scale digits).
CREATE TABLE t (id BIGINT, v DECIMAL(38, 10))
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE out_json (id BIGINT, v DECIMAL(38, 10), w DECIMAL(38, 10))
WITH ('connector' = 'filesystem', 'path' = 'out_json', 'format' = 'json');
CREATE TABLE out_csv (id BIGINT, v DECIMAL(38, 10), s STRING)
WITH ('connector' = 'filesystem', 'path' = 'out_csv', 'format' = 'csv');
INSERT INTO out_json SELECT id, v, -v FROM t;
INSERT INTO out_csv SELECT id, v, CAST(v AS STRING) FROM t;
