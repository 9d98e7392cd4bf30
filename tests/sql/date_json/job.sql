-- JSON_OBJECT and JSON_ARRAY write DATE and TIME values as JSON strings,
-- "yyyy-MM-dd" and "HH:mm:ss" (the fraction of a second dropped, as Flink's
-- JSON functions do); NULL follows the ON NULL rule.
CREATE TABLE t (id INT, d DATE, tm TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
SELECT id, JSON_OBJECT('d' VALUE d, 't' VALUE tm) AS o,
       JSON_ARRAY(d, tm) AS a,
       JSON_OBJECT(KEY 'k' VALUE JSON_ARRAY(DATE '2020-02-29', TIME '08:00:01') ABSENT ON NULL) AS lit
FROM t;
