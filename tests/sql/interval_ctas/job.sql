-- CREATE TABLE ... AS SELECT keeps an INTERVAL column's type (a regression
-- made it BIGINT and then refused the insert), DESCRIBE and SHOW CREATE
-- TABLE print it as INTERVAL DAY TO SECOND(3) / INTERVAL YEAR TO MONTH,
-- and CREATE TABLE can declare those types. Expected rows by hand (e - s
-- in t.json): id 1 +1 02:03:04.005 / +0-00, id 2 -1 02:03:04.005 / +0-00,
-- id 3 zero, id 4 +470 23:59:59.999 / +1-03, id 5 NULL.
CREATE TABLE t (id INT, s TIMESTAMP(3), e TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE o WITH ('connector' = 'print', 'print-identifier' = 'o') AS
  SELECT id, (e - s) DAY TO SECOND AS x, (e - s) YEAR TO MONTH AS y FROM t;
DESCRIBE o;
SHOW CREATE TABLE o;
-- a declared interval column takes an interval of its kind (and NULL)
CREATE TABLE d (id INT, x INTERVAL DAY TO SECOND(3), y INTERVAL YEAR TO MONTH NOT NULL)
  WITH ('connector' = 'print', 'print-identifier' = 'd');
INSERT INTO d SELECT id, CASE WHEN id = 4 THEN NULL ELSE (e - s) DAY TO SECOND END, INTERVAL '-3' YEAR
  FROM t WHERE id IN (1, 4);
-- the CSV format writes an interval column as its number (milliseconds of
-- a day-time interval, as Flink): 1 day 02:03:04.005 = 93784005 ms,
-- 470 days 23:59:59.999 = 40694399999 ms; NULL an empty field (check)
CREATE TABLE c WITH ('connector' = 'filesystem', 'path' = 'outc', 'format' = 'csv') AS
  SELECT id, (e - s) DAY TO SECOND AS x FROM t;
