-- Queries > Joins > Table Function: LATERAL TABLE of a user-defined table function
SELECT o.order_id, t.word FROM orders AS o, LATERAL TABLE(split_words(o.product)) AS t(word);
