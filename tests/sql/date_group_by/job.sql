-- GROUP BY a DATE column, with MIN/MAX of a TIME: an updating result whose
-- key and values are DATEs and TIMEs (state, exchange and the changelog).
CREATE TABLE t (id INT, d DATE, tm TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
SELECT d, COUNT(*) AS n, MIN(tm) AS first_tm, MAX(tm) AS last_tm FROM t GROUP BY d;
