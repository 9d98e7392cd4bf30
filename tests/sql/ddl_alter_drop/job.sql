-- ALTER TABLE, ALTER VIEW and DROP run in script order, each statement
-- seeing the catalog the ones before it left: the path option is replaced,
-- a physical column is added between two others (the CSV's second field is
-- read into it), a column renamed, two computed columns added and one of
-- them dropped, the table renamed; a dropped table's name is free for a
-- new table; a view is renamed, another given a new query, a temporary
-- one dropped.
CREATE TABLE src (id INT, score INT) WITH ('connector' = 'filesystem', 'path' = 'missing.csv', 'format' = 'csv');
ALTER TABLE src SET ('path' = 't.csv');
ALTER TABLE src ADD name STRING AFTER id;
ALTER TABLE src RENAME score TO points;
ALTER TABLE src ADD (up AS UPPER(name), twice AS points * 2);
ALTER TABLE src DROP twice;
ALTER TABLE IF EXISTS no_such_table DROP twice;
ALTER TABLE src RENAME TO people;
CREATE TABLE out1 (id INT, up STRING, points INT) WITH ('connector' = 'print', 'print-identifier' = 'people');
CREATE TABLE junk (a INT) WITH ('connector' = 'datagen');
DROP TABLE junk;
DROP TABLE IF EXISTS junk;
CREATE TABLE junk (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'junk');
CREATE VIEW v AS SELECT id, name FROM people WHERE points > 5;
ALTER VIEW v RENAME TO high;
CREATE VIEW low AS SELECT id, name FROM people;
ALTER VIEW low AS SELECT id, name FROM people WHERE points <= 5;
CREATE TEMPORARY VIEW gone AS SELECT 1;
DROP TEMPORARY VIEW gone;
DROP VIEW IF EXISTS gone;
CREATE TABLE out2 (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'low');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out1 SELECT id, up, points FROM people;
INSERT INTO junk SELECT * FROM high;
INSERT INTO out2 SELECT * FROM low;
END;
