-- Views, subqueries and UNION ALL.
CREATE TABLE a (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE VIEW big_a AS SELECT k, v * 10 AS v FROM a WHERE v > 1;
SELECT k, v FROM (SELECT * FROM big_a UNION ALL SELECT k, v FROM b) AS u WHERE k <> 'skip';
