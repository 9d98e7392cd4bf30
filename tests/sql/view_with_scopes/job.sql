-- WITH queries and views. A view's query with a WITH (or reading a view
-- that has one) can be described and altered. A WITH query of the
-- statement is not seen inside a view's body: v reads the table t, not the
-- statement's t. WITH is not recursive: a WITH query reads the table of
-- its own name, and the later queries of its WITH are not seen either.
-- SHOW TABLES lists a temporary table once beside the permanent one it
-- shadows, whatever the case of either name.
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TEMPORARY TABLE T (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE u (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
SHOW TABLES;
CREATE VIEW w0 (x) AS WITH w AS (SELECT id FROM t) SELECT id FROM w;
DESCRIBE w0;
CREATE VIEW v AS SELECT id FROM t;
ALTER VIEW v AS WITH w AS (SELECT id * 10 AS id FROM t) SELECT id FROM w;
DESCRIBE v;
ALTER VIEW v AS SELECT x AS id FROM w0;
SHOW CREATE VIEW v;
CREATE TABLE o1 (id INT) WITH ('connector' = 'print', 'print-identifier' = 'view');
CREATE TABLE o2 (id INT) WITH ('connector' = 'print', 'print-identifier' = 'own');
CREATE TABLE o3 (id INT) WITH ('connector' = 'print', 'print-identifier' = 'later');
EXECUTE STATEMENT SET BEGIN
INSERT INTO o1 WITH t AS (SELECT 42 AS id), w0 AS (SELECT 43 AS x) SELECT id FROM v;
INSERT INTO o2 WITH t AS (SELECT id + 100 AS id, name FROM t) SELECT id FROM t;
INSERT INTO o3 WITH a AS (SELECT id FROM u), u AS (SELECT 7 AS id) SELECT id FROM a;
END;
