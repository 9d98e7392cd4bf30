-- CREATE OR REPLACE TABLE AS SELECT
CREATE OR REPLACE TABLE rtas_out WITH ('connector' = 'print') AS SELECT user_id FROM orders;
