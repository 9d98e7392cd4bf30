-- Queries > SELECT & WHERE: IS NULL / IS NOT NULL
-- oracle: SELECT order_id FROM orders WHERE amount IS NULL
SELECT order_id FROM orders WHERE amount IS NULL;
