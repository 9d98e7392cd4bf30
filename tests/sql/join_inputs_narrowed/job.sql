-- Joins whose conditions read columns that no item reads: the projection
-- below each join keeps them (a, v of l; b, v of r; c of m), and drops the
-- rest (lpad, rpad). Hand-derived:
--   q1: pairs on k with l.a < r.b: (x,p) a 10 < 15, v 5+1 > 1; (z,r) 30 < 50,
--       v 7+0 > 1; (y,p) 20 < 15 and (z,q) 30 < 5 fail.
--   q2: D = l with a2 = 2a: x 20, y 40, z 60 all above the b of their pairs
--       (x,p) (y,p) (z,q) (z,r); then m on r.k with m.c <> D.v: x (v 5) loses
--       to c 5; y (v 0) meets c 5; z (v 7) meets c 0 and 9 with q and r.
CREATE TABLE l (k INT, a INT, s STRING, v INT, lpad STRING) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (k INT, b INT, t STRING, v INT, rpad STRING) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
CREATE TABLE m (k INT, c INT) WITH ('connector' = 'filesystem', 'path' = 'm.csv', 'format' = 'csv');
CREATE TABLE q1 (s STRING, t STRING) WITH ('connector' = 'print', 'print-identifier' = 'q1');
CREATE TABLE q2 (s STRING, t STRING, c INT) WITH ('connector' = 'print', 'print-identifier' = 'q2');
EXECUTE STATEMENT SET BEGIN
INSERT INTO q1 SELECT l.s, r.t FROM l, r WHERE l.k = r.k AND l.a < r.b AND l.v + r.v > 1;
INSERT INTO q2 SELECT D.s2, r.t, m.c FROM (SELECT k, s AS s2, a * 2 AS a2, v FROM l) D
  JOIN r ON D.k = r.k AND D.a2 > r.b JOIN m ON r.k = m.k AND m.c <> D.v;
END;
