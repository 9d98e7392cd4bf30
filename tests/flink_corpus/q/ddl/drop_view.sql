-- DROP VIEW then recreate
-- oracle: SELECT order_id FROM orders WHERE amount > 7
CREATE VIEW v AS SELECT order_id FROM orders;
DROP VIEW v;
CREATE VIEW v AS SELECT order_id FROM orders WHERE amount > 7;
SELECT * FROM v;
