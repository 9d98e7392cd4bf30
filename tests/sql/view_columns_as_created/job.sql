-- A view keeps the columns its query read where it was created, as Flink
-- keeps a view's query expanded (`*` replaced by the columns it meant,
-- each qualified by its table): a column added to the table later (here a
-- computed one, so that the file keeps its fields) is not seen through
-- v1 or the view over it, v2; an inner view dropped and re-created with
-- its columns in another order and one more is read by name, the outer
-- view keeping its own columns and their order.
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE VIEW v1 AS SELECT * FROM t;
CREATE VIEW v2 AS SELECT * FROM v1 WHERE id > 1;
ALTER TABLE t ADD twice AS id * 2;
CREATE VIEW inner_v AS SELECT id, name FROM t;
CREATE VIEW outer_v AS SELECT * FROM inner_v;
DROP VIEW inner_v;
CREATE VIEW inner_v AS SELECT name, 'z' AS extra, id + 10 AS id FROM t;
CREATE TABLE o1 (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'v2');
CREATE TABLE o2 (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'outer');
CREATE TABLE o3 (id INT, name STRING, twice INT) WITH ('connector' = 'print', 'print-identifier' = 't');
INSERT INTO o1 SELECT * FROM v2;
INSERT INTO o2 SELECT * FROM outer_v;
INSERT INTO o3 SELECT * FROM t;
