-- SET with an unquoted key and value (SQL client form)
-- names: quoted
-- oracle: SELECT COUNT(*) FROM orders
SET table.exec.mini-batch.enabled = true;
SELECT COUNT(*) FROM orders;
