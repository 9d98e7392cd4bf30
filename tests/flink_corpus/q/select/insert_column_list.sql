-- Queries > INSERT INTO with a column list
-- oracle: SELECT product, NULL, order_id FROM orders WHERE order_id <= 2
CREATE TABLE sink3 (a STRING, b INT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO sink3 (c, a) SELECT order_id, product FROM orders WHERE order_id <= 2;
