-- Queries > Top-N over an updating aggregation (retract rank)
-- oracle: SELECT currency, user_id, s FROM (SELECT currency, user_id, s, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY s DESC, user_id) AS rn FROM (SELECT currency, user_id, SUM(amount) AS s FROM orders WHERE amount IS NOT NULL GROUP BY 1, 2)) WHERE rn <= 1 AND currency <> 'EUR'
SELECT currency, user_id, s FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY s DESC) AS rn
  FROM (SELECT currency, user_id, SUM(amount) AS s FROM orders WHERE amount IS NOT NULL GROUP BY currency, user_id))
WHERE rn <= 1 AND currency <> 'EUR';
