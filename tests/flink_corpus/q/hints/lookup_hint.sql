-- Queries > Hints > Join Hints: LOOKUP hint with async and retry options
-- oracle: SELECT o.order_id, c.country FROM orders o JOIN customers c ON o.user_id = c.user_id
SELECT /*+ LOOKUP('table'='c', 'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', 'fixed-delay'='1s', 'max-attempts'='3') */ o.order_id, c.country
FROM orders_pt AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.user_id = c.user_id;
