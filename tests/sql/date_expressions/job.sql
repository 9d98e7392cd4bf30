-- DATE and TIME through VALUES, COALESCE, CASE, IN, GREATEST (NULL if any
-- argument is NULL, as in Flink), an equi-join on a DATE key and a Top-N
-- ordered by a DATE (DESC puts NULL last, Flink's default).
CREATE TABLE t (id INT, d DATE, tm TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
SELECT * FROM (VALUES (DATE '2020-01-01', TIME '10:00:00'), (DATE '2021-01-01', CAST(NULL AS TIME))) AS v(a, b);
SELECT COALESCE(d, DATE '1999-01-01'), CASE WHEN id > 1 THEN d ELSE DATE '2000-01-01' END,
       d IN (DATE '2020-01-31', DATE '2020-02-29'), GREATEST(d, DATE '2020-02-01') FROM t;
SELECT a.id, b.id, a.d FROM t a JOIN t b ON a.d = b.d;
SELECT * FROM (SELECT id, d, ROW_NUMBER() OVER (PARTITION BY 1 ORDER BY d DESC) AS rn FROM t) WHERE rn <= 2;
