-- JSON_QUERY ... RETURNING ARRAY<STRING> (Flink): the JSON array at the
-- path as an ARRAY<STRING>, a string element as its value (unquoted), a
-- JSON null as a NULL element, any other element as its JSON text.
-- Expected rows derived by hand: [1, 2] -> [1, 2]; ["x\"y", null, {"k": 1},
-- [2], true] -> [x"y, null, {"k":1}, [2], true]; an object at the path is
-- no array: NULL; WITH ARRAY WRAPPER makes [1] of the scalar 1; EMPTY
-- ARRAY ON ERROR gives []; CARDINALITY and [n] work on the result.
SELECT JSON_QUERY('{"b": [1, 2]}', '$.b' RETURNING ARRAY<STRING>),
       JSON_QUERY('{"a":["x\"y", null, {"k": 1}, [2], true]}', '$.a' RETURNING ARRAY<STRING>),
       JSON_QUERY('{"a":{"k":1}}', '$.a' RETURNING ARRAY<STRING>),
       JSON_QUERY('{"a":1}', '$.a' RETURNING ARRAY<STRING> WITH ARRAY WRAPPER),
       JSON_QUERY('{"a":1}', 'strict $.b' RETURNING ARRAY<STRING> EMPTY ARRAY ON ERROR),
       CARDINALITY(JSON_QUERY('{"a":[1,2,3]}', '$.a' RETURNING ARRAY<STRING>)),
       JSON_QUERY('{"a":[1,2,3]}', '$.a' RETURNING ARRAY<STRING>)[2];
