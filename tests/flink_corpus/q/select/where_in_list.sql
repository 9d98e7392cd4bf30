-- Queries > SELECT & WHERE: IN list and BETWEEN
-- oracle: SELECT order_id FROM orders WHERE currency IN ('USD', 'GBP') AND amount BETWEEN 1 AND 5
SELECT order_id FROM orders WHERE currency IN ('USD', 'GBP') AND amount BETWEEN 1 AND 5;
