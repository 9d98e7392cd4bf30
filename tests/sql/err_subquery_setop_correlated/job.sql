-- A subquery that is a set operation reads the outer query's columns in
-- one of its branches: refused, naming the set operation (not a missing
-- table or alias alone).
CREATE TABLE o (oid INT, ok INT, ot INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE l (lk INT, lv INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE r (rv INT, rt INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT oid FROM o WHERE EXISTS (SELECT lv FROM l WHERE lk = o.ok UNION ALL SELECT rv FROM r WHERE rt = 1);
