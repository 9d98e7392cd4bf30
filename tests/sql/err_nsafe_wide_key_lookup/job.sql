-- IS NOT DISTINCT FROM as a lookup join's key is refused by name, also
-- where the key's types (BIGINT beside DECIMAL(38, 20), which holds no
-- 19-digit integer) would make the pair a condition rather than a key.
CREATE TABLE side (key DECIMAL(38, 20), `value` STRING) WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');
CREATE TABLE s (b BIGINT, p AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
SELECT s.b, t.`value` FROM s LEFT JOIN side FOR SYSTEM_TIME AS OF s.p AS t ON s.b IS NOT DISTINCT FROM t.key;
