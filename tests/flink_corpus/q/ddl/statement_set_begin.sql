-- BEGIN STATEMENT SET; ... END; (SQL client form)
-- oracle: SELECT user_id FROM orders WHERE currency = 'JPY'
CREATE TABLE pa (v STRING) WITH ('connector' = 'print');
BEGIN STATEMENT SET;
INSERT INTO pa SELECT user_id FROM orders WHERE currency = 'JPY';
END;
