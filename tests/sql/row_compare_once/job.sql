-- A row comparison computes each operand once, though its expansion
-- (a < c OR (a = c AND b < d)) names the operand twice: with x =
-- FLOOR(RAND() * 2), 0 or 1,
--   (x, 0) <= (1, 0)            is x < 1 OR (x = 1 AND 0 <= 0), TRUE for
--                                both values of one x;
--   (x, 0) IN ((0, 0), (1, 0))   is (x = 0 AND 0 = 0) OR (x = 1 AND 0 = 0),
--                                TRUE as well.
-- Computed twice (two random numbers) each would be FALSE for about one
-- row in four. So no row is FALSE: both counts are 0 (derived by hand).
CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000');
CREATE TABLE o (le_false BIGINT, in_false BIGINT) WITH ('connector' = 'print');
INSERT INTO o
SELECT COUNT(*) FILTER (WHERE NOT c1), COUNT(*) FILTER (WHERE NOT c2)
FROM (SELECT (FLOOR(RAND() * 2), 0) <= (1, 0) AS c1, (FLOOR(RAND() * 2), 0) IN ((0, 0), (1, 0)) AS c2 FROM t);
