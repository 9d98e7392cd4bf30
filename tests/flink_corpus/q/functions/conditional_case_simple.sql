-- Functions > Conditional: simple CASE, COALESCE, NULLIF, IF
-- oracle: SELECT CASE currency WHEN 'EUR' THEN 'e' WHEN 'USD' THEN 'u' ELSE '?' END, COALESCE(amount, 0), NULLIF(amount, 1), CASE WHEN price > 4 THEN 'hi' ELSE 'lo' END FROM orders
SELECT CASE currency WHEN 'EUR' THEN 'e' WHEN 'USD' THEN 'u' ELSE '?' END, COALESCE(amount, 0), NULLIF(amount, 1), IF(price > 4, 'hi', 'lo') FROM orders;
