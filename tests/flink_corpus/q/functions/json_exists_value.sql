-- Functions > JSON: IS JSON, JSON_EXISTS, JSON_VALUE
-- oracle: VALUES (1, 1, 1, '1'), (2, 1, 0, '2'), (3, 0, 0, NULL)
SELECT id, payload IS JSON, JSON_EXISTS(payload, '$.c'), JSON_VALUE(payload, '$.a') FROM events;
