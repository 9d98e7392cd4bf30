-- ORDER BY a processing-time attribute and further columns would order
-- the rows of one millisecond of the clock: refused, naming the column.
CREATE TABLE t (id INT, s STRING, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, s FROM t ORDER BY pt, id;
