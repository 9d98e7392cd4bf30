-- DATE and TIME(3) read from JSON and written to JSON and CSV as Flink's
-- formats write them: DATE "yyyy-MM-dd", TIME "HH:mm:ss" with the fraction's
-- digits and no trailing zeros; CAST(timestamp AS TIME) is a TIME(0) (the
-- fraction cut off), CAST(timestamp AS DATE) its date; DATE + INTERVAL MONTH
-- clamps to the month's end; TIME + INTERVAL wraps around midnight.
CREATE TABLE t (id INT, d DATE, tm TIME(3), ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE out_json (id INT, d DATE, tm TIME(3), t0 TIME, dd DATE, d1 DATE, t12 TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'out_json', 'format' = 'json');
CREATE TABLE out_csv (id INT, d DATE, tm TIME(3), ds STRING, tms STRING)
WITH ('connector' = 'filesystem', 'path' = 'out_csv', 'format' = 'csv');
INSERT INTO out_json
SELECT id, d, tm, CAST(ts AS TIME), CAST(ts AS DATE), d + INTERVAL '1' MONTH, tm + INTERVAL '12' HOUR FROM t;
INSERT INTO out_csv SELECT id, d, tm, CAST(d AS STRING), CAST(tm AS STRING) FROM t;
