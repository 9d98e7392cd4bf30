-- CREATE TABLE AS SELECT
CREATE TABLE ctas_out WITH ('connector' = 'print') AS SELECT user_id, product FROM orders WHERE amount > 5;
