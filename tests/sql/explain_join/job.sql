-- EXPLAIN of joins: key equalities, the residual condition, a filter
-- pushed below the join, a key cast to a common type, and the changelog
-- mode of an outer join.
CREATE TABLE a (k INT, x STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k BIGINT, y STRING, m BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE o (x STRING, y STRING) WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO o SELECT a.x, b.y FROM a JOIN b ON a.k = b.k AND a.n > b.m WHERE b.y <> 'skip';
EXPLAIN INSERT INTO o SELECT a.x, b.y FROM a LEFT JOIN b ON a.k = b.k AND a.x = b.y AND b.m > 0;
