-- Queries > CREATE VIEW then SELECT from it
-- oracle: SELECT user_id, product FROM orders WHERE price > 4
CREATE VIEW pricey AS SELECT user_id, product FROM orders WHERE price > 4;
SELECT * FROM pricey;
