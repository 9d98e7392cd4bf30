-- SELECT without FROM: one row, as Flink; with UNION ALL, functions,
-- an aggregate (one group) and every literal type.
SELECT 1 AS i, 'a' AS s, CAST(NULL AS INT) AS n, 2.5 AS d, TRUE AS b,
       CAST(7 AS BIGINT) AS l, 1.5E0 AS f, TIMESTAMP '2024-01-02 03:04:05.006' AS ts
UNION ALL
SELECT 2, UPPER('b'), 3, 3.5, FALSE, CAST(-1 AS BIGINT), -2.0E0, TIMESTAMP '1970-01-01 00:00:00';
SELECT REGEXP_EXTRACT('key=val', '(?<==)\w+') AS v, COUNT(*) AS rows_seen;
