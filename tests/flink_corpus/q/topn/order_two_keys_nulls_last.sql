-- Queries > Top-N: ORDER BY two columns with NULLS LAST
-- oracle: SELECT order_id FROM orders WHERE order_id IN (SELECT order_id FROM orders ORDER BY amount IS NULL, amount DESC, price DESC LIMIT 3)
SELECT order_id FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY amount DESC NULLS LAST, price DESC) AS rn FROM orders) WHERE rn <= 3;
