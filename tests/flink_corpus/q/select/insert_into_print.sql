-- Queries > INSERT INTO a print sink
-- oracle: SELECT order_id, product FROM orders WHERE currency = 'USD'
CREATE TABLE out_print (order_id BIGINT, product STRING) WITH ('connector' = 'print');
INSERT INTO out_print SELECT order_id, product FROM orders WHERE currency = 'USD';
