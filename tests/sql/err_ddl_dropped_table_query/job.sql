-- a query of a dropped table
CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
DROP TABLE t;
SELECT a FROM t;
