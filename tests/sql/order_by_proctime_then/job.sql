-- ORDER BY a processing-time attribute and further columns orders the rows
-- of one millisecond of the clock by those columns (Flink's
-- processing-time sort); which rows share a millisecond is the clock's
-- business, so this checks the rows only (the order is checked on a
-- manual clock in test_sql_proctime). A WHERE applies before; the
-- ORDER BY columns need not be selected.
CREATE TABLE t (id INT, s STRING, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT s FROM t WHERE id <> 2 ORDER BY pt, id DESC;
