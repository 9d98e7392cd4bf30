-- Queries > Joins: CROSS JOIN
-- oracle: SELECT c.name, r.currency FROM customers c CROSS JOIN (SELECT DISTINCT currency FROM rates) r
SELECT c.name, r.currency FROM customers c CROSS JOIN (SELECT DISTINCT currency FROM rates) r;
