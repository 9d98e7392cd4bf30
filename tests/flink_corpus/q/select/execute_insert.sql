-- Queries > INSERT: EXECUTE INSERT INTO
-- oracle: SELECT order_id FROM orders WHERE currency = 'JPY'
CREATE TABLE p1 (order_id BIGINT) WITH ('connector' = 'print');
EXECUTE INSERT INTO p1 SELECT order_id FROM orders WHERE currency = 'JPY';
