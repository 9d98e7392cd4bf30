-- A set operation widens numeric columns only: an INT beside a STRING is
-- refused with the column and both types named.
CREATE TABLE i (x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'i.csv', 'format' = 'csv');
SELECT x FROM i UNION ALL SELECT s FROM i;
