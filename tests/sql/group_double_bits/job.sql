-- DOUBLE keys of GROUP BY, UNION, INTERSECT and PARTITION BY compare by their bits (0.0 and -0.0 apart, NaN one group), as Flink's binary rows; COUNT(DISTINCT) counts -0.0 and 0.0 as one value.
CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1, CAST(0.0 AS DOUBLE)), (2, -CAST(0.0 AS DOUBLE)), (3, CAST('NaN' AS DOUBLE)), (4, CAST('NaN' AS DOUBLE)), (5, -CAST(0.0 AS DOUBLE))) AS t(id, d);
SELECT 'union', d FROM (SELECT d FROM v UNION SELECT d FROM v);
SELECT 'rank', id, d, rn FROM (SELECT id, d, ROW_NUMBER() OVER (PARTITION BY d ORDER BY id) AS rn FROM v) WHERE rn <= 5;
SELECT 'cntd', COUNT(DISTINCT d) FROM v;
SELECT 'intersect', d FROM (SELECT d FROM v INTERSECT SELECT -d FROM v);
SELECT 'group', d, COUNT(*) FROM v GROUP BY d;
