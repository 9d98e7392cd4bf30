-- EXECUTE STATEMENT SET BEGIN ... END
-- oracle: SELECT 'a', user_id FROM orders WHERE currency = 'JPY' UNION ALL SELECT 'b', product FROM orders WHERE currency = 'GBP'
CREATE TABLE pa (v STRING) WITH ('connector' = 'print', 'print-identifier' = 'a');
CREATE TABLE pb (v STRING) WITH ('connector' = 'print', 'print-identifier' = 'b');
EXECUTE STATEMENT SET BEGIN
INSERT INTO pa SELECT user_id FROM orders WHERE currency = 'JPY';
INSERT INTO pb SELECT product FROM orders WHERE currency = 'GBP';
END;
