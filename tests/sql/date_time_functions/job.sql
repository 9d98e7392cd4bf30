-- Calendar functions on DATE and TIME columns, derived by hand from Flink's
-- definitions: WEEK is the ISO week (2019-12-31 is in week 1 of 2020),
-- DAYOFWEEK counts from Sunday = 1, EXTRACT(MILLISECOND) includes the
-- seconds, FLOOR/CEIL(d TO MONTH) stay DATEs, TIMESTAMPADD(MONTH) clamps to
-- the month's end, DATE - INTERVAL '25' HOUR moves by whole days (one), and
-- NULL in gives NULL out.
CREATE TABLE t (id INT, d DATE, tm TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
SELECT id, YEAR(d), QUARTER(d), WEEK(d), DAYOFWEEK(d), DAYOFYEAR(d),
       HOUR(tm), MINUTE(tm), SECOND(tm), EXTRACT(MILLISECOND FROM tm),
       FLOOR(d TO MONTH), CEIL(d TO MONTH), TIMESTAMPADD(MONTH, 1, d),
       TIMESTAMPDIFF(DAY, d, DATE '2020-03-01'), DATE_FORMAT(d, 'yyyy/MM/dd'),
       d - INTERVAL '25' HOUR, d > DATE '2020-01-31', tm < TIME '09:00:00'
FROM t;
