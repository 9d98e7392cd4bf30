-- Functions > JSON: JSON_QUERY WITH ARRAY WRAPPER
-- oracle: VALUES ('[1]')
SELECT JSON_QUERY('{"a": 1}', '$.a' WITH WRAPPER);
