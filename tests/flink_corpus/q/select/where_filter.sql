-- Queries > SELECT & WHERE: WHERE with AND/OR
-- oracle: SELECT order_id, product FROM orders WHERE (currency = 'EUR' AND amount > 2) OR product = 'durian'
SELECT order_id, product FROM orders WHERE (currency = 'EUR' AND amount > 2) OR product = 'durian';
