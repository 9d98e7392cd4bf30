-- Queries > SELECT DISTINCT (an updating result)
-- oracle: SELECT DISTINCT user_id FROM orders
SELECT DISTINCT user_id FROM orders;
