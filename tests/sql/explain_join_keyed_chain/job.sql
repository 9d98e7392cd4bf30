-- EXPLAIN of a keyed operator after a join: a keyed edge on the join key of
-- a side never padded with NULLs is chained (the join's rows are already on
-- their key's subtask); the right side of a LEFT join, a computed (cast)
-- key and the key's columns in another order keep the exchange.
CREATE TABLE a (k INT, s INT, x STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k INT, s INT, y STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE w (k BIGINT, y STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE o (k INT, y STRING, v BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE g (k INT, n BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE g2 (s INT, k INT, n BIGINT) WITH ('connector' = 'blackhole');
-- Top-N on the left key of an inner join: chained
EXPLAIN INSERT INTO o SELECT k, y, v FROM (
  SELECT a.k, b.y, b.v, ROW_NUMBER() OVER (PARTITION BY a.k ORDER BY b.v DESC) AS rn
  FROM a JOIN b ON a.k = b.k) WHERE rn <= 1;
-- GROUP BY the left key of a LEFT join: chained
EXPLAIN INSERT INTO g SELECT a.k, COUNT(b.v) FROM a LEFT JOIN b ON a.k = b.k GROUP BY a.k;
-- GROUP BY the right key of a LEFT join (padded with NULLs): an exchange
EXPLAIN INSERT INTO g SELECT b.k, COUNT(*) FROM a LEFT JOIN b ON a.k = b.k GROUP BY b.k;
-- an INT joined with a BIGINT: the left key is cast, the exchange stays
EXPLAIN INSERT INTO g SELECT CAST(a.k AS INT), COUNT(*) FROM a JOIN w ON a.k = w.k GROUP BY a.k;
-- the join key (k, s) grouped as (s, k): another key tuple, an exchange
EXPLAIN INSERT INTO g2 SELECT a.s, a.k, COUNT(*) FROM a JOIN b ON a.k = b.k AND a.s = b.s GROUP BY a.s, a.k;
-- grouped as (k, s), the join key's order: chained
EXPLAIN INSERT INTO g2 SELECT a.k, a.s, COUNT(*) FROM a JOIN b ON a.k = b.k AND a.s = b.s GROUP BY a.k, a.s;
-- GROUP BY the right key of a RIGHT join: chained
EXPLAIN INSERT INTO g SELECT b.k, COUNT(a.x) FROM a RIGHT JOIN b ON a.k = b.k GROUP BY b.k;
