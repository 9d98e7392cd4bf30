-- INTERVAL values as text, as Flink writes them (CAST(... AS STRING), the
-- print connector and the SQL client all use Flink's interval format):
-- a day-time interval is sign, days (unpadded, any count), hh:mm:ss.fff;
-- a year-month interval is sign, years, '-', months in two digits. Zero is
-- positive. Expected rows derived by hand:
-- - row 1: e - s = 1 day 2:03:04.005 -> +1 02:03:04.005; in months 0 -> +0-00;
-- - row 2: the negation -> -1 02:03:04.005; -0-00 would be wrong: the months
--   are 0 (TIMESTAMPDIFF(MONTH) of less than a month) -> +0-00;
-- - row 3: zero -> +0 00:00:00.000, +0-00;
-- - row 4: 2023-01-01 to 2024-04-15 23:59:59.999 is 470 days (365 + 105)
--   23:59:59.999 -> +470 23:59:59.999 (more than 99 days: no padding, no
--   cut), and 15 whole months -> +1-03;
-- - row 5: NULL stays NULL (printed null).
-- The interval column keeps its type through the subquery (x, y), and
-- CAST AS STRING gives the same text. Literals: INTERVAL '-14' MONTH is
-- -1-02, INTERVAL '100' DAY(3) is +100 00:00:00.000
-- (a leading field of 3 digits needs the precision written, as in Flink).
CREATE TABLE t (id INT, s TIMESTAMP(3), e TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT id, x, CAST(x AS STRING), y, CAST(y AS STRING) || '!', INTERVAL '-14' MONTH, INTERVAL '100' DAY(3)
FROM (SELECT id, (e - s) DAY TO SECOND AS x, (e - s) YEAR TO MONTH AS y FROM t);
