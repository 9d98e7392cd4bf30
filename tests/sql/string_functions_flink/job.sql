-- Flink's REGEXP_EXTRACT_ALL (default group 1) and REGEXP_SPLIT
-- (Pattern.split(s, -1): trailing empty pieces kept, no match gives [s]),
-- LEFT / RIGHT (a negative length gives ''), STARTSWITH / ENDSWITH,
-- TO_BASE64 / FROM_BASE64, JSON_QUOTE / JSON_UNQUOTE / JSON_STRING, over a
-- column with an empty string and a NULL. Expected rows derived by hand
-- from Flink's documented rules; every function is NULL for NULL.
CREATE TABLE t (id INT, s STRING, j STRING)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT id, REGEXP_EXTRACT_ALL(s, '([a-z])(\d+)'), REGEXP_EXTRACT_ALL(s, '([a-z])(\d+)', 2), REGEXP_SPLIT(s, '\d+'),
       CARDINALITY(REGEXP_SPLIT(s, ',')), LEFT(s, 3), RIGHT(s, 2), LEFT(s, -1), STARTSWITH(s, 'a1'), ENDSWITH(s, '4')
FROM t;

SELECT id, TO_BASE64(s), FROM_BASE64(TO_BASE64(s)), JSON_QUOTE(s), JSON_UNQUOTE(j), JSON_STRING(id), JSON_STRING(s)
FROM t;
