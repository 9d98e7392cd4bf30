-- Connectors > DataGen: bounded sequence source aggregated
-- oracle: WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 100) SELECT COUNT(*), SUM(x) FROM s
SELECT COUNT(*), SUM(id) FROM gen;
