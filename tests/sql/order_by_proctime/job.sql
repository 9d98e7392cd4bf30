-- ORDER BY a processing-time attribute, ascending (Flink's
-- processing-time sort): a row's processing time is when it arrives, so
-- the rows come out as they arrive, the ORDER BY column needs not be
-- selected, and a WHERE applies before.
CREATE TABLE t (id INT, s STRING, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, s FROM t WHERE id > 1 ORDER BY pt;
