-- Functions > String: functions over table columns
-- oracle: SELECT user_id, UPPER(SUBSTR(name, 1, 3)) || '-' || LOWER(country), LENGTH(name) FROM customers
SELECT user_id, UPPER(SUBSTRING(name, 1, 3)) || '-' || LOWER(country), CHAR_LENGTH(name) FROM customers;
