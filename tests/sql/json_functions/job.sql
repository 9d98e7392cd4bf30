-- SQL/JSON functions: Flink's documented examples (JSON_VALUE, JSON_EXISTS,
-- JSON_QUERY, IS JSON), then fields pulled out of a raw JSON column.
SELECT JSON_VALUE('{"a": true}', '$.a') AS v1,
       JSON_VALUE('{"a": true}', '$.a' RETURNING BOOLEAN) AS v2,
       JSON_VALUE('{"a": true}', 'lax $.b' RETURNING BOOLEAN DEFAULT FALSE ON EMPTY) AS v3,
       JSON_VALUE('{"a": true}', 'strict $.b' RETURNING BOOLEAN DEFAULT FALSE ON ERROR) AS v4,
       JSON_VALUE('{"a.b": [0.998,0.996]}', '$.["a.b"][0]' RETURNING DOUBLE) AS v5;
SELECT JSON_EXISTS('{"a": true}', '$.a') AS e1,
       JSON_EXISTS('{"a": true}', '$.b') AS e2,
       JSON_EXISTS('{"a": [{ "b": 1 }]}', '$.a[0].c') AS e3,
       JSON_EXISTS('{"a": [{ "b": 1 }]}', '$.a[0].b') AS e4,
       JSON_EXISTS('{"a": true}', 'strict $.b' TRUE ON ERROR) AS e5,
       JSON_EXISTS('{"a": true}', 'strict $.b' FALSE ON ERROR) AS e6,
       JSON_EXISTS('not json', '$' UNKNOWN ON ERROR) AS e7;
SELECT '1' IS JSON AS j1, '[]' IS JSON AS j2, '{}' IS JSON AS j3, '"abc"' IS JSON AS j4,
       'abc' IS JSON AS j5, CAST(NULL AS STRING) IS JSON AS j6,
       '1' IS JSON SCALAR AS j7, '1' IS JSON ARRAY AS j8, '1' IS JSON OBJECT AS j9,
       '{}' IS JSON SCALAR AS j10, '{}' IS JSON ARRAY AS j11, '{}' IS JSON OBJECT AS j12,
       'abc' IS NOT JSON AS j13;
SELECT JSON_QUERY('{ "a": { "b": 1 } }', '$.a') AS q1,
       JSON_QUERY('[1, 2]', '$') AS q2,
       JSON_QUERY(CAST(NULL AS STRING), '$') AS q3,
       JSON_QUERY('{}', '$' WITH CONDITIONAL ARRAY WRAPPER) AS q4,
       JSON_QUERY('[1, 2]', '$' WITH CONDITIONAL ARRAY WRAPPER) AS q5,
       JSON_QUERY('[1, 2]', '$' WITH UNCONDITIONAL ARRAY WRAPPER) AS q6,
       JSON_QUERY('1', '$') AS q7,
       JSON_QUERY('1', '$' WITH CONDITIONAL ARRAY WRAPPER) AS q8,
       JSON_QUERY('{}', 'lax $.invalid' EMPTY OBJECT ON EMPTY) AS q9,
       JSON_QUERY('{}', 'strict $.invalid' EMPTY ARRAY ON ERROR) AS q10;
-- A signed zero: the JSON integer -0 is 0 (also as a DOUBLE, also in a string), the double -0.0 stays -0.0.
SELECT JSON_VALUE('-0', '$') AS z1, JSON_VALUE('[-0]', '$[0]' RETURNING DOUBLE) AS z2,
       JSON_VALUE('"-0"', '$' RETURNING DOUBLE) AS z3, JSON_QUERY('[-0, -0.0, 0, -0e0]', '$') AS z4,
       JSON_VALUE('-0.0', '$') AS z5, JSON_VALUE('{"a":-0}', '$.a' RETURNING BIGINT) AS z6;
-- Constructors (Flink's examples; a nested constructor goes in as JSON).
SELECT JSON_OBJECT() AS o1,
       JSON_OBJECT('K1' VALUE 'V1', 'K2' VALUE 'V2') AS o2,
       JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) NULL ON NULL) AS o3,
       JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) ABSENT ON NULL) AS o4,
       JSON_OBJECT(KEY 'K1' VALUE JSON_OBJECT(KEY 'K2' VALUE 'V')) AS o5,
       JSON_OBJECT('n' VALUE 1, 'd' VALUE 2.50, 'f' VALUE 1.5E0, 'b' VALUE TRUE, 'q' VALUE 'say "hi"') AS o6;
SELECT JSON_ARRAY() AS a1, JSON_ARRAY(1, '2') AS a2,
       JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL) AS a3,
       JSON_ARRAY(CAST(NULL AS STRING) ABSENT ON NULL) AS a4,
       JSON_ARRAY(JSON_ARRAY(1)) AS a5, JSON_ARRAY(NULL, 1) AS a6;
CREATE TABLE events (id INT, payload STRING)
WITH ('connector' = 'filesystem', 'path' = 'events.csv', 'format' = 'csv');
SELECT id,
       JSON_VALUE(payload, '$.user.name') AS name,
       JSON_VALUE(payload, 'lax $.amount' RETURNING INT DEFAULT -1 ON EMPTY DEFAULT -2 ON ERROR) AS amount,
       JSON_VALUE(payload, 'lax $.tags[1]') AS tag,
       JSON_EXISTS(payload, 'lax $.user') AS has_user,
       payload IS JSON OBJECT AS is_obj
FROM events;
