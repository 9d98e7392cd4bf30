-- A DATE has no time of day: EXTRACT(HOUR FROM date) is refused at plan time, as in Flink.
CREATE TABLE t (id INT, d DATE) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, EXTRACT(HOUR FROM d) FROM t;
