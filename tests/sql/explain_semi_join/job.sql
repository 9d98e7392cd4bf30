-- EXPLAIN of IN / EXISTS subqueries: semi and anti joins. The IN pair is
-- the key (a.k INT meets b.k BIGINT as BIGINT, computed below the join);
-- a condition on the subquery's table alone filters it before the join;
-- one on the outer row alone stays in the anti join's condition (a row it
-- rejects has no match, so NOT EXISTS keeps it); NOT IN over nullable
-- columns has no key (x = y OR x IS NULL OR y IS NULL decides, in one
-- subtask).
CREATE TABLE a (k INT, x STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k BIGINT, y STRING, m BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE o (x STRING) WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO o SELECT x FROM a WHERE k IN (SELECT k FROM b WHERE m > 0);
EXPLAIN INSERT INTO o SELECT x FROM a WHERE NOT EXISTS (SELECT * FROM b WHERE b.k = a.k AND a.n > 5 AND b.y <> x);
EXPLAIN INSERT INTO o SELECT x FROM a WHERE n NOT IN (SELECT m FROM b);
