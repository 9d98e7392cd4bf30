-- CONVERT_TZ(string, from, to) reads 'yyyy-MM-dd HH:mm:ss' in one zone and
-- writes it in another (Flink's example: 1970-01-01 00:00:00 UTC is
-- 1969-12-31 16:00:00 in Los Angeles). Unparsable text gives NULL.
CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, CONVERT_TZ(s, 'UTC', 'America/Los_Angeles') AS la, CONVERT_TZ(s, 'Asia/Shanghai', '+05:30') AS ist
FROM t;
