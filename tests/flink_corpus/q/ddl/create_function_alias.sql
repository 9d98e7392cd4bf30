-- CREATE TEMPORARY SYSTEM FUNCTION as another name of a built-in
-- flink-refuses
-- oracle: SELECT UPPER(name) FROM customers
CREATE TEMPORARY SYSTEM FUNCTION shout AS 'UPPER';
SELECT shout(name) FROM customers;
