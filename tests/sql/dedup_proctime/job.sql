-- Deduplication by a processing-time attribute goes by arrival, as Flink
-- (which reads the clock at the operator): keeping the first row (ASC) is
-- append-only - an append-only sink takes it - and keeping the last (DESC)
-- replaces the kept row with each newer one (-U/+U).
CREATE TABLE t (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE firsts (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'firsts', 'format' = 'csv');
INSERT INTO firsts SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt) AS rn FROM t) WHERE rn = 1;
SELECT 'last', k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM t) WHERE rn = 1;
