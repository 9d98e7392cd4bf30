-- INTERVAL values through the conditional forms, IN lists and the
-- aggregates that take them, as Flink: an operand that already is an
-- interval of the common kind is not cast, and the result keeps the kind
-- (so it prints as an interval). t.json (e - s):
--   id 1: x = +1 02:03:04.005, y = +0-00
--   id 2: x = -1 02:03:04.005, y = +0-00 (less than a month)
--   id 3: x = +0 00:00:00.000, y = +0-00
--   id 4: x = +470 23:59:59.999, y = +1-03
--   id 5: x, y NULL
-- Expected rows derived by hand:
-- - CASE id > 2 THEN x: NULL for 1, 2 and 5 (x NULL), x for 3 and 4;
-- - COALESCE(x, 1 day): x, and +1 00:00:00.000 for 5;
-- - IF(id = 1, x, -2 hours): x for 1, -0 02:00:00.000 for the rest;
-- - NULLIF(x, 0 seconds): NULL for 3 (x = 0) and 5, x otherwise;
-- - GREATEST / LEAST with 1 day: NULL for 5; row 2 (negative) gives 1 day
--   and x, row 3 (zero) 1 day and zero, row 4 x and 1 day, row 1 x and
--   1 day;
-- - x IN (0 seconds, 470 days 23:59:59.999): true for 3 and 4, NULL for 5;
-- - CASE id = 4 THEN y ELSE 2 months: +1-03 for 4, +0-02 otherwise.
CREATE TABLE t (id INT, s TIMESTAMP(3), e TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE VIEW v AS SELECT id, (e - s) DAY TO SECOND AS x, (e - s) YEAR TO MONTH AS y FROM t;

SELECT id, CASE WHEN id > 2 THEN x ELSE NULL END, COALESCE(x, INTERVAL '1' DAY),
  IF(id = 1, x, INTERVAL '-2' HOUR), NULLIF(x, INTERVAL '0' SECOND),
  GREATEST(x, INTERVAL '1' DAY), LEAST(x, INTERVAL '1' DAY),
  x IN (INTERVAL '0' SECOND, INTERVAL '470 23:59:59.999' DAY(3) TO SECOND),
  CASE WHEN id = 4 THEN y ELSE INTERVAL '2' MONTH END
FROM v;

-- MIN, MAX, COUNT, FIRST_VALUE and LAST_VALUE keep the kind; per key
-- (id > 2) in file order: false gets rows 1 then 2 (MIN falls to row 2's
-- negative x), true gets rows 3 then 4 (MAX rises to row 4's x, LAST_VALUE
-- of y to +1-03). Row 5 is filtered out (x IS NULL).
SELECT id > 2, MIN(x), MAX(x), COUNT(x), FIRST_VALUE(x), LAST_VALUE(y)
FROM v WHERE x IS NOT NULL GROUP BY id > 2;

-- CREATE TABLE ... AS SELECT keeps an INTERVAL column's type (a regression
-- made it BIGINT and then refused the insert), DESCRIBE and SHOW CREATE
-- TABLE print it as INTERVAL DAY TO SECOND(3) / INTERVAL YEAR TO MONTH,
-- and CREATE TABLE can declare those types. Expected rows by hand (e - s
-- in t.json): id 1 +1 02:03:04.005 / +0-00, id 2 -1 02:03:04.005 / +0-00,
-- id 3 zero, id 4 +470 23:59:59.999 / +1-03, id 5 NULL.
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
