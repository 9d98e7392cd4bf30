-- Queries > Group Aggregation: LISTAGG with a separator
-- oracle: VALUES ('u1', 'apple|cherry|banana|apple'), ('u2', 'banana|apple|durian'), ('u3', 'apple|cherry'), ('u4', 'durian|banana'), ('u5', 'apple|cherry')
SELECT user_id, LISTAGG(product, '|') FROM orders GROUP BY user_id;
