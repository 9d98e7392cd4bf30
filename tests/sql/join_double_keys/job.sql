-- DOUBLE join keys meet as '=' compares them: -0.0 meets 0.0 (and a BIGINT
-- 0), NaN meets nothing (not even NaN, not even under IS NOT DISTINCT
-- FROM), NULL meets NULL only under IS NOT DISTINCT FROM. (weir once met
-- keys by their bytes: -0.0 missed 0.0 and NaN met NaN.)
-- l = r = 0.0, -0.0, NaN, NULL, 7.5 (ids 1-5 and 11-15); b = BIGINT 0, 7.
-- Worked by hand:
--   eq:  (1,11) (1,12) (2,11) (2,12) (5,15)
--   nd:  eq's and (4,14)
--   big: (1,21) (2,21)
--   semi (IN): 1, 2, 5
--   out_left (a changelog, folded by the check): eq's, 3 and 4 padded
--   out_anti (NOT EXISTS, a changelog): 3, 4
CREATE TABLE l (id INT, k DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (id INT, k DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
CREATE TABLE b (id INT, k BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE eq (a INT, b INT) WITH ('connector' = 'print', 'print-identifier' = 'eq');
CREATE TABLE nd (a INT, b INT) WITH ('connector' = 'print', 'print-identifier' = 'nd');
CREATE TABLE big (a INT, b INT) WITH ('connector' = 'print', 'print-identifier' = 'big');
CREATE TABLE semi (a INT) WITH ('connector' = 'print', 'print-identifier' = 'semi');
CREATE TABLE out_left (a INT, b INT) WITH ('connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE out_anti (a INT) WITH ('connector' = 'filesystem', 'path' = 'out_anti', 'format' = 'debezium-json');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO eq SELECT l.id, r.id FROM l JOIN r ON l.k = r.k;
  INSERT INTO nd SELECT l.id, r.id FROM l JOIN r ON l.k IS NOT DISTINCT FROM r.k;
  INSERT INTO big SELECT l.id, b.id FROM l JOIN b ON b.k = l.k;
  INSERT INTO semi SELECT id FROM l WHERE k IN (SELECT k FROM r);
  INSERT INTO out_left SELECT l.id, r.id FROM l LEFT JOIN r ON l.k = r.k;
  INSERT INTO out_anti SELECT id FROM l WHERE NOT EXISTS (SELECT * FROM r WHERE r.k = l.k);
END;
