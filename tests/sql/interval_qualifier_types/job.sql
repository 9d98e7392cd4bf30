-- Every interval qualifier of SQL as a column type, in literals, arithmetic,
-- comparisons and GROUP BY. As Flink, each year-month qualifier (YEAR(p),
-- YEAR(p) TO MONTH, MONTH) is one type held in months and each day-time
-- qualifier (DAY(p) [TO HOUR|MINUTE|SECOND(f)], HOUR [TO MINUTE|SECOND(f)],
-- MINUTE [TO SECOND(f)], SECOND(p[, f])) one type held in milliseconds;
-- leading precisions 1 to 3 for day-time (Flink refuses more, see
-- err_interval_day_precision) and 4 for year-month, and fractional 1, 2,
-- 4 are taken. The text of a value does not depend on the qualifier
-- (Flink's interval to string: sign, days, hh:mm:ss.fff; sign, years, '-',
-- two-digit months).
-- Expected rows derived by hand:
--   '7' YEAR = 84 months -> +7-00; '1-11' YEAR TO MONTH -> +1-11;
--   '-1205-06' YEAR(4) TO MONTH -> -1205-06; '25' MONTH -> +2-01;
--   '3' DAY(1) -> +3 00:00:00.000; '2 10' DAY TO HOUR -> +2 10:00:00.000;
--   '123 05:06' DAY(3) TO MINUTE -> +123 05:06:00.000;
--   '-1 02:03:04.5' DAY TO SECOND -> -1 02:03:04.500;
--   '30' HOUR -> +1 06:00:00.000; '10:20' HOUR TO MINUTE -> +0 10:20:00.000;
--   '23:59:59.99' HOUR TO SECOND(2) -> +0 23:59:59.990;
--   '150' MINUTE(3) = 2 h 30 min -> +0 02:30:00.000;
--   '90:30.1' MINUTE TO SECOND -> +0 01:30:30.100; '75.25' SECOND -> +0 00:01:15.250.
CREATE TABLE t (id INT, s TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE d (id INT, a INTERVAL YEAR(1), b INTERVAL YEAR(2) TO MONTH, c INTERVAL YEAR(4) TO MONTH,
    m INTERVAL MONTH, dd INTERVAL DAY(1), dh INTERVAL DAY(2) TO HOUR, dm INTERVAL DAY(3) TO MINUTE,
    ds INTERVAL DAY TO SECOND(4), h INTERVAL HOUR, hm INTERVAL HOUR TO MINUTE,
    hs INTERVAL HOUR TO SECOND(2), mi INTERVAL MINUTE(3), ms INTERVAL MINUTE TO SECOND(1),
    sec INTERVAL SECOND(2, 4) NOT NULL)
  WITH ('connector' = 'print', 'print-identifier' = 'd');
-- the columns are of the two interval types, shown as Flink shows them
-- (its planner keeps INTERVAL SECOND(3) and INTERVAL MONTH)
DESCRIBE d;
INSERT INTO d SELECT id, INTERVAL '7' YEAR, INTERVAL '1-11' YEAR TO MONTH, INTERVAL '-1205-06' YEAR(4) TO MONTH,
    INTERVAL '25' MONTH, INTERVAL '3' DAY(1), INTERVAL '2 10' DAY TO HOUR, INTERVAL '123 05:06' DAY(3) TO MINUTE,
    INTERVAL '-1 02:03:04.5' DAY TO SECOND, INTERVAL '30' HOUR, INTERVAL '10:20' HOUR TO MINUTE,
    INTERVAL '23:59:59.99' HOUR TO SECOND(2), INTERVAL '150' MINUTE(3), INTERVAL '90:30.1' MINUTE TO SECOND,
    INTERVAL '75.25' SECOND
  FROM t WHERE id = 1;

-- arithmetic with TIMESTAMP and DATE, by hand:
--   id 1, s = 2020-01-31 10:00: + 2 days 10 h -> 2020-02-02T20:00;
--     - 10:20 -> 2020-01-30T23:40; + 1 month -> 2020-02-29T10:00 (the
--     day is clamped to the month's last); + 1-11 (23 months) ->
--     2021-12-31T10:00; the date + 3 days -> 2020-02-03;
--   id 2, s = 2020-02-29 23:30:00.250: -> 2020-03-03T09:30:00.250,
--     2020-02-29T13:10:00.250, 2020-03-29T23:30:00.250,
--     2022-01-29T23:30:00.250, 2020-03-03.
-- Comparisons across qualifiers compare the values: 90 min 30 s > 1 h 30
-- min (true), 1-00 = 12 months (true), 24 hours = 1 day (true), and CAST
-- to a type of another qualifier of the same kind keeps the value.
SELECT id, s + INTERVAL '2 10' DAY TO HOUR, s - INTERVAL '10:20' HOUR TO MINUTE, s + INTERVAL '1' MONTH,
  s + INTERVAL '1-11' YEAR TO MONTH, CAST(s AS DATE) + INTERVAL '3' DAY,
  INTERVAL '90:30' MINUTE TO SECOND > INTERVAL '1:30' HOUR TO MINUTE,
  INTERVAL '1-00' YEAR TO MONTH = INTERVAL '12' MONTH, INTERVAL '24' HOUR = INTERVAL '1' DAY,
  CAST(INTERVAL '2 10:20' DAY TO MINUTE AS STRING), CAST(INTERVAL '90:30.1' MINUTE TO SECOND AS INTERVAL HOUR)
FROM t;

-- GROUP BY an interval: 1 day written as DAY TO HOUR (id 1) and as HOUR
-- (id 2) is one key, so the second row updates the first's count.
SELECT iv, COUNT(*) FROM (
  SELECT CASE WHEN id = 1 THEN INTERVAL '1 00' DAY TO HOUR ELSE INTERVAL '24' HOUR END AS iv FROM t)
GROUP BY iv;
