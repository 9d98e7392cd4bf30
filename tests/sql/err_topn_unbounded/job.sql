CREATE TABLE t (k STRING, v INT, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn > 2;
