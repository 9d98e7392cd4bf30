-- x IN (v, ...) over a set of DOUBLE literals is x = v OR ...: a NaN x is in
-- no set (NaN = v is never TRUE), -0.0 is in a set holding 0.0, and a NaN in
-- the set is met by nothing and hides no other value. (weir once searched
-- its sorted set with an order under which NaN equals every number: NaN IN
-- (1.5, 2.5) was TRUE, and 0.0 IN (NaN, 1.5) too.) l = 0.0, -0.0, NaN, 1.5,
-- NULL. Worked by hand:
--   a  x IN (1.5, 2.5):         F F F T NULL
--   b  x IN (0.0, 2.5):         T T F F NULL
--   c  x IN (NaN, 1.5):         F F F T NULL
--   d  x NOT IN (1.5, 2.5):     T T T F NULL
CREATE TABLE l (id INT, x DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE p (id INT, a BOOLEAN, b BOOLEAN, c BOOLEAN, d BOOLEAN) WITH ('connector' = 'print', 'print-identifier' = 'p');
INSERT INTO p SELECT id, x IN (1.5, 2.5), x IN (0.0, 2.5), x IN (CAST('NaN' AS DOUBLE), 1.5), x NOT IN (1.5, 2.5) FROM l;
