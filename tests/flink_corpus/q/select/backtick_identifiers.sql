-- Queries > identifiers quoted with backticks (reserved words as names)
-- oracle: SELECT order_id, amount FROM orders WHERE order_id < 3
SELECT `order_id` AS `value`, `amount` AS `timestamp` FROM orders WHERE order_id < 3;
