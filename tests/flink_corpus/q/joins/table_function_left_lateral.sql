-- Queries > Joins > Table Function: LEFT JOIN LATERAL TABLE(...) ON TRUE
SELECT o.order_id, t.word FROM orders AS o LEFT JOIN LATERAL TABLE(split_words(o.product)) AS t(word) ON TRUE;
