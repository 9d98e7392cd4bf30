-- JSON_OBJECTAGG in an OVER window is refused naming the function, as
-- Flink refuses it.
SELECT JSON_OBJECTAGG(KEY CAST(x AS STRING) VALUE x) OVER (ORDER BY x) FROM (VALUES (1), (2)) AS t(x);
