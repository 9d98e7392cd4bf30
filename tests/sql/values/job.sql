-- VALUES as an INSERT source and as a table in FROM (renamed columns,
-- common column types: INT and DECIMAL give DECIMAL, a NULL cell makes the
-- column nullable), through a filter and a changelog aggregation.
CREATE TABLE o (id BIGINT, name STRING, price DECIMAL(10, 2)) WITH ('connector' = 'print', 'print-identifier' = 'insert');
CREATE TABLE f (k INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'filtered');
CREATE TABLE g (k INT, n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'grouped');
INSERT INTO o VALUES (1, 'a', 1.5), (2, 'b', NULL), (3, CONCAT('c', 'd'), 2);
INSERT INTO f SELECT * FROM (VALUES (1, 'x'), (2, 'y'), (2, 'z')) AS t(k, v) WHERE k > 1;
INSERT INTO g SELECT k, COUNT(*) FROM (VALUES (1, 'x'), (2, 'y'), (2, 'z')) AS t(k, v) GROUP BY k;
