-- IN / NOT IN subqueries (semi and anti joins) and an equi-join between
-- exact numbers of different types compare exactly. The key of a BIGINT
-- and a DECIMAL(20, 1) is a DECIMAL(20, 1), not a DOUBLE (as DOUBLEs
-- 9007199254740993 meets 9007199254740992.0); a DECIMAL(38, 0) and a
-- DECIMAL(12, 4) meet as DECIMAL(38, 4), where a 38-digit key is NULL and
-- meets nothing, as it equals no DECIMAL(12, 4). Worked by hand
-- (l: id, a, c; r: b, d; ln / rn: the same without their NULL row):
--   r: (2.0000, 9007199254740992.0) (1.5000, 5.0) (NULL, NULL)
--   out_in_a: a IN r.b = {2, 1.5, NULL}: only 2 is TRUE: 2.
--   out_not_in_a: ln.a NOT IN rn.b = {2, 1.5} (keyed anti join): 1, 3, 4.
--   out_in_c: c IN r.d: 5 and 9007199254740992: 3, 4 (not 1).
--   out_not_in_c: ln.c NOT IN rn.d (keyed): 1, 2.
--   out_not_in_c_null: l.c NOT IN rn.d (nullable c: decided by
--     c = d OR c IS NULL OR d IS NULL): 1, 2 (5's NULL c is UNKNOWN).
--   out_join: l JOIN r ON c = d: (3, 5.0), (4, 9007199254740992.0).
--   out_nd: l JOIN r ON a IS NOT DISTINCT FROM b: 2 (2 and 2.0000) and 5
--     (NULL and NULL); not 1, whose 38-digit a has no room in the
--     DECIMAL(38, 4) key (that pair is compared in the join's condition,
--     not as a key, lest its NULL key meet b's NULL).
--   out_val: IN subqueries as values (joined to the rows, counted):
--     c IN rn.d, a IN rn.b, id = 1 OR c NOT IN rn.d per row:
--     1: F F T   2: F T T   3: T F F   4: T F F   5: NULL NULL NULL.
CREATE TABLE l (id INT, a DECIMAL(38, 0), c BIGINT) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE ln (id INT NOT NULL, a DECIMAL(38, 0) NOT NULL, c BIGINT NOT NULL) WITH (
  'connector' = 'filesystem', 'path' = 'ln.csv', 'format' = 'csv');
CREATE TABLE r (b DECIMAL(12, 4), d DECIMAL(20, 1)) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
CREATE TABLE rn (b DECIMAL(12, 4) NOT NULL, d DECIMAL(20, 1) NOT NULL) WITH (
  'connector' = 'filesystem', 'path' = 'rn.csv', 'format' = 'csv');
CREATE TABLE out_in_a (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_in_a', 'format' = 'debezium-json');
CREATE TABLE out_not_in_a (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in_a', 'format' = 'debezium-json');
CREATE TABLE out_in_c (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_in_c', 'format' = 'debezium-json');
CREATE TABLE out_not_in_c (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in_c', 'format' = 'debezium-json');
CREATE TABLE out_not_in_c_null (id INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_not_in_c_null', 'format' = 'debezium-json');
CREATE TABLE out_nd (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_nd', 'format' = 'debezium-json');
CREATE TABLE out_val (id INT, c_in BOOLEAN, a_in BOOLEAN, c_not_in BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_val', 'format' = 'debezium-json');
CREATE TABLE out_join (id INT, d STRING) WITH ('connector' = 'filesystem', 'path' = 'out_join', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_in_a SELECT id FROM l WHERE a IN (SELECT b FROM r);
  INSERT INTO out_not_in_a SELECT id FROM ln WHERE a NOT IN (SELECT b FROM rn);
  INSERT INTO out_in_c SELECT id FROM l WHERE c IN (SELECT d FROM r);
  INSERT INTO out_not_in_c SELECT id FROM ln WHERE c NOT IN (SELECT d FROM rn);
  INSERT INTO out_not_in_c_null SELECT id FROM l WHERE c NOT IN (SELECT d FROM rn);
  INSERT INTO out_join SELECT id, CAST(d AS STRING) FROM l JOIN r ON l.c = r.d;
  INSERT INTO out_nd SELECT id FROM l JOIN r ON l.a IS NOT DISTINCT FROM r.b;
  INSERT INTO out_val SELECT id, c IN (SELECT d FROM rn), a IN (SELECT b FROM rn), id = 1 OR c NOT IN (SELECT d FROM rn)
    FROM l;
END;
