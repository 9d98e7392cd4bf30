-- A correlated subquery that is a set operation, one of whose inputs
-- aggregates without GROUP BY (one row even over no rows, which grouping
-- by the outer values would not give): refused, naming the form.
CREATE TABLE o (oid INT, ok INT, ot INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE l (lk INT, lv INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE r (rv INT, rt INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT oid FROM o WHERE EXISTS (SELECT lv FROM l WHERE lk = o.ok UNION ALL SELECT COUNT(*) FROM r WHERE rt = o.ot);
