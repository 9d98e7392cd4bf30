-- SELECT DISTINCT * in a LATERAL derived table that reads the FROM items
-- before it: refused, saying so and what to write instead (it said '*'
-- in the SELECT list of a query with aggregates, which it has none of).
CREATE TABLE t (k INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE u (k INT, c STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
SELECT t.k, x.* FROM t, LATERAL (SELECT DISTINCT * FROM u WHERE u.k = t.k) x;
