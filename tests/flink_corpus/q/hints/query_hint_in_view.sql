-- Queries > Hints: a query hint inside a view
-- oracle: SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id
CREATE VIEW v AS SELECT /*+ SHUFFLE_MERGE(c) */ o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id;
SELECT * FROM v;
