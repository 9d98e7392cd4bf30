-- RANK() in a continuous (unwindowed) Top-N is refused, naming it: only a
-- window Top-N takes RANK() and DENSE_RANK().
CREATE TABLE t (item STRING, price INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT * FROM (SELECT *, RANK() OVER (PARTITION BY item ORDER BY price DESC) AS rk FROM t) WHERE rk <= 3;
