-- A bare name that two FROM items of one scope have is ambiguous there,
-- even when the enclosing query has it too (scopes nest: the inner one
-- decides): refused, naming the column.
CREATE TABLE o (oid INT, ok INT, k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE a (ak INT, x INT, k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE b (bk INT, k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT oid, j.x FROM o, LATERAL (SELECT a.x FROM a JOIN b ON a.ak = b.bk WHERE ak = ok AND k > 0) AS j;
