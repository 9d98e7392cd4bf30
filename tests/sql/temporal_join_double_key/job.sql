-- An event-time temporal join on a DOUBLE primary key: the versioned
-- table's key is an identity, so -0.0 and 0.0 are two of its rows (as in
-- Flink, whose keys meet by their bytes) and each probe finds its own row:
-- 0.0 finds a, -0.0 finds b (a regular join would pair both with both,
-- as '=' does). A NaN probe meets nothing, as '=' says (the table's NaN
-- row is never found); a NULL probe meets nothing. Worked by hand.
CREATE TABLE orders (id STRING, t TIMESTAMP(3), k DOUBLE, WATERMARK FOR t AS t) WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE rates (t TIMESTAMP(3), k DOUBLE, v STRING, WATERMARK FOR t AS t, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');
CREATE TABLE o (id STRING, k DOUBLE, rk DOUBLE, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'tj');
INSERT INTO o SELECT orders.id, orders.k, rates.k, rates.v FROM orders LEFT JOIN rates FOR SYSTEM_TIME AS OF orders.t ON orders.k = rates.k;
