-- Queries > Group Aggregation: GROUP_ID() beside GROUPING SETS
-- oracle: SELECT currency, 0, COUNT(*) FROM orders GROUP BY 1 UNION ALL SELECT NULL, 0, COUNT(*) FROM orders
SELECT currency, GROUP_ID(), COUNT(*) FROM orders GROUP BY GROUPING SETS ((currency), ());
