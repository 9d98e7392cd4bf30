-- IS NOT DISTINCT FROM as a join key: NULL meets NULL there (where '='
-- matches nothing), as in Flink. l = (1,a) (NULL,b) (2,c) (NULL,d) (3,e),
-- r = (1,x) (NULL,y) (3,z) (4,w). Worked by hand:
--   inner, IS NOT DISTINCT FROM: 1-a-x, NULL-b-y, NULL-d-y, 3-e-z
--   inner, '=':                  1-a-x, 3-e-z
--   LEFT, IS NOT DISTINCT FROM (a changelog, folded by the check):
--     1-a-x, NULL-b-y, NULL-d-y, 3-e-z, and c padded (2 has no partner)
--   the comma form with the condition in WHERE joins as the first.
CREATE TABLE l (k INT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (k INT, w STRING) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
CREATE TABLE p_nd (k INT, v STRING, rk INT, w STRING) WITH ('connector' = 'print', 'print-identifier' = 'nd');
CREATE TABLE p_eq (k INT, v STRING, rk INT, w STRING) WITH ('connector' = 'print', 'print-identifier' = 'eq');
CREATE TABLE p_comma (k INT, v STRING, rk INT, w STRING) WITH ('connector' = 'print', 'print-identifier' = 'comma');
CREATE TABLE out_left (k INT, v STRING, rk INT, w STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO p_nd SELECT l.k, l.v, r.k, r.w FROM l JOIN r ON l.k IS NOT DISTINCT FROM r.k;
  INSERT INTO p_eq SELECT l.k, l.v, r.k, r.w FROM l JOIN r ON l.k = r.k;
  INSERT INTO p_comma SELECT l.k, l.v, r.k, r.w FROM l, r WHERE r.k IS NOT DISTINCT FROM l.k;
  INSERT INTO out_left SELECT l.k, l.v, r.k, r.w FROM l LEFT JOIN r ON l.k IS NOT DISTINCT FROM r.k;
END;
