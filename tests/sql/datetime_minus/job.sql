-- (a - b) unit [TO unit2]: the difference of two TIMESTAMPs, DATEs or TIMEs
-- as an INTERVAL (Calcite's datetime minus, which Flink runs). Expected
-- rows derived by hand:
-- - day-time qualifiers give the exact milliseconds: row 1 is 28 days
--   23:00:00.250 (EXTRACT DAY 28, HOUR 23), row 2 -494 days -12 hours, and
--   s + (e - s) DAY TO SECOND is e again;
-- - year-month qualifiers give whole months as TIMESTAMPDIFF(MONTH, s, e):
--   2020-01-31 10:00 to 2020-02-29 09:00:00.250 reaches Feb 29 (Jan 31 + 1
--   month) only at an earlier time of day, so 0 months; 2021-05-10 to
--   2020-01-01 12:00 is -16 months (YEAR -1, MONTH -4);
-- - DATEs: 2020-03-01 - 2020-01-31 is 30 days and 1 month; TIMEs: 11:30 -
--   10:00 is 1:30, 08:15 - 12:00 is -3:45; NULL in, NULL out.
CREATE TABLE t (id INT, s TIMESTAMP(3), e TIMESTAMP(3), d1 DATE, d2 DATE, t1 TIME, t2 TIME)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT id, (e - s) SECOND > INTERVAL '1' DAY, EXTRACT(DAY FROM (e - s) DAY TO SECOND),
       EXTRACT(HOUR FROM (e - s) DAY TO SECOND), EXTRACT(YEAR FROM (e - s) YEAR TO MONTH),
       EXTRACT(MONTH FROM (e - s) MONTH), s + (e - s) DAY TO SECOND,
       (d1 - d2) DAY = INTERVAL '30' DAY, d2 + (d1 - d2) DAY, EXTRACT(MONTH FROM (d1 - d2) MONTH),
       EXTRACT(MINUTE FROM (t2 - t1) HOUR TO MINUTE), EXTRACT(HOUR FROM (t2 - t1) HOUR TO MINUTE)
FROM t;
