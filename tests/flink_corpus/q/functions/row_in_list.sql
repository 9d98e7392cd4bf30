-- Functions > Comparison Functions: a row constructor IN a list of rows
-- oracle: SELECT order_id FROM orders WHERE (user_id = 'u1' AND product = 'apple') OR (user_id = 'u2' AND product = 'banana')
SELECT order_id FROM orders WHERE (user_id, product) IN (('u1', 'apple'), ('u2', 'banana'));
