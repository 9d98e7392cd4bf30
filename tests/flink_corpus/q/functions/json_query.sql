-- Functions > JSON: JSON_QUERY of an array and an object
-- oracle: VALUES (1, '[1,2]', '{"d":"e"}'), (2, '[]', NULL), (3, NULL, NULL)
SELECT id, JSON_QUERY(payload, '$.b'), JSON_QUERY(payload, '$.c') FROM events;
