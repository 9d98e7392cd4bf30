-- A column may be qualified by its FROM item's table as Flink resolves it:
-- t.c, db.t.c or catalog.db.t.c, the path completed with the current
-- catalog and database (in a view's query: those where it was created),
-- matching without regard to case; an alias that is the table's own name
-- keeps the path; db.t.* as well.
CREATE DATABASE db1;
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE db1.u (id INT, y INT) WITH ('connector' = 'filesystem', 'path' = 'u.csv', 'format' = 'csv');
USE db1;
-- u's path from its home database db1: u.y, db1.u.y, default_catalog.db1.u.y
CREATE VIEW uv AS SELECT u.id, db1.u.y AS y, default_catalog.db1.u.y + 1 AS y1 FROM u;
USE default_database;
CREATE TABLE out1 (id INT, name STRING, n2 STRING, y INT, y1 INT) WITH ('connector' = 'print', 'print-identifier' = 'j');
CREATE TABLE out2 (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 's');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out1
SELECT default_database.t.id, default_catalog.default_database.t.name, DEFAULT_DATABASE.T.NAME, db1.uv.y, uv.y1
FROM t JOIN db1.uv ON t.id = db1.uv.id;
INSERT INTO out2 SELECT default_database.t.* FROM t AS t WHERE default_catalog.default_database.t.id > 1;
END;
