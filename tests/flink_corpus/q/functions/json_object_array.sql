-- Functions > JSON: JSON_OBJECT, JSON_ARRAY, JSON_STRING
-- oracle: VALUES ('{"k":"v","n":1}', '[1,"a"]', '"x"')
SELECT JSON_OBJECT(KEY 'k' VALUE 'v', KEY 'n' VALUE 1), JSON_ARRAY(1, 'a'), JSON_STRING('x');
